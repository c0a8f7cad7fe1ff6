#!/bin/sh
# check_min_weak.sh WEFT CORPUS SCRATCH: weft min of every weak-memory
# replay in corpus/regressions (a file with store delays, which its raw
# bytes input cannot express) starts from the file's own execution: it
# reproduces (exit 1, "reproduced": true), keeps the kind, and the written
# file replays (exit 1). It said "the input does not fail" (exit 0) before.
set -u
weft=$1 corpus=$2 dir=$3
. "$(dirname "$0")/../scratch.sh"
scratch "$dir"
n=0
for f in "$corpus"/*.weft; do
	"$weft" info "$f" 2>/dev/null | grep -q "stores delayed)" || continue
	n=$((n + 1))
	out="$dir/$(basename "$f" .weft)"
	"$weft" min "$f" --out "$out" --json >"$out.json" 2>"$out.err"
	rc=$?
	kind=$("$weft" info "$f" --json | sed -n 's/.*"kind": "\([^"]*\)".*/\1/p' | head -n 1)
	if [ "$rc" != 1 ] || ! grep -q '"reproduced": true' "$out.json" ||
	   ! grep -q "\"kind\": \"$kind\"" "$out.json"; then
		echo "FAIL $f: weft min exit $rc"; cat "$out.json" "$out.err"; fail=$((fail + 1))
		continue
	fi
	a=$(ls "$out"/*.weft 2>/dev/null | head -n 1)
	"$weft" replay "$a" >/dev/null 2>&1
	[ $? = 1 ] || { echo "FAIL $f: the minimized $a does not replay its bug"; fail=$((fail + 1)); }
done
echo "check_min_weak: $n weak-memory files, $fail failed"
[ "$n" -gt 0 ] && [ "$fail" = 0 ]
