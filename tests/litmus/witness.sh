# witness.sh - sourced by own-litmus.sh and kernel-litmus.sh.
# witness_sometimes WEFT DIR MEM: every Sometimes test that $DIR/$MEM.json
# (a `weft litmus --expect --json` run) says MEM witnessed ("ok") must be
# witnessed again with each of seeds 1-5 within 10^4 executions. Prints
# what failed; returns 1 if anything did.
witness_sometimes() {
	local weft=$1 dir=$2 m=$3 bad=0 seed
	local -a sometimes
	mapfile -t sometimes < <(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["expected"] == "Sometimes" and d["verdict"] == "ok":
        print(d["file"])' "$dir/$m.json")
	for seed in 1 2 3 4 5; do
		"$weft" litmus "${sometimes[@]}" --memory "$m" --expect --json --executions 10000 \
			--seed "$seed" >"$dir/$m-seed$seed.json" || { echo "FAIL: $m seed $seed"; bad=1; }
		if grep -q '"verdict": "stronger"' "$dir/$m-seed$seed.json"; then
			echo "FAIL: $m seed $seed did not witness:"
			grep '"verdict": "stronger"' "$dir/$m-seed$seed.json"
			bad=1
		fi
	done
	echo "$m: ${#sometimes[@]} Sometimes tests witnessed with each of 5 seeds"
	return $bad
}
