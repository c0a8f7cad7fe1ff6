#!/usr/bin/env bash
# Bad command lines get a clear message and exit 2; bugs exit 1; clean 0.
set -u
weft=$1
fail=0 pass=0
expect() {  # expect CODE ARGS...
	local want=$1; shift
	"$weft" "$@" >/dev/null 2>/tmp/weft-cli-err.$$
	local got=$?
	if [ "$got" = "$want" ]; then pass=$((pass+1)); else
		fail=$((fail+1)); echo "FAIL: weft $* exited $got, want $want: $(cat /tmp/weft-cli-err.$$)"; fi
}
expect 2 frobnicate
expect 2 run
expect 2 run no-such-scenario
expect 2 run demo-counter:no-such-variant
expect 2 run demo-counter:racy --strategy nope
expect 2 run demo-counter:racy --seed
expect 2 run demo-counter:racy --seed -3
expect 2 run demo-counter:racy --iterations 0
expect 2 run demo-counter:racy --lock fifo
expect 2 run demo-counter:racy --bound 999
expect 2 run demo-counter:racy --workload xyz
expect 2 run demo-counter:racy --strategy bytes
expect 2 run demo-counter:racy --bogus-flag
expect 2 list --bogus
expect 3 run demo-counter:racy --strategy bytes --input /nonexistent/file
expect 1 run demo-counter:racy --strategy dfs --bound 1
expect 0 run demo-counter:locked --strategy dfs --bound 2
expect 0 list --json
expect 0 help run
# the message names the problem
"$weft" run demo-counter:racy --lock fifo 2>&1 | grep -q "tas or ticket" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: --lock message"; }
rm -f /tmp/weft-cli-err.$$
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
