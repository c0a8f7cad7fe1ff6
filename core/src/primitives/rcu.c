/*
 * rcu.c - RCU on the deterministic machine (<weft/rcu.h>): read-side
 * sections, grace periods as blocked threads, the callback kthread, and
 * the RCU detectors. State: struct weft_rcu_core in the core area
 * (rcu_core.h), so every field is a world location. About 800 lines, one
 * file: the readers, the grace periods, the kthread and the detectors
 * share that state, its wait classes and its records.
 *
 * Grace periods. A thread is inside a read-side section from its first
 * entry into rcu_read_lock() or a non-preemptible region (preempt count,
 * bottom halves or interrupts off, a handler, an RCU callback: consolidated
 * flavours, v5.0+) to its last exit from both; rd[t].gen counts those
 * exits. synchronize_rcu() snapshots the readers inside a section and
 * their generations, and sleeps on its snapshot until every generation
 * moved; the exit that moves the last one (the outermost rcu_read_unlock(),
 * or context.c's weft_rcu_ctx_edge()) wakes it (precise wake-ups: a waiter
 * is made runnable only when its grace period is over, so it never
 * re-blocks).
 *
 * Dependence records (ops->on_step, for partial-order reduction):
 *  - rcu_read_lock(): ACQUIRE of the thread's reader slot rd[t];
 *  - rcu_read_unlock(): RELEASE of rd[t] when it ends the section (it may
 *    end a grace period and wake its waiter), else WRITE;
 *  - entering a non-preemptible region from a preemptible one: ACQUIRE of
 *    rd[t] (after the step's own record: a lock's comes first); leaving
 *    the last one: RELEASE of rd[t] and, when it ended a grace period,
 *    the wake-ups' records; both flagged WEFT_STEP_CTX (no operation of
 *    their own: the genome's counts and a test's lock step skip them);
 *  - a section's end that drops held pointers: a WRITE of bk[t];
 *  - synchronize_rcu() and the callback kthread's wait: BLOCKED on the
 *    whole rd[] when they sleep, then ACQUIRE of rd[] when the grace
 *    period is over: dependent with every reader's lock and unlock, in
 *    particular with the unlock that ended the grace period;
 *  - call_rcu()/kfree_rcu(): WRITE of the queue counters (cb_queued,
 *    cb_done, kthread) and a READ of rd[] (its snapshot), as the kthread's take/retire of a callback (and
 *    its check of an empty queue before it sleeps); rcu_barrier():
 *    BLOCKED, then ACQUIRE of the same words;
 *  - rcu_dereference(): the READ of the pointer (weft_access()), and in a
 *    section a WRITE of the thread's bookkeeping bk[t] (the pointer held);
 *  - a free (rcu_freed(), in the freeing step): a READ of the RCU state
 *    past rd[] (the held pointers it checks), so not dependent with every
 *    spinlock of another thread.
 * A kthread step may carry two records (the queue WRITE and, when no
 * sleep was needed, the grace period's ACQUIRE; a kfree_rcu() free adds
 * the poison's WRITE), as free_one()'s store and poison share one step.
 *
 * Where callbacks run, and why there: on a kthread, asynchronously (see
 * rcu.h), each in softirq context (weft_ctx_softirq_enter()). Running them inside the rcu_read_unlock() that ends the grace
 * period would make them synchronous with a reader and never later;
 * running them inside call_rcu() is never allowed by the kernel (the caller
 * may hold a lock the callback takes). On a thread of their own they run
 * at any scheduling point after their grace period, which the strategy
 * chooses: running one early costs a preemption, running it when the
 * others block or end is free. Executions stay deterministic: the kthread
 * is made inside the first call_rcu()'s own step (weft_sched_spawn(), as
 * the workqueue makes its kworkers) and takes the next thread number; with
 * its queue empty it sleeps idle (never a stuck thread), so an execution
 * ends with it asleep once every callback has run. Limit:
 * WEFT_RCU_MAX_CBS pending callbacks (an assertion report beyond).
 */
#include <string.h>

#include <weft/kernel.h>

#include "core_state.h"
#include "families.h"
#include "sched.h"
#include "waiters.h"

/* ------------------------------------------------------------- helpers */

static inline struct weft_rcu_core *rcu(void)
{
	return &weft_core()->rcu;
}

/* The access a report names as its other side. */
static struct weft_access access_at(int tid, uint32_t step, const struct weft_site *s)
{
	struct weft_access a = { 0 };

	if (!s)
		return a;
	a.valid = true;
	a.tid = tid;
	a.cpu = tid < 0 ? -1 : (int)M.cpu_of[tid];
	a.step = step;
	a.site = s;
	return a;
}

/* RCU keeps its readers' state for threads 0 .. WEFT_MAX_THREADS - 1 (in
 * the core area, whose layout traces name); threads numbered above have
 * no slot: their RCU calls are reported, never a wrong verdict. */
static unsigned rcu_nr_threads(void)
{
	return M.nr_threads < WEFT_MAX_THREADS ? M.nr_threads : WEFT_MAX_THREADS;
}

static bool rcu_slot_ok(const struct weft_site *s)
{
	if (M.cur < WEFT_MAX_THREADS)
		return true;
	weft_report(WEFT_KIND_ASSERT, NULL, s,
		    "%s in T%d: RCU tracks the read-side sections of threads 0..%d only "
		    "(WEFT_MAX_THREADS)", s->what, M.cur, WEFT_MAX_THREADS - 1);
	return false;
}

/* Thread t cannot be preempted (preempt_disable(), local_bh_disable(),
 * local_irq_save(), a spinlock, an interrupt or softirq handler, an RCU
 * callback): since v5.0 (consolidated flavours) an RCU read-side critical
 * section for every grace period (rcupdate.h: rcu_read_lock_sched()). */
static bool ctx_atomic(unsigned t)
{
	const struct wthread *w = &M.th[t];

	return t < M.nr_threads && w->state != T_DONE &&
	       (w->preempt || w->irq_off || w->bh || w->in_irq);
}

/* Thread t is inside a read-side critical section: rcu_read_lock()'s, or
 * a non-preemptible region. rd[t].gen moves when it leaves both. */
static bool in_section(const struct weft_rcu_core *r, unsigned t)
{
	return r->rd[t].nesting || ctx_atomic(t);
}

/* The readers a grace period starting now waits for. Under a weak memory
 * model its start is a full barrier on every CPU where no reader is
 * (rcu_gp_init(): a CPU notes the new grace period through its rcu_node
 * lock, smp_mb__after_unlock_lock()), so that a section that begins after
 * the start sees every store made before it (the grace-period guarantee:
 * a section that is not waited for follows the start); rcu_read_lock()'s
 * site orders its CPU by itself, a preempt_disable() does not. */
static void snapshot(struct weft_rcu_core *r, struct weft_rcu_snap *sn)
{
	uint64_t busy = 0;

	sn->mask = 0;
	for (unsigned t = 0; t < rcu_nr_threads(); t++)
		if (in_section(r, t)) {
			sn->mask |= 1u << t;   /* t < WEFT_MAX_THREADS <= 32 */
			sn->gen[t] = r->rd[t].gen;
			r->bk[t].watched = 1;
			busy |= 1ull << M.cpu_of[t];
		}
	if (__builtin_expect(weft_mem_weak, 0))
		for (unsigned c = 0; c < weft_nr_cpu_ids(); c++)
			if (!(busy >> c & 1))
				weft_mem_cpu_barrier(c);
}

/* A reader of the snapshot still inside the section it was in, or -1
 * (one not in a section now has left it, whatever its generation says). */
static int gp_blocker(const struct weft_rcu_core *r, const struct weft_rcu_snap *sn)
{
	for (uint32_t m = sn->mask; m; m &= m - 1) {
		unsigned t = lowest(m);
		if (r->rd[t].gen == sn->gen[t] && in_section(r, t))
			return (int)t;
	}
	return -1;
}

/* ---------------------------------------------------------- wait classes */

/* A grace-period waiter sleeps on its snapshot (synchronize_rcu()'s gpw[t]
 * or a callback's snap): the owner is a reader it still waits for. */
static int gp_owner(const void *chan)
{
	return gp_blocker(&M.core->rcu, chan);
}

static bool gp_busy(const void *chan, unsigned tid)
{
	(void)tid;
	return gp_blocker(&M.core->rcu, chan) >= 0;
}

static const struct weft_wait_class rcu_gp_class =
	WL_CLASS("RCU read-side section", true, gp_owner, gp_busy);

/* Before synchronize_rcu() snapshots: the channel is rd[] itself, busy if
 * another thread is inside a section (weft_thread_pending()). */
static int sync_owner(const void *chan)
{
	const struct weft_rcu_rd *rd = chan;

	for (unsigned t = 0; t < rcu_nr_threads(); t++)
		if ((rd[t].nesting || ctx_atomic(t)) && (int)t != M.cur)
			return (int)t;
	return -1;
}

static bool sync_busy(const void *chan, unsigned tid)
{
	const struct weft_rcu_rd *rd = chan;

	for (unsigned t = 0; t < rcu_nr_threads(); t++)
		if ((rd[t].nesting || ctx_atomic(t)) && t != tid)
			return true;
	return false;
}

static const struct weft_wait_class rcu_sync_class =
	WL_CLASS("RCU read-side section", true, sync_owner, sync_busy);

/* rcu_barrier() sleeps on cb_done until its target: the kthread owns it. */
static int barrier_owner(const void *chan)
{
	const struct weft_rcu_core *r = &M.core->rcu;

	(void)chan;
	return (int)r->kthread - 1;
}

static bool barrier_busy(const void *chan, unsigned tid)
{
	const struct weft_rcu_core *r = &M.core->rcu;

	(void)chan;
	(void)tid;
	return r->cb_done != r->cb_queued;
}

/* The kthread asleep on an empty queue: idle, never stuck; asleep
 * TASK_INTERRUPTIBLE in the kernel (as a workqueue worker idle:
 * workqueue.c, worker_idle), not running, with the records of its state. */
static const struct weft_wait_class rcu_idle_class = {
	.name = "RCU callback queue", .sleeps = true, .idle = true,
};

static const struct weft_wait_class rcu_barrier_class =
	WL_CLASS("RCU callbacks", true, barrier_owner, barrier_busy);

/* Wake every grace-period waiter whose grace period reader t just ended. */
static void wake_gp_waiters(struct weft_rcu_core *r, unsigned t)
{
	for (unsigned i = 0; i < M.nr_threads; i++) {
		struct wthread *w = &M.th[i];
		if (w->state != T_BLOCKED || w->wait_class != &rcu_gp_class)
			continue;
		const struct weft_rcu_snap *sn = w->wait_chan;
		if ((sn->mask >> t & 1) && gp_blocker(r, sn) < 0)
			weft_wl_wake(i, sn);
	}
}

/* Sleep until the grace period of snapshot sn is over; the ACQUIRE record
 * of rd[] at the step it is seen over. TASK_UNINTERRUPTIBLE meanwhile
 * (synchronize_rcu()); the callback kthread's wait is left TASK_RUNNING
 * (unlike its idle sleep): its state's records, with the reader's wake-up
 * of it, added orders to every call_rcu() model's bounded search
 * (demo-rcu:call-rcu dfs bound 2: 83 -> 114 executions, bound 3: 205 ->
 * 331), and a model names that task only through current in a callback. */
static void gp_wait(struct weft_rcu_core *r, struct weft_rcu_snap *sn, const struct weft_site *s)
{
	uint32_t loc = loc_of(r->rd);
	uint32_t waited = sn->mask;
	int who;

	/* what weft_thread_pending() says of this thread from now on (the
	 * kthread's wait has no scheduling point of its own) */
	struct wthread *t = &M.th[M.cur];
	t->last_site = s;
	t->pend_addr = r->rd;
	t->pend_size = sizeof(r->rd);
	t->pend_class = &rcu_sync_class;
	/* traced on the reader waited for (the diagram names it); recorded
	 * on all of rd[] */
	while ((who = gp_blocker(r, sn)) >= 0) {
		weft_trace(WEFT_EV_BLOCK, loc_of(&r->rd[who]), (uint64_t)who + 1, 0, s);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(r->rd), 0, s);
		if (M.cur == (int)r->kthread - 1)
			weft_sched_block(sn, &rcu_gp_class, s);
		else
			weft_wl_block(sn, &rcu_gp_class, s);
		M.step++;
	}
	weft_trace(WEFT_EV_WAIT, WEFT_NO_LOC, waited, 0, s);
	weft_sched_step(WEFT_DEP_ACQUIRE, loc, sizeof(r->rd), 0, s);
}

/* ----------------------------------------------------------- readers */

/* Thread t left its read-side critical section (the outermost
 * rcu_read_unlock() outside a non-preemptible region, or the end of such a
 * region outside rcu_read_lock()): its generation moves, the pointers it
 * held are dropped, and the grace periods it ended wake their waiters.
 * True if it dropped a pointer: the caller records a WRITE of the
 * bookkeeping then (held_dropped()), after the step's first record, which
 * a free reads (rcu_freed()). */
static bool section_end(struct weft_rcu_core *r, unsigned t, const struct weft_site *s)
{
	struct weft_rcu_book *b = &r->bk[t];
	bool held = b->nr_held != 0;

	r->rd[t].gen++;
	b->watched = 0;
	b->unlock_step = M.step;
	b->unlock_site = s;
	b->nr_held = 0;
	wake_gp_waiters(r, t);
	return held;
}

static void held_dropped(struct weft_rcu_core *r, unsigned t, const struct weft_site *s)
{
	weft_sched_step(WEFT_DEP_WRITE, loc_of(&r->bk[t]), sizeof(r->bk[t]), 0, s);
}

/* The scheduling point of the current thread's read-side step at s, and
 * its reader record's location in *loc; NULL in the host context or where
 * the thread has no record (rcu_slot_ok()). */
static struct weft_rcu_rd *reader_point(const struct weft_site *s, uint32_t *loc)
{
	struct weft_rcu_rd *rd;

	if (M.cur < 0 || !rcu_slot_ok(s))
		return NULL;
	rd = &rcu()->rd[M.cur];
	sched_point_at(s, rd, sizeof(*rd), NULL);
	*loc = loc_of(rd);
	return rd;
}

void weft_rcu_read_lock(const struct weft_site *s)
{
	uint32_t loc, old;
	struct weft_rcu_rd *rd = reader_point(s, &loc);

	if (!rd)
		return;
	struct weft_rcu_core *r = rcu();
	unsigned t = (unsigned)M.cur;
	old = rd->nesting;
	rd->nesting = old + 1;
	if (!old) {
		/* inside a non-preemptible region the section began there */
		if (!ctx_atomic(t)) {
			struct weft_rcu_book *b = &r->bk[t];
			b->lock_step = M.step;
			b->lock_site = s;
			b->nr_held = 0;
		}
		r->nr_readers++;
	}
	weft_trace(WEFT_EV_LOCK, loc, old, old + 1, s);
	weft_sched_step(WEFT_DEP_ACQUIRE, loc, sizeof(*rd), 0, s);
	shadow_write(loc, s);
}

void weft_rcu_read_unlock(const struct weft_site *s)
{
	uint32_t loc;
	struct weft_rcu_rd *rd = reader_point(s, &loc);

	if (!rd)
		return;
	struct weft_rcu_core *r = rcu();
	unsigned t = (unsigned)M.cur;
	struct weft_rcu_book *b = &r->bk[t];
	uint32_t old = rd->nesting;
	if (!old) {
		struct weft_access other = access_at((int)t, b->unlock_step, b->unlock_site);
		weft_report2(WEFT_KIND_RCU_MISUSE, rd, s, other.valid ? &other : NULL,
			     "rcu_read_unlock() outside an RCU read-side section (T%u %s)", t,
			     other.valid ? "already left its last section" : "never entered one");
		return;
	}
	rd->nesting = old - 1;
	bool dropped = false;
	if (old == 1) {
		r->nr_readers--;
		/* still non-preemptible: the section goes on until that ends
		 * (weft_rcu_ctx_edge()) */
		if (!ctx_atomic(t))
			dropped = section_end(r, t, s);
	}
	weft_trace(WEFT_EV_UNLOCK, loc, old, old - 1, s);
	weft_wl_step(old == 1 ? WEFT_DEP_RELEASE : WEFT_DEP_WRITE, loc, sizeof(*rd), s);
	if (dropped)
		held_dropped(r, t, s);
	shadow_write(loc, s);
}

bool weft_rcu_read_lock_held(void)
{
	return M.cur >= 0 && M.cur < WEFT_MAX_THREADS && M.core_used &&
	       M.core->rcu.rd[M.cur].nesting > 0;
}

uint64_t weft_rcu_deref(const void *addr, unsigned size, unsigned how,
			const struct weft_site *s)
{
	uint64_t v = weft_access((void *)addr, size, WEFT_A_LOAD, 0, 0, s);

	if (M.cur < 0 || how == WEFT_RCU_DEREF_ACCESS || !rcu_slot_ok(s))
		return v;
	struct weft_rcu_core *r = rcu();
	unsigned t = (unsigned)M.cur;
	struct weft_rcu_book *b = &r->bk[t];

	if (!r->rd[t].nesting) {
		const struct wthread *w = &M.th[t];
		bool ok;
		switch (how) {
		case WEFT_RCU_DEREF_SCHED:   /* rcu_read_lock_sched_held(): !preemptible() */
			ok = ctx_atomic(t);
			break;
		case WEFT_RCU_DEREF_BH:      /* rcu_read_lock_bh_held() */
			ok = w->bh || w->in_irq || w->irq_off;
			break;
		case WEFT_RCU_DEREF_OK:
			ok = true;
			break;
		default:
			ok = false;
		}
		if (how == WEFT_RCU_DEREF || (!ok && how != WEFT_RCU_DEREF_PROTECTED_BAD)) {
			/* rcu_read_lock_held() is lockdep's rcu_lock_map only: a
			 * non-preemptible region is a reader for the grace period
			 * but not for rcu_dereference() (v6.12 kernel/rcu/update.c) */
			struct weft_access other = access_at((int)t, b->unlock_step, b->unlock_site);
			weft_report2(WEFT_KIND_RCU_MISUSE, addr, s, other.valid ? &other : NULL,
				     "%s outside an RCU read-side section%s (suspicious "
				     "rcu_dereference_check() usage)", s->what,
				     how == WEFT_RCU_DEREF && ctx_atomic(t)
					     ? " of rcu_read_lock() (preemption off makes one for "
					       "rcu_dereference_sched(), not rcu_dereference())"
					     : how == WEFT_RCU_DEREF_BH
						     ? " (neither bottom halves nor interrupts off)"
						     : how == WEFT_RCU_DEREF_SCHED ? " (preemptible)" : "");
			return v;
		}
		if (!ctx_atomic(t)) {
			if (how == WEFT_RCU_DEREF_PROTECTED_BAD)
				weft_report(WEFT_KIND_RCU_MISUSE, addr, s,
					    "%s without the update-side protection it names and "
					    "outside a read-side section", s->what);
			return v;
		}
	}
	/* remember where the pointer points, for rcu-free-in-use */
	uint32_t ploc = loc_of((const void *)(uintptr_t)v);
	if (ploc != WEFT_NO_LOC && ploc < M.world_size) {
		struct weft_rcu_held *h = &b->held[b->nr_held++ % WEFT_RCU_MAX_HELD];
		h->loc = ploc;
		h->step = M.step;
		h->site = s;
		/* the held pointer is what another thread's free checks
		 * (rcu_freed()): without this record the free looked
		 * independent of the dereference, and a free between it and
		 * the unlock was never explored */
		weft_sched_step(WEFT_DEP_WRITE, loc_of(b), sizeof(*b), 0, s);
	}
	return v;
}

/* weft_poison() of [loc, loc+len): a reader inside a section that holds a
 * pointer into it. */
static void rcu_freed(uint32_t loc, uint32_t len, const struct weft_site *s)
{
	struct weft_rcu_core *r = &M.core->rcu;

	/* the free reads every reader's held pointers: one record of the RCU
	 * state past rd[], so that it is dependent with each rcu_dereference()
	 * of another thread and with the end of a section that held one
	 * (section_end()); not with rd[], which every non-preemptible region
	 * writes (weft_rcu_ctx_edge()): a spinlock's step is no free's */
	if (M.cur >= 0)
		weft_sched_step(WEFT_DEP_READ, loc_of(&r->cb_queued),
				(uint32_t)(sizeof(*r) - offsetof(struct weft_rcu_core, cb_queued)), 0,
				s);
	for (unsigned t = 0; t < rcu_nr_threads(); t++) {
		if ((int)t == M.cur || !in_section(r, t) || !r->bk[t].nr_held)
			continue;
		const struct weft_rcu_book *b = &r->bk[t];
		unsigned n = b->nr_held < WEFT_RCU_MAX_HELD ? b->nr_held : WEFT_RCU_MAX_HELD;
		for (unsigned k = 0; k < n; k++) {
			const struct weft_rcu_held *h = &b->held[k];
			if (h->loc - loc >= len)
				continue;
			struct weft_access other = access_at((int)t, h->step, h->site);
			if (r->rd[t].nesting)
				weft_report2(WEFT_KIND_RCU_FREE_IN_USE, M.world + h->loc, s, &other,
					     "freed while T%u, inside the RCU read-side section it "
					     "entered at step %u, holds it from %s", t, b->lock_step,
					     h->site->what);
			else
				weft_report2(WEFT_KIND_RCU_FREE_IN_USE, M.world + h->loc, s, &other,
					     "freed while T%u, inside a non-preemptible region (an "
					     "RCU read-side section), holds it from %s", t,
					     h->site->what);
			return;
		}
	}
}

static void rcu_thread_end(unsigned tid)
{
	if (!M.core_used || tid >= WEFT_MAX_THREADS)
		return;
	struct weft_rcu_core *r = &M.core->rcu;
	if (!r->rd[tid].nesting)
		return;
	static struct weft_site end_site = { __FILE__, "rcu_thread_end",
					     "thread ends inside an RCU read-side section",
					     __LINE__, WEFT_EV_NOTE, 0, WEFT_SITE_SC };
	struct weft_access other = access_at((int)tid, r->bk[tid].lock_step, r->bk[tid].lock_site);
	weft_report2(WEFT_KIND_RCU_MISUSE, &r->rd[tid], &end_site, &other,
		     "T%u ends inside an RCU read-side section (nesting %u): its grace "
		     "periods never end", tid, r->rd[tid].nesting);
}

/* Thread tid (the current one) entered or left every non-preemptible
 * context (families.h), after the step's own first record (a lock's
 * entry: weft_ctx_preempt_inc_owing()). A record of rd[tid], so that a grace
 * period's snapshot and wait (records of rd[]) are dependent with it; the
 * state only once some family used the core area (before, no grace period
 * has begun and rd[] is zero). */
static struct weft_site ctx_site = { __FILE__, "weft_rcu_ctx_edge",
				     "non-preemptible region (RCU read-side critical section)",
				     __LINE__, WEFT_EV_NOTE, 0, WEFT_SITE_SC };

void weft_rcu_ctx_edge(unsigned tid, bool atomic)
{
	if (tid >= WEFT_MAX_THREADS)
		return;
	struct weft_rcu_core *r = &M.core->rcu;
	uint32_t loc = loc_of(&r->rd[tid]);

	if (atomic) {
		/* not an interrupt's entry: it is its step's first record (the
		 * handler's operation is) */
		if (!(M.irq_threads >> tid & 1))
			weft_sched_step_f(WEFT_DEP_ACQUIRE, loc, sizeof(r->rd[tid]), 0,
					  WEFT_STEP_CTX, &ctx_site);
		return;
	}
	/* the end of a section outside rcu_read_lock() (whose unlock ends it
	 * otherwise): it writes only what a grace period or a dereference of
	 * this section wrote (all zero while the core area is unused), so a
	 * region no grace period waits for and that held no pointer changes
	 * nothing, whatever ran before it */
	bool dropped = false, woke = false;
	if (!r->rd[tid].nesting) {
		struct weft_rcu_book *b = &r->bk[tid];
		if (b->nr_held) {
			b->nr_held = 0;
			dropped = true;
		}
		if (b->watched) {
			b->watched = 0;
			r->rd[tid].gen++;
			wake_gp_waiters(r, tid);
			woke = true;
		}
	}
	/* flagged (WEFT_STEP_CTX): a lock step's RELEASE record that is not
	 * the lock's, and no operation to count; its wake-ups' records only
	 * when it woke, so that an operation's own wake-ups keep their place
	 * after its own record */
	weft_sched_step_f(WEFT_DEP_RELEASE, loc, sizeof(r->rd[tid]), 0, WEFT_STEP_CTX, &ctx_site);
	if (woke)
		weft_wl_woken_step(&ctx_site);
	if (dropped)
		held_dropped(r, tid, &ctx_site);
}

unsigned weft_rcu_read_depth(unsigned tid)
{
	return M.core_used && tid < WEFT_MAX_THREADS ? M.core->rcu.rd[tid].nesting : 0;
}

void weft_rcu_might_sleep(const struct weft_site *s)
{
	if (M.cur < 0 || M.cur >= WEFT_MAX_THREADS || !M.in_exec || !M.core_used ||
	    weft_in_atomic())
		return;   /* other atomic contexts: weft_might_sleep() reports them */
	struct weft_rcu_core *r = &M.core->rcu;
	unsigned t = (unsigned)M.cur;
	if (!r->rd[t].nesting)
		return;
	struct weft_access other = access_at((int)t, r->bk[t].lock_step, r->bk[t].lock_site);
	weft_report2(WEFT_KIND_SLEEP_IN_ATOMIC, &r->rd[t], s, &other,
		     "%s may sleep inside an RCU read-side section (\"Voluntary context "
		     "switch within RCU read-side critical section!\")", s->what);
}

/* ------------------------------------------------------- grace periods */

void weft_synchronize_rcu(const struct weft_site *s)
{
	if (M.cur < 0 || !rcu_slot_ok(s))
		return;
	struct weft_rcu_core *r = rcu();
	unsigned t = (unsigned)M.cur;

	sched_point_at(s, r->rd, sizeof(r->rd), &rcu_sync_class);
	weft_might_sleep(s);
	snapshot(r, &r->gpw[t]);
	gp_wait(r, &r->gpw[t], s);
	r->gpw[t].mask = 0;
}

/* ----------------------------------------------------------- callbacks */

static struct weft_site kfree_site = { __FILE__, "rcu_do_batch",
				       "kfree_rcu(): free after a grace period", __LINE__,
				       WEFT_EV_FREE, 0, WEFT_SITE_SC };

static void invoke(struct weft_rcu_cb *cb)
{
	if (cb->obj)
		weft_kfree_sized(cb->obj, cb->size, &kfree_site);
	else
		cb->func(cb->head);
}

/*
 * The callback kthread: each round, at one scheduling point, retires the
 * callback it ran last (cb_done++, waking rcu_barrier()s) and takes the
 * next, or sleeps idle on an empty queue until call_rcu() wakes it; then
 * it sleeps until that callback's grace period is over and runs it.
 */
static struct weft_site batch_site = { __FILE__, "rcu_do_batch", "rcu_do_batch()", __LINE__,
				       WEFT_EV_RMW, 0, WEFT_SITE_SC };
static struct weft_site gp_site = { __FILE__, "rcu_do_batch",
				    "rcu_do_batch(): wait for the grace period", __LINE__,
				    WEFT_EV_WAIT, 0, WEFT_SITE_SC };
static struct weft_site softirq_site = { __FILE__, "rcu_do_batch",
					"rcu_do_batch(): a callback in softirq context", __LINE__,
					WEFT_EV_CTX, 0, WEFT_SITE_SC };
static struct weft_site spawn_site = { __FILE__, "call_rcu", "spawn(rcu callback kthread)",
				       __LINE__, WEFT_EV_SPAWN, 0, WEFT_SITE_SC };

static void wake_barriers(struct weft_rcu_core *r)
{
	for (unsigned i = 0; i < M.nr_threads; i++) {
		struct wthread *w = &M.th[i];
		if (w->state == T_BLOCKED && w->wait_class == &rcu_barrier_class &&
		    (int32_t)(r->cb_done - r->bk[i].barrier_target) >= 0)
			weft_wl_wake(i, &r->cb_done);
	}
}

static void rcu_cb_kthread(void *world, void *arg)
{
	struct weft_rcu_core *r = rcu();
	uint32_t qloc = loc_of(&r->cb_queued);
	bool ran = false;

	(void)world;
	(void)arg;
	sched_point_at(&batch_site, &r->cb_queued, 3 * sizeof(uint32_t), NULL);
	for (;;) {
		uint32_t old = r->cb_done;
		if (ran) {
			r->cb_done++;
			wake_barriers(r);
			ran = false;
		}
		weft_trace(WEFT_EV_RMW, qloc, old, r->cb_done, &batch_site);
		weft_wl_step(WEFT_DEP_WRITE, qloc, 3 * sizeof(uint32_t), &batch_site);
		shadow_write(qloc, &batch_site);
		if (r->cb_done == r->cb_queued) {
			/* idle until call_rcu(); the re-check is the next step */
			weft_wl_block(&r->cb_queued, &rcu_idle_class, &batch_site);
			M.step++;
			continue;
		}
		struct weft_rcu_cb *cb = &r->cb[r->cb_done % WEFT_RCU_MAX_CBS];
		gp_wait(r, &cb->snap, &gp_site);
		cb->active = false;   /* debug_rcu_head_unqueue() before the call */
		/* in RCU_SOFTIRQ's context (rcu_core_si(), or rcuc/rcuo under
		 * local_bh_disable()): not preemptible, in_softirq(), a sleep is
		 * sleep-in-atomic, a lock is used IN-SOFTIRQ */
		weft_ctx_softirq_enter(&softirq_site);
		invoke(cb);
		weft_ctx_softirq_exit(&softirq_site);
		ran = true;
		sched_point_at(&batch_site, &r->cb_queued, 3 * sizeof(uint32_t), NULL);
	}
}

static void queue_cb(struct rcu_head *head, void (*func)(struct rcu_head *), void *obj,
		     size_t size, const struct weft_site *s)
{
	if (M.cur < 0) {
		if (!in_world(head, sizeof(*head), s))
			return;
		/* setup or an audit: no reader exists, the grace period is over */
		struct weft_rcu_cb cb = { .head = head, .func = func, .obj = obj,
					  .size = (uint32_t)size };
		invoke(&cb);
		return;
	}
	struct weft_rcu_core *r = rcu();
	uint32_t qloc = loc_of(&r->cb_queued);

	sched_point_at(s, &r->cb_queued, 3 * sizeof(uint32_t), NULL);
	/* the grace period the callback waits for starts with a full barrier
	 * on this CPU: a reader that begins after it sees every store made
	 * before call_rcu() (Documentation/RCU/Design/Memory-Ordering/: "Grace
	 * period guarantee"), the unpublishing store above all */
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_fence(WEFT_FENCE_MB);
	uint32_t hloc = thread_loc(head, sizeof(*head), s);
	check_uaf(hloc, s);
	for (uint32_t i = r->cb_done; i != r->cb_queued; i++) {
		const struct weft_rcu_cb *q = &r->cb[i % WEFT_RCU_MAX_CBS];
		if (!q->active || q->head != head)
			continue;
		struct weft_access other = access_at(q->tid, q->step, q->site);
		weft_report2(WEFT_KIND_RCU_MISUSE, head, s, &other,
			     "%s on an rcu_head already queued and not yet invoked "
			     "(ODEBUG: activate active)", s->what);
		return;
	}
	if (r->cb_queued - r->cb_done >= WEFT_RCU_MAX_CBS)
		weft_report(WEFT_KIND_ASSERT, NULL, s, "more than %d RCU callbacks pending",
			    WEFT_RCU_MAX_CBS);
	struct weft_rcu_cb *cb = &r->cb[r->cb_queued % WEFT_RCU_MAX_CBS];
	cb->head = head;
	cb->func = func;
	cb->obj = obj;
	cb->size = (uint32_t)size;
	cb->active = true;
	cb->step = M.step;
	cb->tid = M.cur;
	cb->site = s;
	snapshot(r, &cb->snap);
	uint32_t old = r->cb_queued++;
	weft_trace(WEFT_EV_RMW, qloc, old, r->cb_queued, s);
	weft_sched_step(WEFT_DEP_WRITE, qloc, 3 * sizeof(uint32_t), 0, s);
	/* the snapshot read every reader's section: dependent with each entry
	 * and end of one */
	weft_sched_step(WEFT_DEP_READ, loc_of(r->rd), sizeof(r->rd), 0, s);
	shadow_write(qloc, s);
	if (!r->kthread) {
		int k = weft_sched_spawn(rcu_cb_kthread, NULL, M.cpu_of[M.cur], "rcuc", &spawn_site);
		r->kthread = (uint32_t)(k + 1);
	} else {
		weft_wl_wake_all(&r->cb_queued, s);   /* an idle kthread */
	}
}

void weft_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head),
		   const struct weft_site *s)
{
	queue_cb(head, func, NULL, 0, s);
}

void weft_kfree_rcu(void *obj, size_t size, struct rcu_head *head, const struct weft_site *s)
{
	queue_cb(head, NULL, obj, size, s);
}

void weft_rcu_barrier(const struct weft_site *s)
{
	if (M.cur < 0 || !rcu_slot_ok(s))
		return;
	struct weft_rcu_core *r = rcu();
	uint32_t qloc = loc_of(&r->cb_queued);
	unsigned t = (unsigned)M.cur;

	sched_point_at(s, &r->cb_queued, 3 * sizeof(uint32_t), &rcu_barrier_class);
	weft_might_sleep(s);
	uint32_t target = r->bk[t].barrier_target = r->cb_queued;
	while ((int32_t)(r->cb_done - target) < 0) {
		weft_trace(WEFT_EV_BLOCK, qloc, r->kthread, target, s);
		weft_sched_step(WEFT_DEP_BLOCKED, qloc, 3 * sizeof(uint32_t), 0, s);
		weft_wl_block(&r->cb_done, &rcu_barrier_class, s);
		M.step++;
	}
	weft_trace(WEFT_EV_WAIT, qloc, target, r->cb_done, s);
	weft_sched_step(WEFT_DEP_ACQUIRE, qloc, 3 * sizeof(uint32_t), 0, s);
}

/* ------------------------------------------------------------- kfree */

void weft_kfree_sized(void *obj, size_t size, const struct weft_site *s)
{
	if (!obj)
		return;
	if (M.cur >= 0)
		sched_point_at(s, obj, (unsigned)size, NULL);   /* the free is an operation */
	if (!in_world(obj, size, s))
		return;
	if (weft_is_poisoned(obj)) {
		struct weft_access other = weft_last_write(obj);
		weft_report2(WEFT_KIND_DOUBLE_FREE, obj, s, other.valid ? &other : NULL,
			     "%s: object already freed", s->what);
		return;
	}
	weft_poison(obj, size, s);
}

/* -------------------------------------------------------------- misc */

unsigned weft_nr_cpu_ids(void)
{
	return M.sc && M.sc->nr_cpus ? M.sc->nr_cpus : 1;
}

/* ---------------------------------------------------------- describe */

static bool rcu_describe(uint32_t off, char *buf, size_t n)
{
	uint32_t base = M.core_off + (uint32_t)offsetof(struct weft_core_state, rcu);
	uint32_t o = off - base;

	if (o >= sizeof(struct weft_rcu_core))
		return false;
	if (o < offsetof(struct weft_rcu_core, cb_queued))
		snprintf(buf, n, "RCU read side of T%u", (unsigned)(o / sizeof(struct weft_rcu_rd)));
	else if (o < offsetof(struct weft_rcu_core, nr_readers))
		snprintf(buf, n, "RCU callback queue");
	else if (o < offsetof(struct weft_rcu_core, gpw))
		snprintf(buf, n, "RCU readers");
	else if (o < offsetof(struct weft_rcu_core, cb))
		snprintf(buf, n, "an RCU grace period (synchronize_rcu() of T%u)",
			 (unsigned)((o - offsetof(struct weft_rcu_core, gpw)) /
				    sizeof(struct weft_rcu_snap)));
	else if (o < offsetof(struct weft_rcu_core, bk))
		snprintf(buf, n, "an RCU grace period (callback %u)",
			 (unsigned)((o - offsetof(struct weft_rcu_core, cb)) /
				    sizeof(struct weft_rcu_cb)));
	else
		snprintf(buf, n, "RCU bookkeeping");
	return true;
}

const struct weft_family weft_family_rcu = {
	.name = "rcu",
	.thread_end = rcu_thread_end,
	.freed = rcu_freed,
	.describe = rcu_describe,
};
