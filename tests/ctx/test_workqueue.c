/*
 * test_workqueue.c - per-CPU work items (<weft/workqueue.h>), checked on
 * every interleaving of small models:
 *  - an item queued on CPU c runs on CPU c's worker, in process context,
 *    exactly once per queueing that found it idle; a second queueing while
 *    pending does nothing; an item may queue itself again from its function;
 *  - flush_work() returns only after the function's effects, waiting only
 *    if the item was pending or running;
 *  - the worker's run interleaves with its queuer (dfs sees both orders);
 *  - idle workers never make an execution stuck; a work function flushing
 *    itself is a deadlock;
 *  - an item queued on another CPU while it runs is queued where it runs
 *    (non-reentrant): it never runs twice at once;
 *  - cancel_work_sync() returns with the item neither pending nor running
 *    and never run again, even when its function requeues it; it reports
 *    whether the item was pending; cancel_work() does not wait for a run;
 *    a work function cancelling itself synchronously is a deadlock.
 */
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

struct wq_world {
	struct work_struct w, w2;
	int runs;
	int ran_on;          /* 1 + CPU of the last run */
	int task_ctx;        /* in_task() in the function */
	int x;
	int saw_x;           /* the function saw x == 1 */
	int after_flush;     /* runs observed right after flush_work */
	int queued_again;    /* the second queue_work_on's result */
	int flush_waited;
	int in_fn;
	int after_cancel;    /* runs right after cancel_work(_sync) returned */
	int cancel_ret;
	int pending_after;   /* work_pending() right after it */
	int running_after;   /* the function was running right after it */
};

static unsigned wq_case;

static void fn(struct work_struct *w)
{
	struct wq_world *W = weft_list_entry(w, struct wq_world, w);

	if (READ_ONCE(W->in_fn))
		weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "one run at a time"),
			    "the work function runs twice at once");
	WRITE_ONCE(W->in_fn, 1);
	W->ran_on = 1 + (int)smp_processor_id();    /* test bookkeeping */
	W->task_ctx = in_task();
	if (READ_ONCE(W->x))
		WRITE_ONCE(W->saw_x, 1);
	WRITE_ONCE(W->runs, READ_ONCE(W->runs) + 1);
	if (wq_case == 2 && READ_ONCE(W->runs) == 1)
		queue_work_on(1, NULL, w);           /* requeue itself once */
	if (wq_case == 5 && READ_ONCE(W->runs) == 1)
		queue_work_on(0, NULL, w);           /* again, on the other CPU */
	if (wq_case == 4)
		flush_work(w);                       /* flushes itself */
	if ((wq_case == 6 || wq_case == 7) && READ_ONCE(W->runs) < 3)
		queue_work_on(1, NULL, w);           /* requeues itself, 3 runs at most */
	if (wq_case == 8)
		cancel_work_sync(w);                 /* cancels itself */
	WRITE_ONCE(W->in_fn, 0);
}

WEFT_TEST_SETUP_WORLD(wq, struct wq_world)
{
	INIT_WORK(&W->w, fn);
	INIT_WORK(&W->w2, fn);
}

static void wq_thread(void *w, unsigned tid)
{
	struct wq_world *W = w;

	(void)tid;
	switch (wq_case) {
	case 0:   /* queue, then write x; flush */
		queue_work_on(1, NULL, &W->w);
		WRITE_ONCE(W->x, 1);
		W->flush_waited = flush_work(&W->w);
		W->after_flush = READ_ONCE(W->runs);
		break;
	case 1:   /* queue twice back to back */
		queue_work_on(1, NULL, &W->w);
		W->queued_again = queue_work_on(1, NULL, &W->w);
		flush_work(&W->w);
		W->after_flush = READ_ONCE(W->runs);
		break;
	case 2:   /* the function requeues itself once */
		queue_work_on(1, NULL, &W->w);
		flush_work(&W->w);
		flush_work(&W->w);
		W->after_flush = READ_ONCE(W->runs);
		break;
	case 3:   /* flush of an item never queued; idle workers at the end */
		W->flush_waited = flush_work(&W->w2);
		queue_work_on(0, NULL, &W->w);
		break;
	case 6:   /* cancel_work_sync() of a self-requeueing item */
	case 7:   /* cancel_work() of it */
		queue_work_on(1, NULL, &W->w);
		W->cancel_ret = wq_case == 6 ? cancel_work_sync(&W->w) : cancel_work(&W->w);
		W->after_cancel = READ_ONCE(W->runs);
		W->pending_after = work_pending(&W->w);
		W->running_after = READ_ONCE(W->in_fn);
		break;
	case 4:
	case 5:
	case 8:
		queue_work_on(1, NULL, &W->w);
		flush_work(&W->w);
		if (wq_case == 5)
			flush_work(&W->w);
		W->after_flush = READ_ONCE(W->runs);
		break;
	}
}

WEFT_TEST_ONLY_VARIANT(wq, "work items and their flushes");
static const struct weft_scenario wq_sc =
	WEFT_TEST_UNLISTED("wq-test", struct wq_world, 2, 1, 256, WEFT_TEST_HOOKS(wq));

struct agg {
	uint64_t executions;
	bool complete;
	enum weft_kind kind;
	int runs_min, runs_max, after_min, saw_x_or, saw_x_and, ran_on_or, task_or,
	    again_or, waited_or;
	int ran_after_cancel, cancel_ret_or, cancel_ret_and, pending_after_or,
	    running_after_or;
};

static struct agg explore(unsigned c)
{
	struct agg a = { .runs_min = 99, .after_min = 99, .saw_x_and = 1, .cancel_ret_and = 1 };
	struct weft_dfs d;
	struct weft_exec_result r;
	struct weft_run_opts o = { .sc = &wq_sc, .checks = WEFT_CHECKS_DEFAULT };

	wq_case = c;
	weft_dfs_init(&d, &wq_sc, ~0u, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		const struct wq_world *W = weft_last_world();
		if (r.kind != WEFT_KIND_NONE && !a.kind)
			a.kind = r.kind;
		if (W->runs < a.runs_min)
			a.runs_min = W->runs;
		if (W->runs > a.runs_max)
			a.runs_max = W->runs;
		if (W->after_flush < a.after_min)
			a.after_min = W->after_flush;
		a.saw_x_or |= W->saw_x;
		a.saw_x_and &= W->saw_x;
		a.ran_on_or |= W->ran_on ? 1 << (W->ran_on - 1) : 0;
		a.task_or |= W->task_ctx;
		a.again_or |= W->queued_again;
		a.waited_or |= W->flush_waited;
		a.ran_after_cancel |= W->runs != W->after_cancel;
		a.cancel_ret_or |= W->cancel_ret;
		a.cancel_ret_and &= W->cancel_ret;
		a.pending_after_or |= W->pending_after;
		a.running_after_or |= W->running_after;
	}
	a.executions = d.executions;
	a.complete = d.complete;
	return a;
}

int main(void)
{
	struct agg a;

	weft_machine_init();

	a = explore(0);
	CHECK(a.complete && !a.kind, "case 0: complete %d, %s", a.complete, weft_kind_name(a.kind));
	CHECK(a.runs_min == 1 && a.runs_max == 1 && a.after_min == 1,
	      "runs once, visible after flush: runs %d..%d, after flush %d", a.runs_min,
	      a.runs_max, a.after_min);
	CHECK(a.ran_on_or == 2 && a.task_or == 1, "on CPU1's worker, in process context: %#x %d",
	      a.ran_on_or, a.task_or);
	CHECK(a.saw_x_or == 1 && a.saw_x_and == 0,
	      "the worker runs before and after the queuer's next write (%llu executions)",
	      (unsigned long long)a.executions);

	a = explore(1);
	CHECK(a.complete && !a.kind && a.runs_min == 1 && a.runs_max == 2 && a.again_or == 1,
	      "case 1: a second queueing does nothing while pending, runs again once the "
	      "worker took it: runs %d..%d, again %d", a.runs_min, a.runs_max, a.again_or);

	a = explore(2);
	CHECK(a.complete && !a.kind && a.runs_min == 2 && a.after_min == 2,
	      "case 2: a self-requeue runs once more: runs %d, after %d", a.runs_min, a.after_min);

	a = explore(3);
	CHECK(a.complete && !a.kind && a.waited_or == 0 && a.runs_min == 1,
	      "case 3: flush of an idle item does not wait; idle workers end cleanly: %s",
	      weft_kind_name(a.kind));

	a = explore(5);
	CHECK(a.complete && !a.kind && a.runs_min == 2 && a.after_min == 2 && a.ran_on_or == 2,
	      "case 5: requeued on CPU0 while running on CPU1, it runs again on CPU1, not at "
	      "once: %s, runs %d, after %d, CPUs %#x", weft_kind_name(a.kind), a.runs_min,
	      a.after_min, a.ran_on_or);

	a = explore(4);
	CHECK(a.kind == WEFT_KIND_DEADLOCK, "case 4: a work function flushing itself: %s",
	      weft_kind_name(a.kind));

	a = explore(6);
	CHECK(a.complete && !a.kind && !a.ran_after_cancel && !a.pending_after_or &&
		      !a.running_after_or,
	      "case 6: after cancel_work_sync() of a self-requeueing item it is neither pending "
	      "nor running and never runs again: %s, ran after %d, pending %d, running %d",
	      weft_kind_name(a.kind), a.ran_after_cancel, a.pending_after_or,
	      a.running_after_or);
	CHECK(a.runs_min == 0 && a.runs_max == 3 && a.cancel_ret_or && !a.cancel_ret_and,
	      "case 6: cancelled before any run, after every run, and between: runs %d..%d, "
	      "was pending %d/%d", a.runs_min, a.runs_max, a.cancel_ret_or, a.cancel_ret_and);

	a = explore(7);
	CHECK(a.complete && !a.kind && a.running_after_or && a.ran_after_cancel &&
		      a.cancel_ret_or && !a.cancel_ret_and,
	      "case 7: cancel_work() does not wait: the run goes on and may requeue: %s, "
	      "running after %d, ran after %d", weft_kind_name(a.kind), a.running_after_or,
	      a.ran_after_cancel);

	a = explore(8);
	CHECK(a.kind == WEFT_KIND_DEADLOCK, "case 8: a work function cancelling itself: %s",
	      weft_kind_name(a.kind));
	return check_done();
}
