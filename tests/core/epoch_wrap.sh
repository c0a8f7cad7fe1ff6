#!/usr/bin/env bash
# epoch_wrap.sh WEFT - the tables kept across executions (the machine's
# shadow, the lkmm CPU views and word slots, DPOR's loc[] and jm[]) hold
# entries valid while they carry their counter's epoch, and are cleared
# when the counter wraps (weft_epoch_advance(), core/src/common/internal.h).
# A wrap takes 2^32 executions; WEFT_EPOCH_WRAP_EVERY=k makes every counter
# wrap back to epoch 1 every k + 1 executions, with epoch 1's entries
# still in the tables. Each search below must give what it gives without
# wraps (verdict, kind, executions, steps, trace hash, outcomes; times
# left out): a table not cleared on a wrap lets an entry of an execution
# 2^32 executions ago pass for one of this execution's (a freed object's
# poison in the shadow, a DPOR race with an access that did not happen, a
# store an lkmm CPU never saw).
set -euo pipefail
weft=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
runs=0
untimed() {   # the output without its times
	sed -E 's/"seconds": [0-9.e+-]+/"seconds": T/g; s/[0-9.]+ s\)/T s)/g; s/ in [0-9.]+ s/ in T s/g; s/^(Time [^ ]+) [0-9.]+/\1 T/'
}
same() {   # same NAME ARGS...: the output with wraps every 1 and every 4 executions is the one without
	local base out
	base=$("$weft" "$@" 2>&1 | untimed) || true
	for k in 1 4; do
		out=$(WEFT_EPOCH_WRAP_EVERY=$k "$weft" "$@" 2>&1 | untimed) || true
		runs=$((runs + 1))
		if [ "$out" != "$base" ]; then
			echo "epoch_wrap: $* differs with WEFT_EPOCH_WRAP_EVERY=$k:"
			diff <(echo "$base") <(echo "$out") | head -20
			fail=1
		fi
	done
	[ -n "$base" ] || { echo "epoch_wrap: $* printed nothing"; fail=1; }
}
# the shadow: fixed and buggy variants that free and reuse objects
same run z3-swapoff:fix --strategy random --seed 1 --iterations 400 --json
same run z3-swapoff:z3 --strategy random --seed 3 --json
same run z6-spec-pagecache:fix --strategy random --seed 2 --iterations 400 --json
same run z1-lru:fix-lrucount --strategy pct --depth 2 --seed 1 --iterations 300 --json
# DPOR's loc[] (every search) and jm[] (bounded ones)
same run z3-swapoff:fix --strategy dfs --bound 1 --por source
same run z4-swapin-aba:fix --strategy dfs --bound 1 --por optimal
same run demo-rcu:call-rcu --strategy dfs --bound none
# lkmm's views and word slots
same litmus "$src"/tests/litmus/weft/*.litmus --memory lkmm --strategy dfs --delay-bound 2
same run z16-page-uptodate:fix --memory lkmm --strategy random --seed 1 --iterations 400 --json
[ $fail = 0 ] && echo "epoch_wrap: $runs searches with wraps, each as without"
exit $fail
