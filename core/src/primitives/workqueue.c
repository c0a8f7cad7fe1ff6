/*
 * workqueue.c - per-CPU workers and work items (<weft/workqueue.h>), after
 * kernel/workqueue.c's bound pools: queue_work_on() sets PENDING with one
 * test-and-set (a second queueing of a pending item does nothing), appends
 * the item to the CPU's worklist - or, if the item is running on another
 * CPU, to that CPU's (__queue_work()'s non-reentrancy since v3.7: an item
 * never runs twice at once) - and wakes its worker; the worker clears
 * PENDING before it calls the function (process_one_work()), so the item
 * may be queued again while it runs; flush_work() sleeps until the item is
 * neither pending nor running; cancel_work() takes a queued item off its
 * worklist, cancel_work_sync() also waits for its run to end, holding
 * PENDING (with CANCELING) meanwhile so that no queueing succeeds
 * (__cancel_work_sync(), try_to_grab_pending()).
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

#include <stdio.h>

#include <weft/kernel.h>
#include <weft/timer.h>

#include "core_state.h"
#include "families.h"
#include "sched.h"

/* "kworker/<cpu>": a thread's label (reports keep the pointer) */
static char kworker_names[WEFT_EXEC_MAX_CPUS][20];

static struct pool {
	int worker;                              /* thread, or -1 */
	unsigned head, n;
	struct work_struct *q[WEFT_WORKQUEUE_MAX];
	/* the item the worker took off q and has not yet marked running and
	 * not pending (the kernel does both under the pool lock; here the
	 * stores are points of their own, and a cancel may run between) */
	struct work_struct *taking;
	/* a mod_delayed_work() of the item being taken set its PENDING bit,
	 * which the take (under the kernel's pool lock, before any grab) has
	 * already cleared: the worker sets it again after its own clear */
	bool keep_pending;
} pools[WEFT_EXEC_MAX_CPUS];
static uint64_t pools_used;   /* CPUs whose pool the execution touched */
_Static_assert(WEFT_EXEC_MAX_CPUS <= 64, "pools_used is a 64-bit CPU mask");

static void weft_wq_reset(void)
{
	for (uint64_t m = pools_used; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);
		pools[c].worker = -1;
		pools[c].head = pools[c].n = 0;
		pools[c].taking = NULL;
		pools[c].keep_pending = false;
	}
	pools_used = 0;
}

/* Weak memory: queueing releases the pool's lock and the worker takes it
 * before the function runs, so the function sees every store made before
 * queue_work() (include/linux/workqueue.h's guarantee); the worker
 * releases it after the run, and flush_work() and cancel_work_sync()
 * acquire every pool the execution used once they no longer wait (the
 * kernel's barrier work and pool lock; which pool ran w last is not kept:
 * at least the kernel's ordering). */
static struct weft_site pool_unlock_site = { __FILE__, "worker_thread",
	"raw_spin_unlock_irq(&pool->lock)", __LINE__, WEFT_EV_UNLOCK, 0, 0 };

static void pool_release(unsigned cpu)
{
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_unlock(&M.core->wq_pool[cpu], &pool_unlock_site);
}

static void pools_acquire(void)
{
	if (__builtin_expect(weft_mem_weak, 0))
		for (uint64_t m = pools_used; m; m &= m - 1)
			weft_mem_observe_lock(&M.core->wq_pool[__builtin_ctzll(m)], true);
}

static struct pool *pool_of(unsigned cpu)
{
	if (!(pools_used >> cpu & 1)) {
		pools_used |= 1ull << cpu;
		pools[cpu].worker = -1;
		pools[cpu].head = pools[cpu].n = 0;
		pools[cpu].taking = NULL;
		pools[cpu].keep_pending = false;
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
	for (uint64_t m = pools_used; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);
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
	static struct weft_site site = { __FILE__, "weft_init_work", "INIT_WORK()", __LINE__,
					 WEFT_EV_WRITE, 0, WEFT_SITE_SC };

	if (!in_world(w, sizeof(*w), &site))
		return;
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

static struct weft_site keep_site = { __FILE__, "worker_thread",
				      "worker_thread(): PENDING grabbed during the take", __LINE__,
				      WEFT_EV_RMW, 0, WEFT_SITE_SC };

static void set_data(struct work_struct *w, uint32_t loc, unsigned long nw,
		     const struct weft_site *s);

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
		p->taking = w;
		WRITE_ONCE(w->running, cpu + 1);
		/* the take, recorded in the step of that store (no scheduling
		 * point lies between them) */
		weft_sched_step(WEFT_DEP_WRITE, pool_loc(cpu), 1, 0, &take_site);
		/* before the call: may requeue; a cancel_work_sync() that came
		 * in between holds PENDING, as it would have grabbed it after
		 * the kernel's take */
		if (!(weft_peek(w->data) & 1ul << WEFT_WORK_CANCELING))
			clear_bit(WEFT_WORK_PENDING, &w->data);
		/* The kernel's take clears PENDING under the pool lock, which
		 * every grab takes: a grab that came at the clear's scheduling
		 * point came after it. So the PENDING a cancel_work_sync() then
		 * took (with CANCELING), or a mod_delayed_work() then set
		 * (keep_pending), outlives the clear. */
		unsigned long d = weft_peek(w->data);
		if (((d & 1ul << WEFT_WORK_CANCELING) || p->keep_pending) &&
		    !(d & 1ul << WEFT_WORK_PENDING))
			set_data(w, loc_of(&w->data), d | 1ul << WEFT_WORK_PENDING, &keep_site);
		p->keep_pending = false;
		p->taking = NULL;
		if (__builtin_expect(weft_mem_weak, 0))
			weft_mem_observe_lock(&M.core->wq_pool[cpu], true);
		w->func(w);
		WRITE_ONCE(w->seq, READ_ONCE(w->seq) + 1);
		WRITE_ONCE(w->running, 0);
		pool_release(cpu);
		weft_sched_wake_all(w);                   /* flush_work() waiters */
	}
}

static bool queue_owned(unsigned cpu, struct work_struct *w, const struct weft_site *s);
static unsigned long test_and_set_pending(struct work_struct *w, const struct weft_site *s);

bool weft_queue_work_on(unsigned cpu, struct work_struct *w, const struct weft_site *s)
{
	unsigned nr_cpus = M.sc->nr_cpus ? M.sc->nr_cpus : 1;

	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "queue_work_on from setup or an audit");
		return false;
	}
	cpu %= nr_cpus;
	if (test_and_set_pending(w, s) & 1ul << WEFT_WORK_PENDING)
		return false;   /* already queued: it will run once */
	return queue_owned(cpu, w, s);
}

/* The scheduling point and the test-and-set of PENDING that queueing
 * starts with; the old data word. */
static unsigned long test_and_set_pending(struct work_struct *w, const struct weft_site *s)
{
	sched_point_at(s, &w->data, sizeof(w->data), NULL);
	thread_loc(w, sizeof(*w), s);   /* the worker reads all of it */
	uint32_t loc = loc_of(&w->data);
	check_uaf(loc, s);
	unsigned long old = __atomic_fetch_or(&w->data, 1ul << WEFT_WORK_PENDING, __ATOMIC_RELAXED);
	weft_trace(WEFT_EV_RMW, loc, old, old | 1ul << WEFT_WORK_PENDING, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(w->data), 0, s);
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
	return old;
}

/* __queue_work(): w's PENDING bit is the caller's (it set it, or a
 * delayed work's timer phase held it); onto cpu's worklist, in the
 * caller's step. */
static bool queue_owned(unsigned cpu, struct work_struct *w, const struct weft_site *s)
{
	/* running elsewhere: queued behind itself there (a read of
	 * w->running in this step, recorded, not traced) */
	uint32_t running = weft_peek(w->running);
	weft_sched_step(WEFT_DEP_READ, loc_of(&w->running), sizeof(w->running), 0, s);
	if (running)
		cpu = running - 1;
	struct pool *p = pool_of(cpu);
	if (p->n == WEFT_WORKQUEUE_MAX) {
		weft_report(WEFT_KIND_ASSERT, w, s, "more than %d work items queued on CPU%u",
			    WEFT_WORKQUEUE_MAX, cpu);
		return false;
	}
	p->q[(p->head + p->n) % WEFT_WORKQUEUE_MAX] = w;
	p->n++;
	pool_release(cpu);
	if (p->worker < 0) {
		if (!kworker_names[cpu][0])
			snprintf(kworker_names[cpu], sizeof(kworker_names[cpu]), "kworker/%u", cpu);
		p->worker = weft_sched_spawn(worker_fn, (void *)(uintptr_t)cpu, cpu,
					     kworker_names[cpu], s);
	}
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
	thread_loc(w, sizeof(*w), s);
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
	pools_acquire();
	weft_trace(WEFT_EV_WAIT, loc, waited, weft_peek(w->seq), s);
	weft_sched_step(WEFT_DEP_READ, loc, sizeof(*w), 0, s);
	return waited;
}

/* cancel_work_sync() in progress: the canceller holds PENDING with
 * CANCELING (WORK_OFFQ_CANCELING), so a queueing fails meanwhile */
#define CANCELING (1ul << WEFT_WORK_CANCELING)
#define PENDING (1ul << WEFT_WORK_PENDING)

/* A worker has w: running it, or taking it (off its worklist, not yet
 * marked): in the kernel it is then no longer pending. */
static bool worker_has(const struct work_struct *w)
{
	if (weft_peek(w->running))
		return true;
	for (uint64_t m = pools_used; m; m &= m - 1)
		if (pools[__builtin_ctzll(m)].taking == w)
			return true;
	return false;
}

static bool running_busy(const void *chan, unsigned tid)
{
	(void)tid;
	return worker_has(chan);
}

static bool canceling_busy(const void *chan, unsigned tid)
{
	(void)tid;
	return (weft_peek(((const struct work_struct *)chan)->data) & CANCELING) != 0;
}

/* waits for the item's run to end (__flush_work() of __cancel_work_sync()) */
static const struct weft_wait_class cancel_run_class = {
	.name = "cancel_work_sync", .sleeps = true, .owner = flush_owner, .busy = running_busy,
};
/* waits for another cancel_work_sync() of the item (cancel_waitq); the
 * owner is not known: the machine's stuck check names none */
static int no_owner(const void *chan)
{
	(void)chan;
	return -1;
}
static const struct weft_wait_class cancel_other_class = {
	.name = "cancel_work_sync (another)", .sleeps = true, .owner = no_owner,
	.busy = canceling_busy,
};

/* try_to_grab_pending()'s effect on a queued item: off its worklist, in
 * the step that takes PENDING; false if it was on none */
static bool unqueue(struct work_struct *w, const struct weft_site *s)
{
	for (uint64_t m = pools_used; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);
		struct pool *p = &pools[c];
		for (unsigned i = 0; i < p->n; i++) {
			if (p->q[(p->head + i) % WEFT_WORKQUEUE_MAX] != w)
				continue;
			for (unsigned j = i; j + 1 < p->n; j++)
				p->q[(p->head + j) % WEFT_WORKQUEUE_MAX] =
					p->q[(p->head + j + 1) % WEFT_WORKQUEUE_MAX];
			p->n--;
			weft_sched_step(WEFT_DEP_WRITE, pool_loc(c), 1, 0, s);
			return true;
		}
	}
	return false;
}

/* w->data := nw in the running step, traced as a read-modify-write */
static void set_data(struct work_struct *w, uint32_t loc, unsigned long nw,
		     const struct weft_site *s)
{
	unsigned long old = w->data;

	__atomic_store_n(&w->data, nw, __ATOMIC_RELAXED);
	weft_trace(WEFT_EV_RMW, loc, old, nw, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(w->data), 0, s);
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
}

static bool cancel_common(struct work_struct *w, bool sync, struct timer_list *timer,
			  const struct weft_site *s);

bool weft_cancel_work(struct work_struct *w, bool sync, const struct weft_site *s)
{
	return cancel_common(w, sync, NULL, s);
}

/* try_to_grab_pending() and what follows it; timer: a delayed work's,
 * deleted in the same step as the grab (its PENDING bit is then the
 * canceller's) */
static bool cancel_common(struct work_struct *w, bool sync, struct timer_list *timer,
			  const struct weft_site *s)
{
	uint32_t loc = loc_of(&w->data);

	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "%s from setup or an audit",
			    timer ? s->what : "cancel_work");
		return false;
	}
	if (sync)
		weft_might_sleep(s);
	sched_point_at(s, &w->data, sizeof(w->data), sync ? &cancel_other_class : NULL);
	thread_loc(w, sizeof(*w), s);
	check_uaf(loc, s);
	while (weft_peek(w->data) & CANCELING) {
		if (!sync) {   /* cancel_work(): -ENOENT from try_to_grab_pending() */
			weft_trace(WEFT_EV_READ, loc, w->data, w->data, s);
			weft_sched_step(WEFT_DEP_READ, loc, sizeof(w->data), 0, s);
			return false;
		}
		weft_trace(WEFT_EV_BLOCK, loc, w->data, 0, s);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(w->data), 0, s);
		weft_sched_block(w, &cancel_other_class, s);
		M.step++;
	}
	if (timer)
		weft_timer_del_step(timer, s);
	/* pending: on a worklist or its timer deleted just now (an item being
	 * taken is a run's already) */
	bool taken = !weft_peek(w->running) && worker_has(w);
	bool was_pending = (weft_peek(w->data) & PENDING) && !taken;
	if (!sync) {
		if (!taken)
			set_data(w, loc, w->data & ~PENDING, s);
		if (was_pending)
			unqueue(w, s);
		return was_pending;
	}
	set_data(w, loc, w->data | PENDING | CANCELING, s);
	if (was_pending)
		unqueue(w, s);
	while (worker_has(w)) {
		int c = cpu_of_work(w);
		if (c >= 0 && pools[c].worker == M.cur) {
			weft_report(WEFT_KIND_DEADLOCK, w, s,
				    "cancel_work_sync() of a work item from its own worker");
			return false;
		}
		weft_trace(WEFT_EV_BLOCK, loc, weft_peek(w->data), weft_peek(w->running), s);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(*w), 0, s);
		weft_sched_block(w, &cancel_run_class, s);
		M.step++;
	}
	pools_acquire();
	weft_sched_step(WEFT_DEP_READ, loc_of(&w->running), sizeof(w->running), 0, s);
	set_data(w, loc, w->data & ~(PENDING | CANCELING), s);
	weft_sched_wake_all(w);   /* flushers and other cancellers */
	return was_pending;
}

/* ---------------------------------------------------------- delayed work */

/* The CPU a delayed work is queued on: its own, or (WORK_CPU_UNBOUND) the
 * one its timer fired on or the caller's. */
static unsigned dwork_cpu(const struct delayed_work *dw)
{
	unsigned nr_cpus = M.sc->nr_cpus ? M.sc->nr_cpus : 1;

	return (dw->cpu < 0 ? weft_raw_smp_processor_id() : (unsigned)dw->cpu) % nr_cpus;
}

static struct weft_site dwork_fire_site = { __FILE__, "delayed_work_timer_fn",
					    "delayed_work_timer_fn(): queue the work", __LINE__,
					    WEFT_EV_RMW, 0, WEFT_SITE_SC };

/* delayed_work_timer_fn(): the timer phase ends, the work is queued with
 * the PENDING bit that phase held (no scheduling point in between). */
void weft_delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dw = container_of(t, struct delayed_work, timer);

	queue_owned(dwork_cpu(dw), &dw->work, &dwork_fire_site);
}

void weft_init_delayed_work(struct delayed_work *dw, work_func_t fn)
{
	static struct weft_site site = { __FILE__, "weft_init_delayed_work", "INIT_DELAYED_WORK()",
					 __LINE__, WEFT_EV_WRITE, 0, WEFT_SITE_SC };

	if (!weft_in_world(dw, sizeof(*dw), &site))
		return;
	weft_init_work(&dw->work, fn);
	weft_timer_setup(&dw->timer, weft_delayed_work_timer_fn, TIMER_IRQSAFE);
	dw->wq = NULL;
	dw->cpu = -1;
}

/* __queue_delayed_work(): the work's PENDING bit is the caller's; in the
 * caller's step, as the kernel's runs with interrupts off and a
 * canceller that finds the work in between retries */
static void queue_delayed_owned(int cpu, struct delayed_work *dw, unsigned long delay,
				const struct weft_site *s)
{
	dw->cpu = cpu;
	if (!delay)
		queue_owned(dwork_cpu(dw), &dw->work, s);
	else
		weft_timer_arm_step(&dw->timer, weft_jiffies() + delay,
				    cpu < 0 ? WEFT_TIMER_ADD : WEFT_TIMER_ADD_ON,
				    cpu < 0 ? 0 : (unsigned)cpu, s);
}

/* queue_delayed_work_on(): PENDING taken by a test-and-set, then the work
 * queued at once (delay 0) or the timer armed (__queue_delayed_work()) */
bool weft_queue_delayed_work_on(int cpu, struct delayed_work *dw, unsigned long delay,
				const struct weft_site *s)
{
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "%s from setup or an audit", s->what);
		return false;
	}
	if (test_and_set_pending(&dw->work, s) & 1ul << WEFT_WORK_PENDING)
		return false;
	queue_delayed_owned(cpu, dw, delay, s);
	return true;
}

/* cancel_delayed_work(_sync)(): a pending timer is deleted (its PENDING
 * bit is then the canceller's, as try_to_grab_pending() takes it), then
 * the work is cancelled as cancel_work(_sync)() does; true if it was
 * pending either way. */
bool weft_cancel_delayed_work(struct delayed_work *dw, bool sync, const struct weft_site *s)
{
	return cancel_common(&dw->work, sync, &dw->timer, s);
}

/* mod_delayed_work_on(): try_to_grab_pending() - the timer deleted, or the
 * work taken off its worklist, or PENDING set if it was clear - then
 * queued again with the new delay, in one step; true if it was pending.
 * During a cancel_delayed_work_sync() it does nothing and says true, as
 * the kernel's -ENOENT does. */
bool weft_mod_delayed_work_on(int cpu, struct delayed_work *dw, unsigned long delay,
			      const struct weft_site *s)
{
	struct work_struct *w = &dw->work;
	uint32_t loc = loc_of(&w->data);

	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "%s from setup or an audit", s->what);
		return false;
	}
	sched_point_at(s, &w->data, sizeof(w->data), NULL);
	thread_loc(w, sizeof(*w), s);
	check_uaf(loc, s);
	if (weft_peek(w->data) & CANCELING) {
		weft_trace(WEFT_EV_READ, loc, w->data, w->data, s);
		weft_sched_step(WEFT_DEP_READ, loc, sizeof(w->data), 0, s);
		return true;
	}
	bool was = weft_timer_del_step(&dw->timer, s);
	if (!was)
		was = unqueue(w, s);   /* queued on a worklist: grabbed */
	if (!was) {
		/* idle, or being taken by a worker (whose take, under the
		 * kernel's pool lock, has cleared PENDING already: the worker
		 * sets it again after its clear) */
		for (uint64_t m = pools_used; m; m &= m - 1)
			if (pools[__builtin_ctzll(m)].taking == w)
				pools[__builtin_ctzll(m)].keep_pending = true;
		set_data(w, loc, w->data | PENDING, s);
	}
	queue_delayed_owned(cpu, dw, delay, s);
	return was;
}

/* flush_delayed_work(): a pending timer is deleted and its work queued at
 * once, then flushed */
bool weft_flush_delayed_work(struct delayed_work *dw, const struct weft_site *s)
{
	if (M.cur < 0)
		return false;
	if (weft_timer_del(&dw->timer, WEFT_TIMER_DEL_SYNC, s) > 0)
		queue_owned(dwork_cpu(dw), &dw->work, s);
	return weft_flush_work(&dw->work, s);
}

const struct weft_family weft_family_workqueue = {
	.name = "workqueue",
	.begin = weft_wq_reset,
};
