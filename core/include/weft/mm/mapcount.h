/*
 * mapcount.h - page mapcounts of the mm kit: how many page tables map a
 * page (page_mapcount(), page->_mapcount + 1), the rmap operations that
 * change it (page_add_anon_rmap()/page_add_file_rmap(), page_remove_rmap())
 * and the allocator's bad-page check at free, "nonzero mapcount"
 * (mm/page_alloc.c free_page_is_bad() -> bad_page()).
 *
 * The counts live beside the pages, in a struct the model embeds in its
 * world and names to its mm in setup; struct weft_page keeps its layout
 * (stored replays hash world offsets). Once named, weft_page_free() of a
 * page whose mapcount is not 0 is a bad-free report ("nonzero mapcount")
 * and the page is not freed, as bad_page() leaves it; a
 * page_remove_rmap() below 0 is a bug-on (the kernel's
 * VM_BUG_ON_PAGE(page_mapcount(page) < 0)).
 */
#ifndef WEFT_MM_MAPCOUNT_H
#define WEFT_MM_MAPCOUNT_H

#include <weft/mm/page.h>

struct weft_mapcounts {
	atomic_t mapcount[WEFT_MM_NR_PAGES];   /* page_mapcount(): 0 unmapped */
};

/* Setup: zero counts, and weft_page_free() of mm checks them from now on
 * (for this execution). */
void weft_mapcounts_init(struct weft_mapcounts *mc, struct weft_mm *mm);
/* page_add_*_rmap(): one more mapping. */
void weft_page_add_rmap(struct weft_mapcounts *mc, struct weft_mm *mm, struct weft_page *p);
/* page_remove_rmap(): one mapping fewer; below 0 is a bug-on. */
void weft_page_remove_rmap(struct weft_mapcounts *mc, struct weft_mm *mm, struct weft_page *p);
/* page_mapcount(), page_mapped(): a read (a scheduling point). */
int weft_page_mapcount(struct weft_mapcounts *mc, struct weft_mm *mm, struct weft_page *p);
static inline bool weft_page_mapped(struct weft_mapcounts *mc, struct weft_mm *mm,
				    struct weft_page *p)
{
	return weft_page_mapcount(mc, mm, p) > 0;
}

/* describe() helper: "page 3 ->_mapcount" for an offset inside mc. */
bool weft_mapcounts_describe(const struct weft_mapcounts *mc, const void *world, uint32_t off,
			     char *buf, size_t n);

/* The allocator's side (mm_page.c, under mm's zone lock): the count of p
 * if mm has mapcounts and it is not 0, else 0 (no scheduling point); then
 * the report, which drops the zone lock first. */
int weft_mapcount_at_free(struct weft_mm *mm, struct weft_page *p);
void weft_mapcount_report_free(struct weft_mm *mm, struct weft_page *p, int count);

#ifndef WEFT_KIT_INTERNAL
/* the model's call of each is named in reports and diagrams */
#define weft_page_add_rmap(mc, mm, p) WEFT_CALL_OP_VOID(page_add_rmap, #p, (mc), (mm), (p))
#define weft_page_remove_rmap(mc, mm, p) WEFT_CALL_OP_VOID(page_remove_rmap, #p, (mc), (mm), (p))
#define weft_page_mapcount(mc, mm, p) WEFT_CALL_OP_VAL(int, page_mapcount, #p, (mc), (mm), (p))
#endif

#endif
