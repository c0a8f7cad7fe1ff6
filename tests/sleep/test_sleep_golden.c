/*
 * test_sleep_golden.c - the sleeping-primitive demos give the same trace
 * hash in every build and on every machine (as tests/core/test_golden.c
 * does for the first demos): fixed inputs against hashes recorded once
 * (x86-64, gcc 12). A change of a sleeping primitive's scheduling points,
 * events or values changes them on purpose: regenerate with
 * `test_sleep_golden --print > tests/sleep/sleep-golden.inc`, and remake
 * the demos' replays in corpus/regressions.
 */
#include "golden.h"

static const struct golden golden[] = {
#include "sleep-golden.inc"
};

int main(int argc, char **argv)
{
	return golden_main(argc, argv, golden, sizeof(golden) / sizeof(golden[0]));
}
