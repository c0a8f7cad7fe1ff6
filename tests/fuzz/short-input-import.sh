#!/bin/sh
# short-input-import.sh TARGET AFL_DRIVER WEFT SPEC KIND - a crash found by a raw
# input too short to be a genome (the one 0 byte `weft fuzz --engine afl` seeds
# AFL++ with; libFuzzer's start-up inputs are the empty input and "\n") is the
# fresh genome weft_raw_input() makes of it, read the same way by the
# regression target, the AFL++ driver and `weft import`: the target reports
# KIND, the AFL++ driver crashes on it too, the import re-runs the same
# execution (its steps and preemptions before minimizing), and the stored
# .weft replays to the target's SUMMARY line. Before weft_raw_input the byte
# was a legacy input of no operations: the serial run, no report.
set -u
target=$1 afl=$2 weft=$3 spec=$4 kind=$5
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf '\000' >"$d/crash-zero"
fail() { echo "short-input-import: $*"; exit 1; }

"$target" "$d/crash-zero" >"$d/target.out" 2>&1 && fail "the target did not report"
grep -q "^ERROR: weft: $kind in $spec" "$d/target.out" || fail "the target's report is not $kind"
"$afl" --expect-crash "$d/crash-zero" >/dev/null 2>&1 || fail "the AFL++ driver did not crash"
summary=$(grep '^SUMMARY: weft:' "$d/target.out")
# "lock model tas, 63 steps, 21 preemptions, trace ...": the execution the target ran
run=$(sed -n 's/^  lock model [a-z]*, \([0-9]*\) steps, \([0-9]*\) preemptions.*/\1 \2/p' \
	"$d/target.out")
[ -n "$run" ] || fail "no steps and preemptions in the target's report"

mkdir "$d/out"
"$weft" import "$d/crash-zero" --target "$spec" --out "$d/out" --json >"$d/import.json"
[ $? -eq 1 ] || fail "weft import did not reproduce the crash"
grep -q '"reproduced": true' "$d/import.json" || fail "weft import: not reproduced"
before=$(sed -n 's/.*"before": {"preemptions": \([0-9]*\), "ops": [0-9]*, "steps": \([0-9]*\).*/\2 \1/p' \
	"$d/import.json")
[ "$before" = "$run" ] || fail "weft import ran another execution: $before, the target $run"

"$weft" import "$d/crash-zero" --target "$spec" --out "$d/out" >"$d/import.out"
grep -qxF "$summary" "$d/import.out" || fail "the stored file replays to another report:
  target: $summary
  import: $(grep '^SUMMARY' "$d/import.out")"
"$weft" replay "$d"/out/*.weft >"$d/replay.out"
[ $? -eq 1 ] || fail "weft replay: no bug"
grep -q "matches the recording" "$d/replay.out" || fail "weft replay: trace hash differs"
echo "short input: $summary ($run steps/preemptions), imported and replayed"
