/*
 * timer.c - kernel timers and jiffies (<weft/timer.h>), after
 * kernel/time/timer.c: a timer is pending on one CPU's base until that
 * CPU's timer softirq fires it (expire_timers(): detached, the base's
 * running_timer set, the callback called, running_timer cleared) or a
 * deletion detaches it (detach_if_pending()); del_timer_sync() also waits
 * while the base's running_timer is the timer (del_timer_wait_running()),
 * retrying the detach, as the kernel's loop of try_to_del_timer_sync()
 * does; __mod_timer() keeps a timer whose callback runs on the base it
 * runs on.
 *
 * The softirq of CPU c is a machine-made interrupt pseudo-thread
 * ("timer/c", context.c's weft_ctx_softirq_spawn()), made on the first
 * arming on c and raised at every arming: delivered where the strategy
 * chooses, on c, when c's context has interrupts and bottom halves
 * enabled; it fires one timer per delivery (the earliest expiry, then the
 * first armed) and is raised again while timers remain.
 *
 * The bases and jiffies are the machine's (reset per execution); the
 * pending word is the world's (struct timer_list.weft_pending), written by
 * every arming, deletion and firing as a traced read-modify-write, so a
 * timer_pending() that races with them is a real race and a timer on freed
 * memory is seen. Dependence records: base c is the location
 * timer_base[c] of the core area, jiffies is timer_jiffies (core_state.h).
 */
#include <stdio.h>

#include <weft/timer.h>

#include "core_state.h"
#include "families.h"
#include "waiters.h"

static struct timer_base {
	int softirq;                             /* its pseudo-thread, or -1 */
	unsigned n;
	struct timer_list *q[WEFT_TIMERS_MAX];   /* pending, in arming order */
	/* armed by a machine-made thread (a timer callback, a worker) once
	 * every model thread had ended: never fired (a periodic timer would
	 * make the execution endless) */
	bool late[WEFT_TIMERS_MAX];
	/* armed by a machine-made thread while a model thread was runnable:
	 * not due until the machine switches to a model thread (timer_switched) */
	bool held[WEFT_TIMERS_MAX];
	struct timer_list *running;              /* base->running_timer */
} bases[WEFT_EXEC_MAX_CPUS];
static uint64_t bases_used;   /* CPUs whose base the execution touched */
static unsigned long jiffies_now = INITIAL_JIFFIES;
_Static_assert(WEFT_EXEC_MAX_CPUS <= 64, "bases_used is a 64-bit CPU mask");

/* "timer/<cpu>": the softirq pseudo-thread's label */
static char softirq_names[WEFT_EXEC_MAX_CPUS][20];

static void run_timer_softirq(void *world, unsigned cpu);
static const struct weft_irq timer_softirq = {
	.name = "timer", .kind = WEFT_SOFTIRQ, .handler = run_timer_softirq,
};

static uint32_t timer_epoch;   /* the execution the state above is of */

/* A new execution starts with no timer and jiffies at INITIAL_JIFFIES:
 * checked at every entry, since setup (which may call timer_setup() and
 * read jiffies) runs before the families' begin hooks. */
static inline void timer_fresh(void)
{
	if (__builtin_expect(timer_epoch == M.epoch, 1))
		return;
	timer_epoch = M.epoch;
	for (uint64_t m = bases_used; m; m &= m - 1) {
		struct timer_base *b = &bases[__builtin_ctzll(m)];
		b->softirq = -1;
		b->n = 0;
		b->running = NULL;
	}
	bases_used = 0;
	jiffies_now = INITIAL_JIFFIES;
	M.switch_watch = false;
}

/* Weak memory: every operation on a timer takes its base's lock, and the
 * softirq takes it around each callback, so arming and deleting see what a
 * callback that ended wrote, and a callback what its arming CPU wrote
 * before. Deletions and armings acquire every base the execution used (the
 * base a timer last ran on is not kept): at least the kernel's ordering. */
static void bases_acquire(void)
{
	timer_fresh();
	if (__builtin_expect(weft_mem_weak, 0))
		for (uint64_t m = bases_used; m; m &= m - 1)
			weft_mem_observe_lock(&M.core->timer_base[__builtin_ctzll(m)], true);
}

static struct timer_base *base_of(unsigned cpu)
{
	if (!(bases_used >> cpu & 1)) {
		bases_used |= 1ull << cpu;
		bases[cpu].softirq = -1;
		bases[cpu].n = 0;
		bases[cpu].running = NULL;
	}
	return &bases[cpu];
}

static inline uint32_t base_loc(unsigned cpu)
{
	return loc_of(&M.core->timer_base[cpu]);
}

/* The CPU t is pending on (*idx its place there), or -1: the machine's
 * queues, not the world's word, which a model may have scribbled on. */
static int pending_cpu(const struct timer_list *t, unsigned *idx)
{
	for (uint64_t m = bases_used; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);
		for (unsigned i = 0; i < bases[c].n; i++)
			if (bases[c].q[i] == t) {
				*idx = i;
				return (int)c;
			}
	}
	return -1;
}

/* The CPU whose softirq runs t's callback now, or -1. */
static int running_cpu(const struct timer_list *t)
{
	for (uint64_t m = bases_used; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);
		if (bases[c].running == t)
			return (int)c;
	}
	return -1;
}

static void unqueue_at(unsigned cpu, unsigned i, const struct weft_site *s)
{
	struct timer_base *b = &bases[cpu];

	for (unsigned j = i; j + 1 < b->n; j++) {
		b->q[j] = b->q[j + 1];
		b->late[j] = b->late[j + 1];
		b->held[j] = b->held[j + 1];
	}
	b->n--;
	weft_sched_step(WEFT_DEP_WRITE, base_loc(cpu), 1, 0, s);
}

/* The next timer CPU cpu's softirq fires: the earliest expiry, the first
 * armed among equals; never a late or a held one. -1: none. */
static int next_due(const struct timer_base *b)
{
	int best = -1;

	for (unsigned i = 0; i < b->n; i++)
		if (!b->late[i] && !b->held[i] &&
		    (best < 0 || time_before(b->q[i]->expires, b->q[best]->expires)))
			best = (int)i;
	return best;
}

/* t->weft_pending := nw in the running step, traced as a read-modify-write
 * (the kernel's hlist and flags stores under the base lock) */
static void set_pending(struct timer_list *t, uint32_t loc, uint32_t nw, const struct weft_site *s)
{
	uint32_t old = t->weft_pending;

	__atomic_store_n(&t->weft_pending, nw, __ATOMIC_RELAXED);
	weft_trace(WEFT_EV_RMW, loc, old, nw, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, sizeof(t->weft_pending), 0, s);
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
}

/* a read of the pending word that changes nothing (an arming that does
 * nothing, a try that finds the callback running) */
static void read_pending(const struct timer_list *t, uint32_t loc, const struct weft_site *s)
{
	weft_trace(WEFT_EV_READ, loc, t->weft_pending, t->weft_pending, s);
	weft_sched_step(WEFT_DEP_READ, loc, sizeof(t->weft_pending), 0, s);
}

/* A timer's operand: a model's, in its world; or a thread's
 * schedule_timeout() timer, in the core area (the family's own). */
static void timer_in_world(const struct timer_list *t, const struct weft_site *s)
{
	if ((const void *)t >= (const void *)M.core &&
	    (const void *)t < (const void *)(M.core + 1))
		return;
	thread_loc(t, sizeof(*t), s);
}

/* A thread the machine made (an interrupt pseudo-thread, a kworker, RCU's
 * callback kthread), not the model. */
static bool machine_thread(const struct wthread *t)
{
	return thread_irq(t) >= 0 || t->label != NULL;
}

static const struct weft_wait_class sync_class;

/* Model threads not ended (*runnable: and runnable now, or runnable once
 * the callback of timer that runs now returns: a del_timer_sync() of it
 * waits for exactly that, and in the kernel it detaches the re-armed timer
 * long before the next tick). */
static bool model_threads_alive(const struct timer_list *timer, bool *runnable)
{
	bool alive = false;

	*runnable = false;
	for (unsigned i = 0; i < M.nr_threads; i++) {
		const struct wthread *t = &M.th[i];
		if (t->state == T_DONE || machine_thread(t))
			continue;
		alive = true;
		*runnable |= t->state == T_RUNNABLE ||
			     (t->state == T_BLOCKED && t->wait_class == &sync_class &&
			      t->wait_chan == (const void *)timer);
	}
	return alive;
}

void weft_timer_setup(struct timer_list *t, void (*fn)(struct timer_list *), unsigned flags)
{
	static struct weft_site site = { __FILE__, "weft_timer_setup", "timer_setup()", __LINE__,
					 WEFT_EV_WRITE, 0, WEFT_SITE_SC };
	unsigned idx;

	if (!in_world(t, sizeof(*t), &site))
		return;
	timer_fresh();
	if (M.cur >= 0 && pending_cpu(t, &idx) >= 0) {
		/* debugobjects' "init active object" */
		weft_report(WEFT_KIND_BUG_ON, t, &site,
			    "ODEBUG: timer_setup() of a pending timer (object type: timer_list)");
		return;
	}
	weft_timer_init_fields(t, fn, flags);
}

int weft_timer_arm(struct timer_list *t, unsigned long expires, enum weft_timer_arm how,
		   unsigned cpu, const struct weft_site *s)
{
	timer_fresh();
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, t, s,
			    "%s from setup or an audit: arm timers from a model thread", s->what);
		return 0;
	}
	if (how == WEFT_TIMER_ADD_ON && weft_ctx_cpu_bad(cpu, s->what, s))
		return 0;
	sched_point_at(s, &t->weft_pending, sizeof(t->weft_pending), NULL);
	return weft_timer_arm_step(t, expires, how, cpu, s);
}

/* weft_timer_arm() in the caller's step (a model thread's): after the
 * scheduling point of a primitive that arms a timer as part of itself */
int weft_timer_arm_step(struct timer_list *t, unsigned long expires, unsigned how, unsigned cpu,
			const struct weft_site *s)
{
	unsigned nr_cpus = M.sc->nr_cpus ? M.sc->nr_cpus : 1, idx = 0;

	timer_in_world(t, s);
	uint32_t loc = loc_of(&t->weft_pending);
	check_uaf(loc, s);
	weft_core();   /* the freed hook checks frees for pending timers */
	bases_acquire();
	int from = pending_cpu(t, &idx);
	uint32_t word = t->weft_pending;

	if ((word & WEFT_TIMER_SHUTDOWN) || (how == WEFT_TIMER_MOD_PENDING && from < 0) ||
	    (how == WEFT_TIMER_REDUCE && from >= 0 && !time_before(expires, t->expires))) {
		read_pending(t, loc, s);
		return from >= 0;
	}
	if ((how == WEFT_TIMER_ADD || how == WEFT_TIMER_ADD_ON) && from >= 0) {
		weft_report(WEFT_KIND_BUG_ON, t, s, "%s of a pending timer: BUG_ON(timer_pending())",
			    how == WEFT_TIMER_ADD ? "add_timer()" : "add_timer_on()");
		return 0;
	}
	unsigned to = how == WEFT_TIMER_ADD_ON ? cpu % nr_cpus : M.cpu_of[M.cur];
	int runs_on = running_cpu(t);
	if (runs_on >= 0 && how != WEFT_TIMER_ADD_ON)
		to = (unsigned)runs_on;   /* never two runs of one callback at once */
	struct timer_base *b = base_of(to);
	if (from >= 0)
		unqueue_at((unsigned)from, idx, s);
	if (b->n == WEFT_TIMERS_MAX) {
		weft_report(WEFT_KIND_ASSERT, t, s, "more than %d timers pending on CPU%u",
			    WEFT_TIMERS_MAX, to);
		return 0;
	}
	/* Armed by a thread the machine made (a periodic timer re-arming
	 * itself, a chain of timers, delayed work re-queueing itself from its
	 * worker): while a model thread is runnable, or waits in
	 * del_timer_sync() for this callback, it waits for the machine to run
	 * one, so that it cannot fire again and again with no thread moving -
	 * virtual time passes for the threads too. With every model
	 * thread ended it never fires. */
	bool model_runnable = false;
	bool by_machine = machine_thread(&M.th[M.cur]);
	bool late = by_machine && !model_threads_alive(t, &model_runnable);
	bool held = by_machine && !late && model_runnable;
	t->expires = expires;
	b->q[b->n] = t;
	b->late[b->n] = late;
	b->held[b->n] = held;
	b->n++;
	set_pending(t, loc, (word & WEFT_TIMER_SHUTDOWN) | (to + 1), s);
	weft_sched_step(WEFT_DEP_WRITE, base_loc(to), 1, 0, s);
	/* the arming releases the base's lock, the firing takes it: the
	 * callback sees what the arming CPU wrote before (weak memory) */
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_unlock(&M.core->timer_base[to], s);
	if (late)
		return from >= 0;
	if (held)
		M.switch_watch = true;
	if (b->softirq < 0) {
		if (!softirq_names[to][0])
			snprintf(softirq_names[to], sizeof(softirq_names[to]), "timer/%u", to);
		b->softirq = weft_ctx_softirq_spawn(to, &timer_softirq, softirq_names[to], !held, s);
	} else if (!held) {
		weft_ctx_softirq_raise((unsigned)b->softirq);
	}
	return from >= 0;
}

static int sync_owner(const void *chan)
{
	int c = running_cpu(chan);

	return c < 0 ? -1 : bases[c].softirq;
}

static bool sync_busy(const void *chan, unsigned tid)
{
	(void)tid;
	return running_cpu(chan) >= 0;
}

/* del_timer_sync() waits for the running callback: a spin in the kernel
 * (del_timer_wait_running(), !PREEMPT_RT) */
static const struct weft_wait_class sync_class = {
	.name = "del_timer_sync", .sleeps = false, .owner = sync_owner, .busy = sync_busy,
};

int weft_timer_del(struct timer_list *t, enum weft_timer_del how, const struct weft_site *s)
{
	bool sync = how == WEFT_TIMER_DEL_SYNC || how == WEFT_TIMER_SHUTDOWN_SYNC;
	bool shutdown = how == WEFT_TIMER_SHUTDOWN_ASYNC || how == WEFT_TIMER_SHUTDOWN_SYNC;
	unsigned idx = 0;

	timer_fresh();
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, t, s,
			    "%s from setup or an audit: delete timers from a model thread", s->what);
		return 0;
	}
	sched_point_at(s, &t->weft_pending, sizeof(t->weft_pending), sync ? &sync_class : NULL);
	timer_in_world(t, s);
	uint32_t loc = loc_of(&t->weft_pending);
	check_uaf(loc, s);
	if (sync && M.th[M.cur].in_irq == 1 && !(t->flags & TIMER_IRQSAFE))
		weft_warn2(WEFT_KIND_WARN_ON, t, s, NULL,
			   "%s in a hard interrupt handler of a timer without TIMER_IRQSAFE",
			   s->what);
	for (;;) {
		bases_acquire();
		int runs_on = running_cpu(t);
		if (how == WEFT_TIMER_TRY_SYNC && runs_on >= 0) {
			read_pending(t, loc, s);
			return -1;
		}
		int from = pending_cpu(t, &idx);
		if (from >= 0)
			unqueue_at((unsigned)from, idx, s);
		set_pending(t, loc,
			    (t->weft_pending & WEFT_TIMER_SHUTDOWN) | (shutdown ? WEFT_TIMER_SHUTDOWN : 0),
			    s);
		if (!sync || runs_on < 0)
			return from >= 0;
		if (bases[runs_on].softirq == M.cur) {
			weft_report(WEFT_KIND_DEADLOCK, t, s,
				    "%s of a timer from its own callback: it waits for itself",
				    s->what);
			return 0;
		}
		weft_trace(WEFT_EV_BLOCK, loc, t->weft_pending, (uint64_t)runs_on, s);
		weft_sched_step(WEFT_DEP_BLOCKED, base_loc((unsigned)runs_on), 1, 0, s);
		weft_wl_block(t, &sync_class, s);
		M.step++;
		/* the callback ended, and may have re-armed t: detach again */
	}
}

/* del_timer() in the caller's step (a model thread's, after the
 * scheduling point of a primitive that deletes a timer as part of itself):
 * true if t was pending. */
bool weft_timer_del_step(struct timer_list *t, const struct weft_site *s)
{
	unsigned idx = 0;

	timer_fresh();
	timer_in_world(t, s);
	uint32_t loc = loc_of(&t->weft_pending);
	check_uaf(loc, s);
	int from = pending_cpu(t, &idx);
	if (from < 0)
		return false;
	unqueue_at((unsigned)from, idx, s);
	set_pending(t, loc, t->weft_pending & WEFT_TIMER_SHUTDOWN, s);
	return true;
}

static struct weft_site fire_site = { __FILE__, "expire_timers", "expire_timers(): fire",
				      __LINE__, WEFT_EV_RMW, 0, WEFT_SITE_SC };
static struct weft_site fired_site = { __FILE__, "expire_timers", "expire_timers(): done",
				       __LINE__, WEFT_EV_WRITE, 0, WEFT_SITE_SC };
/* the base lock's release after a callback (__run_timers() takes the lock
 * again once call_timer_fn() returns); not sequentially consistent, so
 * that weak memory orders by it */
static struct weft_site base_unlock_site = { __FILE__, "expire_timers",
	"expire_timers(): base->lock after the callback", __LINE__, WEFT_EV_UNLOCK, 0, 0 };

/* One delivery of CPU cpu's timer softirq: fires its next due timer. */
static void run_timer_softirq(void *world, unsigned cpu)
{
	struct timer_base *b = &bases[cpu];
	int i = next_due(b);

	(void)world;
	if (i < 0)
		return;
	struct timer_list *t = b->q[i];
	uint32_t loc = loc_of(&t->weft_pending);
	check_uaf(loc, &fire_site);   /* freed with the timer pending */
	unqueue_at(cpu, (unsigned)i, &fire_site);
	b->running = t;
	if (time_after(t->expires, jiffies_now)) {
		jiffies_now = t->expires;
		weft_sched_step(WEFT_DEP_WRITE, loc_of(&M.core->timer_jiffies), 1, 0, &fire_site);
	}
	set_pending(t, loc, t->weft_pending & WEFT_TIMER_SHUTDOWN, &fire_site);
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_observe_lock(&M.core->timer_base[cpu], true);   /* __run_timers() */
	void (*fn)(struct timer_list *) = t->function;
	if (fn)
		fn(t);
	b->running = NULL;
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_unlock(&M.core->timer_base[cpu], &base_unlock_site);
	weft_sched_step(WEFT_DEP_WRITE, base_loc(cpu), 1, 0, &fired_site);
	weft_wl_wake_all(t, &fired_site);   /* del_timer_sync() waiters */
	if (next_due(b) >= 0)
		weft_ctx_softirq_raise((unsigned)b->softirq);
}

/* ------------------------------------------------- schedule_timeout() */

static struct weft_site timeout_site = { __FILE__, "process_timeout",
					 "process_timeout(): wake_up_process()", __LINE__,
					 WEFT_EV_WAKE, 0, WEFT_SITE_SC };

/* process_timeout(): the sleeper's timer wakes it */
static void process_timeout(struct timer_list *t)
{
	weft_wq_wake_process((unsigned)(t - M.core->sleep_timer), &timeout_site);
}

/* schedule_timeout() (kernel/time/sleep_timeout.c): a timer of the
 * thread's own (in the core area) that wakes it, schedule(), the timer
 * deleted; the jiffies left. With the task TASK_RUNNING it does not
 * sleep. */
long weft_schedule_timeout(long timeout, const struct weft_site *s)
{
	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		weft_schedule(s);
		return timeout;
	}
	timer_fresh();
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "%s from setup or an audit", s->what);
		return 0;
	}
	if (timeout < 0) {   /* the kernel prints the value and does not sleep */
		weft_warn2(WEFT_KIND_WARN_ON, NULL, s, NULL,
			   "schedule_timeout: wrong timeout value %ld", timeout);
		weft_set_current_state(TASK_RUNNING, s);
		return 0;
	}
	if ((unsigned)M.cur >= WEFT_SLEEP_TIMERS) {
		weft_report(WEFT_KIND_LIMIT, NULL, s,
			    "%s in T%d: timed sleeps are modelled for the first %u threads",
			    s->what, M.cur, WEFT_SLEEP_TIMERS);
		return 0;
	}
	struct timer_list *t = &weft_core()->sleep_timer[M.cur];
	unsigned long expire = jiffies_now + (unsigned long)timeout;
	t->function = process_timeout;   /* the machine's own timer */
	weft_timer_arm(t, expire, WEFT_TIMER_MOD, 0, s);
	weft_schedule(s);
	weft_timer_del(t, WEFT_TIMER_DEL_SYNC, s);
	long left = (long)(expire - jiffies_now);
	return left < 0 ? 0 : left;
}

unsigned long weft_jiffies(void)
{
	static struct weft_site site = { __FILE__, "weft_jiffies", "jiffies", __LINE__,
					 WEFT_EV_READ, 0, WEFT_SITE_SC };

	if (!M.sc)
		return INITIAL_JIFFIES;
	timer_fresh();
	if (M.cur >= 0)
		weft_sched_step(WEFT_DEP_READ, loc_of(&M.core->timer_jiffies), 1, 0, &site);
	return jiffies_now;
}

/* A model thread runs: the held timers are due again. */
static void timer_switched(unsigned next)
{
	if (machine_thread(&M.th[next]))
		return;
	M.switch_watch = false;
	timer_fresh();
	for (uint64_t m = bases_used; m; m &= m - 1) {
		struct timer_base *b = &bases[__builtin_ctzll(m)];
		bool any = false;
		for (unsigned i = 0; i < b->n; i++) {
			any |= b->held[i];
			b->held[i] = false;
		}
		if (any && b->softirq >= 0)
			weft_ctx_softirq_raise((unsigned)b->softirq);
	}
}

/* debugobjects' "free active object": a timer freed while pending */
static void timer_freed(uint32_t loc, uint32_t len, const struct weft_site *s)
{
	timer_fresh();
	for (uint64_t m = bases_used; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);
		for (unsigned i = 0; i < bases[c].n; i++) {
			uint32_t tl = loc_of(bases[c].q[i]);
			if (tl == WEFT_NO_LOC || tl < loc || tl - loc >= len)
				continue;
			weft_report(WEFT_KIND_BAD_FREE, bases[c].q[i], s,
				    "ODEBUG: free active object: a timer_list pending on CPU%u "
				    "(del_timer_sync() it first)", c);
			return;
		}
	}
}

static bool timer_describe(uint32_t off, char *buf, size_t n)
{
	if (off >= M.core_off + offsetof(struct weft_core_state, timer_base) &&
	    off < M.core_off + offsetof(struct weft_core_state, timer_base) + WEFT_EXEC_MAX_CPUS) {
		snprintf(buf, n, "CPU%u timer base",
			 (unsigned)(off - M.core_off - offsetof(struct weft_core_state, timer_base)));
		return true;
	}
	if (off == M.core_off + offsetof(struct weft_core_state, timer_jiffies)) {
		snprintf(buf, n, "jiffies");
		return true;
	}
	uint32_t st = M.core_off + (uint32_t)offsetof(struct weft_core_state, sleep_timer);
	if (off >= st && off < st + sizeof(M.core->sleep_timer)) {
		snprintf(buf, n, "T%u's schedule_timeout() timer",
			 (unsigned)((off - st) / sizeof(struct timer_list)));
		return true;
	}
	return false;
}

/* The dependence audit (dep_audit.c): each used base's pending timers and
 * the one running, and jiffies: the state their core bytes stand for in
 * the records (0: no timer, jiffies as at the start). */
static unsigned timer_audit_state(struct weft_audit_state *out, unsigned cap)
{
	unsigned k = 0;

	if (timer_epoch != M.epoch || !cap)
		return 0;   /* not touched in this execution: as at its start */
	out[k++] = (struct weft_audit_state){ loc_of(&M.core->timer_jiffies),
					      jiffies_now - INITIAL_JIFFIES };
	for (uint64_t m = bases_used; m && k < cap; m &= m - 1) {
		unsigned cpu = (unsigned)__builtin_ctzll(m);
		const struct timer_base *b = &bases[cpu];
		uint64_t h = b->running ? weft_audit_mix(0, (uintptr_t)b->running) : 0;
		for (unsigned i = 0; i < b->n; i++)
			h = weft_audit_mix(h, (uintptr_t)b->q[i]);
		out[k++] = (struct weft_audit_state){ base_loc(cpu), h };
	}
	return k;
}

const struct weft_family weft_family_timer = {
	.name = "timer",
	.audit_state = timer_audit_state,
	.freed = timer_freed,
	.switched = timer_switched,
	.describe = timer_describe,
};
