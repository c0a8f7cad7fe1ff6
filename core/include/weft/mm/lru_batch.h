/*
 * lru_batch.h - per-CPU folio batches in front of the LRU (mm/swap.c since
 * 2.5.x as pagevecs, folio_batch since 5.16): a page is first added to its
 * CPU's batch, which holds a reference on it, and reaches the LRU lists
 * when the batch fills or is drained. lru_add_drain() drains the calling
 * CPU's batches; lru_add_drain_all() queues a drain work item on every
 * CPU with something to drain and flushes them (a model writes its own
 * lru_add_drain_all() on top of weft_lru_add_drain_cpu() and
 * weft_lru_cpu_needs_drain(), or of the WEFT_LRU_DRAIN_* macros below:
 * Z11's bug is in that function).
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
/* Setup of the three: mm with nr_pages pages (counts unbiased), its LRU
 * lru (WEFT_LRU_UNLESS_ZERO, no heuristic) and the batches b of size
 * pages in front of it. */
void weft_lru_batches_setup(struct weft_lru_batches *b, struct weft_lru *lru, struct weft_mm *mm,
			    unsigned nr_pages, unsigned size);

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

/*
 * lru_add_drain_all()'s per-CPU machinery (mm/swap.c v5.5-v5.10), for a
 * model that writes the function itself around it. Macros, expanded in the
 * model: the sites of the work items, the mutex and the flushes are the
 * model's, and they name its world's members: W->b (the batches),
 * W->drain_lock (struct weft_mutex) and W->lru_add_drain_work (a
 * WEFT_PER_CPU(struct work_struct, ...)); <weft/workqueue.h> and
 * <weft/sleep.h> are the model's to include.
 */
/* mm_percpu_wq (mm/vmstat.c), the bound workqueue the work items run on:
 * one for every model, as the kernel's (a { "name" } workqueue of the
 * model's own: <weft/workqueue.h>). */
struct workqueue_struct;
extern struct workqueue_struct weft_mm_percpu_wq;
/* lru_add_drain_per_cpu() as the static function fn, the work item each
 * CPU's kworker runs: it drains that CPU's batches of the world (type
 * world) whose lru_add_drain_work[] holds the item. */
#define WEFT_LRU_DRAIN_WORK_FN(fn, world)                                              \
	static void fn(struct work_struct *w)                                           \
	{                                                                               \
		unsigned cpu = raw_smp_processor_id();                                  \
		world *W = (world *)((char *)(w - cpu) - offsetof(world, lru_add_drain_work)); \
		weft_lru_add_drain(&W->b);                                              \
	}
/* Setup: the mutex, and ncpus work items running fn. */
#define WEFT_LRU_DRAIN_ALL_INIT(W, ncpus, fn)                                          \
	do {                                                                            \
		mutex_init(&W->drain_lock);                                             \
		for (unsigned c = 0; c < (ncpus); c++)                                  \
			INIT_WORK(&W->lru_add_drain_work[c], fn);                       \
	} while (0)
/* The loop under the mutex: queue a drain on each of the first ncpus CPUs
 * whose batches are not empty (racy reads, cpu_needs_drain()), running
 * the statement queued for each one queued, then flush them. */
#define WEFT_LRU_DRAIN_CPUS(W, ncpus, queued)                                          \
	do {                                                                            \
		uint32_t has_work = 0;   /* the static has_work cpumask */              \
		for (unsigned cpu = 0; cpu < (ncpus); cpu++) {                          \
			if (weft_lru_cpu_needs_drain(&W->b, cpu)) {                     \
				queue_work_on(cpu, &weft_mm_percpu_wq, &W->lru_add_drain_work[cpu]); \
				has_work |= 1u << cpu;                                  \
				queued;                                                 \
			}                                                               \
		}                                                                       \
		for (unsigned cpu = 0; cpu < (ncpus); cpu++)                            \
			if (has_work >> cpu & 1)                                        \
				flush_work(&W->lru_add_drain_work[cpu]);                \
	} while (0)
/* describe() for the world W (of type world) at offset off: the mutex and
 * the work items, else the batches, the LRU W->lru and the pages W->mm. */
#define WEFT_LRU_DRAIN_ALL_DESCRIBE(W, world, off, buf, n)                             \
	do {                                                                            \
		uint32_t lk_ = (uint32_t)offsetof(world, drain_lock);                   \
		uint32_t wk_ = (uint32_t)offsetof(world, lru_add_drain_work);           \
		if ((off) >= lk_ && (off) < lk_ + sizeof(W->drain_lock))                \
			snprintf(buf, n, "lru_add_drain_all lock (mutex)");             \
		else if ((off) >= wk_ && (off) < wk_ + sizeof(W->lru_add_drain_work))   \
			snprintf(buf, n, "CPU%u lru_add_drain_work",                    \
				 (unsigned)(((off) - wk_) / sizeof(W->lru_add_drain_work[0]))); \
		else if (!weft_lru_batches_describe(&W->b, W, off, buf, n) &&           \
			 !weft_lru_describe(&W->lru, W, off, buf, n))                   \
			weft_mm_describe(&W->mm, W, off, buf, n);                       \
	} while (0)

/* Audit at quiescence of a page p the model keeps (cached, mapped): it is
 * on the LRU or in a batch of b, never both or neither. Else a report
 * (lru-state) at a site of the caller's with the text what, naming the
 * page as fmt with its arguments says; true if it reported. */
#define WEFT_LRU_AUDIT_ONE_HOME(b, p, what, fmt, ...)                                  \
	({                                                                              \
		bool on_lru_ = weft_page_peek_flag(p, lru);                             \
		bool batched_ = weft_lru_batch_refs(b, p) > 0;                          \
		if (on_lru_ == batched_)                                                \
			weft_report(WEFT_KIND_LRU_STATE, &(p)->flags, WEFT_SITE(WEFT_EV_NOTE, what), \
				    fmt ": on the LRU %d, batched %d (exactly one must hold)", \
				    __VA_ARGS__, on_lru_, batched_);                    \
		on_lru_ == batched_;                                                    \
	})

#ifndef WEFT_KIT_INTERNAL
/* The model's call of each operation is what reports and diagrams name
 * (WEFT_KIT_CALL_* of <weft/kernel.h>); the kit's own sources define
 * WEFT_KIT_INTERNAL and call one another directly. */
#define weft_lru_batches_init(...) WEFT_KIT_VOID(lru_batches_init, #__VA_ARGS__, __VA_ARGS__)
#define weft_lru_batches_setup(...) WEFT_KIT_VOID(lru_batches_setup, #__VA_ARGS__, __VA_ARGS__)
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
