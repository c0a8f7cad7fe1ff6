#!/bin/sh
# fuzz_kind.sh WEFT TARGET: the fuzz path of a --kind search goes on past
# the warnings it did not ask for, as weft run --kind does, and stays
# deterministic: z12's deadlock input (found by weft run --kind deadlock)
# is a deadlock for the fuzz target under WEFT_FUZZ_KIND=deadlock twice
# (an irq-lock-inversion without it), weft import --kind deadlock turns it
# into a .weft that records the run went on past warnings, and its replay
# reproduces the deadlock.
set -u
weft=$1
target=$2
dir=${TMPDIR:-/tmp}/weft-fuzz-kind.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

hex=$("$weft" run z12-memcg-lrucare:z12 --strategy random --seed 1 --kind deadlock --json |
	sed -n 's/.*"kind": "deadlock".*"input": "\([0-9a-f]*\)".*/\1/p')
[ -n "$hex" ] || fail "weft run --kind deadlock found no deadlock input"
python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))' "$hex" > "$dir/in" || fail "hex"
for i in 1 2; do
	WEFT_FUZZ_KIND=deadlock "$target" "$dir/in" > "$dir/out$i" 2>&1
	grep -q "SUMMARY: weft: deadlock " "$dir/out$i" || fail "run $i under WEFT_FUZZ_KIND=deadlock: $(grep SUMMARY "$dir/out$i")"
	grep -q -- "--kind deadlock" "$dir/out$i" || fail "the import hint lacks --kind deadlock"
done
"$target" "$dir/in" 2>&1 | grep -q "SUMMARY: weft: irq-lock-inversion " ||
	fail "without WEFT_FUZZ_KIND the input should stop at lockdep's report"
"$weft" import "$dir/in" --target z12-memcg-lrucare:z12 --kind deadlock --out "$dir/o" > "$dir/imp" 2>&1
[ $? = 1 ] || fail "import --kind deadlock: $(tail -3 "$dir/imp")"
f=$(ls "$dir"/o/deadlock-*.weft 2>/dev/null | head -1)
[ -n "$f" ] || fail "import wrote no deadlock .weft: $(tail -3 "$dir/imp")"
"$weft" info "$f" | grep -q "goes on past warnings" || fail "the file does not record it went on past warnings"
"$weft" replay "$f" --quiet > /dev/null 2>&1
[ $? = 1 ] || fail "the imported file does not replay to its deadlock"
echo "fuzz --kind: deadlock found twice by the target, imported and replayed"
