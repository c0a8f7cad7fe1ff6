/*
 * afl_driver.c - main() of the AFL++ fuzz targets (libweft_fuzz_afl_driver):
 * persistent mode with test cases in shared memory, AFL++'s documented
 * protocol (instrumentation/README.persistent_mode.md: __AFL_FUZZ_INIT,
 * __AFL_INIT, __AFL_LOOP, __AFL_FUZZ_TESTCASE_BUF/LEN) written out against
 * the runtime's symbols, so that any C compiler builds it; afl-cc links the
 * runtime into the program.
 *
 * Why not AFL++'s own libAFLDriver (-fsanitize=fuzzer under afl-clang-fast):
 * before its loop it calls the target once on a 4-byte warm-up input (the
 * bytes "##SI"), in every forked child. An input is a schedule genome or a
 * legacy workload, so that warm-up is a real execution; on a variant whose
 * bug most inputs reach (z10-mlock:z10) it reports, and afl-fuzz then sees
 * every seed crash and refuses to start. This driver runs the target on
 * afl-fuzz's inputs only. (An external driver, OSS-Fuzz's
 * $LIB_FUZZING_ENGINE, still makes that warm-up call: docs/fuzzing.md.)
 *
 * Outside afl-fuzz the program replays files and folders as the regression
 * driver does (regression_driver.c): `fuzz_X [--expect-crash] PATH...`.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weft_fuzz_glue.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* AFL++'s runtime (afl-compiler-rt): the test case in shared memory (NULL
 * when afl-fuzz does not deliver it that way), the persistent loop and the
 * deferred fork server. */
extern unsigned char *__afl_fuzz_ptr;
extern unsigned int *__afl_fuzz_len;
int __afl_persistent_loop(unsigned int max_cnt);
void __afl_manual_init(void);

/* Tells the runtime that this program reads test cases from shared memory
 * (the runtime's weak definition is 0). */
int __afl_sharedmem_fuzzing = 1;

/* afl-fuzz reads these in the binary: persistent mode, deferred fork server */
__attribute__((used)) static const char afl_persistent_sig[] = "##SIG_AFL_PERSISTENT##";
__attribute__((used)) static const char afl_defer_sig[] = "##SIG_AFL_DEFER_FORKSRV##";

/* The fork server's control descriptor (afl-fuzz's FORKSRV_FD). */
#define WEFT_AFL_FORKSRV_FD 198
#define WEFT_AFL_MAX_INPUT (1u << 20)

static uint8_t input[WEFT_AFL_MAX_INPUT];

/* One test case when it is not in shared memory: stdin (afl-fuzz without
 * shared-memory delivery) or the file afl-fuzz names (@@). */
static size_t read_input(const char *path)
{
	int fd = path ? open(path, O_RDONLY) : 0;
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return 0;
	while (n < sizeof(input) && (r = read(fd, input + n, sizeof(input) - n)) > 0)
		n += (size_t)r;
	if (path)
		close(fd);
	return n;
}

/*
 * afl-fuzz calibrates every new queue entry by running it again at once
 * (3 more times under AFL_FAST_CAL, 7 without) to detect variable paths.
 * This target is deterministic (the same input leaves the same map: its
 * stability is 100 %), and with the genome mutator most early mutations
 * are new entries: calibration was ~3/4 of all executions to Z1c's bug
 * (docs/fuzzing.md, "AFL++ against libFuzzer"). An input equal to the
 * previous one is answered with the map that one left, without running
 * the machine: it is not an execution (the live counters do not move).
 */
extern uint8_t *__afl_area_ptr;
extern uint32_t __afl_map_size;

#define WEFT_AFL_REPEAT_MAX 4096
static uint8_t last_input[WEFT_AFL_REPEAT_MAX];
static size_t last_len = SIZE_MAX;
static uint8_t *last_map;
static uint32_t last_map_size;

static bool repeat_of_last(const uint8_t *data, size_t size)
{
	if (size != last_len || !last_map || last_map_size != __afl_map_size ||
	    memcmp(data, last_input, size))
		return false;
	memcpy(__afl_area_ptr, last_map, last_map_size);
	return true;
}

static void remember(const uint8_t *data, size_t size)
{
	last_len = SIZE_MAX;
	if (size > sizeof(last_input))
		return;
	if (last_map_size != __afl_map_size) {
		free(last_map);
		last_map_size = __afl_map_size;
		last_map = malloc(last_map_size);
		if (!last_map)
			return;
	}
	memcpy(last_input, data, size);
	memcpy(last_map, __afl_area_ptr, last_map_size);
	last_len = size;
}

static void one_input(const uint8_t *data, size_t size)
{
	if (repeat_of_last(data, size))
		return;
	LLVMFuzzerTestOneInput(data, size);
	remember(data, size);
}

int main(int argc, char **argv)
{
	if (!getenv("__AFL_SHM_ID") || fcntl(WEFT_AFL_FORKSRV_FD, F_GETFD) == -1)
		return weft_fuzz_replay_main(argc, argv);
	LLVMFuzzerInitialize(&argc, &argv);
	/* the fork server starts here: every child begins initialized */
	__afl_manual_init();
	while (__afl_persistent_loop(UINT_MAX)) {
		if (__afl_fuzz_ptr)
			one_input(__afl_fuzz_ptr, *__afl_fuzz_len);
		else
			one_input(input, read_input(argc > 1 ? argv[1] : NULL));
	}
	return 0;
}
