/*
 * workqueue.h - per-CPU work items (include/linux/workqueue.h): the
 * mechanism lru_add_drain_all() and drain_all_pages() use to run a
 * function on every CPU. Included by kernel.h.
 *
 * Each CPU has one worker (a kworker bound to it, like the per-CPU pools
 * of a bound workqueue): a model thread the machine starts on the first
 * queue_work_on() to that CPU. It sleeps while its queue is empty (an idle
 * worker never makes an execution stuck), takes work items in queueing
 * order, clears an item's PENDING bit before running it (so the function
 * may queue it again), runs it in process context, and wakes whoever
 * flushes it.
 *
 *   INIT_WORK(&w, fn)                 fn(struct work_struct *)
 *   queue_work_on(cpu, wq, &w)        false if w was already pending; a
 *                                     w running on another CPU is queued
 *                                     there (never two runs at once)
 *   schedule_work_on(cpu, &w)         the same on the system workqueue
 *   schedule_work(&w)                 on the calling CPU
 *   flush_work(&w)                    sleep until the instance of w
 *                                     pending or running when it began
 *                                     has run (not a requeue queued
 *                                     after); true if it waited
 *   work_pending(&w)
 *   queue_work(wq, &w)                queue_work_on() the calling CPU
 *                                     (a bound workqueue's WORK_CPU_UNBOUND)
 *   cancel_work(&w)                   take a pending w off its worklist;
 *                                     true if it was pending
 *   cancel_work_sync(&w)              the same, then sleep until w's run
 *                                     ends; while it waits no queueing of
 *                                     w succeeds (w may requeue itself);
 *                                     true if it was pending
 *   DECLARE_WORK(name, fn), system_wq
 *   delayed work (INIT_DELAYED_WORK, queue_delayed_work, ...): <weft/timer.h>
 *
 * Workqueues (switch WEFT_OWN_WORKQUEUE_ALLOC):
 *   alloc_workqueue(fmt, flags, max_active, ...)   NULL past WEFT_WQ_ALLOC_MAX
 *   alloc_ordered_workqueue(fmt, flags, ...)        one item at a time, in
 *                                     queueing order
 *   create_workqueue(name), create_singlethread_workqueue(name),
 *   create_freezable_workqueue(name)
 *   flush_workqueue(wq)               sleep until every item queued on wq
 *                                     before the call has run (items queued
 *                                     later, a requeue too, are not waited for)
 *   drain_workqueue(wq)               until wq is empty, chained requeues
 *                                     included; meanwhile only wq's own
 *                                     items may queue on it (warn-on)
 *   destroy_workqueue(wq)             drain, then wq is gone: queueing on
 *                                     it is a use-after-free
 *   flush_scheduled_work()            flush_workqueue(system_wq)
 *   current_work()                    the item the calling worker runs, or NULL
 *   WQ_UNBOUND, WQ_CPU_INTENSIVE (both outside concurrency management),
 *   WQ_FREEZABLE, WQ_MEM_RECLAIM, WQ_HIGHPRI, WQ_SYSFS, WQ_POWER_EFFICIENT
 *   (accepted; no effect on what may run when), WQ_MAX_ACTIVE, WQ_DFL_ACTIVE
 *   system_highpri_wq, system_long_wq, system_unbound_wq, system_freezable_wq,
 *   system_power_efficient_wq, system_freezable_power_efficient_wq
 *
 * Concurrency, as kernel/workqueue.c's pools: a bound workqueue's items
 * run on the CPU's pool, whose workers are concurrency managed - the
 * next item starts when no worker of the pool is running, that is when
 * the one running sleeps (wq_worker_sleeping()) or ends its item; so a
 * work item may wait for another queued behind it on the same CPU. An
 * unbound workqueue's items each get a worker of the unbound pool at once.
 * max_active bounds the items of one workqueue in flight per pool (the
 * rest wait, in queueing order); an ordered workqueue is unbound with
 * max_active 1. Every workqueue is by pointer: a model's own `struct
 * workqueue_struct` (a name alone) is a bound one. No BH workqueues, no
 * rescuers (memory never runs out).
 *
 * The PENDING bit lives in the work item (a world field every operation
 * reads and writes through primitives, so races on it are real); the
 * queues are the machine's, as a pool's worklist is the kernel's.
 */
#ifndef WEFT_WORKQUEUE_H
#define WEFT_WORKQUEUE_H

#include <weft/weft.h>

#ifdef __cplusplus
extern "C" {
#endif

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	unsigned long data;        /* bit 0: WORK_STRUCT_PENDING */
	work_func_t func;
	uint32_t running;          /* 1 + the worker's CPU while it runs */
	uint32_t seq;              /* completions, for flush_work() */
};

/* A workqueue is known by its address: one alloc_workqueue() made (the
 * machine keeps its flags and max_active), a system one, or a model's own
 * { "name" }, which is a bound workqueue as system_wq is. */
struct workqueue_struct {
	const char *name;
};

/* include/linux/workqueue.h's flag values */
#define WEFT_WQ_UNBOUND (1u << 1)
#define WEFT_WQ_FREEZABLE (1u << 2)
#define WEFT_WQ_MEM_RECLAIM (1u << 3)
#define WEFT_WQ_HIGHPRI (1u << 4)
#define WEFT_WQ_CPU_INTENSIVE (1u << 5)
#define WEFT_WQ_SYSFS (1u << 6)
#define WEFT_WQ_POWER_EFFICIENT (1u << 7)
#define WEFT_WQ_ORDERED (1u << 17)     /* __WQ_ORDERED */
#define WEFT_WQ_ALLOC_MAX 8            /* alloc_workqueue()s per execution */
#define WEFT_WQ_WORKERS 8              /* workers of one pool */

extern struct workqueue_struct weft_system_highpri_wq, weft_system_long_wq,
	weft_system_unbound_wq, weft_system_freezable_wq, weft_system_power_efficient_wq,
	weft_system_freezable_power_efficient_wq;

#define WEFT_WORK_PENDING 0
#define WEFT_WORK_CANCELING 1      /* cancel_work_sync() holds PENDING */
#define WEFT_WORKQUEUE_MAX 16      /* queued items per CPU */

bool weft_queue_work_on(unsigned cpu, struct work_struct *w, const struct weft_site *s);
/* queue_work_on() on wq (NULL: system_wq); cpu < 0: WORK_CPU_UNBOUND */
bool weft_queue_work(struct workqueue_struct *wq, int cpu, struct work_struct *w,
		     const struct weft_site *s);
struct workqueue_struct *weft_alloc_workqueue(const char *name, unsigned int flags,
					      int max_active, const struct weft_site *s);
/* how: WEFT_WQ_FLUSH, WEFT_WQ_DRAIN or WEFT_WQ_DESTROY */
void weft_flush_workqueue(struct workqueue_struct *wq, unsigned how, const struct weft_site *s);
struct work_struct *weft_current_work(void);
enum { WEFT_WQ_FLUSH, WEFT_WQ_DRAIN, WEFT_WQ_DESTROY };
bool weft_flush_work(struct work_struct *w, const struct weft_site *s);
void weft_init_work(struct work_struct *w, work_func_t fn);
bool weft_cancel_work(struct work_struct *w, bool sync, const struct weft_site *s);

#define INIT_WORK(w, fn) weft_init_work((w), (fn))
#define queue_work_on(cpu, wq, w)                                               \
	weft_queue_work((wq), (int)(cpu), (w), WEFT_SITE(WEFT_EV_RMW, "queue_work_on(" #w ")"))
#define schedule_work_on(cpu, w)                                                \
	weft_queue_work_on((cpu), (w), WEFT_SITE(WEFT_EV_RMW, "schedule_work_on(" #w ")"))
#define schedule_work(w)                                                        \
	weft_queue_work_on(weft_raw_smp_processor_id(), (w),                      \
			   WEFT_SITE(WEFT_EV_RMW, "schedule_work(" #w ")"))
#define flush_work(w) weft_flush_work((w), WEFT_SITE(WEFT_EV_WAIT, "flush_work(" #w ")"))
#define work_pending(w) test_bit(WEFT_WORK_PENDING, &(w)->data)

#ifndef WEFT_OWN_WORKQUEUE_CANCEL
#define queue_work(wq, w) \
	weft_queue_work((wq), -1, (w), WEFT_SITE(WEFT_EV_RMW, "queue_work(" #w ")"))
#define cancel_work(w) \
	weft_cancel_work((w), false, WEFT_SITE(WEFT_EV_RMW, "cancel_work(" #w ")"))
#define cancel_work_sync(w) \
	weft_cancel_work((w), true, WEFT_SITE(WEFT_EV_WAIT, "cancel_work_sync(" #w ")"))
#define DECLARE_WORK(name, fn) struct work_struct name = { 0, (fn), 0, 0 }
#define system_wq ((struct workqueue_struct *)0)
#endif /* WEFT_OWN_WORKQUEUE_CANCEL */

#ifndef WEFT_OWN_WORKQUEUE_ALLOC
#define WQ_UNBOUND WEFT_WQ_UNBOUND
#define WQ_FREEZABLE WEFT_WQ_FREEZABLE
#define WQ_MEM_RECLAIM WEFT_WQ_MEM_RECLAIM
#define WQ_HIGHPRI WEFT_WQ_HIGHPRI
#define WQ_CPU_INTENSIVE WEFT_WQ_CPU_INTENSIVE
#define WQ_SYSFS WEFT_WQ_SYSFS
#define WQ_POWER_EFFICIENT WEFT_WQ_POWER_EFFICIENT
#define __WQ_ORDERED WEFT_WQ_ORDERED
#define WQ_MAX_ACTIVE 512
#define WQ_DFL_ACTIVE (WQ_MAX_ACTIVE / 2)
/* the name is the format itself (its arguments are not printed) */
#define alloc_workqueue(fmt, flags, max_active, ...)                          \
	weft_alloc_workqueue((fmt), (flags), (max_active),                      \
			     WEFT_SITE(WEFT_EV_ALLOC, "alloc_workqueue(" #fmt ")"))
#define alloc_ordered_workqueue(fmt, flags, ...)                                \
	weft_alloc_workqueue((fmt), WEFT_WQ_UNBOUND | WEFT_WQ_ORDERED | (flags), 1, \
			     WEFT_SITE(WEFT_EV_ALLOC, "alloc_ordered_workqueue(" #fmt ")"))
#define create_workqueue(name)                                                  \
	weft_alloc_workqueue((name), WEFT_WQ_MEM_RECLAIM, 1,                    \
			     WEFT_SITE(WEFT_EV_ALLOC, "create_workqueue(" #name ")"))
#define create_freezable_workqueue(name)                                        \
	weft_alloc_workqueue((name), WEFT_WQ_FREEZABLE | WEFT_WQ_UNBOUND | WEFT_WQ_MEM_RECLAIM, 1, \
			     WEFT_SITE(WEFT_EV_ALLOC, "create_freezable_workqueue(" #name ")"))
#define create_singlethread_workqueue(name)                                     \
	weft_alloc_workqueue((name), WEFT_WQ_UNBOUND | WEFT_WQ_ORDERED | WEFT_WQ_MEM_RECLAIM, 1, \
			     WEFT_SITE(WEFT_EV_ALLOC, "create_singlethread_workqueue(" #name ")"))
#define flush_workqueue(wq) \
	weft_flush_workqueue((wq), WEFT_WQ_FLUSH, WEFT_SITE(WEFT_EV_WAIT, "flush_workqueue(" #wq ")"))
#define drain_workqueue(wq) \
	weft_flush_workqueue((wq), WEFT_WQ_DRAIN, WEFT_SITE(WEFT_EV_WAIT, "drain_workqueue(" #wq ")"))
#define destroy_workqueue(wq) \
	weft_flush_workqueue((wq), WEFT_WQ_DESTROY, WEFT_SITE(WEFT_EV_WAIT, "destroy_workqueue(" #wq ")"))
#define flush_scheduled_work() \
	weft_flush_workqueue(NULL, WEFT_WQ_FLUSH, WEFT_SITE(WEFT_EV_WAIT, "flush_scheduled_work()"))
#define current_work() weft_current_work()
#define system_highpri_wq (&weft_system_highpri_wq)
#define system_long_wq (&weft_system_long_wq)
#define system_unbound_wq (&weft_system_unbound_wq)
#define system_freezable_wq (&weft_system_freezable_wq)
#define system_power_efficient_wq (&weft_system_power_efficient_wq)
#define system_freezable_power_efficient_wq (&weft_system_freezable_power_efficient_wq)
#endif /* WEFT_OWN_WORKQUEUE_ALLOC */

#ifdef __cplusplus
}
#endif
#endif
