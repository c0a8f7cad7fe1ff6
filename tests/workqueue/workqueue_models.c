/*
 * workqueue_models.c - workqueues (<weft/workqueue.h>): concurrency
 * management, alloc_workqueue(), ordered workqueues, flush_workqueue(),
 * drain_workqueue() and destroy_workqueue(), each bug beside its fixes,
 * run through the weft command line of this program (bin/weft-workqueue;
 * tests/workqueue/CMakeLists.txt):
 *
 *  wait-behind  T0 queues A then B on one CPU; A waits for a completion
 *               that B completes, then checks B's data; T0 flushes A.
 *               system-wq (clean): a bound pool starts B on another worker
 *               once A sleeps (concurrency management), as the kernel
 *               does; ordered (bug): on alloc_ordered_workqueue() B waits
 *               for A, A for B (lost-wakeup); max-active-1 (bug): the
 *               same on create_workqueue() (max_active 1 per CPU).
 *  event-behind the same wait as wait_event() on a flag the next item on
 *               the CPU sets: wake-up (clean); no-wake-up (bug): the
 *               setter wakes nobody (lost-wakeup).
 *  parallel     T0 queues two items that each add 1 to a plain counter
 *               (a load and a store with a point between); T0 flushes
 *               the workqueue and checks 2. unbound (bug): system_unbound_wq
 *               runs them at once (assertion: an update lost);
 *               ordered (clean): one after the other. parallel-spread:
 *               the same on 3 CPUs, a CPU for each kworker.
 *  teardown     T0 is an event source: if the device is alive it queues
 *               the device's work, which writes a kmalloc()ed buffer; T1
 *               tears the device down: alive := 0, flush_workqueue(),
 *               kfree(). check-then-queue (bug): T0's test and queueing
 *               race T1's flush (use-after-free of the buffer);
 *               locked (clean): both under the device's spinlock.
 *  chain        an item requeues itself until it ran three times; T0
 *               waits for the chain, then checks the count.
 *               flush (bug): flush_workqueue() waits for the first run
 *               only (assertion); drain (clean): drain_workqueue();
 *               flush-work (bug): flush_work() waits for the instance
 *               pending or running when it began, not for the requeues
 *               (kernel/workqueue.c, flush_work(): "idle on return if it
 *               hasn't been requeued since flush started").
 *  destroy      T1 queues the work once; T0 destroys the workqueue.
 *               no-wait (bug): the queueing may come after
 *               destroy_workqueue() (use-after-free); wait-first (clean):
 *               T0 waits for T1's completion first.
 *  requeue-cancel  T0 queues an unbound item twice (the second queueing
 *               may find it running: it runs again after, on the same
 *               worker, never twice at once); T1, once T0 is done,
 *               cancels it with cancel_work_sync() and drains the
 *               workqueue (clean).
 *  poll-teardown  a driver's delayed work re-arms itself on the driver's
 *               unbound workqueue; remove() (after probe()) tears it down.
 *               destroy-first (bug): destroy_workqueue(), then the cancel:
 *               the pending timer queues on the destroyed workqueue
 *               (use-after-free; while the destroy still drains it, the
 *               kernel's WARN in __queue_work(): warn-on, which random
 *               meets first); stop-cancel-destroy (clean): stop under the
 *               lock, cancel_delayed_work_sync(), destroy_workqueue().
 *  self-flush   a work item flushes its own workqueue (deadlock).
 *  flush-behind T0 queues a commit then a writeback item on one CPU and
 *               flushes the commit, which flushes the writeback.
 *               system-wq, unbound (clean): the writeback gets a worker
 *               of its own; ordered, max-active-1 (bug): the writeback
 *               cannot start before the commit ends, which waits for it:
 *               a wait cycle (deadlock, as a self-flush), found by the
 *               first serial execution.
 *  work-query   T0 queues an item on system_unbound_wq; T1, once it saw
 *               the queueing, asks once: cancel-work (bug: cancel_work()
 *               false, the worker took the item first); work-pending (bug:
 *               work_pending() false before the function ran, the take's
 *               window); cancel-then-ran, cancel-sync-then-ran (clean: a
 *               cancel_work() or cancel_work_sync() that returns true
 *               leaves the item unrun; both returned true during a take,
 *               and the item ran). Each bug is found in an order plain dfs
 *               does not run first (dpor_vs_dfs compares the reductions).
 */
#include <weft/kernel.h>
#include <weft/slab.h>
#include <weft/timer.h>

#define WEFT_TEST_SOURCE "kernel/workqueue.c"
#define WEFT_TEST_FILE "workqueue_models.c"
#include "../model_driver.h"

/* ----------------------------------------------------------- wait-behind */

enum { WB_SYSTEM_WQ, WB_ORDERED, WB_MAX_ACTIVE_1 };

struct wb_world {
	unsigned variant;
	struct workqueue_struct *wq;
	struct work_struct a, b;
	struct completion b_done;
	int data;
};

static void wb_a(struct work_struct *work)
{
	struct wb_world *W = container_of(work, struct wb_world, a);

	wait_for_completion(&W->b_done);
	if (READ_ONCE(W->data) != 1)
		weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_SITE(WEFT_EV_NOTE, "wb data"),
			    "A saw B's completion before its data");
}

static void wb_b(struct work_struct *work)
{
	struct wb_world *W = container_of(work, struct wb_world, b);

	WRITE_ONCE(W->data, 1);
	complete(&W->b_done);
}

WEFT_TEST_SETUP(wb, struct wb_world)
{
	if (W->variant == WB_ORDERED)
		W->wq = alloc_ordered_workqueue("wb_ordered", 0);
	else if (W->variant == WB_MAX_ACTIVE_1)
		W->wq = create_workqueue("wb_single");
	else
		W->wq = system_wq;
	init_completion(&W->b_done);
	INIT_WORK(&W->a, wb_a);
	INIT_WORK(&W->b, wb_b);
}

static void wb_thread(void *w, unsigned tid)
{
	struct wb_world *W = w;

	(void)tid;
	queue_work(W->wq, &W->a);
	queue_work(W->wq, &W->b);
	flush_work(&W->a);
}

static const struct weft_variant wb_variants[] = {
	WEFT_TEST_FIX("system-wq", "A waits for B behind it on a bound pool: B runs once A sleeps",
		      WB_SYSTEM_WQ),
	WEFT_TEST_BUG("ordered", "A waits for B behind it on an ordered workqueue",
		      WEFT_KIND_LOST_WAKEUP, WB_ORDERED),
	WEFT_TEST_BUG("max-active-1", "A waits for B behind it on create_workqueue()",
		      WEFT_KIND_LOST_WAKEUP, WB_MAX_ACTIVE_1),
};

WEFT_TEST_SCENARIO(wait_behind, "wait-behind",
		   "test: a work item waits for the next one queued on its CPU",
		   struct wb_world, 1, 1, 32, wb);

/* ---------------------------------------------------------- event-behind */

enum { EB_WAKE_UP, EB_NO_WAKE_UP };

struct eb_world {
	unsigned variant;
	wait_queue_head_t wait;
	struct work_struct waiter, setter;
	int flag;
};

static void eb_waiter(struct work_struct *work)
{
	struct eb_world *W = container_of(work, struct eb_world, waiter);

	wait_event(W->wait, READ_ONCE(W->flag));
}

static void eb_setter(struct work_struct *work)
{
	struct eb_world *W = container_of(work, struct eb_world, setter);

	WRITE_ONCE(W->flag, 1);
	if (W->variant == EB_WAKE_UP)
		wake_up(&W->wait);
}

WEFT_TEST_SETUP(eb, struct eb_world)
{
	init_waitqueue_head(&W->wait);
	INIT_WORK(&W->waiter, eb_waiter);
	INIT_WORK(&W->setter, eb_setter);
}

static void eb_thread(void *w, unsigned tid)
{
	struct eb_world *W = w;

	(void)tid;
	schedule_work(&W->waiter);
	schedule_work(&W->setter);
	flush_work(&W->setter);
	flush_work(&W->waiter);
}

static const struct weft_variant eb_variants[] = {
	WEFT_TEST_FIX("wake-up", "the setter behind the sleeping waiter sets the flag and wakes it",
		      EB_WAKE_UP),
	WEFT_TEST_BUG("no-wake-up", "the setter sets the flag and wakes nobody",
		      WEFT_KIND_LOST_WAKEUP, EB_NO_WAKE_UP),
};

WEFT_TEST_SCENARIO(event_behind, "event-behind",
		   "test: a work item sleeps in wait_event() until the next one on its CPU sets the flag",
		   struct eb_world, 1, 1, 32, eb);

/* -------------------------------------------------------------- parallel */

enum { PA_UNBOUND, PA_ORDERED };

struct pa_world {
	unsigned variant;
	struct workqueue_struct *wq;
	struct work_struct first, second;
	int count;
};

static void pa_add(struct pa_world *W, struct work_struct *work)
{
	int c = READ_ONCE(W->count);

	if (current_work() != work)
		weft_report(WEFT_KIND_ASSERT, work, WEFT_SITE(WEFT_EV_NOTE, "pa current"),
			    "current_work() is not the item running");
	WRITE_ONCE(W->count, c + 1);
}

static void pa_first(struct work_struct *work)
{
	pa_add(container_of(work, struct pa_world, first), work);
}

static void pa_second(struct work_struct *work)
{
	pa_add(container_of(work, struct pa_world, second), work);
}

WEFT_TEST_SETUP(pa, struct pa_world)
{
	W->wq = W->variant == PA_ORDERED ? alloc_ordered_workqueue("pa_ordered", 0)
					 : system_unbound_wq;
	INIT_WORK(&W->first, pa_first);
	INIT_WORK(&W->second, pa_second);
}

static void pa_thread(void *w, unsigned tid)
{
	struct pa_world *W = w;

	(void)tid;
	queue_work(W->wq, &W->first);
	queue_work(W->wq, &W->second);
	flush_workqueue(W->wq);
	if (READ_ONCE(W->count) != 2)
		weft_report(WEFT_KIND_ASSERT, &W->count, WEFT_SITE(WEFT_EV_NOTE, "pa count"),
			    "count %d after both items ran", READ_ONCE(W->count));
}

static const struct weft_variant pa_variants[] = {
	WEFT_TEST_BUG("unbound", "system_unbound_wq runs both increments at once",
		      WEFT_KIND_ASSERT, PA_UNBOUND),
	WEFT_TEST_FIX("ordered", "an ordered workqueue runs one, then the other", PA_ORDERED),
};

WEFT_TEST_SCENARIO(parallel, "parallel",
		   "test: two work items add to a plain counter",
		   struct pa_world, 2, 1, 32, pa);
/* the same with a CPU for each kworker: no CPU is shared, so the bounded
 * reduction certifies it, and must find the lost update (a worker's step
 * that dequeues the next item writes the worklist: workqueue.c) */
WEFT_TEST_SCENARIO(parallel_spread, "parallel-spread",
		   "test: two work items add to a plain counter, a CPU for each kworker",
		   struct pa_world, 3, 1, 32, pa);

/* -------------------------------------------------------------- teardown */

enum { TD_CHECK_THEN_QUEUE, TD_LOCKED };

struct td_world {
	unsigned variant;
	struct workqueue_struct *wq;
	spinlock_t lock;
	int alive;
	int *buf;
	struct work_struct work;
};

static void td_work(struct work_struct *work)
{
	struct td_world *W = container_of(work, struct td_world, work);

	WRITE_ONCE(*W->buf, 1);
}

WEFT_TEST_SETUP(td, struct td_world)
{
	W->wq = alloc_workqueue("td_events", WQ_UNBOUND, 0);
	spin_lock_init(&W->lock);
	W->alive = 1;
	W->buf = kzalloc(sizeof(*W->buf), GFP_KERNEL);
	INIT_WORK(&W->work, td_work);
}

static void td_thread(void *w, unsigned tid)
{
	struct td_world *W = w;
	bool locked = W->variant == TD_LOCKED;

	if (tid == 0) {   /* the event source */
		if (locked)
			spin_lock(&W->lock);
		if (READ_ONCE(W->alive))
			queue_work(W->wq, &W->work);
		if (locked)
			spin_unlock(&W->lock);
		return;
	}
	if (locked)
		spin_lock(&W->lock);
	WRITE_ONCE(W->alive, 0);
	if (locked)
		spin_unlock(&W->lock);
	flush_workqueue(W->wq);
	kfree(W->buf);
}

static const struct weft_variant td_variants[] = {
	WEFT_TEST_BUG("check-then-queue", "the alive test and the queueing race the teardown's flush",
		      WEFT_KIND_USE_AFTER_FREE, TD_CHECK_THEN_QUEUE),
	WEFT_TEST_FIX("locked", "the test and the queueing under the lock that clears alive",
		      TD_LOCKED),
};

WEFT_TEST_SCENARIO(teardown, "teardown", "test: a device's work queued while it is torn down",
		   struct td_world, 2, 2, 48, td, .heap_size = 64);

/* ----------------------------------------------------------------- chain */

enum { CH_FLUSH, CH_DRAIN, CH_FLUSH_WORK };

struct ch_world {
	unsigned variant;
	struct workqueue_struct *wq;
	struct work_struct work;
	int runs;
};

static void ch_work(struct work_struct *work)
{
	struct ch_world *W = container_of(work, struct ch_world, work);
	int runs = READ_ONCE(W->runs) + 1;

	WRITE_ONCE(W->runs, runs);
	if (runs < 3)
		queue_work(W->wq, work);
}

WEFT_TEST_SETUP(ch, struct ch_world)
{
	W->wq = alloc_workqueue("ch_events", 0, 0);
	INIT_WORK(&W->work, ch_work);
}

static void ch_thread(void *w, unsigned tid)
{
	struct ch_world *W = w;

	(void)tid;
	queue_work(W->wq, &W->work);
	if (W->variant == CH_DRAIN)
		drain_workqueue(W->wq);
	else if (W->variant == CH_FLUSH_WORK)
		flush_work(&W->work);
	else
		flush_workqueue(W->wq);
	if (READ_ONCE(W->runs) != 3)
		weft_report(WEFT_KIND_ASSERT, &W->runs, WEFT_SITE(WEFT_EV_NOTE, "ch runs"),
			    "the chain ran %d times of 3 when the wait returned", READ_ONCE(W->runs));
}

static const struct weft_variant ch_variants[] = {
	WEFT_TEST_BUG("flush", "flush_workqueue() does not wait for the requeues",
		      WEFT_KIND_ASSERT, CH_FLUSH),
	WEFT_TEST_FIX("drain", "drain_workqueue() waits for the whole chain", CH_DRAIN),
	WEFT_TEST_BUG("flush-work", "flush_work() waits for the instance queued when it began, "
		      "not for its requeues", WEFT_KIND_ASSERT, CH_FLUSH_WORK),
};

WEFT_TEST_SCENARIO(chain, "chain", "test: a self-requeueing work item waited for",
		   struct ch_world, 1, 1, 32, ch);

/* --------------------------------------------------------------- destroy */

enum { DE_NO_WAIT, DE_WAIT_FIRST };

struct de_world {
	unsigned variant;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct completion queued;
	int ran;
};

static void de_work(struct work_struct *work)
{
	struct de_world *W = container_of(work, struct de_world, work);

	WRITE_ONCE(W->ran, 1);
}

WEFT_TEST_SETUP(de, struct de_world)
{
	W->wq = alloc_workqueue("de_events", 0, 0);
	INIT_WORK(&W->work, de_work);
	init_completion(&W->queued);
}

static void de_thread(void *w, unsigned tid)
{
	struct de_world *W = w;

	if (tid == 1) {
		queue_work(W->wq, &W->work);
		complete(&W->queued);
		return;
	}
	if (W->variant == DE_WAIT_FIRST)
		wait_for_completion(&W->queued);
	destroy_workqueue(W->wq);
	if (W->variant == DE_WAIT_FIRST && READ_ONCE(W->ran) != 1)
		weft_report(WEFT_KIND_ASSERT, &W->ran, WEFT_SITE(WEFT_EV_NOTE, "de ran"),
			    "destroy_workqueue() returned before the queued work ran");
}

static const struct weft_variant de_variants[] = {
	WEFT_TEST_BUG("no-wait", "destroy_workqueue() while T1 may still queue",
		      WEFT_KIND_USE_AFTER_FREE, DE_NO_WAIT),
	WEFT_TEST_FIX("wait-first", "the queueing is over before destroy_workqueue()",
		      DE_WAIT_FIRST),
};

WEFT_TEST_SCENARIO(destroy, "destroy", "test: a workqueue destroyed while it may be queued on",
		   struct de_world, 2, 2, 32, de);

/* ------------------------------------------------------- requeue-cancel */

struct rc_world {
	unsigned variant;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct completion queued;
	atomic_t in;
};

static void rc_work(struct work_struct *work)
{
	struct rc_world *W = container_of(work, struct rc_world, work);

	if (atomic_inc_return(&W->in) != 1)
		weft_report(WEFT_KIND_ASSERT, work, WEFT_SITE(WEFT_EV_NOTE, "rc twice"),
			    "the work item runs twice at once");
	atomic_dec(&W->in);
}

WEFT_TEST_SETUP(rc, struct rc_world)
{
	W->wq = alloc_workqueue("rc_events", WQ_UNBOUND, 0);
	INIT_WORK(&W->work, rc_work);
	init_completion(&W->queued);
}

static void rc_thread(void *w, unsigned tid)
{
	struct rc_world *W = w;

	if (tid == 0) {
		queue_work(W->wq, &W->work);
		queue_work(W->wq, &W->work);   /* may find it running: behind itself */
		complete(&W->queued);
		return;
	}
	wait_for_completion(&W->queued);
	cancel_work_sync(&W->work);
	drain_workqueue(W->wq);
	if (atomic_read(&W->in))
		weft_report(WEFT_KIND_ASSERT, &W->in, WEFT_SITE(WEFT_EV_NOTE, "rc drained"),
			    "a run in progress after cancel_work_sync() and drain_workqueue()");
}

static const struct weft_variant rc_variants[] = {
	WEFT_TEST_FIX("unbound", "queued again while it runs, cancelled, drained", 0),
};

WEFT_TEST_SCENARIO(requeue_cancel, "requeue-cancel",
		   "test: an unbound work item queued behind itself, cancelled and drained",
		   struct rc_world, 2, 2, 32, rc);

/* --------------------------------------------------------- poll-teardown */

enum { PT_DESTROY_FIRST, PT_STOP_CANCEL_DESTROY };

struct pt_world {
	unsigned variant;
	struct workqueue_struct *wq;
	struct delayed_work poll;
	struct mutex lock;
	bool stopping;
	struct completion started;
	int *stats;
};

static void pt_poll(struct work_struct *work)
{
	struct pt_world *W = container_of(to_delayed_work(work), struct pt_world, poll);

	mutex_lock(&W->lock);
	if (!W->stopping) {
		WRITE_ONCE(*W->stats, READ_ONCE(*W->stats) + 1);
		queue_delayed_work(W->wq, &W->poll, HZ);
	}
	mutex_unlock(&W->lock);
}

WEFT_TEST_SETUP(pt, struct pt_world)
{
	W->wq = alloc_workqueue("pt_poll", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	INIT_DELAYED_WORK(&W->poll, pt_poll);
	mutex_init(&W->lock);
	init_completion(&W->started);
	W->stats = kzalloc(sizeof(*W->stats), GFP_KERNEL);
}

static void pt_thread(void *w, unsigned tid)
{
	struct pt_world *W = w;

	if (tid == 0) {   /* probe() */
		queue_delayed_work(W->wq, &W->poll, 0);
		complete(&W->started);
		return;
	}
	wait_for_completion(&W->started);   /* remove() after probe() */
	if (W->variant == PT_DESTROY_FIRST) {
		destroy_workqueue(W->wq);
		cancel_delayed_work_sync(&W->poll);
	} else {
		mutex_lock(&W->lock);
		W->stopping = true;
		mutex_unlock(&W->lock);
		cancel_delayed_work_sync(&W->poll);
		destroy_workqueue(W->wq);
	}
	kfree(W->stats);
}

static const struct weft_variant pt_variants[] = {
	WEFT_TEST_BUG("destroy-first", "destroy_workqueue() while the poll's timer may be pending",
		      WEFT_KIND_USE_AFTER_FREE, PT_DESTROY_FIRST),
	WEFT_TEST_FIX("stop-cancel-destroy", "stop under the lock, cancel_delayed_work_sync(), "
		      "then destroy_workqueue()", PT_STOP_CANCEL_DESTROY),
};

WEFT_TEST_SCENARIO(poll_teardown, "poll-teardown",
		   "test: a driver's self-rearming poll on its own workqueue, torn down",
		   struct pt_world, 2, 2, 64, pt, .heap_size = 64);

/* ------------------------------------------------------------ self-flush */

struct sf_world {
	unsigned variant;
	struct workqueue_struct *wq;
	struct work_struct work;
};

static void sf_work(struct work_struct *work)
{
	struct sf_world *W = container_of(work, struct sf_world, work);

	flush_workqueue(W->wq);
}

WEFT_TEST_SETUP(sf, struct sf_world)
{
	W->wq = alloc_workqueue("sf_events", 0, 0);
	INIT_WORK(&W->work, sf_work);
}

static void sf_thread(void *w, unsigned tid)
{
	struct sf_world *W = w;

	(void)tid;
	queue_work(W->wq, &W->work);
}

static const struct weft_variant sf_variants[] = {
	WEFT_TEST_BUG("own-queue", "a work item flushes its own workqueue", WEFT_KIND_DEADLOCK, 0),
};

WEFT_TEST_SCENARIO(self_flush, "self-flush", "test: flush_workqueue() from its own work item",
		   struct sf_world, 1, 1, 16, sf);

/* ---------------------------------------------------------- flush-behind */

enum { FB_SYSTEM_WQ, FB_ORDERED, FB_MAX_ACTIVE_1, FB_UNBOUND };

struct fb_world {
	unsigned variant;
	struct workqueue_struct *wq;
	struct work_struct commit, writeback;
	int written, committed;
};

/* the commit flushes the writeback queued behind it, then records it */
static void fb_commit(struct work_struct *work)
{
	struct fb_world *W = container_of(work, struct fb_world, commit);

	flush_work(&W->writeback);
	WRITE_ONCE(W->committed, READ_ONCE(W->written));
}

static void fb_writeback(struct work_struct *work)
{
	WRITE_ONCE(container_of(work, struct fb_world, writeback)->written, 1);
}

WEFT_TEST_SETUP(fb, struct fb_world)
{
	if (W->variant == FB_ORDERED)
		W->wq = alloc_ordered_workqueue("fb_journal", 0);
	else if (W->variant == FB_MAX_ACTIVE_1)
		W->wq = alloc_workqueue("fb_one", 0, 1);
	else if (W->variant == FB_UNBOUND)
		W->wq = alloc_workqueue("fb_unbound", WQ_UNBOUND, 0);
	else
		W->wq = system_wq;
	INIT_WORK(&W->commit, fb_commit);
	INIT_WORK(&W->writeback, fb_writeback);
}

static void fb_thread(void *w, unsigned tid)
{
	struct fb_world *W = w;

	(void)tid;
	queue_work(W->wq, &W->commit);
	queue_work(W->wq, &W->writeback);
	flush_work(&W->commit);
}

static const struct weft_variant fb_variants[] = {
	WEFT_TEST_FIX("system-wq", "the flushed item starts on another worker once the flusher sleeps",
		      FB_SYSTEM_WQ),
	WEFT_TEST_BUG("ordered", "an ordered workqueue: the flushed item waits for its flusher",
		      WEFT_KIND_DEADLOCK, FB_ORDERED),
	WEFT_TEST_BUG("max-active-1", "max_active 1: the flushed item waits past the flusher",
		      WEFT_KIND_DEADLOCK, FB_MAX_ACTIVE_1),
	WEFT_TEST_FIX("unbound", "the unbound pool: a worker for each item", FB_UNBOUND),
};

WEFT_TEST_SCENARIO(flush_behind, "flush-behind",
		   "test: a work item flushes the next one queued on its workqueue",
		   struct fb_world, 1, 1, 32, fb);

/* ------------------------------------------------------------ work-query */

enum { WQ_CANCEL_WORK, WQ_CANCEL_THEN_RAN, WQ_CANCEL_SYNC_THEN_RAN, WQ_WORK_PENDING };

struct wq_world {
	struct work_struct work;
	int queued, ran;   /* T0 queued it; the function began */
	unsigned variant;
};

static void wq_fn(struct work_struct *work)
{
	WRITE_ONCE(container_of(work, struct wq_world, work)->ran, 1);
}

WEFT_TEST_SETUP(wq, struct wq_world)
{
	INIT_WORK(&W->work, wq_fn);
}

static void wq_thread(void *w, unsigned tid)
{
	struct wq_world *W = w;
	bool busy = false;

	if (tid == 0) {
		queue_work(system_unbound_wq, &W->work);
		WRITE_ONCE(W->queued, 1);
		return;
	}
	if (!READ_ONCE(W->queued))
		return;
	switch (W->variant) {
	case WQ_CANCEL_WORK:
		busy = !cancel_work(&W->work);
		break;
	case WQ_CANCEL_THEN_RAN:
		if (cancel_work(&W->work)) {
			flush_work(&W->work);
			if (READ_ONCE(W->ran))
				weft_report(WEFT_KIND_ASSERT, &W->ran, WEFT_TEST_NOTE_SITE("wq ran"),
					    "the item ran though cancel_work() returned true");
		}
		break;
	case WQ_CANCEL_SYNC_THEN_RAN:
		if (cancel_work_sync(&W->work) && READ_ONCE(W->ran))
			weft_report(WEFT_KIND_ASSERT, &W->ran, WEFT_TEST_NOTE_SITE("wq sync ran"),
				    "the item ran though cancel_work_sync() returned true");
		break;
	case WQ_WORK_PENDING:
		busy = !work_pending(&W->work) && !READ_ONCE(W->ran);
		break;
	}
	if (busy)
		weft_report(WEFT_KIND_ASSERT, W, WEFT_TEST_NOTE_SITE("wq busy"),
			    "the query saw the item between its queueing and its run");
}

static const struct weft_variant wq_variants[] = {
	WEFT_TEST_BUG("cancel-work", "cancel_work() after the worker took the item",
		      WEFT_KIND_ASSERT, WQ_CANCEL_WORK),
	WEFT_TEST_FIX("cancel-then-ran", "cancel_work() true: the item does not run",
		      WQ_CANCEL_THEN_RAN),
	WEFT_TEST_FIX("cancel-sync-then-ran", "cancel_work_sync() true: the item did not run",
		      WQ_CANCEL_SYNC_THEN_RAN),
	WEFT_TEST_BUG("work-pending", "work_pending() after the take, before the function",
		      WEFT_KIND_ASSERT, WQ_WORK_PENDING),
};

WEFT_TEST_SCENARIO(work_query, "work-query",
		   "test: cancel_work() and work_pending() of an item another thread queued",
		   struct wq_world, 3, 2, 32, wq);

extern const struct weft_scenario weft_wq_cpu_range, weft_wq_work_free;   /* work_usage_models.c */

WEFT_DEFINE_REGISTRY(&wait_behind, &event_behind, &parallel, &teardown, &chain, &destroy, &requeue_cancel, &poll_teardown, &self_flush,
		     &flush_behind, &parallel_spread, &work_query, &weft_wq_cpu_range, &weft_wq_work_free);
