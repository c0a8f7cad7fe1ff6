/*
 * writeback.h - page writeback of the mm kit: PG_writeback set while a
 * folio's I/O is in flight, the waits for its end and the wake-up at it,
 * on the same bit waits as the page lock (<weft/mm/pagelock.h>), as
 * mm/filemap.c and mm/page-writeback.c (v6.8) have them:
 *
 *   folio_start_writeback()  test_and_set PG_writeback (BUG_ON if it was
 *                            set: __folio_start_writeback())     one point
 *   folio_end_writeback()    clear PG_writeback and read PG_waiters in one
 *                            atomic (folio_xor_flags_has_waiters()); if it
 *                            was set, folio_wake_bit(PG_writeback): every
 *                            writeback waiter wakes; PG_waiters is cleared
 *                            if nobody waits on the page any more; BUG_ON
 *                            if PG_writeback was clear       one or two
 *   folio_wait_writeback()   while folio_test_writeback():
 *                            folio_wait_bit(PG_writeback): set PG_waiters,
 *                            test the bit, queue and sleep as one step
 *
 * One wait queue, one PG_waiters for every bit of the page: a wake-up on
 * one bit never wakes, nor hands anything to, a waiter on another. The
 * end of writeback wakes the writeback waiters only: a thread asleep in
 * folio_lock() on the same page stays asleep (the lock is not handed
 * over: only folio_unlock() hands the lock), and PG_waiters stays set for
 * it. wake_page_function() does the same: it skips waiters whose key's
 * bit_nr differs. tests/kit checks both directions.
 *
 * Checks, right after the operation: a writeback operation on a free page
 * is a use-after-free, as the page lock's.
 */
#ifndef WEFT_MM_WRITEBACK_H
#define WEFT_MM_WRITEBACK_H

#include <weft/mm/page.h>

void weft_folio_start_writeback(struct weft_page *folio);
void weft_folio_end_writeback(struct weft_page *folio);
void weft_folio_wait_writeback(struct weft_page *folio);

/* The page forms act on the page's folio (its head page). */
void weft_set_page_writeback(struct weft_page *page);
void weft_end_page_writeback(struct weft_page *page);
void weft_wait_on_page_writeback(struct weft_page *page);

#ifndef WEFT_KIT_INTERNAL
/* the model's call of each is named in reports and diagrams */
#define weft_folio_start_writeback(f) WEFT_CALL_OP_VOID(folio_start_writeback, #f, f)
#define weft_folio_end_writeback(f) WEFT_CALL_OP_VOID(folio_end_writeback, #f, f)
#define weft_folio_wait_writeback(f) WEFT_CALL_OP_VOID(folio_wait_writeback, #f, f)
#define weft_set_page_writeback(p) WEFT_CALL_OP_VOID(set_page_writeback, #p, p)
#define weft_end_page_writeback(p) WEFT_CALL_OP_VOID(end_page_writeback, #p, p)
#define weft_wait_on_page_writeback(p) WEFT_CALL_OP_VOID(wait_on_page_writeback, #p, p)
#endif

#define folio_start_writeback(f) weft_folio_start_writeback(f)
#define folio_end_writeback(f) weft_folio_end_writeback(f)
#define folio_wait_writeback(f) weft_folio_wait_writeback(f)
#define folio_test_writeback(f) weft_page_test(f, writeback)
#define set_page_writeback(p) weft_set_page_writeback(p)
#define end_page_writeback(p) weft_end_page_writeback(p)
#define wait_on_page_writeback(p) weft_wait_on_page_writeback(p)
#define PageWriteback(p) weft_page_test(p, writeback)

#endif
