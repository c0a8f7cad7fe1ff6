/*
 * demo_sleep.c - sleeping-primitive demos (<weft/sleep.h>, <weft/pthread.h>,
 * <weft/mm/pagelock.h>): each bug of the textbook, with its fix.
 *
 *   demo-mutex       ABBA on two mutexes (deadlock); a mutex an abort path
 *                    unlocks for the thread that owns it (bad-unlock), and
 *                    the semaphore that makes that handoff legal
 *   demo-rwsem       a recursive down_read() while a writer waits (deadlock)
 *   demo-waitq       a sleeper that tests its condition before
 *                    prepare_to_wait() and not after (lost-wakeup); fixed by
 *                    wait_event() or by the open-coded re-check
 *   demo-completion  reinit_completion() after the request went to the
 *                    worker: its complete() can be erased (lost-wakeup);
 *                    fixed by reinitialising before the submission
 *   demo-condvar     pthread producer/consumer whose producer updates the
 *                    predicate and signals without the mutex: the signal
 *                    falls between the consumer's test and its wait
 *                    (lost-wakeup); fixed by doing both under the mutex
 *   demo-pagelock    the page-lock holder sets another flag with the
 *                    non-atomic __SetPageDirty(), erasing the PG_waiters a
 *                    sleeper set in between: unlock_page() wakes nobody
 *                    (lost-wakeup); fixed by SetPageDirty()
 *
 * Workloads: `round` operations, one per thread at most; each scenario
 * documents how many rounds its threads run (always matched, so every
 * workload is legal for the fixed variants).
 */
#include <weft/kernel.h>
#include <weft/scenario.h>
#include <weft/mm/pagelock.h>
#include <weft/pthread.h>

static const char *const sleep_ops[] = { "round" };

/* Bytes input: the empty workload and one preemption, at decision k
 * (found by `weft run S:V --strategy dfs --bound 1`). */
#define TRIGGER_1(k) { 0x00, (uint8_t)(k), 0x00, 0x00 }

/* ------------------------------------------------------------ demo-mutex */

enum { MX_ABBA, MX_ORDERED, MX_NON_OWNER, MX_SEM_HANDOFF };

struct mutex_world {
	unsigned variant;
	unsigned rounds[2];
	struct weft_mutex a, b;
	struct weft_mutex dev;           /* non-owner: "the device is busy" */
	struct weft_semaphore dev_sem;   /* sem-handoff: the same, legally */
	int started;
	int x;
};

static void mutex_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct mutex_world *W = w;

	W->variant = variant;
	for (unsigned t = 0; t < 2; t++)
		W->rounds[t] = 1 + wl->nr_ops[t];
	sema_init(&W->dev_sem, 1);
}

static void mutex_thread(void *w, unsigned tid)
{
	struct mutex_world *W = w;

	switch (W->variant) {
	case MX_ABBA:
	case MX_ORDERED:
		for (unsigned r = 0; r < W->rounds[tid]; r++) {
			struct weft_mutex *first = &W->a, *second = &W->b;
			if (tid == 1 && W->variant == MX_ABBA) {
				first = &W->b;
				second = &W->a;
			}
			mutex_lock(first);
			mutex_lock(second);
			WRITE_ONCE(W->x, READ_ONCE(W->x) + 1);
			mutex_unlock(second);
			mutex_unlock(first);
		}
		break;
	case MX_NON_OWNER:
	case MX_SEM_HANDOFF:
		/* T0 takes the device and starts an operation; T1 is an abort
		 * path that releases the device on T0's behalf if the
		 * operation is still running. Whoever clears `started` first
		 * releases: exactly once, but not always by T0. */
		if (tid == 0) {
			if (W->variant == MX_NON_OWNER)
				mutex_lock(&W->dev);
			else
				down(&W->dev_sem);
			WRITE_ONCE(W->started, 1);
			WRITE_ONCE(W->x, 1);
		}
		if (xchg(&W->started, 0)) {
			if (W->variant == MX_NON_OWNER)
				mutex_unlock(&W->dev);
			else
				up(&W->dev_sem);
		}
		break;
	}
}

/* Every lock is free at the end, the device released exactly once. */
static void mutex_quiesce(void *w)
{
	struct mutex_world *W = w;

	if (weft_peek(W->a.owner) || weft_peek(W->b.owner) || weft_peek(W->dev.owner) ||
	    (W->variant == MX_SEM_HANDOFF && weft_peek(W->dev_sem.count) != 1))
		weft_report(WEFT_KIND_ASSERT, &W->dev_sem,
			    WEFT_SITE(WEFT_EV_NOTE, "quiescent: locks free, device released once"),
			    "at the end: A owner %u, B owner %u, device mutex owner %u, device "
			    "semaphore count %u", weft_peek(W->a.owner), weft_peek(W->b.owner),
			    weft_peek(W->dev.owner), weft_peek(W->dev_sem.count));
}

static const struct weft_field mutex_fields[] = {
	WEFT_FIELD(struct mutex_world, a, "mutex A"),
	WEFT_FIELD(struct mutex_world, b, "mutex B"),
	WEFT_FIELD(struct mutex_world, dev, "device mutex"),
	WEFT_FIELD(struct mutex_world, dev_sem, "device semaphore"),
	WEFT_FIELD(struct mutex_world, started, "started"),
	WEFT_FIELD(struct mutex_world, x, "x"),
	{ 0, NULL },
};

static const char *const sleep_files[] = { "demo_sleep.c", NULL };

static const struct weft_variant mutex_variants[] = {
	{ "abba", NULL, true, "T0 locks mutex A then B, T1 B then A", "textbook deadlock",
	  WEFT_KIND_DEADLOCK, 1, MX_ABBA },
	{ "ordered", NULL, false, "both lock A then B", "textbook fix", WEFT_KIND_NONE, 0,
	  MX_ORDERED },
	{ "non-owner", NULL, true,
	  "T0 locks the device mutex; T1's abort path may unlock it for T0",
	  "kernel/locking/mutex.c: a mutex is released by its owner (DEBUG_MUTEXES)",
	  WEFT_KIND_BAD_UNLOCK, 1, MX_NON_OWNER },
	{ "sem-handoff", NULL, false,
	  "the same with a semaphore: down() in T0, up() in whichever thread ends it",
	  "struct semaphore has no owner", WEFT_KIND_NONE, 0, MX_SEM_HANDOFF },
};

static const uint8_t mutex_trigger[] = TRIGGER_1(1);
static const uint8_t mutex_trigger_owner[] = TRIGGER_1(3);
WEFT_SCENARIO_TRIGGERS(mutex, 4, mutex_trigger, mutex_trigger, mutex_trigger_owner, mutex_trigger_owner);

const struct weft_scenario weft_scn_demo_mutex = {
	WEFT_SCENARIO_PLAIN("demo-mutex",
	                    "demo: mutexes taken in opposite orders; a mutex unlocked by another thread (2 CPUs)",
	                    "Weft demo; kernel/locking/mutex.c, semaphore.c (v6.8)",
	                    2, 2, sizeof(struct mutex_world), 1, sleep_ops, 1, 64,
	                    sleep_files, mutex_setup, mutex_thread, mutex_variants),
	.quiesce = mutex_quiesce,
	.fields = mutex_fields,
	.triggers = mutex_triggers,
	.trigger_lens = mutex_trigger_lens,
	/* the deadlock detector's and the owner check's demo: lockdep-lite
	 * would report the mutex ABBA as a lock-order inversion at bound 0,
	 * before any deadlock (tests/sleep checks that it does) */
	.checks_off = WEFT_CHECK_LOCKDEP,
};

/* ------------------------------------------------------------ demo-rwsem */

/*
 * T0 reads under the semaphore and, deeper in its call chain, takes the
 * read lock again; T1 writes. A reader queues behind a waiting writer, so
 * once T1 waits between T0's two down_read()s, each waits for the other.
 * lockdep reports the recursive read as a possible deadlock for this
 * reason. The fix takes the read lock once.
 */
enum { RW_RECURSIVE, RW_ONCE };

struct rwsem_world {
	unsigned variant;
	unsigned rounds[2];
	struct weft_rw_semaphore sem;
	int data;
};

static void rwsem_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct rwsem_world *W = w;

	W->variant = variant;
	for (unsigned t = 0; t < 2; t++)
		W->rounds[t] = 1 + wl->nr_ops[t];
}

static void rwsem_thread(void *w, unsigned tid)
{
	struct rwsem_world *W = w;

	for (unsigned r = 0; r < W->rounds[tid]; r++) {
		if (tid == 1) {
			down_write(&W->sem);
			WRITE_ONCE(W->data, READ_ONCE(W->data) + 1);
			up_write(&W->sem);
			continue;
		}
		down_read(&W->sem);
		(void)READ_ONCE(W->data);
		if (W->variant == RW_RECURSIVE) {
			down_read(&W->sem);
			(void)READ_ONCE(W->data);
			up_read(&W->sem);
		}
		up_read(&W->sem);
	}
}

static const struct weft_field rwsem_fields[] = {
	WEFT_FIELD(struct rwsem_world, sem, "rwsem"),
	WEFT_FIELD(struct rwsem_world, data, "data"),
	{ 0, NULL },
};

static const struct weft_variant rwsem_variants[] = {
	{ "recursive-read", NULL, true, "T0 takes the read lock twice while T1 waits to write",
	  "kernel/locking/rwsem.c: readers queue behind a waiting writer", WEFT_KIND_DEADLOCK, 1,
	  RW_RECURSIVE },
	{ "read-once", NULL, false, "T0 takes the read lock once", "textbook fix", WEFT_KIND_NONE,
	  0, RW_ONCE },
};

static const uint8_t rwsem_trigger[] = TRIGGER_1(2);
WEFT_SCENARIO_TRIGGERS(rwsem, 2, rwsem_trigger, rwsem_trigger);

const struct weft_scenario weft_scn_demo_rwsem = {
	WEFT_SCENARIO_PLAIN("demo-rwsem",
	                    "demo: a recursive down_read() while a writer waits (2 CPUs)",
	                    "Weft demo; kernel/locking/rwsem.c (v6.8)",
	                    2, 2, sizeof(struct rwsem_world), 1, sleep_ops, 1, 64,
	                    sleep_files, rwsem_setup, rwsem_thread, rwsem_variants),
	.fields = rwsem_fields,
	.triggers = rwsem_triggers,
	.trigger_lens = rwsem_trigger_lens,
	/* the deadlock detector's demo (the writer queued between the two
	 * reads, one preemption): lockdep-lite's recursive-read rule would
	 * report the second down_read() at bound 0, writer or not
	 * (tests/lockdep, nested-read:rwsem-twice, checks that it does) */
	.checks_off = WEFT_CHECK_LOCKDEP_HELD_READS,
};

/* ------------------------------------------------------------ demo-waitq */

/*
 * T1 publishes rounds 1..R (seq = i, then wake_up()); T0 waits for each.
 * R = 1 + the workload's rounds of both threads (both agree on it).
 */
enum { WQ_CHECK_THEN_SLEEP, WQ_WAIT_EVENT, WQ_RECHECK };

struct waitq_world {
	unsigned variant;
	unsigned rounds;
	wait_queue_head_t wq;
	int seq;
};

static void waitq_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct waitq_world *W = w;

	W->variant = variant;
	W->rounds = 1 + wl->nr_ops[0] + wl->nr_ops[1];
	init_waitqueue_head(&W->wq);
}

static void waitq_sleeper(struct waitq_world *W, int i)
{
	switch (W->variant) {
	case WQ_CHECK_THEN_SLEEP:
		/* the bug: the test comes before prepare_to_wait() and is not
		 * repeated after it */
		if (READ_ONCE(W->seq) < i) {
			DEFINE_WAIT(wait);
			prepare_to_wait(&W->wq, &wait, TASK_UNINTERRUPTIBLE);
			schedule();
			finish_wait(&W->wq, &wait);
		}
		break;
	case WQ_WAIT_EVENT:
		wait_event(W->wq, READ_ONCE(W->seq) >= i);
		break;
	case WQ_RECHECK: {
		DEFINE_WAIT(wait);
		for (;;) {
			prepare_to_wait(&W->wq, &wait, TASK_UNINTERRUPTIBLE);
			if (READ_ONCE(W->seq) >= i)
				break;
			schedule();
		}
		finish_wait(&W->wq, &wait);
		break;
	}
	}
}

static void waitq_thread(void *w, unsigned tid)
{
	struct waitq_world *W = w;

	for (int i = 1; i <= (int)W->rounds; i++) {
		if (tid == 0) {
			waitq_sleeper(W, i);
		} else {
			WRITE_ONCE(W->seq, i);
			wake_up(&W->wq);
		}
	}
}

static const struct weft_field waitq_fields[] = {
	WEFT_FIELD(struct waitq_world, seq, "seq"),
	{ 0, NULL },
};

static void waitq_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off >= offsetof(struct waitq_world, wq) &&
	    off < offsetof(struct waitq_world, wq) + sizeof(wait_queue_head_t))
		snprintf(buf, n, "wq");
}

static const struct weft_variant waitq_variants[] = {
	{ "check-then-sleep", NULL, true,
	  "tests seq, then prepare_to_wait(); schedule() without testing again",
	  "include/linux/wait.h: the condition is tested after prepare_to_wait()",
	  WEFT_KIND_LOST_WAKEUP, 1, WQ_CHECK_THEN_SLEEP },
	{ "wait-event", NULL, false, "wait_event(wq, seq >= i)", "include/linux/wait.h",
	  WEFT_KIND_NONE, 0, WQ_WAIT_EVENT },
	{ "recheck", NULL, false,
	  "the open-coded loop: prepare_to_wait(), test, schedule(), finish_wait()",
	  "kernel/sched/wait.c", WEFT_KIND_NONE, 0, WQ_RECHECK },
};

static const uint8_t waitq_trigger[] = TRIGGER_1(1);
WEFT_SCENARIO_TRIGGERS(waitq, 3, waitq_trigger, waitq_trigger, waitq_trigger);

const struct weft_scenario weft_scn_demo_waitq = {
	WEFT_SCENARIO_PLAIN("demo-waitq",
	                    "demo: a lost wakeup on a wait queue, and wait_event() (2 CPUs)",
	                    "Weft demo; include/linux/wait.h, kernel/sched/wait.c (v6.8)",
	                    2, 2, sizeof(struct waitq_world), 1, sleep_ops, 1, 64,
	                    sleep_files, waitq_setup, waitq_thread, waitq_variants),
	.describe = waitq_describe,
	.fields = waitq_fields,
	.triggers = waitq_triggers,
	.trigger_lens = waitq_trigger_lens,
};

/* ------------------------------------------------------- demo-completion */

/*
 * T0 submits a request to a worker (T1, a kthread waiting on its wait
 * queue) and waits for the completion `done`, then checks the result. The
 * completion is reused: a previous use left it completed, so it must be
 * reinitialised before the request is submitted. The buggy variant
 * reinitialises it after the submission: a complete() that came first is
 * erased, and T0 sleeps for ever. The worker runs its `round` operations as
 * extra steps before it publishes the result.
 */
enum { CO_REINIT_LATE, CO_CORRECT };

struct completion_world {
	unsigned variant;
	unsigned work;
	struct weft_completion done;
	wait_queue_head_t worker_wq;
	int request;
	int progress;
	int result;
};

static void completion_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct completion_world *W = w;

	W->variant = variant;
	W->work = wl->nr_ops[1];
	init_completion(&W->done);
	complete(&W->done);     /* a previous use left it completed */
	init_waitqueue_head(&W->worker_wq);
}

static void completion_thread(void *w, unsigned tid)
{
	struct completion_world *W = w;

	if (tid == 1) {         /* the worker */
		wait_event(W->worker_wq, READ_ONCE(W->request));
		for (unsigned i = 0; i < W->work; i++)
			WRITE_ONCE(W->progress, (int)i + 1);
		WRITE_ONCE(W->result, 42);
		complete(&W->done);
		return;
	}
	if (W->variant == CO_CORRECT)
		reinit_completion(&W->done);
	WRITE_ONCE(W->request, 1);
	wake_up(&W->worker_wq);
	if (W->variant == CO_REINIT_LATE)
		reinit_completion(&W->done);
	wait_for_completion(&W->done);
	if (READ_ONCE(W->result) != 42)
		weft_report(WEFT_KIND_ASSERT, &W->result,
			    WEFT_SITE(WEFT_EV_NOTE, "wait_for_completion() => result published"),
			    "the completion returned before the worker published its result");
}

static void completion_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off >= offsetof(struct completion_world, done) &&
	    off < offsetof(struct completion_world, done) + sizeof(struct weft_completion))
		snprintf(buf, n, "done");
	else if (off >= offsetof(struct completion_world, worker_wq) &&
		 off < offsetof(struct completion_world, worker_wq) + sizeof(wait_queue_head_t))
		snprintf(buf, n, "worker_wq");
}

static const struct weft_field completion_fields[] = {
	WEFT_FIELD(struct completion_world, request, "request"),
	WEFT_FIELD(struct completion_world, progress, "progress"),
	WEFT_FIELD(struct completion_world, result, "result"),
	{ 0, NULL },
};

static const struct weft_variant completion_variants[] = {
	{ "reinit-late", NULL, true, "reinit_completion() after the request was submitted",
	  "kernel/sched/completion.c: reinit before the completer can run", WEFT_KIND_LOST_WAKEUP,
	  1, CO_REINIT_LATE },
	{ "correct", NULL, false, "reinit_completion() before the request is submitted",
	  "kernel/sched/completion.c", WEFT_KIND_NONE, 0, CO_CORRECT },
};

static const uint8_t completion_trigger[] = TRIGGER_1(2);
WEFT_SCENARIO_TRIGGERS(completion, 2, completion_trigger, completion_trigger);

const struct weft_scenario weft_scn_demo_completion = {
	WEFT_SCENARIO_PLAIN("demo-completion",
	                    "demo: a reused completion reinitialised after the request (2 CPUs)",
	                    "Weft demo; kernel/sched/completion.c (v6.8)",
	                    2, 2, sizeof(struct completion_world), 1, sleep_ops, 2, 64,
	                    sleep_files, completion_setup, completion_thread, completion_variants),
	.describe = completion_describe,
	.fields = completion_fields,
	.triggers = completion_triggers,
	.trigger_lens = completion_trigger_lens,
};

/* ---------------------------------------------------------- demo-condvar */

/*
 * pthread producer (T0) and consumer (T1): R items, R = 1 + the workload's
 * rounds of both threads. The consumer waits under the mutex while the
 * count is zero. The buggy producer increments the count and signals
 * without the mutex: between the consumer's test and its wait, the signal
 * finds nobody and is lost (POSIX keeps no signal for later).
 */
enum { CV_MISSED_SIGNAL, CV_LOCKED };

struct condvar_world {
	unsigned variant;
	unsigned items;
	weft_pthread_mutex_t m;
	weft_pthread_cond_t cv;
	atomic_t count;        /* items produced, not yet consumed */
	int consumed;
};

static void condvar_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct condvar_world *W = w;

	W->variant = variant;
	W->items = 1 + wl->nr_ops[0] + wl->nr_ops[1];
	weft_pthread_mutex_init(&W->m, NULL);
	weft_pthread_cond_init(&W->cv, NULL);
}

static void condvar_thread(void *w, unsigned tid)
{
	struct condvar_world *W = w;

	for (unsigned i = 0; i < W->items; i++) {
		if (tid == 0) {
			if (W->variant == CV_LOCKED)
				weft_pthread_mutex_lock(&W->m);
			atomic_inc(&W->count);
			weft_pthread_cond_signal(&W->cv);
			if (W->variant == CV_LOCKED)
				weft_pthread_mutex_unlock(&W->m);
			continue;
		}
		weft_pthread_mutex_lock(&W->m);
		while (atomic_read(&W->count) == 0)
			weft_pthread_cond_wait(&W->cv, &W->m);
		atomic_dec(&W->count);
		PLAIN_WRITE(W->consumed, PLAIN_READ(W->consumed) + 1);
		weft_pthread_mutex_unlock(&W->m);
	}
}

static void condvar_quiesce(void *w)
{
	struct condvar_world *W = w;

	if ((unsigned)weft_peek(W->consumed) != W->items)
		weft_report(WEFT_KIND_ASSERT, &W->consumed,
			    WEFT_SITE(WEFT_EV_NOTE, "every item produced is consumed"),
			    "%d of %u items consumed", weft_peek(W->consumed), W->items);
}

static void condvar_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off >= offsetof(struct condvar_world, cv) &&
	    off < offsetof(struct condvar_world, cv) + sizeof(weft_pthread_cond_t))
		snprintf(buf, n, "cond cv");
}

static const struct weft_field condvar_fields[] = {
	WEFT_FIELD(struct condvar_world, m, "mutex m"),
	WEFT_FIELD(struct condvar_world, count, "count"),
	WEFT_FIELD(struct condvar_world, consumed, "consumed"),
	{ 0, NULL },
};

static const struct weft_variant condvar_variants[] = {
	{ "missed-signal", NULL, true,
	  "the producer increments and signals without the mutex",
	  "POSIX pthread_cond_signal(): no effect without waiters", WEFT_KIND_LOST_WAKEUP, 1,
	  CV_MISSED_SIGNAL },
	{ "locked", NULL, false, "the producer increments and signals under the mutex",
	  "textbook fix", WEFT_KIND_NONE, 0, CV_LOCKED },
};

/* T1 first (a free choice at the start), preempted at decision 2 */
static const uint8_t condvar_trigger[] = { 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00 };
WEFT_SCENARIO_TRIGGERS(condvar, 2, condvar_trigger, condvar_trigger);

const struct weft_scenario weft_scn_demo_condvar = {
	WEFT_SCENARIO_PLAIN("demo-condvar",
	                    "demo: pthread producer/consumer with a signal sent outside the mutex (2 CPUs)",
	                    "Weft demo; POSIX condition variables (<weft/pthread.h>)",
	                    2, 2, sizeof(struct condvar_world), 1, sleep_ops, 1, 64,
	                    sleep_files, condvar_setup, condvar_thread, condvar_variants),
	.quiesce = condvar_quiesce,
	.describe = condvar_describe,
	.fields = condvar_fields,
	.triggers = condvar_triggers,
	.trigger_lens = condvar_trigger_lens,
};

/* --------------------------------------------------------- demo-pagelock */

/*
 * Page 0 of the mm kit, locked in turn by T0 (which marks it dirty while it
 * holds the lock) and T1, each for its rounds (1 + its workload ops).
 * __SetPageDirty() is a load and a store of page->flags: when T1 sleeps in
 * lock_page() between them, setting PG_waiters, T0's store writes the old
 * flags back without it, and T0's unlock_page() sees no waiter.
 */
enum { PL_NONATOMIC, PL_ATOMIC };

struct pagelock_world {
	unsigned variant;
	unsigned rounds[2];
	struct weft_mm mm;
	struct weft_page *page;
};

static void pagelock_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct pagelock_world *W = w;

	W->variant = variant;
	for (unsigned t = 0; t < 2; t++)
		W->rounds[t] = 1 + wl->nr_ops[t];
	weft_mm_init(&W->mm, 1, false);
	W->page = weft_page_alloc(&W->mm);
}

static void pagelock_thread(void *w, unsigned tid)
{
	struct pagelock_world *W = w;
	struct weft_page *p = W->page;

	for (unsigned r = 0; r < W->rounds[tid]; r++) {
		lock_page(p);
		if (tid == 0) {
			if (W->variant == PL_NONATOMIC)
				__weft_page_set(p, dirty);      /* __SetPageDirty() */
			else
				weft_page_set(p, dirty);        /* SetPageDirty() */
		} else {
			WRITE_ONCE(p->data, READ_ONCE(p->data) + 1);
		}
		unlock_page(p);
	}
}

static void pagelock_quiesce(void *w)
{
	struct pagelock_world *W = w;

	if (weft_page_peek_flag(W->page, locked) || weft_page_peek_flag(W->page, waiters))
		weft_report(WEFT_KIND_ASSERT, &W->page->flags,
			    WEFT_SITE(WEFT_EV_NOTE, "quiescent page: !PG_locked && !PG_waiters"),
			    "page 0 ends with PG_locked %lu, PG_waiters %lu",
			    weft_page_peek_flag(W->page, locked),
			    weft_page_peek_flag(W->page, waiters));
}

static void pagelock_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct pagelock_world *W = w;

	weft_mm_describe(&W->mm, w, off, buf, n);
}

static const char *const pagelock_files[] = { "demo_sleep.c", "mm_page.c", "mm_pagelock.c",
					      NULL };

static const struct weft_variant pagelock_variants[] = {
	{ "nonatomic-flags", NULL, true,
	  "the lock holder sets PG_dirty with __SetPageDirty(): a load and a store",
	  "include/linux/page-flags.h: __ forms only on pages nobody else can see",
	  WEFT_KIND_LOST_WAKEUP, 1, PL_NONATOMIC },
	{ "atomic-flags", NULL, false, "SetPageDirty(): one atomic RMW", "textbook fix",
	  WEFT_KIND_NONE, 0, PL_ATOMIC },
};

static const uint8_t pagelock_trigger[] = TRIGGER_1(2);
WEFT_SCENARIO_TRIGGERS(pagelock, 2, pagelock_trigger, pagelock_trigger);

const struct weft_scenario weft_scn_demo_pagelock = {
	WEFT_SCENARIO_PLAIN("demo-pagelock",
	                    "demo: a non-atomic page-flag store erases PG_waiters (2 CPUs)",
	                    "Weft demo; mm/filemap.c folio_lock()/folio_unlock() (v6.8)",
	                    2, 2, sizeof(struct pagelock_world), 1, sleep_ops, 1, 64,
	                    pagelock_files, pagelock_setup, pagelock_thread, pagelock_variants),
	.quiesce = pagelock_quiesce,
	.describe = pagelock_describe,
	.triggers = pagelock_triggers,
	.trigger_lens = pagelock_trigger_lens,
};
