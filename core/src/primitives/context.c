/*
 * context.c - the contexts of the fake CPUs (<weft/context.h>): the
 * kernel's preempt_count split into its parts per thread, the stack of
 * non-preemptible contexts on each CPU, interrupt handlers as
 * pseudo-threads, and the CONFIG_DEBUG_PREEMPT / DEBUG_ATOMIC_SLEEP checks.
 *
 * Who may run: a CPU's stack (M.cpu_stack) holds its non-preemptible
 * contexts, innermost last. Only the top may run on that CPU; every other
 * thread bound to it is in M.excluded, and eligible() = runnable minus
 * excluded is what decisions offer. A pending interrupt pseudo-thread is
 * excluded unless some CPU it may hit can take it now (its top, if any,
 * has interrupts — and for a softirq bottom halves — enabled and is not
 * itself a hard interrupt handler).
 *
 * Cost: with one thread per CPU and no interrupts (ctx_active false) a
 * spinlock pays two stores for its preempt count (sched.h); nothing here
 * runs.
 *
 * Interrupt pseudo-threads (M.irq_threads) are numbered after the
 * scenario's threads. Idle (not raised) they are T_IDLE: neither runnable
 * nor blocked, so an execution ends without them. Raised, they are
 * runnable; chosen, they pick their CPU among those that can take them (a
 * model choice if several), enter it, run the handler to completion and go
 * idle again (or stay pending if raised meanwhile).
 *
 * Why who-may-run lives here and not in machine/: which context excludes
 * which (a hard handler masks interrupts, bh masks softirqs, a preempt
 * count pins its CPU) is preempt_count's semantics, this family's; the
 * machine only reads the result (M.excluded, eligible()) and calls in
 * through the hooks (weft_family_context below). And the interrupt and
 * migration sites (weft_ctx_run_irq, weft_ctx_migrate) hash this file's
 * basename: moved to a file of another name they would change the trace of
 * every execution with an interrupt or a migration, and of the stored
 * replays of them (a second context.c in machine/ would break unique
 * basenames).
 */
#include <string.h>

#include <weft/kernel.h>

#include "families.h"

/* The RCU read-side depth of a thread (rcu.c); none without RCU. */
__attribute__((weak)) unsigned weft_rcu_read_depth(unsigned tid);
__attribute__((weak)) unsigned weft_rcu_read_depth(unsigned tid)
{
	(void)tid;
	return 0;
}

static inline bool atomic_ctx(const struct wthread *t)
{
	return t->preempt || t->irq_off || t->bh || t->in_irq;
}

static uint8_t flags_of(const struct wthread *t)
{
	return (uint8_t)((t->preempt ? WEFT_EVF_NOPREEMPT : 0) | (t->irq_off ? WEFT_EVF_IRQOFF : 0) |
			 (t->in_irq == 1 ? WEFT_EVF_HARDIRQ : 0) |
			 (t->bh || t->in_irq == 2 ? WEFT_EVF_SOFTIRQ : 0));
}

static unsigned nr_cpus(void)
{
	return M.sc->nr_cpus ? M.sc->nr_cpus : 1;
}

static int cpu_top(unsigned c)
{
	return M.cpu_depth[c] ? M.cpu_stack[c][M.cpu_depth[c] - 1] : -1;
}

/* Machine-made softirq pseudo-threads (weft_ctx_softirq_spawn(): timer.c's
 * "timer/N"): irq1 is WEFT_IRQ1_DYNAMIC, the descriptor is dyn_irq[tid],
 * and the pseudo-thread is pinned to the CPU it was made for. */
static const struct weft_irq *dyn_irq[WEFT_EXEC_MAX_THREADS];

static const struct weft_irq *irq_of(unsigned tid)
{
	const struct wthread *t = &M.th[tid];

	return t->irq1 == WEFT_IRQ1_DYNAMIC ? dyn_irq[tid] : &M.sc->irqs[thread_irq(t)];
}

/* CPUs irq thread tid may be delivered on now. */
static uint64_t deliverable(unsigned tid)
{
	const struct weft_irq *q = irq_of(tid);
	uint64_t mask, ok = 0;

	if (M.th[tid].irq1 == WEFT_IRQ1_DYNAMIC) {
		mask = 1ull << M.cpu_of[tid];
	} else {
		uint32_t all = nr_cpus() >= 32 ? ~0u : (1u << nr_cpus()) - 1;
		mask = q->cpus ? q->cpus & all : all;
	}
	for (uint64_t m = mask; m; m &= m - 1) {
		unsigned c = (unsigned)__builtin_ctzll(m);
		int top = cpu_top(c);
		if (top < 0) {
			ok |= 1ull << c;
			continue;
		}
		const struct wthread *t = &M.th[top];
		if (t->irq_off || t->in_irq == 1)
			continue;
		if (q->kind == WEFT_SOFTIRQ && (t->bh || t->in_irq))
			continue;
		ok |= 1ull << c;
	}
	return ok;
}

static void recompute(void)
{
	uint64_t ex = 0;

	for (unsigned c = 0; c < nr_cpus(); c++) {
		int top = cpu_top(c);
		if (top >= 0)
			ex |= M.cpu_threads[c] & ~tbit((unsigned)top);
	}
	for (uint64_t m = M.irq_threads & M.runnable; m; m &= m - 1) {
		unsigned i = lowest(m);
		if (!M.th[i].started && !deliverable(i))
			ex |= tbit(i);
	}
	M.excluded = ex;
}

static void cpu_push(unsigned c, unsigned tid)
{
	if (M.cpu_depth[c] >= sizeof(M.cpu_stack[c])) {
		weft_report(WEFT_KIND_ASSERT, NULL, M.th[tid].last_site,
			    "CPU%u: contexts nested deeper than %zu", c, sizeof(M.cpu_stack[c]));
		return;
	}
	M.cpu_stack[c][M.cpu_depth[c]++] = (int8_t)tid;
	M.th[tid].on_cpu_stack = true;
}

static void cpu_remove(unsigned c, unsigned tid)
{
	uint8_t d = M.cpu_depth[c];

	for (uint8_t i = 0; i < d; i++) {
		if (M.cpu_stack[c][i] != (int8_t)tid)
			continue;
		memmove(&M.cpu_stack[c][i], &M.cpu_stack[c][i + 1], (size_t)(d - i - 1));
		M.cpu_depth[c]--;
		break;
	}
	M.th[tid].on_cpu_stack = false;
}

void weft_ctx_update(struct wthread *t, unsigned tid)
{
	uint8_t before = t->ctx_flags;

	t->ctx_flags = flags_of(t);
	if (!before != !t->ctx_flags && (int)tid == M.cur && t->state != T_DONE)
		weft_rcu_ctx_edge(tid, t->ctx_flags != 0);
	if (!M.ctx_active)
		return;
	bool hold = atomic_ctx(t) && t->state != T_DONE;
	if (hold && !t->on_cpu_stack)
		cpu_push(M.cpu_of[tid], tid);
	else if (!hold && t->on_cpu_stack)
		cpu_remove(M.cpu_of[tid], tid);
	recompute();
}

static void activate(void)
{
	M.ctx_active = true;
	for (unsigned i = 0; i < M.nr_threads; i++) {
		struct wthread *t = &M.th[i];
		if (t->state != T_DONE && atomic_ctx(t) && !t->on_cpu_stack)
			cpu_push(M.cpu_of[i], i);
	}
	recompute();
}

static void weft_ctx_reset(void)
{
	const struct weft_scenario *sc = M.sc;
	bool shared = false;

	for (unsigned c = 0, n = nr_cpus(); c < n; c++) {
		M.cpu_threads[c] = 0;
		M.cpu_depth[c] = 0;
	}
	M.excluded = 0;
	M.irq_threads = 0;
	M.ctx_active = false;
	for (unsigned i = 0; i < M.nr_threads; i++) {
		struct wthread *t = &M.th[i];
		t->ctx_words[0] = t->ctx_words[1] = 0;
		if (i < sc->nr_threads) {
			unsigned c = M.cpu_of[i];
			shared |= (M.cpu_threads[c] != 0);
			M.cpu_threads[c] |= tbit(i);
		}
	}
	/* interrupt pseudo-threads: numbered after the scenario's threads */
	for (unsigned k = 0; k < sc->nr_irqs && sc->nr_threads + k < M.nr_threads; k++) {
		unsigned i = sc->nr_threads + k;
		struct wthread *t = &M.th[i];
		t->irq1 = (uint8_t)(k + 1);
		t->daemon = true;
		M.irq_threads |= tbit(i);
		if (sc->irqs[k].raised) {
			t->state = T_RUNNABLE;
			M.runnable |= tbit(i);
		} else {
			t->state = T_IDLE;
			M.runnable &= ~tbit(i);
		}
	}
	if (shared || sc->nr_irqs || sc->migratable)
		activate();
}

static void weft_ctx_thread_added(unsigned tid)
{
	struct wthread *t = &M.th[tid];
	unsigned c = M.cpu_of[tid];
	bool shared = M.cpu_threads[c] != 0;

	t->ctx_words[0] = t->ctx_words[1] = 0;
	M.cpu_threads[c] |= tbit(tid);
	if (M.ctx_active)
		recompute();
	else if (shared)
		activate();
}

/* ------------------------------------------------------------ interrupts */

static struct weft_site irq_site = { __FILE__, "weft_ctx_run_irq", "interrupt", __LINE__,
				     WEFT_EV_IRQ_ENTER, 0, WEFT_SITE_SC };
static struct weft_site irq_exit_site = { __FILE__, "weft_ctx_run_irq", "interrupt return",
					  __LINE__, WEFT_EV_IRQ_EXIT, 0, WEFT_SITE_SC };
static struct weft_site irq_cpu_site = { __FILE__, "weft_ctx_run_irq", "interrupt CPU",
					 __LINE__, WEFT_EV_CHOICE, 0, WEFT_SITE_SC };

static void weft_ctx_run_irq(unsigned tid)
{
	struct wthread *t = &M.th[tid];
	const struct weft_irq *q = irq_of(tid);
	uint64_t d = deliverable(tid);
	unsigned n = (unsigned)__builtin_popcountll(d), c;
	bool dynamic = t->irq1 == WEFT_IRQ1_DYNAMIC;
	unsigned irq = dynamic ? M.cpu_of[tid] : (unsigned)thread_irq(t);

	if (!d) {   /* chosen while excluded: cannot happen (recompute) */
		weft_report(WEFT_KIND_ASSERT, NULL, &irq_site,
			    "interrupt %s delivered where no CPU can take it", q->name);
		return;
	}
	c = (unsigned)__builtin_ctzll(d);
	if (n > 1) {
		uint32_t k = weft_choose(n, &irq_cpu_site);
		for (uint64_t m = d; m; m &= m - 1, k--)
			if (!k) {
				c = (unsigned)__builtin_ctzll(m);
				break;
			}
	}
	M.cpu_of[tid] = (uint8_t)c;
	M.cpu_threads[c] |= tbit(tid);
	t->in_irq = q->kind == WEFT_SOFTIRQ ? 2 : 1;
	t->irq_off = q->kind == WEFT_SOFTIRQ ? 0 : 1;   /* hard handlers run masked */
	weft_ctx_update(t, tid);
	weft_trace(WEFT_EV_IRQ_ENTER, WEFT_NO_LOC, (uint64_t)thread_irq(t), c, &irq_site);
	q->handler(M.world, irq);
	weft_lockdep_exit(tid);
	if (t->preempt || t->bh || (q->kind == WEFT_HARDIRQ && t->irq_off != 1) ||
	    (q->kind == WEFT_SOFTIRQ && t->irq_off))
		weft_report(WEFT_KIND_BUG_ON, NULL, t->last_site ? t->last_site : &irq_exit_site,
			    "interrupt handler %s returned with preempt_count changed "
			    "(preempt %u, bh %u, irqs %s)", q->name, t->preempt, t->bh,
			    t->irq_off ? "off" : "on");
	weft_trace(WEFT_EV_IRQ_EXIT, WEFT_NO_LOC, (uint64_t)thread_irq(t), c, &irq_exit_site);
	t->in_irq = 0;
	t->irq_off = 0;
	M.cpu_threads[c] &= ~tbit(tid);
	weft_ctx_update(t, tid);
}

void weft_irq_raise(unsigned irq, const struct weft_site *s)
{
	if (M.cur >= 0)
		sched_point(s);
	if (irq >= M.sc->nr_irqs) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "raise of interrupt %u: the scenario declares %u",
			    irq, M.sc->nr_irqs);
		return;
	}
	unsigned tid = M.sc->nr_threads + irq;
	weft_trace(WEFT_EV_CTX, WEFT_NO_LOC, irq, tid, s);
	weft_sched_step(WEFT_DEP_SPAWN, WEFT_NO_LOC, 0, tid, s);
	weft_ctx_softirq_raise(tid);
}

/* A softirq pseudo-thread of the machine's own, pinned to CPU cpu, pending
 * at once if raise (else idle): the primitive family that makes it
 * (timer.c) raises it with weft_ctx_softirq_raise(); desc->handler gets
 * the CPU for its irq argument. -1 if the execution has no thread left. */
int weft_ctx_softirq_spawn(unsigned cpu, const struct weft_irq *desc, const char *label,
			   bool raise, const struct weft_site *s)
{
	int tid = weft_sched_spawn(NULL, NULL, cpu, label, s);

	if (tid < 0)
		return -1;
	struct wthread *t = &M.th[tid];
	/* an interrupt pseudo-thread is on its CPU only while it runs */
	M.cpu_threads[M.cpu_of[tid]] &= ~tbit((unsigned)tid);
	dyn_irq[tid] = desc;
	t->irq1 = WEFT_IRQ1_DYNAMIC;
	t->daemon = true;
	M.irq_threads |= tbit((unsigned)tid);
	if (!raise) {
		t->state = T_IDLE;
		M.runnable &= ~tbit((unsigned)tid);
	}
	if (!M.ctx_active)
		activate();
	else
		recompute();
	return tid;
}

/* Interrupt pseudo-thread tid pending again: runnable if idle, delivered
 * once more after it returns if running; no scheduling point of its own
 * (weft_irq_raise()'s effect, and how timer.c raises its softirqs). */
void weft_ctx_softirq_raise(unsigned tid)
{
	struct wthread *t = &M.th[tid];

	if (t->state == T_IDLE) {
		t->state = T_RUNNABLE;
		M.runnable |= tbit(tid);
		recompute();
	} else if (t->started) {
		t->irq_again = true;
	}
}

/* ------------------------------------------------------------ migration */

static struct weft_site migrate_site = { __FILE__, "weft_ctx_migrate", "migrate", __LINE__,
					 WEFT_EV_CTX, 0, WEFT_SITE_SC };

/* Whether moving T tid off its CPU c can change what may happen, besides
 * the CPU a later operation names (a timer armed, a per-CPU access): c
 * holds another thread that has not ended (while either holds c the other
 * cannot run), or an interrupt is pending that may hit c but not every
 * CPU (a timer's softirq, on its arming CPU only), which on c could only
 * interrupt T tid and elsewhere runs beside it. */
static bool migration_matters(unsigned tid)
{
	unsigned c = M.cpu_of[tid], n = nr_cpus();
	uint64_t all = n >= 64 ? ~0ull : (1ull << n) - 1;

	for (uint64_t m = M.cpu_threads[c] & ~tbit(tid); m; m &= m - 1)
		if (M.th[lowest(m)].state != T_DONE)
			return true;
	for (uint64_t m = M.irq_threads & M.runnable; m; m &= m - 1) {
		unsigned i = lowest(m);
		uint64_t hits;
		if (M.th[i].irq1 == WEFT_IRQ1_DYNAMIC)
			hits = 1ull << M.cpu_of[i];
		else
			hits = irq_of(i)->cpus ? irq_of(i)->cpus & all : all;
		if ((hits >> c & 1) && hits != all)
			return true;
	}
	return false;
}

/* The resumed hook: T tid, preempted while migratable, runs again (it may
 * resume on any CPU), or goes on at a preemption point (it may be moved
 * where that matters: migration_matters()). */
static void weft_ctx_migrate(unsigned tid)
{
	struct wthread *t = &M.th[tid];
	unsigned n = nr_cpus(), from = M.cpu_of[tid];
	bool stays = t->may_migrate == WEFT_MIGRATE_STAYS;

	t->may_migrate = 0;
	if (n < 2 || (t->preempt || t->irq_off || t->bh || t->in_irq))
		return;
	if (stays && !migration_matters(tid))
		return;
	/* 0 keeps it where it was; k moves it k CPUs on */
	unsigned to = (from + weft_choose(n, &migrate_site)) % n;
	if (to == from)
		return;
	M.cpu_threads[from] &= ~tbit(tid);
	M.cpu_threads[to] |= tbit(tid);
	M.cpu_of[tid] = (uint8_t)to;
	if (__builtin_expect(weft_mem_weak, 0))
		weft_mem_migrate(from, to);
	weft_trace(WEFT_EV_CTX, WEFT_NO_LOC, from, to, &migrate_site);
	if (M.ctx_active)
		recompute();
}

/* ------------------------------------------------------- the primitives */

static void ctx_event(const struct weft_site *s, uint8_t before)
{
	struct wthread *t = &M.th[M.cur];

	weft_ctx_update(t, (unsigned)M.cur);
	weft_trace(WEFT_EV_CTX, WEFT_NO_LOC, before, t->ctx_flags, s);
}

/* Interrupts or bottom halves came back on in the current context: the
 * locks it still holds are held with them on (lockdep-lite's usage, as
 * trace_hardirqs_on() marks them). */
static inline void irqs_came_on(const struct weft_site *s)
{
	if (weft_lockdep_held_reads)
		weft_lockdep_irqs_on(s);
}

void weft_preempt_disable(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	uint8_t before = M.th[M.cur].ctx_flags;
	M.th[M.cur].preempt++;
	ctx_event(s, before);
}

void weft_preempt_enable(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	struct wthread *t = &M.th[M.cur];
	uint8_t before = t->ctx_flags;
	if (!t->preempt) {
		weft_report(WEFT_KIND_BUG_ON, NULL, s, "preempt_enable() with preemption enabled "
			    "(preempt_count underflow)");
		return;
	}
	t->preempt--;
	ctx_event(s, before);
}

void weft_local_irq_disable(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	uint8_t before = M.th[M.cur].ctx_flags;
	M.th[M.cur].irq_off = 1;
	ctx_event(s, before);
}

void weft_local_irq_enable(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	struct wthread *t = &M.th[M.cur];
	uint8_t before = t->ctx_flags;
	if (t->in_irq == 1) {
		weft_report(WEFT_KIND_WARN_ON, NULL, s, "local_irq_enable() in a hard interrupt handler");
		return;
	}
	t->irq_off = 0;
	ctx_event(s, before);
	irqs_came_on(s);
}

unsigned long weft_local_irq_save(const struct weft_site *s)
{
	if (M.cur < 0)
		return 0;
	unsigned long f = M.th[M.cur].irq_off;
	weft_local_irq_disable(s);
	return f;
}

void weft_local_irq_restore(unsigned long flags, const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	struct wthread *t = &M.th[M.cur];
	uint8_t before = t->ctx_flags;
	t->irq_off = flags ? 1 : 0;
	ctx_event(s, before);
	if (!flags)
		irqs_came_on(s);
}

void weft_local_bh_disable(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	uint8_t before = M.th[M.cur].ctx_flags;
	M.th[M.cur].bh++;
	ctx_event(s, before);
}

void weft_local_bh_enable(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	struct wthread *t = &M.th[M.cur];
	uint8_t before = t->ctx_flags;
	if (!t->bh) {
		weft_report(WEFT_KIND_BUG_ON, NULL, s, "local_bh_enable() with bottom halves enabled");
		return;
	}
	t->bh--;
	ctx_event(s, before);
	if (!t->bh)
		irqs_came_on(s);
}

/* An RCU callback's context (rcu.c): a softirq being served, the
 * kernel's RCU_SOFTIRQ (rcu_core_si() -> rcu_do_batch(); rcuc and rcuo
 * kthreads call it under local_bh_disable()). */
void weft_ctx_softirq_enter(const struct weft_site *s)
{
	struct wthread *t = &M.th[M.cur];
	uint8_t before = t->ctx_flags;

	t->in_irq = 2;
	ctx_event(s, before);
}

void weft_ctx_softirq_exit(const struct weft_site *s)
{
	struct wthread *t = &M.th[M.cur];
	uint8_t before = t->ctx_flags;

	if (t->preempt || t->bh || t->irq_off)
		weft_report(WEFT_KIND_BUG_ON, NULL, t->last_site ? t->last_site : s,
			    "%s returned with preempt_count changed (preempt %u, bh %u, irqs %s)",
			    s->what, t->preempt, t->bh, t->irq_off ? "off" : "on");
	t->in_irq = 0;
	ctx_event(s, before);
}

/* The spinlock forms (spinlock.c, rwlock.c): no event of their own, so a
 * lock site traces as it always did. Turning interrupts (bottom halves)
 * back on marks the locks still held; the unlock's site (the thread's
 * last) names it. */
void weft_ctx_irq_off(void)
{
	struct wthread *t = &M.th[M.cur];

	t->irq_off = 1;
	weft_ctx_update(t, (unsigned)M.cur);
}

void weft_ctx_irq_set(unsigned long on)
{
	struct wthread *t = &M.th[M.cur];

	t->irq_off = on ? 1 : 0;
	weft_ctx_update(t, (unsigned)M.cur);
	if (!on)
		irqs_came_on(t->last_site);
}

void weft_ctx_bh_add(int d)
{
	struct wthread *t = &M.th[M.cur];

	if (d < 0 && !t->bh)
		return;
	t->bh = (uint8_t)(t->bh + d);
	weft_ctx_update(t, (unsigned)M.cur);
	if (d < 0 && !t->bh)
		irqs_came_on(t->last_site);
}

bool weft_in_hardirq(void)
{
	return M.cur >= 0 && M.th[M.cur].in_irq == 1;
}

bool weft_in_softirq(void)
{
	return M.cur >= 0 && (M.th[M.cur].in_irq == 2 || M.th[M.cur].bh);
}

bool weft_in_serving_softirq(void)
{
	return M.cur >= 0 && M.th[M.cur].in_irq == 2;
}

void weft_assert_preemption_disabled(const struct weft_site *s)
{
	/* lockdep_assert_preemption_disabled(): preempt_count() (preemption,
	 * bottom halves, interrupt context) 0 and interrupts enabled */
	if (M.cur >= 0 && !atomic_ctx(&M.th[M.cur]))
		weft_report(WEFT_KIND_WARN_ON, NULL, s,
			    "lockdep_assert_preemption_disabled() in %s: called with preemption "
			    "enabled", s->what);
}

bool weft_ctx_cpu_bad(unsigned cpu, const char *call, const struct weft_site *s)
{
	unsigned n = nr_cpus();

	if (__builtin_expect(cpu < n, 1))
		return false;
	weft_report(WEFT_KIND_ASSERT, NULL, s,
		    "%s on CPU %d: the scenario has %u CPU%s (0-%u); the kernel indexes "
		    "per-CPU data with the number unchecked", call, (int)cpu, n, n == 1 ? "" : "s",
		    n - 1);
	return true;
}

bool weft_in_atomic(void)
{
	return M.cur >= 0 && atomic_ctx(&M.th[M.cur]);
}

bool weft_irqs_disabled(void)
{
	return M.cur >= 0 && (M.th[M.cur].irq_off || M.th[M.cur].in_irq == 1);
}

unsigned weft_preempt_count(void)
{
	if (M.cur < 0)
		return 0;
	const struct wthread *t = &M.th[M.cur];
	/* the kernel's layout: preempt bits, softirq << 8, hardirq << 16 */
	return t->preempt | (unsigned)(t->bh + (t->in_irq == 2)) << 8 |
	       (unsigned)(t->in_irq == 1) << 16;
}

unsigned weft_raw_smp_processor_id(void)
{
	return M.cur < 0 ? 0 : M.cpu_of[M.cur];
}

static void percpu_report(const char *what, const struct weft_site *s)
{
	weft_report(WEFT_KIND_PREEMPTIBLE_PERCPU, NULL, s,
		    "BUG: using %s in preemptible code: T%d may migrate (preempt_count 0, "
		    "interrupts on)", what, M.cur);
}

void weft_check_percpu(const struct weft_site *s)
{
	if (M.cur < 0 || !(M.sc->migratable >> M.cur & 1) || atomic_ctx(&M.th[M.cur]))
		return;
	percpu_report(s->what, s);
}

/* smp_processor_id() of kernel.h: the CPU, checked as debug_smp_processor_id()
 * does (lib/smp_processor_id.c: fine if preemption or interrupts are off or
 * the task is bound to one CPU). */
unsigned weft_smp_processor_id(void)
{
	if (M.cur < 0)
		return 0;
	if (__builtin_expect(M.sc->migratable >> M.cur & 1, 0) && !atomic_ctx(&M.th[M.cur]))
		percpu_report("smp_processor_id()", M.th[M.cur].last_site);
	return M.cpu_of[M.cur];
}

void weft_might_sleep(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	weft_rcu_might_sleep(s);   /* an RCU reader: names its rcu_read_lock() */
	const struct wthread *t = &M.th[M.cur];
	unsigned rcu = weft_rcu_read_depth((unsigned)M.cur);

	if (!atomic_ctx(t) && !rcu)
		return;
	weft_report(WEFT_KIND_SLEEP_IN_ATOMIC, NULL, s,
		    "BUG: sleeping function called from invalid context: in_atomic() %d, "
		    "irqs_disabled() %d, %s, RCU nesting %u, preempt_count 0x%x",
		    atomic_ctx(t), t->irq_off || t->in_irq == 1,
		    t->in_irq == 1 ? "hard interrupt" : t->in_irq == 2 ? "softirq" : "task",
		    rcu, weft_preempt_count());
}

/* --------------------------------------------------- the machine's hooks */

static void ctx_left_cpu(unsigned tid)
{
	weft_ctx_update(&M.th[tid], tid);
}

const struct weft_family weft_family_context = {
	.name = "context",
	.begin = weft_ctx_reset,
	.spawned = weft_ctx_thread_added,
	.resumed = weft_ctx_migrate,
	.deliver_irq = weft_ctx_run_irq,
	.left_cpu = ctx_left_cpu,
};
