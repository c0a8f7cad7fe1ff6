/*
 * test_dpor_counts.c - partial-order reduction pinned by closed forms.
 *
 * Optimal DPOR runs exactly one execution per Mazurkiewicz trace
 * (Abdulla et al., POPL 2014), so on shapes whose traces can be counted
 * by hand its execution count is that number, exactly:
 *  - N threads writing N distinct locations: 1 trace;
 *  - N threads, each one lock-protected increment of one counter: the
 *    critical sections in any order, N! traces;
 *  - 2 threads x k writes to one location: every interleaving is its own
 *    trace, C(2k, k).
 * Source-DPOR is optimal on these shapes too (no sleep-set-blocked
 * execution); sleep sets alone explore every enabled thread and are
 * pinned at their counts (sleep-set blocked executions included, and the
 * non-redundant ones equal the trace count). Under a preemption bound
 * b, 2 x k writes have sum over r <= b + 2 runs of R(r) interleavings
 * (a switch is free only into the last run: preemptions = runs - 2;
 * R(2m) = 2 C(k-1, m-1)^2, R(2m+1) = 2 C(k-1, m) C(k-1, m-1)), which is
 * also what plain dfs counts. A mutation that drops a backtrack point or
 * adds a redundant one changes one of these numbers.
 */
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

enum shape { INDEP, LOCKED, WRITES2, PRIVSHARED };

static enum shape shape;
static unsigned K;

struct cw {
	int x[WEFT_MAX_THREADS];
	int counter;
	spinlock_t lock;
	int shared;
};

static void cw_thread(void *w, unsigned tid)
{
	struct cw *W = w;

	switch (shape) {
	case INDEP:
		WRITE_ONCE(W->x[tid], 1);
		break;
	case LOCKED:
		spin_lock(&W->lock);
		WRITE_ONCE(W->counter, READ_ONCE(W->counter) + 1);
		spin_unlock(&W->lock);
		break;
	case WRITES2:
		for (unsigned i = 0; i < K; i++)
			WRITE_ONCE(W->shared, (int)(tid * 100 + i));
		break;
	case PRIVSHARED:
		for (unsigned i = 0; i < K; i++)
			WRITE_ONCE(W->x[tid], (int)i);
		WRITE_ONCE(W->shared, (int)tid);
		break;
	}
}

WEFT_TEST_ONLY_VARIANT(cw, "closed form");
static struct weft_scenario cw = {
	.name = "closed-form", .summary = "closed form", .source = "test", .nr_cpus = WEFT_MAX_CPUS,
	.nr_threads = 2, .world_size = sizeof(struct cw), WEFT_TEST_NOP_OP,
	.decision_hint = 4096, .thread = cw_thread, WEFT_TEST_VARIANTS(cw),
};

struct count {
	uint64_t execs, redundant;
	bool complete;
};

static struct count run(enum weft_por m, unsigned bound)
{
	struct weft_dpor *d = weft_dpor_new();
	struct weft_run_opts o = { .sc = &cw };
	struct weft_exec_result r;
	struct weft_dpor_stats st;
	struct count c;

	CHECK(d && weft_dpor_reset(d, &cw, m, bound, WEFT_LOCK_TAS, NULL, 0) == 0, "reset");
	while (weft_execute(&o, &weft_strategy_dpor, d, &r) == 0)
		CHECK(r.kind == WEFT_KIND_NONE, "a report: %s", weft_kind_name(r.kind));
	weft_dpor_get_stats(d, &st);
	c.execs = st.executions;
	c.redundant = st.redundant;
	c.complete = weft_dpor_complete(d);
	CHECK(st.fallbacks == 0, "fallbacks: %llu", (unsigned long long)st.fallbacks);
	weft_dpor_free(d);
	return c;
}

static uint64_t plain_dfs(unsigned bound)
{
	static struct weft_dfs dfs;
	struct weft_run_opts o = { .sc = &cw };
	struct weft_exec_result r;

	weft_dfs_init(&dfs, &cw, bound, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &dfs, &r) == 0)
		;
	CHECK(dfs.complete, "plain dfs incomplete");
	return dfs.executions;
}

static uint64_t binom(unsigned n, unsigned k)
{
	uint64_t r = 1;

	if (k > n)
		return 0;
	for (unsigned i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

static uint64_t fact(unsigned n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

/* Interleavings of 2 x k conflicting ops with at most b preemptions. */
static uint64_t writes2_bounded(unsigned k, unsigned b)
{
	uint64_t n = 0;

	for (unsigned r = 2; r <= b + 2 && r <= 2 * k; r++) {
		unsigned m = r / 2;
		if (r % 2 == 0)
			n += 2 * binom(k - 1, m - 1) * binom(k - 1, m - 1);
		else
			n += 2 * binom(k - 1, m) * binom(k - 1, m - 1);
	}
	return n;
}

static void expect(const char *what, unsigned param, enum weft_por m, unsigned bound,
		   uint64_t execs, uint64_t redundant)
{
	struct count c = run(m, bound);

	CHECK(c.complete, "%s %u %s: incomplete", what, param, weft_por_name(m));
	CHECK(c.execs == execs && c.redundant == redundant,
	      "%s %u, %s, bound %d: %llu executions (%llu redundant), want %llu (%llu)", what,
	      param, weft_por_name(m), bound == WEFT_BOUND_NONE ? -1 : (int)bound,
	      (unsigned long long)c.execs, (unsigned long long)c.redundant,
	      (unsigned long long)execs, (unsigned long long)redundant);
}

int main(void)
{
	weft_machine_init();

	/* N independent writers: one trace */
	shape = INDEP;
	for (unsigned n = 2; n <= 8; n++) {
		cw.nr_threads = n;
		expect("independent writers", n, WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, 1, 0);
		expect("independent writers", n, WEFT_POR_SOURCE, WEFT_BOUND_NONE, 1, 0);
		/* sleep sets alone: 2^(n-1) executions, all but one blocked */
		if (n <= 6)
			expect("independent writers", n, WEFT_POR_SLEEP, WEFT_BOUND_NONE,
			       1ull << (n - 1), (1ull << (n - 1)) - 1);
		for (unsigned b = 0; b <= 2; b++)
			expect("independent writers (bounded)", n, WEFT_POR_SOURCE, b, 1, 0);
	}

	/* N lock-protected increments: N! traces. Every event is inside a
	 * critical section, so every bound has the same N! traces: a thread
	 * preempted inside one only makes the others block. Every algorithm
	 * explores exactly those, once it knows each thread's first op is a
	 * spin_lock (a thread that would block at once is no choice). */
	shape = LOCKED;
	for (unsigned n = 2; n <= 6; n++) {
		cw.nr_threads = n;
		expect("locked increments", n, WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, fact(n), 0);
		expect("locked increments", n, WEFT_POR_SOURCE, WEFT_BOUND_NONE, fact(n), 0);
		expect("locked increments", n, WEFT_POR_SLEEP, WEFT_BOUND_NONE, fact(n), 0);
		for (unsigned b = 0; b <= 3; b++) {
			if (n <= 5 || b <= 1)
				expect("locked increments (bounded)", n, WEFT_POR_SOURCE, b, fact(n), 0);
			if (n <= 4)
				expect("locked increments (bounded)", n, WEFT_POR_SLEEP, b, fact(n), 0);
		}
	}

	/* 2 threads x k writes to one location: C(2k, k) */
	shape = WRITES2;
	cw.nr_threads = 2;
	for (K = 1; K <= 6; K++) {
		uint64_t all = binom(2 * K, K);
		expect("2 x k writes", K, WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, all, 0);
		expect("2 x k writes", K, WEFT_POR_SOURCE, WEFT_BOUND_NONE, all, 0);
		expect("2 x k writes", K, WEFT_POR_SLEEP, WEFT_BOUND_NONE, all, 0);
		for (unsigned b = 0; b <= 3; b++) {
			uint64_t want = writes2_bounded(K, b);
			CHECK(plain_dfs(b) == want, "plain dfs 2 x %u, bound %u: %llu, closed form %llu",
			      K, b, (unsigned long long)plain_dfs(b), (unsigned long long)want);
			expect("2 x k writes (bounded)", K, WEFT_POR_SOURCE, b, want, 0);
			expect("2 x k writes (bounded)", K, WEFT_POR_SLEEP, b, want, 0);
		}
	}
	/* 2 threads x (k private writes, then one shared write): 2 traces.
	 * The bounded search preempts only before the shared write (the
	 * private ones are never justified): 2 executions at bound 0 and
	 * 3 from bound 1 on (one duplicates a trace), whatever k is; plain
	 * dfs places preemptions before every write. */
	shape = PRIVSHARED;
	for (K = 1; K <= 5; K++) {
		expect("private then shared", K, WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, 2, 0);
		expect("private then shared", K, WEFT_POR_SOURCE, WEFT_BOUND_NONE, 2, 0);
		for (unsigned b = 0; b <= 3; b++)
			expect("private then shared (bounded)", K, WEFT_POR_SOURCE, b, b ? 3 : 2, 0);
	}
	return check_done();
}
