#!/bin/sh
# check_zstd_required.sh ROOT SCRATCH CC GENERATOR: zstd is required
# (replay/CMakeLists.txt): configuring with WEFT_PRETEND_NO_ZSTD=ON, as on a
# machine without libzstd-dev, must fail at configure time with an error
# that names the Debian package, never warn and build a tree whose
# fuzz_replay_reader cannot compile.
# Exit: 0 pass, 1 fail.
set -u
root=$1 scratch=$2 cc=$3 gen=$4
rm -rf "$scratch"
mkdir -p "$scratch"
rc=0
cmake -S "$root" -B "$scratch/build" -G "$gen" -DCMAKE_C_COMPILER="$cc" \
	-DWEFT_PRETEND_NO_ZSTD=ON >"$scratch/log" 2>&1 || rc=$?
fail=0
if [ "$rc" = 0 ]; then
	echo "FAIL: configure without zstd succeeded"; fail=1
fi
grep -q 'CMake Error at replay/CMakeLists.txt' "$scratch/log" ||
	{ echo "FAIL: the error is not replay/CMakeLists.txt's"; fail=1; }
grep -q 'libzstd-dev' "$scratch/log" || { echo "FAIL: the error does not name libzstd-dev"; fail=1; }
grep -q 'built without replay files' "$scratch/log" &&
	{ echo "FAIL: still the old warning (build without replay files)"; fail=1; }
[ "$fail" = 0 ] || cat "$scratch/log"
rm -rf "$scratch"
[ "$fail" = 0 ] && echo "zstd required: configure fails and names libzstd-dev"
exit "$fail"
