#!/usr/bin/env bash
# weft bench writes bench.md and bench.json, the JSON is well formed and
# carries what docs/benchmarks.md promises (machine, per-row zoo/strategy/
# median_seconds/median_executions, silence, memory, targets). A small run:
# in-process strategies only, one demo scenario. No timing is checked.
set -u
weft=$1
out=$2
fail=0 pass=0
check() {  # check DESCRIPTION COMMAND...
	local what=$1; shift
	if "$@" >/dev/null 2>&1; then pass=$((pass+1)); else
		fail=$((fail+1)); echo "FAIL: $what"; fi
}
rm -rf "$out"
"$weft" bench --quick --no-engines --only demo-counter --seeds 2 --out "$out" --json \
	>"$out.json" 2>"$out.err"
rc=$?
check "weft bench exits 0 (got $rc: $(tail -1 "$out.err"))" test "$rc" = 0
check "bench.md written" test -s "$out/bench.md"
check "bench.json written" test -s "$out/bench.json"
check "--json prints the same JSON as bench.json" cmp -s "$out.json" "$out/bench.json"
for key in '"machine"' '"cpu"' '"cores"' '"compiler"' '"core"' '"switch_ns"' \
	'"time_to_bug"' '"zoo"' '"strategy"' '"median_seconds"' '"median_executions"' \
	'"silence"' '"reports"' '"memory"' '"maxrss_kib"' '"targets"' '"headline"'; do
	check "bench.json has $key" grep -q "$key" "$out/bench.json"
done
# the racy demo is found by random (3 strategies x 2 seeds: deterministic)
check "random finds demo-counter:racy" \
	grep -q '"variant": "racy", "zoo": null, "strategy": "random", "seeds": 2, "found": 2' \
	"$out/bench.json"
# fixed variants: zero reports wherever measured
check "no report on a fixed variant" bash -c "! grep -q '\"reports\": [1-9]' '$out/bench.json'"
check "engine rows say why they are not measured" grep -q 'disabled by --no-engines' \
	"$out/bench.json"
for h in '## Core micro-benchmarks' '## Time to bug' '## Silence' '## Memory' '## Targets'; do
	check "bench.md has '$h'" grep -q "^$h" "$out/bench.md"
done
if command -v python3 >/dev/null; then
	check "bench.json parses (python3)" python3 -m json.tool "$out/bench.json"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
