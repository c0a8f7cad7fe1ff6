/*
 * kthread_models.c - tasks and kernel threads (<weft/kthread.h>) in the
 * shapes kernel code gets wrong, each bug beside its fix, run through the
 * weft command line of this program (bin/weft-kthreads;
 * tests/kthread/CMakeLists.txt):
 *
 *  kthread-wake   T0 makes a kthread that sleeps until a condition holds,
 *                 sets the condition and wake_up_process()es it, holding
 *                 its task with get_task_struct(). set-then-check:
 *                 set_current_state() before the test, the pattern of
 *                 memory-barriers.txt "Sleep and wake-up functions"
 *                 (clean); check-then-set: the test before it, so the
 *                 wake-up can come in between and find the kthread running
 *                 (lost wakeup); no-get: not held, the kthread may have
 *                 returned and its task been freed before the
 *                 wake_up_process() (use-after-free).
 *  kthread-stop   T0 stops a kthread that sleeps until kthread_stop():
 *                 set-then-check (clean); check-then-set, the stop's
 *                 wake-up lost (kthread_stop() waits for ever: lost
 *                 wakeup); exit-early: threadfn returns on its own and
 *                 kthread_stop() meets a freed task (use-after-free);
 *                 exit-early-get: held, and kthread_stop_put() (clean);
 *                 never-woken: kthread_create() then kthread_stop():
 *                 threadfn never runs, the result is -EINTR (clean).
 *  kthread-timer  a timer callback on CPU1 wakes a task on CPU0 that sleeps
 *                 until the callback's data is there (the watchdog shape):
 *                 with the
 *                 state set before the test (clean) and after (lost
 *                 wakeup).
 *  kthread-work   a kthread on CPU1 hands data to a work item on CPU2;
 *                 T0 waits until it queued, stops it and flushes the
 *                 work (clean under sc, tso
 *                 and lkmm), or reads the result without the flush
 *                 (assertion).
 */
#include <errno.h>

#include <weft/kernel.h>
#include <weft/kthread.h>
#include <weft/timer.h>
#include <weft/workqueue.h>

static const char *const kthread_files[] = { "kthread_models.c", NULL };

#define KSITE(what) WEFT_SITE(WEFT_EV_NOTE, what)

/* Sleep until *cond is set: the state first, then the test (clean), or the
 * test first (the lost wake-up). */
static void sleep_until(int *cond, bool state_first)
{
	if (state_first) {
		for (;;) {
			set_current_state(TASK_UNINTERRUPTIBLE);
			if (smp_load_acquire(cond))
				break;
			schedule();
		}
	} else {
		while (!smp_load_acquire(cond)) {
			set_current_state(TASK_UNINTERRUPTIBLE);
			schedule();
		}
	}
	__set_current_state(TASK_RUNNING);
}

/* ------------------------------------------------------------ kthread-wake */

enum { KW_SET_THEN_CHECK, KW_CHECK_THEN_SET, KW_NO_GET };

struct kw_world {
	unsigned variant;
	int cond;
	int data;
	int seen;
};

static int kw_waiter(void *data)
{
	struct kw_world *W = data;

	sleep_until(&W->cond, W->variant != KW_CHECK_THEN_SET);
	if (READ_ONCE(W->data) != 42)
		weft_report(WEFT_KIND_ASSERT, &W->data, KSITE("kw data"),
			    "woken with the condition set but not the data");
	WRITE_ONCE(W->seen, 1);
	return 0;
}

static void kw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct kw_world *W = w;

	(void)wl;
	W->variant = variant;
}

static void kw_thread(void *w, unsigned tid)
{
	struct kw_world *W = w;
	struct task_struct *t;

	(void)tid;
	if (W->variant == KW_NO_GET) {
		t = kthread_run(kw_waiter, W, "kw-waiter");
	} else {   /* held: the kthread may return before the wake-up below */
		t = kthread_create(kw_waiter, W, "kw-waiter");
		if (IS_ERR(t))
			return;
		get_task_struct(t);
		wake_up_process(t);
	}
	if (IS_ERR(t))
		return;
	WRITE_ONCE(W->data, 42);
	smp_store_release(&W->cond, 1);
	wake_up_process(t);
	if (W->variant != KW_NO_GET)
		put_task_struct(t);
}

static const struct weft_variant kw_variants[] = {
	{ "set-then-check", NULL, false, "set_current_state(), then the test, then schedule()",
	  "tests/kthread", WEFT_KIND_NONE, 0, KW_SET_THEN_CHECK },
	{ "check-then-set", NULL, true, "the test before set_current_state(): the wake-up in "
	  "between finds the kthread running", "tests/kthread", WEFT_KIND_LOST_WAKEUP, 0,
	  KW_CHECK_THEN_SET },
	{ "no-get", NULL, true, "wake_up_process() of a kthread that may have returned: no "
	  "get_task_struct()", "tests/kthread", WEFT_KIND_USE_AFTER_FREE, 0, KW_NO_GET },
};

static const struct weft_scenario kthread_wake = {
	.name = "kthread-wake",
	.summary = "test: waking a kthread that sleeps until a condition holds",
	.source = "tests/kthread",
	.nr_cpus = 2,
	.nr_threads = 1,
	.world_size = sizeof(struct kw_world),
	.decision_hint = 64,
	.files = kthread_files,
	.setup = kw_setup,
	.thread = kw_thread,
	.variants = kw_variants,
	.nr_variants = 3,
};

/* ------------------------------------------------------------ kthread-stop */

enum { KS_SET_THEN_CHECK, KS_CHECK_THEN_SET, KS_EXIT_EARLY, KS_EXIT_EARLY_GET, KS_NEVER_WOKEN };

struct ks_world {
	unsigned variant;
	int work;
	int ran;
};

static int ks_worker(void *data)
{
	struct ks_world *W = data;

	WRITE_ONCE(W->ran, 1);
	switch (W->variant) {
	case KS_SET_THEN_CHECK:   /* kthread_worker_fn()'s shape, freezable */
		set_freezable();
		for (;;) {
			set_current_state(TASK_INTERRUPTIBLE);
			if (kthread_freezable_should_stop(NULL))
				break;
			if (!signal_pending(current))
				schedule();
			try_to_freeze();
		}
		__set_current_state(TASK_RUNNING);
		return 7;
	case KS_CHECK_THEN_SET:
		while (!kthread_should_stop()) {
			set_current_state(TASK_INTERRUPTIBLE);
			schedule();
		}
		__set_current_state(TASK_RUNNING);
		return 7;
	default:   /* one unit of work, then it returns on its own */
		WRITE_ONCE(W->work, READ_ONCE(W->work) + 1);
		return 7;
	}
}

static void ks_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct ks_world *W = w;

	(void)wl;
	W->variant = variant;
}

static void ks_thread(void *w, unsigned tid)
{
	struct ks_world *W = w;
	struct task_struct *t;
	int ret;

	(void)tid;
	switch (W->variant) {
	case KS_EXIT_EARLY_GET:
		t = kthread_create(ks_worker, W, "ks-worker");
		get_task_struct(t);
		wake_up_process(t);
		ret = kthread_stop_put(t);
		break;
	case KS_NEVER_WOKEN:
		t = kthread_create(ks_worker, W, "ks-worker");
		ret = kthread_stop(t);
		if (ret != -EINTR || READ_ONCE(W->ran))
			weft_report(WEFT_KIND_ASSERT, NULL, KSITE("ks never woken"),
				    "kthread_stop() of a kthread never woken: result %d, threadfn "
				    "ran %d (expected -EINTR, 0)", ret, READ_ONCE(W->ran));
		return;
	default:
		t = kthread_run(ks_worker, W, "ks-worker");
		ret = kthread_stop(t);
		break;
	}
	/* stopped before threadfn ran: -EINTR (kthread()) */
	if (ret != (READ_ONCE(W->ran) ? 7 : -EINTR))
		weft_report(WEFT_KIND_ASSERT, NULL, KSITE("ks result"),
			    "kthread_stop() returned %d with threadfn run %d", ret,
			    READ_ONCE(W->ran));
}

static const struct weft_variant ks_variants[] = {
	{ "set-then-check", NULL, false, "set_current_state(), then kthread_should_stop(), "
	  "then schedule()", "tests/kthread", WEFT_KIND_NONE, 0, KS_SET_THEN_CHECK },
	{ "check-then-set", NULL, true, "kthread_should_stop() before set_current_state(): "
	  "the stop's wake-up is lost", "tests/kthread", WEFT_KIND_LOST_WAKEUP, 0,
	  KS_CHECK_THEN_SET },
	{ "exit-early", NULL, true, "threadfn returns on its own; kthread_stop() with no "
	  "reference held", "tests/kthread", WEFT_KIND_USE_AFTER_FREE, 0, KS_EXIT_EARLY },
	{ "exit-early-get", NULL, false, "the same, held with get_task_struct() and stopped "
	  "with kthread_stop_put()", "tests/kthread", WEFT_KIND_NONE, 0, KS_EXIT_EARLY_GET },
	{ "never-woken", NULL, false, "kthread_create() then kthread_stop(): -EINTR, threadfn "
	  "never runs", "tests/kthread", WEFT_KIND_NONE, 0, KS_NEVER_WOKEN },
};

static const struct weft_scenario kthread_stop_scn = {
	.name = "kthread-stop",
	.summary = "test: stopping a kthread",
	.source = "tests/kthread",
	.nr_cpus = 2,
	.nr_threads = 1,
	.world_size = sizeof(struct ks_world),
	.decision_hint = 64,
	.files = kthread_files,
	.setup = ks_setup,
	.thread = ks_thread,
	.variants = ks_variants,
	.nr_variants = 5,
};

/* ----------------------------------------------------------- kthread-timer */

enum { KT_SET_THEN_CHECK, KT_CHECK_THEN_SET };

struct kt_world {
	unsigned variant;
	struct timer_list timer;
	struct task_struct *waiter;
	int ready;
};

static void kt_fire(struct timer_list *t)
{
	struct kt_world *W = from_timer(W, t, timer);

	smp_store_release(&W->ready, 1);
	wake_up_process(READ_ONCE(W->waiter));
}

static void kt_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct kt_world *W = w;

	(void)wl;
	W->variant = variant;
	timer_setup(&W->timer, kt_fire, 0);
}

static void kt_thread(void *w, unsigned tid)
{
	struct kt_world *W = w;

	(void)tid;
	WRITE_ONCE(W->waiter, current);
	W->timer.expires = jiffies + HZ;
	add_timer_on(&W->timer, 1);   /* the waker on the other CPU */
	sleep_until(&W->ready, W->variant == KT_SET_THEN_CHECK);
	del_timer_sync(&W->timer);
}

static const struct weft_variant kt_variants[] = {
	{ "set-then-check", NULL, false, "the task sleeps until its timer's callback wakes it",
	  "tests/kthread", WEFT_KIND_NONE, 0, KT_SET_THEN_CHECK },
	{ "check-then-set", NULL, true, "the test before set_current_state(): the callback's "
	  "wake-up in between is lost", "tests/kthread", WEFT_KIND_LOST_WAKEUP, 0,
	  KT_CHECK_THEN_SET },
};

static const struct weft_scenario kthread_timer = {
	.name = "kthread-timer",
	.summary = "test: a timer callback wakes a sleeping task",
	.source = "tests/kthread",
	.nr_cpus = 2,
	.nr_threads = 1,
	.world_size = sizeof(struct kt_world),
	.decision_hint = 64,
	.files = kthread_files,
	.setup = kt_setup,
	.thread = kt_thread,
	.variants = kt_variants,
	.nr_variants = 2,
};

/* ------------------------------------------------------------ kthread-work */

/* A kthread hands data to a work item on another CPU (queue_work_on()'s
 * guarantee: the function sees the stores before it, under every memory
 * model); T0 stops the kthread, then flushes the work before it reads the
 * work's result (no-flush: the result read before the work ran). */
enum { KQ_FLUSH, KQ_NO_FLUSH };

struct kq_world {
	unsigned variant;
	struct work_struct work;
	struct completion queued;
	int data;
	int seen;
};

static void kq_work(struct work_struct *w)
{
	struct kq_world *W = container_of(w, struct kq_world, work);

	if (READ_ONCE(W->data) != 42)
		weft_report(WEFT_KIND_ASSERT, &W->data, KSITE("kq data"),
			    "the work saw data %d: the kthread's store before queue_work_on() "
			    "was not visible", READ_ONCE(W->data));
	WRITE_ONCE(W->seen, 1);
}

static int kq_kthread(void *data)
{
	struct kq_world *W = data;

	WRITE_ONCE(W->data, 42);
	queue_work_on(2, system_wq, &W->work);
	complete(&W->queued);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void kq_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct kq_world *W = w;

	(void)wl;
	W->variant = variant;
	INIT_WORK(&W->work, kq_work);
	init_completion(&W->queued);
}

static void kq_thread(void *w, unsigned tid)
{
	struct kq_world *W = w;

	(void)tid;
	struct task_struct *t = kthread_run_on_cpu(kq_kthread, W, 1, "kq/%u");
	if (IS_ERR(t))
		return;
	wait_for_completion(&W->queued);   /* a stop before would keep threadfn from running */
	kthread_stop(t);
	if (W->variant == KQ_FLUSH)
		flush_work(&W->work);
	if (!READ_ONCE(W->seen))
		weft_report(WEFT_KIND_ASSERT, &W->seen, KSITE("kq seen"),
			    "the work's result read before it ran");
}

static const struct weft_variant kq_variants[] = {
	{ "flush", NULL, false, "kthread_stop(), flush_work(), then the work's result",
	  "tests/kthread", WEFT_KIND_NONE, 0, KQ_FLUSH },
	{ "no-flush", NULL, true, "the result read after kthread_stop() alone", "tests/kthread",
	  WEFT_KIND_ASSERT, 0, KQ_NO_FLUSH },
};

static const struct weft_scenario kthread_work = {
	.name = "kthread-work",
	.summary = "test: a kthread hands data to a work item",
	.source = "tests/kthread",
	.nr_cpus = 3,
	.nr_threads = 1,
	.world_size = sizeof(struct kq_world),
	.decision_hint = 64,
	.files = kthread_files,
	.setup = kq_setup,
	.thread = kq_thread,
	.variants = kq_variants,
	.nr_variants = 2,
};

WEFT_DEFINE_REGISTRY(&kthread_wake, &kthread_stop_scn, &kthread_timer, &kthread_work);
