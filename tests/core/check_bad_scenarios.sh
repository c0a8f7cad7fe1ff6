#!/bin/sh
# check_bad_scenarios.sh PROG: every scenario of bad_scenarios.c that the
# machine cannot run is refused by run and fuzz with exit 2 and the
# reason; the good one runs (exit 0).
set -u
prog=$1
fail=0
expect() {   # expect EXIT REGEX ARGS...
	want=$1 re=$2
	shift 2
	out=$("$prog" "$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $*: exit $rc, want $want"; echo "$out"; fail=$((fail + 1)); return
	fi
	echo "$out" | grep -q -- "$re" || { echo "FAIL: $*: no '$re' in:"; echo "$out"; fail=$((fail + 1)); }
}
expect 0 "clean" run ok --strategy random --iterations 100
expect 2 "nr_threads is 64; Weft runs 1 to 16 threads" run too-many-threads
expect 2 "nr_threads is 0" run no-threads --strategy dfs
expect 2 "nr_cpus is 65" run too-many-cpus --strategy pct
expect 2 "cpu_of\[1\] is 2, not below nr_cpus (2)" run bad-cpu-of
expect 2 "no thread function" run no-thread-fn
expect 2 "max_ops is 33" run too-many-ops
expect 2 "nr_threads is 64" fuzz too-many-threads --time 1
echo "check_bad_scenarios: $fail failed"
[ "$fail" = 0 ]
