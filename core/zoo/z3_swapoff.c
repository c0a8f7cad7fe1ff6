/*
 * z3_swapoff.c - ZOO Z3: free_swap_and_cache() vs swapoff(): use-after-free
 * of the swap metadata (2024, CVE-2024-26960).
 *
 * Source: R. Roberts, "mm: swap: fix race between free_swap_and_cache()
 * and swapoff()" (linux-mm, Mar 2024; merged for v6.9-rc, stable 6.8.y),
 * its v1 and the review by D. Hildenbrand and Huang Ying. The model follows
 * mm/swapfile.c of v6.8: free_swap_and_cache(), _swap_info_get(),
 * get_swap_device()/put_swap_device() (si->users, a percpu_ref),
 * swap_page_trans_huge_swapped(), __try_to_reclaim_swap(), swapoff()
 * (del_from_avail_list(), try_to_unuse(), percpu_ref_kill(), the wait on
 * si->comp, then vfree(swap_map) and kvfree(cluster_info)).
 *
 * The race (3 CPUs, 1 preemption; buggy variant):
 *   CPU0 zap_pte_range()            CPU1 kswapd           CPU2 swapoff()
 *   free_swap_and_cache(e0)
 *     _swap_info_get(): no ref
 *     __swap_entry_free(): e0 -> HAS_CACHE
 *     ~~ preempted ~~
 *                                   reclaims the folio:
 *                                   e0, e1 freed,
 *                                   inuse_pages = 0
 *                                                         try_to_unuse(): inuse 0
 *                                                         no users to wait for
 *                                                         frees swap_map, clusters
 *     swap_page_trans_huge_swapped(): lock_cluster(e0) -> use-after-free
 * The fix takes si->users with get_swap_device() for the whole of
 * free_swap_and_cache(): swapoff's wait for users waits for CPU0.
 *
 * The v1 review: the "unused swap offset entry" check of _swap_info_get()
 * cannot move into the device lookup, because a lookup made without the
 * PTE lock (do_swap_page() reads orig_pte locklessly) legitimately races
 * with a free. The model counts such lookups (lookup_unused_entry) and
 * never reports them; the oracle is the poisoned metadata only.
 *
 * Model choices:
 *  - si->users is one atomic word: 2 per reference, bit 0 = killed
 *    (percpu_ref in atomic mode; tryget_live fails once killed).
 *  - SWP_WRITEOK is a gate of the same shape around swap-out: swapoff
 *    closes it and waits for swap-outs in flight before try_to_unuse(), so
 *    every slot allocated before it is visible to try_to_unuse(), as the
 *    kernel's check of SWP_WRITEOK under si->lock in get_swap_pages()
 *    guarantees.
 *  - try_to_unuse(): return at once when inuse_pages is 0; otherwise swap
 *    in every swap PTE (do_swap_page(), as unuse_pte() does the same
 *    work), drop every cached folio whose slots have no count
 *    (folio_free_swap()), cond_resched() and retry until inuse_pages is 0;
 *    -ENOMEM when no page is left (swapoff fails and reinserts the device).
 *  - swap_page_trans_huge_swapped(): the model has no CLUSTER_FLAG_HUGE and
 *    treats every cluster as huge: "still swapped" if any slot of the
 *    cluster has a count (never reclaims too early).
 *  - The swap cache stays readable after swapoff (its lookups find
 *    nothing); swap_map and the clusters (with their locks) are poisoned.
 *  - No swap_slots cache (free_swap_slot() frees at once): swapoff drains
 *    it first in the kernel (disable_swap_slots_cache_lock()).
 *
 * Workload (per thread, from the input): ops on one process's 4 PTEs (few
 * addresses, so that generated workloads meet on them).
 *   swapout a|o<<4  fault an order-o folio at a if unmapped, swap it out
 *   zap     a|l<<4  zap_pte_range() over a .. a+l (free_swap_and_cache())
 *   swapin  a       do_swap_page() at a under get_swap_device()
 *   reclaim a       drop the swap-cache folio of the swap PTE at a
 *   kswapd  s       reclaim the first swap-cache folio from slot s
 *   swapoff         swapoff() of the device
 */
#include <weft/mm/swap.h>
#include <weft/mm/swapin.h>
#include <weft/scenario.h>

#define Z3_THREADS 3
#define Z3_MAX_OPS 8
#define Z3_PAGES 32
#define Z3_SLOTS 32
#define Z3_PTES 4

#define Z3_EINVAL 22
#define Z3_ENOMEM 12
#define Z3_EBUSY 16

/* si->users and the SWP_WRITEOK gate: 2 per reference, bit 0 killed */
#define Z3_REF_ONE 2
#define Z3_REF_DEAD 1

/* W->swp_flags bits */
enum { Z3_SWAPOFF = 0, Z3_GONE = 1 };

enum { Z3_BUGGY, Z3_FIXED };

enum {
	Z3_OP_SWAPOUT,
	Z3_OP_ZAP,
	Z3_OP_SWAPIN,
	Z3_OP_RECLAIM,
	Z3_OP_KSWAPD,
	Z3_OP_SWAPOFF,
	Z3_NR_OPS
};

#define Z3_STATS(X)                                                           \
	X(FREE_CACHE_RECLAIM, "free_swap_and_cache_reclaim")                  \
	X(LOOKUP_UNUSED, "lookup_unused_entry")                               \
	X(GET_DEV_FAIL, "get_swap_device_failed")                             \
	X(SWAPOUT_NOT_WRITEOK, "swapout_device_not_writeok")                  \
	X(SWAPOFF_DONE, "swapoff_done")                                       \
	X(SWAPOFF_FAILED, "swapoff_failed")                                   \
	X(SWAPOFF_UNUSE_ROUNDS, "try_to_unuse_rounds")                        \
	X(SWAPOFF_WAITED, "swapoff_waited_for_users")                         \
	X(SWAPOFF_WAITED_WRITERS, "swapoff_waited_for_swapouts")

enum z3_stat {
#define Z3_STAT_ENUM(e, s) Z3_STAT_##e,
	Z3_STATS(Z3_STAT_ENUM)
#undef Z3_STAT_ENUM
	Z3_NR_STATS
};

static const char *const z3_stat_names[Z3_NR_STATS] = {
#define Z3_STAT_NAME(e, s) s,
	Z3_STATS(Z3_STAT_NAME)
#undef Z3_STAT_NAME
};

struct z3_world {
	unsigned variant;
	/* the decoded workload: written by setup, read-only afterwards */
	unsigned nr_ops[Z3_THREADS];
	struct weft_op ops[Z3_THREADS][Z3_MAX_OPS];
	struct weft_mm mm;
	struct weft_swap_info si;
	struct weft_pgtable pt;
	atomic_t users;              /* si->users */
	atomic_t writers;            /* SWP_WRITEOK: swap-outs in flight */
	unsigned long swp_flags;     /* 1 << Z3_SWAPOFF | 1 << Z3_GONE */
	/* per-thread counters (no sharing, no scheduling points) */
	unsigned long stat[WEFT_MAX_THREADS][Z3_NR_STATS];
};

static inline void z3_stat(struct z3_world *W, enum z3_stat s)
{
	W->stat[weft_current_tid() % WEFT_MAX_THREADS][s]++;
}

static void z3_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z3_world *W = w;

	W->variant = variant;
	weft_workload_copy(wl, Z3_THREADS, Z3_MAX_OPS, W->nr_ops, &W->ops[0][0]);
	weft_mm_init(&W->mm, Z3_PAGES, false);
	weft_swap_init(&W->si, &W->mm, Z3_SLOTS, 0, WEFT_SWAP_FREE_PER_ENTRY);
	weft_pgtable_init(&W->pt, Z3_PTES);
}

/* ---------------------------------------------------- device references */

/* percpu_ref_tryget_live(): fails once the ref is killed. */
static bool z3_ref_tryget_live(atomic_t *ref)
{
	for (;;) {
		int v = atomic_read(ref);
		if (v & Z3_REF_DEAD)
			return false;
		if (atomic_cmpxchg(ref, v, v + Z3_REF_ONE) == v)
			return true;
	}
}

static void z3_ref_put(atomic_t *ref)
{
	atomic_sub(Z3_REF_ONE, ref);
}

/* percpu_ref_kill() and the wait for the last reference (swapoff()'s
 * wait_for_completion(&p->comp)): a cond_resched() loop. */
static void z3_ref_kill_and_wait(struct z3_world *W, atomic_t *ref, enum z3_stat waited)
{
	atomic_add(Z3_REF_DEAD, ref);
	while (atomic_read(ref) != Z3_REF_DEAD) {
		z3_stat(W, waited);
		cond_resched();
	}
}

/* get_swap_device() (v6.8): a live reference on si->users, then the
 * offset check; the metadata stays until put_swap_device(). */
static bool z3_get_swap_device(struct z3_world *W, unsigned off)
{
	if (!z3_ref_tryget_live(&W->users)) {
		z3_stat(W, Z3_STAT_GET_DEV_FAIL);
		return false;
	}
	if (off >= W->si.nr_slots) {
		z3_ref_put(&W->users);
		return false;
	}
	return true;
}

static void z3_put_swap_device(struct z3_world *W)
{
	z3_ref_put(&W->users);
}

/* ------------------------------------------------- free_swap_and_cache */

/* swap_page_trans_huge_swapped() (v6.8), every cluster taken as huge. */
static bool z3_trans_huge_swapped(struct weft_swap_info *si, unsigned off)
{
	struct weft_swap_cluster *ci = &si->ci[off / WEFT_SWAP_CLUSTER];
	unsigned base = off - off % WEFT_SWAP_CLUSTER;
	bool ret = false;

	spin_lock(&ci->lock);
	for (unsigned i = 0; i < WEFT_SWAP_CLUSTER && !ret; i++)
		if (WEFT_SWAP_COUNT(READ_ONCE(si->swap_map[base + i])))
			ret = true;
	spin_unlock(&ci->lock);
	return ret;
}

/*
 * _swap_info_get() (v6.8): the device is used (SWP_USED) and the entry is
 * not free ("Unused swap offset entry", pr_err and NULL); no reference is
 * taken: nothing keeps swapoff from freeing the metadata afterwards.
 */
static bool z3_swap_info_get(struct z3_world *W, unsigned off)
{
	if (test_bit(Z3_GONE, &W->swp_flags) || off >= W->si.nr_slots)
		return false;
	return READ_ONCE(W->si.swap_map[off]) != 0;
}

/* free_swap_and_cache(): true if the entry belonged to a device. */
static bool z3_free_swap_and_cache(struct z3_world *W, unsigned off)
{
	struct weft_swap_info *si = &W->si;

	if (W->variant == Z3_BUGGY) {
		if (!z3_swap_info_get(W, off))
			return false;
	} else {
		if (!z3_get_swap_device(W, off))
			return false;
		/* the check the fix moved here from _swap_info_get(): under
		 * the PTE lock a swap PTE always holds a count */
		if (WARN_ON(!READ_ONCE(si->swap_map[off]))) {
			z3_put_swap_device(W);
			return false;
		}
	}
	unsigned count = weft_swap_free(si, off);   /* __swap_entry_free() */
	if (count == WEFT_SWAP_HAS_CACHE && !z3_trans_huge_swapped(si, off)) {
		z3_stat(W, Z3_STAT_FREE_CACHE_RECLAIM);
		__weft_try_to_reclaim_swap(si, off, WEFT_TTRS_UNMAPPED);
	}
	if (W->variant != Z3_BUGGY)
		z3_put_swap_device(W);
	return true;
}

/* zap_pte_range() of v6.8: entry by entry, the ptl held throughout. */
static void z3_zap(struct z3_world *W, unsigned addr, unsigned len)
{
	struct weft_swap_info *si = &W->si;
	struct weft_pgtable *pt = &W->pt;
	unsigned end = weft_pte_range_end(pt, addr, len);

	spin_lock(&pt->ptl);
	weft_for_each_pte(pt, i, pte, addr, end) {
		if (weft_pte_present(pte)) {
			weft_zap_present_pte(si, pt, i, pte);
			continue;
		}
		if (!z3_free_swap_and_cache(W, weft_pte_swp_offset(pte)))
			weft_report(WEFT_KIND_BUG_ON, &pt->pte[i],
				    WEFT_SITE(WEFT_EV_NOTE, "zap_pte_range(): print_bad_pte()"),
				    "pte %u: swap entry %u of a device that is gone or free", i,
				    weft_pte_swp_offset(pte));
		weft_set_pte(pt, i, WEFT_PTE_NONE);
	}
	spin_unlock(&pt->ptl);
}

/* ------------------------------------------------------ swap-in, -out */

/* do_swap_page(): orig_pte read without the ptl, then get_swap_device()
 * on its entry. */
static void z3_swapin(struct z3_world *W, unsigned addr)
{
	struct weft_swap_info *si = &W->si;
	uint32_t orig = weft_ptep_get(&W->pt, addr);

	/* handle_pte_fault(): only a swap orig_pte leads to do_swap_page()
	 * and the device; weft_mm_swap_in() reads the PTE again, so it runs
	 * only under the device reference (found by libFuzzer: a PTE present
	 * here, swapped out and the device swapped off before the re-read) */
	if (weft_pte_none(orig)) {
		weft_mm_fault_anon(si, &W->pt, addr, 0);
		return;
	}
	if (!weft_is_swap_pte(orig))
		return;
	unsigned off = weft_pte_swp_offset(orig);
	if (!z3_get_swap_device(W, off))
		return;   /* the kernel: the entry is gone, the fault is retried */
	/* v1 of the fix: the "unused entry" check at lookup. A free of the
	 * entry under the ptl (zap, another swap-in) can precede it: legal. */
	if (!READ_ONCE(si->swap_map[off]))
		z3_stat(W, Z3_STAT_LOOKUP_UNUSED);
	weft_mm_swap_in(si, &W->pt, addr);
	z3_put_swap_device(W);
}

static void z3_swapout(struct z3_world *W, unsigned addr, unsigned order)
{
	if (weft_pte_none(weft_ptep_get(&W->pt, addr)))
		weft_mm_fault_anon(&W->si, &W->pt, addr, order);
	/* get_swap_pages(): only from a SWP_WRITEOK device */
	if (!z3_ref_tryget_live(&W->writers)) {
		z3_stat(W, Z3_STAT_SWAPOUT_NOT_WRITEOK);
		return;
	}
	weft_mm_swap_out(&W->si, &W->pt, addr);
	z3_ref_put(&W->writers);
}

/* ------------------------------------------------------------- swapoff */

/* try_to_unuse() */
static int z3_try_to_unuse(struct z3_world *W)
{
	struct weft_swap_info *si = &W->si;
	struct weft_pgtable *pt = &W->pt;

	for (;;) {
		if (!READ_ONCE(si->inuse_pages))
			return 0;
		z3_stat(W, Z3_STAT_SWAPOFF_UNUSE_ROUNDS);
		/* unuse_mm(): every swap PTE of the process */
		for (unsigned a = 0; a < pt->nr; a++) {
			if (!weft_is_swap_pte(weft_ptep_get(pt, a)))
				continue;
			if (weft_mm_swap_in(si, pt, a) == -Z3_ENOMEM)
				return -Z3_ENOMEM;
		}
		/* find_next_to_unuse() + folio_free_swap() */
		for (unsigned s = 0; s < si->nr_slots; s++)
			if (READ_ONCE(si->swap_map[s]))
				__weft_try_to_reclaim_swap(si, s, WEFT_TTRS_ANYWAY);
		if (!READ_ONCE(si->inuse_pages))
			return 0;
		cond_resched();
	}
}

static int z3_swapoff(struct z3_world *W)
{
	struct weft_swap_info *si = &W->si;

	/* one swapoff at a time, none of a device already gone */
	if (test_and_set_bit(Z3_SWAPOFF, &W->swp_flags))
		return -Z3_EBUSY;
	if (test_bit(Z3_GONE, &W->swp_flags))
		return -Z3_EINVAL;
	/* del_from_avail_list(); p->flags &= ~SWP_WRITEOK */
	z3_ref_kill_and_wait(W, &W->writers, Z3_STAT_SWAPOFF_WAITED_WRITERS);
	int err = z3_try_to_unuse(W);
	if (err) {
		/* reinsert_swap_info() */
		atomic_sub(Z3_REF_DEAD, &W->writers);
		clear_bit(Z3_SWAPOFF, &W->swp_flags);
		z3_stat(W, Z3_STAT_SWAPOFF_FAILED);
		return err;
	}
	/* percpu_ref_kill(&p->users); synchronize_rcu();
	 * wait_for_completion(&p->comp) */
	z3_ref_kill_and_wait(W, &W->users, Z3_STAT_SWAPOFF_WAITED);
	/* p->flags = 0 under swap_lock and si->lock, then
	 * vfree(swap_map); kvfree(cluster_info) */
	spin_lock(&si->lock);
	set_bit(Z3_GONE, &W->swp_flags);
	spin_unlock(&si->lock);
	weft_poison(si->swap_map, sizeof(si->swap_map),
		    WEFT_SITE(WEFT_EV_FREE, "swapoff(): vfree(swap_map)"));
	weft_poison(si->ci, sizeof(si->ci),
		    WEFT_SITE(WEFT_EV_FREE, "swapoff(): kvfree(cluster_info)"));
	z3_stat(W, Z3_STAT_SWAPOFF_DONE);
	return 0;
}

/* ------------------------------------------------------------ threads */

static void z3_op(struct z3_world *W, const struct weft_op *op)
{
	struct weft_swap_info *si = &W->si;
	unsigned a = op->arg % Z3_PTES;

	switch (op->code) {
	case Z3_OP_SWAPOUT:
		z3_swapout(W, a, (op->arg >> 4) & 3);
		break;
	case Z3_OP_ZAP:
		z3_zap(W, a, 1 + ((op->arg >> 4) & 3));
		break;
	case Z3_OP_SWAPIN:
		z3_swapin(W, a);
		break;
	case Z3_OP_RECLAIM:
		weft_mm_reclaim(si, &W->pt, a);
		break;
	case Z3_OP_KSWAPD:
		weft_mm_reclaim_scan(si, op->arg % si->nr_slots);
		break;
	case Z3_OP_SWAPOFF:
		z3_swapoff(W);
		break;
	}
}

static void z3_thread(void *w, unsigned tid)
{
	struct z3_world *W = w;

	WEFT_FOR_EACH_OP(op, W->ops[tid], W->nr_ops[tid], "z3 workload op")
		z3_op(W, op);
}

/* ------------------------------------------------------------- audits */

static void z3_quiesce(void *w)
{
	struct z3_world *W = w;
	struct weft_swap_info *si = &W->si;
	struct weft_pgtable *const pts[] = { &W->pt };
	const struct weft_site *inv = WEFT_SITE(WEFT_EV_NOTE, "swapoff model invariant");
	int users = weft_peek(W->users.counter), writers = weft_peek(W->writers.counter);

	if (users & ~Z3_REF_DEAD || writers & ~Z3_REF_DEAD) {
		weft_report(WEFT_KIND_ASSERT, &W->users, inv,
			    "device references held at quiescence: users %d, writers %d",
			    users / Z3_REF_ONE, writers / Z3_REF_ONE);
		return;
	}
	if (weft_peek(W->swp_flags) & (1ul << Z3_GONE)) {
		/* after swapoff no PTE and no cached folio may refer to it */
		for (unsigned a = 0; a < W->pt.nr; a++)
			if (weft_is_swap_pte(weft_peek(W->pt.pte[a]))) {
				weft_report(WEFT_KIND_SLOT_LEAK, &W->pt.pte[a], inv,
					    "pte %u refers to swap slot %u of a swapped-off device",
					    a, weft_pte_swp_offset(weft_peek(W->pt.pte[a])));
				return;
			}
		for (unsigned s = 0; s < si->nr_slots; s++)
			if (weft_peek(si->cache[s])) {
				weft_report(WEFT_KIND_SLOT_LEAK, &si->cache[s], inv,
					    "swap cache slot %u still holds a folio after swapoff", s);
				return;
			}
	}
	/* the slot and page audits (the freed map reads as all free) */
	weft_swap_audit(si, pts, 1);
}

/* A gate counter in Z3_REF_ONE units, with its Z3_REF_DEAD bit. */
static void z3_describe_ref(const atomic_t *ref, const char *name, const char *holders,
			    const char *dead, char *buf, size_t n)
{
	int v = weft_peek(ref->counter);

	snprintf(buf, n, "%s (%d %s%s)", name, v / Z3_REF_ONE, holders, v & Z3_REF_DEAD ? dead : "");
}

static void z3_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z3_world *W = w;
	uintptr_t o = off;

	if (o >= offsetof(struct z3_world, users) &&
	    o < offsetof(struct z3_world, users) + sizeof(W->users))
		z3_describe_ref(&W->users, "si->users", "refs", ", killed", buf, n);
	else if (o >= offsetof(struct z3_world, writers) &&
		 o < offsetof(struct z3_world, writers) + sizeof(W->writers))
		z3_describe_ref(&W->writers, "SWP_WRITEOK gate", "swap-outs", ", closed", buf, n);
	else if (o >= offsetof(struct z3_world, swp_flags) &&
		 o < offsetof(struct z3_world, swp_flags) + sizeof(W->swp_flags))
		snprintf(buf, n, "si->flags");
	else if (!weft_swap_pgtables_describe(&W->si, &W->pt, 1, w, off, buf, n))
		weft_mm_describe(&W->mm, w, off, buf, n);
}

WEFT_SWAP_STATS_FN(z3, Z3)

static uint32_t z3_state_bucket(const void *w, uint32_t off)
{
	const struct z3_world *W = w;

	bool is_users = off == offsetof(struct z3_world, users);

	if (is_users || off == offsetof(struct z3_world, writers)) {
		int v = is_users ? weft_peek(W->users.counter) : weft_peek(W->writers.counter);
		int refs = v / Z3_REF_ONE;
		return 0x10000u | (uint32_t)is_users << 4 | (refs > 1 ? 2u : (unsigned)refs) << 1 |
		       (unsigned)(v & Z3_REF_DEAD);
	}
	if (off == offsetof(struct z3_world, swp_flags))
		return 0x20000u | (uint32_t)weft_peek(W->swp_flags);
	uint32_t b = weft_swap_state_bucket(&W->si, w, off);
	return b ? b : weft_mm_state_bucket(&W->mm, w, off);
}

static const char *const z3_opnames[Z3_NR_OPS] = {
	"swapout", "zap", "swapin", "reclaim", "kswapd", "swapoff",
};

static const char *const z3_files[] = {
	"z3_swapoff.c", "mm_swap.c", "mm_page.c",
	NULL,
};

static const struct weft_variant z3_variants[] = {
	{ "z3", "Z3", true,
	  "free_swap_and_cache() takes no device reference: swapoff frees swap_map and the "
	  "clusters under it",
	  "mm/swapfile.c v6.8 free_swap_and_cache() with _swap_info_get(); CVE-2024-26960",
	  WEFT_KIND_USE_AFTER_FREE, 1, Z3_BUGGY },
	{ "fix", "Z3-fix", false,
	  "free_swap_and_cache() under get_swap_device()/put_swap_device(): swapoff waits",
	  "R. Roberts, mm: swap: fix race between free_swap_and_cache() and swapoff(), "
	  "linux-mm Mar 2024 (v6.9-rc)",
	  WEFT_KIND_NONE, 0, Z3_FIXED },
};

/*
 * The trigger (bytes encoding). T0: swapout 0 order 1 (slots 0, 1 at
 * 0x41, folio cached), zap 1 (slot 1 -> 0x40, slot 0 still counted: no
 * reclaim), zap 0; T1: kswapd 0; T2: swapoff. Schedule: preempt T0 at
 * decision 99, right after __swap_entry_free() left slot 0 at 0x40, to T1;
 * when T1 ends run T2 (decision 142, a free switch) instead of T0.
 */
WEFT_SCENARIO_ONE_TRIGGER(z3, 2,
	5,
	0x00 | Z3_OP_SWAPOUT, 0x10,
	0x00 | Z3_OP_ZAP, 0x01,
	0x00 | Z3_OP_ZAP, 0x00,
	0x10 | Z3_OP_KSWAPD, 0x00,
	0x20 | Z3_OP_SWAPOFF, 0x00,
	/* schedule entries [pos lo][pos hi][b] */
	99, 0, 0,              /* decision 99: to T1 */
	142, 0, 0,             /* decision 142: to T2 */
);

const struct weft_scenario weft_scn_z3_swapoff = {
	.name = "z3-swapoff",
	.summary = "free_swap_and_cache() vs swapoff(): use-after-free of swap_map "
		   "(2024, CVE-2024-26960)",
	.source = "mm/swapfile.c v6.8 free_swap_and_cache(), swapoff(); R. Roberts, linux-mm "
		  "Mar 2024",
	WEFT_SCENARIO_ZOO(z3, Z3, Z3_THREADS, 4096, 2),
};
