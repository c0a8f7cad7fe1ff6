/*
 * bench_curve.c - the scaling section of `weft bench` (issue 23, item 5):
 * weft-bench-scaling (bench/bench_scaling.c) measures executions to the bug
 * and ns per step against threads and steps per thread, on a synthetic
 * counter race and one zoo variant, for random, pct d2, source-DPOR and the
 * in-process genome fuzzer; this prints its rows as one table.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "harness.h"

static const char *const curve_searchers[] = { "random", "pct-d2", "dpor", "genome" };

static const struct jnode *curve_find(const struct jnode *rows, const char *workload,
				      double threads, double spt, const char *searcher)
{
	for (const struct jnode *r = rows->kid; r; r = r->next) {
		const char *w = bench_jstr(r, "workload"), *s = bench_jstr(r, "searcher");
		if (w && s && !strcmp(w, workload) && !strcmp(s, searcher) &&
		    bench_jnum(r, "threads", -1) == threads &&
		    bench_jnum(r, "steps_per_thread", -1) == spt)
			return r;
	}
	return NULL;
}

void bench_section_scaling(void)
{
	char b1[32], b2[32];
	struct argv_buf a;
	struct child c;

	if (!bench_program_section("Scaling: threads and steps per thread (issue 23, item 5)",
				   "scaling", "weft-bench-scaling", &a))
		return;
	if (B.quick)
		bench_av_add(&a, "--quick");
	else
		bench_av_add(&a, "--seeds");
	if (!B.quick)
		bench_av_add(&a, "%u", B.seeds > 64 ? 64 : B.seeds ? B.seeds : 5);
	bench_run_child(a.v, B.quick ? 120 : 3600, true, &c);
	struct jnode *n = bench_child_json(&c);
	const struct jnode *rows = n ? bench_jget(n, "rows") : NULL;
	if (!n || n->t != J_OBJ || !rows || rows->t != J_ARR) {
		bench_child_unmeasured(&c, n, "weft-bench-scaling");
		return;
	}
	bench_child_copy_object(&c);
	fprintf(md, "`weft-bench-scaling%s` (bench/bench_scaling.c), in one process. "
		    "`bench-counter-race` (defined there, not in the registry): T threads on T fake "
		    "CPUs, S scheduling points each, one unlocked increment of a shared counter in "
		    "the middle of each thread, the rest atomic increments of the thread's own "
		    "counter; the bug is the lost update. `%s xR ops`: that zoo variant on its "
		    "trigger workload with each thread's ops repeated R times (its own thread "
		    "count; steps per thread measured, the mean of 200 random runs). Searchers to "
		    "the declared kind: `random`, `pct-d2` (%g seeds each), `dpor` (source-DPOR, "
		    "iterative preemption bound 0, 1, 2; one deterministic run), `genome` (the "
		    "genome mutator of libweft_fuzz in this process, fed back by new trace hashes "
		    "only: not libFuzzer, which cannot load a scenario outside the registry). "
		    "Each seed is capped at %g executions and %g steps; a cell is \"exec (found/"
		    "seeds)\", its median counting a miss as +∞, and ns/step over all its "
		    "executions (searcher included; a cell that found the bug in a few executions "
		    "measures few steps and start-up).\n\n",
		B.quick ? " --quick" : "", bench_jstr(n, "zoo") ? bench_jstr(n, "zoo") : "?",
		bench_jnum(n, "seeds", -1), bench_jnum(n, "cap_executions", -1),
		bench_jnum(n, "cap_steps", -1));
	fprintf(md, "| workload | threads | steps/thread |");
	for (unsigned s = 0; s < 4; s++)
		fprintf(md, " %s exec | %s ns/step |", curve_searchers[s], curve_searchers[s]);
	fprintf(md, "\n|---|---:|---:|");
	for (unsigned s = 0; s < 4; s++)
		fprintf(md, "---:|---:|");
	fprintf(md, "\n");
	/* one line per (workload, threads, steps) in the child's order */
	for (const struct jnode *r = rows->kid; r; r = r->next) {
		const char *w = bench_jstr(r, "workload"), *s = bench_jstr(r, "searcher");
		double th = bench_jnum(r, "threads", -1), spt = bench_jnum(r, "steps_per_thread", -1);
		if (!w || !s || strcmp(s, curve_searchers[0]))
			continue;
		fprintf(md, "| %s | %g | %.0f |", w, th, spt);
		for (unsigned k = 0; k < 4; k++) {
			const struct jnode *x = curve_find(rows, w, th, spt, curve_searchers[k]);
			double med = x ? bench_jnum(x, "median_executions", -1) : -1;
			const char *note = x ? bench_jstr(x, "note") : NULL;
			if (!x) {
				fprintf(md, " - | - |");
				continue;
			}
			fprintf(md, " %s (%g/%g)%s | %s |",
				med >= 0 ? bench_fmt_si(b1, 32, med) : "not found",
				bench_jnum(x, "found", -1), bench_jnum(x, "seeds", -1),
				note && note[0] ? (!strcmp(note, "cap") ? " cap" : " incomplete") : "",
				bench_fmt_num(b2, 32, bench_jnum(x, "ns_per_step", -1), 0));
		}
		fprintf(md, "\n");
	}
	/* the reasons a dpor search stopped short, once each */
	for (const struct jnode *r = rows->kid; r; r = r->next) {
		const char *note = bench_jstr(r, "note");
		bool first = true;
		if (!note || !note[0] || !strcmp(note, "cap"))
			continue;
		for (const struct jnode *q = rows->kid; q != r; q = q->next)
			if (bench_jstr(q, "note") && !strcmp(bench_jstr(q, "note"), note))
				first = false;
		if (first)
			fprintf(md, "\n\"incomplete\" (%s, %s): %s\n", bench_jstr(r, "workload"),
				bench_jstr(r, "searcher"), note);
	}
	fprintf(md, "\n");
	bench_jfree(n);
	bench_child_free(&c);
}
