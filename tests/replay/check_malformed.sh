#!/bin/sh
# check_malformed.sh WEFT DIR: every file in DIR/MANIFEST must make
# `weft replay` exit with its listed code and print its listed text on
# stderr (and never crash: a signal is an exit code > 128).
set -u
weft=$1
dir=$2
fail=0
n=0
tab=$(printf '\t')
while IFS="$tab" read -r file code msg; do
	case $file in '#'*|'') continue ;; esac
	n=$((n + 1))
	err=$("$weft" replay --quiet "$dir/$file" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" != "$code" ]; then
		echo "FAIL $file: exit $rc, expected $code: $err"
		fail=$((fail + 1))
		continue
	fi
	if [ -n "$msg" ]; then
		case $err in
		*"$msg"*) ;;
		*) echo "FAIL $file: stderr lacks '$msg': $err"; fail=$((fail + 1)) ;;
		esac
	fi
done < "$dir/MANIFEST"
echo "$n files, $fail failures"
[ "$n" -ge 20 ] || { echo "FAIL: fewer than 20 files in $dir"; exit 1; }
[ "$fail" = 0 ]
