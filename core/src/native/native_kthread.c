/*
 * native_kthread.c - <weft/kthread.h> natively (weft stress): a kthread is
 * a model pthread (weft_thread_spawn()) that polls for its first wake-up;
 * afterwards wake_up_process() wakes it through native_sleep.c's sleepers.
 * Tasks are per execution: the scenario's and spawned threads' are indexed
 * by thread number, a kthread's comes from a pool (its thread number is
 * known only once it runs, published before it looks for the wake-up).
 * A freed task is reported as the machine reports it.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <weft/kthread.h>

#include "native_tasks.h"

#define LD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

static struct native_task {
	struct task_struct task;
	int tid;         /* -1 until the kthread runs */
	int go;          /* its first wake-up came */
} thread_tasks[WEFT_MAX_THREADS], pool[WEFT_MAX_THREADS];
static uint32_t tasks_epoch;
static unsigned pool_used;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct native_task *self;
static __thread uint32_t self_epoch;

static void tasks_fresh(void)
{
	if (tasks_epoch == weft_execution_id())
		return;
	pthread_mutex_lock(&pool_lock);
	if (tasks_epoch != weft_execution_id()) {
		memset(thread_tasks, 0, sizeof(thread_tasks));
		memset(pool, 0, sizeof(pool));
		pool_used = 0;
		ST(tasks_epoch, weft_execution_id());
	}
	pthread_mutex_unlock(&pool_lock);
}

static struct native_task *native_of(struct task_struct *p)
{
	return (struct native_task *)((char *)p - offsetof(struct native_task, task));
}

struct task_struct *weft_current(void)
{
	tasks_fresh();
	if (self && self_epoch == weft_execution_id())
		return &self->task;
	struct native_task *n = &thread_tasks[weft_native_tid % WEFT_MAX_THREADS];
	if (!n->task.pid) {
		n->tid = (int)(weft_native_tid % WEFT_MAX_THREADS);
		n->task.pid = n->tid + 1;
		snprintf(n->task.comm, sizeof(n->task.comm), "T%d", n->tid);
	}
	return &n->task;
}

static void task_live(struct task_struct *p, const struct weft_site *s)
{
	if (LD(p->weft_freed))
		weft_report(WEFT_KIND_USE_AFTER_FREE, p, s,
			    "%s: the task of %s was freed: its thread function returned and no "
			    "reference was left (get_task_struct() holds one)", s->what, p->comm);
}

static void task_ref(struct task_struct *p, int d, const struct weft_site *s)
{
	int now = __atomic_add_fetch(&p->weft_usage, d, __ATOMIC_SEQ_CST);

	if (now < 0)
		weft_report(WEFT_KIND_REFCOUNT_UNDERFLOW, p, s,
			    "%s: %s's task has no reference to drop", s->what, p->comm);
	if (now == 0 && LD(p->weft_exited) && p->weft_kthread)
		ST(p->weft_freed, 1);
}

int weft_wake_up_state(struct task_struct *p, unsigned state, const struct weft_site *s)
{
	weft_native_poll();
	task_live(p, s);
	struct native_task *n = native_of(p);
	if (p->weft_kthread)
		ST(n->go, 1);   /* before the thread number: see kthread_main() */
	int tid = LD(n->tid);
	return tid >= 0 && weft_native_task_wake((unsigned)tid, state);
}

bool weft_task_is_running(struct task_struct *p, const struct weft_site *s)
{
	int tid = LD(native_of(p)->tid);

	task_live(p, s);
	return tid < 0 ? false : weft_native_task_running((unsigned)tid);
}

static void kthread_main(void *world, void *arg)
{
	struct native_task *n = arg;
	struct task_struct *p = &n->task;

	(void)world;
	self = n;
	self_epoch = weft_execution_id();
	ST(n->tid, (int)(weft_native_tid % WEFT_MAX_THREADS));
	while (!LD(n->go)) {   /* kthread(): asleep until the first wake-up */
		weft_native_poll();
		sched_yield();
	}
	if (!LD(p->weft_should_stop))
		p->weft_result = p->weft_threadfn(p->weft_data);
	ST(p->weft_exited, 1);
	task_ref(p, 0, NULL);
}

struct task_struct *weft_kthread_create(int (*threadfn)(void *data), void *data, unsigned cpu,
					bool run, const struct weft_site *s, const char *namefmt,
					...)
{
	tasks_fresh();
	pthread_mutex_lock(&pool_lock);
	struct native_task *n = pool_used < WEFT_MAX_THREADS ? &pool[pool_used++] : NULL;
	pthread_mutex_unlock(&pool_lock);
	if (!n) {
		weft_report(WEFT_KIND_LIMIT, NULL, s, "%s: more than %d kthreads", s->what,
			    WEFT_MAX_THREADS);
		return ERR_PTR(-ENOMEM);
	}
	struct task_struct *p = &n->task;
	va_list ap;
	va_start(ap, namefmt);
	weft_kthread_init(p, threadfn, data, namefmt, ap);
	va_end(ap);
	n->tid = -1;
	n->go = run;
	int tid = weft_thread_spawn(kthread_main, n, cpu, s);
	if (tid < 0)
		return ERR_PTR(-ENOMEM);
	p->pid = tid + 1;
	return p;
}

bool weft_kthread_should_stop(const struct weft_site *s)
{
	struct task_struct *p = weft_current();

	if (!p->weft_kthread) {
		weft_report(WEFT_KIND_WARN_ON, NULL, s, "%s in a thread kthread_create() did not make",
			    s->what);
		return false;
	}
	return LD(p->weft_should_stop);
}

int weft_kthread_stop(struct task_struct *k, bool put, const struct weft_site *s)
{
	task_live(k, s);
	if (!k->weft_kthread) {
		weft_report(WEFT_KIND_WARN_ON, k, s, "%s of %s, which kthread_create() did not make",
			    s->what, k->comm);
		return -EINVAL;
	}
	task_ref(k, +1, s);
	ST(k->weft_should_stop, 1);
	weft_wake_up_state(k, TASK_NORMAL, s);
	weft_native_task_polls(true);
	while (!LD(k->weft_exited)) {
		weft_native_poll();
		sched_yield();
	}
	weft_native_task_polls(false);
	int ret = k->weft_result;
	task_ref(k, put ? -2 : -1, s);
	return ret;
}

void weft_get_task_struct(struct task_struct *p, const struct weft_site *s)
{
	task_live(p, s);
	task_ref(p, +1, s);
}

void weft_put_task_struct(struct task_struct *p, const struct weft_site *s)
{
	task_live(p, s);
	task_ref(p, -1, s);
}
