#!/usr/bin/env bash
# cli_hints.sh WEFT SCRATCH: what the command line tells a user is true.
#  - hints name the program that runs (a weft_main program called obj-put
#    says "obj-put replay ...", not "weft replay ..."): checked through a
#    symlink with another name;
#  - --workload is strict: fewer or more bytes than its count byte is a
#    usage error (exit 2) that says so;
#  - counts are singular or plural ("1 preemption", "1 execution");
#  - a dfs certificate names the workload it covers, and warns (text and
#    JSON) when that is the empty workload of a scenario with no trigger;
#  - clean runs report the last execution's trace hash, steps and input;
#  - weft info names a fuzz target only where one is built.
set -u
weft=$1
dir=$2
. "$(dirname "$0")/../scratch.sh"
scratch "$dir"
pass=0
ok() { pass=$((pass + 1)); }
run() {  # run WANT_RC PROG ARGS...: output in $dir/out, stderr in $dir/err
	local want=$1 rc=0; shift
	"$@" >"$dir/out" 2>"$dir/err" || rc=$?
	[ "$rc" = "$want" ] || bad "$* exited $rc, want $want: $(tail -3 "$dir/err")"
}
has() { grep -q -- "$1" "$2" && ok || bad "no '$1' in $2 ($3): $(head -c 600 "$2")"; }
hasnt() { grep -q -- "$1" "$2" && bad "'$1' in $2 ($3)" || ok; }

# the program's own name in every hint
ln -s "$weft" "$dir/obj-put"
run 1 "$dir/obj-put" run demo-abba:abba --strategy dfs --bound 1
has "reproduce: obj-put run demo-abba:abba" "$dir/out" "reproduce hint"
hasnt "weft run" "$dir/out" "reproduce hint"
run 1 "$dir/obj-put" run demo-abba:abba --strategy dfs --bound 1 --out "$dir/found"
has "replay:   obj-put replay $dir/found/" "$dir/out" "replay hint"
run 2 "$dir/obj-put" run
has "(obj-put list)" "$dir/err" "usage hint"
run 0 "$dir/obj-put" help replay
has "usage: obj-put replay FILE" "$dir/out" "help text"
run 0 "$dir/obj-put" help
has "obj-put help COMMAND" "$dir/out" "help"
f=$(ls "$dir"/found/*.weft | head -n 1)
run 1 "$dir/obj-put" min "$f" --json --out "$dir/min"
has "\"replay\": \"obj-put replay " "$dir/out" "min --json replay command"
run 2 "$dir/obj-put" fuzz
has "(obj-put list)" "$dir/err" "fuzz usage hint"
run 2 "$dir/obj-put" fuzz demo-abba:abba --no-such-flag
has "(obj-put help fuzz)" "$dir/err" "fuzz flag hint"
run 1 "$weft" run demo-abba:abba --strategy dfs --bound 1
has "reproduce: weft run" "$dir/out" "weft's own name"

# --workload: exactly 1 + 2n bytes
run 2 "$weft" run demo-counter:racy --workload 03010200
has "declares 3 operations" "$dir/err" "short workload"
has "needs 1 + 2 x 3 = 7 bytes, but has 4" "$dir/err" "short workload"
run 2 "$weft" run demo-counter:racy --workload 0100000000
has "declares 1 operation " "$dir/err" "long workload"
run 2 "$weft" run demo-counter:racy --strategy dfs --workload 02
run 0 "$weft" run demo-counter:atomic --strategy dfs --bound 1 --workload 0200000100
run 0 "$weft" run demo-counter:atomic --strategy dfs --bound 1 --workload ""

# plurals
run 1 "$weft" run demo-abba:abba --strategy dfs --por none --bound 1
has "1 preemption," "$dir/out" "singular preemption"
hasnt "1 preemptions" "$dir/out" "singular preemption"
has "found after 6 executions" "$dir/out" "plural executions"
run 1 "$weft" run demo-abba:abba --strategy bytes --input-hex 00010000
has "found after 1 execution " "$dir/out" "singular execution"
run 1 "$weft" replay "$f"
has "1 preemption$" "$dir/out" "diagram header"
run 0 "$weft" info "$f"
has "1 preemption," "$dir/out" "info"

# certificates name their workload; the empty one of a scenario without
# triggers is flagged in text and JSON
run 0 "$weft" run demo-counter:atomic --strategy dfs --bound 2
has "covered completely for the empty workload" "$dir/out" "empty workload named"
has "^WARNING: the scenario declares no trigger workload" "$dir/out" "text warning"
run 0 "$weft" run demo-counter:atomic --strategy dfs --bound 2 --json
has '"workload": "", "workload_ops": 0' "$dir/out" "JSON workload"
has '"warning": "the scenario declares no trigger workload' "$dir/out" "JSON warning"
# a fixed variant without a trigger of its own: its buggy sibling's
run 0 "$weft" run z1-lru:fix-testone --strategy dfs --bound 1
has "covered completely for workload 0201001200 (2 ops, the trigger of z1a)" "$dir/out" \
	"fixed variant certified on z1a's trigger"
hasnt "WARNING" "$dir/out" "no warning with a trigger"
run 0 "$weft" run z1-lru:fix-testone --strategy dfs --bound 1 --json
has '"workload": "0201001200", "workload_ops": 2, "bound": 1, "complete": true' "$dir/out" \
	"JSON certificate"
hasnt '"warning"' "$dir/out" "no JSON warning with a trigger"

# clean runs: the last execution's hash, steps and input (tools/ci/determinism)
run 0 "$weft" run z1-lru:fix-testone --strategy random --seed 3 --iterations 50 --json
hasnt '"trace_hash": "0000000000000000"' "$dir/out" "clean trace hash"
hasnt '"steps": 0,' "$dir/out" "clean steps"
has '"deterministic": true' "$dir/out" "clean determinism checked"
hash=$(sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p' "$dir/out")
run 0 "$weft" run z1-lru:fix-testone --strategy dfs --bound 1 --json
input=$(sed -n 's/.*"input": "\([0-9a-f]*\)".*/\1/p' "$dir/out")
dhash=$(sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p' "$dir/out")
[ -n "$input" ] && ok || bad "dfs gave no input for its last execution"
run 0 "$weft" run z1-lru:fix-testone --strategy bytes --input-hex "$input" --json
has "\"trace_hash\": \"$dhash\"" "$dir/out" "the last execution's input replays its hash"
[ "$hash" != "$dhash" ] && ok || bad "random and dfs ended on the same trace ($hash)"

# --kind: only the named kinds end a run; others are counted and skipped
run 0 "$weft" run z1-lru:z1a --strategy pct --depth 2 --seed 1 --iterations 3000 --kind double-free --json
has '"verdict": "clean"' "$dir/out" "--kind skips other kinds"
has '"other_kinds": {"bad-free": ' "$dir/out" "--kind counts other kinds"
run 1 "$weft" run z1-lru:z1a --strategy pct --depth 2 --seed 1 --iterations 3000 --kind bad-free,double-free --json
has '"verdict": "bug", "kind": "bad-free"' "$dir/out" "--kind with a list"
run 2 "$weft" run z1-lru:z1a --kind no-such-kind
has "no report kind 'no-such-kind'" "$dir/err" "--kind usage"

# weft info: a fuzz target only where one is built
run 0 env WEFT_BUILD_DIR="$dir/no-build" "$weft" info "$f"
hasnt "fuzz_demo_abba" "$dir/out" "no fuzz target without a build"
run 0 env WEFT_BUILD_DIR="$dir/no-build" "$weft" info --json "$f"
has '"fuzz_target": null' "$dir/out" "JSON: no fuzz target without a build"
mkdir -p "$dir/fake-build/fuzz"
printf '#!/bin/sh\n' >"$dir/fake-build/fuzz/fuzz_demo_abba_abba"
chmod +x "$dir/fake-build/fuzz/fuzz_demo_abba_abba"
run 0 env WEFT_BUILD_DIR="$dir/fake-build" "$weft" info "$f"
has "fuzz target:  $dir/fake-build/fuzz/fuzz_demo_abba_abba" "$dir/out" "a built target is named"

echo "cli_hints: $pass passed, $fail failed"
[ "$fail" = 0 ]
