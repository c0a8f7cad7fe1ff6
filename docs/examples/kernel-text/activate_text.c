/*
 * activate_text.c - 6.12's mm/swap.c folio_mark_accessed() and
 * folio_activate() under Weft (docs/kernel-text.md): two tasks on two
 * CPUs touch the same inactive LRU folio twice each (the second touch of a
 * referenced folio asks for its activation through the CPU's
 * cpu_fbatches.lru_activate batch) and drain their CPU's batches.
 *
 * The batch takes the folio off the LRU (folio_test_clear_lru()) while it
 * holds it, so one CPU's activation wins and the other's is dropped. As
 * 6.12 has it the folio always ends on the active list, with PG_lru and
 * only the owner's reference; the audit checks the lists, the flags and
 * the count.
 */
#define WEFT_LINUX_NR_CPUS 3
#include <weft/linux/mm_compat.h>

#include "ktext_swap.c"

static struct folio folio;
static int anon_vma;

static void setup(void)
{
	weft_linux_percpu_setup();
	weft_linux_lruvec_init();
	INIT_LIST_HEAD(&folio.lru);
	atomic_set(&folio._refcount, 1);
	atomic_set(&folio._mapcount, 0);
	folio.mapping = (struct address_space *)((uintptr_t)&anon_vma | PAGE_MAPPING_ANON);
	__folio_set_swapbacked(&folio);
	folio_add_lru(&folio);   /* on CPU0, main's: then drained there */
	lru_add_drain();
}

static void *touch_twice(void *arg)
{
	(void)arg;
	folio_mark_accessed(&folio);
	folio_mark_accessed(&folio);
	lru_add_drain();
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	setup();
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, touch_twice, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	weft_linux_lru_audit(&folio, 1);
	if (!folio_test_active(&folio) || !folio_test_lru(&folio) || folio_ref_count(&folio) != 1)
		weft_report(WEFT_KIND_ASSERT, &folio, WEFT_SITE(WEFT_EV_NOTE, "audit"),
			    "touched twice on each CPU and drained, the folio is %s, %s, refcount %d "
			    "(want active, on the LRU, 1)",
			    folio_test_active(&folio) ? "active" : "inactive",
			    folio_test_lru(&folio) ? "on the LRU" : "off the LRU",
			    folio_ref_count(&folio));
	return 0;
}
