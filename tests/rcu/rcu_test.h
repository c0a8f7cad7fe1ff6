/*
 * rcu_test.h - what the tests of tests/rcu/ share: run a scenario variant
 * under dfs (until a report or the end of the bounded space), random, or a
 * scripted schedule, and log the dependence records of an execution.
 */
#ifndef WEFT_RCU_TEST_H
#define WEFT_RCU_TEST_H

#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

struct t_out {
	enum weft_kind kind;        /* first report, or NONE */
	uint64_t execs;             /* executions run (up to the report) */
	bool complete;              /* dfs covered its bounded space */
	struct weft_exec_result r;  /* the reporting (or last) execution */
};

/* Each case of these tests is a variant of one scenario, named "v" and
 * numbered from 0 (the scenario's one opcode is t_ops). */
static const char *const t_ops[] __attribute__((unused)) = { "nop" };
static inline void t_number_variants(struct weft_variant *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		v[i].name = "v";
		v[i].id = i;
	}
}

/* The scenario prefix##_sc of such a test: nr variants prefix##_variants
 * (numbered by t_number_variants()), two CPUs and two threads on a world_t,
 * prefix##_setup and prefix##_thread; more fields (.quiesce) after. */
#define T_SCENARIO(prefix, name_, summary_, world_t, nr, ...)                              \
	static struct weft_variant prefix##_variants[nr];                                  \
	static const struct weft_scenario prefix##_sc = {                                  \
		.name = name_, .summary = summary_, .source = "test", .nr_cpus = 2,        \
		.nr_threads = 2, .world_size = sizeof(world_t), .nr_opcodes = 1,           \
		.opnames = t_ops, .max_ops = 1, .decision_hint = 256, WEFT_TEST_HOOKS(prefix), \
		__VA_ARGS__                                                                \
	}

/* Runs strategy ops (its state st set up) on variant of sc until the first
 * report, at most budget executions. */
static inline struct t_out t_search(const struct weft_scenario *sc, unsigned variant,
				    const struct weft_strategy_ops *ops, void *st, uint64_t budget)
{
	struct t_out o;
	struct weft_run_opts ro = { .sc = sc, .variant = variant, .lock = sc->default_lock };

	memset(&o, 0, sizeof(o));
	while (o.execs < budget && weft_execute(&ro, ops, st, &o.r) == 0) {
		o.execs++;
		if (o.r.kind != WEFT_KIND_NONE) {
			o.kind = o.r.kind;
			break;
		}
	}
	return o;
}

/* dfs at bound on the empty workload, up to budget executions. */
static inline struct t_out t_dfs(const struct weft_scenario *sc, unsigned variant,
				 unsigned bound, uint64_t budget)
{
	static struct weft_dfs d;
	struct t_out o;

	weft_dfs_init(&d, sc, bound, NULL, 0);
	o = t_search(sc, variant, &weft_strategy_dfs, &d, budget);
	o.complete = d.complete;
	return o;
}

/* dfs at bound on variant v of sc: a report of k, or with WEFT_KIND_NONE
 * clean and complete; prints a line for what. Returns the outcome. */
static inline struct t_out t_expect(const struct weft_scenario *sc, unsigned v, unsigned bound,
				    enum weft_kind k, uint64_t budget, const char *what)
{
	struct t_out o = t_dfs(sc, v, bound, budget);

	CHECK(o.kind == k, "%s: want %s, got %s (%s)", what, weft_kind_name(k),
	      weft_kind_name(o.kind), o.r.report.msg);
	if (k == WEFT_KIND_NONE)
		CHECK(o.complete, "%s: complete", what);
	printf("  %-52s %s, dfs bound %u, %llu executions%s%s\n", what,
	       k == WEFT_KIND_NONE ? "clean" : weft_kind_name(o.kind), bound,
	       (unsigned long long)o.execs, k == WEFT_KIND_NONE ? "" : ": ",
	       k == WEFT_KIND_NONE ? "" : o.r.report.msg);
	return o;
}

/* The start of a test's main: its variants numbered, the machine set up. */
static inline void t_begin(struct weft_variant *v, unsigned n)
{
	t_number_variants(v, n);
	weft_machine_init();
}

static inline struct t_out t_random(const struct weft_scenario *sc, unsigned variant,
				    uint64_t seed, uint64_t n)
{
	static struct weft_random rnd;

	weft_random_init(&rnd, sc, seed, NULL, 0);
	return t_search(sc, variant, &weft_strategy_random, &rnd, n);
}

/* A scripted schedule: decision i picks seq[i] when it is runnable (else
 * the default); every visible operation's dependence record is logged. */
struct t_script {
	const int *seq;
	unsigned n, i;
	struct weft_step_info log[512];
	unsigned nlog;
};

static inline int t_script_pick(void *st, const struct weft_decision *d)
{
	struct t_script *s = st;
	int want = s->i < s->n ? s->seq[s->i] : -1;

	s->i++;
	return want >= 0 && (d->runnable >> want & 1) ? want : d->dflt;
}

static inline void t_script_step(void *st, const struct weft_step_info *si)
{
	struct t_script *s = st;

	if (s->nlog < sizeof(s->log) / sizeof(s->log[0]))
		s->log[s->nlog++] = *si;
}

static const struct weft_strategy_ops t_script_ops = {
	.name = "script", .pick_next = t_script_pick, .on_step = t_script_step,
};

static inline struct weft_exec_result t_scripted(const struct weft_scenario *sc, unsigned variant,
						 struct t_script *s)
{
	struct weft_exec_result r;
	struct weft_run_opts ro = { .sc = sc, .variant = variant, .lock = sc->default_lock,
				    .record = true };

	s->i = 0;
	s->nlog = 0;
	memset(&r, 0, sizeof(r));
	CHECK(weft_execute(&ro, &t_script_ops, s, &r) == 0, "%s: execute", sc->name);
	return r;
}

#endif
