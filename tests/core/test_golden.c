/*
 * test_golden.c - the same input gives the same trace hash in every build
 * and on every machine: fixed inputs of the demo scenarios against trace
 * hashes recorded once (x86-64, gcc 12). Every build (gcc, clang, ASan,
 * UBSan, TSan) and architecture (aarch64 under qemu: cross-aarch64.sh)
 * runs this test. A model change that moves a scheduling point changes
 * these hashes on purpose: regenerate with `test_golden --print` (the
 * first table is golden-hashes.inc, the second golden-hashes2.inc).
 * golden-hashes.inc holds the first trace hash (the one replay files
 * recorded before WEFT_CHECK_TRACE_HASH2 verify with), golden-hashes2.inc
 * the same inputs under the second (docs/replay-format.md, "Trace hash").
 */
#include "golden.h"

static const struct golden golden[] = {
#include "golden-hashes.inc"
};

static const struct golden golden2[] = {
#include "golden-hashes2.inc"
};

int main(int argc, char **argv)
{
	bool print = argc > 1 && !strcmp(argv[1], "--print");

	golden_run(print, golden, sizeof(golden) / sizeof(golden[0]), 0);
	if (print)
		printf("golden-hashes2.inc (WEFT_CHECK_TRACE_HASH2):\n");
	golden_run(print, golden2, sizeof(golden2) / sizeof(golden2[0]), WEFT_CHECK_TRACE_HASH2);
	return print ? 0 : check_done();
}
