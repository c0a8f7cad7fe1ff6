#!/usr/bin/env bash
# check_min.sh WEFT SCRATCH: weft min reaches the minimum where it is
# known, and one trace gives one file.
#  - demo-counter:racy from random seed 2 (2 ops, 8 steps): the race needs
#    no op at all (each thread's own increment): 0 ops and 4 steps, the
#    least any execution of the race has (the minimizer stopped at 1 op and
#    6 steps when dropping an op kept the old schedule only);
#  - z1a's trigger with arguments the model reduces (release 16 = page 0,
#    scan 8 = scan 0): the arguments come out 0 and the file is the one
#    the trigger itself gives (named by trace hash: "already stored");
#    both are stored in the canonical form, the threads' roles swapped
#    (T0 scans, T1 releases: one schedule entry fewer than the trigger's
#    T0 releases, T1 scans; issue 19, item 7).
# Exit: 0 pass, 1 fail.
set -u
weft=$1
dir=$2
. "$(dirname "$0")/../scratch.sh"
scratch "$dir"
hex2bin() { printf '%b' "$(sed 's/../\\x&/g')"; }
bin2hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }
field() { # field JSON KEY: the number after "KEY": in the "after" object
	sed -n "s/.*\"after\": {[^}]*\"$2\": \([0-9]*\).*/\1/p" "$1"
}

input=$("$weft" run demo-counter:racy --strategy random --seed 2 --json |
	sed -n 's/.*"input": "\([0-9a-f]*\)".*/\1/p')
[ -n "$input" ] || bad "random seed 2 found nothing on demo-counter:racy"
printf '%s' "$input" | hex2bin >"$dir/racy.bin"
"$weft" min "$dir/racy.bin" --target demo-counter:racy --out "$dir/m" --json >"$dir/racy.json"
[ $? = 1 ] || bad "min demo-counter:racy did not exit 1: $(cat "$dir/racy.json")"
[ "$(field "$dir/racy.json" ops)" = 0 ] || bad "demo-counter:racy: ops after min: $(cat "$dir/racy.json")"
[ "$(field "$dir/racy.json" steps)" = 4 ] || bad "demo-counter:racy: steps after min: $(cat "$dir/racy.json")"

# z1a: the trigger, and the same with arguments the model reduces
printf '\002\001\000\022\000\000\000\000\017\000\000' >"$dir/z1a.bin"
printf '\002\001\020\022\010\000\000\000\017\000\000' >"$dir/z1a-args.bin"
"$weft" import "$dir/z1a.bin" --target z1-lru:z1a --out "$dir/z" --json >"$dir/a.json"
"$weft" import "$dir/z1a-args.bin" --target z1-lru:z1a --out "$dir/z" --json >"$dir/b.json"
grep -q '"existed": false' "$dir/a.json" || bad "first import: $(cat "$dir/a.json")"
grep -q '"existed": true' "$dir/b.json" || bad "the same trace was stored twice: $(cat "$dir/b.json")"
n=$(ls "$dir"/z/*.weft | wc -l)
[ "$n" = 1 ] || bad "$n files for one trace: $(ls "$dir/z")"
f=$(ls "$dir"/z/*.weft | head -n 1)
"$weft" export "$f" -o "$dir/z1a.out" >/dev/null || bad "export"
canon=02020011000f0000
[ "$(bin2hex "$dir/z1a.out")" = $canon ] ||
	bad "the stored input is not the trigger's canonical form $canon: $(bin2hex "$dir/z1a.out")"
# the arguments alone are normalized too (a fresh directory)
"$weft" min "$dir/z1a-args.bin" --target z1-lru:z1a --out "$dir/z2" --json >"$dir/c.json"
"$weft" export "$(ls "$dir"/z2/*.weft | head -n 1)" -o "$dir/z1a-args.out" >/dev/null
[ "$(bin2hex "$dir/z1a-args.out")" = $canon ] ||
	bad "arguments not zeroed: $(bin2hex "$dir/z1a-args.out")"
[ "$fail" = 0 ] && echo "check_min: passed"
[ "$fail" = 0 ]
