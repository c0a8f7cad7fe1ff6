/*
 * test_afl_driver.c - the AFL++ targets' main() (fuzz/afl_driver.c) against
 * a stand-in for AFL++'s runtime: the symbols afl-compiler-rt defines, with
 * the fork server's part played in process.
 *
 * Linked with the real z10-mlock:z10 target (WEFT_FUZZ_TARGET below), whose
 * bug AFL++'s own libFuzzer driver hit before its loop: that driver calls
 * the target on the 4-byte warm-up input "##SI" in every forked child,
 * "##SI" is a schedule that reaches z10's BUG_ON, and afl-fuzz refused to
 * start ("every seed crashes"). tests/fuzz/CMakeLists.txt runs it:
 *   - under the stand-in (WEFT_TEST_AFL_SERVE=DIR): the driver must call
 *     the target on the served test cases only, read from shared memory,
 *     and exit 0 after the loop (the seeds of DIR are silent);
 *   - the same with WEFT_TEST_AFL_LAST=FILE served last: FILE must crash
 *     (the served bytes really are executed);
 *   - without the stand-in: it replays files as the regression driver does.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <weft/fuzz.h>

WEFT_FUZZ_TARGET("z10-mlock:z10");

/* ---- afl-compiler-rt's symbols, as afl_driver.c and the glue use them */

static uint8_t afl_map[8 + 65536];
uint8_t *__afl_area_ptr = afl_map;
uint32_t __afl_map_size = sizeof(afl_map);
unsigned char *__afl_fuzz_ptr;
unsigned int *__afl_fuzz_len;

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
int __afl_persistent_loop(unsigned int max_cnt);
void __afl_manual_init(void);

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	static uint32_t next = 8;

	for (uint32_t *g = start; g < stop; g++)
		*g = next++;
}

#define FORKSRV_FD 198
#define MAX_CASES 256

static bool fake;          /* playing afl-fuzz's part (WEFT_TEST_AFL_SERVE) */
static bool started;       /* __afl_manual_init() was called */
static unsigned nr_cases, served;
static unsigned char *cases[MAX_CASES];
static unsigned int lens[MAX_CASES];
static unsigned int cur_len;

static void add_case(const char *path)
{
	FILE *f = fopen(path, "rb");
	static unsigned char buf[1 << 16];
	size_t n;

	if (!f || nr_cases == MAX_CASES) {
		fprintf(stderr, "test_afl_driver: cannot serve %s\n", path);
		exit(3);
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	cases[nr_cases] = malloc(n ? n : 1);
	memcpy(cases[nr_cases], buf, n);
	lens[nr_cases++] = (unsigned int)n;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

__attribute__((constructor)) static void stand_in(void)
{
	const char *dir = getenv("WEFT_TEST_AFL_SERVE"), *last = getenv("WEFT_TEST_AFL_LAST");
	struct dirent **ents;
	char path[4096];
	int n;

	if (!dir)
		return;
	fake = true;
	/* what afl-fuzz gives a target it starts: the shared-memory id and
	 * the fork server's descriptors */
	setenv("__AFL_SHM_ID", "1", 1);
	if (dup2(2, FORKSRV_FD) < 0)
		exit(3);
	n = scandir(dir, &ents, NULL, by_name);
	if (n < 0)
		exit(3);
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			add_case(path);
		}
		free(ents[i]);
	}
	free(ents);
	if (last)
		add_case(last);
}

void __afl_manual_init(void)
{
	if (!fake) {
		fprintf(stderr, "FAIL: fork server started outside afl-fuzz\n");
		exit(1);
	}
	started = true;
}

int __afl_persistent_loop(unsigned int max_cnt)
{
	(void)max_cnt;
	if (!started) {
		fprintf(stderr, "FAIL: persistent loop before the fork server\n");
		exit(1);
	}
	if (served == nr_cases) {
		printf("served %u test cases from shared memory\n", served);
		return 0;
	}
	/* the next test case, in "shared memory" */
	__afl_fuzz_ptr = cases[served];
	cur_len = lens[served++];
	__afl_fuzz_len = &cur_len;
	return 1;
}
