/*
 * workqueue.c - per-CPU workers and work items (<weft/workqueue.h>), after
 * kernel/workqueue.c's bound pools: queue_work_on() sets PENDING with one
 * test-and-set (a second queueing of a pending item does nothing), appends
 * the item to the CPU's worklist and wakes its worker; the worker clears
 * PENDING before it calls the function (process_one_work()), so the item
 * may be queued again while it runs; flush_work() sleeps until the item is
 * neither pending nor running.
 *
 * Workers are machine-made threads ("kworker/N"), started on the first
 * queueing to their CPU and bound to it; asleep on an empty worklist they
 * are idle (an execution ends with them asleep, never "stuck"). The
 * worklists are the machine's (reset per execution); the PENDING bit is the
 * world's, every access a primitive.
 *
 * Dependence records: a worklist is the location wq_pool[cpu] of the core
 * area (core_state.h). queue_work_on() writes it in its step (after the
 * PENDING bit's record), the worker writes it when it takes an item (in
 * the step of its store to w->running) and when it goes to sleep on an
 * empty list (BLOCKED), so the order of queueings is the order of the
 * work and a waiting worker depends on the queueing that wakes it.
 */
#include <string.h>

#include <weft/kernel.h>

#include "core_state.h"
#include "sched.h"

static const char *const kworker_names[WEFT_MAX_CPUS] = {
	"kworker/0", "kworker/1", "kworker/2",  "kworker/3",  "kworker/4",  "kworker/5",
	"kworker/6", "kworker/7", "kworker/8",  "kworker/9",  "kworker/10", "kworker/11",
	"kworker/12", "kworker/13", "kworker/14", "kworker/15",
};

static struct pool {
	int worker;                              /* thread, or -1 */
	unsigned head, n;
	struct work_struct *q[WEFT_WORKQUEUE_MAX];
} pools[WEFT_MAX_CPUS];
static uint32_t pools_used;   /* CPUs whose pool the execution touched */

static void weft_wq_reset(void)
{
	for (uint32_t m = pools_used; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctz(m);
		pools[c].worker = -1;
		pools[c].head = pools[c].n = 0;
	}
	pools_used = 0;
}

static struct pool *pool_of(unsigned cpu)
{
	if (!(pools_used >> cpu & 1)) {
		pools_used |= 1u << cpu;
		pools[cpu].worker = -1;
		pools[cpu].head = pools[cpu].n = 0;
	}
	return &pools[cpu];
}

static int pool_owner(const void *chan)
{
	return ((const struct pool *)chan)->worker;
}

/* a worker waiting for work: idle, never stuck */
static const struct weft_wait_class worker_idle = {
	.name = "worklist", .sleeps = true, .idle = true, .owner = pool_owner,
};

/* The CPU whose worker has w (queued or running), or -1. */
static int cpu_of_work(const struct work_struct *w)
{
	uint32_t running = weft_peek(w->running);

	if (running)
		return (int)running - 1;
	for (uint32_t m = pools_used; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctz(m);
		for (unsigned i = 0; i < pools[c].n; i++)
			if (pools[c].q[(pools[c].head + i) % WEFT_WORKQUEUE_MAX] == w)
				return (int)c;
	}
	return -1;
}

static int flush_owner(const void *chan)
{
	int c = cpu_of_work(chan);

	return c < 0 ? -1 : pools[c].worker;
}

static bool flush_busy(const void *chan, unsigned tid)
{
	const struct work_struct *w = chan;

	(void)tid;
	return (weft_peek(w->data) & 1ul << WEFT_WORK_PENDING) || weft_peek(w->running);
}

static const struct weft_wait_class flush_class = {
	.name = "flush_work", .sleeps = true, .owner = flush_owner, .busy = flush_busy,
};

void weft_init_work(struct work_struct *w, work_func_t fn)
{
	/* INIT_WORK: plain initialisation of an item nobody can see yet */
	w->data = 0;
	w->func = fn;
	w->running = 0;
	w->seq = 0;
}

static inline uint32_t pool_loc(unsigned cpu)
{
	return loc_of(&M.core->wq_pool[cpu]);
}

static struct weft_site idle_site = { __FILE__, "worker_thread", "worker_thread(): wait for work",
				      __LINE__, WEFT_EV_WAIT, 0, WEFT_SITE_SC };
static struct weft_site take_site = { __FILE__, "worker_thread", "worker_thread(): take work",
				      __LINE__, WEFT_EV_RMW, 0, WEFT_SITE_SC };

/* process_one_work() loop of the CPU's bound worker. */
static void worker_fn(void *world, void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	struct pool *p = &pools[cpu];

	(void)world;
	for (;;) {
		while (!p->n) {
			weft_sched_step(WEFT_DEP_BLOCKED, pool_loc(cpu), 1, 0, &idle_site);
			weft_sched_block(p, &worker_idle, &idle_site);
			M.step++;
		}
		struct work_struct *w = p->q[p->head];
		p->head = (p->head + 1) % WEFT_WORKQUEUE_MAX;
		p->n--;
		WRITE_ONCE(w->running, cpu + 1);
		/* the take, recorded in the step of that store (no scheduling
		 * point lies between them) */
		weft_sched_step(WEFT_DEP_WRITE, pool_loc(cpu), 1, 0, &take_site);
		clear_bit(WEFT_WORK_PENDING, &w->data);   /* before the call: may requeue */
		w->func(w);
		WRITE_ONCE(w->seq, READ_ONCE(w->seq) + 1);
		WRITE_ONCE(w->running, 0);
		weft_sched_wake_all(w);                   /* flush_work() waiters */
	}
}

bool weft_queue_work_on(unsigned cpu, struct work_struct *w, const struct weft_site *s)
{
	unsigned nr_cpus = M.sc->nr_cpus ? M.sc->nr_cpus : 1;
	uint32_t loc;
	unsigned long old;

	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "queue_work_on from setup or an audit");
		return false;
	}
	cpu %= nr_cpus;
	sched_point_at(s, &w->data, sizeof(w->data), NULL);
	loc = loc_of(&w->data);
	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	old = __atomic_fetch_or(&w->data, 1ul << WEFT_WORK_PENDING, __ATOMIC_RELAXED);
	weft_trace(WEFT_EV_RMW, loc, old, old | 1ul << WEFT_WORK_PENDING, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(w->data), 0, s);
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
	if (old & 1ul << WEFT_WORK_PENDING)
		return false;   /* already queued: it will run once */
	struct pool *p = pool_of(cpu);
	if (p->n == WEFT_WORKQUEUE_MAX) {
		weft_report(WEFT_KIND_ASSERT, w, s, "more than %d work items queued on CPU%u",
			    WEFT_WORKQUEUE_MAX, cpu);
		return false;
	}
	p->q[(p->head + p->n) % WEFT_WORKQUEUE_MAX] = w;
	p->n++;
	if (p->worker < 0)
		p->worker = weft_sched_spawn(worker_fn, (void *)(uintptr_t)cpu, cpu,
					     kworker_names[cpu], s);
	else
		weft_sched_wake_all(p);
	weft_sched_step(WEFT_DEP_WRITE, pool_loc(cpu), 1, 0, s);
	return true;
}

bool weft_flush_work(struct work_struct *w, const struct weft_site *s)
{
	bool waited = false;
	uint32_t loc = loc_of(&w->data);

	if (M.cur < 0)
		return false;
	weft_might_sleep(s);
	sched_point_at(s, w, sizeof(*w), &flush_class);
	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	while (flush_busy(w, (unsigned)M.cur)) {
		if (cpu_of_work(w) >= 0 && pools[cpu_of_work(w)].worker == M.cur) {
			weft_report(WEFT_KIND_DEADLOCK, w, s,
				    "flush_work() of a work item from its own worker");
			return false;
		}
		waited = true;
		weft_trace(WEFT_EV_BLOCK, loc, weft_peek(w->data), weft_peek(w->running), s);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(*w), 0, s);
		weft_sched_block(w, &flush_class, s);
		M.step++;
	}
	weft_trace(WEFT_EV_WAIT, loc, waited, weft_peek(w->seq), s);
	weft_sched_step(WEFT_DEP_READ, loc, sizeof(*w), 0, s);
	return waited;
}

const struct weft_family weft_family_workqueue = {
	.name = "workqueue",
	.begin = weft_wq_reset,
};
