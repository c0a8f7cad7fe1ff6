#!/usr/bin/env bash
# kernel-litmus.sh WEFT DIR EXECS - the kernel's own litmus tests
# (tools/memory-model/litmus-tests and Documentation/litmus-tests of Debian's
# linux-source-6.12, extracted into DIR at test time, never committed) under
# weft litmus --expect:
#  - under tso and sc, every test as its Result line says: a Never test shows
#    its outcome 0 times in EXECS executions (--expect fails otherwise);
#    a Sometimes test not witnessed is "stronger" (these models forbid more
#    than the kernel's), never "ok";
#  - under tso, each Sometimes test tso witnesses is witnessed with each of 5
#    seeds within 10^4 executions;
#  - under sc, no store-buffering test (whose witness needs a store to wait
#    in a buffer) shows its outcome.
# Exit 77 (skipped) with the reason when the kernel tree cannot be had.
set -euo pipefail
weft=$1 dir=$2 execs=${3:-10000}
tarball=/usr/src/linux-source-6.12.tar.xz
if [ ! -r "$tarball" ]; then
	echo "skipped: no kernel tree ($tarball missing: tools/ci/install-deps installs linux-source-6.12)"
	exit 77
fi
if [ ! -d "$dir/linux-source-6.12/tools/memory-model/litmus-tests" ]; then
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --wildcards '*/tools/memory-model/litmus-tests/*' \
		'*/Documentation/litmus-tests/*'
fi
k=$dir/linux-source-6.12
mapfile -t files < <(ls "$k"/tools/memory-model/litmus-tests/*.litmus "$k"/Documentation/litmus-tests/*/*.litmus)
echo "kernel litmus tests: ${#files[@]}"
fail=0
for m in tso sc; do
	out=$dir/$m.json
	if ! "$weft" litmus "${files[@]}" --memory "$m" --expect --json --executions "$execs" >"$out"; then
		echo "FAIL: a test contradicts its Result line under --memory $m:"
		grep '"verdict": "fail"' "$out" || true
		fail=1
	fi
	python3 - "$out" "$m" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = sys.argv[2]
bad = 0
for d in rows:
    if d["verdict"] == "ok" and d["expected"] == "Sometimes" and d["positive"] == 0:
        print("FAIL: %s ok without a witness" % d["name"]); bad = 1
sb = {"SB+poonceonces", "R+poonceonces", "SB+rfionceonce-poonceonces"}
for d in rows:
    if m == "sc" and d["name"] in sb and d.get("positive", 0):
        print("FAIL: sc shows %s's store-buffering outcome" % d["name"]); bad = 1
    if m == "tso" and d["name"] in sb and not d.get("positive", 0):
        print("FAIL: tso misses %s" % d["name"]); bad = 1
c = {}
for d in rows:
    c[d["verdict"]] = c.get(d["verdict"], 0) + 1
print("--memory %s: %s" % (m, ", ".join("%d %s" % (v, k) for k, v in sorted(c.items()))))
sys.exit(bad)
PY
done
# the Sometimes tests tso witnesses: with each of 5 seeds
mapfile -t sometimes < <(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["expected"] == "Sometimes" and d["verdict"] == "ok":
        print(d["file"])' "$dir/tso.json")
for seed in 1 2 3 4 5; do
	"$weft" litmus "${sometimes[@]}" --memory tso --expect --json --executions 10000 \
		--seed "$seed" >"$dir/seed$seed.json" || { echo "FAIL: seed $seed"; fail=1; }
	if grep -q '"verdict": "stronger"' "$dir/seed$seed.json"; then
		echo "FAIL: seed $seed did not witness:"; grep '"verdict": "stronger"' "$dir/seed$seed.json"
		fail=1
	fi
done
echo "tso: ${#sometimes[@]} Sometimes tests witnessed with each of 5 seeds"
[ $fail = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
