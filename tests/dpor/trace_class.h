/*
 * trace_class.h - an independent fingerprint of an execution's
 * Mazurkiewicz trace, for the dpor tests: a decorator strategy records
 * the machine's dependence records (ops->on_step) and hashes, for every
 * event, its thread, its index in that thread, what it touched and, per
 * other thread, the latest of that thread's earlier events it depends on.
 * Two executions get one fingerprint exactly when they order every pair
 * of dependent events alike (locks as written objects; a blocked attempt
 * that changes nothing is left out, as a blocked thread does nothing).
 *
 * This is written from the definition, not from core/src/search/dpor.c: the
 * dependence relation is the one documented in weft/strategy.h.
 */
#ifndef WEFT_TRACE_CLASS_H
#define WEFT_TRACE_CLASS_H

#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "decorator.h"
#include "hash_set.h"   /* the sets of fingerprints the tests compare */

/* TC_KEEP_YIELDS (an expression, 0 unless defined): yields are events
 * that conflict with every other thread's, as dpor.c's dependence has
 * them (tests/dpor/dpor_classes.c's second count) */
#ifndef TC_KEEP_YIELDS
#define TC_KEEP_YIELDS 0
#endif

#ifndef TC_MAX
#define TC_MAX 512
#endif

struct tc_ev {
	uint8_t tid, kind, w, arg;
	uint32_t loc, size, idx;
};

struct tc {
	const struct weft_strategy_ops *inner;
	void *inner_st;
	enum weft_lock_model lock;
	struct tc_ev ev[TC_MAX];
	unsigned n;
	bool overflow;
	uint64_t last;     /* fingerprint of the last execution */
};

static inline uint64_t tc_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline bool tc_dep(const struct tc_ev *a, const struct tc_ev *b)
{
	if (a->tid == b->tid)
		return false;
	if (TC_KEEP_YIELDS && (a->kind == WEFT_DEP_YIELD || b->kind == WEFT_DEP_YIELD))
		return true;
	if (a->kind == WEFT_DEP_END && b->kind == WEFT_DEP_JOIN && b->arg == a->tid)
		return true;
	if (a->kind == WEFT_DEP_SPAWN && a->arg == b->tid)
		return true;
	if (a->loc == WEFT_NO_LOC || b->loc == WEFT_NO_LOC || !(a->w | b->w))
		return false;
	return a->loc < b->loc + b->size && b->loc < a->loc + a->size;
}

static int tc_begin(void *st, uint8_t *wl, size_t cap)
{
	struct tc *t = st;

	t->n = 0;
	t->overflow = false;
	return t->inner->begin ? t->inner->begin(t->inner_st, wl, cap) : 0;
}

static int tc_pick(void *st, const struct weft_decision *d)
{
	struct tc *t = st;

	return t->inner->pick_next(t->inner_st, d);
}

static uint32_t tc_value(void *st, uint32_t i, uint32_t n)
{
	struct tc *t = st;

	return t->inner->pick_value ? t->inner->pick_value(t->inner_st, i, n) : 0;
}

static void tc_step(void *st, const struct weft_step_info *si)
{
	struct tc *t = st;

	if (t->inner->on_step)
		t->inner->on_step(t->inner_st, si);
	if (si->tid >= WEFT_MAX_THREADS)
		return;
	unsigned sev = si->site ? si->site->ev : 0;
	if (si->kind == WEFT_DEP_YIELD && !TC_KEEP_YIELDS)
		return;
	if (si->kind == WEFT_DEP_BLOCKED &&
	    (sev == WEFT_EV_JOIN || (sev == WEFT_EV_LOCK && t->lock == WEFT_LOCK_TAS)))
		return;
	if (t->n == TC_MAX) {
		t->overflow = true;
		return;
	}
	struct tc_ev *e = &t->ev[t->n++];
	e->tid = si->tid;
	e->kind = si->kind;
	/* a trylock writes the lock whatever its outcome (it is one
	 * operation that fails in one order and succeeds in another) */
	e->w = si->kind != WEFT_DEP_READ || sev == WEFT_EV_TRYLOCK;
	e->arg = (uint8_t)si->arg;
	e->loc = si->kind <= WEFT_DEP_BLOCKED ? si->loc : WEFT_NO_LOC;
	e->size = si->size ? si->size : 1;
	unsigned idx = 0;
	for (unsigned i = 0; i + 1 < t->n; i++)
		idx += t->ev[i].tid == e->tid;
	e->idx = idx + 1;
}

static void tc_end(void *st, const struct weft_exec_result *r)
{
	struct tc *t = st;
	uint64_t h = 0x1234 ^ (uint64_t)r->kind;
	static uint32_t maxpred[TC_MAX][WEFT_MAX_THREADS];

	for (unsigned b = 0; b < t->n; b++) {
		memset(maxpred[b], 0, sizeof(maxpred[b]));
		for (unsigned a = 0; a < b; a++)
			if (tc_dep(&t->ev[a], &t->ev[b]) && t->ev[a].idx > maxpred[b][t->ev[a].tid])
				maxpred[b][t->ev[a].tid] = t->ev[a].idx;
	}
	/* canonical order: by thread, then index in the thread */
	for (unsigned tid = 0; tid < WEFT_MAX_THREADS; tid++) {
		for (unsigned b = 0; b < t->n; b++) {
			const struct tc_ev *e = &t->ev[b];
			if (e->tid != tid)
				continue;
			h = tc_mix(h ^ ((uint64_t)e->tid << 56 | (uint64_t)e->idx << 32 |
					(uint64_t)e->kind << 8 | e->arg));
			h = tc_mix(h ^ ((uint64_t)e->loc << 32 | e->size));
			for (unsigned u = 0; u < WEFT_MAX_THREADS; u++)
				if (maxpred[b][u])
					h = tc_mix(h ^ ((uint64_t)u << 40 | maxpred[b][u]));
		}
	}
	t->last = t->overflow ? 0 : h;
	if (t->inner->end)
		t->inner->end(t->inner_st, r);
}

static const struct weft_strategy_ops tc_ops = WEFT_TEST_DECORATOR_OPS(tc, "trace-class");

#endif
