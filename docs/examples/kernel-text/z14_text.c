/*
 * z14_text.c - ZOO Z14-text: 6.12's own mm/swap.c lru_add_drain_all()
 * (__lru_add_drain_all(): lru_drain_gen, its mutex, cpu_needs_drain(),
 * queue_work_on() and flush_work() of lru_add_drain_per_cpu()) and
 * folio_add_lru(), as merged and with the project's patch removing the
 * barriers (z14-text-no-barriers.patch). The kernel text comes from the
 * tree by weft_add_kernel_model(); this is the harness.
 *
 * Thread "fault" (CPU 1; main is CPU 0) puts a new folio in its CPU's
 * lru_add batch (folio_add_lru(), as do_anonymous_page() does) and then
 * needs every batch drained (lru_add_drain_all(), as move_pages()'
 * migrate_prep() does before isolating the folio); thread "drain" (CPU 2)
 * is another caller of lru_add_drain_all() (compaction, offlining). The
 * contract the caller relies on: a folio batched before the call is on
 * the LRU when it returns. Without the barriers, store buffering breaks
 * it: the batch count is still in CPU 1's store buffer when the drainer,
 * having bumped lru_drain_gen, reads it as 0 and queues no work there;
 * "fault" read the old generation, waits for the mutex, sees the new one
 * and returns, "drained by the other". Only weak memory shows it (SB is
 * allowed on x86-TSO too); under --memory sc both variants are silent.
 */
#define WEFT_LINUX_NR_CPUS 3
#include <weft/linux/mm_compat.h>

#include "ktext_swap.c"

#define NR 1

static struct folio folios[NR];
static int anon_vma;

static void setup(void)
{
	weft_linux_percpu_setup();
	weft_linux_lruvec_init();
	for (int i = 0; i < NR; i++) {
		INIT_LIST_HEAD(&folios[i].lru);
		/* a new anonymous folio: the faulting task's reference, mapped
		 * by one PTE (folio_add_new_anon_rmap()) */
		atomic_set(&folios[i]._refcount, 1);
		atomic_set(&folios[i]._mapcount, 0);
		folios[i].mapping = (struct address_space *)((uintptr_t)&anon_vma | PAGE_MAPPING_ANON);
		__folio_set_swapbacked(&folios[i]);
	}
}

/* The CPU whose lru_add batch holds f, or -1 (the oracle: peeks, no
 * scheduling points). */
static int batch_cpu(struct folio *f)
{
	for (unsigned c = 0; c < nr_cpu_ids; c++) {
		struct folio_batch *fb = &per_cpu(cpu_fbatches, c).lru_add;
		for (unsigned i = 0; i < weft_linux_peek(fb->nr) && i < PAGEVEC_SIZE; i++)
			if (weft_linux_peek(fb->folios[i]) == f)
				return (int)c;
	}
	return -1;
}

static void *fault(void *arg)
{
	struct folio *folio = arg;

	folio_add_lru(folio);
	lru_add_drain_all();
	if (!folio_test_lru(folio)) {
		int cpu = batch_cpu(folio);
		/* the object is the batch count the drainer read as 0: the
		 * diagram shows its last store, still buffered then */
		weft_report(WEFT_KIND_ASSERT,
			    cpu >= 0 ? (void *)&per_cpu(cpu_fbatches, cpu).lru_add.nr : (void *)folio,
			    WEFT_SITE(WEFT_EV_NOTE, "lru_add_drain_all() left this task's folio batched"),
			    "folio %d was added to CPU%u's lru_add batch before lru_add_drain_all(), "
			    "which returned with it still there (in CPU%d's batch, not on the LRU)",
			    (int)(folio - folios), smp_processor_id(), cpu);
	}
	return NULL;
}

static void *drain(void *arg)
{
	(void)arg;
	lru_add_drain_all();
	return NULL;
}

/* At quiescence: the folio on the LRU lists exactly when PG_lru, the
 * batches' references dropped (only the task's is left). */
static void audit(void)
{
	weft_linux_lru_audit(folios, NR);
	for (int i = 0; i < NR; i++)
		if (folio_ref_count(&folios[i]) != 1)
			weft_report(WEFT_KIND_PAGE_LEAK, &folios[i], WEFT_SITE(WEFT_EV_NOTE, "audit"),
				    "folio %d: refcount %d, expected 1 (the task's)", i,
				    folio_ref_count(&folios[i]));
}

int main(void)
{
	pthread_t t[2];

	setup();
	pthread_create(&t[0], NULL, fault, &folios[0]);
	pthread_create(&t[1], NULL, drain, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	audit();
	return 0;
}
