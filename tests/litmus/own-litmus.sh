#!/usr/bin/env bash
# own-litmus.sh WEFT DIR - weft's own litmus tests (tests/litmus/weft: load
# buffering with each kind of dependency and barrier, spin_is_locked() and
# a failed spin_trylock() ordering nothing) under weft litmus
# --expect (docs/litmus.md):
#  - under lkmm, with random (10^4 executions) and with dfs to completion
#    (--delay-bound 2: two stores moved or delayed): every test as its
#    Result line says; the tests lkmm cannot witness are pinned with the
#    reason (a test leaving or joining the list fails);
#  - each Sometimes test is witnessed with each of 5 seeds within 10^4;
#  - under tso and sc no Sometimes test shows its outcome (each needs a
#    reordering x86 forbids: a load satisfied after a later store of its
#    thread, or two loads out of order).
set -euo pipefail
weft=$1 dir=$2
src=$(cd "$(dirname "$0")" && pwd)/weft
source "$(dirname "$0")/witness.sh"
mkdir -p "$dir"
files=("$src"/*.litmus)
echo "weft's own litmus tests: ${#files[@]}"
fail=0
check() {   # check JSON MODE
	python3 - "$1" "$2" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = sys.argv[2]
# the Sometimes tests lkmm cannot witness, and why (docs/litmus.md)
lkmm_stronger = {
    "LB+wmbs": "a store is never moved across smp_wmb()",
}
bad = 0
for d in rows:
    if d["verdict"] == "fail":
        print("FAIL: %s %s: expected %s, observed %s" % (m, d["name"], d["expected"], d["observed"])); bad = 1
    if m.startswith("lkmm"):
        st = d["verdict"] == "stronger"
        if st != (d["name"] in lkmm_stronger):
            print("FAIL: %s %s %s" % (m, "cannot witness" if st else "witnesses", d["name"])); bad = 1
        if m == "lkmm-dfs" and not d["complete"]:
            print("FAIL: dfs did not complete %s" % d["name"]); bad = 1
    elif d["positive"]:
        print("FAIL: %s shows %s's outcome (x86 forbids it)" % (m, d["name"])); bad = 1
print("--memory %s: %d tests, %d ok, %d stronger" % (m, len(rows),
      sum(d["verdict"] == "ok" for d in rows), sum(d["verdict"] == "stronger" for d in rows)))
sys.exit(bad)
PY
}
"$weft" litmus "${files[@]}" --memory lkmm --expect --json --executions 10000 >"$dir/lkmm.json" || fail=1
check "$dir/lkmm.json" lkmm || fail=1
"$weft" litmus "${files[@]}" --memory lkmm --expect --json --strategy dfs --delay-bound 2 \
	>"$dir/lkmm-dfs.json" || fail=1
check "$dir/lkmm-dfs.json" lkmm-dfs || fail=1
for m in tso sc; do
	"$weft" litmus "${files[@]}" --memory $m --expect --json --executions 10000 >"$dir/$m.json" || fail=1
	check "$dir/$m.json" $m || fail=1
done
witness_sometimes "$weft" "$dir" lkmm || fail=1
[ $fail = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
