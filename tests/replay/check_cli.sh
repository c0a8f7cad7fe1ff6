#!/bin/sh
# check_cli.sh WEFT SCRATCH: the replay commands end to end on demo-abba:
# import a raw crash, replay (exit 1, diagram), info, export (byte-equal
# raw input that re-imports to the same artifact), timelines, min of a
# .weft, --variant on the fixed variant (exit 0), --variant of a
# weak-memory regression file (its store delays: its own variant fails, the
# fix is clean), import --kind of a crash of another kind (exit 0, naming
# the kind it got, nothing stored), a tampered decision (exit 4), a stale
# fingerprint (exit 5, --force replays), and usage errors.
set -u
weft=$1
dir=$2
. "$(dirname "$0")/../scratch.sh"
scratch "$dir"
check() {   # check EXPECTED_EXIT DESCRIPTION COMMAND...
	want=$1; what=$2; shift 2
	"$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $what: exit $rc, expected $want"; cat "$dir/err"; fail=$((fail + 1))
	fi
}
grep_out() {   # grep_out TEXT FILE DESCRIPTION
	grep -q -- "$1" "$2" || { echo "FAIL $3: no '$1' in $2"; fail=$((fail + 1)); }
}
printf '\000\001\000\000' > "$dir/crash"
check 1 "import" "$weft" import "$dir/crash" --target demo-abba:abba --out "$dir/reg"
grep_out "artifact:" "$dir/out" import
grep_out "!! deadlock" "$dir/out" "import diagram"
f=$(ls "$dir"/reg/deadlock-demo-abba-abba-*.weft 2>/dev/null | head -1)
[ -n "$f" ] || { echo "FAIL: no artifact"; exit 1; }
check 1 "replay" "$weft" replay "$f"
grep_out "reproduced" "$dir/out" replay
grep_out "CPU1: T1" "$dir/out" "replay diagram"
check 1 "replay --full --json" "$weft" replay --full --json "$f"
grep_out '"reproduced": true' "$dir/out" "replay json"
grep_out '"desync_step": null' "$dir/out" "replay json"
check 1 "timelines" "$weft" replay --quiet "$f" --trace-json "$dir/t.json" --html "$dir/t.html"
grep_out '"traceEvents"' "$dir/t.json" "trace json"
grep_out '<svg' "$dir/t.html" "html"
check 0 "info" "$weft" info "$f"
grep_out "demo-abba:abba" "$dir/out" info
check 0 "info --json" "$weft" info --json "$f"
grep_out '"stale": false' "$dir/out" "info json"
check 0 "export" "$weft" export "$f" -o "$dir/raw"
cmp -s "$dir/raw" "$dir/crash" || { echo "FAIL export: raw input differs"; fail=$((fail + 1)); }
check 3 "export never overwrites" "$weft" export "$f" -o "$dir/raw"
grep_out "never overwritten" "$dir/err" "export overwrite"
check 1 "re-import is idempotent" "$weft" import "$dir/raw" --target demo-abba:abba --out "$dir/reg"
grep_out "already stored" "$dir/out" "re-import"
check 1 "min of a .weft" "$weft" min "$f" --out "$dir/min"
check 0 "--variant fixed" "$weft" replay --variant ordered "$f"
check 2 "--variant unknown" "$weft" replay --variant nope "$f"
# a weak-memory file's raw input runs with its recorded store delays
z16="$(dirname "$0")/../../corpus/regressions/data-loss-z16-page-uptodate-z16-ae8f2ab2.weft"
check 1 "--variant of a weak-memory file, its own variant" "$weft" replay "$z16" --variant z16 --quiet
check 1 "--variant --json of a weak-memory file" "$weft" replay "$z16" --variant z16 --json
grep_out '"memory": "lkmm", "verdict": "bug", "kind": "data-loss"' "$dir/out" "--variant json"
check 1 "--variant text of a weak-memory file" "$weft" replay "$z16" --variant z16
grep_out "(buggy, memory lkmm with the recorded store delays): data-loss" "$dir/out" "--variant text"
check 0 "--variant of a weak-memory file, the fix" "$weft" replay "$z16" --variant fix --quiet
# --kind: a crash of another kind is not reproduced as the kind asked
check 0 "import --kind of another kind" "$weft" import "$dir/crash" --target demo-abba:abba --kind data-loss --out "$dir/reg-kind"
grep_out "fails on demo-abba:abba with deadlock, not the asked --kind data-loss: nothing to store" "$dir/out" "import --kind"
[ ! -e "$dir/reg-kind" ] || [ -z "$(ls "$dir/reg-kind")" ] || { echo "FAIL import --kind: stored a file"; fail=$((fail + 1)); }
check 0 "import --kind --json of another kind" "$weft" import "$dir/crash" --target demo-abba:abba --kind data-loss,lost-update --json --out "$dir/reg-kind"
grep_out '"reproduced": false' "$dir/out" "import --kind json"
grep_out '"kind": "deadlock", "asked_kind": "' "$dir/out" "import --kind json"
check 1 "import --kind of its kind" "$weft" import "$dir/crash" --target demo-abba:abba --kind deadlock,data-loss --out "$dir/reg-kind"
check 2 "replay without file" "$weft" replay
check 2 "unknown flag" "$weft" replay --bogus "$f"
for c in run fuzz replay min import litmus bench; do   # COMMAND --help is `help COMMAND`
	check 0 "$c --help" "$weft" "$c" --help
	grep_out "usage: weft $c" "$dir/out" "$c --help"
done
check 0 "run -h after a scenario" "$weft" run demo-abba:abba -h
grep_out "usage: weft run" "$dir/out" "run SCENARIO -h"
check 3 "missing file" "$weft" replay "$dir/does-not-exist.weft"
check 2 "import without target" "$weft" import "$dir/crash"
check 2 "import of a .weft" "$weft" import "$f" --target demo-abba:abba
check 0 "import of a non-crash" sh -c "printf '' > '$dir/empty' && '$weft' import '$dir/empty' --target demo-abba:abba --out '$dir/reg'"
echo "check_cli: $fail failures"
[ "$fail" = 0 ]
