#!/bin/sh
# stage-crash.sh HARNESS TARGET WEFT SPEC KIND - a crash file of a bug the
# systematic stage found is self-contained: HARNESS (test_stage_crash, which
# plays libFuzzer's loop and dumps the running input when the target aborts)
# makes one; copied alone into an empty folder, the regression TARGET (one
# execution, no stage: `fuzz_X CRASH`, OSS-Fuzz's reproduction) reports KIND,
# `weft import` reproduces and writes a .weft there, which `weft replay`
# reproduces, and `weft info` names no other file. Before, the crash file was
# the input whose novelty started the stage: clean alone.
set -u
harness=$1 target=$2 weft=$3 spec=$4 kind=$5
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "stage-crash: $*"; exit 1; }
mkdir "$d/fuzz" "$d/fresh"
"$harness" "$d/fuzz/crash" >"$d/harness.out" 2>&1
rc=$?
[ $rc -eq 134 ] || { cat "$d/harness.out"; fail "the target did not abort (exit $rc)"; }
cp "$d/fuzz/crash" "$d/fresh/crash"
cd "$d/fresh" || exit 1
"$target" --expect-crash crash >"$d/target.out" 2>&1 ||
	{ cat "$d/target.out"; fail "the crash file alone does not crash the target"; }
grep -q "^SUMMARY: weft: $kind $spec" "$d/target.out" || fail "the crash file alone is not a $kind"
grep -q "systematic stage found a $kind" "$d/harness.out" || fail "the stage did not find it"
"$weft" import crash --target "$spec" --out . >"$d/import.out" 2>&1
[ $? -eq 1 ] || { cat "$d/import.out"; fail "weft import did not reproduce"; }
set -- ./*.weft
[ $# -eq 1 ] && [ -f "$1" ] || fail "no .weft written"
"$weft" replay "$1" --quiet || [ $? -eq 1 ] || fail "the .weft does not replay"
"$weft" replay "$1" --quiet; [ $? -eq 1 ] || fail "the .weft does not reproduce the bug"
"$weft" info "$1" --json | grep -q "\"kind\": \"$kind\"" || fail "weft info: not a $kind"
[ "$(ls | wc -l)" -eq 2 ] || fail "other files in the folder: $(ls)"
echo "stage-crash: the crash file alone reproduces the $kind"
