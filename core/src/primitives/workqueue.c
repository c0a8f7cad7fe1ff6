/*
 * workqueue.c - workqueues, their pools and workers, and work items
 * (<weft/workqueue.h>), after kernel/workqueue.c.
 *
 * Items: queue_work() sets PENDING with one test-and-set (a second
 * queueing of a pending item does nothing) and appends the item to its
 * pool's worklist - or, if the item is running, to the pool that runs it
 * (__queue_work()'s non-reentrancy since v3.7: an item never runs twice at
 * once) - and wakes a worker if the pool needs one; the worker clears
 * PENDING before it calls the function (process_one_work()), so the item
 * may be queued again while it runs; flush_work() sleeps until the item is
 * neither pending nor running; cancel_work() takes a queued item off its
 * worklist, cancel_work_sync() also waits for its run to end, holding
 * PENDING (with CANCELING) meanwhile so that no queueing succeeds
 * (__cancel_work_sync(), try_to_grab_pending()).
 *
 * Pools: one per CPU for bound workqueues and one unbound pool. A bound
 * pool is concurrency managed: it counts its running workers (nr_running:
 * those in their work loop, neither asleep in a sleeping wait nor on a
 * WQ_CPU_INTENSIVE item) and a worker starts on the worklist only when
 * none runs (need_more_worker()), or goes on with it while it is the only
 * one (keep_working()); a worker that goes to sleep (the machine's
 * `sleeping` hook, wq_worker_sleeping()) wakes an idle one if work waits,
 * and a woken one counts again from its wake-up (wq_worker_running(): the
 * kernel counts it once it runs). The unbound pool is not managed: every
 * queued item gets a worker. Workers are machine-made threads
 * ("kworker/N", "kworker/N:k", "kworker/u:k") made when a pool needs one
 * and none is idle (the kernel's manager keeps one idle), at most
 * WEFT_WQ_WORKERS per pool (a limit-reached report beyond); an idle worker
 * sleeps on its own channel (an execution may end with it asleep, never
 * "stuck") and the last to go idle is woken first (idle_list).
 *
 * Workqueues are known by pointer (NULL: system_wq) in a table of the
 * execution (wq_slot): flags and max_active from the struct, the items
 * in flight per pool (beyond max_active they wait, in order: the
 * inactive list), the flush color (flush_workqueue() waits for the items
 * queued before it), draining and destruction.
 *
 * The worklists are the machine's (reset per execution); the PENDING bit
 * is the world's, every access a primitive.
 *
 * Dependence records: a worklist is the location wq_pool[cpu] (or
 * wq_unbound_pool) of the core area (core_state.h). queue_work() writes
 * it in its step (after the PENDING bit's record), a worker writes it
 * when it takes an item (in the step of its store to w->running), when it
 * goes to sleep on an empty list (BLOCKED), when it sleeps inside an item
 * or is woken from that sleep (nr_running changes), so the order of
 * queueings is the order of the work and a waiting worker depends on the
 * queueing that wakes it. flush_workqueue() reads every pool it may wait
 * on, and waits on the items themselves.
 *
 * Longer than ~800 lines: one family (items, pools, workqueues, delayed
 * work) whose parts share the worklists and the workers' state.
 */
#include <string.h>

#include <stdio.h>

#include <weft/kernel.h>
#include <weft/timer.h>

#include "core_state.h"
#include "families.h"
#include "sched.h"
#include "waiters.h"

struct workqueue_struct weft_system_highpri_wq = { "events_highpri" },
	weft_system_long_wq = { "events_long" }, weft_system_unbound_wq = { "events_unbound" },
	weft_system_freezable_wq = { "events_freezable" },
	weft_system_power_efficient_wq = { "events_power_efficient" },
	weft_system_freezable_power_efficient_wq = { "events_freezable_pwr_efficient" };

/* The flags and max_active of workqueue wq (a model's own: a bound one). */
static void wq_attrs(const struct workqueue_struct *wq, unsigned *flags, int *max_active)
{
	*flags = 0;
	*max_active = 0;
	if (wq == &weft_system_unbound_wq)
		*flags = WEFT_WQ_UNBOUND;
	else if (wq == &weft_system_highpri_wq)
		*flags = WEFT_WQ_HIGHPRI;
	else if (wq == &weft_system_freezable_wq)
		*flags = WEFT_WQ_FREEZABLE;
	else if (wq && M.core_used) {
		const struct weft_wq_made *m = (const struct weft_wq_made *)wq;
		if (m >= M.core->wq_alloc && m < M.core->wq_alloc + WEFT_WQ_ALLOC_MAX) {
			*flags = m->flags;
			*max_active = m->max_active;
		}
	}
}

#define UNBOUND_POOL WEFT_EXEC_MAX_CPUS
#define NR_POOLS (WEFT_EXEC_MAX_CPUS + 1)
#define WQ_SLOTS 16   /* workqueues one execution queues on */

/* an item on a worklist, run by a worker, or inactive: its workqueue
 * (slot) and the flush color it was queued with */
struct qent {
	struct work_struct *w;
	uint8_t slot;
	uint32_t color;
	/* the queueing (reports only): its site, thread, CPU and step */
	const struct weft_site *site;
	int8_t tid, cpu;
	uint32_t step;
};

struct pool;

struct worker {
	struct pool *pool;
	int tid;
	char name[24];       /* its label (reports keep the pointer) */
	bool working;        /* in its work loop (WORKER_PREP clear) */
	bool counted;        /* in the pool's nr_running */
	bool asleep;         /* working, and asleep in a sleeping wait */
	bool intensive;      /* on a WQ_CPU_INTENSIVE item */
	struct qent cur;     /* the item it runs (cur.w NULL: none) */
	/* its own item queued again while it ran, and taken by another
	 * worker of the pool (assign_work()'s collision: the worker running
	 * an item runs it again, from its scheduled list) */
	struct qent again;
	/* the item it took off the worklist and has not yet marked running
	 * and not pending (the kernel does both under the pool lock; here the
	 * stores are points of their own, and a cancel may run between) */
	struct work_struct *taking;
	/* a mod_delayed_work() of the item being taken set its PENDING bit,
	 * which the take (under the kernel's pool lock, before any grab) has
	 * already cleared: the worker sets it again after its own clear */
	bool keep_pending;
};

static struct pool {
	unsigned idx;                            /* its CPU, or UNBOUND_POOL */
	unsigned nr_workers;
	struct worker wk[WEFT_WQ_WORKERS];
	uint8_t idle[WEFT_WQ_WORKERS];           /* a stack: the last to go idle on top */
	unsigned nr_idle;
	unsigned nr_running;
	unsigned head, n;
	struct qent q[WEFT_WORKQUEUE_MAX];
} pools[NR_POOLS];
static uint8_t used_pools[NR_POOLS];   /* the pools the execution touched, in order */
static unsigned nr_used_pools;
static struct worker *worker_of[WEFT_EXEC_MAX_THREADS];

static struct wq_slot {
	const struct workqueue_struct *wq;   /* NULL: system_wq */
	unsigned flags;
	unsigned max_active;                 /* 0: no bound */
	uint32_t color;                      /* flushes started */
	unsigned nr_flushers;                /* asleep in a flush or a drain */
	unsigned draining;
	const struct weft_site *destroyed;   /* where destroy_workqueue() ran */
	uint8_t nr_active[NR_POOLS];         /* counted only under max_active */
	unsigned nr_inactive;
	struct qent inactive[WEFT_WORKQUEUE_MAX];
	uint8_t inactive_pool[WEFT_WORKQUEUE_MAX];
} slots[WQ_SLOTS];
static unsigned nr_slots;

static void weft_wq_reset(void)
{
	for (unsigned i = 0; i < nr_used_pools; i++) {
		struct pool *p = &pools[used_pools[i]];
		for (unsigned k = 0; k < p->nr_workers; k++)
			worker_of[p->wk[k].tid] = NULL;
		p->nr_workers = p->nr_idle = p->nr_running = 0;
		p->head = p->n = 0;
	}
	nr_used_pools = 0;
	nr_slots = 0;
}

static inline bool bound(const struct pool *p)
{
	return p->idx != UNBOUND_POOL;
}

static inline uint8_t *pool_lock_byte(const struct pool *p)
{
	return bound(p) ? &M.core->wq_pool[p->idx] : &M.core->wq_unbound_pool;
}

static inline uint32_t pool_loc(const struct pool *p)
{
	return loc_of(pool_lock_byte(p));
}

static inline struct qent q_at(const struct pool *p, unsigned i)
{
	return p->q[(p->head + i) % WEFT_WORKQUEUE_MAX];
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

static void pool_release(const struct pool *p)
{
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_unlock(pool_lock_byte(p), &pool_unlock_site);
}

static void pools_acquire(void)
{
	if (__builtin_expect(weft_mem_weak, 0))
		for (unsigned i = 0; i < nr_used_pools; i++)
			weft_mem_observe_lock(pool_lock_byte(&pools[used_pools[i]]), true);
}

/* every pool the execution used, read in the current step (a flush of a
 * workqueue: whether an item was queued before or after it) */
static void pools_read(const struct weft_site *s)
{
	for (unsigned i = 0; i < nr_used_pools; i++)
		weft_sched_step(WEFT_DEP_READ, pool_loc(&pools[used_pools[i]]), 1, 0, s);
}

static struct pool *pool_get(unsigned idx)
{
	struct pool *p = &pools[idx];

	for (unsigned i = 0; i < nr_used_pools; i++)
		if (used_pools[i] == idx)
			return p;
	used_pools[nr_used_pools++] = (uint8_t)idx;
	p->idx = idx;
	p->nr_workers = p->nr_idle = p->nr_running = 0;
	p->head = p->n = 0;
	return p;
}

/* The slot of workqueue wq, made on its first use; NULL past WQ_SLOTS
 * (reported). */
static struct wq_slot *slot_of(const struct workqueue_struct *wq, const struct weft_site *s)
{
	for (unsigned i = 0; i < nr_slots; i++)
		if (slots[i].wq == wq)
			return &slots[i];
	if (nr_slots == WQ_SLOTS) {
		weft_report(WEFT_KIND_LIMIT, NULL, s,
			    "more than %d workqueues used in one execution", WQ_SLOTS);
		return NULL;
	}
	struct wq_slot *sl = &slots[nr_slots++];
	memset(sl, 0, sizeof(*sl));
	sl->wq = wq;
	int max_active;
	wq_attrs(wq, &sl->flags, &max_active);
	if (max_active > 0 && max_active < WEFT_WORKQUEUE_MAX)
		sl->max_active = (unsigned)max_active;
	if (sl->flags & WEFT_WQ_ORDERED)
		sl->max_active = 1;
	return sl;
}

/* The slot of wq for a queueing call (what names it in the report): none
 * from setup or an audit, where no thread runs that could own the work. */
static struct wq_slot *queue_slot(const struct workqueue_struct *wq, const char *what,
				  const struct weft_site *s)
{
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "%s from setup or an audit", what);
		return NULL;
	}
	return slot_of(wq, s);
}

/* what a flush of sl sleeps on: the workqueue itself (reports name it) */
static const char system_wq_chan = 0;
static const void *flush_chan(const struct wq_slot *sl)
{
	return sl->wq ? (const void *)sl->wq : &system_wq_chan;
}

static const char *wq_name(const struct wq_slot *sl)
{
	return sl->wq ? (sl->wq->name ? sl->wq->name : "a workqueue") : "events";
}

/* The worker that has w (running it, or taking it), or NULL. */
static struct worker *worker_having(const struct work_struct *w)
{
	for (unsigned i = 0; i < nr_used_pools; i++) {
		struct pool *p = &pools[used_pools[i]];
		for (unsigned k = 0; k < p->nr_workers; k++)
			if (p->wk[k].cur.w == w || p->wk[k].taking == w)
				return &p->wk[k];
	}
	return NULL;
}

/* The pool whose worklist has w (or a worker's scheduled `again`), or NULL. */
static struct pool *pool_queueing(const struct work_struct *w)
{
	for (unsigned i = 0; i < nr_used_pools; i++) {
		struct pool *p = &pools[used_pools[i]];
		for (unsigned j = 0; j < p->n; j++)
			if (q_at(p, j).w == w)
				return p;
		for (unsigned k = 0; k < p->nr_workers; k++)
			if (p->wk[k].again.w == w)
				return p;
	}
	return NULL;
}

static int worker_owner(const void *chan)
{
	return ((const struct worker *)chan)->tid;
}

/* a worker waiting for work: idle, never stuck; TASK_IDLE, as
 * worker_thread() sleeps (a model may name a worker's task through current
 * in a work item and spin on task_is_running() of it): the idle step and
 * kick_pool()'s wake-up write its state, with their records */
static const struct weft_wait_class worker_idle = {
	.name = "worklist", .sleeps = true, .idle = true, .owner = worker_owner,
};

/* A worker that may take an item of p's worklist: the last to go idle,
 * else the first (busy), else none (-1). */
static int pool_taker(const struct pool *p)
{
	if (p->nr_idle)
		return p->wk[p->idle[p->nr_idle - 1]].tid;
	return p->nr_workers ? p->wk[0].tid : -1;
}

/* An item waiting past its workqueue's max_active (an ordered workqueue's
 * second item): what must end first is an active item of that workqueue on
 * the same pool, so the thread to act is the worker running one (its end
 * activates the next: pwq_dec_nr_in_flight()), else one that may take
 * one. A work item that flushes an item queued behind it on an ordered
 * workqueue is then a wait cycle (a deadlock), not a sleeper nobody can
 * wake. -2: w is not inactive. */
static int inactive_owner(const struct work_struct *w)
{
	for (unsigned si = 0; si < nr_slots; si++)
		for (unsigned i = 0; i < slots[si].nr_inactive; i++) {
			if (slots[si].inactive[i].w != w)
				continue;
			const struct pool *p = &pools[slots[si].inactive_pool[i]];
			for (unsigned k = 0; k < p->nr_workers; k++)
				if (p->wk[k].cur.w && p->wk[k].cur.slot == si)
					return p->wk[k].tid;
			return pool_taker(p);
		}
	return -2;
}

/* the thread that must act before w is done: its worker, or one that
 * may take it */
static int flush_owner(const void *chan)
{
	struct worker *wk = worker_having(chan);

	if (wk)
		return wk->tid;
	struct pool *p = pool_queueing(chan);
	if (p)
		return pool_taker(p);
	int o = inactive_owner(chan);
	return o == -2 ? -1 : o;
}

/* The instances a flush_work() waits for: start_flush_work() queues its
 * barrier right after the instance pending when the flush starts (in the
 * worklist), else after the one running (in the worker's scheduled list),
 * so an instance queued after the flush started (a work that requeues
 * itself) runs after the flush returns (kernel/workqueue.c: "guaranteed
 * to be idle on return if it hasn't been requeued since flush started").
 * until: w->seq once those instances completed; w: the item a thread is
 * flushing (NULL: none), valid in execution epoch. A pending instance that
 * a cancel removes ends the wait when nothing is left pending or running
 * (its barrier would run at once); one queued again after that cancel is
 * waited for, which the kernel's barrier would not. */
static struct {
	const struct work_struct *w;
	uint32_t until, epoch;
} flushing[WEFT_EXEC_MAX_THREADS];

static bool flush_busy(const void *chan, unsigned tid)
{
	const struct work_struct *w = chan;
	bool busy = (weft_peek(w->data) & 1ul << WEFT_WORK_PENDING) || weft_peek(w->running);

	if (busy && flushing[tid].w == w && flushing[tid].epoch == M.epoch)
		busy = (int32_t)(weft_peek(w->seq) - flushing[tid].until) < 0;
	return busy;
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

static struct weft_site idle_site = { __FILE__, "worker_thread", "worker_thread(): wait for work",
				      __LINE__, WEFT_EV_WAIT, 0, WEFT_SITE_SC };
static struct weft_site take_site = { __FILE__, "worker_thread", "worker_thread(): take work",
				      __LINE__, WEFT_EV_RMW, 0, WEFT_SITE_SC };
static struct weft_site keep_site = { __FILE__, "worker_thread",
				      "worker_thread(): PENDING grabbed during the take", __LINE__,
				      WEFT_EV_RMW, 0, WEFT_SITE_SC };
static struct weft_site handoff_site = { __FILE__, "worker_thread",
					 "assign_work(): to the worker running it", __LINE__,
					 WEFT_EV_RMW, 0, WEFT_SITE_SC };
static struct weft_site intensive_site = { __FILE__, "process_one_work",
					   "process_one_work(): WQ_CPU_INTENSIVE", __LINE__,
					   WEFT_EV_RMW, 0, WEFT_SITE_SC };

static void worker_fn(void *world, void *arg);

/* A new worker of p, idle (create_worker()); NULL past WEFT_WQ_WORKERS
 * (reported). */
static struct worker *worker_create(struct pool *p, const struct weft_site *s)
{
	if (p->nr_workers == WEFT_WQ_WORKERS) {
		weft_report(WEFT_KIND_LIMIT, NULL, s,
			    "a work item needs a worker of %s%u and its %d workers are busy "
			    "(WEFT_WQ_WORKERS)", bound(p) ? "CPU" : "the unbound pool", 
			    bound(p) ? p->idx : 0, WEFT_WQ_WORKERS);
		return NULL;
	}
	unsigned k = p->nr_workers;
	struct worker *wk = &p->wk[k];
	memset(wk, 0, sizeof(*wk));
	wk->pool = p;
	if (!bound(p))
		snprintf(wk->name, sizeof(wk->name), "kworker/u:%u", k);
	else if (k)
		snprintf(wk->name, sizeof(wk->name), "kworker/%u:%u", p->idx, k);
	else
		snprintf(wk->name, sizeof(wk->name), "kworker/%u", p->idx);
	wk->tid = weft_sched_spawn(worker_fn, wk, bound(p) ? p->idx : WEFT_CPU_ANY, wk->name, s);
	if (wk->tid < 0)
		return NULL;
	p->nr_workers++;
	worker_of[wk->tid] = wk;
	p->idle[p->nr_idle++] = (uint8_t)k;
	return wk;
}

/* need_more_worker(): work waits and no worker runs (unbound: work waits) */
static bool need_more_worker(const struct pool *p)
{
	return p->n && (!bound(p) || !p->nr_running);
}

/* kick_pool(): wake the idle worker that went idle last, or make one */
static void kick(struct pool *p, const struct weft_site *s)
{
	if (!need_more_worker(p))
		return;
	if (p->nr_idle)   /* wake_up_process(): TASK_RUNNING, recorded */
		weft_wl_wake_all(&p->wk[p->idle[p->nr_idle - 1]], s);
	else
		worker_create(p, s);
}

static void idle_remove(struct pool *p, const struct worker *wk)
{
	unsigned k = (unsigned)(wk - p->wk);

	for (unsigned i = 0; i < p->nr_idle; i++)
		if (p->idle[i] == k) {
			memmove(&p->idle[i], &p->idle[i + 1], p->nr_idle - i - 1);
			p->nr_idle--;
			return;
		}
}

static void count(struct worker *wk, bool on)
{
	if (wk->counted == on || !bound(wk->pool))
		return;
	wk->counted = on;
	if (on)
		wk->pool->nr_running++;
	else
		wk->pool->nr_running--;
}

/* the machine's `sleeping` hook: wq_worker_sleeping() and
 * wq_worker_running() of a worker in its work loop */
static void wq_sleeping(unsigned tid, bool asleep, const struct weft_site *s)
{
	struct worker *wk = worker_of[tid];

	if (!wk || !wk->working || wk->asleep == asleep)
		return;
	wk->asleep = asleep;
	count(wk, !asleep && !wk->intensive);
	if (M.cur >= 0)
		weft_sched_step(WEFT_DEP_WRITE, pool_loc(wk->pool), 1, 0, s);
	if (asleep)
		kick(wk->pool, s);
}

static void set_data(struct work_struct *w, uint32_t loc, unsigned long nw,
		     const struct weft_site *s);

static void queue_on_pool(struct pool *p, struct qent e, const struct weft_site *s);

/* sl's inactive item i leaves the inactive list (the rest keep their order) */
static void inactive_remove(struct wq_slot *sl, unsigned i)
{
	sl->nr_inactive--;
	memmove(&sl->inactive[i], &sl->inactive[i + 1],
		(sl->nr_inactive - i) * sizeof(sl->inactive[0]));
	memmove(&sl->inactive_pool[i], &sl->inactive_pool[i + 1], sl->nr_inactive - i);
}

/* An item of slot sl left pool p (ran, or was grabbed): the first
 * inactive item of sl for p becomes active (pwq_dec_nr_active()), and
 * flushers of sl look again. */
static void item_gone(struct wq_slot *sl, struct pool *p, const struct weft_site *s)
{
	if (sl->max_active) {
		sl->nr_active[p->idx]--;
		for (unsigned i = 0; i < sl->nr_inactive; i++) {
			if (sl->inactive_pool[i] != p->idx)
				continue;
			struct qent e = sl->inactive[i];
			inactive_remove(sl, i);
			sl->nr_active[p->idx]++;
			queue_on_pool(p, e, s);
			break;
		}
	}
	if (sl->nr_flushers)
		weft_wl_wake_all(flush_chan(sl), s);
}

/* An access of the worker's to its item after the function returned:
 * WRITE_ONCE()/READ_ONCE()'s site (the same id), skipping freed memory
 * (weft_access_unless_freed()). */
#define AFTER_RUN(x, aop, v, ev, what)                                                  \
	((__typeof__(x))weft_access_unless_freed(&(x), sizeof(x), (aop), (uint64_t)(v), 0, \
						 WEFT_SITE((ev), (what))))

/* worker_thread() and process_one_work() of one worker. The stores of an
 * item's run stay in this function: their sites name it. */
static void worker_fn(void *world, void *arg)
{
	struct worker *me = arg;
	struct pool *p = me->pool;

	(void)world;
	for (;;) {
		idle_remove(p, me);
		if (need_more_worker(p)) {
			me->working = true;
			count(me, true);
			do {
				struct worker *x = worker_having(q_at(p, 0).w);
				if (x && x != me) {
					/* running on another worker of the pool: handed to
					 * it in a step of its own, the item on the worklist
					 * until then (a cancel or a flush sees it) */
					sched_point(&handoff_site);
					if (!p->n)
						continue;
					x = worker_having(q_at(p, 0).w);
					if (x && x != me) {
						x->again = q_at(p, 0);
						p->head = (p->head + 1) % WEFT_WORKQUEUE_MAX;
						p->n--;
						weft_sched_step(WEFT_DEP_WRITE, pool_loc(p), 1, 0,
								&handoff_site);
						continue;
					}
				}
				struct qent e = q_at(p, 0);
				p->head = (p->head + 1) % WEFT_WORKQUEUE_MAX;
				p->n--;
				/* the dequeue is in the step before the take's store
				 * (that store's scheduling point comes after it): a
				 * worker that looks at the worklist from that point on
				 * finds it gone, so the step writes the worklist too
				 * (without this record the bounded reduction certified
				 * weft-workqueue's parallel-spread:unbound, whose lost
				 * update plain dfs finds with one preemption) */
				weft_sched_step(WEFT_DEP_WRITE, pool_loc(p), 1, 0, &take_site);
				for (;;) {
					struct work_struct *w = e.w;
					unsigned cpu = bound(p) ? p->idx : M.cpu_of[me->tid];
					struct wq_slot *sl = &slots[e.slot];
					me->cur = e;   /* a flush of sl waits for it from here */
					me->taking = w;
					WRITE_ONCE(w->running, cpu + 1);
					/* the take, recorded in the step of that store (no
					 * scheduling point lies between them) */
					weft_sched_step(WEFT_DEP_WRITE, pool_loc(p), 1, 0, &take_site);
					/* before the call: may requeue; a cancel_work_sync()
					 * that came in between holds PENDING, as it would have
					 * grabbed it after the kernel's take */
					if (!(weft_peek(w->data) & 1ul << WEFT_WORK_CANCELING))
						clear_bit(WEFT_WORK_PENDING, &w->data);
					/* set_work_pool_and_clear_pending()'s smp_mb(): the
					 * clear is visible before the work function runs
					 * (a requeue's test-and-set of PENDING, which reads
					 * memory, sees it) */
					if (__builtin_expect(weft_mem_weak, 0))
						weft_mem_fence(WEFT_FENCE_MB);
					/* The kernel's take clears PENDING under the pool lock,
					 * which every grab takes: a grab that came at the clear's
					 * scheduling point came after it. So the PENDING a
					 * cancel_work_sync() then took (with CANCELING), or a
					 * mod_delayed_work() then set (keep_pending), outlives
					 * the clear. */
					unsigned long d = weft_peek(w->data);
					if (((d & 1ul << WEFT_WORK_CANCELING) || me->keep_pending) &&
					    !(d & 1ul << WEFT_WORK_PENDING))
						set_data(w, loc_of(&w->data), d | 1ul << WEFT_WORK_PENDING,
							 &keep_site);
					me->keep_pending = false;
					me->taking = NULL;
					if (bound(p) && (sl->flags & WEFT_WQ_CPU_INTENSIVE)) {
						/* not concurrency managed while it runs */
						me->intensive = true;
						count(me, false);
						weft_sched_step(WEFT_DEP_WRITE, pool_loc(p), 1, 0,
								&intensive_site);
						kick(p, &intensive_site);
					} else if (!bound(p) && p->n) {
						kick(p, &take_site);
					}
					if (__builtin_expect(weft_mem_weak, 0))
						weft_mem_observe_lock(pool_lock_byte(p), true);
					w->func(w);
					/* The kernel's worker touches the item no more once
					 * its function returned (which may have freed it:
					 * process_one_work()); seq and running are Weft's
					 * own, so a free since is no use-after-free: the
					 * accesses skip freed memory (a read in their place) */
					(void)AFTER_RUN(w->seq, WEFT_A_STORE,
						  AFTER_RUN(w->seq, WEFT_A_LOAD, 0, WEFT_EV_READ,
							    "READ_ONCE(w->seq)") + 1,
						  WEFT_EV_WRITE, "WRITE_ONCE(w->seq)");
					(void)AFTER_RUN(w->running, WEFT_A_STORE, 0, WEFT_EV_WRITE,
						  "WRITE_ONCE(w->running)");
					me->cur.w = NULL;
					if (me->intensive) {
						me->intensive = false;
						count(me, true);
					}
					pool_release(p);
					weft_wl_wake_all(w, &take_site);   /* flush_work() waiters */
					item_gone(sl, p, &take_site);
					if (!me->again.w)
						break;
					e = me->again;
					me->again.w = NULL;
				}
			} while (p->n && (!bound(p) || p->nr_running <= 1));   /* keep_working() */
			count(me, false);
			me->working = false;
		}
		p->idle[p->nr_idle++] = (uint8_t)(me - p->wk);
		weft_sched_step(WEFT_DEP_BLOCKED, pool_loc(p), 1, 0, &idle_site);
		weft_wl_block(me, &worker_idle, &idle_site);   /* TASK_IDLE */
		M.step++;
	}
}

static bool queue_owned(struct wq_slot *sl, int cpu, struct work_struct *w,
			const struct weft_site *s);
static void wq_freed(uint32_t loc, uint32_t len, const struct weft_site *s);
static unsigned long test_and_set_pending(struct work_struct *w, const struct weft_site *s);

/* A destroyed workqueue, or one being drained that the caller is not a
 * work item of (__queue_work()'s checks): reported; false if so. */
static bool queue_refused(struct wq_slot *sl, const struct weft_site *s)
{
	if (sl->destroyed) {
		weft_report2(WEFT_KIND_USE_AFTER_FREE, sl->wq, s, NULL,
			     "queueing on workqueue \"%s\" after destroy_workqueue() at %s:%u",
			     wq_name(sl), sl->destroyed->file, sl->destroyed->line);
		return true;
	}
	if (sl->draining) {
		struct worker *me = M.cur >= 0 ? worker_of[M.cur] : NULL;
		if (!me || !me->cur.w || &slots[me->cur.slot] != sl) {
			weft_report(WEFT_KIND_WARN_ON, sl->wq, s,
				    "queueing on workqueue \"%s\" while it is drained, from outside "
				    "its own work items", wq_name(sl));
			return true;
		}
	}
	return false;
}

bool weft_queue_work(struct workqueue_struct *wq, int cpu, struct work_struct *w,
		     const struct weft_site *s)
{
	if (cpu >= 0 && weft_ctx_cpu_bad((unsigned)cpu, s->what, s))
		return false;
	struct wq_slot *sl = queue_slot(wq, "queue_work_on", s);
	if (!sl)
		return false;
	if (test_and_set_pending(w, s) & 1ul << WEFT_WORK_PENDING)
		return false;   /* already queued: it will run once */
	if (queue_refused(sl, s))
		return false;
	return queue_owned(sl, cpu, w, s);
}

bool weft_queue_work_on(unsigned cpu, struct work_struct *w, const struct weft_site *s)
{
	return weft_queue_work(NULL, (int)(cpu & 0x7fffffffu), w, s);
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

/* insert_work() and kick_pool(): onto p's worklist, in the caller's step */
static void queue_on_pool(struct pool *p, struct qent e, const struct weft_site *s)
{
	if (p->n == WEFT_WORKQUEUE_MAX) {
		weft_report(WEFT_KIND_ASSERT, e.w, s, "more than %d work items queued on %s%u",
			    WEFT_WORKQUEUE_MAX, bound(p) ? "CPU" : "the unbound pool",
			    bound(p) ? p->idx : 0);
		return;
	}
	p->q[(p->head + p->n) % WEFT_WORKQUEUE_MAX] = e;
	p->n++;
	pool_release(p);
	kick(p, s);
}

/* __queue_work(): w's PENDING bit is the caller's (it set it, or a
 * delayed work's timer phase held it); onto its pool's worklist (or
 * sl's inactive list past max_active), in the caller's step. cpu < 0:
 * the caller's CPU. */
static bool queue_owned(struct wq_slot *sl, int cpu, struct work_struct *w,
			const struct weft_site *s)
{
	unsigned nr_cpus = M.sc->nr_cpus ? M.sc->nr_cpus : 1;
	/* frees are checked for queued items (wq_freed()); not weft_core(),
	 * whose other hooks would add records to every free */
	if (!M.core_used)
		M.freed_watch = wq_freed;
	/* running: queued behind itself on the pool that runs it (a read of
	 * w->running in this step, recorded, not traced) */
	uint32_t running = weft_peek(w->running);
	weft_sched_step(WEFT_DEP_READ, loc_of(&w->running), sizeof(w->running), 0, s);
	struct worker *x = running ? worker_having(w) : NULL;
	struct pool *p;
	if (x)
		p = x->pool;
	else if (sl->flags & WEFT_WQ_UNBOUND)
		p = pool_get(UNBOUND_POOL);
	else
		p = pool_get((cpu < 0 ? weft_raw_smp_processor_id() : (unsigned)cpu) % nr_cpus);
	struct qent e = { w, (uint8_t)(sl - slots), sl->color, s, (int8_t)M.cur,
			  (int8_t)(M.cur < 0 ? -1 : (int)M.cpu_of[M.cur]), M.step };
	if (sl->max_active && sl->nr_active[p->idx] >= sl->max_active) {
		if (sl->nr_inactive == WEFT_WORKQUEUE_MAX) {
			weft_report(WEFT_KIND_ASSERT, w, s,
				    "more than %d work items waiting on workqueue \"%s\"",
				    WEFT_WORKQUEUE_MAX, wq_name(sl));
			return false;
		}
		sl->inactive_pool[sl->nr_inactive] = (uint8_t)p->idx;
		sl->inactive[sl->nr_inactive++] = e;
	} else {
		if (sl->max_active)
			sl->nr_active[p->idx]++;
		queue_on_pool(p, e, s);
	}
	weft_sched_step(WEFT_DEP_WRITE, pool_loc(p), 1, 0, s);
	return true;
}

/* Whether w is queued: on a pool's worklist, a worker's scheduled
 * `again`, or its workqueue's inactive list (the kernel's work->data
 * names a pwq), or being taken by a worker (the kernel's take and its
 * marking running are one step under the pool lock). A delayed work whose
 * timer is pending holds PENDING but is on none. */
static bool queued(const struct work_struct *w)
{
	for (unsigned u = 0; u < nr_used_pools; u++) {
		const struct pool *p = &pools[used_pools[u]];
		for (unsigned i = 0; i < p->n; i++)
			if (q_at(p, i).w == w)
				return true;
		for (unsigned k = 0; k < p->nr_workers; k++)
			if (p->wk[k].again.w == w || p->wk[k].taking == w)
				return true;
	}
	for (unsigned si = 0; si < nr_slots; si++)
		for (unsigned i = 0; i < slots[si].nr_inactive; i++)
			if (slots[si].inactive[i].w == w)
				return true;
	return false;
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
	flushing[M.cur].w = w;
	flushing[M.cur].epoch = M.epoch;
	/* start_flush_work(): a barrier after the queued instance, else after
	 * the running one, else none; PENDING alone (a delayed work's timer,
	 * a cancel's grab) is not waited for: the work is on no pwq */
	flushing[M.cur].until = weft_peek(w->seq) + !!weft_peek(w->running) +
				((weft_peek(w->data) & 1ul << WEFT_WORK_PENDING) && queued(w));
	while (flush_busy(w, (unsigned)M.cur)) {
		struct worker *me = worker_of[M.cur];
		if (me && (me->cur.w == w || me->again.w == w)) {
			weft_report(WEFT_KIND_DEADLOCK, w, s,
				    "flush_work() of a work item from its own worker");
			flushing[M.cur].w = NULL;
			return false;
		}
		waited = true;
		weft_trace(WEFT_EV_BLOCK, loc, weft_peek(w->data), weft_peek(w->running), s);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(*w), 0, s);
		weft_wl_block(w, &flush_class, s);
		M.step++;
	}
	flushing[M.cur].w = NULL;
	pools_acquire();
	weft_trace(WEFT_EV_WAIT, loc, waited, weft_peek(w->seq), s);
	weft_sched_step(WEFT_DEP_READ, loc, sizeof(*w), 0, s);
	return waited;
}

/* ------------------------------------------------------ workqueues */

struct workqueue_struct *weft_alloc_workqueue(const char *name, unsigned int flags,
					      int max_active, const struct weft_site *s)
{
	struct weft_core_state *c = weft_core();

	for (unsigned i = 0; i < WEFT_WQ_ALLOC_MAX; i++) {
		struct weft_wq_made *m = &c->wq_alloc[i];
		if (m->wq.name)
			continue;
		m->wq.name = name ? name : "(null)";
		m->flags = flags;
		m->max_active = max_active;
		return &m->wq;
	}
	weft_report(WEFT_KIND_LIMIT, NULL, s, "more than %d alloc_workqueue() in one execution "
		    "(WEFT_WQ_ALLOC_MAX)", WEFT_WQ_ALLOC_MAX);
	return NULL;
}

/* The first item of sl that a flush of color fc waits for (queued with
 * a color <= fc, on a worklist, inactive, or running), or NULL. */
static struct work_struct *flush_waits_for(const struct wq_slot *sl, uint32_t fc)
{
	unsigned si = (unsigned)(sl - slots);

	for (unsigned i = 0; i < nr_used_pools; i++) {
		struct pool *p = &pools[used_pools[i]];
		for (unsigned k = 0; k < p->nr_workers; k++) {
			const struct worker *wk = &p->wk[k];
			if (wk->cur.w && wk->cur.slot == si && wk->cur.color <= fc)
				return wk->cur.w;
			if (wk->again.w && wk->again.slot == si && wk->again.color <= fc)
				return wk->again.w;
		}
		for (unsigned j = 0; j < p->n; j++) {
			struct qent e = q_at(p, j);
			if (e.slot == si && e.color <= fc)
				return e.w;
		}
	}
	for (unsigned i = 0; i < sl->nr_inactive; i++)
		if (sl->inactive[i].color <= fc)
			return sl->inactive[i].w;
	return NULL;
}

static int wqflush_owner(const void *chan)
{
	for (unsigned i = 0; i < nr_slots; i++)
		if (flush_chan(&slots[i]) == chan) {
			struct work_struct *w = flush_waits_for(&slots[i], UINT32_MAX);
			return w ? flush_owner(w) : -1;
		}
	return -1;
}

static const struct weft_wait_class wqflush_class = {
	.name = "flush_workqueue", .sleeps = true, .owner = wqflush_owner,
};

/* flush_workqueue(), drain_workqueue() (every item, chained ones too,
 * and no queueing from outside meanwhile) and destroy_workqueue() (a
 * drain, then the workqueue is gone) */
void weft_flush_workqueue(struct workqueue_struct *wq, unsigned how, const struct weft_site *s)
{
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, wq, s, "%s from setup or an audit", s->what);
		return;
	}
	struct wq_slot *sl = slot_of(wq, s);
	if (!sl)
		return;
	weft_might_sleep(s);
	sched_point_at(s, NULL, 0, NULL);
	if (sl->destroyed) {
		weft_report2(WEFT_KIND_USE_AFTER_FREE, wq, s, NULL,
			     "%s of workqueue \"%s\" after destroy_workqueue() at %s:%u", s->what,
			     wq_name(sl), sl->destroyed->file, sl->destroyed->line);
		return;
	}
	uint32_t fc = how == WEFT_WQ_FLUSH ? sl->color++ : UINT32_MAX;
	struct worker *me = worker_of[M.cur];
	if (me && me->cur.w && &slots[me->cur.slot] == sl) {
		weft_report(WEFT_KIND_DEADLOCK, wq, s,
			    "%s of workqueue \"%s\" from one of its own work items", s->what,
			    wq_name(sl));
		return;
	}
	if (how != WEFT_WQ_FLUSH)
		sl->draining++;
	pools_read(s);
	bool waited = false;
	struct work_struct *w;
	while ((w = flush_waits_for(sl, fc))) {
		uint32_t loc = loc_of(&w->data);
		waited = true;
		weft_trace(WEFT_EV_BLOCK, loc, weft_peek(w->data), weft_peek(w->running), s);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(*w), 0, s);
		sl->nr_flushers++;
		weft_wl_block(flush_chan(sl), &wqflush_class, s);
		sl->nr_flushers--;
		M.step++;
		pools_read(s);
	}
	pools_acquire();
	weft_trace(WEFT_EV_WAIT, loc_of(wq), waited, fc, s);
	if (how != WEFT_WQ_FLUSH)
		sl->draining--;
	if (how == WEFT_WQ_DESTROY) {
		sl->destroyed = s;
	}
}

struct work_struct *weft_current_work(void)
{
	struct worker *me = M.cur >= 0 ? worker_of[M.cur] : NULL;

	return me ? me->cur.w : NULL;
}

/* cancel_work_sync() in progress: the canceller holds PENDING with
 * CANCELING (WORK_OFFQ_CANCELING), so a queueing fails meanwhile */
#define CANCELING (1ul << WEFT_WORK_CANCELING)
#define PENDING (1ul << WEFT_WORK_PENDING)

/* A worker has w: running it, or taking it (off its worklist, not yet
 * marked): in the kernel it is then no longer pending. */
static bool worker_has(const struct work_struct *w)
{
	return worker_having(w) != NULL;
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

/* try_to_grab_pending()'s effect on a queued item: off its worklist (or
 * a worker's scheduled `again`, or its workqueue's inactive list), in the
 * step that takes PENDING; false if it was on none */
static bool unqueue(struct work_struct *w, const struct weft_site *s)
{
	for (unsigned u = 0; u < nr_used_pools; u++) {
		struct pool *p = &pools[used_pools[u]];
		for (unsigned i = 0; i < p->n; i++) {
			struct qent e = q_at(p, i);
			if (e.w != w)
				continue;
			for (unsigned j = i; j + 1 < p->n; j++)
				p->q[(p->head + j) % WEFT_WORKQUEUE_MAX] =
					p->q[(p->head + j + 1) % WEFT_WORKQUEUE_MAX];
			p->n--;
			weft_sched_step(WEFT_DEP_WRITE, pool_loc(p), 1, 0, s);
			item_gone(&slots[e.slot], p, s);
			return true;
		}
		for (unsigned k = 0; k < p->nr_workers; k++) {
			struct qent e = p->wk[k].again;
			if (e.w != w)
				continue;
			p->wk[k].again.w = NULL;
			weft_sched_step(WEFT_DEP_WRITE, pool_loc(p), 1, 0, s);
			item_gone(&slots[e.slot], p, s);
			return true;
		}
	}
	for (unsigned si = 0; si < nr_slots; si++) {
		struct wq_slot *sl = &slots[si];
		for (unsigned i = 0; i < sl->nr_inactive; i++) {
			if (sl->inactive[i].w != w)
				continue;
			struct pool *p = &pools[sl->inactive_pool[i]];
			inactive_remove(sl, i);
			weft_sched_step(WEFT_DEP_WRITE, pool_loc(p), 1, 0, s);
			if (sl->nr_flushers)
				weft_wl_wake_all(flush_chan(sl), s);
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
		weft_wl_block(w, &cancel_other_class, s);
		M.step++;
	}
	bool timer_was = timer && weft_timer_del_step(timer, s);
	/* pending: on a worklist or its timer deleted just now (an item being
	 * taken is a run's already) */
	bool taken = !weft_peek(w->running) && worker_has(w);
	bool was_pending = (weft_peek(w->data) & PENDING) && !taken;
	/* Grabbed only off a list or a pending timer. PENDING on an item on
	 * neither is a take under way between its store to w->running and its
	 * clear_bit(): the kernel clears PENDING in the take, under the pool
	 * lock try_to_grab_pending() takes too, so the grab finds the item
	 * idle (-EAGAIN until the clear) and the cancel returns false; it
	 * returned true, and the item ran (weft-workqueue work-query). */
	if (!sync) {
		/* what it found of a take (w->running, written in the take's
		 * step with the worklist): without the record a cancel that
		 * found the item taken looked independent of the take, and the
		 * order where it takes the item off the list first went
		 * unexplored (the commutation audit, weft-workqueue work-query) */
		weft_sched_step(WEFT_DEP_READ, loc_of(&w->running), sizeof(w->running), 0, s);
		if (!taken)
			set_data(w, loc, w->data & ~PENDING, s);
		return was_pending && (timer_was || unqueue(w, s));
	}
	set_data(w, loc, w->data | PENDING | CANCELING, s);
	if (was_pending)
		was_pending = timer_was || unqueue(w, s);
	while (worker_has(w)) {
		struct worker *me = worker_of[M.cur];
		if (me && worker_having(w) == me) {
			weft_report(WEFT_KIND_DEADLOCK, w, s,
				    "cancel_work_sync() of a work item from its own worker");
			return false;
		}
		weft_trace(WEFT_EV_BLOCK, loc, weft_peek(w->data), weft_peek(w->running), s);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(*w), 0, s);
		weft_wl_block(w, &cancel_run_class, s);
		M.step++;
	}
	pools_acquire();
	weft_sched_step(WEFT_DEP_READ, loc_of(&w->running), sizeof(w->running), 0, s);
	set_data(w, loc, w->data & ~(PENDING | CANCELING), s);
	weft_wl_wake_all(w, s);   /* flushers and other cancellers */
	return was_pending;
}

/* ---------------------------------------------------------- delayed work */

static struct weft_site dwork_fire_site = { __FILE__, "delayed_work_timer_fn",
					    "delayed_work_timer_fn(): queue the work", __LINE__,
					    WEFT_EV_RMW, 0, WEFT_SITE_SC };

/* delayed_work_timer_fn(): the timer phase ends, the work is queued with
 * the PENDING bit that phase held (no scheduling point in between). */
void weft_delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dw = container_of(t, struct delayed_work, timer);
	struct wq_slot *sl = slot_of(dw->wq, &dwork_fire_site);

	if (sl && !queue_refused(sl, &dwork_fire_site)) {
		queue_owned(sl, dw->cpu, &dw->work, &dwork_fire_site);
		/* set_work_pwq(): work->data names the pwq now, which a
		 * flush_work() reads (it waits for a queued work only) */
		weft_sched_step(WEFT_DEP_WRITE, loc_of(&dw->work.data), sizeof(dw->work.data), 0,
				&dwork_fire_site);
	}
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
static void queue_delayed_owned(struct wq_slot *sl, int cpu, struct delayed_work *dw,
				unsigned long delay, const struct weft_site *s)
{
	dw->cpu = cpu;
	dw->wq = (struct workqueue_struct *)sl->wq;
	if (!delay) {
		if (!queue_refused(sl, s))
			queue_owned(sl, cpu, &dw->work, s);
	} else
		weft_timer_arm_step(&dw->timer, weft_jiffies() + delay,
				    cpu < 0 ? WEFT_TIMER_ADD : WEFT_TIMER_ADD_ON,
				    cpu < 0 ? 0 : (unsigned)cpu, s);
}

/* queue_delayed_work_on(): PENDING taken by a test-and-set, then the work
 * queued at once (delay 0) or the timer armed (__queue_delayed_work()) */
bool weft_queue_delayed_work(struct workqueue_struct *wq, int cpu, struct delayed_work *dw,
			     unsigned long delay, const struct weft_site *s)
{
	if (cpu >= 0 && weft_ctx_cpu_bad((unsigned)cpu, s->what, s))
		return false;
	struct wq_slot *sl = queue_slot(wq, s->what, s);
	if (!sl)
		return false;
	if (test_and_set_pending(&dw->work, s) & 1ul << WEFT_WORK_PENDING)
		return false;
	queue_delayed_owned(sl, cpu, dw, delay, s);
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
bool weft_mod_delayed_work(struct workqueue_struct *wq, int cpu, struct delayed_work *dw,
			   unsigned long delay, const struct weft_site *s)
{
	struct work_struct *w = &dw->work;
	uint32_t loc = loc_of(&w->data);

	if (cpu >= 0 && weft_ctx_cpu_bad((unsigned)cpu, s->what, s))
		return false;
	struct wq_slot *sl = queue_slot(wq, s->what, s);
	if (!sl)
		return false;
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
		struct worker *wk = worker_having(w);
		if (wk && wk->taking == w)
			wk->keep_pending = true;
		set_data(w, loc, w->data | PENDING, s);
	}
	queue_delayed_owned(sl, cpu, dw, delay, s);
	return was;
}

/* flush_delayed_work(): a pending timer is deleted and its work queued at
 * once, then flushed */
bool weft_flush_delayed_work(struct delayed_work *dw, const struct weft_site *s)
{
	if (M.cur < 0)
		return false;
	if (weft_timer_del(&dw->timer, WEFT_TIMER_DEL_SYNC, s) > 0) {
		struct wq_slot *sl = slot_of(dw->wq, s);
		if (sl && !queue_refused(sl, s))
			queue_owned(sl, dw->cpu, &dw->work, s);
	}
	return weft_flush_work(&dw->work, s);
}

/* debugobjects' "free active object" of a work_struct (kernel/workqueue.c
 * debug_work_activate(), lib/debugobjects.c): freed while queued - on a
 * worklist, handed to the worker running it, waiting past max_active, or
 * being taken (the kernel's take, under the pool lock, is one step) - and
 * not yet run. A running item may be freed (by its own function too). */
static void wq_bad_free(struct qent e, const char *where, const struct weft_site *s)
{
	const struct weft_site *q = e.site;
	struct weft_access queued = { q != NULL, e.tid, e.cpu, e.step, q };

	weft_report2(WEFT_KIND_BAD_FREE, e.w, s, &queued,
		    "ODEBUG: free active object: a work_struct queued by %s in %s() at %s:%u, %s, "
		    "not yet run (cancel_work_sync() it first)",
		    q ? q->what : "?", q ? q->func : "?", q ? weft_site_basename(q) : "?",
		    q ? q->line : 0, where);
}

/* the queued item of [loc, loc + len) and where it waits; NULL if none */
static const struct qent *queued_in(uint32_t loc, uint32_t len, char *where, size_t n)
{
#define FREED(w) ((w) && loc_of(w) != WEFT_NO_LOC && loc_of(w) - loc < len)
	for (unsigned u = 0; u < nr_used_pools; u++) {
		const struct pool *p = &pools[used_pools[u]];
		for (unsigned i = 0; i < p->n; i++) {
			const struct qent *e = &p->q[(p->head + i) % WEFT_WORKQUEUE_MAX];
			if (!FREED(e->w))
				continue;
			if (bound(p))
				snprintf(where, n, "on CPU%u's worklist", p->idx);
			else
				snprintf(where, n, "on the unbound pool's worklist");
			return e;
		}
		for (unsigned k = 0; k < p->nr_workers; k++) {
			const struct worker *wk = &p->wk[k];
			if (FREED(wk->again.w)) {
				snprintf(where, n, "handed to the worker running it");
				return &wk->again;
			}
			if (FREED(wk->taking)) {
				snprintf(where, n, "being taken by a worker");
				return &wk->cur;
			}
		}
	}
	for (unsigned si = 0; si < nr_slots; si++)
		for (unsigned i = 0; i < slots[si].nr_inactive; i++)
			if (FREED(slots[si].inactive[i].w)) {
				snprintf(where, n, "waiting past max_active");
				return &slots[si].inactive[i];
			}
#undef FREED
	return NULL;
}

static void wq_freed(uint32_t loc, uint32_t len, const struct weft_site *s)
{
	char where[48];
	const struct qent *e = queued_in(loc, len, where, sizeof(where));

	if (e)
		wq_bad_free(*e, where, s);
}

/* "workqueue \"name\"": a workqueue alloc_workqueue() made */
static bool wq_describe(uint32_t off, char *buf, size_t n)
{
	uint32_t first = loc_of(M.core->wq_alloc);

	if (first == WEFT_NO_LOC || off < first || off - first >= sizeof(M.core->wq_alloc))
		return false;
	const struct weft_wq_made *m = &M.core->wq_alloc[(off - first) / sizeof(*m)];
	snprintf(buf, n, "workqueue \"%s\"", m->wq.name ? m->wq.name : "(not made)");
	return true;
}

/* The dependence audit (dep_audit.c): each used pool's worklist, the
 * state its wq_pool[] byte stands for in the records (0: empty). */
static unsigned wq_audit_state(struct weft_audit_state *out, unsigned cap)
{
	unsigned k = 0;

	for (unsigned i = 0; i < nr_used_pools && k < cap; i++) {
		const struct pool *p = &pools[used_pools[i]];
		uint64_t h = 0;
		for (unsigned j = 0; j < p->n; j++) {
			struct qent e = q_at(p, j);
			h = weft_audit_mix(h, (uintptr_t)e.w);
			h = weft_audit_mix(h, (uint64_t)e.slot << 32 | e.color);
		}
		out[k++] = (struct weft_audit_state){ pool_loc(p), h };
	}
	return k;
}

const struct weft_family weft_family_workqueue = {
	.name = "workqueue",
	.begin = weft_wq_reset,
	.describe = wq_describe,
	.audit_state = wq_audit_state,
	.freed = wq_freed,
	.sleeping = wq_sleeping,
};
