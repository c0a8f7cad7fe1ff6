/*
 * z2_text.c - ZOO Z2-text: 6.12's own mm/swapfile.c batch free
 * (free_swap_and_cache_nr() -> __swap_entries_free() -> swap_is_last_map())
 * against a concurrent reclaim of one small folio of a split large folio.
 * The kernel text comes from the tree by weft_add_kernel_model(); this is
 * the harness: the device, the swap cache, two threads, the audit.
 *
 * State: an order-2 folio was swapped out (slots 4-7 at 1|HAS_CACHE) and
 * split in the swap cache (one order-0 folio per slot); its four PTEs are
 * swap PTEs. Thread "reclaim" drops slot 5's folio from the swap cache
 * (shrink_folio_list() -> __remove_mapping(): slot 5 becomes 0x01); thread
 * "zap" unmaps the four PTEs: free_swap_and_cache_nr(entry 4, 4).
 * With v2's swap_is_last_map() a mixed 0x41 0x01 0x41 0x41 range is taken
 * whole: slot 5 becomes 0x40 with no folio to reclaim, leaked (swap-slot-leak).
 * As merged (v3) the mixed range falls back to entry-by-entry frees.
 * The leak needs the reclaim before the zap's swap_is_last_map(): dfs at
 * bound 0 runs it first when main waits in pthread_join() (0 preemptions).
 */
#include <weft/linux/swap_compat.h>

#include "ktext_swapfile.c"

#define NR 4
#define BASE 4          /* slot 0 is the swap header's, never a swap entry */

static struct swap_info_struct dev;
static unsigned char map[SWAPFILE_CLUSTER];
static unsigned long zeromap[SWAPFILE_CLUSTER / BITS_PER_LONG];
static struct swap_cluster_info cluster;
static struct folio folios[NR];

static void setup(void)
{
	weft_linux_swap_device(&dev, map, zeromap, &cluster, SWAPFILE_CLUSTER, NR);
	swap_info[0] = &dev;
	for (int i = 0; i < NR; i++) {
		map[BASE + i] = SWAP_HAS_CACHE | 1;
		weft_linux_add_to_swap_cache(&folios[i], swp_entry(0, BASE + i));
	}
}

/* shrink_folio_list() -> __remove_mapping() of a clean, unmapped
 * swap-cache folio: isolate, lock, freeze at 2 (cache + isolation),
 * delete from the cache, put_swap_folio() */
static void *reclaim(void *arg)
{
	struct folio *folio = arg;
	struct address_space *as = swap_address_space(folio->swap);

	folio_get(folio);
	if (folio_trylock(folio)) {
		xa_lock_irq(&as->i_pages);
		if (folio_test_swapcache(folio) && atomic_read(&folio->_refcount) == 2) {
			swp_entry_t swap = folio->swap;

			__delete_from_swap_cache(folio, swap, NULL);
			xa_unlock_irq(&as->i_pages);
			put_swap_folio(folio, swap);
			folio_ref_sub(folio, 1);
		} else {
			xa_unlock_irq(&as->i_pages);
		}
		folio_unlock(folio);
	}
	folio_put(folio);
	return NULL;
}

static void *zap(void *arg)
{
	(void)arg;
	free_swap_and_cache_nr(swp_entry(0, BASE), NR);
	return NULL;
}

/* At quiescence no PTE refers to the slots: each is free, or HAS_CACHE
 * with its folio still cached (a reclaim that lost a trylock); a cached
 * folio holds the cache's reference, a dropped one none. */
static void audit(void)
{
	weft_linux_swap_audit(&dev, BASE, NR, NULL);
	for (int i = 0; i < NR; i++)
		weft_linux_folio_audit(&folios[i], weft_swapper_space.i_pages.slot[BASE + i] ? 1 : 0);
}

int main(void)
{
	pthread_t t[2];

	setup();
	pthread_create(&t[0], NULL, zap, NULL);
	pthread_create(&t[1], NULL, reclaim, &folios[1]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	audit();
	return 0;
}
