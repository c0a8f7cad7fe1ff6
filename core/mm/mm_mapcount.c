/*
 * mm_mapcount.c - page mapcounts (<weft/mm/mapcount.h>): page_add_*_rmap(),
 * page_remove_rmap(), page_mapcount(), and mm/page_alloc.c's "nonzero
 * mapcount" bad-page check at free.
 *
 * Which mm has which counts is the kit's own per-execution table (the
 * counts are in the model's world, struct weft_mm cannot point at them
 * without moving every offset after it): an entry is valid for the
 * execution that made it (weft_execution_id()).
 */
#define WEFT_KIT_INTERNAL 1
#include <stdio.h>

#include <weft/mm/mapcount.h>

static struct {
	const struct weft_mm *mm;
	struct weft_mapcounts *mc;
	uint32_t exec;
} named[8];

static struct weft_mapcounts *counts_of(const struct weft_mm *mm)
{
	uint32_t e = weft_execution_id();

	for (unsigned i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i].mm == mm && named[i].exec == e && named[i].mc)
			return named[i].mc;
	return NULL;
}

void weft_mapcounts_init(struct weft_mapcounts *mc, struct weft_mm *mm)
{
	uint32_t e = weft_execution_id();
	unsigned slot = 0;

	if (!WEFT_CHECK_WORLD(mc, "weft_mapcounts_init()"))
		return;
	for (unsigned i = 0; i < WEFT_MM_NR_PAGES; i++)
		atomic_set(&mc->mapcount[i], 0);
	for (unsigned i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (named[i].mm == mm || named[i].exec != e) {
			slot = i;   /* this mm's, or a free (stale) entry */
			if (named[i].mm == mm)
				break;
		}
	}
	named[slot].mm = mm;
	named[slot].mc = mc;
	named[slot].exec = e;
}

void weft_page_add_rmap(struct weft_mapcounts *mc, struct weft_mm *mm, struct weft_page *p)
{
	atomic_inc(&mc->mapcount[weft_page_nr(mm, p) % WEFT_MM_NR_PAGES]);
}

void weft_page_remove_rmap(struct weft_mapcounts *mc, struct weft_mm *mm, struct weft_page *p)
{
	unsigned nr = weft_page_nr(mm, p) % WEFT_MM_NR_PAGES;
	int now = atomic_dec_return(&mc->mapcount[nr]);

	if (now < 0)
		weft_report(WEFT_KIND_BUG_ON, &mc->mapcount[nr],
			    WEFT_SITE(WEFT_EV_NOTE, "page_remove_rmap(): "
						    "VM_BUG_ON_PAGE(page_mapcount(page) < 0)"),
			    "page %u unmapped more times than it was mapped (mapcount %d)", nr, now);
}

int weft_page_mapcount(struct weft_mapcounts *mc, struct weft_mm *mm, struct weft_page *p)
{
	return atomic_read(&mc->mapcount[weft_page_nr(mm, p) % WEFT_MM_NR_PAGES]);
}

int weft_mapcount_at_free(struct weft_mm *mm, struct weft_page *p)
{
	struct weft_mapcounts *mc = counts_of(mm);

	if (!mc)
		return 0;
	return weft_peek(mc->mapcount[weft_page_nr(mm, p) % WEFT_MM_NR_PAGES].counter);
}

void weft_mapcount_report_free(struct weft_mm *mm, struct weft_page *p, int count)
{
	struct weft_mapcounts *mc = counts_of(mm);
	unsigned nr = weft_page_nr(mm, p);
	atomic_t *c = mc ? &mc->mapcount[nr % WEFT_MM_NR_PAGES] : NULL;
	struct weft_access other = c ? weft_last_write(c) : (struct weft_access){ 0 };

	spin_unlock(&mm->zone_lock);   /* taken by weft_page_free() */
	weft_report2(WEFT_KIND_BAD_FREE, c ? (void *)c : (void *)p,
		     WEFT_SITE(WEFT_EV_NOTE, "__free_pages_ok: bad_page(page, \"nonzero mapcount\")"),
		     other.valid ? &other : NULL, "page %u freed with mapcount %d (nonzero mapcount)",
		     nr, count);
}

bool weft_mapcounts_describe(const struct weft_mapcounts *mc, const void *world, uint32_t off,
			     char *buf, size_t n)
{
	uintptr_t base = (uintptr_t)mc - (uintptr_t)world;

	if (off < base || off >= base + sizeof(*mc))
		return false;
	snprintf(buf, n, "page %u ->_mapcount", (unsigned)((off - base) / sizeof(atomic_t)));
	return true;
}
