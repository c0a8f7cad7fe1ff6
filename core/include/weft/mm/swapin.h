/*
 * swapin.h - the steps of do_swap_page() and zap_pte_range() that a swap
 * model writes in its own words (the skip-swapcache read of v6.7, the
 * 2.6.35 swap cache) and that are the same in every kernel since: a present
 * PTE zapped, a slot's contents read into a folio, the fault's folio
 * installed for its swap entry. A model that wants the whole v6.x path calls
 * weft_mm_swap_in()/weft_mm_zap() of <weft/mm/swap.h> instead.
 *
 * Each runs in a model thread, on the kit's swap device (<weft/mm/swap.h>)
 * and page table (<weft/mm/pgtable.h>); each step is a traced access, so the
 * strategies interleave between them as they do in the model's own code.
 *
 * Kernel: mm/memory.c (zap_present_ptes(), do_swap_page()), mm/page_io.c
 * (swap_read_folio()), v6.8.
 */
#ifndef WEFT_MM_SWAPIN_H
#define WEFT_MM_SWAPIN_H

#include <weft/mm/swap.h>

/* zap_present_ptes() of the present PTE pte at addr, ptl held: the PTE
 * cleared, the mapcount of its folio dropped, the mapping's reference put
 * (folio_put(): the last one frees the folio). */
void weft_zap_present_pte(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr,
			  uint32_t pte);

/* swap_read_folio(), synchronous: the contents of slot off into page. */
void weft_swap_read_folio(struct weft_swap_info *si, struct weft_page *page, unsigned off);

/* The install of do_swap_page(), ptl held and pte_same() checked by the
 * caller: swap_free() of the entry off, folio_add_anon_rmap() of folio,
 * set_pte_at() of page (a page of folio); the caller's reference on the
 * folio becomes the mapping's. */
void weft_swapin_map(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr,
		     unsigned off, struct weft_page *folio, struct weft_page *page);

/* The quiescence oracle of such a model (main context, no scheduling
 * point): every address a of pt whose truth[a] is not 0, the version the
 * model wrote there last, holds it in its page or in the slot its swap PTE
 * names (weft_swap_pte_data()). Else a data-loss report at site, the
 * caller's (a site id hashes the function: the audit's is the model's),
 * naming the address "<prefix>address a", the other side the last write
 * of the copy read. False after a report. */
bool weft_swap_audit_data(const struct weft_swap_info *si, const struct weft_pgtable *pt,
			  const uint32_t *truth, const struct weft_site *site, const char *prefix);

#ifndef WEFT_KIT_INTERNAL
#define weft_zap_present_pte(...) WEFT_KIT_VOID(zap_present_pte, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap_read_folio(...) WEFT_KIT_VOID(swap_read_folio, #__VA_ARGS__, __VA_ARGS__)
#define weft_swapin_map(...) WEFT_KIT_VOID(swapin_map, #__VA_ARGS__, __VA_ARGS__)
#define weft_swap_audit_data(...) WEFT_KIT_VAL(bool, swap_audit_data, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
