#!/bin/sh
# make-regressions.sh WEFT [DIR]: (re)make the regression replays of every
# buggy variant `weft list` shows (demos and zoo; Z1b under both lock
# models): each bug found by preemption-bounded DFS on the variant's
# trigger workload, minimized (down to its minimal preemption count) and
# stored by `weft run --out`, which never overwrites: delete a stale file
# first. DIR defaults to corpus/regressions.
set -eu
weft=$1
dir=${2:-corpus/regressions}
mkdir -p "$dir"
run() {   # run SCENARIO:VARIANT LOCK [MEMORY]
	mem=${3:-sc}
	for bound in 0 1 2 3; do
		rc=0
		# a weak-memory entry (weft list: "--memory M"): one delayed store
		"$weft" run "$1" --lock "$2" --memory "$mem" --delay-bound 1 \
			--strategy dfs --bound $bound --quiet --out "$dir" > /dev/null || rc=$?
		[ "$rc" = 1 ] && return 0
		[ "$rc" = 0 ] || break
	done
	echo "make-regressions: $1 ($2): exit $rc, no bug stored" >&2
	exit 1
}
"$weft" list | awk '/^[^ ]/ { sc = $1; mem = "sc"
		if (match($0, /--memory [a-z]+/)) mem = substr($0, RSTART + 9, RLENGTH - 9) }
	/^  / { if ($2 == "bug") print sc ":" $1, mem }' |
while read -r sv mem; do
	run "$sv" tas "$mem"
	case $sv in z1-lru:z1b) run "$sv" ticket ;; esac
done
ls -l "$dir"
