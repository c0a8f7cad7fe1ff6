/*
 * bench_dpor.c - weft-bench-dpor: partial-order reduction against plain
 * dfs, measured in one run, in-process, on this machine. It prints the
 * markdown tables of docs/strategies.md ("Partial-order reduction:
 * measured"):
 *
 *  1. every fixed zoo variant on its trigger workload (as `weft run
 *     --strategy dfs` picks it): executions to search bound 2 and 3
 *     completely, plain dfs (--por none) against source-DPOR (the sound
 *     reduction under a bound), and every interleaving (--bound none)
 *     against optimal DPOR; the reduction factor side by side;
 *  2. demo-por-writers: executions to the racy pair's bug by iterative
 *     bounding (bound 0, 1, ... as `weft run` does), and the atomic
 *     variant verified with --bound none;
 *  3. demo-por-locks (8 threads, one lock or two): executions per bound;
 *  4. executions per second of optimal DPOR and plain dfs on the same
 *     search.
 *
 * Every search runs with `weft run`'s default checks (WEFT_CHECKS_DEFAULT:
 * lockdep-lite and fair scheduling of spin loops), as a user's search does.
 * Every search is capped (--cap, default 100000 executions); a capped
 * search is shown as ">= N (cap)" and its factor as a lower bound or "-".
 * A search DPOR does not certify (contexts, weft_choose()) is shown with
 * its reason. usage: weft-bench-dpor [--cap N] [--quick]
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/strategy.h>

struct res {
	uint64_t execs;
	bool complete, bug, capped;
	unsigned bug_bound;
	double secs;
	const char *why;
};

static uint64_t cap = 100000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct weft_dfs dfs;

static struct res run_dfs(const struct weft_scenario *sc, unsigned vi, unsigned bound,
			  const uint8_t *wl, size_t wl_len, uint64_t c)
{
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = WEFT_CHECKS_DEFAULT, .no_trace_hash = true };
	struct weft_exec_result r;
	struct res x = { 0 };
	double t0 = now();

	weft_dfs_init(&dfs, sc, bound, wl, wl_len);
	while (weft_execute(&o, &weft_strategy_dfs, &dfs, &r) == 0) {
		x.execs++;
		if (r.kind != WEFT_KIND_NONE) {
			x.bug = true;
			break;
		}
		if (x.execs >= c) {
			x.capped = true;
			break;
		}
	}
	x.complete = dfs.complete && !x.bug;
	x.secs = now() - t0;
	return x;
}

static struct res run_dpor(const struct weft_scenario *sc, unsigned vi, enum weft_por m,
			   unsigned bound, const uint8_t *wl, size_t wl_len, uint64_t c)
{
	struct weft_dpor *d = weft_dpor_new();
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .checks = WEFT_CHECKS_DEFAULT, .no_trace_hash = true };
	struct weft_exec_result r;
	struct weft_dpor_stats st;
	struct res x = { 0 };
	double t0 = now();

	if (!d || weft_dpor_reset(d, sc, m, bound, sc->default_lock, wl, wl_len) < 0) {
		x.why = "could not start";
		weft_dpor_free(d);
		return x;
	}
	weft_dpor_set_caps(d, 0, 0, c);
	while (weft_execute(&o, &weft_strategy_dpor, d, &r) == 0) {
		if (r.kind != WEFT_KIND_NONE) {
			x.bug = true;
			break;
		}
	}
	weft_dpor_get_stats(d, &st);
	x.execs = st.executions;
	x.complete = !x.bug && weft_dpor_complete(d);
	x.capped = !x.bug && !x.complete && x.execs >= c;
	if (!x.bug && !x.complete)
		x.why = weft_dpor_why_incomplete(d);
	x.secs = now() - t0;
	weft_dpor_free(d);
	return x;
}

/* Iterative bounding to a bug: bound 0, 1, ... up to maxb, executions
 * summed (what `weft run --strategy dfs --bound maxb` does). */
static struct res iterate(const struct weft_scenario *sc, unsigned vi, enum weft_por m,
			  unsigned maxb, const uint8_t *wl, size_t wl_len)
{
	struct res t = { 0 };
	double t0 = now();

	for (unsigned b = 0; b <= maxb; b++) {
		uint64_t left = cap > t.execs ? cap - t.execs : 1;
		struct res x = m == WEFT_POR_NONE ? run_dfs(sc, vi, b, wl, wl_len, left)
						  : run_dpor(sc, vi, m, b, wl, wl_len, left);
		t.execs += x.execs;
		if (x.bug) {
			t.bug = true;
			t.bug_bound = b;
			break;
		}
		if (!x.complete) {
			t.capped = x.capped || t.execs >= cap;
			t.why = x.why;
			break;
		}
	}
	t.secs = now() - t0;
	return t;
}

static const char *cell(char *b, size_t n, const struct res *x)
{
	if (x->why && !x->capped)
		snprintf(b, n, "not certified");
	else if (x->capped || (!x->complete && !x->bug))
		snprintf(b, n, ">= %" PRIu64 " (cap)", x->execs);
	else if (x->bug)
		snprintf(b, n, "%" PRIu64 " (bug)", x->execs);
	else
		snprintf(b, n, "%" PRIu64, x->execs);
	return b;
}

static const char *factor(char *b, size_t n, const struct res *plain, const struct res *red)
{
	bool pdone = plain->complete || plain->bug, rdone = red->complete || red->bug;

	if (!rdone || !red->execs)
		snprintf(b, n, "-");
	else if (pdone)
		snprintf(b, n, "%.1fx", (double)plain->execs / (double)red->execs);
	else
		snprintf(b, n, ">= %.1fx", (double)plain->execs / (double)red->execs);
	return b;
}

static const struct weft_scenario *find(const char *name, const char *var, unsigned *vi)
{
	for (unsigned i = 0; i < weft_nr_scenarios; i++) {
		const struct weft_scenario *sc = weft_scenarios[i];
		if (strcmp(sc->name, name))
			continue;
		for (unsigned v = 0; v < sc->nr_variants; v++)
			if (!strcmp(sc->variants[v].name, var)) {
				*vi = v;
				return sc;
			}
	}
	fprintf(stderr, "weft-bench-dpor: no %s:%s\n", name, var);
	exit(2);
}

static const char *reasons[16];
static unsigned nreasons;

static unsigned note(const char *why)
{
	for (unsigned i = 0; i < nreasons; i++)
		if (!strcmp(reasons[i], why))
			return i + 1;
	if (nreasons < 16)
		reasons[nreasons++] = why;
	return nreasons;
}

static void zoo_rows(bool quick)
{
	char a[48], b[48], c[48], e[48], f[48], g[48], h[48], k[48], l[48];

	printf("### Fixed zoo variants: executions to search completely\n\n");
	printf("Each on its trigger workload; plain dfs (`--por none`) against source-DPOR "
	       "at bounds 2 and 3, and against optimal DPOR with `--bound none`.\n\n");
	printf("| variant | bound 2: none | source | factor | bound 3: none | source | factor "
	       "| none: plain dfs | optimal | factor |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (unsigned i = 0; i < weft_nr_scenarios; i++) {
		const struct weft_scenario *sc = weft_scenarios[i];
		for (unsigned vi = 0; vi < sc->nr_variants; vi++) {
			const struct weft_variant *v = &sc->variants[vi];
			if (!v->zoo || v->buggy)
				continue;
			uint8_t wl[WEFT_INPUT_MAX];
			size_t wl_len = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);
			struct res p2 = run_dfs(sc, vi, 2, wl, wl_len, cap);
			struct res s2 = run_dpor(sc, vi, WEFT_POR_SOURCE, 2, wl, wl_len, cap);
			struct res p3 = { 0 }, s3 = { 0 }, pn = { 0 }, on = { 0 };
			if (!quick) {
				p3 = run_dfs(sc, vi, 3, wl, wl_len, cap);
				s3 = run_dpor(sc, vi, WEFT_POR_SOURCE, 3, wl, wl_len, cap);
				pn = run_dfs(sc, vi, WEFT_BOUND_NONE, wl, wl_len, cap);
				on = run_dpor(sc, vi, WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, wl, wl_len, cap);
			}
			char nb[64] = "";
			const char *why = s2.why && !s2.capped ? s2.why : on.why && !on.capped ? on.why
												   : NULL;
			if (why)
				snprintf(nb, sizeof(nb), " [%u]", note(why));
			printf("| %s:%s%s | %s | %s | %s |", sc->name, v->name, nb, cell(a, 48, &p2),
			       cell(b, 48, &s2), factor(c, 48, &p2, &s2));
			if (quick)
				printf(" | | | | | |\n");
			else
				printf(" %s | %s | %s | %s | %s | %s |\n", cell(e, 48, &p3),
				       cell(f, 48, &s3), factor(g, 48, &p3, &s3), cell(h, 48, &pn),
				       cell(k, 48, &on), factor(l, 48, &pn, &on));
			fflush(stdout);
		}
	}
	printf("\n");
	for (unsigned i = 0; i < nreasons; i++)
		printf("[%u] DPOR does not certify: %s\n\n", i + 1, reasons[i]);
}

static void writers_rows(void)
{
	char a[48], b[48], c[48];
	unsigned vi;
	const struct weft_scenario *sc = find("demo-por-writers", "racy", &vi);
	uint8_t wl[WEFT_INPUT_MAX];
	size_t n = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);

	printf("### demo-por-writers: a racy pair among 10 independent writers\n\n");
	printf("| search | plain dfs | source-DPOR / optimal | factor |\n|---|---:|---:|---:|\n");
	struct res p = iterate(sc, vi, WEFT_POR_NONE, 3, wl, n);
	struct res s = iterate(sc, vi, WEFT_POR_SOURCE, 3, wl, n);
	char pb[16] = "-", sb[16] = "-";
	if (p.bug)
		snprintf(pb, sizeof(pb), "%u", p.bug_bound);
	if (s.bug)
		snprintf(sb, sizeof(sb), "%u", s.bug_bound);
	printf("| racy: executions to the bug, iterative bounding 0..3 (found at bound %s / %s) "
	       "| %s | %s | %s |\n", pb, sb, cell(a, 48, &p), cell(b, 48, &s),
	       factor(c, 48, &p, &s));
	sc = find("demo-por-writers", "atomic", &vi);
	n = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);
	p = run_dfs(sc, vi, WEFT_BOUND_NONE, wl, n, cap);
	s = run_dpor(sc, vi, WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, wl, n, cap);
	printf("| atomic (fixed): verified, `--bound none` (optimal) | %s | %s | %s |\n\n",
	       cell(a, 48, &p), cell(b, 48, &s), factor(c, 48, &p, &s));
	fflush(stdout);
}

static void locks_rows(bool quick)
{
	static const char *const vars[] = { "one-lock", "two-locks" };
	char a[48], b[48], c[48];

	printf("### demo-por-locks: 8 threads, shared data under one lock or two\n\n");
	printf("| variant | bound | plain dfs | source-DPOR (optimal for none) | factor |\n"
	       "|---|---|---:|---:|---:|\n");
	for (unsigned i = 0; i < 2; i++) {
		unsigned vi;
		const struct weft_scenario *sc = find("demo-por-locks", vars[i], &vi);
		uint8_t wl[WEFT_INPUT_MAX];
		size_t n = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);
		for (unsigned b_ = 0; b_ <= (quick ? 1u : 3u); b_++) {
			struct res p = run_dfs(sc, vi, b_, wl, n, cap);
			struct res s = run_dpor(sc, vi, WEFT_POR_SOURCE, b_, wl, n, cap);
			printf("| %s | %u | %s | %s | %s |\n", vars[i], b_, cell(a, 48, &p),
			       cell(b, 48, &s), factor(c, 48, &p, &s));
			fflush(stdout);
		}
		struct res p = run_dfs(sc, vi, WEFT_BOUND_NONE, wl, n, cap);
		struct res s = run_dpor(sc, vi, WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, wl, n, cap);
		printf("| %s | none | %s | %s | %s |\n", vars[i], cell(a, 48, &p), cell(b, 48, &s),
		       factor(c, 48, &p, &s));
		fflush(stdout);
	}
	printf("\n");
}

static void speed_rows(void)
{
	static const struct { const char *sc, *var; unsigned bound; } rows[] = {
		{ "demo-por-locks", "one-lock", WEFT_BOUND_NONE },
		{ "demo-por-locks", "two-locks", WEFT_BOUND_NONE },
		{ "demo-por-rw", "locked", WEFT_BOUND_NONE },
	};
	printf("### Executions per second, same search\n\n");
	printf("| search | plain dfs exec/s | optimal exec/s | source exec/s (bound 2) "
	       "| plain dfs exec/s (bound 2) |\n|---|---:|---:|---:|---:|\n");
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned vi;
		const struct weft_scenario *sc = find(rows[i].sc, rows[i].var, &vi);
		uint8_t wl[WEFT_INPUT_MAX];
		size_t n = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);
		uint64_t c = cap < 50000 ? cap : 50000;
		struct res p = run_dfs(sc, vi, WEFT_BOUND_NONE, wl, n, c);
		struct res o = run_dpor(sc, vi, WEFT_POR_OPTIMAL, WEFT_BOUND_NONE, wl, n, c);
		struct res s2 = run_dpor(sc, vi, WEFT_POR_SOURCE, 2, wl, n, c);
		struct res p2 = run_dfs(sc, vi, 2, wl, n, c);
		printf("| %s:%s | %.0f | %.0f | %.0f | %.0f |\n", rows[i].sc, rows[i].var,
		       (double)p.execs / p.secs, (double)o.execs / o.secs,
		       (double)s2.execs / s2.secs, (double)p2.execs / p2.secs);
		fflush(stdout);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	bool quick = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cap") && i + 1 < argc) {
			cap = strtoull(argv[++i], NULL, 10);
			if (!cap)
				cap = 1;
		} else if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else {
			fprintf(stderr, "usage: weft-bench-dpor [--cap N] [--quick]\n");
			return 2;
		}
	}
	double t0 = now();
	printf("Executions capped at %" PRIu64 " per search%s.\n\n", cap,
	       quick ? " (--quick: bound 2 only for the zoo)" : "");
	writers_rows();
	locks_rows(quick);
	speed_rows();
	zoo_rows(quick);
	printf("Total: %.1f s.\n", now() - t0);
	return 0;
}
