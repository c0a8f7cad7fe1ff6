/*
 * z7_swapcont.c - ZOO Z7: swap count continuation raced between two
 * cluster locks (2017).
 *
 * Source: H. Ying, "mm, swap: Fix race between swap count continuation
 * operations", commit 2628bd6fc052 (v4.14-rc7, Oct 2017): after
 * __swap_duplicate() moved under the cluster lock ("mm/swapfile.c: use
 * cluster lock in __swap_duplicate()"), swap_count_continued() for a slot
 * of one cluster walks the continuation list of its swap_map page while
 * add_swap_count_continuation() for a slot of another cluster on the same
 * page inserts into that list under si->lock and its own cluster lock.
 * The model code is mm_swapcont.c (installed kit, <weft/mm/swapcont.h>).
 *
 * The race this model exposes (1 preemption): B's add, the first on the
 * page, has set page_private(head) = SWP_CONTINUED and initialised the
 * empty list, and is preempted before list_add_tail(). A, in another
 * cluster of the same page, at SWAP_MAP_MAX, duplicates: its walk sees
 * SWP_CONTINUED, takes head->lru.next == head as the first continuation
 * page and "initialises" its digit there - in the swap_map itself - then
 * stores COUNT_CONTINUED. A's count now encodes 0 plus a digit on a page
 * linked later and never initialised for A: SWAP_MAP_MAX + 1 references,
 * a count of 0 (a slot freed while PTEs still reference it) - the
 * reference-conservation audit reports it at quiescence.
 *
 * Threads T0, T1 on CPUs 0, 1. Ops (arg: slot = arg & 15, reps = 1 +
 * ((arg >> 4) & 7)):
 *   dup s r    swap_duplicate(slot s) r times (a fork's copy_pte_range)
 *   free s r   swap_free(slot s) r times, of references this thread holds
 * Every slot starts in use with count 1 (an owner that never frees);
 * swap_map pages of 8 slots, clusters of 4: slots 0-3 and 4-7 share
 * page 0's continuation list from two clusters.
 *
 * Variants: z7 with the real constants (SWAP_MAP_MAX 0x3e, SWAP_CONT_MAX
 * 0x7f): both slots must first be duplicated 62 times; z7-small the same
 * code with both maxima 2; fix (and fix-small) take si->cont_lock around
 * every walk and insert.
 */
#include <weft/mm/swapcont.h>
#include <weft/scenario.h>

#define Z7_THREADS 2
#define Z7_MAX_OPS 32
#define Z7_SLOTS 16
#define Z7_CLUSTER 4

enum { Z7_OP_DUP, Z7_OP_FREE, Z7_NR_OPS };
enum { Z7_REAL, Z7_SMALL, Z7_FIX, Z7_FIX_SMALL, Z7_NR_VARIANTS };

struct z7_thread {
	unsigned nr_ops;
	struct weft_op ops[Z7_MAX_OPS];
	uint32_t refs[Z7_SLOTS];        /* references this thread holds */
};

struct z7_world {
	unsigned variant;
	struct weft_swapc si;
	struct z7_thread th[Z7_THREADS];
};

static const struct weft_variant z7_variants[] = {
	{ "z7", "Z7", true,
	  "swap_count_continued() under the cluster lock only: a walk races a list insert",
	  "mm/swapfile.c v4.14-rc; 2628bd6fc052 mm, swap: Fix race between swap count "
	  "continuation operations (Oct 2017)",
	  WEFT_KIND_SLOT_LEAK, 1, Z7_REAL },
	{ "z7-small", "Z7-small", true,
	  "the same code with SWAP_MAP_MAX and SWAP_CONT_MAX shrunk to 2",
	  "as z7", WEFT_KIND_SLOT_LEAK, 1, Z7_SMALL },
	{ "fix", "Z7-fix", false,
	  "si->cont_lock around every continuation walk and insert",
	  "2628bd6fc052 (v4.14-rc7)", WEFT_KIND_NONE, 0, Z7_FIX },
	{ "fix-small", "Z7-fix-small", false, "the fix with both maxima 2", "as fix",
	  WEFT_KIND_NONE, 0, Z7_FIX_SMALL },
};

static void z7_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z7_world *W = w;
	bool small, fix;

	W->variant = variant < Z7_NR_VARIANTS ? variant : Z7_FIX;
	small = W->variant == Z7_SMALL || W->variant == Z7_FIX_SMALL;
	fix = W->variant == Z7_FIX || W->variant == Z7_FIX_SMALL;
	weft_swapc_init(&W->si, Z7_SLOTS, Z7_CLUSTER, small ? 2 : 0x3e, small ? 2 : 0x7f, fix);
	for (unsigned t = 0; t < Z7_THREADS; t++) {
		W->th[t].nr_ops = wl->nr_ops[t] < Z7_MAX_OPS ? wl->nr_ops[t] : Z7_MAX_OPS;
		for (unsigned i = 0; i < W->th[t].nr_ops; i++)
			W->th[t].ops[i] = wl->ops[t][i];
	}
}

static void z7_thread(void *w, unsigned tid)
{
	struct z7_world *W = w;
	struct z7_thread *th = &W->th[tid];

	WEFT_FOR_EACH_OP(op, th->ops, th->nr_ops, "z7 workload op") {
		unsigned s = op->arg % Z7_SLOTS, reps = 1 + ((op->arg >> 4) & 7);

		for (unsigned r = 0; r < reps; r++) {
			if (op->code == Z7_OP_DUP) {
				if (weft_swapc_duplicate(&W->si, s) == 0)
					th->refs[s]++;
			} else if (th->refs[s]) {
				th->refs[s]--;
				weft_swapc_free(&W->si, s);
			}
		}
	}
}

static void z7_quiesce(void *w)
{
	struct z7_world *W = w;
	uint32_t owners[Z7_SLOTS];

	for (unsigned s = 0; s < Z7_SLOTS; s++) {
		owners[s] = 1;
		for (unsigned t = 0; t < Z7_THREADS; t++)
			owners[s] += W->th[t].refs[s];
	}
	weft_swapc_audit(&W->si, owners);
}

static void z7_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z7_world *W = w;

	weft_swapc_describe(&W->si, w, off, buf, n);
}

static unsigned z7_stats(const void *w, const char **names, uint64_t *vals, unsigned max)
{
	const struct z7_world *W = w;
	uint64_t walks = 0, added = 0;

	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++) {
		walks += W->si.nr_continued[t];
		added += W->si.nr_added[t];
	}
	if (max < 2)
		return 0;
	names[0] = "swap_count_continued";
	vals[0] = walks;
	names[1] = "continuation_pages_added";
	vals[1] = added;
	return 2;
}

static uint32_t z7_state_bucket(const void *w, uint32_t off)
{
	const struct z7_world *W = w;

	return weft_swapc_state_bucket(&W->si, w, off);
}

static const char *const z7_opnames[Z7_NR_OPS] = { "dup", "free" };

static const char *const z7_files[] = { "z7_swapcont.c", "mm_swapcont.c", NULL };

/*
 * Triggers (found by dfs bound 1 on these workloads): T1 duplicates slot 4
 * (cluster 1) past SWAP_MAP_MAX, T0 slot 0 (cluster 0), both on swap_map
 * page 0, serially but for one preemption of T0 in its walk while T1 is
 * inside add_swap_count_continuation() (z7: at decision 262; z7-small:
 * at decision 22). The fixed variants get the same inputs.
 */
#define Z7_DUP(t, slot, reps) (uint8_t)((t) << 4 | Z7_OP_DUP), (uint8_t)(((reps) - 1) << 4 | (slot))
static const uint8_t z7_trigger[] = {
	16,
	Z7_DUP(1, 4, 8), Z7_DUP(1, 4, 8), Z7_DUP(1, 4, 8), Z7_DUP(1, 4, 8),
	Z7_DUP(1, 4, 8), Z7_DUP(1, 4, 8), Z7_DUP(1, 4, 8), Z7_DUP(1, 4, 8),
	Z7_DUP(0, 0, 8), Z7_DUP(0, 0, 8), Z7_DUP(0, 0, 8), Z7_DUP(0, 0, 8),
	Z7_DUP(0, 0, 8), Z7_DUP(0, 0, 8), Z7_DUP(0, 0, 8), Z7_DUP(0, 0, 8),
	0x06, 0x01, 0x00,
};
static const uint8_t z7_small_trigger[] = {
	2, Z7_DUP(1, 4, 3), Z7_DUP(0, 0, 3),
	0x16, 0x00, 0x00,
};
WEFT_SCENARIO_TRIGGERS(z7, Z7_NR_VARIANTS, z7_trigger, z7_small_trigger, z7_trigger,
		       z7_small_trigger);

const struct weft_scenario weft_scn_z7_swapcont = {
	.name = "z7-swapcont",
	.summary = "swap count continuation walked under one cluster lock while another "
		   "cluster's insert links the list: corrupt counts (2017)",
	.source = "mm/swapfile.c v4.14-rc swap_count_continued(), "
		  "add_swap_count_continuation(); commit 2628bd6fc052",
	WEFT_SCENARIO_ZOO(z7, Z7, Z7_THREADS, 8192, 1),
};
