#!/bin/sh
# world_cli.sh WEFT FUZZ_TARGET CRASH_DIR CORPUS_DIR WORK - an access outside
# the world is an out-of-world report (exit 1, deterministic, a replay file
# that replays and minimizes) under every strategy, in the fuzz target and
# in replay; never a crash (exit 134/139) or a NONDETERMINISM (exit 4), as
# it was before the check (demo-stack-index: slots[-1] just before the
# world, slots[0xffffffff] far from it, a host global).
set -u
weft=$1 target=$2 crashes=$3 corpus=$4 work=$5
rm -rf "$work"
mkdir -p "$work"
# failures go to a file: expect() runs in command substitutions
no() { echo "FAIL: $*" | tee -a "$work/failures" >&2; }

expect() { # WANT_RC WANT_KIND ARGS...: weft run ... --json
	want=$1 kind=$2
	shift 2
	rc=0
	"$weft" run "$@" --json >"$work/out.json" 2>"$work/err.txt" || rc=$?
	[ "$rc" = "$want" ] || no "weft run $* exited $rc, want $want: $(head -c 300 "$work/err.txt")"
	grep -q "\"kind\": $kind" "$work/out.json" ||
		no "weft run $*: not $kind: $(head -c 300 "$work/out.json")"
	sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p' "$work/out.json"
}

for v in racy-pop unsigned-pop host-stat; do
	sv=demo-stack-index:$v
	for st in "random --seed 1" "random --seed 7" "random --seed 1 --memory tso" "pct --depth 2 --seed 1" "pct --depth 3 --seed 5" \
		"dfs" "dfs --por none" "dfs --por sleep" "dfs --bound none" "dfs --workloads 1"; do
		# shellcheck disable=SC2086 # the strategy's words
		h1=$(expect 1 '"out-of-world"' "$sv" --strategy $st)
		# shellcheck disable=SC2086
		h2=$(expect 1 '"out-of-world"' "$sv" --strategy $st)
		[ -n "$h1" ] && [ "$h1" = "$h2" ] || no "$sv $st: trace hashes '$h1' '$h2' differ"
	done
	# the reproducing bytes input
	in=$(sed -n 's/.*"input": "\([0-9a-f]*\)".*/\1/p' "$work/out.json")
	expect 1 '"out-of-world"' "$sv" --strategy bytes --input-hex "$in" >/dev/null
	# stored, replayed, minimized, described
	"$weft" run "$sv" --strategy random --seed 3 --out "$work/found-$v" --quiet >/dev/null
	[ $? = 1 ] || no "$sv: run --out did not report"
	f=$(ls "$work/found-$v"/*.weft 2>/dev/null | head -n 1)
	[ -n "$f" ] || no "$sv: no .weft stored"
	rc=0
	"$weft" replay "$f" >"$work/replay.txt" 2>&1 || rc=$?
	[ "$rc" = 1 ] || no "$sv: replay exited $rc"
	grep -q "matches the recording" "$work/replay.txt" || no "$sv: replay did not match"
	grep -q "out-of-world" "$work/replay.txt" || no "$sv: replay names no out-of-world"
	rc=0
	"$weft" min "$f" --out "$work/min-$v" >/dev/null 2>&1 || rc=$?
	[ "$rc" = 1 ] || no "$sv: min exited $rc"
	"$weft" info "$f" | grep -q "out-of-world" || no "$sv: info names no out-of-world"
done

# the report names the address relative to the world when it is near it
"$weft" run demo-stack-index:racy-pop --strategy dfs --quiet >"$work/racy.txt" 2>&1
grep -q "at world-0x4 (4 bytes before the world)" "$work/racy.txt" ||
	no "racy-pop: no world-relative address: $(head -n 2 "$work/racy.txt")"

# the fixed variant stays silent, certified
expect 0 null demo-stack-index:locked-pop --strategy dfs --bound 3 >/dev/null
grep -q '"complete": true' "$work/out.json" || no "locked-pop: dfs did not cover bound 3"

# the fuzz target: its known crash input reports, its seeds stay silent
"$target" --expect-crash "$crashes" >"$work/fuzz.txt" 2>&1 || no "fuzz target: crash input did not report"
grep -q "out-of-world" "$work/fuzz.txt" || no "fuzz target: no out-of-world report"
"$target" "$corpus" >"$work/seeds.txt" 2>&1 || no "fuzz target: a seed reported"

[ -s "$work/failures" ] && exit 1
echo "out-of-world: every strategy, replay, min and the fuzz target"
