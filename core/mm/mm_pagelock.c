/*
 * mm_pagelock.c - the page lock (<weft/mm/pagelock.h>): mm/filemap.c of
 * v6.8, folio_lock(), __folio_lock(), folio_trylock(), folio_unlock(),
 * folio_wake_bit(), folio_wait_bit_common(), on the bit-lock and bit-wait
 * primitives of <weft/sleep.h>.
 *
 * Each function's accesses to page->flags are the scheduling points the
 * kernel's atomics are; the checks read page->state without a point, right
 * after the operation (before it in the native build, where another CPU
 * may free the page the moment our hold ends, as weft_put_page_testzero()
 * does).
 */
#define WEFT_KIT_INTERNAL 1
#include <weft/mm/pagelock.h>

#define PG_LOCKED (1ul << WEFT_PG_locked)
#define PG_WAITERS (1ul << WEFT_PG_waiters)

/* Any page-lock operation on a free page: the caller holds no reference. */
static void check_free(struct weft_page *p, const char *what)
{
	if (weft_peek(p->state) == WEFT_PAGE_ALLOCATED)
		return;
	struct weft_access other = weft_last_write(&p->state);
	weft_report2(WEFT_KIND_USE_AFTER_FREE, &p->flags,
		     WEFT_SITE(WEFT_EV_NOTE, "page lock operation on a free page"), &other,
		     "%s on page %u, which is free", what, (unsigned)weft_peek(p->nr));
}

#ifdef WEFT_NATIVE
#define CHECK_BEFORE(p, what) check_free((p), (what))
#define CHECK_AFTER(p, what) ((void)0)
#else
#define CHECK_BEFORE(p, what) ((void)0)
#define CHECK_AFTER(p, what) check_free((p), (what))
#endif

/* page_folio(): the head of the folio a tail page belongs to. */
static struct weft_page *head_of(struct weft_page *p)
{
	while (weft_page_peek_flag(p, tail) && weft_peek(p->nr) > 0)
		p--;
	return p;
}

bool weft_folio_trylock(struct weft_page *folio)
{
	bool ok;

	CHECK_BEFORE(folio, "folio_trylock");
	ok = !test_and_set_bit_lock(WEFT_PG_locked, &folio->flags);
	CHECK_AFTER(folio, "folio_trylock");
	return ok;
}

void weft_folio_lock(struct weft_page *folio)
{
	might_sleep();
	CHECK_BEFORE(folio, "folio_lock");
	if (!test_and_set_bit_lock(WEFT_PG_locked, &folio->flags)) {
		CHECK_AFTER(folio, "folio_lock");
		return;
	}
	/* __folio_lock() */
	weft_wait_on_bit_waiters(&folio->flags, WEFT_PG_locked, WEFT_PG_waiters, true,
				 WEFT_SITE(WEFT_EV_LOCK,
					   "__folio_lock(): folio_wait_bit_common(PG_locked, EXCLUSIVE)"));
	CHECK_AFTER(folio, "folio_lock");
}

void weft_folio_unlock(struct weft_page *folio)
{
	unsigned long old;

	CHECK_BEFORE(folio, "folio_unlock");
	old = weft_clear_bit_unlock_fetch(
		WEFT_PG_locked, &folio->flags,
		WEFT_SITE(WEFT_EV_RMW, "folio_xor_flags_has_waiters(folio, 1 << PG_locked)"));
	CHECK_AFTER(folio, "folio_unlock");
	if (!(old & PG_LOCKED))
		weft_report(WEFT_KIND_BAD_UNLOCK, &folio->flags,
			    WEFT_SITE(WEFT_EV_NOTE, "folio_unlock: VM_BUG_ON_FOLIO(!folio_test_locked(folio))"),
			    "page %u unlocked while not locked", (unsigned)weft_peek(folio->nr));
	if (old & PG_WAITERS)
		weft_wake_up_bit_waiters(&folio->flags, WEFT_PG_locked, WEFT_PG_waiters,
					 WEFT_SITE(WEFT_EV_WAKE, "folio_wake_bit(folio, PG_locked)"));
}

void weft_folio_wait_locked(struct weft_page *folio)
{
	might_sleep();
	CHECK_BEFORE(folio, "folio_wait_locked");
	if (weft_page_test(folio, locked))
		weft_wait_on_bit_waiters(&folio->flags, WEFT_PG_locked, WEFT_PG_waiters, false,
					 WEFT_SITE(WEFT_EV_WAIT,
						   "folio_wait_bit_common(PG_locked, SHARED)"));
	CHECK_AFTER(folio, "folio_wait_locked");
}

void weft_lock_page(struct weft_page *page)
{
	weft_folio_lock(head_of(page));
}

bool weft_trylock_page(struct weft_page *page)
{
	return weft_folio_trylock(head_of(page));
}

void weft_unlock_page(struct weft_page *page)
{
	weft_folio_unlock(head_of(page));
}

void weft_wait_on_page_locked(struct weft_page *page)
{
	weft_folio_wait_locked(head_of(page));
}

bool weft_mm_audit_unlocked(const struct weft_mm *mm, const struct weft_site *site)
{
	for (unsigned i = 0; i < mm->nr_pages; i++) {
		const struct weft_page *pg = &mm->pages[i];

		if (weft_page_peek_flag(pg, locked) || weft_page_peek_flag(pg, waiters)) {
			weft_report(WEFT_KIND_ASSERT, &pg->flags, site,
				    "page %u ends with PG_locked %lu, PG_waiters %lu", i,
				    weft_page_peek_flag(pg, locked),
				    weft_page_peek_flag(pg, waiters));
			return false;
		}
	}
	return true;
}
