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
 *   - without the stand-in: it replays files as the regression driver does;
 *   - with WEFT_TEST_AFL_REPEAT=STATS every case is served twice in a row,
 *     as afl-fuzz's calibration does: the repeat must leave the same map
 *     and run no machine execution (the live counters in the file STATS
 *     count each distinct case once).
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
static const char *repeat_stats;   /* WEFT_TEST_AFL_REPEAT: serve each case twice */
static uint8_t first_map[sizeof(afl_map)];
static unsigned map_diffs;
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
	repeat_stats = getenv("WEFT_TEST_AFL_REPEAT");
	if (repeat_stats) {
		/* a zeroed stats file for the target's live counters */
		static const uint8_t zero[4096];
		FILE *f = fopen(repeat_stats, "wb");
		if (!f || fwrite(zero, 1, sizeof(zero), f) != sizeof(zero) || fclose(f))
			exit(3);
		setenv("WEFT_FUZZ_STATS", repeat_stats, 1);
	}
}

static uint64_t stats_execs(void)
{
	uint64_t v[2] = { 0, 0 };
	FILE *f = fopen(repeat_stats, "rb");

	if (!f || fread(v, sizeof(v[0]), 2, f) != 2) {
		fprintf(stderr, "FAIL: cannot read %s\n", repeat_stats);
		exit(1);
	}
	fclose(f);
	return v[1];
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
	unsigned total = repeat_stats ? 2 * nr_cases : nr_cases;
	if (repeat_stats && served && served % 2 == 1)
		memcpy(first_map, afl_map, sizeof(afl_map));
	if (repeat_stats && served && served % 2 == 0)
		map_diffs += memcmp(first_map, afl_map, sizeof(afl_map)) != 0;
	if (served == total) {
		printf("served %u test cases from shared memory\n", served);
		if (repeat_stats) {
			uint64_t e = stats_execs();
			printf("%u repeats: %u left another map; %llu machine executions\n",
			       nr_cases, map_diffs, (unsigned long long)e);
			if (map_diffs || e != nr_cases) {
				printf("FAIL: want the same maps and %u executions\n", nr_cases);
				exit(1);
			}
			printf("repeats answered from the last map\n");
		}
		return 0;
	}
	/* afl-compiler-rt clears the map before each iteration */
	memset(afl_map, 0, sizeof(afl_map));
	/* the next test case, in "shared memory" */
	unsigned i = repeat_stats ? served / 2 : served;
	served++;
	__afl_fuzz_ptr = cases[i];
	cur_len = lens[i];
	__afl_fuzz_len = &cur_len;
	return 1;
}
