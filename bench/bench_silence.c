/*
 * bench_silence.c - silence (section silence of `weft bench`): every fixed
 * variant under every searcher, and what workload each row covered.
 */
#include <inttypes.h>
#include <string.h>

#include "harness.h"

/*
 * A silence row says what it covered: the workload (dfs: the fixed one it
 * searched, which must not be empty; random and pct: a generated one per
 * execution; the engines: the fuzzer's; stress: a random one per
 * iteration). An empty workload certifies nothing and is refused.
 */
static void silence_row(const struct bvariant *v, const struct bstrategy *s)
{
	struct argv_buf a;
	struct child c;
	char why[600] = "", budget[64] = "", workload[160] = "-";
	double reports = -1, execs = -1;

	if (bench_skip_row(s->kind, s->arg, s->param)) {
		snprintf(why, sizeof(why), "%s", bench_skip_row(s->kind, s->arg, s->param));
		goto out;
	}
	if (bench_budget_spent()) {
		snprintf(why, sizeof(why), "time budget spent");
		goto out;
	}
	bench_av_init(&a, bench_self);
	if (s->kind == S_DFS || s->kind == S_RUN) {
		bench_av_add(&a, "run");
		bench_av_add(&a, "%s:%s", v->scenario, v->variant);
		bench_av_add(&a, "--strategy");
		bench_av_add(&a, "%s", s->kind == S_DFS ? "dfs" : s->arg);
		if (s->param) {
			bench_av_add(&a, "%s", s->kind == S_DFS ? "--bound" : "--depth");
			bench_av_add(&a, "%u", s->param);
		}
		bench_av_add(&a, "--iterations");
		bench_av_add(&a, "%" PRIu64, B.silence_iters);
		bench_av_add(&a, "--quiet");
		bench_av_add(&a, "--json");
		snprintf(budget, sizeof(budget), "%" PRIu64 " exec", B.silence_iters);
		if (s->kind == S_RUN)
			snprintf(workload, sizeof(workload), "generated per execution");
	} else if (s->kind == S_FUZZ) {
		bench_av_add(&a, "fuzz");
		bench_av_add(&a, "%s:%s", v->scenario, v->variant);
		bench_av_add(&a, "--engine");
		bench_av_add(&a, "%s", s->arg);
		/* weft fuzz takes whole seconds, at least 1 */
		double fsecs = B.silence_secs < 1 ? 1 : (double)(long)B.silence_secs;
		bench_av_add(&a, "--time");
		bench_av_add(&a, "%.0f", fsecs);
		bench_av_add(&a, "--seed");
		bench_av_add(&a, "1");
		if (s->param)
			bench_av_add(&a, "--no-feedback");
		bench_av_add(&a, "--out");
		bench_av_add(&a, "%s/fuzz/%s-%s-%s-silence", B.out, v->scenario, v->variant, s->name);
		bench_av_add(&a, "--json");
		snprintf(budget, sizeof(budget), "%.0f s", fsecs);
		snprintf(workload, sizeof(workload), "chosen by the fuzzer (from its corpus)");
	} else {
		bench_av_add(&a, "stress");
		bench_av_add(&a, "%s:%s", v->scenario, v->variant);
		bench_av_add(&a, "--time");
		bench_av_add(&a, "%g", B.silence_secs);
		bench_av_add(&a, "--json");
		snprintf(budget, sizeof(budget), "%g s", B.silence_secs);
		snprintf(workload, sizeof(workload), "random per iteration");
	}
	bench_run_child(a.v, B.silence_secs * 3 + 120, s->kind != S_STRESS, &c);
	struct jnode *n = bench_child_json(&c);
	if (!n || n->t != J_OBJ || (c.status != 0 && c.status != 1)) {
		bench_child_why(&c, why, sizeof(why));
	} else if (s->kind == S_STRESS) {
		reports = bench_jnum(n, "manifestations", -1);
		execs = bench_jnum(n, "iterations", -1);
	} else {
		const char *verdict = bench_jstr(n, "verdict"), *wl = bench_jstr(n, "workload");
		reports = verdict && !strcmp(verdict, "bug") ? 1 : 0;
		execs = bench_jnum(n, "executions", -1);
		if (s->kind == S_DFS) {
			const struct jnode *comp = bench_jget(n, "complete");
			snprintf(workload, sizeof(workload), "%s (%.0f ops)",
				 wl && *wl ? wl : "empty", bench_jnum(n, "workload_ops", 0));
			if (!wl || !*wl || bench_jnum(n, "workload_ops", 0) == 0) {
				/* a certificate of nothing is no row */
				reports = -1;
				snprintf(why, sizeof(why), "refused: dfs would search the empty "
					 "workload (the scenario declares no trigger), which "
					 "certifies nothing");
			} else if (comp && comp->t == J_BOOL && comp->b) {
				snprintf(why, sizeof(why), "bounded space covered completely");
			} else if (reports == 0) {
				snprintf(why, sizeof(why), "bounded space NOT covered: the budget "
					 "cut the search");
			}
		}
	}
	bench_jfree(n);
	bench_child_free(&c);
out:;
	char b1[32];
	fprintf(md, "| %s:%s | %s | %s | %s | %s | %s | %s%s |\n", v->scenario, v->variant,
		s->name, workload, reports < 0 ? "-" : budget, bench_fmt_si(b1, 32, execs),
		reports < 0 ? "-" : reports == 0 ? "0" : "**REPORTED**",
		why[0] && reports < 0 ? "not measured: " : "", why);
	bench_js_variant_row(v->scenario, v->variant);
	bench_js_kstr("strategy", s->name, true);
	bench_js_kstr("workload", workload, true);
	bench_js_num("executions", execs, true);
	fprintf(js, "\"reports\": ");
	if (reports >= 0)
		fprintf(js, "%.0f, ", reports);
	else
		fprintf(js, "null, ");
	bench_js_kstr(reports < 0 ? "not_measured" : "note", why[0] ? why : NULL, false);
	fprintf(js, "}");
	fflush(md);
}

void bench_section_silence(void)
{
	fprintf(md, "## Silence: fixed variants (reports must be 0)\n\n");
	fprintf(md, "Each row names the workload it covered; dfs searches a fixed one (the "
		    "variant's trigger, or the one that breaks a buggy variant of its scenario) "
		    "and refuses the empty workload.\n\n");
	fprintf(md, "| target | strategy | workload | budget | executions | reports | note |\n"
		    "|---|---|---|---|---:|---:|---|\n");
	bench_js_section("silence");
	BENCH_FOR_EACH_SELECTED(i, false) {
		for (unsigned s = 0; s < NR_STRATEGIES; s++) {
			/* one dfs bound (2) and one fuzz form per engine is enough */
			if (!strcmp(bench_strategies[s].name, "dfs-b1") ||
			    !strcmp(bench_strategies[s].name, "libfuzzer-nofeedback"))
				continue;
			silence_row(&bench_vars[i], &bench_strategies[s]);
		}
	}
	bench_js_end_section();
	fprintf(md, "\n");
}
