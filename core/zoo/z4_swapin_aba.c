/*
 * z4_swapin_aba.c - ZOO Z4: skip-swapcache swap-in ABA: silent data loss
 * (2024, "mm/swap: fix race when skipping swapcache").
 *
 * Source: K. Song, "[PATCH v4] mm/swap: fix race when skipping swapcache"
 * (linux-mm, Feb 2024; merged for v6.8-rc, 13fddd49d5d6 in mainline), and
 * its review (Huang Ying, Chris Li, Barry Song, D. Hildenbrand). The model
 * follows do_swap_page() of v6.7 (mm/memory.c): the SWP_SYNCHRONOUS_IO
 * path taken when the entry is not in the swap cache and __swap_count()
 * is 1 reads the page into a private folio, without the swap cache, then
 * pte_same() under the ptl, swap_free() and set_pte_at(); and the fix:
 * swapcache_prepare() pins the entry with SWAP_HAS_CACHE before the read,
 * a racer that fails to pin it backs off (schedule_timeout_uninterruptible(1),
 * the fault is retried) and the pin goes with swapcache_clear() at the end.
 *
 * The race (3 threads, 1 preemption; buggy variant), slot E at 0x01, not
 * in the swap cache, its data version vD:
 *   T0 read fault on PTE=E       T1 write fault on PTE=E     T2 swap-out
 *   alloc A, read E: vD
 *   ~~ preempted ~~
 *                                alloc B, read E: vD
 *                                pte_same(), swap_free(E):
 *                                E freed; PTE = B
 *                                write v2 to B
 *                                                            add_to_swap(B): the LIFO
 *                                                            allocator hands out E;
 *                                                            PTE = E, E holds v2
 *   ptl; pte_same(E, E) passes
 *   swap_free(E); PTE = A (vD)
 *   read: vD, last written v2 -> data-loss
 * Every count stays consistent (E ends 0x40 with B orphaned in the swap
 * cache): only the data oracle sees it.
 *
 * The data oracle: every page carries the version of the data in it
 * (page->data), every slot the version written at pageout (si->data[]),
 * and the model keeps, per address, the version the program last wrote
 * there (ghost state, written and read only under the ptl together with
 * the page: no scheduling point of its own). A read that finds another
 * version, or a quiescent address whose page or slot holds another one, is
 * data-loss. Fresh anonymous pages and zapped addresses have no written
 * version: nothing to compare.
 *
 * Model choices:
 *  - Order-0 folios only (the skip-swapcache path of v6.7 is order 0, and
 *    the swap model keeps one data version per folio).
 *  - The device is synchronous (SWP_SYNCHRONOUS_IO): swap_read_folio() is
 *    the copy of si->data[]; no swap_slots cache, so a freed slot is the
 *    next one allocated (the LIFO hint of the allocator).
 *  - A swap-cache hit goes through the swap model's do_swap_page()
 *    (weft_mm_swap_in()); with one process and no fork __swap_count() is
 *    never above 1, so a miss always takes the skip path.
 *  - The fix's back-off returns to the fault's caller, which retries after
 *    a cond_resched() (the kernel sleeps a tick in
 *    schedule_timeout_uninterruptible(1) and the access refaults). The
 *    machine has no sleep: a yield is a free switch to another runnable
 *    thread, but an adversarial schedule can keep two backing-off racers
 *    running and starve the pinning thread (pct does: the racers outrank
 *    it, measured as a step-budget livelock). So a fault backs off at most
 *    Z4_MAX_BACKOFFS times, then the access is left for later (the op
 *    ends without mapping; nothing is read, nothing is lost). A pin that
 *    is never released is still caught: at quiescence a HAS_CACHE slot
 *    without a swap-cache folio is a swap-slot-leak.
 *
 * Workload (per thread, from the input): ops on one process's 4 PTEs (few
 * addresses, so that generated workloads meet on them).
 *   swapout a       fault an order-0 page at a if unmapped, swap it out
 *   read    a       fault a in (retrying), read it under the ptl: checked
 *   write   a       fault a in (retrying), write a new version
 *   zap     a|l<<4  zap_pte_range() over a .. a+l
 *   reclaim a       drop the swap-cache folio of the swap PTE at a
 */
#include <weft/mm/swap.h>
#include <weft/mm/swapin.h>
#include <weft/scenario.h>

#define Z4_THREADS 3
#define Z4_MAX_OPS 8
#define Z4_PAGES 32
#define Z4_SLOTS 32
#define Z4_PTES 4

#define Z4_EAGAIN 11
#define Z4_MAX_BACKOFFS 8

/* versions written by the workload: never equal to a fresh page's
 * allocation tag (mm->alloc_seq) */
#define Z4_WRITTEN 0x80000000u

enum { Z4_BUGGY, Z4_FIXED };

enum {
	Z4_OP_SWAPOUT,
	Z4_OP_READ,
	Z4_OP_WRITE,
	Z4_OP_ZAP,
	Z4_OP_RECLAIM,
	Z4_NR_OPS
};

#define Z4_STATS(X)                                                           \
	X(SKIP_SWAPCACHE, "skip_swapcache_reads")                             \
	X(PREPARE_BACKOFF, "swapcache_prepare_backoffs")                      \
	X(PTE_CHANGED, "skip_swapcache_pte_changed")                          \
	X(FAULT_RETRIES, "fault_retries")                                     \
	X(FAULT_GAVE_UP, "fault_left_for_later")                              \
	X(CHECKED_READS, "checked_reads")                                     \
	X(WRITES, "writes")

enum z4_stat {
#define Z4_STAT_ENUM(e, s) Z4_STAT_##e,
	Z4_STATS(Z4_STAT_ENUM)
#undef Z4_STAT_ENUM
	Z4_NR_STATS
};

static const char *const z4_stat_names[Z4_NR_STATS] = {
#define Z4_STAT_NAME(e, s) s,
	Z4_STATS(Z4_STAT_NAME)
#undef Z4_STAT_NAME
};

struct z4_world {
	unsigned variant;
	unsigned nr_ops[Z4_THREADS];
	struct weft_op ops[Z4_THREADS][Z4_MAX_OPS];
	struct weft_mm mm;
	struct weft_swap_info si;
	struct weft_pgtable pt;
	/* the oracle's ghost state, under pt.ptl: the version last written
	 * at each address (0: none since it was mapped) and the last one
	 * handed out */
	uint32_t truth[Z4_PTES];
	uint32_t wseq;
	unsigned long stat[WEFT_MAX_THREADS][Z4_NR_STATS];
};

static inline void z4_stat(struct z4_world *W, enum z4_stat s)
{
	W->stat[weft_current_tid() % WEFT_MAX_THREADS][s]++;
}

static void z4_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z4_world *W = w;

	W->variant = variant;
	weft_workload_copy(wl, Z4_THREADS, Z4_MAX_OPS, W->nr_ops, &W->ops[0][0]);
	weft_mm_init(&W->mm, Z4_PAGES, false);
	weft_swap_init(&W->si, &W->mm, Z4_SLOTS, 0, WEFT_SWAP_FREE_PER_ENTRY);
	weft_pgtable_init(&W->pt, Z4_PTES);
}

/*
 * do_swap_page() of v6.7 for the swap PTE orig at addr. Returns 0 when
 * the fault is done (mapped, or nothing to do), -EAGAIN when the fix's
 * back-off asks for a retry.
 */
static int z4_do_swap_page(struct z4_world *W, unsigned addr, uint32_t orig)
{
	struct weft_mm *mm = &W->mm;
	struct weft_swap_info *si = &W->si;
	struct weft_pgtable *pt = &W->pt;
	unsigned off = weft_pte_swp_offset(orig);
	bool need_clear_cache = false;

	struct weft_page *folio = weft_swap_cache_get_folio(si, off);
	if (folio) {
		/* a swap-cache hit: the swap model's path */
		weft_put_page(mm, folio);
		weft_mm_swap_in(si, pt, addr);
		return 0;
	}
	/* SWP_SYNCHRONOUS_IO && __swap_count(entry) == 1 (data_race()) */
	if (WEFT_SWAP_COUNT(READ_ONCE(si->swap_map[off])) != 1) {
		weft_mm_swap_in(si, pt, addr);
		return 0;
	}
	if (W->variant == Z4_FIXED) {
		/* the fix: pin the entry, so no one else can free and reuse
		 * it while we read without the swap cache */
		if (weft_swapcache_prepare(si, off)) {
			z4_stat(W, Z4_STAT_PREPARE_BACKOFF);
			return -Z4_EAGAIN;
		}
		need_clear_cache = true;
	}
	z4_stat(W, Z4_STAT_SKIP_SWAPCACHE);
	folio = weft_page_alloc(mm);
	if (!folio)
		goto out;
	/* swap_read_folio(folio, true): a synchronous read of the slot */
	weft_swap_read_folio(si, folio, off);

	spin_lock(&pt->ptl);
	if (!weft_pte_same(weft_ptep_get(pt, addr), orig)) {
		spin_unlock(&pt->ptl);
		z4_stat(W, Z4_STAT_PTE_CHANGED);
		weft_put_page(mm, folio);
		goto out;
	}
	/* the allocation's reference becomes the mapping's */
	weft_swapin_map(si, pt, addr, off, folio, folio);
	spin_unlock(&pt->ptl);
out:
	/* swapcache_clear(): drop the pin (frees the slot if it was the
	 * last use) */
	if (need_clear_cache)
		weft_put_swap_folio(si, off, 1);
	return 0;
}

/* handle_mm_fault() for addr, retried while the fix backs off, at most
 * Z4_MAX_BACKOFFS times (see the header): then the access is left for
 * later (the op ends unfaulted). */
static void z4_fault(struct z4_world *W, unsigned addr)
{
	for (unsigned backoffs = 0;; backoffs++) {
		uint32_t orig = weft_ptep_get(&W->pt, addr);   /* lockless */
		if (weft_pte_present(orig))
			return;
		if (weft_pte_none(orig)) {
			weft_mm_fault_anon(&W->si, &W->pt, addr, 0);
			return;
		}
		if (z4_do_swap_page(W, addr, orig) != -Z4_EAGAIN)
			return;
		if (backoffs == Z4_MAX_BACKOFFS) {
			z4_stat(W, Z4_STAT_FAULT_GAVE_UP);
			return;
		}
		/* schedule_timeout_uninterruptible(1); the fault is retried */
		z4_stat(W, Z4_STAT_FAULT_RETRIES);
		cond_resched();
	}
}

/* The data oracle at a read: the page mapped at addr holds the version
 * last written there. ptl held. */
static void z4_check(struct z4_world *W, unsigned addr, struct weft_page *page)
{
	uint32_t want = W->truth[addr];
	uint32_t got = READ_ONCE(page->data);

	z4_stat(W, Z4_STAT_CHECKED_READS);
	if (want && got != want) {
		struct weft_access other = weft_last_write(&page->data);
		weft_report2(WEFT_KIND_DATA_LOSS, &page->data,
			     WEFT_SITE(WEFT_EV_NOTE, "read: data == the version last written"),
			     &other,
			     "address %u reads version %#x from page %u; %#x was written there last",
			     addr, got, weft_page_nr(&W->mm, page), want);
	}
}

static void z4_access(struct z4_world *W, unsigned addr, bool write)
{
	struct weft_pgtable *pt = &W->pt;

	z4_fault(W, addr);
	spin_lock(&pt->ptl);
	uint32_t pte = weft_ptep_get(pt, addr);
	if (weft_pte_present(pte)) {
		struct weft_page *page = &W->mm.pages[weft_pte_pfn(pte)];
		if (write) {
			uint32_t v = Z4_WRITTEN | ++W->wseq;
			WRITE_ONCE(page->data, v);
			W->truth[addr] = v;
			z4_stat(W, Z4_STAT_WRITES);
		} else {
			z4_check(W, addr, page);
		}
	}
	spin_unlock(&pt->ptl);
}

/* zap_pte_range(): the unmapped addresses lose their contents. */
static void z4_zap(struct z4_world *W, unsigned addr, unsigned len)
{
	struct weft_swap_info *si = &W->si;
	struct weft_pgtable *pt = &W->pt;
	unsigned end = weft_pte_range_end(pt, addr, len);

	spin_lock(&pt->ptl);
	weft_for_each_pte(pt, i, pte, addr, end) {
		if (weft_pte_present(pte)) {
			weft_zap_present_pte(si, pt, i, pte);
		} else {
			weft_free_swap_and_cache_nr(si, weft_pte_swp_offset(pte), 1);
			weft_set_pte(pt, i, WEFT_PTE_NONE);
		}
		W->truth[i] = 0;
	}
	spin_unlock(&pt->ptl);
}

static void z4_op(struct z4_world *W, const struct weft_op *op)
{
	struct weft_swap_info *si = &W->si;
	unsigned a = op->arg % Z4_PTES;

	switch (op->code) {
	case Z4_OP_SWAPOUT:
		weft_mm_fault_and_swap_out(si, &W->pt, a, 0);
		break;
	case Z4_OP_READ:
	case Z4_OP_WRITE:
		z4_access(W, a, op->code == Z4_OP_WRITE);
		break;
	case Z4_OP_ZAP:
		z4_zap(W, a, 1 + ((op->arg >> 4) & 3));
		break;
	case Z4_OP_RECLAIM:
		weft_mm_reclaim(si, &W->pt, a);
		break;
	}
}

static void z4_thread(void *w, unsigned tid)
{
	struct z4_world *W = w;

	WEFT_FOR_EACH_OP(op, W->ops[tid], W->nr_ops[tid], "z4 workload op")
		z4_op(W, op);
}

/* At quiescence every address holds what was written there last: its
 * page, or the slot its swap PTE names. Then the slot and page audits. */
static void z4_quiesce(void *w)
{
	struct z4_world *W = w;
	struct weft_pgtable *const pts[] = { &W->pt };
	const struct weft_site *s =
		WEFT_SITE(WEFT_EV_NOTE, "audit: memory holds the version last written");

	if (weft_swap_audit_data(&W->si, &W->pt, W->truth, s, ""))
		weft_swap_audit(&W->si, pts, 1);
}

static void z4_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z4_world *W = w;

	if (!weft_swap_pgtables_describe(&W->si, &W->pt, 1, w, off, buf, n))
		weft_mm_describe(&W->mm, w, off, buf, n);
}

WEFT_SWAP_STATS_FN(z4, Z4)

static uint32_t z4_state_bucket(const void *w, uint32_t off)
{
	const struct z4_world *W = w;

	return weft_swap_mm_state_bucket(&W->si, w, off);
}

static const char *const z4_opnames[Z4_NR_OPS] = {
	"swapout", "read", "write", "zap", "reclaim",
};

static const char *const z4_files[] = {
	"z4_swapin_aba.c", "mm_swap.c", "mm_page.c",
	NULL,
};

static const struct weft_variant z4_variants[] = {
	{ "z4", "Z4", true,
	  "do_swap_page() skips the swap cache without pinning the entry: a freed and "
	  "reused slot passes pte_same() and stale data is mapped",
	  "mm/memory.c v6.7 do_swap_page() (SWP_SYNCHRONOUS_IO path)",
	  WEFT_KIND_DATA_LOSS, 1, Z4_BUGGY },
	{ "fix", "Z4-fix", false,
	  "swapcache_prepare() pins the entry before the read; a racer backs off and refaults",
	  "K. Song, [PATCH v4] mm/swap: fix race when skipping swapcache, linux-mm Feb 2024 "
	  "(v6.8-rc)",
	  WEFT_KIND_NONE, 0, Z4_FIXED },
};

/*
 * The trigger (bytes encoding). T0: swapout 0, reclaim 0 (slot 0 at
 * 0x01, out of the swap cache), read 0; T1: write 0; T2: swapout 0.
 * Schedule: preempt T0 at decision 96, right after its read of slot 0
 * into a private page, to T1; when T1 ends run T2 (decision 132, a free
 * switch) instead of T0.
 */
WEFT_SCENARIO_ONE_TRIGGER(z4, 2,
	5,
	0x00 | Z4_OP_SWAPOUT, 0x00,
	0x00 | Z4_OP_RECLAIM, 0x00,
	0x00 | Z4_OP_READ, 0x00,
	0x10 | Z4_OP_WRITE, 0x00,
	0x20 | Z4_OP_SWAPOUT, 0x00,
	/* schedule entries [pos lo][pos hi][b] */
	96, 0, 0,              /* decision 96: to T1 */
	132, 0, 0,             /* decision 132: to T2 */
);

const struct weft_scenario weft_scn_z4_swapin_aba = {
	.name = "z4-swapin-aba",
	.summary = "skip-swapcache swap-in vs slot reuse: pte_same() ABA, silent data loss "
		   "(2024)",
	.source = "mm/memory.c v6.7 do_swap_page(); K. Song, mm/swap: fix race when skipping "
		  "swapcache, Feb 2024",
	WEFT_SCENARIO_ZOO(z4, Z4, Z4_THREADS, 4096, 2),
};
