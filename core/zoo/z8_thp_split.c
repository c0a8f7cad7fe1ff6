/*
 * z8_thp_split.c - ZOO Z8: a THP split publishes tail pages before they
 * are initialised (2018): a speculative getter's PG_waiters is erased by
 * the split's non-atomic flags store, and the unlock wakes nobody.
 *
 * Source: K. Khlebnikov, "mm/huge_memory.c: reorder operations in
 * __split_huge_page_tail()" (v4.17, Feb 2018; v1 "split should clone page
 * flags before unfreezing pageref", and the review that clear_compound_
 * head() must also precede the unfreeze). Before it, __split_huge_page_
 * tail() raised the tail's count first (page_ref_inc()/page_ref_add(),
 * since 8df651c7059e "thp: cleanup split_huge_page()", v4.5), then rebuilt
 * page_tail->flags with a plain read-modify-write of the whole word, then
 * cleared the compound head and set mapping and index. Since 62906027091f
 * "mm: add PageWaiters indicating tasks are waiting for a page bit" (v4.10)
 * a sleeper in lock_page() sets PG_waiters in that same word, and
 * unlock_page() wakes only when it reads PG_waiters back. The fix rebuilds
 * flags, compound head, mapping and index first and publishes the page
 * last with page_ref_unfreeze() (release semantics).
 *
 * The model, on the installed kit (<weft/mm/folio.h> split steps,
 * <weft/mm/pagelock.h>): an order-2 THP (pages 0..3) in the swap cache
 * (mapping = the swap space, private = entry; the split gives tail i the
 * entry + i, as it gives a page-cache tail its index), head count 2 (the
 * cache and the splitter), locked by its splitter T0 before the run
 * (split_huge_page() is called with the page locked). The page lock of a
 * compound page covers every subpage; the kit keeps PG_locked per page, so
 * setup sets it in each tail's own word too (the clone of the head's
 * flags would set it anyway): a getter that pins a tail and locks it
 * sleeps on the tail's word from the moment the tail's count is non-zero.
 *
 *   T0  split: freeze the head at 2; for each tail from the last:
 *         z8   unfreeze(2), flags, mapping/entry, compound head
 *         fix  flags, mapping/entry, compound head, unfreeze(2)
 *       then the head stops being compound and is unfrozen; every subpage
 *       is unlocked and the splitter's reference dropped (each page keeps
 *       the cache's). Then T0's workload ops.
 *   T1  its workload ops.
 * Ops (arg: subpage s = 1 + arg % 3, a tail):
 *   lock s  a pfn walker: get_page_unless_zero(s), lock_page(s) on the page
 *           it pinned (a pinned page is not a tail: the invariant the fix
 *           establishes), VM_BUG_ON unless mapping and entry are the
 *           page's own, unlock_page, put_page (through compound_head()).
 *   wait s  get_page_unless_zero(s), wait_on_page_locked(s), put_page.
 * Either may find the count frozen and give up (no retry loop).
 *
 * The race (1 preemption): T0 unfreezes tail 3 and loads its flags; T1
 * pins tail 3 and sleeps in lock_page(), setting PG_waiters; T0 stores the
 * rebuilt flags (PG_locked kept from the head, PG_waiters gone), finishes
 * and unlocks tail 3: no waiter bit, no wake-up. T1 sleeps for ever with
 * nobody left to wake it: the machine's lost-wakeup report.
 */
#include <weft/mm/folio.h>
#include <weft/mm/pagelock.h>
#include <weft/scenario.h>

#define Z8_THREADS 2
#define Z8_MAX_OPS 8
#define Z8_ORDER 2
#define Z8_NR (1u << Z8_ORDER)
#define Z8_ENTRY 0x40ul          /* the head's swap entry */
#define Z8_REFS 2                /* the swap cache's and the splitter's */

enum { Z8_OP_LOCK, Z8_OP_WAIT, Z8_NR_OPS };
enum { Z8_BUGGY, Z8_FIX, Z8_NR_VARIANTS };

struct z8_thread {
	unsigned nr_ops;
	struct weft_op ops[Z8_MAX_OPS];
};

struct z8_world {
	unsigned variant;
	struct weft_mm mm;
	struct weft_page *head;
	int swap_space;                 /* the address_space the THP is in */
	struct z8_thread th[Z8_THREADS];
	/* per-thread counters (no sharing, no points) */
	uint32_t nr_pinned[Z8_THREADS], nr_missed[Z8_THREADS], nr_split_tails[Z8_THREADS];
};

static const struct weft_variant z8_variants[] = {
	{ "z8", "Z8", true,
	  "__split_huge_page_tail() unfreezes the tail before its non-atomic flags store: "
	  "a getter's PG_waiters is erased, the unlock wakes nobody",
	  "mm/huge_memory.c v4.16 __split_huge_page_tail() (8df651c7059e order, with "
	  "62906027091f PG_waiters); fixed in v4.17 by \"mm/huge_memory.c: reorder "
	  "operations in __split_huge_page_tail()\" (Feb 2018)",
	  WEFT_KIND_LOST_WAKEUP, 1, Z8_BUGGY },
	{ "fix", "Z8-fix", false,
	  "flags, mapping/entry and compound head first, then page_ref_unfreeze()",
	  "v4.17 \"mm/huge_memory.c: reorder operations in __split_huge_page_tail()\"",
	  WEFT_KIND_NONE, 0, Z8_FIX },
};

static void z8_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z8_world *W = w;
	struct weft_page *h;

	W->variant = variant < Z8_NR_VARIANTS ? variant : Z8_FIX;
	weft_mm_init(&W->mm, Z8_NR, false);
	h = W->head = weft_compound_alloc(&W->mm, Z8_ORDER);
	weft_set_page_count(&W->mm, h, Z8_REFS);
	weft_folio_set(h, uptodate);
	weft_folio_set(h, swapcache);
	weft_folio_set(h, locked);      /* split_huge_page(): the caller holds the lock */
	WRITE_ONCE(h->mapping, (void *)&W->swap_space);
	WRITE_ONCE(h->private, Z8_ENTRY);
	for (unsigned i = 1; i < Z8_NR; i++)
		weft_folio_set(h + i, locked);   /* the compound lock, in each word */
	for (unsigned t = 0; t < Z8_THREADS; t++) {
		W->th[t].nr_ops = wl->nr_ops[t] < Z8_MAX_OPS ? wl->nr_ops[t] : Z8_MAX_OPS;
		for (unsigned i = 0; i < W->th[t].nr_ops; i++)
			W->th[t].ops[i] = wl->ops[t][i];
	}
}

/* __split_huge_page() of the locked THP: T0's prologue. */
static void z8_split(struct z8_world *W, unsigned tid)
{
	struct weft_mm *mm = &W->mm;
	struct weft_page *h = W->head;

	weft_note(WEFT_SITE(WEFT_EV_OP, "split_huge_page()"), 0, 0);
	if (!weft_folio_ref_freeze(mm, h, Z8_REFS)) {
		/* can_split_huge_page() failed (nobody pins the head here) */
		for (unsigned i = 0; i < Z8_NR; i++)
			weft_folio_unlock(h + i);
		return;
	}
	for (unsigned i = Z8_NR; i-- > 1;) {
		struct weft_page *t = h + i;

		if (W->variant == Z8_BUGGY) {
			/* v4.16: the count first; the page is reachable from here */
			weft_folio_ref_unfreeze(mm, t, Z8_REFS);
			weft_split_tail_flags(mm, h, t);
			weft_split_tail_mapping(mm, h, t, i);
			weft_clear_compound_head(mm, t);
		} else {
			weft_split_tail_flags(mm, h, t);
			weft_split_tail_mapping(mm, h, t, i);
			weft_clear_compound_head(mm, t);
			weft_folio_ref_unfreeze(mm, t, Z8_REFS);
		}
		W->nr_split_tails[tid]++;
	}
	/* ClearPageCompound(head), then the head's count */
	clear_bit(WEFT_PG_head, &h->flags);
	WRITE_ONCE(h->order, (uint8_t)0);
	weft_folio_ref_unfreeze(mm, h, Z8_REFS);
	/* each subpage: unlock_page(), put_page() of the splitter's reference */
	for (unsigned i = 0; i < Z8_NR; i++) {
		weft_folio_unlock(h + i);
		weft_folio_put(mm, h + i);
	}
}

/* A speculative getter on subpage s (see the header). */
static void z8_get(struct z8_world *W, unsigned tid, unsigned code, unsigned s)
{
	struct weft_mm *mm = &W->mm;
	struct weft_page *p = W->head + s;

	if (!weft_get_page_unless_zero(mm, p)) {
		W->nr_missed[tid]++;
		return;
	}
	W->nr_pinned[tid]++;
	if (code == Z8_OP_LOCK) {
		weft_folio_lock(p);
		if (READ_ONCE(p->mapping) != (void *)&W->swap_space ||
		    READ_ONCE(p->private) != Z8_ENTRY + s)
			weft_report(WEFT_KIND_BUG_ON, &p->private,
				    WEFT_SITE(WEFT_EV_NOTE,
					      "VM_BUG_ON_PAGE(page_private(page) != entry.val)"),
				    "locked page %u has mapping %s and entry %#lx, not entry %#lx",
				    s, weft_peek(p->mapping) ? "set" : "NULL",
				    (unsigned long)weft_peek(p->private), Z8_ENTRY + s);
		weft_folio_unlock(p);
	} else {
		weft_folio_wait_locked(p);
	}
	/* put_page(): the folio compound_head() names */
	weft_folio_put(mm, weft_compound_head(mm, p));
}

static void z8_thread(void *w, unsigned tid)
{
	struct z8_world *W = w;
	struct z8_thread *th = &W->th[tid];

	if (tid == 0)
		z8_split(W, tid);
	WEFT_FOR_EACH_OP(op, th->ops, th->nr_ops, "z8 workload op")
		z8_get(W, tid, op->code % Z8_NR_OPS, 1 + op->arg % (Z8_NR - 1));
}

/* Every subpage ends an order-0 page with the cache's reference, unlocked,
 * with its own entry. PG_waiters may stay set with nobody waiting (a
 * waiter that found the bit clear after setting it, as in the kernel: the
 * next folio_wake_bit() clears it), so it is not audited. */
static void z8_quiesce(void *w)
{
	struct z8_world *W = w;
	struct weft_mm *mm = &W->mm;

	for (unsigned i = 0; i < Z8_NR; i++) {
		struct weft_page *p = W->head + i;
		int count = weft_page_peek_count(mm, p);
		unsigned long fl = weft_peek(p->flags);

		if (count != 1 ||
		    (fl & (1ul << WEFT_PG_locked | 1ul << WEFT_PG_tail | 1ul << WEFT_PG_head)) ||
		    weft_peek(p->private) != Z8_ENTRY + i) {
			weft_report(WEFT_KIND_ASSERT, &p->flags,
				    WEFT_SITE(WEFT_EV_NOTE, "split THP audit"),
				    "subpage %u after the split: count %d, flags %#lx, entry %#lx",
				    i, count, fl, (unsigned long)weft_peek(p->private));
			return;
		}
	}
}

static void z8_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z8_world *W = w;

	weft_mm_describe(&W->mm, w, off, buf, n);
}

static unsigned z8_stats(const void *w, const char **names, uint64_t *vals, unsigned max)
{
	const struct z8_world *W = w;
	uint64_t v[3] = { 0, 0, 0 };

	for (unsigned t = 0; t < Z8_THREADS; t++) {
		v[0] += W->nr_split_tails[t];
		v[1] += W->nr_pinned[t];
		v[2] += W->nr_missed[t];
	}
	if (max < 3)
		return 0;
	names[0] = "split_tails";
	names[1] = "speculative_pins";
	names[2] = "speculative_misses";
	for (unsigned i = 0; i < 3; i++)
		vals[i] = v[i];
	return 3;
}

/* The kit's page bucket, plus the bits this race turns on: PG_locked,
 * PG_waiters, PG_tail of the page written. */
static uint32_t z8_state_bucket(const void *w, uint32_t off)
{
	const struct z8_world *W = w;
	uint32_t b = weft_mm_state_bucket(&W->mm, w, off);
	size_t base = (size_t)((const char *)W->mm.pages - (const char *)w);
	unsigned long fl;

	if (!b || off < base)
		return b;
	fl = weft_peek(W->mm.pages[(off - base) / sizeof(struct weft_page)].flags);
	return b | (uint32_t)(((fl >> WEFT_PG_locked) & 1) | ((fl >> WEFT_PG_waiters) & 1) << 1 |
			      ((fl >> WEFT_PG_tail) & 1) << 2) << 16;
}

static const char *const z8_opnames[Z8_NR_OPS] = { "lock", "wait" };

static const char *const z8_files[] = { "z8_thp_split.c", "mm_folio.c", "mm_page.c",
					"mm_pagelock.c", NULL };

/*
 * Trigger (found by dfs bound 1 on this workload): T1 locks tail 3 (the
 * first the split handles) once; one preemption of T0 right after it
 * unfroze tail 3 and loaded its flags. The fix gets the same input.
 */
WEFT_SCENARIO_ONE_TRIGGER(z8, Z8_NR_VARIANTS,
	1, (uint8_t)(1 << 4 | Z8_OP_LOCK), 2,
	0x04, 0x00, 0x00,       /* decision 4: T1 runs instead of T0 */
);

const struct weft_scenario weft_scn_z8_thp_split = {
	.name = "z8-thp-split",
	.summary = "THP split unfreezes a tail before its non-atomic flags store: a "
		   "getter's PG_waiters is erased, a lost wakeup (2018)",
	.source = "mm/huge_memory.c v4.16 __split_huge_page_tail(); v4.17 \"mm/huge_memory.c: "
		  "reorder operations in __split_huge_page_tail()\"",
	WEFT_SCENARIO_ZOO(z8, Z8, Z8_THREADS, 256, 1),
};
