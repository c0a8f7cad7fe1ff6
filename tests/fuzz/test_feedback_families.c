/*
 * test_feedback_families.c - each interleaving feature family the fuzz
 * targets keep lands in the engine's map for an input where it must, and
 * not for one where it must not (issue 15, item 4). Built three times, once
 * per libweft_fuzz flavour: regression (a private map), libfuzzer (the
 * __libfuzzer_extra_counters array libFuzzer reads) and afl (the slots
 * after AFL++'s edges in __afl_area_ptr; AFL++'s runtime is stubbed here
 * the way it numbers guards: consecutively after the instrumented edges).
 *
 * Scenarios of its own, one behaviour each, so a family's presence or
 * absence has one cause: two threads that read and write one word (switch
 * pairs, reads-from pairs), a thread that only writes (no reads-from), one
 * thread (no switch pairs), a spin lock (lock outcomes), a state bucket.
 * Each family is routed alone to the map (weft_feedback_route), the glue's
 * presence reduction runs, and the map must be non-empty exactly when the
 * family must fire.
 */
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "../check.h"
#include "weft_fuzz_glue.h"
#include "../model_driver.h"

#if defined(WEFT_TEST_AFL)
/* AFL++'s runtime: the map and guard numbering (afl-compiler-rt) */
static uint8_t afl_map[8 + 65536];
uint8_t *__afl_area_ptr = afl_map;
uint32_t __afl_map_size = sizeof(afl_map);
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	static uint32_t next = 8;   /* "edges" 0..7 belong to instrumented code */

	for (uint32_t *g = start; g < stop; g++)
		*g = next++;
}
#endif

struct fw {
	uint32_t word;
	uint32_t other;
	spinlock_t lock;
};

enum { B_RW, B_WRITE_ONLY, B_LOCK };
static unsigned behaviour;

static void fw_thread(void *w, unsigned tid)
{
	struct fw *W = w;

	switch (behaviour) {
	case B_RW:
		WRITE_ONCE(W->word, tid + 1);
		(void)READ_ONCE(W->word);
		break;
	case B_WRITE_ONLY:
		WRITE_ONCE(W->word, tid + 1);
		WRITE_ONCE(W->other, tid + 1);
		break;
	default:
		spin_lock(&W->lock);
		WRITE_ONCE(W->word, tid + 1);
		spin_unlock(&W->lock);
		break;
	}
}

static uint32_t fw_bucket(const void *w, uint32_t off)
{
	const struct fw *W = w;

	return off == offsetof(struct fw, word) ? 1 + weft_peek(W->word) : 0;
}

static const struct weft_variant fw_variants[] = {
	{ "only", NULL, false, "", "", WEFT_KIND_NONE, 0, 0 },
};

static struct weft_scenario fw_sc = {
	.name = "feedback-families", .nr_cpus = 2, .nr_threads = 2, .world_size = sizeof(struct fw),
	.nr_opcodes = 1, .max_ops = 1, .thread = fw_thread, WEFT_TEST_VARIANTS(fw),
};

/* Runs one execution with only `family` routed to the glue's map; returns
 * the number of features present after the glue's reduction. */
static unsigned features(unsigned family, unsigned b, unsigned threads, bool bucket)
{
	static struct weft_bytes st;
	struct weft_run_opts o = { .sc = &fw_sc, .lock = WEFT_LOCK_TAS, .feedback = true,
				   .no_trace_hash = true };
	struct weft_exec_result r;
	uint8_t *map;
	unsigned n = 0;

	behaviour = b;
	fw_sc.nr_threads = threads;
	fw_sc.state_bucket = bucket ? fw_bucket : NULL;
	weft_fuzz_glue_begin();
	map = weft_fuzz_map();
	CHECK(map != NULL, "no map attached");
	if (!map)
		return 0;
	memset(map, 0, WEFT_FUZZ_MAP_SIZE);
	weft_feedback_route(map, NULL, WEFT_FUZZ_MAP_SIZE, family);
	/* a preemption at the first decision: T1 first, then T0 */
	static const uint8_t in[] = { 0, 0, 0, 0 };
	weft_bytes_init(&st, &fw_sc, in, sizeof(in));
	CHECK(weft_execute(&o, &weft_strategy_bytes, &st, &r) == 0 && r.kind == WEFT_KIND_NONE,
	      "execution");
	map = weft_fuzz_glue_end();
	for (unsigned i = 0; map && i < WEFT_FUZZ_MAP_SIZE; i++) {
		CHECK(map[i] <= 1, "presence: map[%u] = %u", i, map[i]);
		n += map[i] != 0;
	}
	return n;
}

int main(void)
{
	CHECK(weft_fuzz_glue_init() == 0, "glue init");
	/* switch pairs: two threads switch; one thread never does */
	CHECK(features(WEFT_FB_SWITCH, B_RW, 2, false) > 0, "switch pairs with two threads");
#if defined(WEFT_TEST_AFL)
	CHECK(weft_fuzz_map() == afl_map + 8, "the AFL++ map is the slots after the edges");
#endif
	CHECK(features(WEFT_FB_SWITCH, B_RW, 1, false) == 0, "switch pairs with one thread");
	/* reads-from: a read after a write; none without reads */
	CHECK(features(WEFT_FB_READS_FROM, B_RW, 2, false) > 0, "reads-from with reads");
	CHECK(features(WEFT_FB_READS_FROM, B_WRITE_ONLY, 2, false) == 0, "reads-from, no reads");
	/* state buckets: writes to a bucketed word; none without a bucket */
	CHECK(features(WEFT_FB_STATE, B_WRITE_ONLY, 2, true) > 0, "state buckets");
	CHECK(features(WEFT_FB_STATE, B_WRITE_ONLY, 2, false) == 0, "no state bucket declared");
	/* lock outcomes: a spin lock; none without */
	CHECK(features(WEFT_FB_LOCK, B_LOCK, 2, false) > 0, "lock outcomes");
	CHECK(features(WEFT_FB_LOCK, B_RW, 2, false) == 0, "lock outcomes without locks");
	/* each family alone: the others stay out of the map */
	CHECK(features(WEFT_FB_LOCK, B_RW, 2, true) == 0, "only the routed family lands");
	/* the targets' default routing (state, lock) keeps switch pairs and
	 * reads-from out */
	CHECK(features(WEFT_FB_STATE | WEFT_FB_LOCK, B_RW, 2, false) == 0,
	      "default routing: no switch pairs, no reads-from");
	return check_done();
}
