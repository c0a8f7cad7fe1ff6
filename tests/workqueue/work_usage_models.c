/*
 * work_usage_models.c - misuses of work items and the _on() forms that the
 * kernel's debugging reports (bin/weft-workqueue, registered by
 * workqueue_models.c; tests/workqueue/CMakeLists.txt):
 *
 *  cpu-range    T0 (2 CPUs) names a CPU the machine does not have:
 *               queue_work_on(5), schedule_work_on(2),
 *               queue_delayed_work_on(7), mod_delayed_work_on(3),
 *               add_timer_on(9), kthread_run_on_cpu(4) (bugs: each an
 *               `assertion` at the call: the kernel indexes per-CPU data
 *               with the number unchecked; they ran on CPU n mod 2);
 *               last-cpu (clean): every form on CPU1, waited for.
 *  work-free    T0 frees an object whose work item it queued on CPU1:
 *               free-pending (bug): kfree() while the item is queued,
 *               debugobjects' "free active object" (`bad-free` at the
 *               free; was a use-after-free in the worker's take);
 *               free-inactive (bug): the same for an item waiting behind
 *               another on an ordered workqueue; cancel-sync, flush
 *               (clean): cancel_work_sync() or flush_work() first;
 *               self-free (clean): the work function frees its own
 *               object, as the kernel allows (process_one_work() touches
 *               the item no more after the call).
 */
#include <weft/kernel.h>
#include <weft/kthread.h>
#include <weft/slab.h>
#include <weft/timer.h>

#define WEFT_TEST_SOURCE "kernel/workqueue.c"
#define WEFT_TEST_FILE "work_usage_models.c"
#include "../model_driver.h"

/* -------------------------------------------------------------- cpu-range */

enum { CR_QUEUE_WORK_ON, CR_SCHEDULE_WORK_ON, CR_QUEUE_DWORK_ON, CR_MOD_DWORK_ON,
       CR_ADD_TIMER_ON, CR_KTHREAD_ON, CR_LAST_CPU };

struct cr_world {
	unsigned variant;
	struct work_struct work;
	struct delayed_work dw;
	struct timer_list timer;
	int ran;
};

static void cr_fn(struct work_struct *w)
{
	(void)w;
}

static void cr_timer_fn(struct timer_list *t)
{
	(void)t;
}

static int cr_kthread(void *data)
{
	(void)data;
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

WEFT_TEST_SETUP(cr, struct cr_world)
{
	INIT_WORK(&W->work, cr_fn);
	INIT_DELAYED_WORK(&W->dw, cr_fn);
	timer_setup(&W->timer, cr_timer_fn, 0);
}

static void cr_thread(void *w, unsigned tid)
{
	struct cr_world *W = w;
	unsigned v = W->variant;
	bool all = v == CR_LAST_CPU;

	(void)tid;
	if (all || v == CR_QUEUE_WORK_ON) {
		queue_work_on(all ? 1 : 5, system_wq, &W->work);
		flush_work(&W->work);
	}
	if (all || v == CR_SCHEDULE_WORK_ON) {
		schedule_work_on(all ? 1 : 2, &W->work);
		flush_work(&W->work);
	}
	if (all || v == CR_QUEUE_DWORK_ON) {
		queue_delayed_work_on(all ? 1 : 7, system_wq, &W->dw, 1);
		cancel_delayed_work_sync(&W->dw);
	}
	if (all || v == CR_MOD_DWORK_ON) {
		mod_delayed_work_on(all ? 1 : 3, system_wq, &W->dw, 1);
		cancel_delayed_work_sync(&W->dw);
	}
	if (all || v == CR_ADD_TIMER_ON) {
		W->timer.expires = jiffies + 1;
		add_timer_on(&W->timer, all ? 1 : 9);
		del_timer_sync(&W->timer);
	}
	if (all || v == CR_KTHREAD_ON) {
		struct task_struct *t = kthread_run_on_cpu(cr_kthread, W, all ? 1 : 4, "cr/%u");
		if (!IS_ERR(t))
			kthread_stop(t);
	}
}

static const struct weft_variant cr_variants[] = {
	WEFT_TEST_BUG("queue-work-on", "queue_work_on(5) on 2 CPUs", WEFT_KIND_ASSERT,
		      CR_QUEUE_WORK_ON),
	WEFT_TEST_BUG("schedule-work-on", "schedule_work_on(2) on 2 CPUs", WEFT_KIND_ASSERT,
		      CR_SCHEDULE_WORK_ON),
	WEFT_TEST_BUG("queue-delayed-work-on", "queue_delayed_work_on(7) on 2 CPUs",
		      WEFT_KIND_ASSERT, CR_QUEUE_DWORK_ON),
	WEFT_TEST_BUG("mod-delayed-work-on", "mod_delayed_work_on(3) on 2 CPUs",
		      WEFT_KIND_ASSERT, CR_MOD_DWORK_ON),
	WEFT_TEST_BUG("add-timer-on", "add_timer_on(9) on 2 CPUs", WEFT_KIND_ASSERT,
		      CR_ADD_TIMER_ON),
	WEFT_TEST_BUG("kthread-run-on-cpu", "kthread_run_on_cpu(4) on 2 CPUs", WEFT_KIND_ASSERT,
		      CR_KTHREAD_ON),
	WEFT_TEST_FIX("last-cpu", "every form on CPU1, waited for", CR_LAST_CPU),
};

extern const struct weft_scenario weft_wq_cpu_range;   /* workqueue_models.c registers it */
const struct weft_scenario weft_wq_cpu_range = {
	.name = "cpu-range",
	.summary = "test: the _on() forms given a CPU the machine does not have",
	.source = WEFT_TEST_SOURCE,
	.nr_cpus = 2,
	.nr_threads = 1,
	.world_size = sizeof(struct cr_world),
	.decision_hint = 64,
	.files = WEFT_TEST_FILES,
	WEFT_TEST_HOOKS(cr),
};

/* -------------------------------------------------------------- work-free */

enum { WF_FREE_PENDING, WF_FREE_INACTIVE, WF_CANCEL_SYNC, WF_FLUSH, WF_SELF_FREE };

struct wf_obj {
	struct work_struct work;
	int data;
};

struct wf_world {
	unsigned variant;
	struct wf_obj *first, *obj;
	struct workqueue_struct *wq;
};

/* touches nothing of its object: only the free's timing can be wrong */
static void wf_fn(struct work_struct *w)
{
	(void)w;
}

static void wf_self_free_fn(struct work_struct *w)
{
	struct wf_obj *o = container_of(w, struct wf_obj, work);

	WRITE_ONCE(o->data, 1);
	kfree(o);
}

WEFT_TEST_SETUP(wf, struct wf_world)
{
	W->obj = kzalloc(sizeof(*W->obj), GFP_KERNEL);
	INIT_WORK(&W->obj->work, W->variant == WF_SELF_FREE ? wf_self_free_fn : wf_fn);
	if (W->variant == WF_FREE_INACTIVE) {
		W->first = kzalloc(sizeof(*W->first), GFP_KERNEL);
		INIT_WORK(&W->first->work, wf_fn);
		W->wq = alloc_ordered_workqueue("wf", 0);
	}
}

static void wf_thread(void *w, unsigned tid)
{
	struct wf_world *W = w;
	struct wf_obj *o = W->obj;

	(void)tid;
	if (W->variant == WF_FREE_INACTIVE) {
		queue_work(W->wq, &W->first->work);
		queue_work(W->wq, &o->work);   /* waits until the first ran */
		kfree(o);
		return;
	}
	queue_work_on(1, system_wq, &o->work);
	switch (W->variant) {
	case WF_CANCEL_SYNC:
		cancel_work_sync(&o->work);
		break;
	case WF_FLUSH:
		flush_work(&o->work);
		break;
	case WF_SELF_FREE:
		return;   /* the function frees it */
	}
	kfree(o);
}

static const struct weft_variant wf_variants[] = {
	WEFT_TEST_BUG("free-pending", "kfree() of an object whose work is queued",
		      WEFT_KIND_BAD_FREE, WF_FREE_PENDING),
	WEFT_TEST_BUG("free-inactive",
		      "kfree() of an object whose work waits behind another (ordered workqueue)",
		      WEFT_KIND_BAD_FREE, WF_FREE_INACTIVE),
	WEFT_TEST_FIX("cancel-sync", "cancel_work_sync(), then kfree()", WF_CANCEL_SYNC),
	WEFT_TEST_FIX("flush", "flush_work(), then kfree()", WF_FLUSH),
	WEFT_TEST_FIX("self-free", "the work function frees its own object", WF_SELF_FREE),
};

extern const struct weft_scenario weft_wq_work_free;   /* workqueue_models.c registers it */
const struct weft_scenario weft_wq_work_free = {
	.name = "work-free",
	.summary = "test: freeing an object whose work item is queued",
	.source = WEFT_TEST_SOURCE,
	.nr_cpus = 2,
	.nr_threads = 1,
	.world_size = sizeof(struct wf_world),
	.decision_hint = 64,
	.files = WEFT_TEST_FILES,
	WEFT_TEST_HOOKS(wf),
	.heap_size = 64,
};
