/*
 * bench_empty_fuzzer.c - the empty libFuzzer target: the ceiling of any
 * in-process libFuzzer target on this machine (ECOSYSTEM-NOTES.md measured
 * ~3 M exec/s elsewhere; `weft bench` measures it again in the same run).
 */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}
