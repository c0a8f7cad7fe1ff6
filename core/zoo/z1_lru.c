/*
 * z1_lru.c - ZOO Z1: the 2002 LRU walker vs final page release double
 * free, its two buggy narrowings and four fixes, as one scenario (z1-lru).
 *
 * Sources (the model code is mm_page.c and mm_lru.c; the schemes are named
 * there):
 *  - seeds/000: D. Phillips, "[RFC] [PATCH] Include LRU in page count",
 *    lkml 30 Aug 2002, with A. Morton's description of the race between
 *    shrink_cache and page_cache_release in 2.4.19, and the review of
 *    31 Aug 2002 (TestSetPageLRU outside the lock);
 *  - 2.5.33 shrink_cache/__page_cache_release (count == 0 re-checked under
 *    the lru lock on both sides);
 *  - 2.6.6-mm2 "page-freeing-race-fix" (get_page_testone, -1 bias);
 *  - 2.6.16 isolate_lru_pages (get_page_unless_zero before ClearPageLRU).
 *
 * Threads: T0 "release", T1 "scan", T2 "truncate" on CPUs 0..2; the names
 * are their roles in the trigger workloads, but every thread runs the ops
 * the input gives it. Ops (arg taken modulo its bound):
 *   lookup s      find_get_page(slot s)               -> holds a reference
 *   release p     page_cache_release of a held page (p if held, else the
 *                 next held one; nothing if none is held)
 *   scan n        [refill_inactive(1) if n & 4] shrink_cache(1 + (n & 3))
 *   truncate s    truncate_list_pages for slot s
 *   new x         alloc a page, add it to the page cache at slot 8 + x/2
 *                 (x even; anonymous if odd or the slot is taken), then
 *                 lru_cache_add; holds the allocation reference
 *   activate p    activate_page on a held page
 *   release-all   release_pages() of every held reference (a batch)
 *   get p         page_cache_get on a held page (inherits its right)
 *   add p         lru_cache_add of a held anonymous page (mapping NULL)
 *                 that is off the LRU, as the seed's patch allows (its
 *                 lru_cache_add is idempotent on PG_lru); a no-op in the
 *                 other eras, whose callers add only new pages (2.5.33+:
 *                 __pagevec_lru_add BUG()s on PG_lru)
 * A thread only releases, activates or gets what it holds, so a fixed
 * variant has nothing to report on any workload.
 *
 * Initial state (setup, from the workload): page i < 8 exists iff an op
 * names it; thread t holds as many references on it as it has release ops
 * on it (one if it only activates or gets it); the page is in the page
 * cache at slot i iff a lookup or truncate names slot i or no thread holds
 * it, and no add names it; a page an add names starts anonymous and off
 * the LRU; every other initial page is on the inactive list (lowest index
 * at the cold end), with the LRU's reference under the LRU_PLUS_CACHE 2
 * schemes.
 *
 * A new page-cache page is locked (PG_locked, as __add_to_page_cache()
 * leaves it for the read) until it is on the LRU, so truncate, which
 * trylocks, cannot take it off the LRU halfway through lru_cache_add.
 *
 * Audits at quiescence: LRU integrity (weft_lru_audit), then page leak and
 * count == owners (owners: thread references, the page cache slot, the
 * LRU's reference where PG_lru carries one).
 */
#include <weft/mm/lru.h>
#include <weft/scenario.h>

#define Z1_THREADS 3
#define Z1_PAGES 16
#define Z1_INITIAL 8
#define Z1_MAX_OPS 32
#define Z1_MAX_REFS 8      /* per thread per page */

enum z1_op {
	OP_LOOKUP,
	OP_RELEASE,
	OP_SCAN,
	OP_TRUNCATE,
	OP_NEW,
	OP_ACTIVATE,
	OP_RELEASE_ALL,
	OP_GET,
	OP_ADD,
	Z1_NR_OPS
};

enum z1_variant {
	V_Z1A,
	V_Z1B,
	V_Z1C,
	V_FIX_LRUCOUNT,
	V_FIX_LRUCOUNT_NOHEUR,
	V_FIX_TESTONE,
	V_FIX_UNLESS_ZERO,
	Z1_NR_VARIANTS
};

/* Touched only by its own thread (and by setup and audits). */
struct z1_thread {
	uint8_t refs[WEFT_MM_NR_PAGES];   /* references held, by page nr */
	unsigned nr_ops;
	struct weft_op ops[Z1_MAX_OPS];
};

struct z1_world {
	unsigned variant;
	struct weft_mm mm;
	struct weft_lru lru;
	struct weft_mapping mapping;
	struct z1_thread th[Z1_THREADS];
};

static const struct {
	enum weft_lru_scheme scheme;
	bool heuristic;
	bool biased;
} z1_cfg[Z1_NR_VARIANTS] = {
	[V_Z1A] = { WEFT_LRU_2_4_19, false, false },
	[V_Z1B] = { WEFT_LRU_RECHECK, false, false },
	[V_Z1C] = { WEFT_LRU_PLUS_CACHE_EARLY, true, false },
	[V_FIX_LRUCOUNT] = { WEFT_LRU_PLUS_CACHE, true, false },
	[V_FIX_LRUCOUNT_NOHEUR] = { WEFT_LRU_PLUS_CACHE, false, false },
	[V_FIX_TESTONE] = { WEFT_LRU_TESTONE, false, true },
	[V_FIX_UNLESS_ZERO] = { WEFT_LRU_UNLESS_ZERO, false, false },
};

static bool op_names_page(unsigned code)
{
	return code == OP_LOOKUP || code == OP_RELEASE || code == OP_TRUNCATE ||
	       code == OP_ACTIVATE || code == OP_GET || code == OP_ADD;
}

static void z1_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z1_world *W = w;
	unsigned char named[Z1_INITIAL] = { 0 }, cached[Z1_INITIAL] = { 0 };
	unsigned char off_lru[Z1_INITIAL] = { 0 };

	if (variant >= Z1_NR_VARIANTS)
		variant = V_Z1A;
	W->variant = variant;
	weft_mm_init(&W->mm, Z1_PAGES, z1_cfg[variant].biased);
	weft_lru_init(&W->lru, &W->mm, z1_cfg[variant].scheme, z1_cfg[variant].heuristic);
	weft_mapping_init(&W->mapping);

	for (unsigned t = 0; t < Z1_THREADS; t++) {
		struct z1_thread *th = &W->th[t];
		unsigned extra[Z1_INITIAL] = { 0 };

		th->nr_ops = wl->nr_ops[t] < Z1_MAX_OPS ? wl->nr_ops[t] : Z1_MAX_OPS;
		for (unsigned k = 0; k < th->nr_ops; k++) {
			struct weft_op op = wl->ops[t][k];
			unsigned i = op.arg % Z1_PAGES;

			th->ops[k] = op;
			if (!op_names_page(op.code) || i >= Z1_INITIAL)
				continue;
			named[i] = 1;
			if (op.code == OP_ADD)
				off_lru[i] = 1;
			if (op.code == OP_LOOKUP || op.code == OP_TRUNCATE)
				cached[i] = 1;
			else if (op.code == OP_RELEASE && th->refs[i] < Z1_MAX_REFS)
				th->refs[i]++;
			else
				extra[i] = 1;
		}
		for (unsigned i = 0; i < Z1_INITIAL; i++)
			if (extra[i] && !th->refs[i])
				th->refs[i] = 1;
	}

	/* lowest index first: it ends at the cold end (inactive.prev) */
	for (unsigned i = 0; i < Z1_INITIAL; i++) {
		if (!named[i])
			continue;
		struct weft_page *p = weft_page_alloc_at(&W->mm, i);
		int count = 0;

		if (!p)
			continue;
		for (unsigned t = 0; t < Z1_THREADS; t++)
			count += W->th[t].refs[i];
		if (off_lru[i])
			cached[i] = 0;
		if (!count) {
			/* unreferenced: the page cache holds it (an add
			 * without a holder cannot happen: add gives one) */
			cached[i] = 1;
		}
		if (cached[i]) {
			count++;
			p->mapping = &W->mapping;
			W->mapping.slot[i] = p;
		}
		if (off_lru[i]) {
			weft_set_page_count(&W->mm, p, count);
			continue;
		}
		if (weft_lru_holds_ref(&W->lru))
			count++;
		weft_set_page_count(&W->mm, p, count);
		weft_page_set(p, lru);
		weft_list_add(&p->lru, &W->lru.inactive);
	}
}

/* The page nr this thread holds: want if held, else the next held one. */
static struct weft_page *held_page(struct z1_world *W, struct z1_thread *th, unsigned want)
{
	for (unsigned k = 0; k < Z1_PAGES; k++) {
		unsigned i = (want + k) % Z1_PAGES;

		if (th->refs[i])
			return &W->mm.pages[i];
	}
	return NULL;
}

static void z1_thread(void *w, unsigned tid)
{
	struct z1_world *W = w;
	struct z1_thread *th = &W->th[tid];
	struct weft_lru *lru = &W->lru;

	for (unsigned k = 0; k < th->nr_ops; k++) {
		struct weft_op op = th->ops[k];
		unsigned a = op.arg;
		struct weft_page *p;

		switch (op.code) {
		case OP_LOOKUP:
			weft_note(WEFT_SITE(WEFT_EV_OP, "op lookup"), k, a % Z1_PAGES);
			p = weft_find_get_page(lru, &W->mapping, a % Z1_PAGES);
			if (p)
				th->refs[weft_page_nr(&W->mm, p)]++;
			break;
		case OP_RELEASE:
			weft_note(WEFT_SITE(WEFT_EV_OP, "op release"), k, a % Z1_PAGES);
			p = held_page(W, th, a % Z1_PAGES);
			if (p) {
				th->refs[weft_page_nr(&W->mm, p)]--;
				weft_page_cache_release(lru, p);
			}
			break;
		case OP_SCAN:
			weft_note(WEFT_SITE(WEFT_EV_OP, "op scan"), k, a & 7);
			if (a & 4)
				weft_refill_inactive(lru, 1);
			weft_shrink_cache(lru, 1 + (a & 3));
			break;
		case OP_TRUNCATE:
			weft_note(WEFT_SITE(WEFT_EV_OP, "op truncate"), k, a % Z1_PAGES);
			weft_truncate_page(lru, &W->mapping, a % Z1_PAGES);
			break;
		case OP_NEW: {
			weft_note(WEFT_SITE(WEFT_EV_OP, "op new"), k, a & 15);
			p = weft_page_alloc(&W->mm);
			if (!p)
				break;
			th->refs[weft_page_nr(&W->mm, p)]++;
			/* __add_to_page_cache(): the page goes in locked;
			 * readpage unlocks it once it is on the LRU */
			bool cached = false;
			if (!(a & 1)) {
				weft_page_set(p, locked);
				cached = weft_add_to_page_cache(lru, &W->mapping, p,
								Z1_INITIAL + (a >> 1) % Z1_INITIAL);
				if (!cached)
					weft_page_clear(p, locked);
			}
			weft_lru_cache_add(lru, p);
			if (cached)
				weft_page_clear(p, locked);
			break;
		}
		case OP_ACTIVATE:
			weft_note(WEFT_SITE(WEFT_EV_OP, "op activate"), k, a % Z1_PAGES);
			p = held_page(W, th, a % Z1_PAGES);
			if (p)
				weft_activate_page(lru, p);
			break;
		case OP_RELEASE_ALL: {
			struct weft_page *batch[WEFT_RELEASE_BATCH];
			unsigned n = 0;

			weft_note(WEFT_SITE(WEFT_EV_OP, "op release-all"), k, 0);
			for (unsigned i = 0; i < Z1_PAGES; i++)
				while (th->refs[i] && n < WEFT_RELEASE_BATCH) {
					th->refs[i]--;
					batch[n++] = &W->mm.pages[i];
				}
			weft_release_pages(lru, batch, n);
			break;
		}
		case OP_ADD:
			weft_note(WEFT_SITE(WEFT_EV_OP, "op add"), k, a % Z1_PAGES);
			p = held_page(W, th, a % Z1_PAGES);
			if (!p || !weft_lru_holds_ref(&W->lru))
				break;
			if (!READ_ONCE(p->mapping))
				weft_lru_cache_add(lru, p);
			break;
		case OP_GET:
			weft_note(WEFT_SITE(WEFT_EV_OP, "op get"), k, a % Z1_PAGES);
			p = held_page(W, th, a % Z1_PAGES);
			if (p && th->refs[weft_page_nr(&W->mm, p)] < Z1_MAX_REFS) {
				weft_page_cache_get(lru, p);
				th->refs[weft_page_nr(&W->mm, p)]++;
			}
			break;
		}
	}
}

static unsigned z1_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct z1_world *W = ctx;
	unsigned nr = weft_page_nr(mm, p), n = 0;

	for (unsigned t = 0; t < Z1_THREADS; t++)
		n += W->th[t].refs[nr];
	for (unsigned s = 0; s < WEFT_MAPPING_SLOTS; s++)
		if (weft_peek(W->mapping.slot[s]) == p)
			n++;
	if (weft_lru_holds_ref(&W->lru) && weft_page_peek_flag(p, lru))
		n++;
	return n;
}

static void z1_quiesce(void *w)
{
	struct z1_world *W = w;

	if (weft_lru_audit(&W->lru))
		return;
	weft_mm_audit_leaks(&W->mm, z1_owners, W);
}

static void z1_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z1_world *W = w;

	if (weft_mm_describe(&W->mm, W, off, buf, n) || weft_lru_describe(&W->lru, W, off, buf, n) ||
	    weft_mapping_describe(&W->mapping, W, off, buf, n))
		return;
}

static unsigned z1_stats(const void *w, const char **names, uint64_t *vals, unsigned max)
{
	const struct z1_world *W = w;
	unsigned n = weft_mm_stats(&W->mm, names, vals, max);

	if (n < max) {
		names[n] = "orphans_on_lru";
		vals[n++] = weft_lru_count_orphans(&W->lru);
	}
	return n;
}

static uint32_t z1_state_bucket(const void *w, uint32_t off)
{
	const struct z1_world *W = w;

	return weft_mm_state_bucket(&W->mm, W, off);
}

static const char *const z1_opnames[Z1_NR_OPS] = {
	"lookup", "release", "scan", "truncate", "new", "activate", "release-all", "get", "add",
};

static const char *const z1_files[] = { "z1_lru.c", "mm_lru.c", "mm_page.c", NULL };

static const struct weft_variant z1_variants[Z1_NR_VARIANTS] = {
	{ "z1a", "Z1a", true,
	  "2.4.19 as shipped: the LRU holds no reference; shrink_cache's page_cache_get "
	  "resurrects a page its releaser took to 0; both free it",
	  "Linux 2.4.19 mm/vmscan.c shrink_cache vs mm/page_alloc.c __free_pages_ok; "
	  "A. Morton's description in D. Phillips, \"[RFC] [PATCH] Include LRU in page "
	  "count\", lkml 30 Aug 2002",
	  WEFT_KIND_DOUBLE_FREE, 1, V_Z1A },
	{ "z1b", "Z1b", true,
	  "count == 0 re-checked under the lru lock on both sides: still a double free; "
	  "1 preemption with --lock tas, 2 with --lock ticket",
	  "Linux 2.5.33 mm/vmscan.c shrink_cache, mm/swap.c __page_cache_release "
	  "(Aug 2002); buggy until 2.6.6-mm2 \"page-freeing-race-fix\" (2004)",
	  WEFT_KIND_DOUBLE_FREE, 1, V_Z1B },
	{ "z1c", "Z1c", true,
	  "the LRU holds a reference, but lru_cache_add sets PG_lru outside the lock "
	  "before the reference exists: a release unlinks a node never linked",
	  "seed patch LRU_PLUS_CACHE 2 (D. Phillips, lkml 30 Aug 2002) mm/swap.c "
	  "lru_cache_add, as pointed out in review, 31 Aug 2002",
	  WEFT_KIND_LIST_CORRUPTION, 1, V_Z1C },
	{ "fix-lrucount", "Z1-fix-lrucount", false,
	  "the LRU holds a reference, PG_lru and it set together under the lock; the "
	  "trylock heuristic in page_cache_release",
	  "seed patch LRU_PLUS_CACHE 2 + LRU_DEL_HEURISTIC (D. Phillips, lkml 30 Aug "
	  "2002), with lru_cache_add under the lock",
	  WEFT_KIND_NONE, 0, V_FIX_LRUCOUNT },
	{ "fix-lrucount-noheur", "Z1-fix-lrucount-noheur", false,
	  "as fix-lrucount without the heuristic: orphans at count 1 stay on the LRU "
	  "until shrink_cache recovers them",
	  "seed patch LRU_PLUS_CACHE 2 without LRU_DEL_HEURISTIC (D. Phillips, lkml "
	  "30 Aug 2002)",
	  WEFT_KIND_NONE, 0, V_FIX_LRUCOUNT_NOHEUR },
	{ "fix-testone", "Z1-fix-testone", false,
	  "counts biased by -1; isolate_lru_pages' get_page_testone sees 0 -> 1 "
	  "atomically and puts the page back",
	  "Linux 2.6.6-mm2 \"page-freeing-race-fix\" (2004), mm/vmscan.c "
	  "isolate_lru_pages, include/linux/mm.h get_page_testone",
	  WEFT_KIND_NONE, 0, V_FIX_TESTONE },
	{ "fix-unless-zero", "Z1-fix-unless-zero", false,
	  "isolate_lru_pages takes get_page_unless_zero before clearing PG_lru; release "
	  "tests PG_lru without the lock",
	  "Linux 2.6.16 mm/vmscan.c isolate_lru_pages, mm/swap.c __page_cache_release "
	  "(N. Piggin, \"mm: never ClearPageLRU released pages\", 2006)",
	  WEFT_KIND_NONE, 0, V_FIX_UNLESS_ZERO },
};

/*
 * Trigger inputs (bytes encoding, weft_input): workload, then schedule
 * entries [pos lo][pos hi][b]. Found with dfs at the minimal bound on the
 * workload and re-encoded by `weft run --strategy dfs`'s reproducer.
 * z1a, z1b: T0 "release 0" (page 0: anonymous, on the LRU, T0's reference
 * only), T1 "scan 0" (one page); entries: start T1 (free), preempt T1
 * between its count read and page_cache_get (decision 15 / 10). z1c: T0
 * "add 0", T2 "release 0" (page 0: anonymous, off the LRU, one reference
 * each: count 2); entries: T0 is preempted right after TestSetPageLRU.
 */
static const uint8_t z1a_trigger[] = { 0x02, 0x01, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00,
				       0x0f, 0x00, 0x00 };
static const uint8_t z1b_trigger[] = { 0x02, 0x01, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00,
				       0x0a, 0x00, 0x00 };
static const uint8_t z1c_trigger[] = { 0x02, 0x08, 0x00, 0x21, 0x00, 0x02, 0x00, 0x00,
				       0x03, 0x00, 0x00 };

WEFT_SCENARIO_TRIGGERS(z1, Z1_NR_VARIANTS, z1a_trigger, z1b_trigger, z1c_trigger);

const struct weft_scenario weft_scn_z1_lru = {
	.name = "z1-lru",
	.summary = "Z1: LRU walker vs final page release, page double free (2002) and its fixes",
	.source = "seeds/000 (D. Phillips, lkml 30 Aug 2002); 2.4.19, 2.5.33, 2.6.6-mm2, 2.6.16",
	WEFT_SCENARIO_ZOO(z1, Z1, Z1_THREADS, 8192, 1),
};
