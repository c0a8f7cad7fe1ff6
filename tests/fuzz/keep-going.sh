#!/bin/sh
# keep-going.sh TARGET WEFT SPEC INPUTS - `weft fuzz --keep-going` sets
# WEFT_FUZZ_KEEP_GOING=DIR: a report does not stop the target, the first input
# of each report kind and site is kept in DIR/<kind>-<site id>, and the target
# goes on. Here the empty input (which reports on SPEC) runs twice, then the
# INPUTS folder (inputs of other sites): the target must exit 0 having run them
# all, keep exactly one file per distinct site (the empty input's once), and
# each kept file must be a one-execution reproducer `weft import` reproduces.
# Before, the target aborted at the empty input, and libFuzzer -fork
# -ignore_crashes restarted on it: 239 jobs in 15 s, one crash, corpus 0.
set -u
target=$1 weft=$2 spec=$3 inputs=$4
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "keep-going: $*"; exit 1; }
: >"$d/empty"
mkdir "$d/keep" "$d/out"
WEFT_FUZZ_KEEP_GOING="$d/keep" "$target" "$d/empty" "$d/empty" "$inputs" >"$d/target.out" 2>&1 ||
	{ cat "$d/target.out"; fail "the target stopped (exit $?)"; }
n_in=$(ls "$inputs" | wc -l)
grep -q "inputs: no report" "$d/target.out" || { cat "$d/target.out"; fail "not every input ran"; }
kept=$(ls "$d/keep" | wc -l)
[ "$kept" -eq $((n_in + 1)) ] || { ls -a "$d/keep"; fail "kept $kept files, want $((n_in + 1))"; }
[ "$(ls -A "$d/keep" | grep -c '^\.')" -eq 0 ] || fail "a temporary file was left"
[ "$(grep -c 'keep-going: .*input kept in' "$d/target.out")" -eq "$kept" ] ||
	fail "the target did not say once per kept input"
for f in "$d/keep"/*; do
	k=${f##*/}
	k=${k%-*}
	"$weft" import "$f" --target "$spec" --out "$d/out" --json >"$d/import.json"
	[ $? -eq 1 ] || fail "weft import did not reproduce $f"
	grep -q "\"kind\": \"$k\"" "$d/import.json" || fail "$f did not import as $k"
done
echo "keep-going: $kept kept, each reproduces"
