/*
 * test_ctx.c - the CPU contexts (<weft/context.h>), checked exhaustively on
 * small models whose every interleaving dfs enumerates:
 *  - a thread with preemption (or interrupts) off holds its CPU: a thread
 *    bound to the same CPU never observes its critical section half done,
 *    while a thread on another CPU does;
 *  - spin_lock_irq*() masks interrupt delivery on its CPU, spin_lock() and
 *    preempt_disable() do not; local_bh_disable() masks a softirq but not a
 *    hard interrupt;
 *  - in_hardirq()/in_softirq()/in_task()/irqs_disabled() tell the truth in
 *    handlers and threads;
 *  - an interrupt allowed on two CPUs is delivered on each in some
 *    interleaving;
 *  - a spawned thread sharing a CPU switches the context machinery on
 *    mid-execution;
 *  - the demos of core/demo/demo_ctx.c are found at their minimal bound
 *    and not below, by random and pct, and their fixes are complete and
 *    silent under dfs bound 2 and random.
 */
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

/* ------------------------------------------------------- the test model */

enum {
	V_PREEMPT_SAME,    /* T0 preempt-off section, T1 on CPU0 */
	V_PREEMPT_OTHER,   /* the same, T1 on CPU1 */
	V_IRQ_PLAIN,       /* T0 spin_lock section, hard irq on CPU0 */
	V_IRQ_MASKED,      /* T0 spin_lock_irq section */
	V_IRQ_PREEMPT,     /* T0 preempt_disable section */
	V_SOFT_BH,         /* T0 local_bh_disable section, softirq on CPU0 */
	V_HARD_BH,         /* the same with a hard irq */
	V_IRQ_TWO_CPUS,    /* an irq allowed on CPU0 and CPU1 */
	V_SPAWN_SHARED,    /* T0 spawns a thread on its own CPU */
	V_MIGRATE,         /* T0 a migratable task, T1 on CPU0 */
};

struct cw {
	unsigned variant;
	spinlock_t l;
	int in_cs;          /* T0 is inside its section */
	int seen_half;      /* another context saw in_cs == 1 */
	int irq_ctx;        /* what the handler saw: bits below */
	int task_ctx;
	int irq_cpu_mask;   /* CPUs the handler ran on (test bookkeeping) */
};

#define CTX_HARD 1
#define CTX_SOFT 2
#define CTX_IRQOFF 4
#define CTX_TASK 8
#define CTX_ATOMIC 16

static int ctx_bits(void)
{
	return (in_hardirq() ? CTX_HARD : 0) | (in_serving_softirq() ? CTX_SOFT : 0) |
	       (irqs_disabled() ? CTX_IRQOFF : 0) | (in_task() ? CTX_TASK : 0) |
	       (in_atomic() ? CTX_ATOMIC : 0);
}

static unsigned cw_now;   /* the variant under test (one scenario object) */

static void cw_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	(void)wl;
	(void)v;
	((struct cw *)w)->variant = cw_now;
}

static void section(struct cw *W)
{
	WRITE_ONCE(W->in_cs, 1);
	WRITE_ONCE(W->in_cs, 0);
}

static void observer(struct cw *W)
{
	if (READ_ONCE(W->in_cs))
		WRITE_ONCE(W->seen_half, 1);
}

static void spawned(void *w, void *arg)
{
	(void)arg;
	observer(w);
}

static void cw_thread(void *w, unsigned tid)
{
	struct cw *W = w;
	unsigned long flags;

	if (tid == 1) {
		observer(W);
		return;
	}
	switch (W->variant) {
	case V_PREEMPT_SAME:
	case V_PREEMPT_OTHER:
	case V_IRQ_PREEMPT:
		preempt_disable();
		section(W);
		preempt_enable();
		break;
	case V_IRQ_PLAIN:
		spin_lock(&W->l);
		section(W);
		W->task_ctx = ctx_bits();   /* own bookkeeping */
		spin_unlock(&W->l);
		break;
	case V_IRQ_MASKED:
		spin_lock_irqsave(&W->l, flags);
		section(W);
		W->task_ctx = ctx_bits();
		spin_unlock_irqrestore(&W->l, flags);
		break;
	case V_SOFT_BH:
	case V_HARD_BH:
		local_bh_disable();
		section(W);
		local_bh_disable();   /* nests */
		local_bh_enable();
		W->task_ctx = ctx_bits();
		local_bh_enable();
		break;
	case V_IRQ_TWO_CPUS:
		WRITE_ONCE(W->in_cs, 0);
		break;
	case V_MIGRATE:
		W->irq_cpu_mask |= 1 << raw_smp_processor_id();
		WRITE_ONCE(W->in_cs, 1);
		W->irq_cpu_mask |= 1 << raw_smp_processor_id();
		WRITE_ONCE(W->in_cs, 0);
		W->irq_cpu_mask |= 1 << raw_smp_processor_id();
		break;
	case V_SPAWN_SHARED: {
		int t = WEFT_THREAD_SPAWN(spawned, NULL, 0);
		preempt_disable();
		section(W);
		preempt_enable();
		WEFT_THREAD_JOIN(t);
		break;
	}
	}
}

static void cw_irq(void *w, unsigned irq)
{
	struct cw *W = w;

	(void)irq;
	W->irq_ctx = ctx_bits();
	W->irq_cpu_mask |= 1 << smp_processor_id();
	observer(W);
}

WEFT_TEST_ONLY_VARIANT(cw, "a thread and an interrupt handler");
static const uint8_t one_cpu[] = { 0, 0 };
static const uint8_t two_cpus[] = { 0, 1 };
static const struct weft_irq hard0[] = { { "hard0", WEFT_HARDIRQ, 1, cw_irq, true } };
static const struct weft_irq soft0[] = { { "soft0", WEFT_SOFTIRQ, 1, cw_irq, true } };
static const struct weft_irq hard01[] = { { "hard01", WEFT_HARDIRQ, 3, cw_irq, true } };

static struct weft_scenario cw_sc =
	WEFT_TEST_UNLISTED("ctx-test", struct cw, 1, 2, 256, WEFT_TEST_HOOKS(cw));

struct outcome {
	uint64_t executions;
	bool complete;
	unsigned seen_half;     /* executions where a half-done section was seen */
	int irq_ctx_or, task_ctx_or, irq_cpus;
	enum weft_kind kind;
};

/* The CPUs the handler or a task ran on (irq_cpu_mask) over the next
 * runs executions of cw_sc under rnd. */
static int cpus_ran_on(struct weft_random *rnd, int runs)
{
	struct weft_exec_result r;
	struct weft_run_opts ro = { .sc = &cw_sc };
	int cpus = 0;

	for (int i = 0; i < runs; i++) {
		weft_execute(&ro, &weft_strategy_random, rnd, &r);
		cpus |= ((const struct cw *)weft_last_world())->irq_cpu_mask;
	}
	return cpus;
}

/* cw_sc runs variant v on nr_cpus CPUs (thread t on cpu_of[t], or on
 * CPU t % nr_cpus with NULL) with the one interrupt irqs, or none. */
static void set_machine(unsigned v, unsigned nr_cpus, unsigned nr_threads, const uint8_t *cpu_of,
			const struct weft_irq *irqs)
{
	cw_now = v;
	cw_sc.nr_cpus = nr_cpus;
	cw_sc.nr_threads = nr_threads;
	cw_sc.cpu_of = cpu_of;
	cw_sc.irqs = irqs;
	cw_sc.nr_irqs = irqs ? 1 : 0;
}

/* Every interleaving (no bound) of variant v with the given machine. */
static struct outcome explore(unsigned v, unsigned nr_cpus, unsigned nr_threads,
			      const uint8_t *cpu_of, const struct weft_irq *irqs)
{
	struct outcome out;
	struct weft_dfs d;
	struct weft_exec_result r;
	struct weft_run_opts o = { .sc = &cw_sc, .variant = 0 };

	memset(&out, 0, sizeof(out));
	set_machine(v, nr_cpus, nr_threads, cpu_of, irqs);
	weft_dfs_init(&d, &cw_sc, ~0u, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		const struct cw *W = weft_last_world();
		if (r.kind != WEFT_KIND_NONE && !out.kind)
			out.kind = r.kind;
		out.seen_half += W->seen_half ? 1u : 0u;
		out.irq_ctx_or |= W->irq_ctx;
		out.task_ctx_or |= W->task_ctx;
		out.irq_cpus |= W->irq_cpu_mask;
	}
	out.executions = d.executions;
	out.complete = d.complete;
	return out;
}

/* ------------------------------------------------------------ the demos */

struct found {
	bool bug;
	enum weft_kind kind;
	unsigned preemptions;
	uint64_t executions;
	bool complete;
};

/* the workload dfs runs (NULL: the scenario's empty one) */
static const uint8_t *demo_wl;
static size_t demo_wl_len;

static struct found run_demo_checks(const char *spec, int strategy, unsigned arg, uint64_t max,
				    unsigned checks)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	struct found f = { 0 };
	struct weft_run_opts o = { .sc = sc, .variant = vi, .checks = checks,
				   .lockdep_persist = true };
	struct weft_exec_result r;
	static struct weft_dfs d;
	struct weft_random rnd;
	struct weft_pct pct;
	const struct weft_strategy_ops *ops;
	void *st;

	if (!sc)
		return f;
	if (strategy == 0) {
		weft_dfs_init(&d, sc, arg, demo_wl, demo_wl_len);
		ops = &weft_strategy_dfs;
		st = &d;
	} else if (strategy == 1) {
		weft_random_init(&rnd, sc, arg, NULL, 0);
		ops = &weft_strategy_random;
		st = &rnd;
	} else {
		weft_pct_init(&pct, sc, 1, arg, NULL, 0);
		ops = &weft_strategy_pct;
		st = &pct;
	}
	while (f.executions < max && weft_execute(&o, ops, st, &r) == 0) {
		f.executions++;
		if (r.kind != WEFT_KIND_NONE) {
			f.bug = true;
			f.kind = r.kind;
			f.preemptions = r.preemptions;
			break;
		}
	}
	if (strategy == 0)
		f.complete = d.complete;
	return f;
}

/* as `weft run` does: lockdep on, its graph kept across the run */
static struct found run_demo(const char *spec, int strategy, unsigned arg, uint64_t max)
{
	weft_lockdep_reset();
	return run_demo_checks(spec, strategy, arg, max, WEFT_CHECKS_DEFAULT);
}

int main(void)
{
	struct outcome o;

	weft_machine_init();

	/* preemption off holds the CPU for threads bound to it, not others */
	o = explore(V_PREEMPT_SAME, 1, 2, one_cpu, NULL);
	CHECK(o.complete && o.seen_half == 0 && !o.kind,
	      "same CPU: %u of %llu executions saw the section half done", o.seen_half,
	      (unsigned long long)o.executions);
	o = explore(V_PREEMPT_OTHER, 2, 2, two_cpus, NULL);
	CHECK(o.complete && o.seen_half > 0, "other CPU: %u of %llu saw it", o.seen_half,
	      (unsigned long long)o.executions);

	/* interrupts: spin_lock and preempt_disable do not mask them */
	o = explore(V_IRQ_PLAIN, 1, 1, NULL, hard0);
	CHECK(o.complete && o.seen_half > 0 && !o.kind, "spin_lock: the irq came inside: %u",
	      o.seen_half);
	CHECK(o.irq_ctx_or == (CTX_HARD | CTX_IRQOFF | CTX_ATOMIC),
	      "a hard handler sees in_hardirq, irqs off, atomic, not in_task: %#x", o.irq_ctx_or);
	CHECK(o.task_ctx_or == (CTX_TASK | CTX_ATOMIC), "a spinlock holder is an atomic task: %#x",
	      o.task_ctx_or);
	o = explore(V_IRQ_PREEMPT, 1, 1, NULL, hard0);
	CHECK(o.complete && o.seen_half > 0, "preempt_disable: the irq came inside: %u",
	      o.seen_half);
	o = explore(V_IRQ_MASKED, 1, 1, NULL, hard0);
	CHECK(o.complete && o.seen_half == 0, "spin_lock_irqsave: never inside: %u of %llu",
	      o.seen_half, (unsigned long long)o.executions);
	CHECK(o.task_ctx_or == (CTX_TASK | CTX_ATOMIC | CTX_IRQOFF),
	      "irqsave holder: irqs_disabled: %#x", o.task_ctx_or);

	/* bottom halves mask a softirq, not a hard irq */
	o = explore(V_SOFT_BH, 1, 1, NULL, soft0);
	CHECK(o.complete && o.seen_half == 0, "local_bh_disable masks a softirq: %u", o.seen_half);
	CHECK(o.irq_ctx_or == (CTX_SOFT | CTX_ATOMIC), "a softirq handler: %#x", o.irq_ctx_or);
	CHECK(o.task_ctx_or == (CTX_TASK | CTX_ATOMIC), "BH disabled is atomic: %#x", o.task_ctx_or);
	o = explore(V_HARD_BH, 1, 1, NULL, hard0);
	CHECK(o.complete && o.seen_half > 0, "a hard irq comes in with BH off: %u", o.seen_half);

	/* an interrupt allowed on two CPUs lands on each in some execution
	 * (the CPU is a model choice: random explores it) */
	{
		struct weft_random rnd;
		set_machine(V_IRQ_TWO_CPUS, 2, 1, NULL, hard01);
		weft_random_init(&rnd, &cw_sc, 5, NULL, 0);
		int cpus = cpus_ran_on(&rnd, 64);
		CHECK(cpus == 3, "delivered on CPUs mask %#x", cpus);
	}

	/* a migratable task resumes on another CPU after some preemption
	 * (a model choice: random explores it); a bound one never moves */
	{
		struct weft_random rnd;
		set_machine(V_MIGRATE, 2, 2, one_cpu, NULL);
		cw_sc.migratable = 1;
		weft_random_init(&rnd, &cw_sc, 3, NULL, 0);
		int cpus = cpus_ran_on(&rnd, 200);
		CHECK(cpus == 3, "a migratable task ran on CPUs %#x", cpus);
		cw_sc.migratable = 0;
		cpus = cpus_ran_on(&rnd, 200);
		CHECK(cpus == 1, "a bound task stays on CPU0: %#x", cpus);
	}

	/* a spawned thread on its parent's CPU: the parent's preempt-off
	 * section holds the CPU against it */
	o = explore(V_SPAWN_SHARED, 1, 1, NULL, NULL);
	CHECK(o.complete && o.seen_half == 0 && !o.kind, "spawned on the same CPU: %u, %s",
	      o.seen_half, weft_kind_name(o.kind));

	/* the demos: found at their minimal bound and not below */
	static const struct {
		const char *spec;
		unsigned bound;
		enum weft_kind kind;
	} bugs[] = {
		{ "demo-irq-lock:irq-unsafe", 0, WEFT_KIND_IRQ_LOCK_INVERSION },
		{ "demo-lockdep:abba", 0, WEFT_KIND_LOCK_ORDER },
		{ "demo-lockdep:double-unlock", 0, WEFT_KIND_BAD_UNLOCK },
		{ "demo-lockdep:error-path", 0, WEFT_KIND_LOCK_HELD_AT_EXIT },
		{ "demo-percpu:bound-racy", 1, WEFT_KIND_LOST_UPDATE },
		{ "demo-percpu-irq:irq-racy", 1, WEFT_KIND_LOST_UPDATE },
		{ "demo-percpu-task:preemptible", 0, WEFT_KIND_PREEMPTIBLE_PERCPU },
		{ "demo-sleep-atomic:under-lock", 0, WEFT_KIND_SLEEP_IN_ATOMIC },
	};
	for (unsigned i = 0; i < sizeof(bugs) / sizeof(bugs[0]); i++) {
		struct found f;
		if (bugs[i].bound > 0) {
			f = run_demo(bugs[i].spec, 0, bugs[i].bound - 1, 1u << 20);
			CHECK(!f.bug && f.complete, "%s clean and complete at bound %u", bugs[i].spec,
			      bugs[i].bound - 1);
		}
		f = run_demo(bugs[i].spec, 0, bugs[i].bound, 1u << 20);
		CHECK(f.bug && f.kind == bugs[i].kind && f.preemptions == bugs[i].bound,
		      "%s: dfs bound %u: %s with %u preemptions", bugs[i].spec, bugs[i].bound,
		      weft_kind_name(f.kind), f.preemptions);
		/* the checks that need no schedule fire on the first execution */
		CHECK(bugs[i].bound > 0 || f.executions == 1, "%s: found on execution %llu",
		      bugs[i].spec, (unsigned long long)f.executions);
		f = run_demo(bugs[i].spec, 1, 1, 100000);
		CHECK(f.bug && f.kind == bugs[i].kind, "%s: random: %s after %llu", bugs[i].spec,
		      weft_kind_name(f.kind), (unsigned long long)f.executions);
		f = run_demo(bugs[i].spec, 2, 2, 100000);
		CHECK(f.bug && f.kind == bugs[i].kind, "%s: pct d2: %s after %llu", bugs[i].spec,
		      weft_kind_name(f.kind), (unsigned long long)f.executions);
	}
	static const char *const fixes[] = {
		"demo-irq-lock:irqsave",      "demo-percpu:this-cpu",      "demo-percpu:preempt-off",
		"demo-percpu-task:preempt-off", "demo-percpu-irq:this-cpu", "demo-sleep-atomic:after-unlock",
		"demo-lockdep:ordered", "demo-lockdep:fixed-error-path", "demo-lockdep-split:ordered",
	};
	for (unsigned i = 0; i < sizeof(fixes) / sizeof(fixes[0]); i++) {
		struct found f = run_demo(fixes[i], 0, 2, 1u << 20);
		CHECK(!f.bug && f.complete, "%s: dfs bound 2 %s, complete %d", fixes[i],
		      weft_kind_name(f.kind), f.complete);
		f = run_demo(fixes[i], 1, 1, 100000);
		CHECK(!f.bug, "%s: random 100k: %s", fixes[i], weft_kind_name(f.kind));
	}

	/* without lockdep, the same bugs need their unlucky schedule */
	{
		struct found f = run_demo_checks("demo-irq-lock:irq-unsafe", 0, 0, 1u << 20, 0);
		CHECK(!f.bug && f.complete, "irq-unsafe without lockdep: clean at bound 0");
		f = run_demo_checks("demo-irq-lock:irq-unsafe", 0, 1, 1u << 20, 0);
		CHECK(f.bug && f.kind == WEFT_KIND_DEADLOCK && f.preemptions == 1,
		      "irq-unsafe without lockdep: the CPU deadlocks at 1 delivery: %s",
		      weft_kind_name(f.kind));
		f = run_demo_checks("demo-lockdep:abba", 0, 0, 1u << 20, 0);
		CHECK(!f.bug, "abba without lockdep: nothing at bound 0");
		/* demo-abba opts out of lockdep: its deadlock stays the finding */
		f = run_demo("demo-abba:abba", 0, 1, 1u << 20);
		CHECK(f.bug && f.kind == WEFT_KIND_DEADLOCK, "demo-abba opts out: %s",
		      weft_kind_name(f.kind));
	}

	/* the HARDIRQ-safe -> HARDIRQ-unsafe order rule (Z12: pc->lock, taken
	 * with interrupts on, nested inside lru_lock, which the end-of-writeback
	 * interrupt takes): reported from the first, serial execution; under
	 * WEFT_CHECK_LOCKDEP alone (a replay file recorded before the rule) the
	 * same search is clean at bound 0 and meets the deadlock at bound 1 */
	{
		/* the workload of its trigger (what `weft run --strategy dfs` runs) */
		static const uint8_t z12_wl[] = { 0x02, 0x01, 0x00, 0x10, 0x00 };
		demo_wl = z12_wl;
		demo_wl_len = sizeof(z12_wl);
		struct found f = run_demo("z12-memcg-lrucare:z12", 0, 0, 1u << 20);
		CHECK(f.bug && f.kind == WEFT_KIND_IRQ_LOCK_INVERSION && f.executions == 1 &&
		      f.preemptions == 0,
		      "z12: irq-safe -> unsafe order on execution %llu: %s, %u preemptions",
		      (unsigned long long)f.executions, weft_kind_name(f.kind), f.preemptions);
		weft_lockdep_reset();
		f = run_demo_checks("z12-memcg-lrucare:z12", 0, 0, 1u << 20, WEFT_CHECK_LOCKDEP);
		CHECK(!f.bug && f.complete, "z12 without the order rule: clean at bound 0: %s",
		      weft_kind_name(f.kind));
		weft_lockdep_reset();
		f = run_demo_checks("z12-memcg-lrucare:z12", 0, 1, 1u << 20, WEFT_CHECK_LOCKDEP);
		CHECK(f.bug && f.kind == WEFT_KIND_DEADLOCK && f.preemptions == 1,
		      "z12 without the order rule: the deadlock at bound 1: %s", weft_kind_name(f.kind));
		f = run_demo("z12-memcg-lrucare:fix", 0, 2, 1u << 20);
		CHECK(!f.bug && f.complete, "z12 fix (pc->lock outside the irq-safe lock): %s",
		      weft_kind_name(f.kind));
		demo_wl = NULL;
		demo_wl_len = 0;
		f = run_demo("z12-memcg-lrucare:fix", 1, 1, 100000);
		CHECK(!f.bug, "z12 fix: random 100k: %s", weft_kind_name(f.kind));
	}

	/* across executions: no single execution of demo-lockdep-split holds
	 * both orders; the persistent graph finds it in the second one that
	 * meets the other order, and the witness reproduces it alone */
	{
		struct found f = run_demo_checks("demo-lockdep-split:split", 0, 2, 1u << 20, 0);
		CHECK(!f.bug, "split without lockdep: clean");
		weft_lockdep_reset();
		unsigned vi;
		const struct weft_scenario *sc = weft_scenario_find("demo-lockdep-split:split", &vi);
		struct weft_run_opts po = { .sc = sc, .variant = vi, .checks = WEFT_CHECKS_DEFAULT,
					    .lockdep_persist = true };
		static const uint8_t ab[] = { 1, 0x00, 0 }, ba[] = { 1, 0x01, 0 };
		struct weft_bytes b;
		struct weft_exec_result r1, r2, r3;
		weft_bytes_init(&b, sc, ab, sizeof(ab));
		weft_execute(&po, &weft_strategy_bytes, &b, &r1);
		weft_bytes_init(&b, sc, ba, sizeof(ba));
		weft_execute(&po, &weft_strategy_bytes, &b, &r2);
		size_t nw;
		const struct weft_lockdep_fact *w = weft_lockdep_last_witness(&nw);
		CHECK(r1.kind == WEFT_KIND_NONE && r2.kind == WEFT_KIND_LOCK_ORDER && nw == 1 &&
		      w[0].type == WEFT_LOCKDEP_FACT_EDGE,
		      "ab then ba: %s then %s, %zu witness facts", weft_kind_name(r1.kind),
		      weft_kind_name(r2.kind), nw);
		struct weft_lockdep_fact seed[WEFT_LOCKDEP_MAX_FACTS];
		memcpy(seed, w, nw * sizeof(*w));
		struct weft_run_opts so = { .sc = sc, .variant = vi, .checks = WEFT_CHECKS_DEFAULT,
					    .lockdep_seed = seed, .nr_lockdep_seed = nw };
		weft_bytes_init(&b, sc, ba, sizeof(ba));
		weft_execute(&so, &weft_strategy_bytes, &b, &r3);
		CHECK(r3.kind == WEFT_KIND_LOCK_ORDER && r3.trace_hash == r2.trace_hash,
		      "ba alone, seeded with the witness: %s, hash %s", weft_kind_name(r3.kind),
		      r3.trace_hash == r2.trace_hash ? "same" : "differs");
		so.nr_lockdep_seed = 0;
		weft_bytes_init(&b, sc, ba, sizeof(ba));
		weft_execute(&so, &weft_strategy_bytes, &b, &r3);
		CHECK(r3.kind == WEFT_KIND_NONE, "ba alone, no seed: %s", weft_kind_name(r3.kind));
		f = run_demo("demo-lockdep-split:split", 1, 1, 1000);
		CHECK(f.bug && f.kind == WEFT_KIND_LOCK_ORDER, "random meets both orders: %s after %llu",
		      weft_kind_name(f.kind), (unsigned long long)f.executions);
	}
	return check_done();
}
