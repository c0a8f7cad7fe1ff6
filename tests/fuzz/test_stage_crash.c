/*
 * test_stage_crash.c - libFuzzer's loop, played around the libFuzzer flavour
 * of the z1-lru:z1a target (no libFuzzer runtime: this program writes the
 * "current unit" to CRASH before each input, as libFuzzer's crash handler
 * dumps it), to make the systematic stage find a bug:
 *
 *   test_stage_crash CRASH
 *
 * One mutation first (libFuzzer's loop has begun), then 1100 runs of a quiet
 * input (one op: past the stage's 1000-execution wait, with no new features),
 * then the serial run of z1a's trigger workload: clean itself, new features,
 * so the stage searches its interleavings at bound 1 and finds the double
 * free. Then mutations and their runs, as libFuzzer goes on. The target must
 * abort on an input that is the stage's one-execution reproducer: CRASH
 * holds the input that was running, and stage-crash.sh runs it alone in an
 * empty folder. Before, the target aborted inside the serial input's call
 * (CRASH: the serial input, clean alone).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <weft/fuzz.h>

WEFT_FUZZ_TARGET("z1-lru:z1a");

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* libFuzzer's byte mutator, lent to the custom one: unused by genomes here */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	(void)data;
	(void)max_size;
	return size;
}

static const char *crash;

static void run(const uint8_t *d, size_t n)
{
	int fd = open(crash, O_WRONLY | O_CREAT | O_TRUNC, 0666);

	if (fd < 0 || write(fd, d, n) != (ssize_t)n || close(fd)) {
		perror(crash);
		exit(3);
	}
	LLVMFuzzerTestOneInput(d, n);
}

int main(int argc, char **argv)
{
	/* weft run z1-lru:z1a --strategy bytes --input-hex: 0100000000 one op,
	 * clean; 0201001200000001 the trigger workload's serial run, clean
	 * (dfs --bound 0's last execution); --bound 1 finds the double free */
	static const uint8_t quiet[] = { 0x01, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t serial[] = { 0x02, 0x01, 0x00, 0x12, 0x00, 0x00, 0x00, 0x01 };
	static uint8_t buf[4096];
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: test_stage_crash CRASH\n");
		return 2;
	}
	crash = argv[1];
	setenv("WEFT_FUZZ_SYSTEMATIC", "1", 1);
	setenv("WEFT_NO_FEEDBACK", "0", 1);
	LLVMFuzzerInitialize(&argc, &argv);
	memcpy(buf, quiet, sizeof(quiet));
	(void)LLVMFuzzerCustomMutator(buf, sizeof(quiet), sizeof(buf), 1);
	for (unsigned i = 0; i < 1100; i++)
		run(quiet, sizeof(quiet));
	run(serial, sizeof(serial));
	for (unsigned i = 0; i < 16; i++) {
		memcpy(buf, serial, sizeof(serial));
		n = LLVMFuzzerCustomMutator(buf, sizeof(serial), sizeof(buf), 2 + i);
		run(buf, n);
	}
	fprintf(stderr, "test_stage_crash: no input aborted\n");
	return 1;
}
