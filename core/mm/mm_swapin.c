/*
 * mm_swapin.c - the shared steps of do_swap_page() and zap_pte_range() for
 * swap models that write the rest of the path themselves (<weft/mm/swapin.h>).
 * Kernel: mm/memory.c zap_present_ptes() and do_swap_page() of v6.8,
 * mm/page_io.c swap_read_folio(). And the data oracle such models share.
 */
#define WEFT_KIT_INTERNAL 1
#include <weft/mm/swapin.h>

void weft_zap_present_pte(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr,
			  uint32_t pte)
{
	struct weft_mm *mm = si->mm;
	struct weft_page *folio = weft_page_folio(mm, &mm->pages[weft_pte_pfn(pte)]);

	weft_set_pte(pt, addr, WEFT_PTE_NONE);
	atomic_dec(&si->mapcount[weft_page_nr(mm, folio)]);   /* folio_remove_rmap_ptes() */
	weft_put_page(mm, folio);                               /* tlb batch: folio_put() */
}

void weft_swap_read_folio(struct weft_swap_info *si, struct weft_page *page, unsigned off)
{
	WRITE_ONCE(page->data, READ_ONCE(si->data[off]));
}

void weft_swapin_map(struct weft_swap_info *si, struct weft_pgtable *pt, unsigned addr,
		     unsigned off, struct weft_page *folio, struct weft_page *page)
{
	struct weft_mm *mm = si->mm;

	weft_swap_free(si, off);                                /* swap_free_nr() */
	atomic_inc(&si->mapcount[weft_page_nr(mm, folio)]);     /* folio_add_anon_rmap_ptes() */
	weft_set_pte(pt, addr, weft_mk_pte(weft_page_nr(mm, page)));
}

bool weft_swap_audit_data(const struct weft_swap_info *si, const struct weft_pgtable *pt,
			  const uint32_t *truth, const struct weft_site *site, const char *prefix)
{
	for (unsigned a = 0; a < pt->nr; a++) {
		uint32_t want = truth[a];
		const uint32_t *obj = weft_swap_pte_data(si, weft_peek(pt->pte[a]));
		if (!want || !obj)
			continue;
		uint32_t got = weft_peek(*obj);
		if (got != want) {
			struct weft_access other = weft_last_write(obj);
			weft_report2(WEFT_KIND_DATA_LOSS, obj, site, &other,
				     "%saddress %u holds version %#x; %#x was written there last",
				     prefix, a, got, want);
			return false;
		}
	}
	return true;
}
