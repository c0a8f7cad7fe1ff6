/*
 * sleep_test.h - what the sleeping-primitive tests share: running one
 * scenario variant under dfs, a scripted schedule or a priority order,
 * and the on_step log of the last execution.
 */
#ifndef WEFT_SLEEP_TEST_H
#define WEFT_SLEEP_TEST_H

#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "decorator.h"

/* ------------------------------------------------------------ step log */

#define ST_MAX_STEPS 4096

struct st_log {
	struct weft_step_info s[ST_MAX_STEPS];
	unsigned n;
};

/* The records of thread tid in the log. */
static inline unsigned st_count(const struct st_log *l, unsigned tid, int kind)
{
	unsigned n = 0;

	for (unsigned i = 0; i < l->n; i++)
		n += l->s[i].tid == tid && (kind < 0 || l->s[i].kind == (unsigned)kind);
	return n;
}

/* ------------------------------------------------ scripted and priority */

/*
 * A strategy that, at each decision, runs the first runnable thread of
 * `prio` (a priority order; threads not named come last, lowest first), and
 * logs every dependence record. With prio empty it is the serial default.
 */
struct st_script {
	int prio[WEFT_MAX_THREADS];
	unsigned nprio;
	int at[16];              /* at decision k run thread at[k] (-1: prio) */
	struct st_log log;
};

static inline int st_script_pick(void *st, const struct weft_decision *d)
{
	struct st_script *s = st;

	if (d->index < 16 && s->at[d->index] >= 0 && (d->runnable >> s->at[d->index] & 1))
		return s->at[d->index];
	for (unsigned i = 0; i < s->nprio; i++)
		if (s->prio[i] >= 0 && (d->runnable >> s->prio[i] & 1))
			return s->prio[i];
	return d->dflt;
}

static inline void st_script_step(void *st, const struct weft_step_info *si)
{
	struct st_script *s = st;

	if (s->log.n < ST_MAX_STEPS)
		s->log.s[s->log.n++] = *si;
}

static const struct weft_strategy_ops st_script_ops = {
	.name = "script",
	.pick_next = st_script_pick,
	.on_step = st_script_step,
};

/* Runs sc:variant once with the priority order given (-1 ends it) and,
 * optionally, the thread to run at each of the first decisions (at: -2
 * ends it, -1 leaves that decision to the priority order). */
static inline struct weft_exec_result st_run_script(const struct weft_scenario *sc,
						    unsigned variant, enum weft_lock_model lock,
						    struct st_script *s, const int *prio,
						    const int *at, bool record)
{
	struct weft_run_opts o = { .sc = sc, .variant = variant, .lock = lock, .record = record };
	struct weft_exec_result r;

	memset(s, 0, sizeof(*s));
	for (unsigned k = 0; k < 16; k++)
		s->at[k] = -1;
	for (; prio && *prio >= 0 && s->nprio < WEFT_MAX_THREADS; prio++)
		s->prio[s->nprio++] = *prio;
	for (unsigned k = 0; at && k < 16 && at[k] != -2; k++)
		s->at[k] = at[k];
	CHECK(weft_execute(&o, &st_script_ops, s, &r) == 0, "execute %s", sc->name);
	return r;
}

static inline struct weft_exec_result st_run_prio(const struct weft_scenario *sc, unsigned variant,
						  enum weft_lock_model lock, struct st_script *s,
						  const int *prio, bool record)
{
	return st_run_script(sc, variant, lock, s, prio, NULL, record);
}

/* ------------------------------------------------------------------ dfs */

/*
 * dfs over sc:variant at bound, wrapped so that every decision also checks
 * weft_thread_pending() against what the chosen thread then does: a thread
 * predicted to block must record BLOCKED in its next step, and one
 * predicted not to must not (the dependence records a partial-order
 * reduction will trust).
 */
struct st_dfs {
	struct weft_dfs d;
	struct {
		bool valid, would_block, saw_block, seen;
		uint32_t step;
		uint8_t kind;
	} exp[WEFT_MAX_THREADS];
	unsigned predictions, mispredictions;
	char why[160];
};

static inline void st_dfs_settle(struct st_dfs *x)
{
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++) {
		if (!x->exp[t].valid || !x->exp[t].seen)
			continue;
		x->predictions++;
		if (x->exp[t].would_block != x->exp[t].saw_block) {
			if (!x->mispredictions++)
				snprintf(x->why, sizeof(x->why),
					 "T%u at step %u: predicted %s (kind %u), then %s", t,
					 x->exp[t].step, x->exp[t].would_block ? "to block" : "not to block",
					 x->exp[t].kind, x->exp[t].saw_block ? "blocked" : "did not block");
		}
		x->exp[t].valid = false;
	}
}

static inline int st_dfs_begin(void *st, uint8_t *wl, size_t cap)
{
	struct st_dfs *x = st;

	memset(x->exp, 0, sizeof(x->exp));
	return weft_strategy_dfs.begin(&x->d, wl, cap);
}

static inline int st_dfs_pick(void *st, const struct weft_decision *d)
{
	struct st_dfs *x = st;
	int c = weft_strategy_dfs.pick_next(&x->d, d);
	struct weft_step_info si;
	bool wb = false;

	st_dfs_settle(x);
	if (c >= 0 && weft_thread_pending((unsigned)c, &si, &wb)) {
		x->exp[c].valid = true;
		x->exp[c].would_block = wb;
		x->exp[c].saw_block = false;
		x->exp[c].seen = false;
		x->exp[c].step = si.step;
		x->exp[c].kind = si.kind;
	}
	return c;
}

static inline void st_dfs_step(void *st, const struct weft_step_info *si)
{
	struct st_dfs *x = st;

	if (si->tid >= WEFT_MAX_THREADS || !x->exp[si->tid].valid)
		return;
	if (si->step == x->exp[si->tid].step + 1) {
		x->exp[si->tid].seen = true;
		x->exp[si->tid].saw_block |= si->kind == WEFT_DEP_BLOCKED;
	}
}

/* dfs enumerates weft_choose() values */
static inline uint32_t st_dfs_value(void *st, uint32_t index, uint32_t n)
{
	struct st_dfs *x = st;

	return weft_strategy_dfs.pick_value(&x->d, index, n);
}

static inline void st_dfs_end(void *st, const struct weft_exec_result *r)
{
	struct st_dfs *x = st;

	st_dfs_settle(x);
	weft_strategy_dfs.end(&x->d, r);
}

static const struct weft_strategy_ops st_dfs_ops = WEFT_TEST_DECORATOR_OPS(st_dfs, "dfs+pending");

struct st_dfs_out {
	struct weft_exec_result r;   /* the first report, or the last execution */
	uint64_t executions;
	bool complete;
	unsigned predictions, mispredictions;
	char why[160];
};

static inline struct st_dfs_out st_dfs_run_checks(const struct weft_scenario *sc,
						  unsigned variant, unsigned bound,
						  enum weft_lock_model lock, const uint8_t *wl,
						  size_t wl_len, unsigned checks)
{
	struct st_dfs *x = calloc(1, sizeof(*x));
	struct weft_run_opts o = { .sc = sc, .variant = variant, .lock = lock, .checks = checks };
	struct st_dfs_out out;
	struct weft_exec_result r;

	memset(&out, 0, sizeof(out));
	if (!x)
		return out;
	weft_dfs_init(&x->d, sc, bound, wl, wl_len);
	while (weft_execute(&o, &st_dfs_ops, x, &r) == 0) {
		out.r = r;
		if (r.kind != WEFT_KIND_NONE)
			break;
	}
	out.executions = x->d.executions;
	out.complete = x->d.complete;
	out.predictions = x->predictions;
	out.mispredictions = x->mispredictions;
	memcpy(out.why, x->why, sizeof(out.why));
	free(x);
	return out;
}

/* As the front ends run it: with lockdep-lite (WEFT_CHECKS_DEFAULT). */
static inline struct st_dfs_out st_dfs_run(const struct weft_scenario *sc, unsigned variant,
					   unsigned bound, enum weft_lock_model lock,
					   const uint8_t *wl, size_t wl_len)
{
	return st_dfs_run_checks(sc, variant, bound, lock, wl, wl_len, WEFT_CHECKS_DEFAULT);
}

#endif
