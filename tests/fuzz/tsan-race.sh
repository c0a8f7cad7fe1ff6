#!/bin/sh
# tests/fuzz/tsan-race.sh RACY LOCKED ATOMIC CORPUS - the TSan build of the
# fuzz targets (WEFT_SANITIZE=thread; regression driver, or libFuzzer when
# the targets are libFuzzer binaries: a file argument runs it once) reports
# the data race between fake CPUs in demo-counter:racy (PLAIN_READ/
# PLAIN_WRITE of the counter from two fibers) on its serial seed inputs, and
# no race on the locked (spinlock = acquire/release) and atomic variants.
set -u
racy=$1 locked=$2 atomic=$3 corpus=$4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0

# racy: a serial run already has T0's write and T1's read unordered
TSAN_OPTIONS="halt_on_error=0 exitcode=0 report_signal_unsafe=0" \
	"$racy" "$corpus/fuzz_demo_counter_racy/serial-t0-inc-x1" >"$out" 2>&1
if grep -q "WARNING: ThreadSanitizer: data race" "$out" &&
   grep -q "counter_thread" "$out"; then
	echo "racy: TSan reports the data race in counter_thread"
else
	echo "racy: expected a TSan data race report in counter_thread, got:"
	cat "$out"
	fail=1
fi

for t in "$locked:fuzz_demo_counter_locked" "$atomic:fuzz_demo_counter_atomic"; do
	bin=${t%%:*} name=${t##*:}
	TSAN_OPTIONS="halt_on_error=0 exitcode=0" "$bin" -runs=0 "$corpus/$name" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$name: the target did not run its corpus cleanly (exit $rc):"
		cat "$out"
		fail=1
	elif grep -q "ThreadSanitizer" "$out"; then
		echo "$name: unexpected TSan report:"
		cat "$out"
		fail=1
	else
		echo "$name: no TSan report over its corpus"
	fi
done
exit $fail
