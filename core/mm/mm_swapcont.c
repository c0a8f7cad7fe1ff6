/*
 * mm_swapcont.c - swap count continuation, after mm/swapfile.c of v4.14-rc
 * (__swap_duplicate(), swap_duplicate(), __swap_entry_free(),
 * add_swap_count_continuation(), swap_count_continued()) and the fix
 * 2628bd6fc052 "mm, swap: Fix race between swap count continuation
 * operations" (H. Ying, Oct 2017), which adds si->cont_lock. See
 * <weft/mm/swapcont.h> for the encoding and the locks.
 *
 * Locks, outer to inner: si->lock -> cluster lock -> cont_lock (fixed only).
 * The continuation lists are protected by si->lock in the pre-4.14 scheme
 * and by nothing but the walker's own cluster lock after the cluster-lock
 * change: that is the race.
 */
#define WEFT_KIT_INTERNAL 1
#include <weft/mm/swapcont.h>

#define SWAPC_NO_SLOT ((unsigned)-1)

static unsigned page_of(unsigned off)
{
	return off / WEFT_SWAPC_PAGE_SLOTS;
}

static unsigned cluster_of(const struct weft_swapc *si, unsigned off)
{
	return off / si->cluster;
}

void weft_swapc_init(struct weft_swapc *si, unsigned nr_slots, unsigned cluster,
		     uint8_t map_max, uint8_t cont_max, bool cont_lock)
{
	if (!WEFT_CHECK_WORLD(si, "weft_swapc_init()"))
		return;
	si->nr_slots = nr_slots > WEFT_SWAPC_MAX_SLOTS ? WEFT_SWAPC_MAX_SLOTS : nr_slots;
	si->cluster = cluster ? cluster : 1;
	si->map_max = map_max;
	si->cont_max = cont_max;
	si->cont_lock_on = cont_lock;
	for (unsigned s = 0; s < si->nr_slots; s++)
		si->map[page_of(s)].bytes[s % WEFT_SWAPC_PAGE_SLOTS] = 1;
}

/* alloc_page() / __free_page() of a continuation page (no lock held). */
static struct weft_swapc_page *cont_alloc(struct weft_swapc *si)
{
	for (unsigned i = 0; i < WEFT_SWAPC_MAX_CONT; i++)
		if (!test_and_set_bit(i, &si->cont_used))
			return &si->cont[i];
	return NULL;
}

static void cont_free(struct weft_swapc *si, struct weft_swapc_page *p)
{
	clear_bit((unsigned)(p - si->cont), &si->cont_used);
}

static void cont_lock(struct weft_swapc *si)
{
	if (si->cont_lock_on)
		spin_lock(&si->cont_lock);
}

static void cont_unlock(struct weft_swapc *si)
{
	if (si->cont_lock_on)
		spin_unlock(&si->cont_lock);
}

/* list_entry(l, struct page, lru) for a pointer a walk just loaded: one
 * that is not a swap_map or continuation page's lru (an uninitialised
 * link, a torn insert) is where the kernel would oops. */
static struct weft_swapc_page *walk_page(struct weft_swapc *si, struct weft_list_head *l)
{
	for (unsigned i = 0; i < WEFT_SWAPC_MAX_PAGES; i++)
		if (l == &si->map[i].lru)
			return &si->map[i];
	for (unsigned i = 0; i < WEFT_SWAPC_MAX_CONT; i++)
		if (l == &si->cont[i].lru)
			return &si->cont[i];
	weft_report(WEFT_KIND_LIST_CORRUPTION, NULL,
		    WEFT_SITE(WEFT_EV_NOTE, "swap_count_continued: list_entry()"),
		    "continuation walk followed a link to no page (%p)", (void *)l);
	return &si->map[0];   /* not reached from a model thread */
}
#define lru_page(l) walk_page(si, (l))

/*
 * swap_count_continued(): count is the swap_map byte (HAS_CACHE off);
 * returns true if the continuation absorbed the increment (the caller
 * stores COUNT_CONTINUED) or, decrementing, if the count stays continued.
 * Called with the slot's cluster lock held.
 */
static bool swap_count_continued(struct weft_swapc *si, unsigned off, uint8_t count)
{
	struct weft_swapc_page *head = &si->map[page_of(off)];
	struct weft_swapc_page *page;
	unsigned o = off % WEFT_SWAPC_PAGE_SLOTS;
	bool ret;

	if (READ_ONCE(head->private) != WEFT_SWAPC_SWP_CONTINUED) {
		BUG_ON(count & WEFT_SWAPC_COUNT_CONTINUED);
		return false;           /* need to add count continuation */
	}
	cont_lock(si);
	si->nr_continued[weft_current_tid()]++;
	page = lru_page(READ_ONCE(head->lru.next));

	if (count == si->map_max)       /* initial increment from swap_map */
		goto init_map;          /* jump over SWAP_CONT_MAX checks */

	if (count == (si->map_max | WEFT_SWAPC_COUNT_CONTINUED)) {   /* incrementing */
		/* think of how you add 1 to 999 */
		while (READ_ONCE(page->bytes[o]) == (si->cont_max | WEFT_SWAPC_COUNT_CONTINUED)) {
			page = lru_page(READ_ONCE(page->lru.next));
			BUG_ON(page == head);
		}
		if (READ_ONCE(page->bytes[o]) == si->cont_max) {
			page = lru_page(READ_ONCE(page->lru.next));
			if (page == head) {
				ret = false;    /* add count continuation */
				goto out;
			}
init_map:
			WRITE_ONCE(page->bytes[o], 0);   /* we didn't zero the page */
		}
		WRITE_ONCE(page->bytes[o], READ_ONCE(page->bytes[o]) + 1);
		page = lru_page(READ_ONCE(page->lru.prev));
		while (page != head) {
			WRITE_ONCE(page->bytes[o], WEFT_SWAPC_COUNT_CONTINUED);
			page = lru_page(READ_ONCE(page->lru.prev));
		}
		ret = true;                     /* incremented */
	} else {                                /* decrementing */
		/* think of how you subtract 1 from 1000 */
		BUG_ON(count != WEFT_SWAPC_COUNT_CONTINUED);
		while (READ_ONCE(page->bytes[o]) == WEFT_SWAPC_COUNT_CONTINUED) {
			page = lru_page(READ_ONCE(page->lru.next));
			BUG_ON(page == head);
		}
		uint8_t d = READ_ONCE(page->bytes[o]);
		BUG_ON(d == 0);
		WRITE_ONCE(page->bytes[o], d - 1);
		if (d - 1 == 0)
			count = 0;
		page = lru_page(READ_ONCE(page->lru.prev));
		while (page != head) {
			WRITE_ONCE(page->bytes[o], si->cont_max | count);
			count = WEFT_SWAPC_COUNT_CONTINUED;
			page = lru_page(READ_ONCE(page->lru.prev));
		}
		ret = count == WEFT_SWAPC_COUNT_CONTINUED;
	}
out:
	cont_unlock(si);
	return ret;
}

/* __swap_duplicate(si, entry, 1): 0, -ENOMEM (a continuation is needed),
 * -EINVAL (not in use or beyond the encoding). */
static int __swap_duplicate(struct weft_swapc *si, unsigned off)
{
	spinlock_t *ci = &si->ci[cluster_of(si, off)];
	uint8_t *mp = &si->map[page_of(off)].bytes[off % WEFT_SWAPC_PAGE_SLOTS];
	int err = 0;

	spin_lock(ci);
	uint8_t count = READ_ONCE(*mp);
	uint8_t has_cache = count & WEFT_SWAPC_HAS_CACHE;
	count &= (uint8_t)~WEFT_SWAPC_HAS_CACHE;
	if (!count) {
		err = -22;
	} else if ((count & ~WEFT_SWAPC_COUNT_CONTINUED) < si->map_max) {
		count += 1;
	} else if ((count & ~WEFT_SWAPC_COUNT_CONTINUED) > si->map_max) {
		err = -22;
	} else if (swap_count_continued(si, off, count)) {
		count = WEFT_SWAPC_COUNT_CONTINUED;
	} else {
		err = -12;
	}
	WRITE_ONCE(*mp, count | has_cache);
	spin_unlock(ci);
	return err;
}

/*
 * add_swap_count_continuation(): a page for the next digit of slot off,
 * linked at the tail of its swap_map page's list unless a page with room
 * for this slot is already there. 0, or -ENOMEM (no page).
 */
static int add_swap_count_continuation(struct weft_swapc *si, unsigned off)
{
	struct weft_swapc_page *head, *page, *list_page;
	spinlock_t *ci = &si->ci[cluster_of(si, off)];
	unsigned o = off % WEFT_SWAPC_PAGE_SLOTS;
	uint8_t count;
	int ret = 0;

	page = cont_alloc(si);                  /* alloc_page(), no lock held */
	spin_lock(&si->lock);                   /* swap_info_get() */
	spin_lock(ci);
	count = READ_ONCE(si->map[page_of(off)].bytes[o]) & (uint8_t)~WEFT_SWAPC_HAS_CACHE;
	if ((count & ~WEFT_SWAPC_COUNT_CONTINUED) != si->map_max)
		goto out;                       /* freed or decremented meanwhile */
	if (!page) {
		ret = -12;
		goto out;
	}
	head = &si->map[page_of(off)];
	cont_lock(si);
	/* page allocation does not initialise the page's lru field, but it
	 * does always reset its private field */
	if (!READ_ONCE(head->private)) {
		BUG_ON(count & WEFT_SWAPC_COUNT_CONTINUED);
		weft_list_init(&head->lru);
		WRITE_ONCE(head->private, WEFT_SWAPC_SWP_CONTINUED);
	}
	for (list_page = lru_page(READ_ONCE(head->lru.next)); list_page != head;
	     list_page = lru_page(READ_ONCE(list_page->lru.next))) {
		/* the previous map said no continuation, but we found a
		 * continuation page: free our allocation and use this one */
		if (!(count & WEFT_SWAPC_COUNT_CONTINUED))
			goto out_unlock_cont;
		count = READ_ONCE(list_page->bytes[o]);
		/* this continuation count has room: use it */
		if ((count & ~WEFT_SWAPC_COUNT_CONTINUED) != si->cont_max)
			goto out_unlock_cont;
	}
	weft_list_add_tail(&page->lru, &head->lru);
	si->nr_added[weft_current_tid()]++;
	page = NULL;                            /* now it's attached */
out_unlock_cont:
	cont_unlock(si);
out:
	spin_unlock(ci);
	spin_unlock(&si->lock);
	if (page)
		cont_free(si, page);
	return ret;
}

int weft_swapc_duplicate(struct weft_swapc *si, unsigned off)
{
	int err;

	if (off >= si->nr_slots)
		return -22;
	/* swap_duplicate(): add continuation pages while it needs them */
	while ((err = __swap_duplicate(si, off)) == -12)
		if (add_swap_count_continuation(si, off))
			return -12;
	return err;
}

void weft_swapc_free(struct weft_swapc *si, unsigned off)
{
	spinlock_t *ci;
	uint8_t *mp, count, has_cache;

	if (off >= si->nr_slots)
		return;
	ci = &si->ci[cluster_of(si, off)];
	mp = &si->map[page_of(off)].bytes[off % WEFT_SWAPC_PAGE_SLOTS];
	/* __swap_entry_free() -> __swap_entry_free_locked(), usage 1 */
	spin_lock(ci);
	count = READ_ONCE(*mp);
	has_cache = count & WEFT_SWAPC_HAS_CACHE;
	count &= (uint8_t)~WEFT_SWAPC_HAS_CACHE;
	if ((count & ~WEFT_SWAPC_COUNT_CONTINUED) <= si->map_max) {
		if (count == WEFT_SWAPC_COUNT_CONTINUED) {
			if (swap_count_continued(si, off, count))
				count = si->map_max | WEFT_SWAPC_COUNT_CONTINUED;
			else
				count = si->map_max;
		} else {
			if (!count)
				weft_report(WEFT_KIND_SWAP_UNDERFLOW, mp,
					    WEFT_SITE(WEFT_EV_NOTE, "__swap_entry_free: count 0"),
					    "swap count of slot %u decremented below zero", off);
			count--;
		}
	}
	WRITE_ONCE(*mp, count | has_cache);
	spin_unlock(ci);
}

/* ------------------------------------------------------------- audits */

unsigned long weft_swapc_peek_count(const struct weft_swapc *si, unsigned off)
{
	const struct weft_swapc_page *head = &si->map[page_of(off)];
	unsigned o = off % WEFT_SWAPC_PAGE_SLOTS;
	uint8_t b = weft_peek(head->bytes[o]) & (uint8_t)~WEFT_SWAPC_HAS_CACHE;
	unsigned long v = b & (uint8_t)~WEFT_SWAPC_COUNT_CONTINUED;
	unsigned long unit = (unsigned long)si->map_max + 1;
	bool more = b & WEFT_SWAPC_COUNT_CONTINUED;
	const struct weft_list_head *l = weft_peek(head->lru.next);
	unsigned guard = 0;

	if (weft_peek(head->private) != WEFT_SWAPC_SWP_CONTINUED)
		return v;
	while (more && l && l != &head->lru && guard++ <= WEFT_SWAPC_MAX_CONT) {
		const struct weft_swapc_page *p =
			(const struct weft_swapc_page *)((const char *)l -
							 offsetof(struct weft_swapc_page, lru));
		uint8_t d = weft_peek(p->bytes[o]);
		v += (unsigned long)(d & (uint8_t)~WEFT_SWAPC_COUNT_CONTINUED) * unit;
		more = d & WEFT_SWAPC_COUNT_CONTINUED;
		unit *= (unsigned long)si->cont_max + 1;
		l = weft_peek(l->next);
	}
	return v;
}

unsigned weft_swapc_audit(struct weft_swapc *si, const uint32_t *owners)
{
	unsigned bad = 0;

	for (unsigned pg = 0; pg * WEFT_SWAPC_PAGE_SLOTS < si->nr_slots; pg++) {
		struct weft_swapc_page *head = &si->map[pg];
		if (weft_peek(head->private) != WEFT_SWAPC_SWP_CONTINUED)
			continue;
		struct weft_list_head *l = &head->lru;
		for (unsigned n = 0; n <= WEFT_SWAPC_MAX_CONT; n++) {
			struct weft_list_head *next = weft_peek(l->next);
			if (!next || weft_peek(next->prev) != l) {
				weft_report(WEFT_KIND_LIST_CORRUPTION, l,
					    WEFT_SITE(WEFT_EV_NOTE, "swap continuation list audit"),
					    "continuation list of swap_map page %u is broken", pg);
				return ++bad;
			}
			if (next == &head->lru)
				break;
			l = next;
		}
	}
	for (unsigned s = 0; s < si->nr_slots; s++) {
		unsigned long c = weft_swapc_peek_count(si, s);
		if (c != owners[s]) {
			weft_report(WEFT_KIND_SLOT_LEAK,
				    &si->map[page_of(s)].bytes[s % WEFT_SWAPC_PAGE_SLOTS],
				    WEFT_SITE(WEFT_EV_NOTE, "swap continuation count audit"),
				    "slot %u encodes count %lu but has %u references", s, c,
				    owners[s]);
			bad++;
		}
	}
	return bad;
}

bool weft_swapc_describe(const struct weft_swapc *si, const void *world, uint32_t off,
			 char *buf, size_t n)
{
	uintptr_t base = (uintptr_t)si - (uintptr_t)world;
	uintptr_t map = base + offsetof(struct weft_swapc, map);
	uintptr_t cont = base + offsetof(struct weft_swapc, cont);
	size_t ps = sizeof(struct weft_swapc_page);

	if (off >= map && off < map + sizeof(si->map)) {
		unsigned pg = (unsigned)((off - map) / ps), in = (unsigned)((off - map) % ps);
		if (in >= offsetof(struct weft_swapc_page, bytes))
			snprintf(buf, n, "swap_map[%u]", pg * WEFT_SWAPC_PAGE_SLOTS +
				 (unsigned)(in - offsetof(struct weft_swapc_page, bytes)));
		else if (in >= offsetof(struct weft_swapc_page, private))
			snprintf(buf, n, "swap_map page %u ->private", pg);
		else
			snprintf(buf, n, "swap_map page %u ->lru", pg);
		return true;
	}
	if (off >= cont && off < cont + sizeof(si->cont)) {
		unsigned pg = (unsigned)((off - cont) / ps), in = (unsigned)((off - cont) % ps);
		if (in >= offsetof(struct weft_swapc_page, bytes))
			snprintf(buf, n, "continuation page %u digit of slot +%u", pg,
				 (unsigned)(in - offsetof(struct weft_swapc_page, bytes)));
		else
			snprintf(buf, n, "continuation page %u ->lru", pg);
		return true;
	}
	if (off >= base + offsetof(struct weft_swapc, ci) &&
	    off < base + offsetof(struct weft_swapc, ci) + sizeof(si->ci)) {
		snprintf(buf, n, "cluster lock %u",
			 (unsigned)((off - base - offsetof(struct weft_swapc, ci)) /
				    sizeof(si->ci[0])));
		return true;
	}
	if (off >= base + offsetof(struct weft_swapc, lock) &&
	    off < base + offsetof(struct weft_swapc, lock) + sizeof(si->lock)) {
		snprintf(buf, n, "si->lock");
		return true;
	}
	if (off >= base + offsetof(struct weft_swapc, cont_lock) &&
	    off < base + offsetof(struct weft_swapc, cont_lock) + sizeof(si->cont_lock)) {
		snprintf(buf, n, "si->cont_lock");
		return true;
	}
	return false;
}

uint32_t weft_swapc_state_bucket(const struct weft_swapc *si, const void *world, uint32_t off)
{
	uintptr_t base = (uintptr_t)si - (uintptr_t)world;
	uintptr_t map = base + offsetof(struct weft_swapc, map);
	uintptr_t cont = base + offsetof(struct weft_swapc, cont);
	size_t ps = sizeof(struct weft_swapc_page), bo = offsetof(struct weft_swapc_page, bytes);

	if (off >= map && off < map + sizeof(si->map)) {
		unsigned pg = (unsigned)((off - map) / ps), in = (unsigned)((off - map) % ps);
		const struct weft_swapc_page *p = &si->map[pg];
		if (in >= bo) {
			/* the low digit exactly: each higher count is new state,
			 * which is how a search climbs to a deep count */
			unsigned slot = pg * WEFT_SWAPC_PAGE_SLOTS + (unsigned)(in - bo);
			return 1 + (weft_peek(p->bytes[in - bo]) | slot << 8);
		}
		if (in >= offsetof(struct weft_swapc_page, private))
			return 1 + (0x10000 | weft_peek(p->private) << 4 | pg);
		return 0;
	}
	if (off >= cont && off < cont + sizeof(si->cont)) {
		unsigned pg = (unsigned)((off - cont) / ps), in = (unsigned)((off - cont) % ps);
		if (in >= bo)
			return 1 + (0x20000 | weft_peek(si->cont[pg].bytes[in - bo]) |
				    (unsigned)(in - bo) << 8);
	}
	return 0;
}
