/*
 * folio.h - folios and compound pages in the mm kit: compound_head(), the
 * folio refcount funnel (folio_ref_*, folio_get/put/try_get, freeze and
 * unfreeze), folio flag helpers, and the split of a compound page into
 * order-0 pages step by step.
 *
 * Follows include/linux/page-flags.h (compound_head(), set/clear_compound_
 * head(): a tail page's compound_head word holds head + 1, and shares its
 * place with lru.next, as in struct page), include/linux/page_ref.h
 * (folio_ref_*) and include/linux/mm.h (folio_get(), folio_put(),
 * folio_try_get()) of v6.x, and mm/huge_memory.c __split_huge_page_tail()
 * after "mm/huge_memory.c: reorder operations in __split_huge_page_tail()"
 * (K. Khlebnikov, v4.17, 2018): clone the flags, set mapping, clear the
 * tail's compound head, then unfreeze its count, tails from the last to
 * the first.
 *
 * Invariants:
 *  - A folio is its head page (struct weft_page of <weft/mm/page.h>); its
 *    reference count is the head's count; a tail page's count stays 0 (the
 *    frozen state) until a split unfreezes it.
 *  - The compound head of a tail is p->lru.next (head | 1) from
 *    weft_prep_compound_page() until weft_clear_compound_head(); the kit's
 *    allocator clears lru.next when it hands a page out, so order-0 pages
 *    and fresh heads read as their own head. lru.prev of a tail stays NULL
 *    (list checks on a tail never follow compound_head).
 *  - compound_head() may read a free page (READ_ONCE_NOCHECK: struct page
 *    is type-stable) and a free page is its own head.
 *  - Each step of a split is its own scheduling point (or two: a
 *    non-atomic read-modify-write is a load and a store), so a model can
 *    put them in another order (Z8's bug: unfreeze before the flags).
 *
 * Stable API: additions only.
 */
#ifndef WEFT_MM_FOLIO_H
#define WEFT_MM_FOLIO_H

#include <weft/mm/page.h>

/* ------------------------------------------------------ compound pages */

/* prep_compound_page(): every tail of the folio at head (from
 * weft_folio_alloc()) gets its compound head. */
void weft_prep_compound_page(struct weft_mm *mm, struct weft_page *head);
/* weft_folio_alloc() + weft_prep_compound_page(). */
struct weft_page *weft_compound_alloc(struct weft_mm *mm, unsigned order);
/* compound_head()/page_folio(): one racy load of p's compound head. */
struct weft_page *weft_compound_head(struct weft_mm *mm, struct weft_page *p);
/* PageTail(): the same load, tested. */
bool weft_page_is_tail(struct weft_mm *mm, struct weft_page *p);
/* folio_nr_pages(). */
unsigned weft_folio_nr(struct weft_mm *mm, struct weft_page *folio);

/* --------------------------------------------------------- refcounts */

int weft_folio_ref_count(struct weft_mm *mm, struct weft_page *folio);
void weft_folio_ref_add(struct weft_mm *mm, struct weft_page *folio, int nr);
void weft_folio_ref_sub(struct weft_mm *mm, struct weft_page *folio, int nr);
/* true when the count reached 0 (refcount-underflow below) */
bool weft_folio_ref_sub_and_test(struct weft_mm *mm, struct weft_page *folio, int nr);
/* folio_ref_add_unless(folio, nr, 0) / folio_ref_try_add_rcu() */
bool weft_folio_ref_try_add(struct weft_mm *mm, struct weft_page *folio, int nr);
/* folio_ref_freeze(): count == expected -> 0 (true on success) */
bool weft_folio_ref_freeze(struct weft_mm *mm, struct weft_page *folio, int expected);
/* folio_ref_unfreeze(): 0 -> count; assertion if not frozen */
void weft_folio_ref_unfreeze(struct weft_mm *mm, struct weft_page *folio, int count);
/* folio_get(): VM_BUG_ON_FOLIO(folio_ref_zero_or_close_to_overflow()):
 * inc-from-zero (use-after-free on a free page). */
void weft_folio_get(struct weft_mm *mm, struct weft_page *folio);
/* folio_try_get(): a reference unless the count is 0. */
bool weft_folio_try_get(struct weft_mm *mm, struct weft_page *folio);
/* folio_put(): the last reference frees the folio (weft_page_free(): a
 * folio still on the LRU is a bad-free, as the model must take it off
 * first); refcount-underflow below 0, use-after-free on a free page. */
void weft_folio_put(struct weft_mm *mm, struct weft_page *folio);

/* ------------------------------------------------------------- flags */
/* folio_test_lru(folio) is weft_folio_test(folio, lru), and so on; the
 * site names the kernel helper. */
#define weft_folio_test(f, fl) \
	((WEFT_ACCESS(&(f)->flags, WEFT_A_LOAD, 0, 0, WEFT_EV_READ, "folio_test_" #fl "(" #f ")") >> WEFT_PG_##fl) & 1ul)
#define weft_folio_set(f, fl) \
	((void)WEFT_ACCESS(&(f)->flags, WEFT_A_OR, 1ul << WEFT_PG_##fl, 0, WEFT_EV_RMW, "folio_set_" #fl "(" #f ")"))
#define weft_folio_clear(f, fl) \
	((void)WEFT_ACCESS(&(f)->flags, WEFT_A_ANDNOT, 1ul << WEFT_PG_##fl, 0, WEFT_EV_RMW, "folio_clear_" #fl "(" #f ")"))
#define weft_folio_test_set(f, fl) \
	((WEFT_ACCESS(&(f)->flags, WEFT_A_OR, 1ul << WEFT_PG_##fl, 0, WEFT_EV_RMW, "folio_test_set_" #fl "(" #f ")") >> WEFT_PG_##fl) & 1ul)
#define weft_folio_test_clear(f, fl) \
	((WEFT_ACCESS(&(f)->flags, WEFT_A_ANDNOT, 1ul << WEFT_PG_##fl, 0, WEFT_EV_RMW, "folio_test_clear_" #fl "(" #f ")") >> WEFT_PG_##fl) & 1ul)
#define __weft_folio_set(f, fl)                                                 \
	((void)WEFT_ACCESS(&(f)->flags, WEFT_A_STORE,                            \
			   WEFT_ACCESS(&(f)->flags, WEFT_A_LOAD, 0, 0, WEFT_EV_READ, \
				       "__folio_set_" #fl "(" #f ") load") | (1ul << WEFT_PG_##fl), \
			   0, WEFT_EV_WRITE, "__folio_set_" #fl "(" #f ") store"))
#define __weft_folio_clear(f, fl)                                               \
	((void)WEFT_ACCESS(&(f)->flags, WEFT_A_STORE,                            \
			   WEFT_ACCESS(&(f)->flags, WEFT_A_LOAD, 0, 0, WEFT_EV_READ, \
				       "__folio_clear_" #fl "(" #f ") load") & ~(1ul << WEFT_PG_##fl), \
			   0, WEFT_EV_WRITE, "__folio_clear_" #fl "(" #f ") store"))

/* ------------------------------------------------------------- split */

/* The flags __split_huge_page_tail() clones from the head: PG_locked,
 * PG_referenced, PG_uptodate, PG_dirty, PG_active, PG_swapcache. Every
 * other bit of the tail (PG_waiters, PG_lru, ...) is cleared; the kit's
 * PG_tail marker stays until weft_clear_compound_head(). */
#define WEFT_SPLIT_CLONE_FLAGS                                                  \
	(1ul << WEFT_PG_locked | 1ul << WEFT_PG_referenced | 1ul << WEFT_PG_uptodate | \
	 1ul << WEFT_PG_dirty | 1ul << WEFT_PG_active | 1ul << WEFT_PG_swapcache)

/* The steps of __split_huge_page_tail() for tail i of head: */
/* page_tail->flags &= ~PAGE_FLAGS_CHECK_AT_PREP; |= head->flags & clone:
 * a load of the tail's flags, a load of the head's, a store of the tail's
 * (a concurrent atomic change of the tail's flags in between is lost). */
void weft_split_tail_flags(struct weft_mm *mm, struct weft_page *head, struct weft_page *tail);
/* page_tail->mapping = head->mapping; for a swap-cache folio
 * page_tail->private = head->private + i (the swap entry). */
void weft_split_tail_mapping(struct weft_mm *mm, struct weft_page *head, struct weft_page *tail,
			     unsigned i);
/* clear_compound_head(): the tail becomes its own head (and the kit's
 * PG_tail marker is cleared: two points). */
void weft_clear_compound_head(struct weft_mm *mm, struct weft_page *tail);
/*
 * __split_huge_page() of a folio whose head count the caller froze
 * (weft_folio_ref_freeze()): for each tail from the last to the first,
 * flags, mapping, compound head, then page_ref_unfreeze(tail, tail_refs);
 * then the head stops being compound (PG_head cleared, order 0). The
 * caller unfreezes the head. Each tail then is an order-0 page the kit
 * frees on its own.
 */
void weft_split_compound(struct weft_mm *mm, struct weft_page *head, int tail_refs);

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_prep_compound_page(...) WEFT_KIT_VOID(prep_compound_page, #__VA_ARGS__, __VA_ARGS__)
#define weft_compound_alloc(...) WEFT_KIT_VAL(struct weft_page *, compound_alloc, #__VA_ARGS__, __VA_ARGS__)
#define weft_compound_head(...) WEFT_KIT_VAL(struct weft_page *, compound_head, #__VA_ARGS__, __VA_ARGS__)
#define weft_page_is_tail(...) WEFT_KIT_VAL(bool, page_is_tail, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_nr(...) WEFT_KIT_VAL(unsigned, folio_nr, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_ref_count(...) WEFT_KIT_VAL(int, folio_ref_count, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_ref_add(...) WEFT_KIT_VOID(folio_ref_add, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_ref_sub(...) WEFT_KIT_VOID(folio_ref_sub, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_ref_sub_and_test(...) WEFT_KIT_VAL(bool, folio_ref_sub_and_test, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_ref_try_add(...) WEFT_KIT_VAL(bool, folio_ref_try_add, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_ref_freeze(...) WEFT_KIT_VAL(bool, folio_ref_freeze, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_ref_unfreeze(...) WEFT_KIT_VOID(folio_ref_unfreeze, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_get(...) WEFT_KIT_VOID(folio_get, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_try_get(...) WEFT_KIT_VAL(bool, folio_try_get, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_put(...) WEFT_KIT_VOID(folio_put, #__VA_ARGS__, __VA_ARGS__)
#define weft_split_tail_flags(...) WEFT_KIT_VOID(split_tail_flags, #__VA_ARGS__, __VA_ARGS__)
#define weft_split_tail_mapping(...) WEFT_KIT_VOID(split_tail_mapping, #__VA_ARGS__, __VA_ARGS__)
#define weft_clear_compound_head(...) WEFT_KIT_VOID(clear_compound_head, #__VA_ARGS__, __VA_ARGS__)
#define weft_split_compound(...) WEFT_KIT_VOID(split_compound, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
