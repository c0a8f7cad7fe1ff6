/*
 * swapin_text.c - a second function set from 6.12's mm/swapfile.c under
 * Weft (docs/kernel-text.md): the last references to one swap slot dropped
 * by three paths at once, all in the kernel's own text.
 *
 * State: a forked anonymous page was swapped out: slot 4 at 2|HAS_CACHE
 * (two swap PTEs, one per process), its folio still in the swap cache.
 *   swapin   process 1 faults: do_swap_page() finds the folio in the swap
 *            cache, maps it and drops its swap reference: swap_free_nr()
 *   exit     process 2 exits: zap_pte_range() -> free_swap_and_cache_nr()
 *   kswapd   folio_free_swap() under the folio lock: drops the swap cache's
 *            copy once no PTE refers to the slot
 * As 6.12 has it the slot ends free or cached, never leaked, and the folio
 * keeps exactly the mapping's reference (and the cache's, if cached).
 */
#include <weft/linux/swap_compat.h>

#include "ktext_swapfile.c"

#define SLOT 4

static struct swap_info_struct dev;
static unsigned char map[SWAPFILE_CLUSTER];
static unsigned long zeromap[SWAPFILE_CLUSTER / BITS_PER_LONG];
static struct swap_cluster_info cluster;
static struct folio folio;

static void setup(void)
{
	weft_linux_swap_device(&dev, map, zeromap, &cluster, SWAPFILE_CLUSTER, 1);
	swap_info[0] = &dev;
	map[SLOT] = SWAP_HAS_CACHE | 2;
	weft_linux_add_to_swap_cache(&folio, swp_entry(0, SLOT));
}

/* do_swap_page(), swap cache hit: lookup (a reference), lock, map the
 * page (the lookup's reference becomes the mapping's), swap_free_nr() */
static void *swapin(void *arg)
{
	swp_entry_t entry = swp_entry(0, SLOT);
	struct folio *f = filemap_get_folio(swap_address_space(entry), swap_cache_index(entry));

	(void)arg;
	if (IS_ERR(f))
		return NULL;
	while (!folio_trylock(f))
		sched_yield();
	atomic_inc(&f->_mapcount);
	swap_free_nr(entry, 1);
	folio_unlock(f);
	return NULL;
}

static void *exit_mm(void *arg)
{
	(void)arg;
	free_swap_and_cache_nr(swp_entry(0, SLOT), 1);
	return NULL;
}

static void *kswapd(void *arg)
{
	(void)arg;
	if (folio_trylock(&folio)) {
		folio_free_swap(&folio);
		folio_unlock(&folio);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	setup();
	pthread_create(&t[0], NULL, swapin, NULL);
	pthread_create(&t[1], NULL, exit_mm, NULL);
	pthread_create(&t[2], NULL, kswapd, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* the swap-in mapped the page: no PTE refers to the slot any more */
	weft_linux_swap_audit(&dev, SLOT, 1, NULL);
	bool cached = weft_swapper_space.i_pages.slot[SLOT] != NULL;
	weft_linux_folio_audit(&folio, 1 + cached);
	return 0;
}
