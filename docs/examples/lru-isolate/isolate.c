/*
 * isolate.c - an out-of-tree Weft model on the installed mm kit: pages
 * isolated from the LRU while another thread isolates or activates them.
 *
 * isolate_lru_page() (mm/vmscan.c, v2.6.x; folio_isolate_lru() since
 * v5.18) takes a page off the LRU for reclaim or migration: test and clear
 * PG_lru and unlink the page, under the LRU lock, with a reference of its
 * own; putback_lru_page() puts it back on the list its PG_active names.
 *
 *   "unlocked-test" (buggy): PageLRU is tested before the LRU lock is
 *     taken, and cleared under it without testing again. Another isolator
 *     can take the page in between; both unlink it: the second list_del()
 *     finds it already poisoned (one preemption).
 *   "test-clear" (fixed): TestClearPageLRU under the lock decides, as the
 *     kernel does: exactly one isolator owns the page.
 *
 * Workload: each thread runs up to 4 operations, "isolate" (take the page
 * off the LRU, as reclaim gathers its list) or "activate"
 * (activate_page()), each on page arg % 2, then puts back what it
 * isolated. The audits at quiescence: the LRU's lists and flags agree
 * (weft_lru_audit), and every page holds exactly its owner's reference
 * (weft_mm_audit_leaks).
 * docs/writing-a-model.md walks through it.
 */
#include <weft/mm/lru.h>
#include <weft/scenario.h>

#define NR_PAGES 2

enum { V_UNLOCKED_TEST, V_TEST_CLEAR };
enum { OP_ISOLATE, OP_ACTIVATE };

struct iso_world {
	unsigned variant;
	struct weft_mm mm;               /* the kit's pages and allocator */
	struct weft_lru lru;             /* its LRU lists and lru lock */
	struct weft_page *page[NR_PAGES];
	struct weft_op ops[2][4];        /* the workload, copied at setup */
	unsigned nr_ops[2];
	bool held[2][NR_PAGES];          /* isolated by thread t: its own */
};

/* isolate_lru_page(): true if this thread took p off the LRU (with a
 * reference of its own). */
static bool isolate_lru_page(struct iso_world *W, struct weft_page *p)
{
	struct weft_lru *lru = &W->lru;

	if (W->variant == V_UNLOCKED_TEST) {
		if (!weft_page_test(p, lru))          /* PageLRU(), no lock held */
			return false;
		spin_lock(&lru->lock);
		weft_page_clear(p, lru);
	} else {
		spin_lock(&lru->lock);
		if (!weft_page_test_clear(p, lru)) {  /* TestClearPageLRU() */
			spin_unlock(&lru->lock);
			return false;
		}
	}
	weft_get_page(&W->mm, p);
	weft_list_del(&p->lru);
	spin_unlock(&lru->lock);
	return true;
}

/* putback_lru_page(): back on the list PG_active names; drop our reference. */
static void putback_lru_page(struct iso_world *W, struct weft_page *p)
{
	struct weft_lru *lru = &W->lru;

	spin_lock(&lru->lock);
	weft_page_set(p, lru);
	if (weft_page_test(p, active))
		weft_list_add(&p->lru, &lru->active);
	else
		weft_list_add(&p->lru, &lru->inactive);
	spin_unlock(&lru->lock);
	weft_put_page_nofree(&W->mm, p);          /* never the last reference */
}

static void iso_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct iso_world *W = w;

	W->variant = variant;
	weft_mm_init(&W->mm, NR_PAGES, false);
	weft_lru_init(&W->lru, &W->mm, WEFT_LRU_UNLESS_ZERO, false);
	for (unsigned i = 0; i < NR_PAGES; i++) {
		W->page[i] = weft_page_alloc(&W->mm);   /* count 1: the owner's */
		weft_lru_cache_add(&W->lru, W->page[i]);
	}
	weft_workload_copy(wl, 2, 4, W->nr_ops, &W->ops[0][0]);   /* ops[2][4] */
}

static void iso_thread(void *w, unsigned tid)
{
	struct iso_world *W = w;

	for (unsigned k = 0; k < W->nr_ops[tid]; k++) {
		unsigned i = W->ops[tid][k].arg % NR_PAGES;
		switch (W->ops[tid][k].code) {
		case OP_ISOLATE:
			if (!W->held[tid][i] && isolate_lru_page(W, W->page[i]))
				W->held[tid][i] = true;
			break;
		case OP_ACTIVATE:
			weft_activate_page(&W->lru, W->page[i]);
			break;
		}
	}
	for (unsigned i = 0; i < NR_PAGES; i++)   /* putback of the isolated list */
		if (W->held[tid][i]) {
			W->held[tid][i] = false;
			putback_lru_page(W, W->page[i]);
		}
}

/* Every allocated page holds its owner's reference, no other. */
static unsigned iso_owned(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	(void)mm;
	(void)p;
	(void)ctx;
	return 1;
}

static void iso_quiesce(void *w)
{
	struct iso_world *W = w;

	weft_lru_audit(&W->lru);
	weft_mm_audit_leaks(&W->mm, iso_owned, NULL);
}

static void iso_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct iso_world *W = w;

	if (!weft_mm_describe(&W->mm, w, off, buf, n))
		weft_lru_describe(&W->lru, w, off, buf, n);
}

/* Abstract state for the fuzzer's feedback: each page's count, PG_lru,
 * on-a-list (the kit's buckets). */
static uint32_t iso_bucket(const void *w, uint32_t off)
{
	const struct iso_world *W = w;

	return weft_mm_state_bucket(&W->mm, w, off);
}

static const char *const iso_ops[] = { "isolate", "activate" };
static const char *const iso_files[] = { "isolate.c", NULL };

/* Both threads isolate page 0 (ops 00 00, 10 00); one schedule entry, 02 00
 * 00: at decision 2 (T0 has tested PG_lru and taken the lock) run T1. */
static const uint8_t iso_trigger[] = { 0x02, 0x00, 0x00, 0x10, 0x00, 0x02, 0x00, 0x00 };
static const uint8_t *const iso_triggers[] = { iso_trigger, NULL };
static const size_t iso_trigger_lens[] = { sizeof(iso_trigger), 0 };

static const struct weft_variant iso_variants[] = {
	{ "unlocked-test", NULL, true, "PageLRU() tested before the lru lock is taken",
	  "Weft example; isolate_lru_page(), mm/vmscan.c", WEFT_KIND_LIST_CORRUPTION, 1,
	  V_UNLOCKED_TEST },
	{ "test-clear", NULL, false, "TestClearPageLRU() under the lru lock",
	  "isolate_lru_page() since v2.6.16", WEFT_KIND_NONE, 0, V_TEST_CLEAR },
};

static const struct weft_scenario example_lru_isolate = {
	WEFT_SCENARIO_PLAIN("example-lru-isolate",
	                    "example: isolating LRU pages on the mm kit (2 CPUs)",
	                    "docs/examples/lru-isolate",
	                    2, 2, sizeof(struct iso_world), 2, iso_ops, 4, 64,
	                    iso_files, iso_setup, iso_thread, iso_variants),
	.default_lock = WEFT_LOCK_TICKET,   /* spinlocks are FIFO (qspinlock) */
	.quiesce = iso_quiesce,
	.describe = iso_describe,
	.state_bucket = iso_bucket,
	.triggers = iso_triggers,
	.trigger_lens = iso_trigger_lens,
};

WEFT_DEFINE_REGISTRY(&example_lru_isolate);
