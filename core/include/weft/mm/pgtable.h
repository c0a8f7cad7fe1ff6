/*
 * mm_pgtable.h - page tables of fake processes: one array of PTEs per
 * process, each none, a present page (pfn) or a swap entry (slot offset),
 * under one page-table lock (the split ptl of the PTE page,
 * pte_offset_map_lock()).
 *
 * Follows include/linux/pgtable.h and swapops.h of v6.11: pte_none(),
 * pte_present(), is_swap_pte(), pte_to_swp_entry(), pte_same(); the
 * swap_pte_batch() of mm/internal.h (v6.10, "mm: swap:
 * free_swap_and_cache_nr() as batched free_swap_and_cache()").
 *
 * Invariants:
 *  - A PTE is a value, never a pointer: the trace sees the same numbers on
 *    every machine. One device: a swap entry is its slot offset.
 *  - pte[] is written only with ptl held; lockless readers (the fault
 *    path's orig_pte) re-check with pte_same() under ptl before acting.
 *  - Every present PTE holds one reference on its page's folio and one
 *    folio mapcount; every swap PTE holds one swap count on its slot.
 */
#ifndef WEFT_MM_PGTABLE_H
#define WEFT_MM_PGTABLE_H

#include <weft/kernel.h>

#define WEFT_PT_MAX 16

#define WEFT_PTE_NONE 0u
#define WEFT_PTE_PRESENT 0x80000000u
#define WEFT_PTE_SWAP 0x40000000u
#define WEFT_PTE_VAL 0x0000ffffu

struct weft_pgtable {
	unsigned nr;                   /* PTEs in use; constant after setup */
	spinlock_t ptl;                /* protects pte[] writes */
	uint32_t pte[WEFT_PT_MAX];
};

static inline bool weft_pte_none(uint32_t pte)
{
	return pte == WEFT_PTE_NONE;
}

static inline bool weft_pte_present(uint32_t pte)
{
	return (pte & WEFT_PTE_PRESENT) != 0;
}

static inline bool weft_is_swap_pte(uint32_t pte)
{
	return (pte & WEFT_PTE_SWAP) != 0;
}

static inline unsigned weft_pte_pfn(uint32_t pte)
{
	return pte & WEFT_PTE_VAL;
}

static inline unsigned weft_pte_swp_offset(uint32_t pte)
{
	return pte & WEFT_PTE_VAL;
}

static inline uint32_t weft_mk_pte(unsigned pfn)
{
	return WEFT_PTE_PRESENT | (pfn & WEFT_PTE_VAL);
}

static inline uint32_t weft_swp_entry_to_pte(unsigned offset)
{
	return WEFT_PTE_SWAP | (offset & WEFT_PTE_VAL);
}

static inline bool weft_pte_same(uint32_t a, uint32_t b)
{
	return a == b;
}

/* Setup (main context). */
static inline void weft_pgtable_init(struct weft_pgtable *pt, unsigned nr)
{
	pt->nr = nr < WEFT_PT_MAX ? nr : WEFT_PT_MAX;
}

/* ptep_get() / set_pte_at(): macros so the site is the caller's. */
#define weft_ptep_get(pt, i) READ_ONCE((pt)->pte[(i)])
#define weft_set_pte(pt, i, v) WRITE_ONCE((pt)->pte[(i)], (v))

/* The end of the range [addr, addr + len) clipped to the table. */
static inline unsigned weft_pte_range_end(const struct weft_pgtable *pt, unsigned addr,
					  unsigned len)
{
	return addr + len < pt->nr ? addr + len : pt->nr;
}

/* zap_pte_range()'s walk, ptl held: the statement that follows runs for
 * each PTE of [addr, end) that is not none, i its index and pte the value
 * weft_ptep_get(pt, i) read. The statement may advance i over a batch;
 * continue goes on to the next PTE. A macro so the reads are the caller's
 * sites, as weft_ptep_get()'s are. */
#define weft_for_each_pte(pt, i, pte, addr, end)                                  \
	for (unsigned i = (addr); i < (end); i++)                                  \
		for (uint32_t pte = weft_ptep_get(pt, i), __weft_pte_once = 1;     \
		     __weft_pte_once && !weft_pte_none(pte); __weft_pte_once = 0)

/* follow_page(FOLL_GET) of address addr, ptl taken inside: the page the
 * table pt maps there, with a reference (weft_get_page() of mm, the page
 * model of <weft/mm/page.h>), or NULL. pt is the table itself, not a
 * pointer. A macro so the lock and the PTE read are the caller's sites,
 * named as it would write them: spin_lock(&pt.ptl), weft_ptep_get(&pt,
 * addr). */
#define weft_follow_page_get(mm, pt, addr)                                        \
	({                                                                         \
		struct weft_page *__weft_page = NULL;                              \
		spin_lock(&pt.ptl);                                                \
		uint32_t __weft_pte = weft_ptep_get(&pt, addr);                    \
		if (weft_pte_present(__weft_pte)) {                                \
			__weft_page = &(mm)->pages[weft_pte_pfn(__weft_pte)];      \
			weft_get_page(mm, __weft_page);                            \
		}                                                                  \
		spin_unlock(&pt.ptl);                                              \
		__weft_page;                                                       \
	})

/* Audit helper (no scheduling point): the page of mm (<weft/mm/page.h>)
 * the PTE at a maps, or NULL. */
#define weft_pte_peek_page(mm, pt, a)                                              \
	({                                                                         \
		uint32_t __weft_pte = weft_peek((pt)->pte[a]);                     \
		weft_pte_present(__weft_pte) ? &(mm)->pages[weft_pte_pfn(__weft_pte)] : NULL; \
	})

/* Audit helper (no scheduling point): how many PTEs hold exactly pte. */
static inline unsigned weft_pgtable_count(const struct weft_pgtable *pt, uint32_t pte)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pt->nr; i++)
		n += weft_peek(pt->pte[i]) == pte;
	return n;
}

#endif
