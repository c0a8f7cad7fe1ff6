/*
 * lru_batch.h - per-CPU folio batches in front of the LRU (mm/swap.c since
 * 2.5.x as pagevecs, folio_batch since 5.16): a page is first added to its
 * CPU's batch, which holds a reference on it, and reaches the LRU lists
 * when the batch fills or is drained. lru_add_drain() drains the calling
 * CPU's batches; lru_add_drain_all() queues a drain work item on every
 * CPU with something to drain and flushes them (a model writes its own
 * lru_add_drain_all() on top of weft_lru_add_drain_cpu() and
 * weft_lru_cpu_needs_drain(): Z11's bug is in that function).
 *
 * Batches: lru_add (new pages), lru_deactivate (active -> inactive) under
 * the per-CPU local_lock (preemption off), and lru_move_tail (rotate to the
 * cold end; called from end-of-writeback in interrupt context) under
 * local_lock_irqsave. Each holds up to `size` pages (FOLIO_BATCH_SIZE is
 * 15; a model chooses smaller to keep executions short).
 *
 * Built on the LRU of <weft/mm/lru.h> with WEFT_LRU_UNLESS_ZERO: PG_lru
 * holds no reference, the LRU lock protects the lists and PG_lru/PG_active.
 *
 * Memory ordering (--memory tso|lkmm), as mm/swap.c's: folio_add_lru() and
 * the other batch adds take the batch's reference with get_page()
 * (ordering nothing) and store the page and the batch count under the
 * local lock (preemption off: no barrier), so the count may still be in
 * the CPU's store buffer when the CPU's next load runs; a full batch's
 * move to the LRU is under the LRU lock. cpu_needs_drain() is racy loads
 * of the counts. A caller that needs its batched pages seen by another
 * CPU's lru_add_drain_all() orders its stores itself (smp_mb(): ZOO Z14).
 * A batch's reference is dropped with release_pages() after the move, so a
 * page freed by then goes to the allocator from the drain.
 */
#ifndef WEFT_MM_LRU_BATCH_H
#define WEFT_MM_LRU_BATCH_H

#include <weft/mm/lru.h>

#define WEFT_FBATCH_MAX 15      /* FOLIO_BATCH_SIZE */

struct weft_folio_batch {
	uint32_t nr;
	struct weft_page *pages[WEFT_FBATCH_MAX];
};

struct weft_cpu_fbatches {
	local_lock_t lock;                      /* lru_add, lru_deactivate */
	struct weft_folio_batch lru_add;
	struct weft_folio_batch lru_deactivate;
	local_lock_t lock_irq;                  /* lru_move_tail (irq-safe) */
	struct weft_folio_batch lru_move_tail;
};

struct weft_lru_batches {
	struct weft_lru *lru;
	uint32_t size;                          /* 1..WEFT_FBATCH_MAX */
	WEFT_PER_CPU(struct weft_cpu_fbatches, cpu);
};

/* Setup (main context). lru must use WEFT_LRU_UNLESS_ZERO. */
void weft_lru_batches_init(struct weft_lru_batches *b, struct weft_lru *lru, unsigned size);

/* folio_add_lru(): the caller holds a reference; the batch takes one more
 * and the page reaches the LRU at the next drain of this CPU. */
void weft_folio_add_lru(struct weft_lru_batches *b, struct weft_page *p);
/* folio_rotate_reclaimable(): move an inactive page on the LRU to the
 * cold end, through this CPU's lru_move_tail batch (interrupt-safe; what
 * end-of-writeback calls from its handler). */
void weft_folio_rotate_reclaimable(struct weft_lru_batches *b, struct weft_page *p);
/* folio_deactivate(): active -> inactive through the lru_deactivate batch.
 * The caller holds a reference. */
void weft_folio_deactivate(struct weft_lru_batches *b, struct weft_page *p);

/* lru_add_drain(): this CPU's batches. */
void weft_lru_add_drain(struct weft_lru_batches *b);
/* lru_add_drain_cpu(): cpu's batches; the caller keeps that CPU's batches
 * stable (it is that CPU, with preemption off, or runs on its worker). */
void weft_lru_add_drain_cpu(struct weft_lru_batches *b, unsigned cpu);
/* cpu_needs_drain(): does cpu have anything batched (racy reads, as the
 * kernel's)? */
bool weft_lru_cpu_needs_drain(struct weft_lru_batches *b, unsigned cpu);

/* Audits (no scheduling point): references p's batches hold, and how
 * many pages are batched on cpu. */
unsigned weft_lru_batch_refs(const struct weft_lru_batches *b, const struct weft_page *p);
unsigned weft_lru_batched(const struct weft_lru_batches *b, unsigned cpu);
/* Oracle (no scheduling point): the CPU whose lru_add batch holds p, or -1. */
int weft_lru_batch_cpu(const struct weft_lru_batches *b, const struct weft_page *p);
/* state_bucket() helper: for a CPU's lru_add.nr, 0x20000 | cpu << 8 | how
 * full (above weft_mm_state_bucket()'s values); 0 for any other offset. */
uint32_t weft_lru_batches_state_bucket(const struct weft_lru_batches *b, const void *world,
				       uint32_t off);
/* describe() helper: "CPU1 lru_add[0]"; false if off is not in b. */
bool weft_lru_batches_describe(const struct weft_lru_batches *b, const void *world,
			       uint32_t off, char *buf, size_t n);

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_lru_batches_init(...) WEFT_KIT_VOID(lru_batches_init, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_add_lru(...) WEFT_KIT_VOID(folio_add_lru, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_rotate_reclaimable(...) WEFT_KIT_VOID(folio_rotate_reclaimable, #__VA_ARGS__, __VA_ARGS__)
#define weft_folio_deactivate(...) WEFT_KIT_VOID(folio_deactivate, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_add_drain(...) WEFT_KIT_VOID(lru_add_drain, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_add_drain_cpu(...) WEFT_KIT_VOID(lru_add_drain_cpu, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_cpu_needs_drain(...) WEFT_KIT_VAL(bool, lru_cpu_needs_drain, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_batch_refs(...) WEFT_KIT_VAL(unsigned, lru_batch_refs, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_batched(...) WEFT_KIT_VAL(unsigned, lru_batched, #__VA_ARGS__, __VA_ARGS__)
#endif

#endif
