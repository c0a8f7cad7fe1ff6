/*
 * memory.h - the memory subsystem of the fake CPUs, behind the access
 * funnel (core/src only; docs/memory-model.md). memory.c has the models,
 * store_buffer.c the per-CPU store buffers, history.c the versions of
 * memory the kernel's model reads.
 *
 * Under sc (the default) nothing here runs: the funnel's hot path pays one
 * comparison per scheduling point (M.step >= weft_mem_due, false while
 * weft_mem_due is UINT32_MAX) and one flag test per access.
 *
 * Under a weak model (tso, lkmm) every CPU has a store buffer:
 *  - a store asks the strategy for a delay code (ops->pick_delay); code 0
 *    with nothing it must follow in its buffer writes memory at once, as
 *    sc does; otherwise the store joins its CPU's buffer and becomes
 *    visible at the first scheduling point at or after its due step;
 *  - tso keeps each buffer FIFO (x86-TSO, Owens, Sarkar, Sewell, TPHOLs
 *    2009); lkmm lets a store overtake older ones to other locations
 *    unless an smp_wmb(), a release or a fence is between them (memory.c);
 *  - a load of the CPU that made a buffered store reads it (forwarding);
 *    otherwise tso reads memory, lkmm a version of it its floors allow;
 *  - smp_mb(), the fully ordered atomics (all of them under tso), and
 *    every primitive that is not a load, a store, a read-modify-write or
 *    spin_unlock() (locks, sleeps, wake-ups, spawn, join: each implies a
 *    full barrier in the kernel, or is one here) drain the CPU's buffer
 *    first; spin_unlock() is a release (weft_mem_unlock);
 *  - a migration drains the CPU the thread leaves, a task switch on a CPU
 *    is a full barrier (__schedule()); the end of an execution drains
 *    every buffer (before the audits); a thread that yields with nothing
 *    else runnable drains every buffer (buffers drain in finite time on
 *    real CPUs: a spinning waiter must see the store).
 * A buffered store becoming visible is traced as WEFT_EV_FLUSH under the
 * thread that made it; a load that read an older version than its CPU
 * could see is traced with old (the newest) != val (what it read).
 *
 * Invariants: a buffer holds only entries of threads of its CPU, in
 * program order; no entry is due before an entry it must follow; no entry
 * has a due step <= M.step after a scheduling point (flushed there); every
 * buffer is empty when an execution ends normally and when weft_mem_reset
 * starts one.
 */
#ifndef WEFT_MEMORY_H
#define WEFT_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include <weft/weft.h>

/* UINT32_MAX under sc; 0 under a weak model (every point calls in), or
 * while weft_point_hook is set. */
extern uint32_t weft_mem_due;
/* A debugging observer of the machine (machine/dep_audit.c, set once at
 * weft_machine_init() from WEFT_DPOR_AUDIT): called at every scheduling
 * point, first thing in weft_mem_point(). NULL (always, unless asked):
 * under sc weft_mem_due stays UINT32_MAX and the hot path is as it was. */
extern void (*weft_point_hook)(void);
/* A weak model is on for the current execution. */
extern bool weft_mem_weak;
/* weft_mem_switch_in() is due at a switch: a weak model, or
 * weft_point_hook set (the hook's windows end at a switch too). */
extern bool weft_mem_switch_due;

/* Execution start: the model of this execution; empty buffers. */
void weft_mem_reset(enum weft_memory_model m);
/* The scheduling point of the current thread's next operation (site s):
 * flush what is due; drain the CPU's buffer before an ordering primitive. */
void weft_mem_point(const struct weft_site *s);
/* A marked access of the current thread under a weak model, after its
 * scheduling point: returns the old value (what a load reads), *nv the
 * value stored or read, *buffered whether a store went to the buffer (the
 * flush writes the shadow then). */
uint64_t weft_mem_access(void *addr, uint32_t loc, unsigned size, unsigned aop, uint64_t a,
			 uint64_t b, const struct weft_site *s, uint64_t *nv, bool *buffered);
/* A fence of the current thread (enum weft_fence_kind). */
void weft_mem_fence(unsigned kind);
/* Plain accesses (PLAIN_READ/PLAIN_WRITE) of the current thread: the
 * model's own C access runs between the two calls. Before a read: a value
 * its CPU buffered is put in memory for the read to see, and put back
 * after. After a write: the store is buffered or not (the memory is put
 * back to old if it is). */
void weft_mem_plain_read_begin(void *addr, unsigned size);
void weft_mem_plain_read_end(void);
bool weft_mem_plain_write(void *addr, uint32_t loc, unsigned size, uint64_t old, uint64_t val,
			  const struct weft_site *s);
/* spin_unlock() of lock by the current thread, after the lock word was
 * released in memory (site s): a release, which leaves older buffered
 * stores of the CPU in its buffer behind a mark of the unlock. */
void weft_mem_unlock(const void *lock, const struct weft_site *s);
/* The current thread acts on lock (takes it, tries it, tests it): every
 * other CPU's buffered stores older than its unlock of lock become visible
 * first, as the lock word could not have been seen free before them.
 * acquire: it takes the lock (under lkmm an acquire, and after an unlock
 * of its CPU a full barrier); spin_is_locked() orders nothing (the LKMM's
 * __islocked is a plain read of the lock). */
void weft_mem_observe_lock(const void *lock, bool acquire);
/* Thread tid runs next: a task that follows another task on its CPU does
 * so through __schedule()'s full barrier (the CPU's buffer drains); an
 * interrupt continues the CPU's program order. Called while
 * weft_mem_switch_due (weft_point_hook first, then the weak model's). */
void weft_mem_switch_in(unsigned tid);
/* A thread moved from one CPU to another (through the run queues' locks):
 * its stores on from become visible, and on to it sees what from saw. */
void weft_mem_migrate(unsigned from, unsigned to);
/* The newest store to addr still in a CPU's buffer (the last write made
 * there, not yet visible to every CPU): true and *a. */
bool weft_mem_pending_store(const void *addr, struct weft_access *a);
/* A full barrier of CPU cpu, whatever runs there (a grace period's
 * quiescent state of a CPU with no reader). */
void weft_mem_cpu_barrier(unsigned cpu);
/* The current thread woke from a sleep: a full barrier on its CPU. */
void weft_mem_resumed(void);
/* A yield of the current thread (cpu_relax() in a spin-wait). */
void weft_mem_yield(void);
/* Make every store buffered on cpu visible (a migration leaves it). */
void weft_mem_drain_cpu(unsigned cpu);
/* Make every buffered store visible (execution end, a lone yield). */
void weft_mem_drain_all(void);

#endif
