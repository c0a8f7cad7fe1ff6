/*
 * dpor_classes.c - how far a bounded DPOR search is from the fewest
 * executions any sound reduction within the bound can run: the
 * Mazurkiewicz classes (trace_class.h's fingerprint, written from the
 * definition, not from dpor.c) that plain dfs reaches within a
 * preemption bound, against the executions and classes of source-DPOR
 * at the same bound. Every execution of a bounded reduction is within
 * the bound and belongs to one class, and a sound one reaches every
 * class plain dfs reaches, so it runs at least as many executions as
 * there are classes. Not a test (no add_test): a measuring tool for
 * docs/benchmark-notes.md.
 *
 *   dpor_classes SCENARIO:VARIANT BOUND [CHECKS]
 *
 * on the variant's dfs workload (its trigger), weft run's default checks
 * unless CHECKS is 0 (DPOR_CLASSES_YIELDS=1: yields are events that
 * conflict with every other thread's, as in dpor.c's dependence; else
 * they are left out, as trace_class.h does for the tests). Prints plain dfs's executions and classes, DPOR's
 * executions and classes, and the plain classes DPOR missed (0 if sound).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

static bool keep_yields;
#define TC_KEEP_YIELDS keep_yields
#include "trace_class.h"

/* an open-addressing set of non-zero 64-bit fingerprints */
struct fset {
	uint64_t *h;
	size_t n, cap;
};

static bool fset_has(const struct fset *s, uint64_t h)
{
	if (!s->cap)
		return false;
	for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->h[i] == h)
			return true;
		if (!s->h[i])
			return false;
	}
}

static void fset_add(struct fset *s, uint64_t h)
{
	h |= 1;   /* 0 marks an empty slot */
	if (2 * (s->n + 1) > s->cap) {
		struct fset t = { calloc(s->cap ? 2 * s->cap : 1024, sizeof(uint64_t)), 0,
				  s->cap ? 2 * s->cap : 1024 };
		if (!t.h)
			abort();
		for (size_t i = 0; i < s->cap; i++)
			if (s->h[i])
				fset_add(&t, s->h[i]);
		free(s->h);
		*s = t;
	}
	size_t i = h & (s->cap - 1);
	while (s->h[i] && s->h[i] != h)
		i = (i + 1) & (s->cap - 1);
	if (!s->h[i]) {
		s->h[i] = h;
		s->n++;
	}
}

static struct tc tc;

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: dpor_classes SCENARIO:VARIANT BOUND [CHECKS]\n");
		return 2;
	}
	weft_machine_init();
	const struct weft_scenario *sc = NULL;
	unsigned vi = 0;
	char name[128];
	snprintf(name, sizeof(name), "%s", argv[1]);
	char *colon = strchr(name, ':');
	if (colon)
		*colon++ = 0;
	for (unsigned i = 0; i < weft_nr_scenarios && !sc; i++)
		if (!strcmp(weft_scenarios[i]->name, name))
			sc = weft_scenarios[i];
	if (!sc) {
		fprintf(stderr, "no scenario %s\n", name);
		return 2;
	}
	for (unsigned v = 0; colon && v < sc->nr_variants; v++)
		if (!strcmp(sc->variants[v].name, colon))
			vi = v;
	unsigned bound = (unsigned)atoi(argv[2]);
	unsigned checks = argc > 3 ? (unsigned)atoi(argv[3]) : WEFT_CHECKS_DEFAULT;
	keep_yields = getenv("DPOR_CLASSES_YIELDS") != NULL;
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = checks, .no_trace_hash = true };
	struct weft_exec_result r;
	struct fset plain = { 0 }, got = { 0 };

	unsigned long long pe = 0, de = 0, over = 0, bugs = 0;

	/* DPOR first: plain dfs's executions of a class it missed are shown
	 * (the first few, DPOR_CLASSES_SHOW=N) */
	struct weft_dpor *d = weft_dpor_new();
	/* DPOR_CLASSES_DPOR_BOUND=B: DPOR at bound B instead (are the classes
	 * it missed reached with more preemptions?) */
	const char *db = getenv("DPOR_CLASSES_DPOR_BOUND");
	unsigned dbound = db ? (unsigned)atoi(db) : bound;
	if (!d || weft_dpor_reset(d, sc, WEFT_POR_SOURCE, dbound, sc->default_lock, wl, wl_len))
		return 1;
	tc.inner = &weft_strategy_dpor;
	tc.inner_st = d;
	tc.lock = sc->default_lock;
	while (weft_execute(&o, &tc_ops, &tc, &r) == 0) {
		de++;
		fset_add(&got, tc.last);
	}
	bool complete = weft_dpor_complete(d);
	weft_dpor_free(d);

	const char *e = getenv("DPOR_CLASSES_SHOW");
	unsigned show = e ? (unsigned)atoi(e) : 0;
	size_t missed = 0;
	struct fset seen = { 0 };
	static struct weft_dfs dfs;
	weft_dfs_init(&dfs, sc, bound, wl, wl_len);
	tc.inner = &weft_strategy_dfs;
	tc.inner_st = &dfs;
	while (weft_execute(&o, &tc_ops, &tc, &r) == 0) {
		pe++;
		bugs += r.kind != WEFT_KIND_NONE;
		over += tc.overflow;
		bool fresh = !fset_has(&plain, tc.last | 1);
		fset_add(&plain, tc.last);
		if (!fresh || fset_has(&got, tc.last | 1))
			continue;
		missed++;
		if (missed > show)
			continue;
		printf("missed class %016llx (plain execution %llu, %u preemptions):\n",
		       (unsigned long long)tc.last, pe, r.preemptions);
		for (unsigned i = 0; i < tc.n; i++)
			printf("  T%u #%u kind %u loc %u size %u w %u arg %u\n", tc.ev[i].tid,
			       tc.ev[i].idx, tc.ev[i].kind, tc.ev[i].loc, tc.ev[i].size, tc.ev[i].w,
			       tc.ev[i].arg);
	}
	(void)seen;
	printf("%s:%s bound %u: plain dfs %llu executions%s, %zu classes (%llu reports, %llu "
	       "overflowed)\n", sc->name, sc->variants[vi].name, bound, pe,
	       dfs.complete ? "" : " (incomplete)", plain.n, bugs, over);
	printf("  source-DPOR (bound %u) %llu executions%s, %zu classes, %zu of plain's missed\n",
	       dbound, de, complete ? "" : " (incomplete)", got.n, missed);
	return missed != 0;
}
