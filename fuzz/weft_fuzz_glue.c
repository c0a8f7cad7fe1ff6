/*
 * weft_fuzz_glue.c - the interleaving feedback map for libFuzzer and AFL++
 * from one plain-C module, and the live counters of `weft fuzz`.
 *
 * The machine (core/src/machine/machine.c) increments map[mix(feature) & (size-1)]
 * for context-switch site pairs, reads-from pairs and the scenario's state
 * buckets; this module only decides where the map lives:
 *  - libFuzzer: a "__libfuzzer_extra_counters" section array. libFuzzer
 *    clears it before and collects it after every input, so its counts are
 *    per execution. (Plain C works; ECOSYSTEM-NOTES, clang 14.)
 *  - AFL++: WEFT_FUZZ_MAP_SIZE extra guard slots registered from a
 *    constructor through __sanitizer_cov_trace_pc_guard_init, which the
 *    AFL++ runtime numbers consecutively after the instrumented edges; the
 *    map is __afl_area_ptr + first slot. AFL++ clears the map between
 *    persistent iterations. Never done under libFuzzer: its own
 *    guard_init aborts on a second caller.
 * This file is compiled without coverage instrumentation in every engine
 * build (fuzz/CMakeLists.txt): its one-time branches (attaching the map)
 * must not appear as edges, or AFL++ stability drops below 100%.
 */
#include "weft_fuzz_glue.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static struct weft_fuzz_stats local_stats;
static struct weft_fuzz_stats *stats = &local_stats;
static bool feedback_on = true;
static bool lock_set;
static enum weft_lock_model lock_model;
static uint8_t *map;
static unsigned route_in_map = WEFT_FB_ALL;
static uint8_t *route_aux;

#if defined(WEFT_FUZZ_LIBFUZZER) && defined(WEFT_FUZZ_AFL)
#error "one engine per build"
#endif

#if defined(WEFT_FUZZ_LIBFUZZER)

__attribute__((used, aligned(64), section("__libfuzzer_extra_counters")))
static uint8_t weft_extra_counters[WEFT_FUZZ_MAP_SIZE];

static void map_attach(void)
{
	map = weft_extra_counters;
	weft_feedback_route(map, route_aux, WEFT_FUZZ_MAP_SIZE, route_in_map);
}

static inline void map_follow(void)
{
}

#elif defined(WEFT_FUZZ_AFL)

extern uint8_t *__afl_area_ptr;
extern uint32_t __afl_map_size;
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);

static uint32_t afl_guards[WEFT_FUZZ_MAP_SIZE];
static uint8_t *afl_area_seen;
static bool afl_usable;

/* Runs before main, so before the fork server sizes the map: our slots
 * count in __afl_final_loc like any instrumented edge. */
__attribute__((constructor)) static void afl_register_slots(void)
{
	__sanitizer_cov_trace_pc_guard_init(afl_guards, afl_guards + WEFT_FUZZ_MAP_SIZE);
	afl_usable = afl_guards[0] != 0;
	for (uint32_t i = 1; i < WEFT_FUZZ_MAP_SIZE && afl_usable; i++)
		afl_usable = afl_guards[i] == afl_guards[0] + i;
}

static void map_attach(void)
{
	if (!afl_usable) {
		fprintf(stderr, "weft: AFL++ did not give %u consecutive map slots "
				"(AFL_INST_RATIO?): interleaving feedback off\n",
			WEFT_FUZZ_MAP_SIZE);
		feedback_on = false;
		return;
	}
	afl_area_seen = NULL;
}

/* __afl_area_ptr starts as a private dummy and becomes the shared map when
 * the fork server starts (after init): attach to whichever is current. */
static inline void map_follow(void)
{
	if (__builtin_expect(__afl_area_ptr == afl_area_seen, 1))
		return;
	afl_area_seen = __afl_area_ptr;
	if (afl_guards[0] + WEFT_FUZZ_MAP_SIZE > __afl_map_size) {
		map = NULL;
		weft_feedback_attach(NULL, 0);
		return;
	}
	map = __afl_area_ptr + afl_guards[0];
	weft_feedback_route(map, route_aux, WEFT_FUZZ_MAP_SIZE, route_in_map);
}

#else /* regression driver */

static uint8_t regression_map[WEFT_FUZZ_MAP_SIZE];

static void map_attach(void)
{
	map = regression_map;
	weft_feedback_route(map, route_aux, WEFT_FUZZ_MAP_SIZE, route_in_map);
}

static inline void map_follow(void)
{
	/* nobody reads it: clear it so counts stay per execution, as the
	 * engines keep them (tests look at one execution's features) */
	memset(regression_map, 0, sizeof(regression_map));
}

#endif

static int stats_map(const char *path)
{
	int fd = open(path, O_RDWR);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(*stats)) {
		fprintf(stderr, "weft: WEFT_FUZZ_STATS=%s: not a stats file\n", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	void *p = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "weft: WEFT_FUZZ_STATS=%s: cannot map it\n", path);
		return -1;
	}
	stats = p;
	if (__atomic_load_n(&stats->magic, __ATOMIC_RELAXED) != WEFT_FUZZ_STATS_MAGIC)
		__atomic_store_n(&stats->magic, WEFT_FUZZ_STATS_MAGIC, __ATOMIC_RELAXED);
	return 0;
}

int weft_fuzz_glue_init(void)
{
	return weft_fuzz_glue_init_route(WEFT_FB_ALL, NULL);
}

int weft_fuzz_glue_init_route(unsigned in_map, uint8_t *aux)
{
	const char *e;

	route_in_map = in_map;
	route_aux = aux;

	if (weft_machine_init())
		return WEFT_ENOMEM;
	e = getenv("WEFT_FUZZ_STATS");
	if (e && *e && stats_map(e))
		return WEFT_EINVAL;
	e = getenv("WEFT_FUZZ_LOCK");
	if (e && *e) {
		if (!strcmp(e, "tas")) {
			lock_model = WEFT_LOCK_TAS;
		} else if (!strcmp(e, "ticket")) {
			lock_model = WEFT_LOCK_TICKET;
		} else {
			fprintf(stderr, "weft: WEFT_FUZZ_LOCK=%s: expected tas or ticket\n", e);
			return WEFT_EINVAL;
		}
		lock_set = true;
	}
	e = getenv("WEFT_NO_FEEDBACK");
	feedback_on = !(e && *e && strcmp(e, "0"));
	if (feedback_on)
		map_attach();
	return 0;
}

void weft_fuzz_glue_begin(void)
{
	if (feedback_on)
		map_follow();
}

void weft_fuzz_glue_count(uint32_t steps)
{
	__atomic_fetch_add(&stats->execs, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats->steps, steps, __ATOMIC_RELAXED);
}

/* The engine's code coverage counters, saved across extra executions.
 * libFuzzer: the inline 8-bit counters' section; AFL++: its whole map. */
extern uint8_t __start___sancov_cntrs[] __attribute__((weak));
extern uint8_t __stop___sancov_cntrs[] __attribute__((weak));
static uint8_t *cov_save;
static size_t cov_len;

static uint8_t *cov_area(size_t *n)
{
#if defined(WEFT_FUZZ_AFL)
	*n = __afl_map_size;
	return __afl_area_ptr;
#else
	if (!__start___sancov_cntrs || !__stop___sancov_cntrs) {
		*n = 0;
		return NULL;
	}
	*n = (size_t)(__stop___sancov_cntrs - __start___sancov_cntrs);
	return __start___sancov_cntrs;
#endif
}

void weft_fuzz_glue_detach(void)
{
	size_t n;
	uint8_t *a = cov_area(&n);

	weft_feedback_attach(NULL, 0);
	if (!a || !n)
		return;
	if (n > cov_len) {
		free(cov_save);
		cov_save = malloc(n);
		cov_len = cov_save ? n : 0;
	}
	if (cov_save)
		memcpy(cov_save, a, n);
}

void weft_fuzz_glue_reattach(void)
{
	size_t n;
	uint8_t *a = cov_area(&n);

	if (a && n && cov_save && n <= cov_len)
		memcpy(a, cov_save, n);
	if (feedback_on && map)
		weft_feedback_route(map, route_aux, WEFT_FUZZ_MAP_SIZE, route_in_map);
}

/*
 * After each execution: every feature that occurred counts once. The
 * machine counts occurrences, and both engines bucket counts (1, 2, 3,
 * 4-7, ...); but how often a site pair recurs mostly follows the workload's
 * length, so count buckets made every longer workload "new" and the corpus
 * grew by thousands of inputs that only repeat ops (measured: 3x fewer
 * executions per second, no fewer executions to the bug). Presence keeps
 * what is new about an interleaving: a pair, a reads-from edge or a state
 * that never occurred before. Word-wise: a non-zero byte becomes 1.
 */
uint8_t *weft_fuzz_glue_end(void)
{
	if (!map || !feedback_on)
		return NULL;
	/* memcpy: the AFL++ slice need not be 8-byte aligned */
	for (unsigned i = 0; i < WEFT_FUZZ_MAP_SIZE; i += 8) {
		uint64_t x;
		memcpy(&x, map + i, 8);
		if (!x)
			continue;
		x |= x >> 4;
		x |= x >> 2;
		x |= x >> 1;
		x &= 0x0101010101010101ull;
		memcpy(map + i, &x, 8);
	}
	return map;
}

void weft_fuzz_glue_report(void)
{
	uint64_t none = 0;

	__atomic_fetch_add(&stats->reports, 1, __ATOMIC_RELAXED);
	/* the first report of all the engine's processes sets both (read
	 * after the engine stopped) */
	if (__atomic_compare_exchange_n(&stats->first_report_execs, &none,
					__atomic_load_n(&stats->execs, __ATOMIC_RELAXED), false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		__atomic_store_n(&stats->first_report_steps,
				 __atomic_load_n(&stats->steps, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

bool weft_fuzz_feedback_on(void)
{
	return feedback_on;
}

enum weft_lock_model weft_fuzz_lock(const struct weft_scenario *sc)
{
	return lock_set ? lock_model : sc->default_lock;
}

bool weft_fuzz_replaying;

bool weft_fuzz_memory_forced(void)
{
	const char *e = getenv("WEFT_FUZZ_MEMORY");

	return e && *e;
}

bool weft_fuzz_memory(const struct weft_scenario *sc, unsigned *memory)
{
	const char *e = getenv("WEFT_FUZZ_MEMORY");
	enum weft_memory_model mm;
	const char *why = NULL;

	*memory = sc->memory;
	if (!e || !*e)
		return true;
	if (!weft_memory_parse(e, &mm, &why)) {
		fprintf(stderr, "weft: WEFT_FUZZ_MEMORY=%s: %s\n", e, why ? why : "?");
		return false;
	}
	*memory = (unsigned)mm;
	return true;
}

uint8_t *weft_fuzz_map(void)
{
	return feedback_on ? map : NULL;
}
