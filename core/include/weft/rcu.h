/*
 * rcu.h - RCU for Weft models (included by <weft/kernel.h>).
 *
 * Follows the kernel's API and its guarantees (Documentation/RCU/
 * whatisRCU.rst, "RCU's core API"; checklist.rst), not its implementation:
 *
 *  - rcu_read_lock()/rcu_read_unlock() nest per thread; the outermost pair
 *    is a read-side section. rcu_read_lock_bh/_sched are the same flavour
 *    (one RCU since v5.0), with bottom halves / preemption disabled as the
 *    kernel's; and so is every region where the thread cannot
 *    be preempted: preempt_disable(), local_bh_disable(), local_irq_save(),
 *    a spinlock held, an interrupt or softirq handler, an RCU callback
 *    (rcupdate.h, rcu_read_lock_sched(): "anything that disables
 *    preemption"). A thread's section lasts from its first entry into
 *    either to its last exit from both.
 *  - synchronize_rcu() sleeps (weft_sched_block: a blocked thread, not a
 *    spin) until every thread that was inside a read-side section when it
 *    was called has left that section: a grace period in the scheduler.
 *    Sections that begin later are not waited for.
 *  - call_rcu()/kfree_rcu() queue a callback (a free) that runs only after
 *    such a grace period, counted from the call. Callbacks run in FIFO
 *    order on an RCU callback kthread ("rcuc": a machine-made thread started
 *    on the caller's CPU by the first call_rcu(), asleep and idle, never
 *    stuck, while its queue is empty), as the kernel runs them from
 *    RCU_SOFTIRQ or, with CONFIG_RCU_NOCB_CPU, from rcuo kthreads:
 *    asynchronously, never inside call_rcu(), at a time the strategy
 *    chooses once the grace period is over. A callback runs in softirq
 *    context, as RCU_SOFTIRQ's (rcu_core_si(); rcuc and rcuo kthreads run
 *    rcu_do_batch() under local_bh_disable()): in_softirq() is true, a
 *    sleep in it is sleep-in-atomic, a lock it takes is used in softirq
 *    context for lockdep (irq-lock-inversion with the same lock taken
 *    with bottom halves on elsewhere). rcu_barrier() sleeps until every
 *    callback queued before it has run.
 *  - rcu_dereference() and rcu_assign_pointer() are marked accesses
 *    (scheduling points, traces, dependence records). rcu_assign_pointer()
 *    is a release (smp_store_release()) under --memory tso|lkmm;
 *    rcu_dereference() a READ_ONCE() whose address dependency orders the
 *    accesses through the pointer; under sc both hold trivially.
 *
 * Detectors (docs/detectors.md):
 *  - rcu-free-in-use: an object is freed (weft_poison(): weft_kfree(), a
 *    kfree_rcu() callback, a model's or the kit's allocator) while another
 *    thread is inside a read-side section in which rcu_dereference()
 *    returned a pointer into the freed range (the pointer itself must be in
 *    the range: type-stable memory whose head stays valid, as a free
 *    struct page of the mm kit, is not reported; its freed parts are still
 *    use-after-free when touched);
 *  - rcu-misuse: rcu_read_unlock() without a section; a thread ending
 *    inside a section; rcu_dereference() outside a section (lockdep-RCU's
 *    "suspicious rcu_dereference_check() usage"), as v6.12's lockdep
 *    checks each: rcu_dereference() needs rcu_read_lock()
 *    (rcu_read_lock_held(): preemption off is not enough),
 *    rcu_dereference_sched() a section or preemption off,
 *    rcu_dereference_bh() a section, bottom halves or interrupts off;
 *    rcu_dereference_protected() whose condition is false; call_rcu() on a
 *    head already queued (CONFIG_DEBUG_OBJECTS_RCU_HEAD);
 *  - sleep-in-atomic: sleeping inside a section (synchronize_rcu(),
 *    rcu_barrier() and every primitive that calls might_sleep()), naming
 *    the section's rcu_read_lock() (weft_rcu_might_sleep());
 *  - double-free: weft_kfree() of a freed object; kfree_rcu() of one is a
 *    use-after-free (it writes the object's rcu_head).
 *
 * Native build (-DWEFT_NATIVE, weft stress): a small userspace RCU (per
 * thread nesting and generation counters; synchronize_rcu() polls them and
 * weft_native_poll()), callbacks on a helper thread started the same way.
 *
 * Setup and audits (the host context) have no sections: there,
 * synchronize_rcu() and rcu_barrier() return at once and call_rcu() runs
 * its callback at once.
 */
#ifndef WEFT_RCU_H
#define WEFT_RCU_H

#include <weft/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* include/linux/types.h: callback_head. The kernel's name, struct
 * rcu_head, is a macro of the kernel names below (WEFT_OWN_RCU keeps a
 * model's own). */
struct weft_rcu_head {
	struct weft_rcu_head *next;
	void (*func)(struct weft_rcu_head *head);
};

/* How weft_rcu_deref() checks its caller. */
enum weft_rcu_deref_how {
	WEFT_RCU_DEREF = 0,        /* rcu_dereference(): must be in a section */
	WEFT_RCU_DEREF_OK,         /* a _check() whose condition held, _raw() */
	WEFT_RCU_DEREF_PROTECTED_BAD, /* _protected() whose condition failed */
	WEFT_RCU_DEREF_ACCESS,     /* rcu_access_pointer(): value only */
	WEFT_RCU_DEREF_SCHED,      /* rcu_dereference_sched(): a section or not preemptible */
	WEFT_RCU_DEREF_BH,         /* rcu_dereference_bh(): a section, bh or irqs off */
};

void weft_rcu_read_lock(const struct weft_site *s);
void weft_rcu_read_unlock(const struct weft_site *s);
/* rcu_read_lock_held(): the current thread is inside a section. */
bool weft_rcu_read_lock_held(void);
/* The load of an RCU-protected pointer (size bytes at addr). */
uint64_t weft_rcu_deref(const void *addr, unsigned size, unsigned how,
			const struct weft_site *s);
void weft_synchronize_rcu(const struct weft_site *s);
void weft_call_rcu(struct weft_rcu_head *head, void (*func)(struct weft_rcu_head *head),
		   const struct weft_site *s);
/* kfree_rcu(): free size bytes at obj after a grace period; head is the
 * object's rcu_head (a queued head is checked like call_rcu()'s). */
void weft_kfree_rcu(void *obj, size_t size, struct weft_rcu_head *head,
		    const struct weft_site *s);
void weft_rcu_barrier(const struct weft_site *s);
/*
 * The RCU part of might_sleep() (context.c's weft_might_sleep() calls it;
 * every sleeping primitive calls that at its scheduling point): sleeping
 * inside a read-side section, outside any other atomic context, is a
 * sleep-in-atomic report whose other side is the section's
 * rcu_read_lock(). Takes no scheduling point.
 */
void weft_rcu_might_sleep(const struct weft_site *s);
/* The read-side nesting of thread tid (0 outside a section). */
unsigned weft_rcu_read_depth(unsigned tid);
/* kfree(): a scheduling point; double-free if obj is already freed, then
 * poison size bytes. */
void weft_kfree_sized(void *obj, size_t size, const struct weft_site *s);

/* The kernel's names (a model that has its own RCU of these names
 * defines WEFT_OWN_RCU before including any Weft header: CHANGELOG.md). */
#ifndef WEFT_OWN_RCU
#define rcu_head weft_rcu_head
#define rcu_read_lock() weft_rcu_read_lock(WEFT_SITE(WEFT_EV_LOCK, "rcu_read_lock()"))
#define rcu_read_unlock() weft_rcu_read_unlock(WEFT_SITE(WEFT_EV_UNLOCK, "rcu_read_unlock()"))
/* rcu_read_lock_bh()/_sched() disable bottom halves / preemption first, as
 * the kernel's (include/linux/rcupdate.h), and undo it last */
#define rcu_read_lock_bh()                                                      \
	do {                                                                    \
		local_bh_disable();                                             \
		weft_rcu_read_lock(WEFT_SITE(WEFT_EV_LOCK, "rcu_read_lock_bh()")); \
	} while (0)
#define rcu_read_unlock_bh()                                                    \
	do {                                                                    \
		weft_rcu_read_unlock(WEFT_SITE(WEFT_EV_UNLOCK, "rcu_read_unlock_bh()")); \
		local_bh_enable();                                              \
	} while (0)
#define rcu_read_lock_sched()                                                   \
	do {                                                                    \
		preempt_disable();                                              \
		weft_rcu_read_lock(WEFT_SITE(WEFT_EV_LOCK, "rcu_read_lock_sched()")); \
	} while (0)
#define rcu_read_unlock_sched()                                                 \
	do {                                                                    \
		weft_rcu_read_unlock(WEFT_SITE(WEFT_EV_UNLOCK, "rcu_read_unlock_sched()")); \
		preempt_enable();                                               \
	} while (0)
#define rcu_read_lock_held() weft_rcu_read_lock_held()

/* lockdep_is_held() for a spinlock: held by the current thread. */
#define lockdep_is_held(l) (weft_peek((l)->locked) == weft_current_tid() + 1u)

#define __weft_rcu_deref(p, how, what)                                          \
	((__typeof__(p))(uintptr_t)weft_rcu_deref(&(p), sizeof(p), (how),          \
						  WEFT_SITE(WEFT_EV_READ, what)))
#define rcu_dereference(p) __weft_rcu_deref(p, WEFT_RCU_DEREF, "rcu_dereference(" #p ")")
#define rcu_dereference_bh(p) __weft_rcu_deref(p, WEFT_RCU_DEREF_BH, "rcu_dereference_bh(" #p ")")
#define rcu_dereference_sched(p) \
	__weft_rcu_deref(p, WEFT_RCU_DEREF_SCHED, "rcu_dereference_sched(" #p ")")
#define rcu_dereference_check(p, c)                                             \
	__weft_rcu_deref(p, (c) ? WEFT_RCU_DEREF_OK : WEFT_RCU_DEREF,              \
			 "rcu_dereference_check(" #p ")")
#define rcu_dereference_protected(p, c)                                         \
	__weft_rcu_deref(p, (c) ? WEFT_RCU_DEREF_OK : WEFT_RCU_DEREF_PROTECTED_BAD, \
			 "rcu_dereference_protected(" #p ")")
#define rcu_dereference_raw(p) __weft_rcu_deref(p, WEFT_RCU_DEREF_OK, "rcu_dereference_raw(" #p ")")
#define rcu_access_pointer(p) __weft_rcu_deref(p, WEFT_RCU_DEREF_ACCESS, "rcu_access_pointer(" #p ")")

/* rcu_assign_pointer() is smp_store_release() (include/linux/rcupdate.h):
 * the initialisation of what it publishes becomes visible first under
 * --memory tso|lkmm; RCU_INIT_POINTER() orders nothing, as the kernel's. */
#define rcu_assign_pointer(p, v)                                                \
	((void)WEFT_ACCESS_F(&(p), WEFT_A_STORE, (uintptr_t)(v), 0, WEFT_EV_WRITE, \
			     "rcu_assign_pointer(" #p ")", WEFT_SITE_RELEASE))
#define RCU_INIT_POINTER(p, v)                                                  \
	((void)WEFT_ACCESS(&(p), WEFT_A_STORE, (uintptr_t)(v), 0, WEFT_EV_WRITE,  \
			   "RCU_INIT_POINTER(" #p ")"))
/* The old value of an RCU pointer the caller may update (c), replaced. */
#define rcu_replace_pointer(rp, p, c)                                           \
	({                                                                      \
		__typeof__(rp) __weft_old = rcu_dereference_protected(rp, c);   \
		rcu_assign_pointer(rp, p);                                      \
		__weft_old;                                                     \
	})

#define synchronize_rcu() weft_synchronize_rcu(WEFT_SITE(WEFT_EV_WAIT, "synchronize_rcu()"))
#define synchronize_rcu_expedited() \
	weft_synchronize_rcu(WEFT_SITE(WEFT_EV_WAIT, "synchronize_rcu_expedited()"))
#define call_rcu(head, func) \
	weft_call_rcu((head), (func), WEFT_SITE(WEFT_EV_RMW, "call_rcu(" #head ")"))
#define call_rcu_hurry(head, func) \
	weft_call_rcu((head), (func), WEFT_SITE(WEFT_EV_RMW, "call_rcu_hurry(" #head ")"))
/* kfree_rcu(ptr, rhf): ptr's type gives the size freed. */
#define kfree_rcu(ptr, rhf)                                                     \
	weft_kfree_rcu((ptr), sizeof(*(ptr)), &(ptr)->rhf,                      \
		       WEFT_SITE(WEFT_EV_RMW, "kfree_rcu(" #ptr ")"))
#define rcu_barrier() weft_rcu_barrier(WEFT_SITE(WEFT_EV_WAIT, "rcu_barrier()"))
#endif /* WEFT_OWN_RCU */

/* kfree() of an object of ptr's type. */
#define weft_kfree(ptr) \
	weft_kfree_sized((ptr), sizeof(*(ptr)), WEFT_SITE(WEFT_EV_FREE, "kfree(" #ptr ")"))

#ifdef __cplusplus
}
#endif
#endif
