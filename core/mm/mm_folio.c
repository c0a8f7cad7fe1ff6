/*
 * mm_folio.c - folios and compound pages (<weft/mm/folio.h>): the compound
 * head, the folio refcount funnel and the split, on the page model of
 * mm_page.c (whose sites this file leaves alone: they are part of stored
 * replays' fingerprints). Sources: folio.h.
 *
 * Every count change is one primitive; the checks around it peek at
 * page->state without a point, so a check and the change it guards see
 * the same state (as in mm_page.c).
 */
#define WEFT_KIT_INTERNAL 1
#include <weft/mm/folio.h>

static inline int bias(const struct weft_mm *mm)
{
	return mm->biased ? 1 : 0;
}

static void uaf_free_folio(struct weft_mm *mm, struct weft_page *p, const char *what)
{
	struct weft_access other = weft_last_write(&p->state);

	weft_report2(WEFT_KIND_USE_AFTER_FREE, &p->count,
		     WEFT_SITE(WEFT_EV_NOTE, "folio count change on a free page"), &other,
		     "%s on page %u, which is free", what, weft_page_nr(mm, p));
}

/* ------------------------------------------------------ compound pages */

void weft_prep_compound_page(struct weft_mm *mm, struct weft_page *head)
{
	unsigned nr = 1u << weft_peek(head->order);

	(void)mm;
	for (unsigned i = 1; i < nr; i++)
		WRITE_ONCE(head[i].lru.next,
			   (struct weft_list_head *)((uintptr_t)head + 1));   /* set_compound_head() */
}

struct weft_page *weft_compound_alloc(struct weft_mm *mm, unsigned order)
{
	struct weft_page *head = weft_folio_alloc(mm, order);

	if (head && order)
		weft_prep_compound_page(mm, head);
	return head;
}

struct weft_page *weft_compound_head(struct weft_mm *mm, struct weft_page *p)
{
	uintptr_t h = (uintptr_t)READ_ONCE_NOCHECK(p->lru.next);

	/* a free page's word is the buddy allocator's: no tail bit */
	if ((h & 1) && weft_peek(p->state) == WEFT_PAGE_ALLOCATED) {
		struct weft_page *head = (struct weft_page *)(h - 1);
		if (head >= mm->pages && head < mm->pages + mm->nr_pages)
			return head;
	}
	return p;
}

bool weft_page_is_tail(struct weft_mm *mm, struct weft_page *p)
{
	return weft_compound_head(mm, p) != p;
}

unsigned weft_folio_nr(struct weft_mm *mm, struct weft_page *folio)
{
	(void)mm;
	return 1u << READ_ONCE(folio->order);
}

/* --------------------------------------------------------- refcounts */

int weft_folio_ref_count(struct weft_mm *mm, struct weft_page *folio)
{
	return atomic_read(&folio->count) + bias(mm);
}

void weft_folio_ref_add(struct weft_mm *mm, struct weft_page *folio, int nr)
{
	atomic_add(nr, &folio->count);
	if (weft_peek_ghost(folio->state) != WEFT_PAGE_ALLOCATED)
		uaf_free_folio(mm, folio, "folio_ref_add");
}

void weft_folio_ref_sub(struct weft_mm *mm, struct weft_page *folio, int nr)
{
	(void)weft_folio_ref_sub_and_test(mm, folio, nr);
}

bool weft_folio_ref_sub_and_test(struct weft_mm *mm, struct weft_page *folio, int nr)
{
	int now = atomic_sub_return(nr, &folio->count) + bias(mm);

	if (weft_peek_ghost(folio->state) != WEFT_PAGE_ALLOCATED)
		uaf_free_folio(mm, folio, "folio_ref_sub");
	else if (now < 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, &folio->count,
			    WEFT_SITE(WEFT_EV_NOTE, "folio_ref_sub_and_test: count below 0"),
			    "folio_ref_sub on page %u took the count to %d",
			    weft_page_nr(mm, folio), now);
	return now == 0;
}

bool weft_folio_ref_try_add(struct weft_mm *mm, struct weft_page *folio, int nr)
{
	return atomic_add_unless(&folio->count, nr, -bias(mm));
}

bool weft_folio_ref_freeze(struct weft_mm *mm, struct weft_page *folio, int expected)
{
	int b = bias(mm);

	return atomic_cmpxchg(&folio->count, expected - b, -b) == expected - b;
}

void weft_folio_ref_unfreeze(struct weft_mm *mm, struct weft_page *folio, int count)
{
	if (weft_peek(folio->count.counter) + bias(mm) != 0)
		weft_report(WEFT_KIND_ASSERT, &folio->count,
			    WEFT_SITE(WEFT_EV_NOTE, "folio_ref_unfreeze: VM_BUG_ON(folio_ref_count(folio) != 0)"),
			    "folio_ref_unfreeze of page %u that is not frozen", weft_page_nr(mm, folio));
	atomic_set(&folio->count, count - bias(mm));
}

void weft_folio_get(struct weft_mm *mm, struct weft_page *folio)
{
	int old = atomic_inc_return(&folio->count) - 1 + bias(mm);

	if (weft_peek_ghost(folio->state) != WEFT_PAGE_ALLOCATED)
		uaf_free_folio(mm, folio, "folio_get");
	else if (old <= 0)
		weft_report(WEFT_KIND_INC_FROM_ZERO, &folio->count,
			    WEFT_SITE(WEFT_EV_NOTE, "folio_get: VM_BUG_ON_FOLIO(folio_ref_zero_or_close_to_overflow())"),
			    "folio_get on page %u with count %d", weft_page_nr(mm, folio), old);
}

bool weft_folio_try_get(struct weft_mm *mm, struct weft_page *folio)
{
	return weft_folio_ref_try_add(mm, folio, 1);
}

void weft_folio_put(struct weft_mm *mm, struct weft_page *folio)
{
	if (weft_folio_ref_sub_and_test(mm, folio, 1))
		weft_page_free(mm, folio);   /* __folio_put() */
}

/* ------------------------------------------------------------- split */

void weft_split_tail_flags(struct weft_mm *mm, struct weft_page *head, struct weft_page *tail)
{
	unsigned long tf = READ_ONCE(tail->flags);
	unsigned long hf = READ_ONCE(head->flags);

	(void)mm;
	WRITE_ONCE(tail->flags, (tf & (1ul << WEFT_PG_tail)) | (hf & WEFT_SPLIT_CLONE_FLAGS));
}

void weft_split_tail_mapping(struct weft_mm *mm, struct weft_page *head, struct weft_page *tail,
			     unsigned i)
{
	(void)mm;
	WRITE_ONCE(tail->mapping, READ_ONCE(head->mapping));
	if (weft_peek(head->flags) & (1ul << WEFT_PG_swapcache))
		WRITE_ONCE(tail->private, READ_ONCE(head->private) + i);
}

void weft_clear_compound_head(struct weft_mm *mm, struct weft_page *tail)
{
	(void)mm;
	WRITE_ONCE(tail->lru.next, (struct weft_list_head *)NULL);
	clear_bit(WEFT_PG_tail, &tail->flags);
}

void weft_split_compound(struct weft_mm *mm, struct weft_page *head, int tail_refs)
{
	unsigned nr = weft_folio_nr(mm, head);

	for (unsigned i = nr; i-- > 1;) {
		struct weft_page *tail = head + i;

		weft_split_tail_flags(mm, head, tail);
		weft_split_tail_mapping(mm, head, tail, i);
		weft_clear_compound_head(mm, tail);
		weft_folio_ref_unfreeze(mm, tail, tail_refs);
	}
	/* ClearPageCompound(head) */
	clear_bit(WEFT_PG_head, &head->flags);
	WRITE_ONCE(head->order, (uint8_t)0);
}
