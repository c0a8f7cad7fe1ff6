#!/bin/sh
# check-previous.sh CC SRC_ROOT - the previous release's model
# (tests/compat/mmap_sem.c) compiles against today's headers with exactly
# the switches CHANGELOG.md names for it, and against the previous
# release's own headers (commit 111b56f, from git) with none: it is a model
# of that release, unchanged. Without git history (a tarball, a shallow
# clone) the second half says so and is skipped.
set -eu
cc=$1 root=$2
model="$root/tests/compat/mmap_sem.c"
flags="-std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -fsyntax-only"
prev=111b56f
# the switches, as CHANGELOG.md gives them for this release's new names
sw=$(sed -n 's/.*compat-switches: \(.*\) -->.*/\1/p' "$root/CHANGELOG.md" | head -n 1)
[ -n "$sw" ] || { echo "CHANGELOG.md names no compat-switches"; exit 1; }
# shellcheck disable=SC2086
$cc $flags $sw -I"$root/core/include" "$model" ||
	{ echo "FAIL: $model does not build against today's headers with $sw"; exit 1; }
echo "today's headers with $sw: builds"
# every name a WEFT_OWN_ switch leaves to the model is listed in CHANGELOG.md
missing=$(for h in "$root"/core/include/weft/*.h "$root"/core/include/weft/mm/*.h; do
	awk '/^#ifndef WEFT_OWN_/ { on = 1; next } on && /^#endif/ { on = 0 }
	     on && /^#define [A-Za-z_]/ { sub(/\(.*/, "", $2); print $2 }' "$h"
done | sort -u | while read -r n; do
	case $n in __weft*|WEFT_*) continue ;; esac
	grep -q "\`$n\`" "$root/CHANGELOG.md" || echo "$n"
done)
[ -z "$missing" ] || { echo "FAIL: CHANGELOG.md does not list:" $missing; exit 1; }
echo "every name under a WEFT_OWN_ switch is in CHANGELOG.md"
# every installed header still compiles with every switch on (none of them
# uses a name it leaves to the model)
all=$(grep -rhoE '^#ifndef WEFT_OWN_[A-Z0-9_]+' "$root/core/include/weft" | sed 's/#ifndef /-D/' | sort -u)
tu=$(mktemp --suffix=.c)
for h in "$root"/core/include/weft/*.h "$root"/core/include/weft/mm/*.h; do
	case $h in */native.h|*/native_run.h|*/strategy.h) continue ;; esac
	echo "#include <weft/${h#"$root"/core/include/weft/}>"
done >"$tu"
echo 'int weft_compat_tu(void); int weft_compat_tu(void) { return 0; }' >>"$tu"
# shellcheck disable=SC2086
$cc $flags $all -I"$root/core/include" "$tu" || { rm -f "$tu"; echo "FAIL: the headers with$all"; exit 1; }
rm -f "$tu"
echo "every installed header with every switch on: builds"
if ! git -C "$root" cat-file -e "$prev^{commit}" 2>/dev/null; then
	echo "SKIP: no git history with $prev here: the previous release's headers are not checked"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive "$prev" core/include | tar -x -C "$tmp"
# shellcheck disable=SC2086
$cc $flags -I"$tmp/core/include" "$model" ||
	{ echo "FAIL: $model is not a model of $prev (it does not build against its headers)"; exit 1; }
echo "$prev's headers, no switch: builds"
