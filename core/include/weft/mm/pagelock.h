/*
 * pagelock.h - the page lock of the mm kit: lock_page(), trylock_page(),
 * unlock_page(), wait_on_page_locked() and their folio forms, with
 * PG_locked and PG_waiters in page->flags, as mm/filemap.c (v6.8) has them:
 *
 *   folio_trylock()  test_and_set_bit_lock(PG_locked)            one point
 *   folio_lock()     folio_trylock(), else __folio_lock():
 *                    folio_wait_bit_common(EXCLUSIVE) as one step under
 *                    the page wait queue's lock: set PG_waiters, try the
 *                    lock again, else queue and sleep; the unlocker hands
 *                    the lock over (wake_page_function())        two points
 *   folio_unlock()   clear PG_locked and read PG_waiters in one atomic
 *                    (folio_xor_flags_has_waiters()); if it was set,
 *                    folio_wake_bit(): wake the waiters up to and
 *                    including the oldest lock waiter (handing it the
 *                    lock), clear PG_waiters if nobody is left  one or two
 *   folio_wait_locked()  folio_test_locked(), then, if locked,
 *                    folio_wait_bit_common(SHARED)               one or two
 *
 * PG_waiters lives in the flags word with every other flag, so a
 * non-atomic flag update of another bit (__SetPageDirty(): a load and a
 * store, two scheduling points) that straddles a sleeper setting
 * PG_waiters erases it, and the unlock wakes nobody: a lost wakeup the
 * machine reports when everything else is done. page-flags.h reserves the
 * __ forms for pages nobody else can see; a locked page is not one.
 *
 * Checks (no scheduling point, right after the operation): any page-lock
 * operation on a free page is a use-after-free (page->flags stays readable
 * while free, as struct page does, but the caller must hold a reference);
 * unlocking a page that is not locked is bad-unlock (VM_BUG_ON_FOLIO(
 * !folio_test_locked(folio))); freeing a locked page stays the
 * allocator's bad-free. The lock has no owner (an I/O completion may unlock
 * what another thread locked): who locked it is remembered only to name
 * the other side of a deadlock.
 *
 * A page's tail pages lock their folio's head (page_folio()). The swap
 * helpers of <weft/mm/swap.h> trylock folios and unlock them without a
 * wake-up: a model that sleeps in folio_lock() on a folio they lock must
 * not expect their unlock to wake it.
 */
#ifndef WEFT_MM_PAGELOCK_H
#define WEFT_MM_PAGELOCK_H

#include <weft/mm/page.h>

void weft_folio_lock(struct weft_page *folio);
bool weft_folio_trylock(struct weft_page *folio);
void weft_folio_unlock(struct weft_page *folio);
void weft_folio_wait_locked(struct weft_page *folio);

/* The page forms act on the page's folio (its head page). */
void weft_lock_page(struct weft_page *page);
bool weft_trylock_page(struct weft_page *page);
void weft_unlock_page(struct weft_page *page);
void weft_wait_on_page_locked(struct weft_page *page);

/* Quiescence audit (main context, no scheduling point): no page of mm ends
 * with PG_locked or PG_waiters set (a lock_page() nobody undid, a sleeper
 * nobody woke). The first such page is reported as an assertion at the
 * caller's site ("page N ends with PG_locked 1, PG_waiters 0"): false;
 * true if none. */
bool weft_mm_audit_unlocked(const struct weft_mm *mm, const struct weft_site *site);

#define lock_page(p) weft_lock_page(p)
#define trylock_page(p) weft_trylock_page(p)
#define unlock_page(p) weft_unlock_page(p)
#define wait_on_page_locked(p) weft_wait_on_page_locked(p)
#define folio_lock(f) weft_folio_lock(f)
#define folio_trylock(f) weft_folio_trylock(f)
#define folio_unlock(f) weft_folio_unlock(f)
#define folio_wait_locked(f) weft_folio_wait_locked(f)

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_folio_lock(...) WEFT_KIT_VOID(folio_lock, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_trylock(...) WEFT_KIT_VAL(bool, folio_trylock, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_unlock(...) WEFT_KIT_VOID(folio_unlock, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_wait_locked(...) WEFT_KIT_VOID(folio_wait_locked, #__VA_ARGS__, __VA_ARGS__)
#define weft_lock_page(...) WEFT_KIT_VOID(lock_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_trylock_page(...) WEFT_KIT_VAL(bool, trylock_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_unlock_page(...) WEFT_KIT_VOID(unlock_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_wait_on_page_locked(...) WEFT_KIT_VOID(wait_on_page_locked, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
