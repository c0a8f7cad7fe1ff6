/*
 * mm_writeback.c - page writeback (<weft/mm/writeback.h>): mm/filemap.c
 * folio_end_writeback(), folio_wait_writeback(), folio_wake_bit(), and
 * mm/page-writeback.c __folio_start_writeback() of v6.8, on the bit waits
 * of <weft/sleep.h> (PG_waiters shared with the page lock).
 */
#define WEFT_KIT_INTERNAL 1
#include <weft/mm/writeback.h>

#define PG_WRITEBACK (1ul << WEFT_PG_writeback)
#define PG_WAITERS (1ul << WEFT_PG_waiters)

/* page_folio(): the head of the folio a tail page belongs to. */
static struct weft_page *head_of(struct weft_page *p)
{
	while (weft_page_peek_flag(p, tail) && weft_peek(p->nr) > 0)
		p--;
	return p;
}

/* Any writeback operation on a free page: the caller holds no reference. */
static void check_free(struct weft_page *p, const char *what)
{
	if (weft_peek(p->state) == WEFT_PAGE_ALLOCATED)
		return;
	struct weft_access other = weft_last_write(&p->state);
	weft_report2(WEFT_KIND_USE_AFTER_FREE, &p->flags,
		     WEFT_SITE(WEFT_EV_NOTE, "writeback operation on a free page"), &other,
		     "%s on page %u, which is free", what, (unsigned)weft_peek(p->nr));
}

void weft_folio_start_writeback(struct weft_page *folio)
{
	bool was = weft_page_test_set(folio, writeback);

	check_free(folio, "folio_start_writeback");
	if (was)
		weft_report(WEFT_KIND_BUG_ON, &folio->flags,
			    WEFT_SITE(WEFT_EV_NOTE, "__folio_start_writeback(): "
						    "VM_BUG_ON_FOLIO(folio_test_writeback(folio))"),
			    "page %u already under writeback", (unsigned)weft_peek(folio->nr));
}

void weft_folio_end_writeback(struct weft_page *folio)
{
	unsigned long old = weft_access(&folio->flags, sizeof(folio->flags), WEFT_A_ANDNOT,
					PG_WRITEBACK, 0,
					WEFT_SITE(WEFT_EV_RMW, "folio_xor_flags_has_waiters(folio, "
							       "1 << PG_writeback)"));

	check_free(folio, "folio_end_writeback");
	if (!(old & PG_WRITEBACK))
		weft_report(WEFT_KIND_BUG_ON, &folio->flags,
			    WEFT_SITE(WEFT_EV_NOTE, "folio_end_writeback(): "
						    "VM_BUG_ON_FOLIO(!folio_test_writeback(folio))"),
			    "page %u was not under writeback", (unsigned)weft_peek(folio->nr));
	if (old & PG_WAITERS)
		weft_wake_up_bit_waiters(&folio->flags, WEFT_PG_writeback, WEFT_PG_waiters,
					 WEFT_SITE(WEFT_EV_WAKE, "folio_wake_bit(folio, PG_writeback)"));
}

void weft_folio_wait_writeback(struct weft_page *folio)
{
	might_sleep();
	while (weft_page_test(folio, writeback)) {
		check_free(folio, "folio_wait_writeback");
		weft_wait_on_bit_waiters(&folio->flags, WEFT_PG_writeback, WEFT_PG_waiters, false,
					 WEFT_SITE(WEFT_EV_WAIT,
						   "folio_wait_bit(PG_writeback, SHARED)"));
	}
	check_free(folio, "folio_wait_writeback");
}

void weft_set_page_writeback(struct weft_page *page)
{
	weft_folio_start_writeback(head_of(page));
}

void weft_end_page_writeback(struct weft_page *page)
{
	weft_folio_end_writeback(head_of(page));
}

void weft_wait_on_page_writeback(struct weft_page *page)
{
	weft_folio_wait_writeback(head_of(page));
}
