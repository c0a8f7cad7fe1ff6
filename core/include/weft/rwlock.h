/*
 * rwlock.h - reader-writer spinlocks (include/linux/rwlock.h,
 * kernel/locking/qrwlock.c, v6.12) for Weft models. A family header of
 * its own: a model includes it when it wants these.
 *
 * As the queued rwlock behaves:
 *  - read_lock() spins while a writer holds the lock, or while a writer
 *    waits for it, unless the reader is in interrupt context
 *    (in_interrupt(): hard or soft IRQ, or bottom halves off), which the
 *    kernel lets through so that an interrupt handler's read_lock() does
 *    not deadlock against a writer queued behind the interrupted reader;
 *    a process-context reader that takes the lock again while a writer
 *    waits therefore deadlocks, as in the kernel;
 *  - write_lock() spins until no reader and no writer holds it;
 *  - every form disables preemption while it holds the lock; the _irq,
 *    _irqsave and _bh forms also mask interrupts or bottom halves;
 *  - a waiter is a blocked thread, not a thread burning steps, so a cycle
 *    is a `deadlock` naming a holder; the write side is a lockdep-lite
 *    class (lock-order-inversion, irq-lock-inversion), the read side is
 *    recursive and takes no edge (a read-read cycle is no inversion);
 *  - read_lock() is an acquire and read_unlock() a release under weak
 *    memory, as for spinlocks.
 *
 *   rwlock_t, rwlock_init(l), read_lock(l), read_unlock(l), write_lock(l),
 *   write_unlock(l), read_trylock(l), write_trylock(l), and the _irq,
 *   _irqsave(l, flags)/_irqrestore(l, flags) and _bh forms of each lock
 *   and unlock
 *
 * Natively (weft stress) the lock is a reader count and a writer word on
 * real atomics, spinning with the stop poll (no writer fairness). A model
 * with kernel names of its own for these defines WEFT_OWN_RWLOCK first.
 */
#ifndef WEFT_RWLOCK_H
#define WEFT_RWLOCK_H

#include <weft/kernel.h>
#ifdef WEFT_NATIVE
#include <sched.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* writer: 1 + the writer thread (0: none); readers: read holds;
 * reader_mask: the threads with a read hold; writers_waiting: writers
 * spinning for it (they hold off new process-context readers) */
struct weft_rwlock {
	uint32_t writer;
	uint32_t readers;
	uint32_t reader_mask;
	uint32_t writers_waiting;
};

/* What a lock or unlock masks besides preemption. */
enum weft_rw_mask {
	WEFT_RW_PLAIN = 0,
	WEFT_RW_IRQ = 1,    /* _irq, _irqsave: interrupts (restored from flags) */
	WEFT_RW_BH = 2,     /* _bh: bottom halves */
};

#ifndef WEFT_NATIVE
void weft_rwlock_init(struct weft_rwlock *l, const struct weft_site *s);
/* Returns the interrupt state before (for _irqsave). */
unsigned long weft_rw_lock(struct weft_rwlock *l, bool write, unsigned mask,
			   const struct weft_site *s);
bool weft_rw_trylock(struct weft_rwlock *l, bool write, const struct weft_site *s);
/* flags: the state _irqrestore puts back (0 for _irq: interrupts on). */
void weft_rw_unlock(struct weft_rwlock *l, bool write, unsigned mask, unsigned long flags,
		    const struct weft_site *s);
#else
static inline void weft_rwlock_init(struct weft_rwlock *l, const struct weft_site *s)
{
	(void)s;
	__atomic_store_n(&l->writer, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->readers, 0, __ATOMIC_RELAXED);
}
static inline bool weft_rw_trylock(struct weft_rwlock *l, bool write, const struct weft_site *s)
{
	uint32_t z = 0;

	(void)s;
	weft_native_poll();
	if (write) {
		if (!__atomic_compare_exchange_n(&l->writer, &z, 1 + weft_native_tid, 0,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return false;
		if (!__atomic_load_n(&l->readers, __ATOMIC_ACQUIRE))
			return true;
		__atomic_store_n(&l->writer, 0, __ATOMIC_RELEASE);
		return false;
	}
	__atomic_fetch_add(&l->readers, 1, __ATOMIC_ACQUIRE);
	if (!__atomic_load_n(&l->writer, __ATOMIC_ACQUIRE))
		return true;
	__atomic_fetch_sub(&l->readers, 1, __ATOMIC_RELEASE);
	return false;
}
static inline unsigned long weft_rw_lock(struct weft_rwlock *l, bool write, unsigned mask,
					 const struct weft_site *s)
{
	(void)mask;
	for (unsigned spins = 0; !weft_rw_trylock(l, write, s); spins++)
		if (spins % 256 == 255)
			sched_yield();
	return 0;
}
static inline void weft_rw_unlock(struct weft_rwlock *l, bool write, unsigned mask,
				  unsigned long flags, const struct weft_site *s)
{
	(void)mask;
	(void)flags;
	(void)s;
	if (write)
		__atomic_store_n(&l->writer, 0, __ATOMIC_RELEASE);
	else
		__atomic_fetch_sub(&l->readers, 1, __ATOMIC_RELEASE);
}
#endif

#ifndef WEFT_OWN_RWLOCK

#define rwlock_t struct weft_rwlock
#define __weft_rws(ev, what, l, ord) WEFT_SITE_F(ev, what "(" #l ")", ord)
#define __weft_rw_lock(l, w, m, what) \
	weft_rw_lock((l), (w), (m), __weft_rws(WEFT_EV_LOCK, what, l, WEFT_SITE_ACQUIRE))
#define __weft_rw_unlock(l, w, m, f, what) \
	weft_rw_unlock((l), (w), (m), (f), __weft_rws(WEFT_EV_UNLOCK, what, l, WEFT_SITE_RELEASE))

#define rwlock_init(l) weft_rwlock_init((l), WEFT_SITE(WEFT_EV_NOTE, "rwlock_init(" #l ")"))
#define read_lock(l) ((void)__weft_rw_lock(l, false, WEFT_RW_PLAIN, "read_lock"))
#define read_unlock(l) __weft_rw_unlock(l, false, WEFT_RW_PLAIN, 0, "read_unlock")
#define write_lock(l) ((void)__weft_rw_lock(l, true, WEFT_RW_PLAIN, "write_lock"))
#define write_unlock(l) __weft_rw_unlock(l, true, WEFT_RW_PLAIN, 0, "write_unlock")
#define read_trylock(l) \
	weft_rw_trylock((l), false, __weft_rws(WEFT_EV_TRYLOCK, "read_trylock", l, WEFT_SITE_ACQUIRE))
#define write_trylock(l) \
	weft_rw_trylock((l), true, __weft_rws(WEFT_EV_TRYLOCK, "write_trylock", l, WEFT_SITE_ACQUIRE))
#define read_lock_irq(l) ((void)__weft_rw_lock(l, false, WEFT_RW_IRQ, "read_lock_irq"))
#define read_unlock_irq(l) __weft_rw_unlock(l, false, WEFT_RW_IRQ, 0, "read_unlock_irq")
#define write_lock_irq(l) ((void)__weft_rw_lock(l, true, WEFT_RW_IRQ, "write_lock_irq"))
#define write_unlock_irq(l) __weft_rw_unlock(l, true, WEFT_RW_IRQ, 0, "write_unlock_irq")
#define read_lock_irqsave(l, f) ((f) = __weft_rw_lock(l, false, WEFT_RW_IRQ, "read_lock_irqsave"))
#define read_unlock_irqrestore(l, f) \
	__weft_rw_unlock(l, false, WEFT_RW_IRQ, (f), "read_unlock_irqrestore")
#define write_lock_irqsave(l, f) ((f) = __weft_rw_lock(l, true, WEFT_RW_IRQ, "write_lock_irqsave"))
#define write_unlock_irqrestore(l, f) \
	__weft_rw_unlock(l, true, WEFT_RW_IRQ, (f), "write_unlock_irqrestore")
#define read_lock_bh(l) ((void)__weft_rw_lock(l, false, WEFT_RW_BH, "read_lock_bh"))
#define read_unlock_bh(l) __weft_rw_unlock(l, false, WEFT_RW_BH, 0, "read_unlock_bh")
#define write_lock_bh(l) ((void)__weft_rw_lock(l, true, WEFT_RW_BH, "write_lock_bh"))
#define write_unlock_bh(l) __weft_rw_unlock(l, true, WEFT_RW_BH, 0, "write_unlock_bh")

#endif /* WEFT_OWN_RWLOCK */

#ifdef __cplusplus
}
#endif
#endif
