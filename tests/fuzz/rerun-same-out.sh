#!/usr/bin/env bash
# tests/fuzz/rerun-same-out.sh WEFT LIBFUZZER_BUILD - `weft fuzz` run twice
# with the same seed into the same --out reports its crash both times.
#
# libFuzzer names a crash file by its input's SHA-1, so a rerun that finds
# the same input rewrites the earlier run's file; `weft fuzz` took only
# names it had not seen before as new and ended "exited with 77 and no
# crash" (exit 3). z10-mlock:z10 is found at the first execution (the
# empty input, weft_raw_input()), so each run takes a fraction of a second.
#
# Exit codes: 0 both runs reported the bug, 1 a run did not, 2 usage.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 WEFT LIBFUZZER_BUILD" >&2; exit 2; }
weft=$1 target=$2/fuzz/fuzz_z10_mlock_z10
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for run in 1 2; do
	json=$("$weft" fuzz z10-mlock:z10 --engine libfuzzer --seed 1 --time 30 \
		--target-bin "$target" --out "$out" --json 2>"$out/stderr-$run")
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q '"verdict": "bug", "kind": "bug-on"' <<<"$json"; then
		echo "rerun-same-out: run $run: exit $rc, expected 1 and a bug-on verdict" >&2
		tail -n 5 "$out/stderr-$run" >&2
		exit 1
	fi
done
echo "rerun-same-out: both runs reported z10's bug-on"
