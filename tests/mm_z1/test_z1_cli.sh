#!/bin/sh
# test_z1_cli.sh WEFT WEFT_STRESS - z1-lru through the command line: the
# issue's "done when" runs, --stats, and the native build of the model.
set -u
W=$1
S=$2
fail=0
check() { # name, condition result (0 ok)
	if [ "$2" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}
has() { printf '%s' "$1" | grep -q -- "$2"; }

out=$("$W" run z1-lru:z1a --strategy dfs --bound 1 --json); rc=$?
has "$out" '"verdict": "bug", "kind": "double-free"' && has "$out" '"preemptions": 1,' &&
	[ $rc -eq 1 ]; check "z1a dfs bound 1: double free, 1 preemption, exit 1 ($out)" $?
out=$("$W" run z1-lru:z1b --strategy dfs --bound 1 --lock ticket --json); rc=$?
has "$out" '"verdict": "clean"' && has "$out" '"complete": true' && [ $rc -eq 0 ]
check "z1b ticket dfs bound 1: clean and complete, exit 0" $?
out=$("$W" run z1-lru:z1b --strategy dfs --bound 2 --lock ticket --json); rc=$?
has "$out" '"kind": "double-free"' && has "$out" '"preemptions": 2,' && [ $rc -eq 1 ]
check "z1b ticket dfs bound 2: double free with 2 preemptions" $?
for v in fix-lrucount fix-lrucount-noheur fix-testone fix-unless-zero; do
	out=$("$W" run z1-lru:$v --strategy dfs --bound 2 --workload 0201001200 --json); rc=$?
	has "$out" '"verdict": "clean"' && has "$out" '"complete": true' && [ $rc -eq 0 ]
	check "$v dfs bound 2 on the z1a workload: clean, complete" $?
done
# an orphan at count 1 is owned by the LRU: counted, not reported
out=$("$W" run z1-lru:fix-lrucount-noheur --strategy bytes --input-hex 03010001010102 --stats)
rc=$?
has "$out" 'orphans_on_lru  *3' && has "$out" 'page_cache_release  *3' && [ $rc -eq 0 ]
check "--stats: 3 orphans left, clean" $?
out=$("$W" list --json)
for z in Z1a Z1b Z1c Z1-fix-lrucount Z1-fix-lrucount-noheur Z1-fix-testone Z1-fix-unless-zero; do
	has "$out" "\"zoo\": \"$z\""; check "weft list --json has zoo id $z" $?
done
"$W" run z1-lru:nosuch --json >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ]; check "unknown variant: exit 2 (got $rc)" $?
# the native build of the same model source: real threads, no report
for v in fix-unless-zero fix-testone fix-lrucount fix-lrucount-noheur; do
	out=$("$S" z1-lru:$v --time 0.5 --hang 60 --json); rc=$?
	has "$out" '"manifestations": 0,' && [ $rc -eq 0 ]
	check "native $v: 0 manifestations ($out)" $?
done
exit $fail
