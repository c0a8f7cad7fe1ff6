/*
 * kthread.c - tasks and kernel threads (<weft/kthread.h>), after
 * kernel/sched/core.c (try_to_wake_up()) and kernel/kthread.c (kthread(),
 * kthread_stop()), v6.12.
 *
 * Thread tid's task is M.core->task[tid] (core_state.h): zeroed with the
 * core area before an execution that uses it, named (pid, comm) on first
 * use. Its state lives in the thread's waiter entry (waiters.h); the
 * weft_state byte is the location every step on the state records
 * (waitqueue.c), so wake_up_process() and the sleeper's
 * set_current_state(), prepare_to_wait(), schedule() and finish_wait() are
 * dependent, as are a wait loop's block and its waker (sleep.c:
 * weft_wl_sleep(), weft_wl_step()) with task_is_running(). The stop flag, the exit and the reference count are traced
 * writes of the task's own bytes.
 *
 * A kthread's task is freed when its thread function has returned and no
 * reference beyond the thread's own is left (kthread_stop() holds one
 * while it waits); freed_at[] keeps where, for the use-after-free report's
 * other side. The tasks of other threads are never freed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <weft/context.h>
#include <weft/kthread.h>

#include "core_state.h"
#include "families.h"
#include "waiters.h"

/* current in setup and audits (no thread's: wake-ups of it are refused) */
static struct task_struct host_task = { .pid = 0, .comm = "setup" };

/* where and by whom a task was freed (valid while its weft_freed is set,
 * which the core area's reset clears) */
static struct task_freed {
	uint32_t step;
	int tid;
	const struct weft_site *site;
} freed_at[WEFT_EXEC_MAX_THREADS];

/* thread i waits in kthread_stop() for the exit of thread stopping[i].of - 1
 * (valid in the execution of its epoch): asleep TASK_UNINTERRUPTIBLE until
 * that exit wakes it, as complete(&kthread->exited) does */
static struct stopping {
	uint32_t epoch;
	uint8_t of;
} stopping[WEFT_EXEC_MAX_THREADS];

static struct task_struct *task_named(unsigned tid)
{
	struct task_struct *p = &weft_core()->task[tid];

	if (!p->pid) {
		p->pid = (int)tid + 1;
		if (!p->comm[0])
			snprintf(p->comm, sizeof(p->comm), "T%u", tid);
	}
	return p;
}

struct task_struct *weft_current(void)
{
	if (M.cur < 0)
		return &host_task;
	return task_named((unsigned)M.cur);
}

/* p's thread; anything else is an assertion report (-1 from the host) */
static int task_tid(const struct task_struct *p, const struct weft_site *s)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)M.core->task;

	if (p == &host_task) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "%s: the task of setup, which is no thread",
			    s->what);
		return -1;
	}
	if (off >= sizeof(M.core->task) || off % sizeof(*p)) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "%s: not a task (current, or what kthread_create() returned)", s->what);
		return -1;
	}
	unsigned tid = (unsigned)(off / sizeof(*p));
	if (tid >= M.nr_threads) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "%s: the task of T%u, which does not exist",
			    s->what, tid);
		return -1;
	}
	weft_core();   /* its fields are this execution's: keep the area in use */
	return (int)tid;
}

/* The scheduling point of an operation on p's field [field, field+size)
 * (model threads only), p checked: a task of this execution, not freed.
 * Returns p's thread. */
static unsigned task_step(struct task_struct *p, const void *field, unsigned size,
			  const struct weft_site *s)
{
	sched_point_at(s, field, size, NULL);
	unsigned tid = (unsigned)task_tid(p, s);   /* (its reports end a model thread) */
	if (!p->weft_freed)
		return tid;
	const struct task_freed *f = &freed_at[tid];
	struct weft_access other = { true, f->tid, f->tid < 0 ? -1 : (int)M.cpu_of[f->tid],
				     f->step, f->site };
	weft_report2(WEFT_KIND_USE_AFTER_FREE, p, s, &other,
		     "%s: the task of %s (T%u) was freed: its thread function returned and no "
		     "reference was left (get_task_struct() holds one)",
		     s->what, p->comm, tid);
	return tid;
}

/* The task's references, in the caller's step (a traced read-modify-write
 * of weft_usage); a kthread's task goes with the last one after its exit. */
static void task_free(struct task_struct *p, unsigned tid, const struct weft_site *s)
{
	uint32_t loc = loc_of(p);

	p->weft_freed = 1;
	freed_at[tid] = (struct task_freed){ M.step, M.cur, s };
	weft_trace(WEFT_EV_FREE, loc, 0, sizeof(*p), s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(*p), 0, s);
}

static void task_ref(struct task_struct *p, unsigned tid, int d, const struct weft_site *s)
{
	uint32_t loc = loc_of(&p->weft_usage);
	int old = p->weft_usage;

	if (old + d < 0) {
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, p, s,
			    "%s: %s's task has no reference to drop (no get_task_struct())",
			    s->what, p->comm);
		return;
	}
	p->weft_usage = old + d;
	weft_trace(WEFT_EV_RMW, loc, (uint64_t)(int64_t)old, (uint64_t)(int64_t)p->weft_usage, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(p->weft_usage), 0, s);
	if (p->weft_usage == 0 && p->weft_exited && p->weft_kthread)
		task_free(p, tid, s);
}

/* ------------------------------------------------------------ wake-ups */

int weft_wake_up_state(struct task_struct *p, unsigned state, const struct weft_site *s)
{
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "%s from setup or an audit: no thread runs there", s->what);
		return 0;
	}
	/* the site's WAKE event is a full barrier at this point under a weak
	 * memory model (memory.c): try_to_wake_up()'s smp_mb__after_spinlock() */
	unsigned tid = task_step(p, &p->weft_state, 1, s);
	uint8_t old = weft_wl_entry(tid)->task_state;
	bool woke = weft_task_wake(tid, state, s);
	weft_trace(WEFT_EV_WAKE, weft_task_state_loc(tid), old, woke, s);
	return woke;
}

bool weft_task_is_running(struct task_struct *p, const struct weft_site *s)
{
	if (M.cur < 0)
		return true;
	unsigned tid = task_step(p, &p->weft_state, 1, s);
	bool running = weft_wl_entry(tid)->task_state == TASK_RUNNING;
	uint32_t loc = weft_task_state_loc(tid);
	weft_trace(WEFT_EV_READ, loc, 0, running, s);
	weft_sched_step(WEFT_DEP_READ, loc, 1, 0, s);
	return running;
}

/* -------------------------------------------------------------- kthreads */

static struct weft_site first_sleep_site = { __FILE__, "kthread",
	"kthread(): schedule() until the first wake-up", __LINE__, WEFT_EV_WAIT, 0, WEFT_SITE_SC };
static struct weft_site first_stop_site = { __FILE__, "kthread",
	"kthread(): test_bit(KTHREAD_SHOULD_STOP)", __LINE__, WEFT_EV_READ, 0, WEFT_SITE_SC };
static struct weft_site exit_site = { __FILE__, "kthread", "kthread_exit()", __LINE__,
				      WEFT_EV_WRITE, 0, WEFT_SITE_SC };
static struct weft_site stop_wake_site = { __FILE__, "kthread_stop",
	"kthread_stop(): wake_up_process()", __LINE__, WEFT_EV_WAKE, 0, WEFT_SITE_SC };
static struct weft_site stop_wait_site = { __FILE__, "kthread_stop",
	"kthread_stop(): wait_for_completion(&kthread->exited)", __LINE__, WEFT_EV_JOIN, 0,
	WEFT_SITE_SC };
static struct weft_site stop_put_site = { __FILE__, "kthread_stop",
	"kthread_stop(): put_task_struct()", __LINE__, WEFT_EV_RMW, 0, WEFT_SITE_SC };

/* test_bit(KTHREAD_SHOULD_STOP): a READ step of the flag */
static bool stop_test(struct task_struct *p, const struct weft_site *s)
{
	sched_point_at(s, &p->weft_should_stop, 1, NULL);
	uint32_t loc = loc_of(&p->weft_should_stop);
	bool stop = p->weft_should_stop;
	weft_trace(WEFT_EV_READ, loc, 0, stop, s);
	weft_sched_step(WEFT_DEP_READ, loc, 1, 0, s);
	return stop;
}

/* kthread(): asleep until the first wake-up; the thread function unless a
 * stop came first; the exit, which drops the thread's own reference. */
static void kthread_main(void *world, void *arg)
{
	unsigned tid = (unsigned)M.cur;
	struct task_struct *p = &M.core->task[tid];

	(void)world;
	(void)arg;
	weft_schedule(&first_sleep_site);
	bool ran = !stop_test(p, &first_stop_site);
	int result = ran ? p->weft_threadfn(p->weft_data) : 0;
	sched_point_at(&exit_site, &p->weft_exited, 1, NULL);
	uint32_t loc = loc_of(&p->weft_exited);
	/* the result is stored in the exit's step, which records it: in the
	 * step of threadfn's last operation it was a change with no record
	 * (kthread_stop() reads it once it saw weft_exited) */
	if (ran)
		p->weft_result = result;
	p->weft_exited = 1;
	/* complete(&kthread->exited): its stoppers run again (their joins
	 * end with this thread, at its end, in this scheduling step) */
	for (unsigned i = 0; i < M.nr_threads; i++)
		if (stopping[i].epoch == M.epoch && stopping[i].of == tid + 1) {
			stopping[i].epoch = 0;
			weft_wl_wake(i, &p->weft_exited);
		}
	weft_trace(WEFT_EV_WRITE, loc, 0, 1, &exit_site);
	weft_wl_step(WEFT_DEP_WRITE, loc, 1, &exit_site);
	if (ran)
		weft_sched_step(WEFT_DEP_WRITE, loc_of(&p->weft_result), sizeof(p->weft_result), 0,
				&exit_site);
	if (p->weft_usage == 0)
		task_free(p, tid, &exit_site);
}

struct task_struct *weft_kthread_create(int (*threadfn)(void *data), void *data, unsigned cpu,
					bool run, const struct weft_site *s, const char *namefmt,
					...)
{
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "%s from setup or an audit: create kthreads from a model thread, or "
			    "declare the thread in the scenario", s->what);
		return ERR_PTR(-EINTR);
	}
	if (cpu != WEFT_CPU_ANY && weft_ctx_cpu_bad(cpu, s->what, s))
		return ERR_PTR(-EINVAL);
	sched_point(s);
	weft_might_sleep(s);   /* it waits for kthreadd */
	int n = weft_sched_spawn(kthread_main, NULL, cpu, NULL, s);
	if (n < 0)
		return ERR_PTR(-ENOMEM);
	struct task_struct *p = task_named((unsigned)n);
	va_list ap;
	va_start(ap, namefmt);
	weft_kthread_init(p, threadfn, data, namefmt, ap);
	va_end(ap);
	/* the new task filled in: before the pointer reaches anyone, but a
	 * change of the core area this step makes */
	weft_sched_step(WEFT_DEP_WRITE, loc_of(p), sizeof(*p), 0, s);
	/* kthread() sleeps TASK_UNINTERRUPTIBLE until its first wake-up
	 * (kthread_run()'s, made here in the same step) */
	if (!run)
		weft_wl_entry((unsigned)n)->task_state = TASK_UNINTERRUPTIBLE;
	return p;
}

bool weft_kthread_should_stop(const struct weft_site *s)
{
	if (M.cur < 0)
		return false;
	struct task_struct *p = task_named((unsigned)M.cur);
	if (!p->weft_kthread) {
		sched_point(s);
		weft_warn2(WEFT_KIND_WARN_ON, NULL, s, NULL,
			   "%s in T%d, which kthread_create() did not make (to_kthread())", s->what,
			   M.cur);
		return false;
	}
	return stop_test(p, s);
}

int weft_kthread_stop(struct task_struct *k, bool put, const struct weft_site *s)
{
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "%s from setup or an audit: no thread runs there", s->what);
		return -EINTR;
	}
	/* get_task_struct(k); set_bit(KTHREAD_SHOULD_STOP) */
	unsigned tid = task_step(k, &k->weft_should_stop, 1, s);
	if (!k->weft_kthread) {
		weft_warn2(WEFT_KIND_WARN_ON, k, s, NULL,
			   "%s of %s, which kthread_create() did not make", s->what, k->comm);
		return -EINVAL;
	}
	if ((int)tid == M.cur)
		weft_report(WEFT_KIND_DEADLOCK, k, s, "%s of itself: it waits for its own exit",
			    s->what);
	weft_might_sleep(s);
	task_ref(k, tid, +1, s);
	uint32_t loc = loc_of(&k->weft_should_stop);
	uint8_t old = k->weft_should_stop;
	k->weft_should_stop = 1;
	weft_trace(WEFT_EV_WRITE, loc, old, 1, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, 1, 0, s);
	weft_wake_up_state(k, TASK_NORMAL, &stop_wake_site);
	/* wait_for_completion(&kthread->exited) sleeps unless it exited (its
	 * exit and its end are one scheduling step: the join then goes on) */
	weft_sched_step(WEFT_DEP_READ, loc_of(&k->weft_exited), 1, 0, &stop_wake_site);
	if (!k->weft_exited) {
		stopping[M.cur] = (struct stopping){ M.epoch, (uint8_t)(tid + 1) };
		weft_wl_task_sleeps(&stop_wake_site);
	}
	/* a wake_up_process() of the stopper before the exit finds it in the
	 * join: it goes back to sleep TASK_UNINTERRUPTIBLE, as
	 * wait_for_completion()'s loop sets it again */
	weft_thread_join_asleep(tid, &stop_wait_site, weft_wl_task_sleeps);
	int ret = k->weft_result;
	sched_point_at(&stop_put_site, &k->weft_usage, sizeof(k->weft_usage), NULL);
	task_ref(k, tid, put ? -2 : -1, &stop_put_site);
	return ret;
}

/* get_task_struct() (d = 1) and put_task_struct() (d = -1): a step */
static void task_ref_step(struct task_struct *p, int d, const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	task_ref(p, task_step(p, &p->weft_usage, sizeof(p->weft_usage), s), d, s);
}

void weft_get_task_struct(struct task_struct *p, const struct weft_site *s)
{
	task_ref_step(p, +1, s);
}

void weft_put_task_struct(struct task_struct *p, const struct weft_site *s)
{
	task_ref_step(p, -1, s);
}

/* ------------------------------------------------------------- reports */

static bool kthread_describe(uint32_t off, char *buf, size_t n)
{
	uint32_t base = M.core_off + (uint32_t)offsetof(struct weft_core_state, task);

	if (off < base || off >= base + sizeof(M.core->task))
		return false;
	unsigned tid = (unsigned)((off - base) / sizeof(struct task_struct));
	size_t f = (off - base) % sizeof(struct task_struct);
	const char *what = "task_struct";
	if (f == offsetof(struct task_struct, weft_state))
		what = "task state";
	else if (f == offsetof(struct task_struct, weft_should_stop))
		what = "task's kthread stop flag";
	else if (f == offsetof(struct task_struct, weft_exited))
		what = "task's exit";
	else if (f >= offsetof(struct task_struct, weft_usage) &&
		 f < offsetof(struct task_struct, weft_usage) + sizeof(int))
		what = "task's reference count";
	snprintf(buf, n, "T%u's %s", tid, what);
	return true;
}

/* The dependence audit: each thread's task state (kept in its waiter
 * entry, outside the world) behind its weft_state byte, which every step
 * that changes it must record (TASK_RUNNING, 0: the empty digest). */
static unsigned kthread_audit_state(struct weft_audit_state *out, unsigned cap)
{
	unsigned k = 0;

	for (unsigned t = 0; t < M.nr_threads && k < cap; t++)
		out[k++] = (struct weft_audit_state){ weft_task_state_loc(t),
						      weft_wl_entry(t)->task_state };
	return k;
}

const struct weft_family weft_family_kthread = {
	.name = "kthread",
	.describe = kthread_describe,
	.audit_state = kthread_audit_state,
};
