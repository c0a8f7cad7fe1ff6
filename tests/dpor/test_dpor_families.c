/*
 * test_dpor_families.c - partial-order reduction on the registered models
 * (sleeping locks, wait queues, RCU, xarray, refcounts, spawned threads:
 * steps with several dependence records, wake-ups), checked against plain
 * dfs, which needs no dependence at all (WEFT_DPOR_FAM_VERBOSE=1: a line
 * per variant).
 *
 * For every clean variant of every registered scenario, with its
 * scenario's trigger workload, at preemption bound B (default 1; env
 * WEFT_DPOR_FAM_BOUND): plain dfs and source-DPOR each run to the end (or
 * a cap). Where both complete, every final world state plain dfs reaches
 * must be reached by source-DPOR too (a reduction that drops a dependence
 * loses states); where DPOR does not certify, it must say why, and only
 * for a reason it has (contexts, weft_choose(), a cap). A variant that
 * reports a bug under either is skipped (clean variants only).
 *
 * Also steps of several dependence records, each in a model of its own
 * (multi_record()): a free that stores and poisons in one step against a
 * use of the object (its first or last word, or a user asleep in the sleep
 * set), a free and an allocation that race through their second records
 * only, pthread_cond_wait()'s release of the mutex against another locker,
 * and a wake-up after a free: source- and optimal DPOR, unbounded and at
 * the bound, reach every final state plain dfs reaches (the poison of the
 * object included) and every report.
 *
 * Also the refusals, each on a model of its own:
 *  - a weft_choose() of 3 values: plain dfs runs every value (exactly 3 x
 *    the executions of the same model choosing among 1, at bounds 0-2,
 *    and finds the bug behind value 2 at bound 0); so does every
 *    reduction, which branches on the value as on a decision: it finds
 *    the bug, and certifies the clean model with exactly 3 x its
 *    executions of 1 value and the final states plain dfs reaches;
 *  - two threads sharing a CPU, and a child shut out of its CPU by its
 *    parent's spin for a lock: every reduction certifies and reaches
 *    plain dfs's final states, unbounded and at bounds 0-2. Every clean
 *    variant whose threads share a CPU is also checked unbounded against
 *    plain dfs (shared_unbounded()); z11-lru-drain-all:fix (a kworker
 *    beside its CPU's thread) is the one that lost final states at bound 1
 *    while sleep sets were on (dpor.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/pthread.h>
#include <weft/strategy.h>

#include "check.h"
#include "hash_set.h"
#include "../model_driver.h"

#define CAP 20000

/* ---------------------------------------------------- final-state sets */

static uint64_t fnv(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

struct outcome {
	uint64_t execs;
	bool complete, bug;
	bool shared_cpu;   /* the reduction met threads sharing a CPU */
	const char *why;
};

static struct weft_dfs dfs;

/* more of the final state than the world's bytes (multi_record(): whether
 * the object ends poisoned) */
static uint64_t (*final_extra)(void);

static uint64_t final_hash(const struct weft_scenario *sc)
{
	uint64_t h = fnv(weft_last_world(), sc->world_size);

	return final_extra ? (h ^ final_extra()) * 1099511628211ull : h;
}

/* How many of want's final states got lacks. */
static size_t states_missed(const struct hash_set *want, const struct hash_set *got)
{
	size_t n = 0;

	for (size_t i = 0; i < want->n; i++)
		n += !hash_set_has(got, want->h[i]);
	return n;
}

/* One execution of a search: counted, its final state added to s (if
 * any); false at a bug (the search stops there). */
static bool counted(struct outcome *out, const struct weft_exec_result *r,
		    const struct weft_scenario *sc, struct hash_set *s)
{
	out->execs++;
	if (r->kind != WEFT_KIND_NONE) {
		out->bug = true;
		return false;
	}
	if (s)
		hash_set_add(s, final_hash(sc));
	return true;
}

/* The checks of the families' and buggy variants' runs: none, or with
 * WEFT_DPOR_FAM_CHECKS=default weft run's (fair scheduling among them:
 * the bounded reductions charge an unfair choice as plain dfs does). */
static unsigned fam_checks;

static struct outcome run_dfs(const struct weft_scenario *sc, unsigned vi, unsigned bound,
			      const uint8_t *wl, size_t wl_len, struct hash_set *s)
{
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = fam_checks, .no_trace_hash = true };
	struct weft_exec_result r;
	struct outcome out = { 0 };

	weft_dfs_init(&dfs, sc, bound, wl, wl_len);
	while (out.execs < CAP && weft_execute(&o, &weft_strategy_dfs, &dfs, &r) == 0 &&
	       counted(&out, &r, sc, s))
		;
	out.complete = dfs.complete;
	return out;
}

static struct outcome run_dpor(const struct weft_scenario *sc, unsigned vi, enum weft_por m,
			       unsigned bound, const uint8_t *wl, size_t wl_len, struct hash_set *s)
{
	struct weft_dpor *d = weft_dpor_new();
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = fam_checks, .no_trace_hash = true };
	struct weft_exec_result r;
	struct outcome out = { 0 };
	static char why[256];

	CHECK(d && weft_dpor_reset(d, sc, m, bound, sc->default_lock, wl, wl_len) == 0, "reset");
	weft_dpor_set_caps(d, 0, 0, CAP);
	while (weft_execute(&o, &weft_strategy_dpor, d, &r) == 0 && counted(&out, &r, sc, s))
		;
	out.complete = weft_dpor_complete(d);
	struct weft_dpor_stats st;
	weft_dpor_get_stats(d, &st);
	out.shared_cpu = st.cpu_restarts != 0;
	snprintf(why, sizeof(why), "%s", weft_dpor_why_incomplete(d) ? weft_dpor_why_incomplete(d)
								   : "");
	out.why = why;
	weft_dpor_free(d);
	return out;
}

/* ------------------------------------------------------ refusal models */

enum shape { CHOICE3, CHOICE3_CLEAN, CHOICE1, SHARED_CPU, SHARED_EXCL };
static enum shape shape;

struct rw {
	int x[WEFT_MAX_THREADS];
	int shared;
	spinlock_t l;
	int seen[4];
};

/* SHARED_EXCL's child, on its parent's CPU 0 */
static void excl_child(void *w, void *arg)
{
	(void)arg;
	WRITE_ONCE(((struct rw *)w)->x[0], 7);
}

static void rw_thread(void *w, unsigned tid)
{
	struct rw *W = w;

	switch (shape) {
	case CHOICE3:
	case CHOICE3_CLEAN:
	case CHOICE1: {
		uint32_t v = tid ? 0 : WEFT_CHOOSE(shape == CHOICE1 ? 1 : 3, "test choice");
		WRITE_ONCE(W->x[tid], (int)v);
		WRITE_ONCE(W->shared, (int)tid);
		BUG_ON(shape == CHOICE3 && v == 2 && READ_ONCE(W->x[tid]) == 2);
		break;
	}
	case SHARED_CPU:
		WRITE_ONCE(W->shared, (int)tid);
		break;
	case SHARED_EXCL:
		/* T0 spawns a child onto its own CPU, then spins for the lock
		 * T1 (CPU 1) may hold: while it spins the child is shut out,
		 * so the child's store comes before T1's second load only if
		 * it ran before T0's attempt (an order of the exclusion, which
		 * no access shows). (tests/dpor/test_dpor_random.c's pinned
		 * shared-CPU program, without its third thread: a reversal by
		 * data races alone misses an order of it.) */
		if (tid == 0) {
			WRITE_ONCE(W->seen[0], READ_ONCE(W->x[2]));
			WEFT_THREAD_SPAWN(excl_child, NULL, 0);
			spin_lock(&W->l);
			WRITE_ONCE(W->seen[1], READ_ONCE(W->x[0]));
			WRITE_ONCE(W->x[2], 20);
			spin_unlock(&W->l);
		} else {
			WRITE_ONCE(W->seen[2], READ_ONCE(W->x[0]));
			WRITE_ONCE(W->x[2], 10);
			spin_lock(&W->l);
			WRITE_ONCE(W->seen[3], READ_ONCE(W->x[0]));
			WRITE_ONCE(W->x[2], 30);
			spin_unlock(&W->l);
		}
		break;
	}
}

static void rw_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	(void)v;
	(void)wl;
	spin_lock_init(&((struct rw *)w)->l);
}

WEFT_TEST_ONLY_VARIANT(rw, "refusal");
static const uint8_t one_cpu[] = { 0, 0 };
static struct weft_scenario rw = {
	.name = "refusal", .summary = "refusal", .source = "test", .nr_cpus = WEFT_MAX_CPUS,
	.nr_threads = 2, .world_size = sizeof(struct rw), WEFT_TEST_NOP_OP,
	.decision_hint = 4096, .setup = rw_setup, .thread = rw_thread, WEFT_TEST_VARIANTS(rw),
};

static void refusals(void)
{
	struct outcome a, b;

	/* weft_choose(): plain dfs enumerates, DPOR refuses */
	shape = CHOICE1;
	a = run_dfs(&rw, 0, 0, NULL, 0, NULL);
	shape = CHOICE3;
	b = run_dfs(&rw, 0, 0, NULL, 0, NULL);
	CHECK(b.bug, "plain dfs missed the bug behind weft_choose() value 2");
	b = run_dfs(&rw, 0, 1, NULL, 0, NULL);
	CHECK(b.bug, "plain dfs (bound 1) missed the bug behind weft_choose() value 2");
	for (enum weft_por m = WEFT_POR_SLEEP; m <= WEFT_POR_OPTIMAL; m++)
		for (unsigned k = 0; k <= 2; k++) {
			unsigned bound = m == WEFT_POR_OPTIMAL ? WEFT_BOUND_NONE : k;
			b = run_dpor(&rw, 0, m, bound, NULL, 0, NULL);
			CHECK(b.bug, "%s (bound %u) missed the bug behind weft_choose() value 2 "
			      "(why: '%s')", weft_por_name(m), k, b.why);
		}
	/* without the bug: 3 values, exactly 3 x the executions of 1 value
	 * (the choice costs no preemption and changes only data) */
	for (unsigned k = 0; k <= 2; k++) {
		shape = CHOICE1;
		a = run_dfs(&rw, 0, k, NULL, 0, NULL);
		shape = CHOICE3_CLEAN;
		struct outcome c = run_dfs(&rw, 0, k, NULL, 0, NULL);
		CHECK(a.complete && c.complete && !a.bug && !c.bug && c.execs == 3 * a.execs,
		      "bound %u: weft_choose(3) runs %llu executions, weft_choose(1) %llu", k,
		      (unsigned long long)c.execs, (unsigned long long)a.execs);
		if (k == 1)
			printf("weft_choose(): plain dfs bound 1 runs %llu executions with 1 value, "
			       "%llu with 3\n", (unsigned long long)a.execs,
			       (unsigned long long)c.execs);
	}
	/* the reductions branch on the value: each value's subtree is the
	 * same as the 1-value model's, and together they reach every final
	 * state plain dfs does */
	for (enum weft_por m = WEFT_POR_SLEEP; m <= WEFT_POR_OPTIMAL; m++)
		for (unsigned k = 0; k <= 3; k++) {
			unsigned bound = k == 3 ? WEFT_BOUND_NONE : k;
			if (!weft_por_sound(m, bound))
				continue;
			struct hash_set sp = { 0 }, sd = { 0 };
			shape = CHOICE1;
			a = run_dpor(&rw, 0, m == WEFT_POR_OPTIMAL ? WEFT_POR_SOURCE : m, bound, NULL,
				     0, NULL);
			shape = CHOICE3_CLEAN;
			struct outcome c = run_dpor(&rw, 0, m, bound, NULL, 0, &sd);
			struct outcome p = run_dfs(&rw, 0, bound, NULL, 0, &sp);
			/* (optimal starts over as source-DPOR after the execution
			 * that chose: one more) */
			CHECK(a.complete && c.complete && p.complete && !c.bug && !p.bug &&
			      c.execs == 3 * a.execs + (m == WEFT_POR_OPTIMAL),
			      "%s bound %d: weft_choose(3) runs %llu executions, weft_choose(1) %llu "
			      "(why: '%s')", weft_por_name(m), bound == WEFT_BOUND_NONE ? -1 : (int)bound,
			      (unsigned long long)c.execs, (unsigned long long)a.execs, c.why);
			size_t missed = states_missed(&sp, &sd);
			CHECK(sp.n >= 3 && !missed,
			      "%s bound %d: %zu of plain dfs's %zu final states not reached",
			      weft_por_name(m), bound == WEFT_BOUND_NONE ? -1 : (int)bound, missed, sp.n);
			free(sp.h);
			free(sd.h);
		}

	/* a shared CPU: every reduction certifies, with plain dfs's final
	 * states, unbounded and under a bound */
	shape = SHARED_CPU;
	rw.cpu_of = one_cpu;
	rw.nr_cpus = 1;
	struct hash_set sp = { 0 };
	a = run_dfs(&rw, 0, WEFT_BOUND_NONE, NULL, 0, &sp);
	CHECK(a.complete && sp.n == 2, "plain dfs: threads sharing a CPU, complete, 2 final states "
	      "(%zu)", sp.n);
	for (enum weft_por m = WEFT_POR_SLEEP; m <= WEFT_POR_OPTIMAL; m++) {
		struct hash_set sd = { 0 };
		b = run_dpor(&rw, 0, m, WEFT_BOUND_NONE, NULL, 0, &sd);
		size_t missed = states_missed(&sp, &sd);
		CHECK(b.complete && !missed, "%s, threads sharing a CPU: %s, %zu of %zu final states "
		      "missed (why: '%s')", weft_por_name(m), b.complete ? "certified" : "not certified",
		      missed, sp.n, b.why);
		free(sd.h);
		if (m == WEFT_POR_OPTIMAL)
			continue;
		for (unsigned k = 0; k <= 2; k++) {
			struct hash_set sk = { 0 }, sb = { 0 };
			a = run_dfs(&rw, 0, k, NULL, 0, &sk);
			b = run_dpor(&rw, 0, m, k, NULL, 0, &sb);
			missed = states_missed(&sk, &sb);
			CHECK(a.complete && b.complete && b.shared_cpu && !missed,
			      "%s bound %u, threads sharing a CPU: %s, %zu of %zu final states "
			      "missed (why: '%s')", weft_por_name(m), k,
			      b.complete ? "certified" : "not certified", missed, sk.n, b.why);
			free(sk.h);
			free(sb.h);
		}
	}
	free(sp.h);

	/* a child shut out of its CPU by its parent's spin for a lock: its
	 * store reaches T1's load only if it ran before that spin, and every
	 * reduction must find that order, unbounded and within 0-2 preemptions
	 * (at bound 1 it needs the bounded search's CPU evidence,
	 * dpor_bound.c) */
	static const uint8_t two_cpus[] = { 0, 1 };
	shape = SHARED_EXCL;
	rw.cpu_of = two_cpus;
	rw.nr_cpus = 2;
	for (enum weft_lock_model lk = WEFT_LOCK_TAS; lk <= WEFT_LOCK_TICKET; lk++) {
		rw.default_lock = lk;
		struct hash_set se = { 0 };
		a = run_dfs(&rw, 0, WEFT_BOUND_NONE, NULL, 0, &se);
		CHECK(a.complete && se.n >= 3, "plain dfs, a child shut out: complete, %zu final states",
		      se.n);
		for (enum weft_por m = WEFT_POR_SLEEP; m <= WEFT_POR_OPTIMAL; m++) {
			struct hash_set sd = { 0 };
			b = run_dpor(&rw, 0, m, WEFT_BOUND_NONE, NULL, 0, &sd);
			size_t missed = states_missed(&se, &sd);
			CHECK(b.complete && !missed, "%s, lock %s, a child shut out of its CPU: %s, %zu "
			      "of %zu final states missed (why: '%s')", weft_por_name(m),
			      lk == WEFT_LOCK_TAS ? "tas" : "ticket",
			      b.complete ? "certified" : "not certified", missed, se.n, b.why);
			free(sd.h);
		}
		free(se.h);
		/* and within 0, 1, 2 preemptions */
		for (unsigned k = 0; k <= 2; k++) {
			struct hash_set sk = { 0 };
			a = run_dfs(&rw, 0, k, NULL, 0, &sk);
			for (enum weft_por m = WEFT_POR_SLEEP; m <= WEFT_POR_SOURCE; m++) {
				struct hash_set sd = { 0 };
				b = run_dpor(&rw, 0, m, k, NULL, 0, &sd);
				size_t missed = states_missed(&sk, &sd);
				CHECK(a.complete && b.complete && !missed, "%s bound %u, lock %s, a child "
				      "shut out of its CPU: %s, %zu of %zu final states missed (why: "
				      "'%s')", weft_por_name(m), k, lk == WEFT_LOCK_TAS ? "tas" : "ticket",
				      b.complete ? "certified" : "not certified", missed, sk.n, b.why);
				free(sd.h);
			}
			free(sk.h);
		}
	}
	rw.default_lock = WEFT_LOCK_TAS;
}

/* ------------------------------------------------- multi-record steps */

enum mr_shape { MR_USE_FREE, MR_USE_LAST_FREE, MR_SLEEPER_FREE, MR_ALLOC_FREE, MR_ALLOC_LATE,
		MR_CONDVAR, MR_WAKE_FREE, MR__N };
static const char *const mr_names[MR__N] = { "use-free", "use-last-word-free", "sleeper-free",
					     "alloc-free", "alloc-late", "condvar", "wake-free" };
static const unsigned mr_threads[MR__N] = { 2, 2, 3, 3, 3, 3, 2 };
static const bool mr_buggy[MR__N] = { true, true, true, false, false, false, true };
static enum mr_shape mr_shape;

struct mr {
	int x[3];
	int state, astate;
	int body[2];
	weft_pthread_mutex_t m;
	weft_pthread_cond_t cv;
	wait_queue_head_t wq;
	int fc, fq;
};

static const struct mr *mr_world;

static uint64_t mr_poisoned(void)
{
	return weft_is_poisoned(((const struct mr *)weft_last_world())->body) ? 2 : 1;
}

static void mr_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	struct mr *W = w;

	(void)v;
	(void)wl;
	mr_world = W;
	weft_pthread_mutex_init(&W->m, NULL);
	weft_pthread_cond_init(&W->cv, NULL);
	init_waitqueue_head(&W->wq);
}

/* kfree(): the object's state and its poison, one step */
static void mr_free(struct mr *W, unsigned tid)
{
	WRITE_ONCE(W->state, (int)tid + 1);
	weft_poison(W->body, sizeof(W->body), WEFT_SITE(WEFT_EV_FREE, "kfree(body)"));
}

/* an allocation reusing it: another field's store and the unpoison, one step */
static void mr_alloc(struct mr *W, unsigned tid)
{
	WRITE_ONCE(W->astate, (int)tid + 1);
	weft_unpoison(W->body, sizeof(W->body), WEFT_SITE(WEFT_EV_ALLOC, "kmalloc(body)"));
}

static void mr_thread(void *w, unsigned tid)
{
	struct mr *W = w;

	switch (mr_shape) {
	case MR_USE_FREE:
	case MR_USE_LAST_FREE:
		if (tid == 0) {
			int v = READ_ONCE(W->body[mr_shape == MR_USE_LAST_FREE]);
			WRITE_ONCE(W->x[1], v);
		} else {
			mr_free(W, tid);
		}
		break;
	case MR_SLEEPER_FREE:
		/* the use, independent of T1's store, sleeps while T1 runs:
		 * only the free's poison may wake it */
		if (tid == 0)
			(void)READ_ONCE(W->body[0]);
		else if (tid == 1)
			WRITE_ONCE(W->x[1], 1);
		else
			mr_free(W, tid);
		break;
	case MR_ALLOC_FREE:
		if (tid == 0) {
			mr_alloc(W, tid);
		} else if (tid == 1) {
			mr_free(W, tid);
		} else {
			WRITE_ONCE(W->x[0], 1);
			mr_alloc(W, tid);
		}
		break;
	case MR_ALLOC_LATE:
		if (tid == 0) {
			mr_alloc(W, tid);
			WRITE_ONCE(W->x[2], 1);
		} else if (tid == 1) {
			WRITE_ONCE(W->x[1], 1);
			WRITE_ONCE(W->x[0], READ_ONCE(W->x[2]) + 1);
		} else {
			mr_free(W, tid);
		}
		break;
	case MR_CONDVAR:
		weft_pthread_mutex_lock(&W->m);
		if (tid == 0) {
			for (int k = 0; k < 2 && !READ_ONCE(W->fc); k++)
				weft_pthread_cond_wait(&W->cv, &W->m);
		} else if (tid == 1) {
			WRITE_ONCE(W->fc, 1);
			weft_pthread_cond_signal(&W->cv);
		} else {
			WRITE_ONCE(W->x[1], READ_ONCE(W->x[0]) + 1);
			weft_pthread_mutex_unlock(&W->m);
			weft_pthread_mutex_lock(&W->m);
			WRITE_ONCE(W->fc, 2);
			weft_pthread_cond_broadcast(&W->cv);
		}
		weft_pthread_mutex_unlock(&W->m);
		break;
	case MR_WAKE_FREE:
		if (tid == 0) {
			prepare_to_wait(&W->wq, NULL, TASK_UNINTERRUPTIBLE);
			if (!READ_ONCE(W->fq))
				schedule();
			finish_wait(&W->wq, NULL);
			(void)READ_ONCE(W->body[1]);
		} else {
			mr_free(W, tid);
			WRITE_ONCE(W->fq, 1);
			wake_up(&W->wq);
		}
		break;
	case MR__N:
		break;
	}
}

static const struct weft_variant mr_variants[] = {
	{ "only", NULL, false, "multi-record", "test", WEFT_KIND_NONE, 0, 0 },
};
static struct weft_scenario mrsc = {
	.name = "multi-record", .summary = "steps of several dependence records", .source = "test",
	.nr_cpus = 4, .nr_threads = 2, .world_size = sizeof(struct mr), WEFT_TEST_NOP_OP,
	.decision_hint = 4096, WEFT_TEST_HOOKS(mr),
};

/* run_dfs()/run_dpor() stop at the first report: a buggy shape must be
 * found by both, a clean one give the same final states. */
static void multi_record(unsigned bound)
{
	unsigned checked = 0;

	final_extra = mr_poisoned;
	for (enum mr_shape sh = 0; sh < MR__N; sh++) {
		mr_shape = sh;
		mrsc.nr_threads = mr_threads[sh];
		const unsigned bounds[2] = { WEFT_BOUND_NONE, bound };
		for (unsigned bi = 0; bi < 2; bi++)
		for (enum weft_por m = WEFT_POR_SOURCE; m <= WEFT_POR_OPTIMAL; m++) {
			unsigned b = bounds[bi];
			if (m == WEFT_POR_OPTIMAL && b != WEFT_BOUND_NONE)
				continue;   /* refused with a bound */
			struct hash_set sd = { 0 }, sp = { 0 };
			struct outcome a = run_dfs(&mrsc, 0, b, NULL, 0, &sd);
			struct outcome d = run_dpor(&mrsc, 0, m, b, NULL, 0, &sp);
			int bd = b == WEFT_BOUND_NONE ? -1 : (int)b;
			CHECK(a.complete || a.bug, "%s bound %d: plain dfs incomplete", mr_names[sh], bd);
			CHECK(a.bug == mr_buggy[sh], "%s bound %d: plain dfs %s", mr_names[sh], bd,
			      a.bug ? "reports a bug" : "finds no bug");
			if (a.bug) {
				CHECK(d.bug, "%s bound %d: plain dfs finds the use-after-free, %s DPOR "
				      "does not (%llu executions, %s)", mr_names[sh], bd,
				      weft_por_name(m), (unsigned long long)d.execs,
				      d.complete ? "certified" : d.why);
			} else {
				size_t lost = states_missed(&sd, &sp);
				CHECK(!d.bug && d.complete && lost == 0,
				      "%s bound %d: %s DPOR %s, lost %zu of %zu final states (%s)",
				      mr_names[sh], bd, weft_por_name(m),
				      d.bug ? "reports a bug" : d.complete ? "certifies" : "does not certify",
				      lost, sd.n, d.why);
			}
			checked++;
			free(sd.h);
			free(sp.h);
		}
	}
	final_extra = NULL;
	printf("multi-record steps: %u shape x bound x reduction runs agree with plain dfs\n",
	       checked);
}

/* ------------------------------------------------------------ families */

/* A clean variant whose threads share a CPU: the unbounded source-DPOR certifies it and reaches every final state plain
 * dfs does (1), unless either search is capped (0). */
static unsigned shared_unbounded(const struct weft_scenario *sc, unsigned vi, const uint8_t *wl,
				 size_t wl_len)
{
	struct hash_set sd = { 0 }, sp = { 0 };
	unsigned n = 0;
	struct outcome a = run_dfs(sc, vi, WEFT_BOUND_NONE, wl, wl_len, &sd);
	struct outcome b = run_dpor(sc, vi, WEFT_POR_SOURCE, WEFT_BOUND_NONE, wl, wl_len, &sp);

	if (!a.bug && !b.bug && a.complete && b.execs < CAP) {
		size_t lost = states_missed(&sd, &sp);
		CHECK(b.complete && lost == 0,
		      "%s:%s unbounded, a shared CPU: source-DPOR %s, lost %zu of %zu final states "
		      "(plain dfs %llu executions, dpor %llu; why: '%s')", sc->name,
		      sc->variants[vi].name, b.complete ? "certified" : "did not certify", lost, sd.n,
		      (unsigned long long)a.execs, (unsigned long long)b.execs, b.why);
		if (getenv("WEFT_DPOR_FAM_VERBOSE"))
			printf("%s:%s unbounded, a shared CPU: plain dfs %llu, source %llu (%zu final "
			       "states)\n", sc->name, sc->variants[vi].name,
			       (unsigned long long)a.execs, (unsigned long long)b.execs, sd.n);
		n = 1;
	}
	free(sd.h);
	free(sp.h);
	return n;
}

static void families(unsigned bound)
{
	unsigned checked = 0, refused = 0, skipped = 0, shared = 0;

	for (unsigned i = 0; i < weft_nr_scenarios; i++) {
		const struct weft_scenario *sc = weft_scenarios[i];
		uint8_t wl[WEFT_INPUT_MAX];
		size_t wl_len = weft_dfs_workload(sc, 0, wl, sizeof(wl), NULL);
		for (unsigned vi = 0; vi < sc->nr_variants; vi++) {
			if (sc->variants[vi].buggy)
				continue;
			struct hash_set sd = { 0 }, sp = { 0 };
			struct outcome a = run_dfs(sc, vi, bound, wl, wl_len, &sd);
			struct outcome b = run_dpor(sc, vi, WEFT_POR_SOURCE, bound, wl, wl_len, &sp);
			if (a.bug || b.bug || !a.complete) {
				skipped++;
			} else if (!b.complete) {
				CHECK(b.why[0] && (strstr(b.why, "interrupts or migration") ||
						  strstr(b.why, "weft_choose") || strstr(b.why, "cap")),
				      "%s:%s: DPOR incomplete for no reason it may have: '%s'",
				      sc->name, sc->variants[vi].name, b.why);
				refused++;
			} else {
				size_t lost = states_missed(&sd, &sp);
				CHECK(lost == 0,
				      "%s:%s bound %u: source-DPOR lost %zu of %zu final states "
				      "(plain dfs %llu executions, dpor %llu)",
				      sc->name, sc->variants[vi].name, bound, lost, sd.n,
				      (unsigned long long)a.execs, (unsigned long long)b.execs);
				checked++;
				if (b.shared_cpu)
					shared += shared_unbounded(sc, vi, wl, wl_len);
			}
			if (getenv("WEFT_DPOR_FAM_VERBOSE"))
				printf("%s:%s bound %u: plain dfs %llu%s (%zu final states), source %llu%s "
				       "(%zu)%s%s\n", sc->name, sc->variants[vi].name, bound,
				       (unsigned long long)a.execs, a.complete ? "" : " incomplete", sd.n,
				       (unsigned long long)b.execs, b.complete ? "" : " incomplete", sp.n,
				       b.why[0] ? ": " : "", b.why);
			free(sd.h);
			free(sp.h);
		}
	}
	printf("bound %u: %u clean variants checked against plain dfs, %u refused "
	       "(contexts, choices, caps), %u skipped (a report, or plain dfs capped); "
	       "%u that share a CPU checked unbounded too\n", bound, checked, refused, skipped, shared);
	CHECK(shared >= 2, "too few variants sharing a CPU checked unbounded: %u", shared);
	CHECK(checked > 10, "too few variants checked: %u", checked);
}

/* Every buggy variant whose bug plain dfs finds within the bound on its
 * trigger workload: source-DPOR finds a bug too, or does not certify
 * (before 1f7ea60 it certified demo-rwsem:recursive-read and
 * demo-condvar:missed-signal clean at bound 1: a step's second record, the
 * sleep after a release, was dropped). */
static void buggy(unsigned bound)
{
	unsigned checked = 0;

	for (unsigned i = 0; i < weft_nr_scenarios; i++) {
		const struct weft_scenario *sc = weft_scenarios[i];
		for (unsigned vi = 0; vi < sc->nr_variants; vi++) {
			if (!sc->variants[vi].buggy)
				continue;
			uint8_t wl[WEFT_INPUT_MAX];
			size_t wl_len = weft_trigger_workload(sc, vi, wl, sizeof(wl));
			if (!wl_len)
				wl_len = weft_dfs_workload(sc, 0, wl, sizeof(wl), NULL);
			struct outcome a = run_dfs(sc, vi, bound, wl, wl_len, NULL);
			if (!a.bug)
				continue;
			struct outcome b = run_dpor(sc, vi, WEFT_POR_SOURCE, bound, wl, wl_len, NULL);
			CHECK(b.bug || !b.complete,
			      "%s:%s bound %u: plain dfs finds the bug, source-DPOR certifies clean "
			      "(%llu executions)", sc->name, sc->variants[vi].name, bound,
			      (unsigned long long)b.execs);
			checked++;
		}
	}
	printf("bound %u: %u buggy variants plain dfs finds, source-DPOR finds or refuses\n",
	       bound, checked);
	CHECK(checked > (bound ? 10u : 3u), "too few buggy variants checked: %u", checked);
}

int main(void)
{
	const char *e = getenv("WEFT_DPOR_FAM_BOUND");
	unsigned bound = e ? (unsigned)atoi(e) : 1;

	refusals();
	multi_record(bound);
	e = getenv("WEFT_DPOR_FAM_CHECKS");
	if (e && !strcmp(e, "default"))
		fam_checks = WEFT_CHECKS_DEFAULT;
	families(bound);
	buggy(bound);
	return check_done();
}
