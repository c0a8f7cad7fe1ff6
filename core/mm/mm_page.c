/*
 * mm_page.c - the page model: reference counts, the allocator and its
 * free-time checks, audits. See mm_page.h for the sources it follows
 * (2.4.19 include/linux/mm.h and mm/page_alloc.c __free_pages_ok(); the
 * seed's put_page_nofree/BUG_ON(!page_count); 2.6.6-mm2
 * "page-freeing-race-fix" for the -1 bias and get_page_testone; 2.6.16
 * get_page_unless_zero; include/linux/page_ref.h for the single funnel).
 *
 * Every count change is one primitive (one scheduling point); the checks
 * around it read page->state without a point, so a check and the change it
 * guards see the same state.
 */
#define WEFT_KIT_INTERNAL 1
#include <string.h>

#include <weft/mm/mapcount.h>

const char *const weft_mm_stat_names[WEFT_MM_NR_STATS] = {
#define __WEFT_MM_STAT_NAME(e, s) s,
	WEFT_MM_STATS(__WEFT_MM_STAT_NAME)
#undef __WEFT_MM_STAT_NAME
};

void weft_mm_init(struct weft_mm *mm, unsigned nr_pages, bool biased)
{
	if (nr_pages > WEFT_MM_NR_PAGES)
		nr_pages = WEFT_MM_NR_PAGES;
	if (!WEFT_CHECK_WORLD(mm, "weft_mm_init()"))
		return;
	mm->nr_pages = nr_pages;
	mm->biased = biased;
	mm->nr_free = 0;
	/* free[] is a stack: push the highest page first so page 0 is on top */
	for (unsigned i = nr_pages; i-- > 0;) {
		struct weft_page *p = &mm->pages[i];

		p->nr = (uint16_t)i;
		p->state = WEFT_PAGE_FREE;
		p->count.counter = biased ? -1 : 0;
		mm->free[mm->nr_free++] = (uint8_t)i;
		weft_poison((char *)p + WEFT_PAGE_POISON_OFF, WEFT_PAGE_POISON_LEN,
			    WEFT_SITE(WEFT_EV_FREE, "mem_init: page free"));
	}
}

/* A count change on a page the allocator holds. */
static void uaf_on_free_page(struct weft_mm *mm, struct weft_page *p, const char *what)
{
	struct weft_access other = weft_last_write(&p->state);

	weft_report2(WEFT_KIND_USE_AFTER_FREE, &p->count,
		     WEFT_SITE(WEFT_EV_NOTE, "page count change on a free page"), &other,
		     "%s on page %u, which is free", what, weft_page_nr(mm, p));
}

static void prep_new_page(struct weft_mm *mm, struct weft_page *p, unsigned order)
{
	weft_unpoison((char *)p + WEFT_PAGE_POISON_OFF, WEFT_PAGE_POISON_LEN,
		      WEFT_SITE(WEFT_EV_ALLOC, "prep_new_page: unpoison"));
	WRITE_ONCE(p->state, WEFT_PAGE_ALLOCATED);
	p->order = (uint8_t)order;
	/* The body is private to the allocating thread until it publishes the
	 * page: plain stores are enough (no one may look at it yet). */
	p->lru.next = NULL;
	p->lru.prev = NULL;
	p->mapping = NULL;
	p->private = 0;
	p->version = ++mm->alloc_seq;
	p->data = 0;
}

/* Remove page nr from the free stack (folio and exact allocations). */
static void free_stack_remove(struct weft_mm *mm, unsigned nr)
{
	for (unsigned i = 0; i < mm->nr_free; i++) {
		if (mm->free[i] != nr)
			continue;
		memmove(&mm->free[i], &mm->free[i + 1], mm->nr_free - i - 1);
		mm->nr_free--;
		return;
	}
}

/* The end of an order-0 allocation, zone_lock held and p off the free
 * stack: a new page with no flags and its first reference, the lock
 * dropped. A macro, not a function: its accesses stay sites of the
 * allocator it stands in (a site id hashes the function), as when each
 * allocator wrote them out. */
#define ORDER0_ALLOC_DONE(mm, p)                                               \
	do {                                                                   \
		prep_new_page(mm, p, 0);                                       \
		WRITE_ONCE(p->flags, 0ul);                                     \
		atomic_set(&p->count, mm->biased ? 0 : 1);                     \
		weft_mm_stat(mm, WEFT_MM_STAT_PAGE_ALLOC);                     \
		spin_unlock(&mm->zone_lock);                                   \
	} while (0)

struct weft_page *weft_page_alloc_at(struct weft_mm *mm, unsigned nr)
{
	struct weft_page *p;

	if (nr >= mm->nr_pages)
		return NULL;
	p = &mm->pages[nr];
	spin_lock(&mm->zone_lock);
	if (READ_ONCE(p->state) != WEFT_PAGE_FREE) {
		spin_unlock(&mm->zone_lock);
		return NULL;
	}
	free_stack_remove(mm, nr);
	ORDER0_ALLOC_DONE(mm, p);
	return p;
}

struct weft_page *weft_page_alloc(struct weft_mm *mm)
{
	struct weft_page *p;

	spin_lock(&mm->zone_lock);
	if (!mm->nr_free) {
		spin_unlock(&mm->zone_lock);
		return NULL;
	}
	p = &mm->pages[mm->free[--mm->nr_free]];
	ORDER0_ALLOC_DONE(mm, p);
	return p;
}


struct weft_page *weft_folio_alloc(struct weft_mm *mm, unsigned order)
{
	unsigned n = 1u << order, base;

	if (order == 0)
		return weft_page_alloc(mm);
	if (n > mm->nr_pages)
		return NULL;
	spin_lock(&mm->zone_lock);
	for (base = 0; base + n <= mm->nr_pages; base += n) {
		unsigned i;

		for (i = 0; i < n; i++)
			if (weft_peek(mm->pages[base + i].state) != WEFT_PAGE_FREE)
				break;
		if (i == n)
			break;
	}
	if (base + n > mm->nr_pages) {
		spin_unlock(&mm->zone_lock);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		struct weft_page *t = &mm->pages[base + i];

		free_stack_remove(mm, base + i);
		prep_new_page(mm, t, i ? 0 : order);
		WRITE_ONCE(t->flags, i ? 1ul << WEFT_PG_tail : 1ul << WEFT_PG_head);
		atomic_set(&t->count, (i ? 0 : 1) - (mm->biased ? 1 : 0));
	}
	weft_mm_stat(mm, WEFT_MM_STAT_PAGE_ALLOC);
	spin_unlock(&mm->zone_lock);
	return &mm->pages[base];
}

/* A failed free_pages_check(): the zone lock dropped, then a bad-free
 * report on field (the other side: its last write) at a site of its own,
 * what, and free_pages_check() returns false. A macro: the unlock and the
 * report stay sites of free_pages_check() (a site id hashes the function),
 * one each per check as when each check wrote them out. */
#define FREE_CHECK_FAILED(field, what, ...)                                     \
	do {                                                                   \
		struct weft_access other = weft_last_write(field);             \
		spin_unlock(&mm->zone_lock);                                   \
		weft_report2(WEFT_KIND_BAD_FREE, field, WEFT_SITE(WEFT_EV_NOTE, what), \
			     &other, __VA_ARGS__);                              \
		return false;                                                  \
	} while (0)

/* free_pages_check(): what must hold of a page given back. The zone lock
 * is dropped before a report (a report from setup returns). */
static bool free_pages_check(struct weft_mm *mm, struct weft_page *p, unsigned long flags)
{
	unsigned nr = weft_page_nr(mm, p);
	int count = weft_page_peek_count(mm, p);

	if (count != 0)
		FREE_CHECK_FAILED(&p->count, "__free_pages_ok: page_count(page) != 0",
				  "page %u freed with count %d", nr, count);
	if (flags & (1ul << WEFT_PG_lru | 1ul << WEFT_PG_active) ||
	    weft_list_linked(&p->lru))
		FREE_CHECK_FAILED(&p->flags, "__free_pages_ok: BUG_ON(PageLRU(page))",
				  "page %u freed while on the LRU (PG_lru %lu, PG_active %lu, "
				  "linked %d)", nr, flags >> WEFT_PG_lru & 1,
				  flags >> WEFT_PG_active & 1, weft_list_linked(&p->lru));
	if (flags & (1ul << WEFT_PG_locked))
		FREE_CHECK_FAILED(&p->flags, "__free_pages_ok: BUG_ON(PageLocked(page))",
				  "page %u freed while locked", nr);
	if (weft_peek(p->mapping))
		FREE_CHECK_FAILED(&p->mapping, "__free_pages_ok: BUG_ON(page->mapping)",
				  "page %u freed while still in a mapping", nr);
	/* <weft/mm/mapcount.h>; no site of this file's (its scenarios'
	 * fingerprints): the report drops the zone lock itself */
	int mapped = weft_mapcount_at_free(mm, p);
	if (mapped) {
		weft_mapcount_report_free(mm, p, mapped);
		return false;
	}
	return true;
}

static void free_one(struct weft_mm *mm, struct weft_page *p, unsigned long flags)
{
	/* 2.4.19: page->flags &= ~((1<<PG_referenced) | (1<<PG_dirty)) */
	WRITE_ONCE(p->flags, flags & ~(1ul << WEFT_PG_referenced | 1ul << WEFT_PG_dirty |
				       1ul << WEFT_PG_head | 1ul << WEFT_PG_tail));
	WRITE_ONCE(p->state, WEFT_PAGE_FREE);
	p->order = 0;
	weft_poison((char *)p + WEFT_PAGE_POISON_OFF, WEFT_PAGE_POISON_LEN,
		    WEFT_SITE(WEFT_EV_FREE, "__free_pages_ok: page freed"));
	mm->free[mm->nr_free++] = (uint8_t)weft_page_nr(mm, p);
}

void weft_page_free(struct weft_mm *mm, struct weft_page *p)
{
	unsigned nr = weft_page_nr(mm, p), order;
	unsigned long flags;

	spin_lock(&mm->zone_lock);
	if (READ_ONCE(p->state) != WEFT_PAGE_ALLOCATED) {
		struct weft_access other = weft_last_write(&p->state);

		spin_unlock(&mm->zone_lock);
		weft_report2(WEFT_KIND_DOUBLE_FREE, &p->state,
			     WEFT_SITE(WEFT_EV_NOTE, "__free_pages_ok: page already free"), &other,
			     "page %u freed twice", nr);
		return;
	}
	flags = READ_ONCE(p->flags);
	if (!free_pages_check(mm, p, flags))
		return;
	order = p->order;
	free_one(mm, p, flags);
	for (unsigned i = 1; i < (1u << order) && nr + i < mm->nr_pages; i++) {
		struct weft_page *t = &mm->pages[nr + i];

		if (weft_peek(t->state) == WEFT_PAGE_ALLOCATED)
			free_one(mm, t, weft_peek(t->flags));
	}
	weft_mm_stat(mm, WEFT_MM_STAT_PAGE_FREE);
	spin_unlock(&mm->zone_lock);
}

/* ------------------------------------------------------------ refcount */

static inline int bias(const struct weft_mm *mm)
{
	return mm->biased ? 1 : 0;
}

int weft_page_count(struct weft_mm *mm, struct weft_page *p)
{
	return atomic_read(&p->count) + bias(mm);
}

void weft_set_page_count(struct weft_mm *mm, struct weft_page *p, int v)
{
	atomic_set(&p->count, v - bias(mm));
}

void weft_get_page(struct weft_mm *mm, struct weft_page *p)
{
	/* get_page() is page_ref_inc(), an atomic_inc(): it orders nothing.
	 * Value-returning here for the check, with atomic_inc()'s class (the
	 * site's text is the one stored replays hash) */
	int old = (int)WEFT_ACCESS_F(&p->count.counter, WEFT_A_ADD, 1u, 0, WEFT_EV_RMW,
				     "atomic_inc_return(&p->count)", WEFT_SITE_RELAXED) +
		  bias(mm);

	if (weft_peek_ghost(p->state) != WEFT_PAGE_ALLOCATED)
		uaf_on_free_page(mm, p, "get_page");
	else if (old <= 0)
		weft_report(WEFT_KIND_INC_FROM_ZERO, &p->count,
			    WEFT_SITE(WEFT_EV_NOTE, "get_page: VM_BUG_ON(page_count(page) == 0)"),
			    "get_page on page %u with count %d", weft_page_nr(mm, p), old);
}

void weft_get_page_nocheck(struct weft_mm *mm, struct weft_page *p)
{
	atomic_inc(&p->count);
	if (weft_peek_ghost(p->state) != WEFT_PAGE_ALLOCATED)
		uaf_on_free_page(mm, p, "page_cache_get");
}

bool weft_put_page_testzero(struct weft_mm *mm, struct weft_page *p)
{
	/* Was the page already free when this put ran? Controlled: the peek
	 * right after the primitive is atomic with it (no point between).
	 * Native: after our decrement we hold no reference, another CPU's
	 * last put may free the page at once: look before, while our
	 * reference still pins it. */
#ifdef WEFT_NATIVE
	bool was_free = weft_peek_ghost(p->state) != WEFT_PAGE_ALLOCATED;
#endif
	int now = atomic_dec_return(&p->count) + bias(mm);

	weft_mm_stat(mm, WEFT_MM_STAT_TESTZERO);
#ifndef WEFT_NATIVE
	bool was_free = weft_peek_ghost(p->state) != WEFT_PAGE_ALLOCATED;
#endif
	if (was_free)
		uaf_on_free_page(mm, p, "put_page_testzero");
	else if (now < 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, &p->count,
			    WEFT_SITE(WEFT_EV_NOTE, "put_page_testzero: BUG_ON(!page_count(page))"),
			    "put_page_testzero on page %u took the count to %d",
			    weft_page_nr(mm, p), now);
	return now == 0;
}

void weft_put_page_nofree(struct weft_mm *mm, struct weft_page *p)
{
	int now = atomic_dec_return(&p->count) + bias(mm);

	if (weft_peek_ghost(p->state) != WEFT_PAGE_ALLOCATED)
		uaf_on_free_page(mm, p, "put_page_nofree");
	else if (now <= 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, &p->count,
			    WEFT_SITE(WEFT_EV_NOTE, "put_page_nofree: BUG_ON(!page_count(page))"),
			    "put_page_nofree on page %u dropped the last reference (count %d)",
			    weft_page_nr(mm, p), now);
}

void weft_put_page(struct weft_mm *mm, struct weft_page *p)
{
	if (weft_put_page_testzero(mm, p))
		weft_page_free(mm, p);
}

bool weft_get_page_unless_zero(struct weft_mm *mm, struct weft_page *p)
{
	/* atomic_add_unless(&page->_count, 1, 0) on the stored counter */
	return atomic_add_unless(&p->count, 1, -bias(mm));
}

bool weft_get_page_testone(struct weft_mm *mm, struct weft_page *p)
{
	/* 2.6.6-mm2: atomic_inc_and_test(&page->_count) with _count biased:
	 * true when page_count() went 0 -> 1 */
	if (!mm->biased) {
		weft_report(WEFT_KIND_ASSERT, &p->count,
			    WEFT_SITE(WEFT_EV_NOTE, "get_page_testone: counts not biased"),
			    "get_page_testone needs the -1 bias (weft_mm_init(.., true))");
		return false;
	}
	return atomic_inc_and_test(&p->count);
}

void __weft_put_page(struct weft_mm *mm, struct weft_page *p)
{
	int now = atomic_dec_return(&p->count) + bias(mm);

	if (now < 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, &p->count,
			    WEFT_SITE(WEFT_EV_NOTE, "__put_page: count below zero"),
			    "__put_page on page %u took the count to %d", weft_page_nr(mm, p), now);
}

bool weft_page_ref_freeze(struct weft_mm *mm, struct weft_page *p, int expected)
{
	int b = bias(mm);

	return atomic_cmpxchg(&p->count, expected - b, -b) == expected - b;
}

void weft_page_ref_unfreeze(struct weft_mm *mm, struct weft_page *p, int count)
{
	if (weft_peek(p->count.counter) + bias(mm) != 0)
		weft_report(WEFT_KIND_ASSERT, &p->count,
			    WEFT_SITE(WEFT_EV_NOTE, "page_ref_unfreeze: VM_BUG_ON(page_count(page) != 0)"),
			    "page_ref_unfreeze of page %u that is not frozen", weft_page_nr(mm, p));
	/* atomic_set_release() since "mm/page_ref: use atomic_set_release in
	 * page_ref_unfreeze" (2018): the frozen section's stores are visible
	 * first (ZOO Z15 models the plain atomic_set() before it). The site's
	 * text is the one stored replays hash. */
	WEFT_ACCESS_F(&p->count.counter, WEFT_A_STORE, (unsigned)(count - bias(mm)), 0,
		      WEFT_EV_WRITE, "atomic_set(&p->count)", WEFT_SITE_RELEASE);
}

/* ------------------------------------------------------------- counters */

WEFT_KIT_STAT_FNS(weft_mm, struct weft_mm, WEFT_MM_NR_STATS)

unsigned weft_mm_model_stats(const struct weft_mm *mm, const char *const *stat_names,
			     unsigned nr, const unsigned long *stat, unsigned nr_threads,
			     const char **names, uint64_t *vals, unsigned max)
{
	unsigned k = weft_stat_rows(stat_names, nr, stat, nr_threads, names, vals, max);

	return k + weft_mm_stats(mm, names + k, vals + k, max - k);
}

/* --------------------------------------------------------------- audits */

unsigned weft_mm_audit_leaks(struct weft_mm *mm,
			     unsigned (*owned_fn)(const struct weft_mm *mm,
						  const struct weft_page *p, void *ctx),
			     void *ctx)
{
	unsigned problems = 0;

	for (unsigned i = 0; i < mm->nr_pages; i++) {
		struct weft_page *p = &mm->pages[i];
		int count = weft_page_peek_count(mm, p);
		unsigned st = weft_peek(p->state);

		if (st == WEFT_PAGE_FREE) {
			if ((count != 0 || weft_page_peek_flag(p, lru)) && !problems++)
				weft_report(WEFT_KIND_ASSERT, &p->count,
					    WEFT_SITE(WEFT_EV_NOTE, "audit: free page is idle"),
					    "free page %u has count %d, PG_lru %lu", i, count,
					    weft_page_peek_flag(p, lru));
			continue;
		}
		if (st != WEFT_PAGE_ALLOCATED || weft_page_peek_flag(p, tail))
			continue;
		unsigned owners = owned_fn(mm, p, ctx);
		if (owners == 0) {
			if (!problems++)
				weft_report(WEFT_KIND_PAGE_LEAK, &p->count,
					    WEFT_SITE(WEFT_EV_NOTE, "audit: allocated page has an owner"),
					    "page %u is allocated (count %d, PG_lru %lu) but nobody owns it",
					    i, count, weft_page_peek_flag(p, lru));
		} else if (owners != WEFT_MM_OWNERS_ANY && (unsigned)count != owners) {
			if (!problems++) {
				if (count > (int)owners)
					weft_report(WEFT_KIND_PAGE_LEAK, &p->count,
						    WEFT_SITE(WEFT_EV_NOTE, "audit: page count == owners"),
						    "page %u has count %d but only %u references are held: %d leaked",
						    i, count, owners, count - (int)owners);
				else
					weft_report(WEFT_KIND_ASSERT, &p->count,
						    WEFT_SITE(WEFT_EV_NOTE, "audit: page count == owners"),
						    "page %u has count %d but %u references are held",
						    i, count, owners);
			}
		}
	}
	return problems;
}

/* ------------------------------------------------------------- describe */

/* A page's fields in the order of struct weft_page: a byte is named by the
 * last one that starts at or before it (padding: the field before). */
#define PAGE_FIELD(member) WEFT_FIELD(struct weft_page, member, #member)
static const struct weft_field page_fields[] = {
	PAGE_FIELD(count),   PAGE_FIELD(state),   PAGE_FIELD(order),
	PAGE_FIELD(nr),      PAGE_FIELD(flags),   PAGE_FIELD(lru.next),
	PAGE_FIELD(lru.prev), PAGE_FIELD(mapping), PAGE_FIELD(private),
	PAGE_FIELD(version), PAGE_FIELD(data),
};
#undef PAGE_FIELD

bool weft_mm_describe(const struct weft_mm *mm, const void *world, uint32_t off, char *buf,
		      size_t n)
{
	uintptr_t base = (uintptr_t)mm - (uintptr_t)world;
	uintptr_t pg = (uintptr_t)mm->pages - (uintptr_t)world;

	if (off < base || off >= base + sizeof(*mm))
		return false;
	if (off >= pg && off < pg + sizeof(mm->pages)) {
		unsigned i = (unsigned)((off - pg) / sizeof(struct weft_page));
		size_t f = (off - pg) % sizeof(struct weft_page);
		const char *field = page_fields[0].name;

		for (unsigned k = 1; k < sizeof(page_fields) / sizeof(page_fields[0]); k++)
			if (f >= page_fields[k].off)
				field = page_fields[k].name;
		snprintf(buf, n, "page %u ->%s", i, field);
		return true;
	}
	if (off - base >= offsetof(struct weft_mm, zone_lock) &&
	    off - base < offsetof(struct weft_mm, zone_lock) + sizeof(mm->zone_lock))
		snprintf(buf, n, "zone_lock");
	else
		snprintf(buf, n, "mm+0x%x", (unsigned)(off - base));
	return true;
}

uint32_t weft_mm_state_bucket(const struct weft_mm *mm, const void *world, uint32_t off)
{
	uintptr_t pg = (uintptr_t)mm->pages - (uintptr_t)world;

	if (off < pg || off >= pg + sizeof(mm->pages))
		return 0;
	unsigned i = (unsigned)((off - pg) / sizeof(struct weft_page));
	const struct weft_page *p = &mm->pages[i];
	int c = weft_page_peek_count(mm, p);
	uint32_t rb = c <= 0 ? 0 : c == 1 ? 1 : c == 2 ? 2 : 3;
	uint32_t onlist = weft_list_linked((struct weft_list_head *)&p->lru) ? 1 : 0;
	uint32_t alloc = weft_peek(p->state) == WEFT_PAGE_ALLOCATED ? 1 : 0;

	return 1 + (rb | (uint32_t)weft_page_peek_flag(p, lru) << 2 | onlist << 3 | alloc << 4 |
		    i << 5);
}

uint32_t weft_mm_slots_state_bucket(const struct weft_mm *mm, const void *world, uint32_t off,
				    struct weft_page *const *slots, unsigned nr)
{
	uintptr_t base = (uintptr_t)slots - (uintptr_t)world;

	if (off < base || off >= base + nr * sizeof(*slots))
		return 0;
	unsigned s = (unsigned)((off - base) / sizeof(*slots));
	const struct weft_page *p = weft_peek(slots[s]);

	return 0x10000u | s << 8 | (p ? 1u + weft_page_nr(mm, p) : 0u);
}
