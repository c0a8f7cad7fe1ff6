#!/bin/sh
# make-regressions.sh WEFT [DIR]: (re)make the regression replays of every
# buggy demo and zoo variant: each bug found by preemption-bounded DFS on
# the variant's trigger workload (so at its minimal preemption count),
# minimized and stored by `weft run --out` (never overwriting: delete a
# stale file first). DIR defaults to corpus/regressions.
set -eu
weft=$1
dir=${2:-corpus/regressions}
mkdir -p "$dir"
run() {   # run SCENARIO:VARIANT LOCK BOUND
	rc=0
	"$weft" run "$1" --lock "$2" --strategy dfs --bound "$3" --quiet --out "$dir" \
		> /dev/null || rc=$?
	[ "$rc" = 1 ] || { echo "make-regressions: $1 ($2): exit $rc, no bug stored" >&2; exit 1; }
}
run demo-counter:racy tas 1
run demo-abba:abba tas 1
run demo-barging:barging tas 1
run demo-barging:barging ticket 2
run demo-spin:lost-wakeup tas 0
run z1-lru:z1a tas 1
run z1-lru:z1b tas 1
run z1-lru:z1b ticket 2
run z1-lru:z1c tas 1
run z2-swap-batch:v2 tas 0
ls -l "$dir"
