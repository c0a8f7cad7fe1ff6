/*
 * dpor_classes.c - how far a bounded DPOR search is from the fewest
 * executions any sound reduction within the bound can run: the
 * Mazurkiewicz classes (trace_class.h's fingerprint, written from the
 * definition, not from dpor.c) that plain dfs reaches within a
 * preemption bound, against the executions and classes of source-DPOR
 * at the same bound. Every execution of a bounded reduction is within
 * the bound and belongs to one class, and a sound one reaches every
 * class plain dfs reaches, so it runs at least as many executions as
 * there are classes. A measuring tool for docs/benchmark-notes.md; one
 * ctest runs it (dpor_classes_z15: z15-ref-unfreeze:fix at bound 2, where
 * it found a free's record of the RCU state made only once the core area
 * was used, tests/dpor/test_dpor_rcu_free.c).
 *
 *   dpor_classes SCENARIO:VARIANT BOUND [CHECKS]
 *
 * on the variant's dfs workload (its trigger), weft run's default checks
 * unless CHECKS is 0 (DPOR_CLASSES_YIELDS=1: yields are events that
 * conflict with every other thread's, as in dpor.c's dependence; else
 * they are left out, as trace_class.h does for the tests). Prints plain dfs's executions and classes, DPOR's
 * executions and classes, and the plain classes DPOR missed (0 if sound),
 * and how many of plain's classes have a run with a spin fair scheduling
 * saw at an observation (a record weft_fair_spun_now() flags: a repeated
 * failed cmpxchg, a polled read), with those DPOR missed.
 *
 * Diagnostics (docs/benchmark-notes.md, "ninth round"):
 *  DPOR_CLASSES_SHOW=N   print the first N missed classes' events;
 *  DPOR_CLASSES_LOG=1    with them, each decision and record of plain dfs's
 *                        execution (yields too, SPUN marking an observation
 *                        spin), each decision charged as plain dfs's
 *                        frame_cost() and as dpor.c's decided() charge it,
 *                        and the execution's thread per step (STEPS ...);
 *  DPOR_CLASSES_SEQ=S    instead, run one execution whose step i is run by
 *                        the thread hex digit S[i] names while it can run
 *                        (the default after S), logged as above, with its
 *                        class: a permutation of a missed execution's STEPS
 *                        shows what another linearization of its class costs.
 */
#include <stdarg.h>
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

/* The outermost decorator (around tc): one execution's log (lg_on), its
 * charges, and whether fair scheduling judged one of its records a spin */
struct lg {
	char *buf;
	size_t n, cap;
	unsigned dfs_cost, dpor_cost;
	bool spun;
	char steps[4096];   /* the thread of each step, hex */
	uint32_t nsteps, last_step;
};
static struct lg lg;
static bool lg_on;

static void lg_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void lg_printf(const char *fmt, ...)
{
	va_list ap;

	if (!lg_on)
		return;
	if (lg.cap - lg.n < 256) {
		lg.cap = lg.cap ? 2 * lg.cap : 1 << 16;
		lg.buf = realloc(lg.buf, lg.cap);
		if (!lg.buf)
			abort();
	}
	va_start(ap, fmt);
	int w = vsnprintf(lg.buf + lg.n, lg.cap - lg.n, fmt, ap);
	va_end(ap);
	if (w > 0)
		lg.n += (size_t)w < lg.cap - lg.n ? (size_t)w : lg.cap - lg.n - 1;
}

static int lg_begin(void *st, uint8_t *wl, size_t cap)
{
	(void)st;
	lg.n = 0;
	lg.dfs_cost = lg.dpor_cost = 0;
	lg.spun = false;
	lg.nsteps = 0;
	lg.last_step = UINT32_MAX;
	return tc_ops.begin(&tc, wl, cap);
}

static int lg_pick(void *st, const struct weft_decision *d)
{
	(void)st;
	int c = tc_ops.pick_next(&tc, d);
	/* strategies.c frame_cost(), dpor.c decided() */
	unsigned fc = (d->cur >= 0 && c != d->dflt) || (d->unfair >> c & 1);
	unsigned pc = (unsigned)(d->cur >= 0 && c != d->cur) + (unsigned)(d->unfair >> c & 1);

	lg.dfs_cost += fc;
	lg.dpor_cost += pc;
	lg_printf("D%u step %u cur %d dflt %d run %llx unfair %llx retry %llx -> T%d"
		  " (plain dfs +%u = %u, dpor.c +%u = %u)\n", d->index, d->step, d->cur, d->dflt,
		  (unsigned long long)d->runnable, (unsigned long long)d->unfair,
		  (unsigned long long)d->spin_retry, c, fc, lg.dfs_cost, pc, lg.dpor_cost);
	return c;
}

static uint32_t lg_value(void *st, uint32_t i, uint32_t n)
{
	(void)st;
	uint32_t v = tc_ops.pick_value(&tc, i, n);

	lg_printf("V%u of %u -> %u (unfair %llx)\n", i, n, v,
		  (unsigned long long)weft_choice_unfair());
	return v;
}

static void lg_step(void *st, const struct weft_step_info *si)
{
	(void)st;
	bool spun = si->tid < WEFT_MAX_THREADS && weft_fair_spun_now(si->tid);

	lg.spun |= spun;
	tc_ops.on_step(&tc, si);
	if (si->tid < WEFT_MAX_THREADS && si->step != lg.last_step &&
	    lg.nsteps + 1 < sizeof(lg.steps)) {
		lg.steps[lg.nsteps++] = "0123456789abcdef"[si->tid];
		lg.last_step = si->step;
	}
	lg_printf("  S%u T%u kind %u loc %u size %u flags %u%s\n", si->step, si->tid, si->kind,
		  si->loc, si->size, si->flags, spun ? " SPUN" : "");
}

static void lg_end(void *st, const struct weft_exec_result *r)
{
	(void)st;
	tc_ops.end(&tc, r);
	lg.steps[lg.nsteps] = 0;
}

static const struct weft_strategy_ops lg_ops = WEFT_TEST_DECORATOR_OPS(lg, "log");

/* DPOR_CLASSES_SEQ: the strategy tc wraps for the one execution */
static const char *seq;
static size_t seq_len;
static uint32_t seq_i, seq_last;
static const uint8_t *seq_wl;
static size_t seq_wl_len;

static int seq_begin(void *st, uint8_t *wl, size_t cap)
{
	(void)st;
	seq_i = 0;
	seq_last = UINT32_MAX;
	return weft_begin_fixed_workload(wl, cap, seq_wl, seq_wl_len);
}

static int seq_pick(void *st, const struct weft_decision *d)
{
	(void)st;
	/* the next step's index: seq_i is the last step's */
	uint32_t k = seq_last == UINT32_MAX ? 0 : seq_i + 1;

	if (k < seq_len) {
		char c = seq[k];
		int t = c >= 'a' ? c - 'a' + 10 : c - '0';
		if (t >= 0 && t < 64 && (d->runnable >> t & 1))
			return t;
	}
	return d->dflt;
}

static void seq_step(void *st, const struct weft_step_info *si)
{
	(void)st;
	if (si->tid < WEFT_MAX_THREADS && si->step != seq_last) {
		if (seq_last != UINT32_MAX)
			seq_i++;
		seq_last = si->step;
	}
}

static const struct weft_strategy_ops seq_ops = {
	.name = "seq", .begin = seq_begin, .pick_next = seq_pick, .on_step = seq_step,
};

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
	lg_on = getenv("DPOR_CLASSES_LOG") != NULL;
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = checks, .no_trace_hash = true };
	struct weft_exec_result r;
	struct fset plain = { 0 }, got = { 0 };

	unsigned long long pe = 0, de = 0, over = 0, bugs = 0;

	if (getenv("DPOR_CLASSES_SEQ")) {
		seq = getenv("DPOR_CLASSES_SEQ");
		seq_len = strlen(seq);
		seq_wl = wl;
		seq_wl_len = wl_len;
		lg_on = true;
		tc.inner = &seq_ops;
		tc.inner_st = NULL;
		tc.lock = sc->default_lock;
		if (weft_execute(&o, &lg_ops, &lg, &r))
			return 1;
		printf("%.*s  charged: plain dfs %u, dpor.c %u; class %016llx\n", (int)lg.n, lg.buf,
		       lg.dfs_cost, lg.dpor_cost, (unsigned long long)tc.last);
		return 0;
	}

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
	size_t missed = 0, spun_missed = 0;
	struct fset seen = { 0 }, spun = { 0 };
	static struct weft_dfs dfs;
	weft_dfs_init(&dfs, sc, bound, wl, wl_len);
	tc.inner = &weft_strategy_dfs;
	tc.inner_st = &dfs;
	while (weft_execute(&o, &lg_ops, &lg, &r) == 0) {
		pe++;
		bugs += r.kind != WEFT_KIND_NONE;
		over += tc.overflow;
		bool fresh = !fset_has(&plain, tc.last | 1);
		fset_add(&plain, tc.last);
		if (lg.spun && !fset_has(&spun, tc.last | 1)) {
			fset_add(&spun, tc.last);
			spun_missed += !fset_has(&got, tc.last | 1);
		}
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
		if (lg_on)
			printf("%.*s  charged: plain dfs %u, dpor.c %u\n  STEPS %s\n", (int)lg.n,
			       lg.buf, lg.dfs_cost, lg.dpor_cost, lg.steps);
	}
	(void)seen;
	printf("%s:%s bound %u: plain dfs %llu executions%s, %zu classes (%llu reports, %llu "
	       "overflowed)\n", sc->name, sc->variants[vi].name, bound, pe,
	       dfs.complete ? "" : " (incomplete)", plain.n, bugs, over);
	printf("  source-DPOR (bound %u) %llu executions%s, %zu classes, %zu of plain's missed\n",
	       dbound, de, complete ? "" : " (incomplete)", got.n, missed);
	printf("  plain's classes with an observation spin: %zu, of them missed: %zu\n", spun.n,
	       spun_missed);
	return missed != 0;
}
