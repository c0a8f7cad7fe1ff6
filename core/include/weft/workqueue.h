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
 *   flush_work(&w)                    sleep until w is neither pending
 *                                     nor running; true if it waited
 *   work_pending(&w)
 *   queue_work(wq, &w)                queue_work_on() the calling CPU
 *                                     (a bound workqueue's WORK_CPU_UNBOUND)
 *   cancel_work(&w)                   take a pending w off its worklist;
 *                                     true if it was pending
 *   cancel_work_sync(&w)              the same, then sleep until w's run
 *                                     ends; while it waits no queueing of
 *                                     w succeeds (w may requeue itself);
 *                                     true if it was pending
 *   DECLARE_WORK(name, fn), system_wq (a name: every queue is bound)
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

/* A workqueue is only a name here: every queue runs on the per-CPU
 * workers (a bound workqueue's semantics). */
struct workqueue_struct {
	const char *name;
};

#define WEFT_WORK_PENDING 0
#define WEFT_WORK_CANCELING 1      /* cancel_work_sync() holds PENDING */
#define WEFT_WORKQUEUE_MAX 16      /* queued items per CPU */

bool weft_queue_work_on(unsigned cpu, struct work_struct *w, const struct weft_site *s);
bool weft_flush_work(struct work_struct *w, const struct weft_site *s);
void weft_init_work(struct work_struct *w, work_func_t fn);
bool weft_cancel_work(struct work_struct *w, bool sync, const struct weft_site *s);

#define INIT_WORK(w, fn) weft_init_work((w), (fn))
#define queue_work_on(cpu, wq, w)                                               \
	((void)(wq), weft_queue_work_on((cpu), (w),                              \
					WEFT_SITE(WEFT_EV_RMW, "queue_work_on(" #w ")")))
#define schedule_work_on(cpu, w)                                                \
	weft_queue_work_on((cpu), (w), WEFT_SITE(WEFT_EV_RMW, "schedule_work_on(" #w ")"))
#define schedule_work(w)                                                        \
	weft_queue_work_on(weft_raw_smp_processor_id(), (w),                      \
			   WEFT_SITE(WEFT_EV_RMW, "schedule_work(" #w ")"))
#define flush_work(w) weft_flush_work((w), WEFT_SITE(WEFT_EV_WAIT, "flush_work(" #w ")"))
#define work_pending(w) test_bit(WEFT_WORK_PENDING, &(w)->data)

#ifndef WEFT_OWN_WORKQUEUE_CANCEL
#define queue_work(wq, w)                                                       \
	((void)(wq), weft_queue_work_on(weft_raw_smp_processor_id(), (w),         \
					WEFT_SITE(WEFT_EV_RMW, "queue_work(" #w ")")))
#define cancel_work(w) \
	weft_cancel_work((w), false, WEFT_SITE(WEFT_EV_RMW, "cancel_work(" #w ")"))
#define cancel_work_sync(w) \
	weft_cancel_work((w), true, WEFT_SITE(WEFT_EV_WAIT, "cancel_work_sync(" #w ")"))
#define DECLARE_WORK(name, fn) struct work_struct name = { 0, (fn), 0, 0 }
#define system_wq ((struct workqueue_struct *)0)
#endif /* WEFT_OWN_WORKQUEUE_CANCEL */

#ifdef __cplusplus
}
#endif
#endif
