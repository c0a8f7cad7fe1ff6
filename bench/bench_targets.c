/*
 * bench_targets.c - the target table of `weft bench`: the project's speed
 * and time-to-bug targets, each met, missed or not measured, from the
 * numbers of the other sections (bench_measured, bench_ttb_results).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "harness.h"

static void target_row(const char *name, const char *measured, int ok, const char *note)
{
	fprintf(md, "| %s | %s | %s | %s |\n", name, measured,
		ok < 0 ? "not measured" : ok ? "met" : "**missed**", note ? note : "");
	bench_js_sep();
	fprintf(js, "{");
	bench_js_kstr("target", name, true);
	bench_js_kstr("measured", measured, true);
	bench_js_kstr("status", ok < 0 ? "not measured" : ok ? "met" : "missed", true);
	bench_js_kstr("note", note, false);
	fprintf(js, "}");
}

void bench_section_targets(void)
{
	char m[256], note[256];
	int lf = bench_strategy_index("libfuzzer"), st = bench_strategy_index("stress"),
	    p2 = bench_strategy_index("pct-d2"), p3 = bench_strategy_index("pct-d3");

	fprintf(md, "## Targets\n\n| target | measured | status | note |\n|---|---|---|---|\n");
	bench_js_section("targets");

	snprintf(m, sizeof(m), "%.2f ns", T.sw_api);
	target_row("context switch <= 15 ns (x86-64)", T.sw_api > 0 ? m : "-",
		   T.sw_api > 0 ? T.sw_api <= 15 : -1, NULL);
	snprintf(m, sizeof(m), "%.2f× (%.2f / %.2f ns)", T.sw_api / T.sw_bare, T.sw_api, T.sw_bare);
	target_row("switch <= 1.5× a bare asm switch", T.sw_bare > 0 ? m : "-",
		   T.sw_bare > 0 ? T.sw_api <= 1.5 * T.sw_bare : -1, NULL);
	snprintf(m, sizeof(m), "%.1f M/s (%.0f ns per decision, all costs included)",
		 T.dec_per_s / 1e6, 1e9 / T.dec_per_s);
	target_row(">= 10 M scheduling decisions/s", T.dec_per_s > 0 ? m : "-",
		   T.dec_per_s > 0 ? T.dec_per_s >= 1e7 : -1,
		   "Shuttle: ~0.4 µs per scheduling event, measured elsewhere");
	snprintf(m, sizeof(m), "%.0f k exec/s (%s, random, in-process)", T.z1_exec_per_s / 1e3,
		 T.z1_target);
	target_row(">= 200 k exec/s on the Z1 target", T.z1_exec_per_s > 0 ? m : "-",
		   T.z1_exec_per_s > 0 ? T.z1_exec_per_s >= 2e5 : -1,
		   T.z1_exec_per_s > 0 ? NULL : "no z1 scenario in this build");
	snprintf(m, sizeof(m), "%.2f× (%s, ns per step, wall clock)", T.z1_lf_over, T.z1_lf_target);
	target_row("libFuzzer target <= 1.5× in-process random per step (Z1)",
		   T.z1_lf_over > 0 ? m : "-", T.z1_lf_over > 0 ? T.z1_lf_over <= 1.5 : -1,
		   "instructions: bench/fuzz-overhead LFBUILD");

	snprintf(m, sizeof(m), "%.2f ns own stack, %.2f ns __thread (%.2f ns uninstrumented)",
		 T.p_own, T.p_tls, T.p_plain);
	target_row("instrumented access that is not a point <= 10 ns", T.p_own > 0 ? m : "-",
		   T.p_own > 0 ? T.p_own <= 10 && T.p_tls <= 10 : -1, NULL);
	snprintf(m, sizeof(m), "%.2f× (%.2f / %.2f ns)", T.p_shared / T.p_model, T.p_shared,
		 T.p_model);
	target_row("instrumented shared access <= 1.5× a model's READ_ONCE",
		   T.p_model > 0 ? m : "-", T.p_model > 0 ? T.p_shared <= 1.5 * T.p_model : -1,
		   NULL);
	snprintf(m, sizeof(m), "%.0f× (%.0f / %.0f exec/s)", T.p_in / T.p_fork, T.p_in, T.p_fork);
	target_row("program executions in process >= 10× fork per execution",
		   T.p_fork > 0 ? m : "-", T.p_fork > 0 ? T.p_in >= 10 * T.p_fork : -1, NULL);

	/* every buggy zoo variant: median time to bug <= 1 s, default weft fuzz */
	unsigned nz = 0, okz = 0, unk = 0;
	double worst = 0;
	char worst_v[64] = "";
	BENCH_FOR_EACH_SELECTED(i, true) {
		if (!bench_vars[i].zoo[0])
			continue;
		nz++;
		const struct ttb *t = &bench_ttb_results[i][lf];
		if (!t->runs) {
			unk++;
			continue;
		}
		double v = t->med_s > 0 ? t->med_s : INFINITY;
		okz += v <= 1.0;
		if (v > worst) {
			worst = v;
			snprintf(worst_v, sizeof(worst_v), "%s", bench_vars[i].variant);
		}
	}
	if (nz && !unk) {
		snprintf(m, sizeof(m), "%u/%u variants; slowest %s: %s", okz, nz, worst_v,
			 isfinite(worst) ? "" : "not found");
		if (isfinite(worst))
			snprintf(m + strlen(m), sizeof(m) - strlen(m), "%.3f s", worst);
	} else {
		snprintf(m, sizeof(m), "-");
	}
	target_row("buggy zoo variants: median time to bug <= 1 s (weft fuzz, libFuzzer, 1 core)",
		   m, nz && !unk ? okz == nz : -1,
		   !nz ? "no zoo variant in this build" : unk ? "weft fuzz not measured" : NULL);

	/* >= 1000x faster than stress on Z1a/Z1b */
	BENCH_FOR_EACH_SELECTED(i, true) {
		if (strcasecmp(bench_vars[i].zoo, "Z1a") && strcasecmp(bench_vars[i].zoo, "Z1b"))
			continue;
		const struct ttb *w = &bench_ttb_results[i][lf], *s = &bench_ttb_results[i][st];
		char name[96];
		snprintf(name, sizeof(name), ">= 1000× faster than stress on %s", bench_vars[i].zoo);
		if (w->med_s > 0 && s->med_s > 0) {
			snprintf(m, sizeof(m), "%.0f×", s->med_s / w->med_s);
			target_row(name, m, s->med_s / w->med_s >= 1000, NULL);
		} else if (w->med_s > 0 && s->runs) {
			/* stress missed in half the runs or more: cap / weft is a
			 * lower bound of the ratio */
			double lower = s->cap / w->med_s;
			snprintf(m, sizeof(m), "> %.0f× (stress found it in %u/%u runs of %g s)",
				 lower, s->found, s->runs, s->cap);
			target_row(name, m, lower >= 1000 ? 1 : -1,
				   lower >= 1000 ? "lower bound" :
				   "only a lower bound below 1000×: a longer stress cap would tell");
		} else {
			target_row(name, "-", -1, "weft fuzz or stress not measured");
		}
	}

	/* feedback fuzzer: >= 2x fewer executions than pct, median over the zoo */
	double ratios[2][MAX_VARIANTS];
	unsigned nr[2] = { 0, 0 };
	BENCH_FOR_EACH_SELECTED(i, true) {
		if (!bench_vars[i].zoo[0])
			continue;
		const struct ttb *w = &bench_ttb_results[i][lf];
		if (w->med_e <= 0)
			continue;
		int ps[2] = { p2, p3 };
		for (unsigned k = 0; k < 2; k++) {
			const struct ttb *p = &bench_ttb_results[i][ps[k]];
			if (p->runs)
				ratios[k][nr[k]++] = p->med_e > 0 ? p->med_e / w->med_e : INFINITY;
		}
	}
	if (nr[0] && nr[1]) {
		double r2 = bench_cmedian(ratios[0], nr[0]), r3 = bench_cmedian(ratios[1], nr[1]);
		snprintf(m, sizeof(m), "pct d=2 / libfuzzer: %.2f×, pct d=3 / libfuzzer: %.2f×", r2,
			 r3);
		snprintf(note, sizeof(note), "median over %u zoo variants of the ratio of median "
					     "executions", nr[0]);
		target_row("fuzzer with feedback: >= 2× fewer executions than pct", m,
			   r2 >= 2 && r3 >= 2, note);
	} else {
		target_row("fuzzer with feedback: >= 2× fewer executions than pct", "-", -1,
			   "weft fuzz or zoo variants not measured");
	}

	if (T.rss_small > 0 && T.rss_big > 0) {
		snprintf(m, sizeof(m), "%.0f KiB at %" PRIu64 " vs %.0f KiB at %" PRIu64
			 " executions (%+.0f KiB)",
			 T.rss_small, T.rss_small_n, T.rss_big, T.rss_big_n, T.rss_big - T.rss_small);
		/* flat: within 5% or 512 KiB (allocator and page-cache noise) */
		bool flat = T.rss_big - T.rss_small <= dmax(512, 0.05 * T.rss_small);
		target_row("RSS flat over 10 M executions", m, flat,
			   B.quick ? "--quick: 1 M vs 100 k" : NULL);
	} else {
		target_row("RSS flat over 10 M executions", "-", -1, NULL);
	}
	bench_js_end_section();
	fprintf(md, "\n");
}
