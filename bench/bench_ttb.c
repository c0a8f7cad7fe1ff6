/*
 * bench_ttb.c - time to bug (section ttb of `weft bench`): every buggy
 * variant under every searcher of bench_strategies, seeds 1..N, counting
 * only the variant's own bug kind, and the headline (the stress test's
 * time to bug over Weft's). The results stay in bench_ttb_results for the
 * target table.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* harness.h declares its length: a row more or less here does not compile */
const struct bstrategy bench_strategies[] = {
	{ "libfuzzer", S_FUZZ, "libfuzzer", 0 },
	{ "libfuzzer-nofeedback", S_FUZZ, "libfuzzer", 1 },
	{ "afl", S_FUZZ, "afl", 0 },
	{ "random", S_RUN, "random", 0 },
	{ "pct-d2", S_RUN, "pct", 2 },
	{ "pct-d3", S_RUN, "pct", 3 },
	{ "dfs-b1", S_DFS, NULL, 1 },
	{ "dfs-b2", S_DFS, NULL, 2 },
	{ "stress", S_STRESS, NULL, 0 },
};

/* Count a report of kind name that is not the row's kind. */
static void count_other(struct ttb *t, const char *name, unsigned n)
{
	enum weft_kind k = name ? weft_kind_from_name(name) : WEFT_KIND_NONE;

	t->other[k] += n;
}

/* "bad-free ×27, list-corruption ×12" (empty: none). */
static void other_text(const struct ttb *t, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned k = 0; k < WEFT_KIND__COUNT && o < n; k++)
		if (t->other[k])
			o += (size_t)snprintf(buf + o, n - o, "%s%s ×%u", o ? ", " : "",
					      k ? weft_kind_name((enum weft_kind)k) : "unnamed",
					      t->other[k]);
}

struct ttb bench_ttb_results[MAX_VARIANTS][NR_STRATEGIES];

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Censored median: misses are +inf. */
double bench_cmedian(double *v, unsigned n)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), cmp_d);
	double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return isfinite(m) ? m : -1;
}

static void ttb_seed_run(const struct bvariant *v, const struct bstrategy *s, unsigned seed,
			 struct ttb *t, double *secs, double *execs)
{
	struct argv_buf a;
	struct child c;
	char spec[140];
	double timeout;

	*secs = *execs = INFINITY;
	snprintf(spec, sizeof(spec), "%s:%s", v->scenario, v->variant);
	bench_av_init(&a, bench_self);
	switch (s->kind) {
	case S_RUN:
		bench_av_add(&a, "run");
		bench_av_add(&a, "%s", spec);
		bench_av_add(&a, "--strategy");
		bench_av_add(&a, "%s", s->arg);
		if (s->param) {
			bench_av_add(&a, "--depth");
			bench_av_add(&a, "%u", s->param);
		}
		bench_av_add(&a, "--seed");
		bench_av_add(&a, "%u", seed);
		bench_av_add(&a, "--iterations");
		bench_av_add(&a, "%" PRIu64, B.run_cap);
		if (v->kind[0]) {
			/* only the variant's bug ends the run: others are counted */
			bench_av_add(&a, "--kind");
			bench_av_add(&a, "%s", v->kind);
		}
		bench_av_add(&a, "--quiet");
		bench_av_add(&a, "--json");
		t->cap = (double)B.run_cap;
		t->cap_is_execs = true;
		timeout = B.quick ? 60 : 600;
		break;
	case S_FUZZ:
		bench_av_add(&a, "fuzz");
		bench_av_add(&a, "%s", spec);
		bench_av_add(&a, "--engine");
		bench_av_add(&a, "%s", s->arg);
		bench_av_add(&a, "--time");
		bench_av_add(&a, "%.0f", B.fuzz_cap);
		bench_av_add(&a, "--seed");
		bench_av_add(&a, "%u", seed);
		if (s->param)
			bench_av_add(&a, "--no-feedback");
		/* a fresh work directory per run: no corpus carried across seeds */
		bench_av_add(&a, "--out");
		bench_av_add(&a, "%s/fuzz/%s-%s-%s-s%u", B.out, v->scenario, v->variant, s->name, seed);
		bench_av_add(&a, "--json");
		t->cap = B.fuzz_cap;
		timeout = B.fuzz_cap * 2 + 60;
		break;
	case S_STRESS:
	default:
		bench_av_add(&a, "stress");
		bench_av_add(&a, "%s", spec);
		bench_av_add(&a, "--time");
		bench_av_add(&a, "%g", B.stress_cap);
		bench_av_add(&a, "--seed");
		bench_av_add(&a, "%u", seed);
		bench_av_add(&a, "--stop-first");
		bench_av_add(&a, "--json");
		t->cap = B.stress_cap;
		timeout = B.stress_cap * 2 + 30;
		break;
	}
	bench_run_child(a.v, timeout, s->kind != S_STRESS, &c);
	struct jnode *n = bench_child_json(&c);
	if (!n || n->t != J_OBJ || (c.status != 0 && c.status != 1)) {
		if (!t->note[0])
			bench_child_why(&c, t->note, sizeof(t->note));
		goto done;
	}
	t->runs++;
	/* a report counts only if it is the variant's kind; another kind is
	 * a miss of this seed, and the row lists it */
	const char *kind = bench_jstr(n, "kind");
	bool ours = !v->kind[0] || (kind && !strcmp(kind, v->kind));
	if (s->kind == S_STRESS) {
		if (bench_jnum(n, "manifestations", 0) > 0 && ours) {
			*secs = bench_jnum(n, "first_seconds", INFINITY);
			*execs = bench_jnum(n, "first_iteration", INFINITY);
			t->found++;
		} else if (bench_jnum(n, "manifestations", 0) > 0) {
			count_other(t, kind, 1);
		}
	} else {
		const char *verdict = bench_jstr(n, "verdict");
		if (verdict && !strcmp(verdict, "bug") && ours) {
			*secs = bench_jnum(n, "seconds", INFINITY);
			*execs = bench_jnum(n, "executions", INFINITY);
			t->found++;
		} else if (verdict && !strcmp(verdict, "bug")) {
			count_other(t, kind, 1);
		}
		/* weft run --kind skipped these on its way */
		for (const struct jnode *k = bench_jget(n, "other_kinds") ? bench_jget(n, "other_kinds")->kid
								  : NULL; k; k = k->next)
			if (k->t == J_NUM)
				count_other(t, k->key, (unsigned)k->num);
	}
done:
	bench_jfree(n);
	bench_child_free(&c);
}

static void ttb_dfs(const struct bvariant *v, const struct bstrategy *s, struct ttb *t)
{
	char path[PATH_MAX + 32];
	struct argv_buf a;
	struct child c;

	snprintf(path, sizeof(path), "%s/weft-microbench", bench_bindir);
	if (!bench_file_executable(path)) {
		bench_missing_program(t->note, sizeof(t->note), "weft-microbench");
		return;
	}
	bench_av_init(&a, path);
	bench_av_add(&a, "dfs");
	bench_av_add(&a, "%s:%s", v->scenario, v->variant);
	bench_av_add(&a, "--bound");
	bench_av_add(&a, "%u", s->param);
	bench_av_add(&a, "--max");
	bench_av_add(&a, "%u", B.quick ? 200000u : 5000000u);
	if (v->kind[0]) {
		bench_av_add(&a, "--kind");
		bench_av_add(&a, "%s", v->kind);
	}
	bench_run_child(a.v, B.quick ? 30 : 300, true, &c);
	struct jnode *n = bench_child_json(&c);
	t->cap = B.quick ? 200000 : 5000000;
	t->cap_is_execs = true;
	if (!n || n->t != J_OBJ) {
		bench_child_why(&c, t->note, sizeof(t->note));
	} else {
		t->runs = 1;
		t->dfs_total = bench_jnum(n, "executions", -1);
		t->dfs_secs = bench_jnum(n, "seconds", -1);
		const struct jnode *comp = bench_jget(n, "complete");
		t->dfs_complete = comp && comp->t == J_BOOL && comp->b;
		t->dfs_other = bench_jnum(n, "other_bugs", 0);
		double fe = bench_jnum(n, "first_bug_execution", -1);
		if (fe > 0) {
			t->found = 1;
			t->med_e = t->min_e = t->max_e = fe;
			t->med_s = t->min_s = t->max_s = bench_jnum(n, "first_bug_seconds", -1);
		}
		if (bench_jnum(n, "workload_bytes", 0) == 0)
			snprintf(t->note, sizeof(t->note),
				 "no trigger workload in the registry: searches the empty workload");
	}
	bench_jfree(n);
	bench_child_free(&c);
}

static void ttb_row(unsigned vi, unsigned si)
{
	const struct bvariant *v = &bench_vars[vi];
	const struct bstrategy *s = &bench_strategies[si];
	struct ttb *t = &bench_ttb_results[vi][si];
	double secs[64], execs[64];
	unsigned n = 0;

	memset(t, 0, sizeof(*t));
	t->med_s = t->min_s = t->max_s = t->med_e = t->min_e = t->max_e = -1;
	t->dfs_total = t->dfs_secs = -1;
	if (bench_skip_row(s->kind, s->arg, s->param)) {
		snprintf(t->note, sizeof(t->note), "%s", bench_skip_row(s->kind, s->arg, s->param));
	} else if (bench_budget_spent()) {
		snprintf(t->note, sizeof(t->note), "time budget spent");
	} else if (s->kind == S_DFS) {
		ttb_dfs(v, s, t);
	} else {
		unsigned misses = 0;
		unsigned seeds = s->kind == S_RUN ? B.seeds : B.slow_seeds;
		for (unsigned seed = 1; seed <= seeds && n < 64; seed++) {
			if (bench_budget_spent())
				break;
			ttb_seed_run(v, s, seed, t, &secs[n], &execs[n]);
			if (t->runs <= n)
				break;   /* the tool failed: the note says why */
			misses = isfinite(secs[n]) ? 0 : misses + 1;
			n++;
			/* Two misses in a row end the row (each miss costs the
			 * whole cap); the row says how many seeds ran and its
			 * median counts only those. */
			if (misses >= 2 && seed < seeds) {
				char capb[32];
				if (s->kind == S_RUN)
					bench_fmt_si(capb, sizeof(capb), (double)B.run_cap);
				snprintf(t->note, sizeof(t->note),
					 "stopped after %u seeds: two in a row found nothing in %s%s",
					 n, s->kind == S_RUN ? capb : bench_fmt_secs(capb, sizeof(capb),
					 s->kind == S_STRESS ? B.stress_cap : B.fuzz_cap),
					 s->kind == S_RUN ? " executions" : "");
				break;
			}
		}
		if (n) {
			t->min_s = t->min_e = INFINITY;
			t->max_s = t->max_e = 0;
			for (unsigned k = 0; k < n; k++) {
				if (!isfinite(secs[k]))
					continue;
				t->min_s = dmin(t->min_s, secs[k]);
				t->max_s = dmax(t->max_s, secs[k]);
				t->min_e = dmin(t->min_e, execs[k]);
				t->max_e = dmax(t->max_e, execs[k]);
			}
			if (!t->found)
				t->min_s = t->max_s = t->min_e = t->max_e = -1;
			t->med_s = bench_cmedian(secs, n);
			t->med_e = bench_cmedian(execs, n);
		}
	}

	char b[8][32], found[48], capb[32];
	if (s->kind == S_DFS)
		snprintf(found, sizeof(found), "%s", t->runs ? (t->found ? "yes" : "no") : "-");
	else
		snprintf(found, sizeof(found), "%u/%u", t->found, t->runs);
	if (t->cap_is_execs)
		bench_fmt_si(capb, 32, t->cap);
	else
		bench_fmt_secs(capb, 32, t->cap);
	/* the note: what dfs covered, why a row is short, what else was
	 * reported (and not counted) */
	char note[1200] = "", others[300];
	size_t o = 0;
	other_text(t, others, sizeof(others));
	if (s->kind == S_DFS && t->runs)
		o += (size_t)snprintf(note + o, sizeof(note) - o, "%s executions, %s, %s",
				      bench_fmt_si(b[6], 32, t->dfs_total),
				      t->dfs_complete ? "complete" : "NOT complete",
				      bench_fmt_secs(b[7], 32, t->dfs_secs));
	if (t->note[0])
		o += (size_t)snprintf(note + o, sizeof(note) - o, "%s%s%s", o ? "; " : "",
				      t->runs ? "" : "not measured: ", t->note);
	else if (s->kind != S_DFS && t->runs && !t->found)
		o += (size_t)snprintf(note + o, sizeof(note) - o, "%snot found in %u × %s",
				      o ? "; " : "", t->runs, capb);
	if (others[0] && o < sizeof(note))
		o += (size_t)snprintf(note + o, sizeof(note) - o,
				      "%sother kinds, not counted: %s", o ? "; " : "", others);
	if (t->dfs_other > 0 && o < sizeof(note))
		snprintf(note + o, sizeof(note) - o, "%s%.0f executions ended in other kinds, not "
			 "counted", o ? "; " : "", t->dfs_other);
	fprintf(md, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		v->zoo[0] ? v->zoo : "-", v->variant, s->name, v->kind[0] ? v->kind : "any",
		found, t->runs && t->found && t->med_s < 0 ? "not found" :
		bench_fmt_secs(b[0], 32, t->med_s), bench_fmt_secs(b[1], 32, t->min_s), bench_fmt_secs(b[2], 32, t->max_s),
		bench_fmt_si(b[3], 32, t->med_e), bench_fmt_si(b[4], 32, t->min_e), bench_fmt_si(b[5], 32, t->max_e),
		t->cap > 0 ? capb : "-", note);

	bench_js_variant_row(v->scenario, v->variant);
	bench_js_kstr("zoo", v->zoo[0] ? v->zoo : NULL, true);
	bench_js_kstr("strategy", s->name, true);
	bench_js_kstr("kind", v->kind[0] ? v->kind : NULL, true);
	fprintf(js, "\"seeds\": %u, \"found\": %u, \"other_kinds\": {", t->runs, t->found);
	for (unsigned k = 0, first = 1; k < WEFT_KIND__COUNT; k++)
		if (t->other[k]) {
			fprintf(js, "%s\"%s\": %u", first ? "" : ", ",
				k ? weft_kind_name((enum weft_kind)k) : "unnamed", t->other[k]);
			first = 0;
		}
	fprintf(js, "}, ");
	bench_js_num("median_seconds", t->med_s, true);
	bench_js_num("min_seconds", t->min_s, true);
	bench_js_num("max_seconds", t->max_s, true);
	bench_js_num("median_executions", t->med_e, true);
	bench_js_num("min_executions", t->min_e, true);
	bench_js_num("max_executions", t->max_e, true);
	fprintf(js, "\"cap\": %.6g, \"cap_unit\": \"%s\", ", t->cap,
		t->cap_is_execs ? "executions" : "seconds");
	if (s->kind == S_DFS) {
		bench_js_num("executions_to_completion", t->dfs_complete ? t->dfs_total : -1, true);
		bench_js_num("executions_run", t->dfs_total, true);
		fprintf(js, "\"complete\": %s, ", t->dfs_complete ? "true" : "false");
		bench_js_num("other_kind_executions", t->dfs_other, true);
	}
	bench_js_kstr(t->runs ? "note" : "not_measured", t->note[0] ? t->note : NULL, false);
	fprintf(js, "}");
	fflush(md);
}

void bench_section_ttb(void)
{
	fprintf(md, "## Time to bug (%u seeds per row; %s)\n\n", B.seeds,
		"medians count a miss as +∞, min/max are over the seeds that found it");
	fprintf(md, "A seed counts as found only when the report is the variant's own kind "
		    "(`weft list`, column kind); `weft run` rows search on past other kinds "
		    "(`--kind`), engine and stress rows stop at the first report, so another kind "
		    "is a miss there. The note lists the other kinds seen.\n\n");
	fprintf(md, "| zoo | variant | strategy | kind | found | median | min | max | median exec | "
		    "min exec | max exec | cap/run | note |\n"
		    "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
	bench_js_section("time_to_bug");
	BENCH_FOR_EACH_SELECTED(i, true) {
		for (unsigned s = 0; s < NR_STRATEGIES; s++)
			ttb_row(i, s);
	}
	bench_js_end_section();
	fprintf(md, "\ndfs rows: executions to the first bug in the median column; the note "
		    "gives the executions to complete the bounded space (the search goes on past "
		    "the bug) and whether it was covered completely.\n\n");
}

int bench_strategy_index(const char *name)
{
	for (unsigned s = 0; s < NR_STRATEGIES; s++)
		if (!strcmp(bench_strategies[s].name, name))
			return (int)s;
	return -1;
}

/* The headline: stress time to bug / Weft's, for Weft's default (weft
 * fuzz, libFuzzer, feedback) and for in-process random. A stress row that
 * never found the bug gives a lower bound (its cap / Weft's median). */
static void ratio_cell(char *buf, size_t n, const struct ttb *w, const struct ttb *s,
		       double *ratio, double *lower)
{
	*ratio = *lower = -1;
	if (w->med_s > 0 && s->med_s > 0) {
		*ratio = s->med_s / w->med_s;
		snprintf(buf, n, *ratio >= 10 ? "**%.0f×**" : "**%.2f×**", *ratio);
	} else if (w->med_s > 0 && s->runs && !s->found) {
		*lower = s->cap / w->med_s;
		snprintf(buf, n, "> %.0f× (not found in %u × %g s)", *lower, s->runs, s->cap);
	} else {
		snprintf(buf, n, "-");
	}
}

void bench_section_headline(void)
{
	int st = bench_strategy_index("stress"), lf = bench_strategy_index("libfuzzer"),
	    rnd = bench_strategy_index("random");
	char b1[32], b2[32], b3[32], c1[96], c2[96];

	fprintf(md, "## Headline: stress test time to bug / Weft's (medians)\n\n");
	fprintf(md, "| zoo | variant | stress median | stress found | weft fuzz (libFuzzer) median "
		    "| stress / weft fuzz | random median | stress / random |\n"
		    "|---|---|---:|---|---:|---:|---:|---:|\n");
	bench_js_section("headline");
	BENCH_FOR_EACH_SELECTED(i, true) {
		const struct ttb *w = &bench_ttb_results[i][lf], *r = &bench_ttb_results[i][rnd], *s = &bench_ttb_results[i][st];
		double rw, lw, rr, lr;
		ratio_cell(c1, sizeof(c1), w, s, &rw, &lw);
		ratio_cell(c2, sizeof(c2), r, s, &rr, &lr);
		fprintf(md, "| %s | %s | %s | %u/%u | %s | %s | %s | %s |\n",
			bench_vars[i].zoo[0] ? bench_vars[i].zoo : "-", bench_vars[i].variant,
			bench_fmt_secs(b1, 32, s->med_s), s->found, s->runs, bench_fmt_secs(b2, 32, w->med_s), c1,
			bench_fmt_secs(b3, 32, r->med_s), c2);
		bench_js_variant_row(bench_vars[i].scenario, bench_vars[i].variant);
		bench_js_kstr("zoo", bench_vars[i].zoo[0] ? bench_vars[i].zoo : NULL, true);
		bench_js_num("stress_median_seconds", s->med_s, true);
		fprintf(js, "\"stress_found\": %u, \"stress_seeds\": %u, ", s->found, s->runs);
		bench_js_num("stress_cap_seconds", s->cap, true);
		bench_js_num("weft_fuzz_median_seconds", w->med_s, true);
		bench_js_num("random_median_seconds", r->med_s, true);
		bench_js_num("ratio_stress_fuzz", rw, true);
		bench_js_num("ratio_stress_fuzz_lower_bound", lw, true);
		bench_js_num("ratio_stress_random", rr, true);
		bench_js_num("ratio_stress_random_lower_bound", lr, false);
		fprintf(js, "}");
	}
	bench_js_end_section();
	fprintf(md, "\n");
}
