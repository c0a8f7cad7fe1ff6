#!/bin/sh
# tests/packaging/check_installed_link.sh - the short tier's guard on the
# installed package's link lines: installs this build tree into a scratch
# prefix and links a model against every installed pkg-config file and the
# CMake package's exported targets, the way a user does after
# `cmake --install`. (The medium tier's example-from-install goes further:
# a separate build, both examples, fuzzing, replay.) A library that a CLI
# subcommand needs but weft.pc leaves out fails here at link time.
#
# Usage: check_installed_link.sh SOURCE_DIR BUILD_DIR WORK_DIR CC
# Exit codes: 0 pass, 1 a check failed, 2 usage.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 SOURCE_DIR BUILD_DIR WORK_DIR CC" >&2; exit 2; }
src=$1 build=$2 work=$3 cc=$4
fail() { echo "check_installed_link: FAILED: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "cmake --install"; }
pcdir="$(dirname "$(find "$prefix" -name weft.pc | head -n 1)")"
[ -f "$pcdir/weft.pc" ] || fail "no weft.pc installed"
pc() { PKG_CONFIG_PATH="$pcdir" pkg-config "$@"; }

# weft.pc: the model and the weft command line (every subcommand linked)
model="$src/docs/examples/refcount-put/obj_put.c"
# shellcheck disable=SC2046
"$cc" -O1 -Wall -Werror $(pc --cflags weft) -o "$work/obj-put" "$model" $(pc --libs weft) \
	>"$work/link.log" 2>&1 || { cat "$work/link.log"; fail "link with pkg-config weft"; }
set +e
"$work/obj-put" run example-obj-put:split-put --strategy dfs >"$work/run.log" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$work/run.log"; fail "split-put: exit $rc, want 1 (a bug)"; }
grep -q double-free "$work/run.log" || { cat "$work/run.log"; fail "split-put: no double-free"; }
"$work/obj-put" run example-obj-put:dec-and-test --strategy dfs --bound 2 >"$work/run-fix.log" 2>&1 ||
	{ cat "$work/run-fix.log"; fail "dec-and-test: not clean"; }
"$work/obj-put" litmus --help >/dev/null 2>&1 || fail "the linked command line has no litmus subcommand"

# the fuzz drivers' pkg-config files: the regression driver links with any
# C compiler (the libFuzzer and AFL++ ones need their compilers: medium tier)
for p in weft-fuzz-regression; do
	printf '#include <weft/fuzz.h>\nWEFT_FUZZ_TARGET("example-obj-put:split-put");\n' >"$work/$p.c"
	# shellcheck disable=SC2046
	"$cc" -O1 $(pc --cflags "$p") -o "$work/$p" "$work/$p.c" "$model" $(pc --libs "$p") \
		>"$work/$p.log" 2>&1 || { cat "$work/$p.log"; fail "link with pkg-config $p"; }
done
echo "check_installed_link: ok (weft.pc: split-put found, dec-and-test clean; weft-fuzz-regression links)"
