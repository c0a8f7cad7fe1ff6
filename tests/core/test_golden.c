/*
 * test_golden.c - the same input gives the same trace hash in every build
 * and on every machine: fixed inputs of the demo scenarios against trace
 * hashes recorded once (x86-64, gcc 12). Every build (gcc, clang, ASan,
 * UBSan, TSan) and architecture (aarch64 under qemu: cross-aarch64.sh)
 * runs this test. A model change that moves a scheduling point changes
 * these hashes on purpose: regenerate with `test_golden --print`.
 */
#include "golden.h"

static const struct golden golden[] = {
#include "golden-hashes.inc"
};

int main(int argc, char **argv)
{
	return golden_main(argc, argv, golden, sizeof(golden) / sizeof(golden[0]));
}
