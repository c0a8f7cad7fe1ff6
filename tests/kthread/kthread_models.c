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
 *  task-query     T0 makes a kthread that sleeps until T1 (or T0 itself,
 *                 after its query) lets it go, and asks task_is_running()
 *                 of it once (-waker-first: T1 makes and asks, T0 lets
 *                 go, so plain dfs runs the wake-up first); it reports
 *                 when it saw the kthread asleep, which needs the
 *                 kthread's sleep before the query and the wake-up after
 *                 it: plain dfs finds each, a reduction that lacks a
 *                 record of the task state's writes (the sleep's or the
 *                 wake-up's) may not (dpor_vs_dfs runs them all). The
 *                 kthread sleeps in schedule() after set_current_state()
 *                 (the other thread sets the flag, without a wake-up: it
 *                 holds no reference to the task), in wait_event() or in
 *                 wait_on_bit(). woken-wait-event, woken-wait-var (T1
 *                 makes and asks, T0 alone lets go): T1 reports when it
 *                 saw the kthread running after a test that sent it to
 *                 sleep and before its next test, which only the
 *                 wake-up's write of the task state allows (wake_up()
 *                 records its wait queue and, after it, that write). No
 *                 model of the tools called task_is_running() before.
 *  task-spin      T0 holds a mutex, an rwsem (for write, or for read), a
 *                 page lock, or a semaphore at 0 or a completion, starts a
 *                 kthread that waits for it, spins while
 *                 task_is_running() says the kthread runs, and lets go:
 *                 correct (clean), as the kernel's wait loops sleep
 *                 TASK_UNINTERRUPTIBLE (a spin forever, a false livelock,
 *                 while they left the state TASK_RUNNING).
 *  task-blocked   the same waits asked about once by another thread,
 *                 which reports when it saw the kthread asleep (a bug
 *                 every strategy must find; the reductions through the
 *                 records of the task state's writes).
 *  task-spin-wait the same spin, on a kthread asleep in synchronize_rcu(),
 *                 rcu_barrier(), flush_work(), flush_workqueue(),
 *                 cancel_work_sync() or del_timer_sync() of a running
 *                 item or callback, or kthread_stop() of a kthread that
 *                 has not exited, each kept waiting by T0 (a false
 *                 livelock while those waits left the task TASK_RUNNING);
 *                 and a kthread_stop() woken by wake_up_process() before
 *                 the exit, which sleeps again (a false livelock while
 *                 its join went back to sleep TASK_RUNNING); and the
 *                 workqueue worker or RCU callback kthread that ran an
 *                 item or callback (current in it), until it sleeps idle.
 *  task-blocked-wait  those waits asked about once by another thread (as
 *                 task-blocked: a bug every strategy must find).
 *                 (Scenarios of their own: a larger ts_world would move
 *                 the core area, and the task state's location with it,
 *                 in task-spin's and task-blocked's traces.)
 *
 * Length (~1,000 lines): one program for the task and kthread API, a
 * section per scenario (about 100 lines each) sharing the driver and its
 * ctests; splitting it into a file per scenario would give each its own
 * program and CMake block for no shared code.
 */
#include <errno.h>

#include <weft/kernel.h>
#include <weft/kthread.h>
#include <weft/timer.h>
#include <weft/wait_bit.h>
#include <weft/workqueue.h>

#define WEFT_TEST_SOURCE "tests/kthread"
#define WEFT_TEST_FILE "kthread_models.c"
#include "../model_driver.h"

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
		weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_TEST_NOTE_SITE("kw data"),
			    "woken with the condition set but not the data");
	WRITE_ONCE(W->seen, 1);
	return 0;
}

WEFT_TEST_SETUP_VARIANT_ONLY(kw, struct kw_world)

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
	WEFT_TEST_FIX("set-then-check",
	              "set_current_state(), then the test, then schedule()",
	              KW_SET_THEN_CHECK),
	WEFT_TEST_BUG("check-then-set",
	              "the test before set_current_state(): the wake-up in between finds the kthread "
	              "running",
	              WEFT_KIND_LOST_WAKEUP, KW_CHECK_THEN_SET),
	WEFT_TEST_BUG("no-get",
	              "wake_up_process() of a kthread that may have returned: no get_task_struct()",
	              WEFT_KIND_USE_AFTER_FREE, KW_NO_GET),
};

WEFT_TEST_SCENARIO(kthread_wake, "kthread-wake",
		   "test: waking a kthread that sleeps until a condition holds",
		   struct kw_world, 2, 1, 64, kw);

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

WEFT_TEST_SETUP_VARIANT_ONLY(ks, struct ks_world)

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
			weft_report(WEFT_KIND_ASSERT, NULL, WEFT_TEST_NOTE_SITE("ks never woken"),
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
		weft_report(WEFT_KIND_ASSERT, NULL, WEFT_TEST_NOTE_SITE("ks result"),
			    "kthread_stop() returned %d with threadfn run %d", ret,
			    READ_ONCE(W->ran));
}

static const struct weft_variant ks_variants[] = {
	WEFT_TEST_FIX("set-then-check",
	              "set_current_state(), then kthread_should_stop(), then schedule()",
	              KS_SET_THEN_CHECK),
	WEFT_TEST_BUG("check-then-set",
	              "kthread_should_stop() before set_current_state(): the stop's wake-up is lost",
	              WEFT_KIND_LOST_WAKEUP, KS_CHECK_THEN_SET),
	WEFT_TEST_BUG("exit-early",
	              "threadfn returns on its own; kthread_stop() with no reference held",
	              WEFT_KIND_USE_AFTER_FREE, KS_EXIT_EARLY),
	WEFT_TEST_FIX("exit-early-get",
	              "the same, held with get_task_struct() and stopped with kthread_stop_put()",
	              KS_EXIT_EARLY_GET),
	WEFT_TEST_FIX("never-woken",
	              "kthread_create() then kthread_stop(): -EINTR, threadfn never runs",
	              KS_NEVER_WOKEN),
};

WEFT_TEST_SCENARIO(kthread_stop_scn, "kthread-stop",
		   "test: stopping a kthread",
		   struct ks_world, 2, 1, 64, ks);

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

WEFT_TEST_SETUP(kt, struct kt_world)
{
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
	WEFT_TEST_FIX("set-then-check",
	              "the task sleeps until its timer's callback wakes it",
	              KT_SET_THEN_CHECK),
	WEFT_TEST_BUG("check-then-set",
	              "the test before set_current_state(): the callback's wake-up in between is lost",
	              WEFT_KIND_LOST_WAKEUP, KT_CHECK_THEN_SET),
};

WEFT_TEST_SCENARIO(kthread_timer, "kthread-timer",
		   "test: a timer callback wakes a sleeping task",
		   struct kt_world, 2, 1, 64, kt);

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
		weft_report(WEFT_KIND_ASSERT, &W->data, WEFT_TEST_NOTE_SITE("kq data"),
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

WEFT_TEST_SETUP(kq, struct kq_world)
{
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
		weft_report(WEFT_KIND_ASSERT, &W->seen, WEFT_TEST_NOTE_SITE("kq seen"),
			    "the work's result read before it ran");
}

static const struct weft_variant kq_variants[] = {
	WEFT_TEST_FIX("flush", "kthread_stop(), flush_work(), then the work's result", KQ_FLUSH),
	WEFT_TEST_BUG("no-flush",
	              "the result read after kthread_stop() alone",
	              WEFT_KIND_ASSERT, KQ_NO_FLUSH),
};

WEFT_TEST_SCENARIO(kthread_work, "kthread-work",
		   "test: a kthread hands data to a work item",
		   struct kq_world, 3, 1, 64, kq);

/* ------------------------------------------------------------ task-query */

/* the variants: the three sleeps, the same with the waker T0, and two
 * sleeps (wait_event(), wait_var_event()) asked about after they began
 * (-woken) */
enum { TQ_SET_STATE, TQ_WAIT_EVENT, TQ_WAIT_BIT, TQ_NR_SLEEPS, TQ_WOKEN_WAIT_VAR = 2 * TQ_NR_SLEEPS + 1 };

struct tq_world {
	unsigned variant;
	int flag;
	int checks;        /* the sleeper's tests of flag */
	int last_unset;    /* its last test (or the one under way) found 0 */
	unsigned long bits;
	wait_queue_head_t wq;
};

WEFT_TEST_SETUP(tq, struct tq_world)
{
	init_waitqueue_head(&W->wq);
	W->bits = 1;
}

static bool tq_woken(const struct tq_world *W)
{
	return W->variant >= 2 * TQ_NR_SLEEPS;
}

/* the sleep of a variant: TQ_SET_STATE, TQ_WAIT_EVENT, TQ_WAIT_BIT or
 * TQ_WOKEN_WAIT_VAR */
static unsigned tq_sleep(const struct tq_world *W)
{
	if (W->variant == TQ_WOKEN_WAIT_VAR)
		return TQ_WOKEN_WAIT_VAR;
	return tq_woken(W) ? TQ_WAIT_EVENT : W->variant % TQ_NR_SLEEPS;
}

/* the sleeper's test of flag, counted: the result first, then the count */
static int tq_check(struct tq_world *W)
{
	int f = READ_ONCE(W->flag);

	WRITE_ONCE(W->last_unset, !f);
	WRITE_ONCE(W->checks, READ_ONCE(W->checks) + 1);
	return f;
}

static int tq_sleeper(void *data)
{
	struct tq_world *W = data;

	switch (tq_sleep(W)) {
	case TQ_SET_STATE:
		sleep_until(&W->flag, true);
		break;
	case TQ_WAIT_EVENT:
		wait_event(W->wq, tq_check(W));
		break;
	case TQ_WAIT_BIT:
		wait_on_bit(&W->bits, 0, TASK_UNINTERRUPTIBLE);
		break;
	case TQ_WOKEN_WAIT_VAR:
		wait_var_event(&W->flag, tq_check(W));
		break;
	}
	return 0;
}

/* lets the sleeper go (T1's, and T0's after its query); T1 holds no
 * reference to the kthread's task: it sets the flag alone */
static void tq_release(struct tq_world *W, struct task_struct *k)
{
	unsigned sleep = tq_sleep(W);

	if (sleep == TQ_WAIT_BIT) {
		clear_and_wake_up_bit(0, &W->bits);
		return;
	}
	smp_store_release(&W->flag, 1);
	if (sleep == TQ_WAIT_EVENT)
		wake_up(&W->wq);
	else if (sleep == TQ_WOKEN_WAIT_VAR)
		wake_up_var(&W->flag);
	else if (k)
		wake_up_process(k);
}

/* The query: asleep (the kthread's sleep before it, the wake-up after),
 * or, -woken, running while the kthread's second or later test, made
 * after prepare_to_wait() (the first is made before it, as the kernel's
 * wait_event() does), found 0 and no test completed during the query:
 * only the wake-up's change of the task state makes it running there */
static void tq_query(struct tq_world *W, struct task_struct *k)
{
	if (!tq_woken(W)) {
		if (!task_is_running(k))
			weft_report(WEFT_KIND_ASSERT, k, WEFT_TEST_NOTE_SITE("tq asleep"),
				    "task_is_running() saw the kthread asleep");
		return;
	}
	int checks = READ_ONCE(W->checks);
	int unset = READ_ONCE(W->last_unset);
	bool running = task_is_running(k);
	if (checks >= 2 && unset && running && READ_ONCE(W->checks) == checks)
		weft_report(WEFT_KIND_ASSERT, k, WEFT_TEST_NOTE_SITE("tq woken"),
			    "task_is_running() saw the kthread woken before it tested again");
}

static void tq_thread(void *w, unsigned tid)
{
	struct tq_world *W = w;

	if (tid == (W->variant < TQ_NR_SLEEPS)) {
		tq_release(W, NULL);
		return;
	}
	/* held until after T0's own release: the kthread returns then */
	struct task_struct *k = kthread_create(tq_sleeper, W, "tq-sleeper");
	if (IS_ERR(k))
		return;
	get_task_struct(k);
	wake_up_process(k);
	tq_query(W, k);
	if (!tq_woken(W))   /* -woken: T0 lets it go; the query's thread touches nothing else */
		tq_release(W, k);
	put_task_struct(k);
}

#define TQ_BUG(name, what, id) WEFT_TEST_BUG(name, what, WEFT_KIND_ASSERT, id)

static const struct weft_variant tq_variants[] = {
	TQ_BUG("set-state", "task_is_running() of a kthread that may sleep in schedule()",
	       TQ_SET_STATE),
	TQ_BUG("wait-event", "task_is_running() of a kthread that may sleep in wait_event()",
	       TQ_WAIT_EVENT),
	TQ_BUG("wait-bit", "task_is_running() of a kthread that may sleep in wait_on_bit()",
	       TQ_WAIT_BIT),
	TQ_BUG("set-state-waker-first", "set-state, the waker T0 and the query T1's",
	       TQ_NR_SLEEPS + TQ_SET_STATE),
	TQ_BUG("wait-event-waker-first", "wait-event, the waker T0 and the query T1's",
	       TQ_NR_SLEEPS + TQ_WAIT_EVENT),
	TQ_BUG("wait-bit-waker-first", "wait-bit, the waker T0 and the query T1's",
	       TQ_NR_SLEEPS + TQ_WAIT_BIT),
	TQ_BUG("woken-wait-event",
	       "task_is_running() of a kthread T0 may wake from wait_event() before it tests again",
	       2 * TQ_NR_SLEEPS),
	TQ_BUG("woken-wait-var",
	       "task_is_running() of a kthread T0 may wake from wait_var_event() before it tests "
	       "again",
	       TQ_WOKEN_WAIT_VAR),
};

WEFT_TEST_SCENARIO(task_query, "task-query",
		   "test: task_is_running() of a kthread another thread may wake",
		   struct tq_world, 2, 2, 64, tq);

/* ------------------------------------------------------------ task-spin */

/* The blocking waits that are not schedule(): each sets the task's state
 * (TASK_UNINTERRUPTIBLE) while it sleeps, as the kernel's wait loops do
 * (__mutex_lock_common(), rwsem_down_*_slowpath(), __down_common(),
 * do_wait_for_common(), folio_wait_bit_common()), and the wake-up makes it
 * TASK_RUNNING again. */
enum { TS_MUTEX, TS_RWSEM_READ, TS_RWSEM_WRITE, TS_SEMAPHORE, TS_COMPLETION, TS_PAGE_LOCK,
       TS_NR_WAITS };

enum { TS_LOCKED = 0, TS_WAITERS = 1 };   /* the page-lock word's bits */

struct ts_world {
	unsigned variant;
	struct mutex m;
	struct rw_semaphore r;
	struct semaphore sem;
	struct completion done;
	unsigned long page;   /* PG_locked, PG_waiters */
	struct task_struct *task;   /* task-blocked: the kthread's, published */
};

WEFT_TEST_SETUP(ts, struct ts_world)
{
	mutex_init(&W->m);
	init_rwsem(&W->r);
	sema_init(&W->sem, 0);
	init_completion(&W->done);
}

static unsigned ts_wait(const struct ts_world *W)
{
	return W->variant % TS_NR_WAITS;
}

/* folio_lock() and folio_unlock() on W->page (mm/filemap.c) */
static void ts_page_lock(struct ts_world *W)
{
	if (test_and_set_bit_lock(TS_LOCKED, &W->page))
		weft_wait_on_bit_waiters(&W->page, TS_LOCKED, TS_WAITERS, true,
					 WEFT_SITE(WEFT_EV_LOCK, "__folio_lock(&W->page)"));
}

static void ts_page_unlock(struct ts_world *W)
{
	unsigned long old = weft_clear_bit_unlock_fetch(
		TS_LOCKED, &W->page, WEFT_SITE(WEFT_EV_RMW, "folio_xor_flags_has_waiters(&W->page)"));

	if (old & 1ul << TS_WAITERS)
		weft_wake_up_bit_waiters(&W->page, TS_LOCKED, TS_WAITERS,
					 WEFT_SITE(WEFT_EV_WAKE, "folio_wake_bit(&W->page)"));
}

/* Takes the variant's object (give: gives it back): the holder first
 * (nothing for a semaphore at 0 or a completion, which it signals when it
 * gives), then the kthread, which sleeps in its wait until the holder
 * gives. An rwsem's holder and sleeper take opposite sides. */
static void ts_use(struct ts_world *W, bool holder, bool give)
{
	bool write = holder == (ts_wait(W) == TS_RWSEM_READ);

	switch (ts_wait(W)) {
	case TS_MUTEX:
		give ? mutex_unlock(&W->m) : mutex_lock(&W->m);
		break;
	case TS_PAGE_LOCK:
		give ? ts_page_unlock(W) : ts_page_lock(W);
		break;
	case TS_RWSEM_READ:
	case TS_RWSEM_WRITE:
		if (write)
			give ? up_write(&W->r) : down_write(&W->r);
		else
			give ? up_read(&W->r) : down_read(&W->r);
		break;
	case TS_SEMAPHORE:
		if (holder == give)
			holder ? up(&W->sem) : down(&W->sem);
		break;
	case TS_COMPLETION:
		if (holder == give)
			holder ? complete(&W->done) : wait_for_completion(&W->done);
		break;
	}
}

static int ts_sleeper(void *data)
{
	ts_use(data, false, false);
	ts_use(data, false, true);
	return 0;
}

/* T0 holds the object, starts the kthread and spins until it sleeps in
 * the wait (task_is_running() false), then lets go: correct, and it ends
 * only if the wait sets the task state. */
static void ts_thread(void *w, unsigned tid)
{
	struct ts_world *W = w;

	(void)tid;
	ts_use(W, true, false);
	struct task_struct *k = kthread_create(ts_sleeper, W, "ts-sleeper");
	if (IS_ERR(k))
		return;
	get_task_struct(k);
	wake_up_process(k);
	while (task_is_running(k))
		cpu_relax();
	ts_use(W, true, true);
	put_task_struct(k);
}

static const struct weft_variant ts_variants[] = {
	WEFT_TEST_FIX("mutex", "spin until a kthread sleeps in mutex_lock(), then unlock", TS_MUTEX),
	WEFT_TEST_FIX("rwsem-read", "spin until a kthread sleeps in down_read(), then up_write()",
		      TS_RWSEM_READ),
	WEFT_TEST_FIX("rwsem-write", "spin until a kthread sleeps in down_write(), then up_read()",
		      TS_RWSEM_WRITE),
	WEFT_TEST_FIX("semaphore", "spin until a kthread sleeps in down(), then up()", TS_SEMAPHORE),
	WEFT_TEST_FIX("completion",
		      "spin until a kthread sleeps in wait_for_completion(), then complete()",
		      TS_COMPLETION),
	WEFT_TEST_FIX("page-lock", "spin until a kthread sleeps in folio_lock(), then unlock",
		      TS_PAGE_LOCK),
};

WEFT_TEST_SCENARIO(task_spin, "task-spin",
		   "test: spin on task_is_running() until a kthread sleeps in a lock or wait",
		   struct ts_world, 2, 1, 64, ts);

/* ------------------------------------------------------------ task-blocked */

/* The same waits, asked about once: T0 holds the object, starts the
 * kthread, publishes its task and lets go; T1 asks task_is_running() of
 * the task it found published and reports when it saw the kthread asleep,
 * which needs the kthread's block before the query and T0's release after
 * it (-asker-first: T1 holds, T0 asks). The query touches nothing else of
 * the others, and each thread has a CPU of its own: a reduction orders the
 * query between the two only by the block's and the wake-up's writes of
 * the task state (without the wake-up's record, source and optimal DPOR
 * certify the T1-asks variants clean: mutant wl-wake-state-unrecorded). */
static void tb_thread(void *w, unsigned tid)
{
	struct ts_world *W = w;

	if (tid == (W->variant < TS_NR_WAITS)) {
		struct task_struct *k = smp_load_acquire(&W->task);
		if (k && !task_is_running(k))
			weft_report(WEFT_KIND_ASSERT, k, WEFT_TEST_NOTE_SITE("tb asleep"),
				    "task_is_running() saw the kthread asleep in its wait");
		return;
	}
	ts_use(W, true, false);
	struct task_struct *k = kthread_create(ts_sleeper, W, "tb-sleeper");
	if (IS_ERR(k))
		return;
	get_task_struct(k);   /* the asker's: kept to the end */
	wake_up_process(k);
	smp_store_release(&W->task, k);
	ts_use(W, true, true);
}

#define TB_BUG(name, what, id) WEFT_TEST_BUG(name, what, WEFT_KIND_ASSERT, id)

static const struct weft_variant tb_variants[] = {
	TB_BUG("mutex", "task_is_running() of a kthread that may sleep in mutex_lock()", TS_MUTEX),
	TB_BUG("rwsem-read", "task_is_running() of a kthread that may sleep in down_read()",
	       TS_RWSEM_READ),
	TB_BUG("rwsem-write", "task_is_running() of a kthread that may sleep in down_write()",
	       TS_RWSEM_WRITE),
	TB_BUG("semaphore", "task_is_running() of a kthread that may sleep in down()",
	       TS_SEMAPHORE),
	TB_BUG("completion",
	       "task_is_running() of a kthread that may sleep in wait_for_completion()",
	       TS_COMPLETION),
	TB_BUG("page-lock", "task_is_running() of a kthread that may sleep in folio_lock()",
	       TS_PAGE_LOCK),
	TB_BUG("mutex-asker-first", "mutex, the holder T1 and the query T0's",
	       TS_NR_WAITS + TS_MUTEX),
	TB_BUG("completion-asker-first", "completion, the waker T1 and the query T0's",
	       TS_NR_WAITS + TS_COMPLETION),
};

#define tb_setup ts_setup
WEFT_TEST_SCENARIO(task_blocked, "task-blocked",
		   "test: task_is_running() of a kthread that may sleep in a lock or wait",
		   struct ts_world, 3, 2, 64, tb);

/* ------------------------------------------------------- task-spin-wait */

/* The waits that block outside the wait lists (weft_sched_block() of the
 * RCU, workqueue, timer and kthread primitives): each sleeps
 * TASK_UNINTERRUPTIBLE in the kernel (wait_for_completion() inside
 * synchronize_rcu(), rcu_barrier(), __flush_work(), __flush_workqueue(),
 * __cancel_work_sync(), kthread_stop(); del_timer_sync()'s wait for a
 * running callback sleeps on the timer base's expiry lock under
 * PREEMPT_RT and spins otherwise: as a sleep here). T0 keeps the wait
 * waiting: an RCU read-side section (and, for rcu_barrier(), a callback
 * queued inside it), a mutex the running work item or the kthread to be
 * stopped waits for, or a timer callback it lets return. */
enum { TW_SYNC_RCU, TW_RCU_BARRIER, TW_FLUSH_WORK, TW_FLUSH_WQ, TW_CANCEL_SYNC,
       TW_DEL_TIMER_SYNC, TW_KTHREAD_STOP, TW_NR_WAITS };
/* kthread-stop-woken (the variant after the waits): kthread-stop, and once
 * the sleeper sleeps T0 wakes it with wake_up_process() and spins again:
 * its wait goes back to sleep */
enum { TW_KTHREAD_STOP_WOKEN = TW_NR_WAITS };
/* worker-idle, rcu-kthread-idle (the variants after it): a work item or an
 * RCU callback publishes current (W->task), and T0 spins until that
 * worker or the callback kthread sleeps idle, as worker_thread() sleeps
 * TASK_IDLE (a false livelock while they stayed TASK_RUNNING idle) */
enum { TW_WORKER_IDLE = TW_NR_WAITS + 1, TW_RCU_IDLE };

/* The CPUs: T0 and T1 on 0 and 1, the sleeper on 2, and on 3 what it
 * waits for (a timer callback there keeps every thread of CPU 3 off it
 * while it runs) */
enum { TW_SLEEPER_CPU = 2, TW_OTHER_CPU = 3 };

struct tw_world {
	unsigned variant;
	struct mutex m;
	struct work_struct work;
	struct timer_list timer;
	struct rcu_head head;
	struct completion started;  /* the item, the callback or the kthread runs */
	int go;                     /* the timer callback may return */
	struct task_struct *inner;  /* kthread-stop: the kthread the sleeper stops */
	struct task_struct *task;   /* task-blocked-wait: the sleeper's, published */
};

static void tw_work(struct work_struct *w)
{
	struct tw_world *W = container_of(w, struct tw_world, work);

	if (W->variant == TW_WORKER_IDLE) {
		smp_store_release(&W->task, current);
		return;
	}
	complete(&W->started);
	mutex_lock(&W->m);
	mutex_unlock(&W->m);
}

static void tw_fire(struct timer_list *t)
{
	struct tw_world *W = from_timer(W, t, timer);

	complete(&W->started);
	while (!READ_ONCE(W->go))
		cpu_relax();
}

static void tw_rcu_cb(struct rcu_head *head)
{
	struct tw_world *W = container_of(head, struct tw_world, head);

	if (W->variant == TW_RCU_IDLE)
		smp_store_release(&W->task, current);
}

static int tw_inner(void *data)
{
	struct tw_world *W = data;

	complete(&W->started);
	mutex_lock(&W->m);
	mutex_unlock(&W->m);
	return 0;
}

WEFT_TEST_SETUP(tw, struct tw_world)
{
	mutex_init(&W->m);
	INIT_WORK(&W->work, tw_work);
	timer_setup(&W->timer, tw_fire, 0);
	init_completion(&W->started);
}

static unsigned tw_wait(const struct tw_world *W)
{
	return W->variant == TW_KTHREAD_STOP_WOKEN ? TW_KTHREAD_STOP : W->variant % TW_NR_WAITS;
}

/* T0 starts what keeps the sleeper's wait waiting (hold) or lets it end
 * (!hold); an item, a callback or a kthread it waits for has started
 * when it returns (a wait on one not yet started ends at once, or takes
 * it off its list). */
static void tw_keep(struct tw_world *W, bool hold)
{
	switch (tw_wait(W)) {
	case TW_SYNC_RCU:
	case TW_RCU_BARRIER:
		if (!hold) {
			rcu_read_unlock();
			return;
		}
		rcu_read_lock();
		if (tw_wait(W) == TW_RCU_BARRIER)
			call_rcu(&W->head, tw_rcu_cb);
		return;
	case TW_DEL_TIMER_SYNC:
		if (!hold) {
			WRITE_ONCE(W->go, 1);
			return;
		}
		W->timer.expires = jiffies + HZ;
		add_timer_on(&W->timer, TW_OTHER_CPU);
		break;
	default:
		if (!hold) {
			mutex_unlock(&W->m);
			return;
		}
		mutex_lock(&W->m);
		if (tw_wait(W) == TW_KTHREAD_STOP) {
			W->inner = kthread_run_on_cpu(tw_inner, W, TW_OTHER_CPU, "tw-inner/%u");
			if (IS_ERR(W->inner))
				W->inner = NULL;
			else
				get_task_struct(W->inner);   /* the stopper's */
		} else {
			queue_work_on(TW_OTHER_CPU, system_wq, &W->work);
		}
		break;
	}
	wait_for_completion(&W->started);
}

static int tw_sleeper(void *data)
{
	struct tw_world *W = data;

	switch (tw_wait(W)) {
	case TW_SYNC_RCU: synchronize_rcu(); break;
	case TW_RCU_BARRIER: rcu_barrier(); break;
	case TW_FLUSH_WORK: flush_work(&W->work); break;
	case TW_FLUSH_WQ: flush_workqueue(system_wq); break;
	case TW_CANCEL_SYNC: cancel_work_sync(&W->work); break;
	case TW_DEL_TIMER_SYNC: del_timer_sync(&W->timer); break;
	case TW_KTHREAD_STOP:
		if (W->inner)
			kthread_stop_put(W->inner);
		break;
	}
	return 0;
}

/* The sleeper, made (not yet woken) before T0 holds anything: an RCU
 * read-side section may not sleep in kthread_create(). */
static struct task_struct *tw_start(struct tw_world *W)
{
	struct task_struct *k = kthread_create_on_cpu(tw_sleeper, W, TW_SLEEPER_CPU, "tw-sleeper/%u");

	if (IS_ERR(k))
		return NULL;
	get_task_struct(k);
	tw_keep(W, true);
	wake_up_process(k);
	return k;
}

/* T0 spins until the sleeper sleeps in its wait, then lets the wait end:
 * correct, and it ends only if the wait sets the task state. */
static void tw_thread(void *w, unsigned tid)
{
	struct tw_world *W = w;
	struct task_struct *k;

	(void)tid;
	if (W->variant == TW_WORKER_IDLE || W->variant == TW_RCU_IDLE) {
		if (W->variant == TW_WORKER_IDLE)
			queue_work_on(TW_OTHER_CPU, system_wq, &W->work);
		else
			call_rcu(&W->head, tw_rcu_cb);
		while (!(k = smp_load_acquire(&W->task)))
			cpu_relax();
		while (task_is_running(k))
			cpu_relax();
		return;
	}
	k = tw_start(W);
	if (!k)
		return;
	while (task_is_running(k))
		cpu_relax();
	if (W->variant == TW_KTHREAD_STOP_WOKEN) {
		wake_up_process(k);
		while (task_is_running(k))
			cpu_relax();
	}
	tw_keep(W, false);
	put_task_struct(k);
}

static const struct weft_variant tw_variants[] = {
	WEFT_TEST_FIX("synchronize-rcu",
		      "spin until a kthread sleeps in synchronize_rcu(), then rcu_read_unlock()",
		      TW_SYNC_RCU),
	WEFT_TEST_FIX("rcu-barrier",
		      "spin until a kthread sleeps in rcu_barrier(), then rcu_read_unlock()",
		      TW_RCU_BARRIER),
	WEFT_TEST_FIX("flush-work",
		      "spin until a kthread sleeps in flush_work() of a running item, then let "
		      "the item end", TW_FLUSH_WORK),
	WEFT_TEST_FIX("flush-workqueue",
		      "spin until a kthread sleeps in flush_workqueue(), then let the item end",
		      TW_FLUSH_WQ),
	WEFT_TEST_FIX("cancel-work-sync",
		      "spin until a kthread sleeps in cancel_work_sync() of a running item, "
		      "then let the item end", TW_CANCEL_SYNC),
	WEFT_TEST_FIX("del-timer-sync",
		      "spin until a kthread sleeps in del_timer_sync() of a running callback, "
		      "then let the callback end", TW_DEL_TIMER_SYNC),
	WEFT_TEST_FIX("kthread-stop",
		      "spin until a kthread sleeps in kthread_stop(), then let the stopped "
		      "kthread exit", TW_KTHREAD_STOP),
	WEFT_TEST_FIX("kthread-stop-woken",
		      "spin until a kthread sleeps in kthread_stop(), wake_up_process() it, "
		      "spin until it sleeps again, then let the stopped kthread exit",
		      TW_KTHREAD_STOP_WOKEN),
	WEFT_TEST_FIX("worker-idle",
		      "spin until the worker that ran a work item (current in it) sleeps idle",
		      TW_WORKER_IDLE),
	WEFT_TEST_FIX("rcu-kthread-idle",
		      "spin until the kthread that ran an RCU callback (current in it) sleeps idle",
		      TW_RCU_IDLE),
};

WEFT_TEST_SCENARIO(task_spin_wait, "task-spin-wait",
		   "test: spin on task_is_running() until a kthread sleeps in an RCU, "
		   "workqueue, timer or kthread wait",
		   struct tw_world, 4, 1, 64, tw);

/* -------------------------------------------------- task-blocked-wait */

/* The same waits, asked about once (as task-blocked): T0 keeps the wait
 * waiting, wakes the sleeper, publishes its task and lets the wait end;
 * T1 asks task_is_running() of the task it found published and reports
 * when it saw the sleeper asleep, which needs the sleeper's block before
 * the query and the end of the wait after it. For synchronize-rcu, whose
 * waker is T0's rcu_read_unlock(), a reduction orders the query between
 * the two only by the block's and the wake-up's writes of the task state
 * (mutant rcu-wake-state-unrecorded); the other wakers are threads of
 * their own (the worker, the callback, the stopped kthread), whose
 * wake-up comes in a later step than T0's release, and other races order
 * the query there. */
static void twb_thread(void *w, unsigned tid)
{
	struct tw_world *W = w;

	if (tid == 1) {
		struct task_struct *k = smp_load_acquire(&W->task);
		if (k && !task_is_running(k))
			weft_report(WEFT_KIND_ASSERT, k, WEFT_TEST_NOTE_SITE("twb asleep"),
				    "task_is_running() saw the kthread asleep in its wait");
		return;
	}
	struct task_struct *k = tw_start(W);
	if (!k)
		return;
	smp_store_release(&W->task, k);   /* the asker's reference: kept to the end */
	tw_keep(W, false);
}

#define TWB_BUG(name, what, id) WEFT_TEST_BUG(name, what, WEFT_KIND_ASSERT, id)

static const struct weft_variant twb_variants[] = {
	TWB_BUG("synchronize-rcu",
		"task_is_running() of a kthread that may sleep in synchronize_rcu()", TW_SYNC_RCU),
	TWB_BUG("rcu-barrier", "task_is_running() of a kthread that may sleep in rcu_barrier()",
		TW_RCU_BARRIER),
	TWB_BUG("flush-work", "task_is_running() of a kthread that may sleep in flush_work()",
		TW_FLUSH_WORK),
	TWB_BUG("flush-workqueue",
		"task_is_running() of a kthread that may sleep in flush_workqueue()", TW_FLUSH_WQ),
	TWB_BUG("cancel-work-sync",
		"task_is_running() of a kthread that may sleep in cancel_work_sync()",
		TW_CANCEL_SYNC),
	TWB_BUG("del-timer-sync",
		"task_is_running() of a kthread that may sleep in del_timer_sync()",
		TW_DEL_TIMER_SYNC),
	TWB_BUG("kthread-stop", "task_is_running() of a kthread that may sleep in kthread_stop()",
		TW_KTHREAD_STOP),
};

#define twb_setup tw_setup
WEFT_TEST_SCENARIO(task_blocked_wait, "task-blocked-wait",
		   "test: task_is_running() of a kthread that may sleep in an RCU, workqueue, "
		   "timer or kthread wait",
		   struct tw_world, 4, 2, 64, twb);

WEFT_DEFINE_REGISTRY(&kthread_wake, &kthread_stop_scn, &kthread_timer, &kthread_work,
		     &task_query, &task_spin, &task_blocked, &task_spin_wait, &task_blocked_wait);
