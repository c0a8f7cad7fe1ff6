#!/bin/sh
# tests/packaging/check_model_memory.sh - an out-of-tree model's ctest
# replays of CORPUS/<target>/ (weft_add_model(), regression engine) run a
# stored crash under the memory model it was found under. The model
# (tests/packaging/mp-model: message passing) is buggy only under weak
# memory and its registry declares none (sc); its crash, a version-2
# genome asking for lkmm as `weft fuzz --memory lkmm` writes them (serial,
# the data store delayed), is stored in the buggy variant's corpus and the
# fixed one's. The buggy variant's ctest replay must fail, reporting the
# data loss (it passed: the driver ran the crash under the registry's sc,
# and only WEFT_FUZZ_MEMORY=lkmm by hand showed the bug); the fixed
# variant's must pass (its barriers hold under lkmm); and with
# WEFT_FUZZ_MEMORY=sc the buggy target is clean (the variable still wins).
#
# Usage: check_model_memory.sh SOURCE_DIR BUILD_DIR WORK_DIR CC
# Exit codes: 0 pass, 1 a check failed, 2 usage.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 SOURCE_DIR BUILD_DIR WORK_DIR CC" >&2; exit 2; }
src=$1 build=$2 work=$3 cc=$4
fail() { echo "check_model_memory: FAILED: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "cmake --install"; }

ex="$work/mp-model"
cp -r "$src/tests/packaging/mp-model" "$ex"
rm -rf "$ex/build" "$ex/corpus"
# FF C2: genome version 2; mode serial, param 0, seed 0; mem 2 (lkmm, no
# delay rate); 0 ops; one override: store 0 (key 0x8000) gets delay code 15
for t in fuzz_pkg_mp_nobar fuzz_pkg_mp_wmb; do
	mkdir -p "$ex/corpus/$t"
	printf '\377\302\000\000\000\000\000\000\002\000\000\200\217' >"$ex/corpus/$t/crash-lkmm"
done
CC="$cc" cmake -S "$ex" -B "$ex/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log"; fail "configure the model"; }
cmake --build "$ex/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the model"; }

# the registry's own model (sc): the crash does not fail there
WEFT_FUZZ_MEMORY=sc "$ex/build/fuzz_pkg_mp_nobar" "$ex/corpus/fuzz_pkg_mp_nobar" \
	>"$work/sc.log" 2>&1 || { cat "$work/sc.log"; fail "the crash fails under sc: it proves nothing"; }

if ctest --test-dir "$ex/build" --output-on-failure >"$work/ctest.log" 2>&1; then
	cat "$work/ctest.log"; fail "ctest passed with an lkmm crash of pkg-mp:nobar in its corpus"
fi
cat "$work/ctest.log"
grep -Eq "[0-9]+ - mp_regression_fuzz_pkg_mp_nobar \(" "$work/ctest.log" ||
	fail "the buggy variant's corpus replay did not fail"
grep -q "SUMMARY: weft: data-loss pkg-mp:nobar" "$work/ctest.log" ||
	fail "the failing replay does not report the data loss"
grep -q -- "--memory lkmm" "$work/ctest.log" || fail "the report's hint does not name lkmm"
grep -q "mp_regression_fuzz_pkg_mp_wmb .*Passed" "$work/ctest.log" ||
	fail "the fixed variant's corpus replay did not pass"
grep -q "mp_check_pkg_mp_nobar .*Passed" "$work/ctest.log" || fail "nobar's verdict check"
grep -q "mp_check_pkg_mp_wmb .*Passed" "$work/ctest.log" || fail "wmb's verdict check"
echo "check_model_memory: ok (an lkmm crash in an sc registry's corpus fails its ctest replay on the buggy variant, not the fixed one)"
