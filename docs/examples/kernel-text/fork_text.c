/*
 * fork_text.c - fork copying a swap PTE while the parent exits and reclaim
 * drops the slot's swap-cache folio, in 6.12's own mm/swapfile.c
 * (docs/kernel-text.md): swap_duplicate() -> __swap_duplicate() against
 * free_swap_and_cache_nr() and put_swap_folio().
 *
 * State: slot 4 at 1|HAS_CACHE: the parent's one swap PTE, a clean folio
 * still in the swap cache (its one reference is the cache's).
 *   fork     copy_nonpresent_pte() under the page table lock: the child
 *            gets the entry when swap_duplicate() takes a reference
 *   exit     zap_pte_range() under the page table lock: the parent's PTE
 *            is cleared, free_swap_and_cache_nr() drops its reference
 *   reclaim  shrink_folio_list() -> __remove_mapping(), as in z2_text.c
 * As 6.12 has it the slot ends holding exactly the child's reference (if
 * the fork came first) and HAS_CACHE exactly while the folio is cached.
 *
 * add_swap_count_continuation() (swap_duplicate()'s way out of a full
 * count byte, which allocates a page) is excluded: a count of 2 never
 * needs it, and the stand-in below says so if it is ever called.
 */
#include <weft/linux/swap_compat.h>

int add_swap_count_continuation(swp_entry_t entry, gfp_t gfp_mask);
#include "ktext_swapfile.c"

#define SLOT 4

static struct swap_info_struct dev;
static unsigned char map[SWAPFILE_CLUSTER];
static unsigned long zeromap[SWAPFILE_CLUSTER / BITS_PER_LONG];
static struct swap_cluster_info cluster;
static struct folio folio;
static spinlock_t ptl;
static swp_entry_t parent_pte, child_pte;       /* val 0: none */

int add_swap_count_continuation(swp_entry_t entry, gfp_t gfp_mask)
{
	(void)entry;
	(void)gfp_mask;
	weft_linux_stub("add_swap_count_continuation");
	return -ENOMEM;
}

static void *fork_child(void *arg)
{
	(void)arg;
	spin_lock(&ptl);
	if (parent_pte.val && swap_duplicate(parent_pte) == 0)
		child_pte = parent_pte;
	spin_unlock(&ptl);
	return NULL;
}

static void *exit_parent(void *arg)
{
	swp_entry_t entry;

	(void)arg;
	spin_lock(&ptl);
	entry = parent_pte;
	parent_pte.val = 0;
	if (entry.val)
		free_swap_and_cache_nr(entry, 1);
	spin_unlock(&ptl);
	return NULL;
}

static void *reclaim(void *arg)
{
	struct address_space *as = swap_address_space(folio.swap);

	(void)arg;
	folio_get(&folio);
	if (folio_trylock(&folio)) {
		xa_lock_irq(&as->i_pages);
		if (folio_test_swapcache(&folio) && atomic_read(&folio._refcount) == 2) {
			swp_entry_t swap = folio.swap;

			__delete_from_swap_cache(&folio, swap, NULL);
			xa_unlock_irq(&as->i_pages);
			put_swap_folio(&folio, swap);
			folio_ref_sub(&folio, 1);
		} else {
			xa_unlock_irq(&as->i_pages);
		}
		folio_unlock(&folio);
	}
	folio_put(&folio);
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	weft_linux_swap_device(&dev, map, zeromap, &cluster, SWAPFILE_CLUSTER, 1);
	swap_info[0] = &dev;
	spin_lock_init(&ptl);
	map[SLOT] = SWAP_HAS_CACHE | 1;
	weft_linux_add_to_swap_cache(&folio, swp_entry(0, SLOT));
	parent_pte = swp_entry(0, SLOT);
	pthread_create(&t[0], NULL, fork_child, NULL);
	pthread_create(&t[1], NULL, exit_parent, NULL);
	pthread_create(&t[2], NULL, reclaim, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	unsigned char child_refs[1] = { child_pte.val != 0 };
	weft_linux_swap_audit(&dev, SLOT, 1, child_refs);
	weft_linux_folio_audit(&folio, weft_swapper_space.i_pages.slot[SLOT] ? 1 : 0);
	return 0;
}
