/*
 * bench_speed.c - the sections of `weft bench` that measure speed and
 * size: the machine it runs on, the core micro-benchmarks (weft-microbench),
 * the empty libFuzzer loop, throughput per target, peak RSS. Their numbers
 * the target table needs go to bench_measured (T).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* ------------------------------------------------------ the machine */

/* The CPU with the most idle time over 200 ms (/proc/stat), for the timed
 * children: on a shared machine the pinned core should be the quiet one. */
int bench_idlest_cpu(long cores)
{
	unsigned long long idle[2][64];
	int n = 0;

	if (cores <= 1)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		FILE *f = fopen("/proc/stat", "r");
		char line[512];
		n = 0;
		while (f && fgets(line, sizeof(line), f) && n < 64) {
			unsigned long long v[5];
			int cpu;
			if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
				continue;
			if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
				   &v[3], &v[4]) == 6 && cpu == n)
				idle[pass][n++] = v[3] + v[4];
		}
		if (f)
			fclose(f);
		if (!pass) {
			struct timespec ts = { 0, 200000000 };
			nanosleep(&ts, NULL);
		}
	}
	int best = (int)cores - 1;
	for (int i = 0; i < n; i++)
		if (idle[1][i] - idle[0][i] > idle[1][best < n ? best : 0] - idle[0][best < n ? best : 0])
			best = i;
	return best;
}

void bench_section_machine(void)
{
	char cpu[128] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				c[strcspn(c, "\n")] = 0;
				snprintf(cpu, sizeof(cpu), "%s", c);
			}
			break;
		}
	}
	if (f)
		fclose(f);
	struct utsname u;
	uname(&u);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char date[64];
	time_t t = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
#if defined(__clang__)
	const char *cc = "clang " __clang_version__;
#elif defined(__GNUC__)
	const char *cc = "gcc " __VERSION__;
#else
	const char *cc = "unknown";
#endif
	fprintf(md, "# weft bench%s — %s\n\n", B.quick ? " --quick" : "", date);
	fprintf(md, "Command: `%s`  \n", B.cmdline);
	fprintf(md, "Machine: %s, %ld cores online, %s %s %s; weft built with %s. "
		    "Timed children pinned to CPU %d (stress uses real threads on all cores).\n\n",
		cpu, cores, u.sysname, u.release, u.machine, cc, bench_cpu);
	fprintf(js, "{\n  \"weft_bench\": 1, \"mode\": \"%s\", \"date\": \"%s\", \"command\": ",
		B.quick ? "quick" : "full", date);
	cli_json_str(js, B.cmdline);
	fprintf(js, ",\n  \"machine\": {\"cpu\": ");
	cli_json_str(js, cpu);
	fprintf(js, ", \"cores\": %ld, \"kernel\": ", cores);
	cli_json_str(js, u.release);
	fprintf(js, ", \"arch\": ");
	cli_json_str(js, u.machine);
	fprintf(js, ", \"compiler\": ");
	cli_json_str(js, cc);
	fprintf(js, ", \"pinned_cpu\": %d}", bench_cpu);
}

/* ------------------------------------------------- core micro-benchmarks */

struct bench_measured bench_measured = { -1, -1, -1, -1, -1, -1, -1, "", -1, -1, 0, 0,
					 -1, -1, -1, -1, -1, -1, -1, 0, "" };

void bench_section_core(void)
{
	char b1[32], b2[32], b3[32];
	struct argv_buf a;
	struct child c;

	if (!bench_program_section("Core micro-benchmarks (issue 2)", "core", "weft-microbench", &a))
		return;
	bench_av_add(&a, "core");
	if (B.quick)
		bench_av_add(&a, "--quick");
	bench_run_child(a.v, 300, true, &c);
	struct jnode *n = bench_child_json(&c);
	if (!n || n->t != J_OBJ) {
		bench_child_unmeasured(&c, n, "weft-microbench");
		return;
	}
	bench_child_copy_object(&c);

	const struct jnode *sw = bench_jget(n, "switch_ns"), *rr = bench_jget(n, "random"),
			   *rd = bench_jget(n, "default");
	T.sw_api = bench_jnum(sw, "weft_fiber_switch", -1);
	T.sw_bare = bench_jnum(sw, "weft_ctx_switch", -1);
	T.sw_uc = bench_jnum(sw, "swapcontext", -1);
	T.dec_per_s = bench_jnum(rr, "decisions_per_s", -1);
	T.exec_2x50 = bench_jnum(rr, "exec_per_s", -1);
	fprintf(md, "Context switch, ping-pong between two stacks, median of %g repetitions of "
		    "%g round trips (ns per switch):\n\n",
		bench_jnum(n, "reps", -1), bench_jnum(n, "switch_rounds", -1));
	fprintf(md, "| switch | ns/switch | × bare asm |\n|---|---:|---:|\n");
	const struct bench_figure rows[] = {
		{ "weft_fiber_switch (Weft's fiber API, what the machine calls)", T.sw_api },
		{ "weft_ctx_switch (Weft's asm routine with nothing around it: the bare switch, "
		  "reference)", T.sw_bare },
		{ "swapcontext(3) (glibc; one rt_sigprocmask per call)", T.sw_uc },
	};
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(md, "| %s | %s | %s |\n", rows[i].name, bench_fmt_num(b1, 32, rows[i].v, 2),
			bench_fmt_num(b2, 32, T.sw_bare > 0 && rows[i].v > 0 ? rows[i].v / T.sw_bare : -1,
				2));
	fprintf(md, "\nScenario `%s` (2 fake CPUs × 50 atomic_inc each, defined in "
		    "bench/bench_core.c, not in the registry):\n\n",
		bench_jstr(n, "scenario") ? bench_jstr(n, "scenario") : "?");
	fprintf(md, "| strategy | executions | seconds | exec/s | decisions/s | ns/step | "
		    "switches/exec |\n|---|---:|---:|---:|---:|---:|---:|\n");
	const struct jnode *rs[2] = { rr, rd };
	const char *names[2] = { "random (seeded)", "default only (decisions, no preemption)" };
	for (unsigned i = 0; i < 2; i++) {
		double e = bench_jnum(rs[i], "executions", -1);
		char b4[32], b5[32], b6[32];
		fprintf(md, "| %s | %s | %s | %s | %s | %s | %s |\n", names[i], bench_fmt_si(b1, 32, e),
			bench_fmt_num(b2, 32, bench_jnum(rs[i], "seconds", -1), 3),
			bench_fmt_si(b3, 32, bench_jnum(rs[i], "exec_per_s", -1)),
			bench_fmt_si(b4, 32, bench_jnum(rs[i], "decisions_per_s", -1)),
			bench_fmt_num(b5, 32, bench_jnum(rs[i], "ns_per_step", -1), 1),
			bench_fmt_num(b6, 32, e > 0 ? bench_jnum(rs[i], "switches", -1) / e : -1, 1));
	}
	fprintf(md, "\n");
	bench_jfree(n);
	bench_child_free(&c);
}

void bench_section_empty_libfuzzer(void)
{
	char path[PATH_MAX + 32], b1[32];
	uint64_t runs = B.quick ? 1000000 : 5000000;
	struct argv_buf a;
	struct child c;

	fprintf(js, ",\n  \"empty_libfuzzer\": ");
	if (!bench_program_ready(path, sizeof(path), "weft-bench-empty-libfuzzer",
				 "Empty libFuzzer loop: "))
		return;
	bench_av_init(&a, path);
	bench_av_add(&a, "-runs=%" PRIu64, runs);
	bench_av_add(&a, "-seed=1");
	bench_run_child(a.v, 120, true, &c);
	bench_child_free(&c);
	if (c.status != 0) {
		char why[600];
		bench_child_why(&c, why, sizeof(why));
		bench_not_measured("Empty libFuzzer loop: ", NULL, why);
		return;
	}
	T.empty_lf = (double)runs / c.seconds;
	fprintf(md, "Empty libFuzzer target (bench/bench_empty_fuzzer.c, clang -O2 "
		    "-fsanitize=fuzzer): %" PRIu64 " runs in %.3f s wall including start-up = "
		    "**%s exec/s**, the ceiling of any in-process libFuzzer target here.\n\n",
		runs, c.seconds, bench_fmt_si(b1, 32, T.empty_lf));
	fprintf(js, "{\"runs\": %" PRIu64 ", \"seconds\": %.6f, \"exec_per_s\": %.0f}", runs,
		c.seconds, T.empty_lf);
}

/* ---------------------------------------------------- throughput */

/* ns per step of each random row, for the median line under the table */
static double tp_ns_step[64];
static unsigned tp_nr_ns_step;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One engine's row; returns its ns per step (-1: not measured). */
static double throughput_row(const struct bvariant *v, const char *engine, const char *skip)
{
	char b1[32], b2[32], b3[32], b4[32], why[600] = "";
	struct argv_buf a;
	struct child c;
	double execs = -1, secs = -1, decs = -1, steps = -1;

	if (skip) {
		snprintf(why, sizeof(why), "%s", skip);
		goto out;
	}
	if (bench_budget_spent()) {
		snprintf(why, sizeof(why), "time budget spent");
		goto out;
	}
	bench_av_init(&a, bench_self);
	if (!strcmp(engine, "random")) {
		bench_av_add(&a, "run");
		bench_av_add(&a, "%s:%s", v->scenario, v->variant);
		bench_av_add(&a, "--strategy");
		bench_av_add(&a, "random");
		bench_av_add(&a, "--iterations");
		bench_av_add(&a, "%u", B.quick ? 20000u : 100000u);
		bench_av_add(&a, "--quiet");
		bench_av_add(&a, "--json");
	} else {
		if (bench_skip_kind(S_FUZZ)) {
			snprintf(why, sizeof(why), "%s", bench_skip_kind(S_FUZZ));
			goto out;
		}
		bench_av_add(&a, "fuzz");
		bench_av_add(&a, "%s:%s", v->scenario, v->variant);
		bench_av_add(&a, "--engine");
		bench_av_add(&a, "%s", engine);
		bench_av_add(&a, "--time");
		bench_av_add(&a, "%g", B.quick ? 2.0 : 10.0);
		bench_av_add(&a, "--seed");
		bench_av_add(&a, "1");
		bench_av_add(&a, "--out");
		bench_av_add(&a, "%s/fuzz/%s-%s-%s-throughput", B.out, v->scenario, v->variant, engine);
		bench_av_add(&a, "--json");
	}
	bench_run_child(a.v, (B.quick ? 2.0 : 10.0) * 3 + 60, true, &c);
	struct jnode *n = bench_child_json(&c);
	if (n && n->t == J_OBJ && (c.status == 0 || c.status == 1)) {
		execs = bench_jnum(n, "executions", -1);
		secs = bench_jnum(n, "seconds", -1);
		double td = bench_jnum(n, "total_decisions", -1);
		if (td >= 0 && secs > 0)
			decs = td / secs;
		steps = bench_jnum(n, "total_steps", -1);
		if (steps < 0 && execs > 0)   /* weft fuzz: "steps" (clean: all of them) */
			steps = bench_jnum(n, "steps", -1);
		if (bench_jstr(n, "verdict") && !strcmp(bench_jstr(n, "verdict"), "bug"))
			snprintf(why, sizeof(why), "stopped at a report (a fixed variant should be clean)");
	} else {
		bench_child_why(&c, why, sizeof(why));
	}
	bench_jfree(n);
	bench_child_free(&c);
out:;
	double rate = execs >= 0 && secs > 0 ? execs / secs : -1;
	if (!strcmp(engine, "random") && steps > 0 && secs > 0 &&
	    tp_nr_ns_step < sizeof(tp_ns_step) / sizeof(tp_ns_step[0]))
		tp_ns_step[tp_nr_ns_step++] = secs * 1e9 / steps;
	if (!strcmp(engine, "random") && !strncmp(v->scenario, "z1-", 3) && rate > T.z1_exec_per_s) {
		T.z1_exec_per_s = rate;
		snprintf(T.z1_target, sizeof(T.z1_target), "%s:%s", v->scenario, v->variant);
	}
	char b5[32], b6[32];
	fprintf(md, "| %s:%s | %s | %s | %s | %s | %s | %s | %s | %s%s |\n", v->scenario, v->variant,
		engine, bench_fmt_si(b1, 32, execs), bench_fmt_num(b2, 32, secs, 2), bench_fmt_si(b3, 32, rate),
		bench_fmt_si(b4, 32, decs), bench_fmt_num(b5, 32, steps > 0 ? steps / execs : -1, 0),
		bench_fmt_num(b6, 32, steps > 0 ? secs * 1e9 / steps : -1, 0),
		why[0] && rate < 0 ? "not measured: " : "", why);
	bench_js_variant_row(v->scenario, v->variant);
	bench_js_kstr("engine", engine, true);
	bench_js_num("executions", execs, true);
	bench_js_num("seconds", secs, true);
	bench_js_num("exec_per_s", rate, true);
	bench_js_num("decisions_per_s", decs, true);
	bench_js_num("steps_per_execution", steps > 0 ? steps / execs : -1, true);
	bench_js_kstr("note", why[0] ? why : NULL, false);
	fprintf(js, "}");
	return steps > 0 && secs > 0 ? secs * 1e9 / steps : -1;
}

void bench_section_throughput(void)
{
	static const char *const engines[] = { "random", "libfuzzer", "afl" };
	unsigned nscen = 0;

	fprintf(md, "## Throughput per target (first fixed variant of each scenario)\n\n");
	fprintf(md, "| target | engine | executions | seconds | exec/s | decisions/s | steps/exec "
		    "| ns/step | note |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n");
	/* issue 23 item 2: the libFuzzer target's ns per step over in-process
	 * random's, per scenario measured by both */
	static unsigned over[64];
	static double over_x[64];
	unsigned nover = 0;
	bench_js_section("throughput");
	BENCH_FOR_EACH_SELECTED(i, false) {
		bool first = true;
		for (unsigned k = 0; k < i; k++)
			if (!bench_vars[k].buggy && !strcmp(bench_vars[k].scenario, bench_vars[i].scenario))
				first = false;
		if (!first)
			continue;
		double ns[3];
		for (unsigned e = 0; e < 3; e++)
			ns[e] = throughput_row(&bench_vars[i], engines[e],
					       B.quick && e && nscen ? "--quick measures the engines "
								       "on the first scenario only"
								     : NULL);
		if (ns[0] > 0 && ns[1] > 0 && nover < 64) {
			over[nover] = i;
			over_x[nover++] = ns[1] / ns[0];
			if (!T.z1_lf_over && !strncmp(bench_vars[i].scenario, "z1-", 3)) {
				T.z1_lf_over = ns[1] / ns[0];
				snprintf(T.z1_lf_target, sizeof(T.z1_lf_target), "%.40s:%.40s",
					 bench_vars[i].scenario, bench_vars[i].variant);
			}
		}
		nscen++;
	}
	bench_js_end_section();
	fprintf(md, "\n");
	if (nover) {
		fprintf(md, "libFuzzer target's ns/step over in-process random's (issue 23: ≤ 1.5×; "
			    "wall clock, start-up and build check included; load-independent "
			    "instructions: `bench/fuzz-overhead LFBUILD`):");
		for (unsigned k = 0; k < nover; k++)
			fprintf(md, "%s %s:%s **%.2f×**", k ? "," : "", bench_vars[over[k]].scenario,
				bench_vars[over[k]].variant, over_x[k]);
		fprintf(md, ".\n\n");
		bench_js_section("fuzz_overhead");
		for (unsigned k = 0; k < nover; k++) {
			bench_js_sep();
			fprintf(js, "{\"target\": \"%s:%s\", "
				    "\"libfuzzer_over_random_ns_per_step\": %.3f}",
				bench_vars[over[k]].scenario, bench_vars[over[k]].variant, over_x[k]);
		}
		bench_js_end_section();
	}
	/* issue 23's per-step figure: the median over the fixed variants
	 * above, in-process seconds of `weft run --strategy random` */
	if (tp_nr_ns_step) {
		qsort(tp_ns_step, tp_nr_ns_step, sizeof(tp_ns_step[0]), cmp_double);
		unsigned n = tp_nr_ns_step;
		double med = n % 2 ? tp_ns_step[n / 2] : (tp_ns_step[n / 2 - 1] + tp_ns_step[n / 2]) / 2;
		fprintf(md, "Median ns/step under random over the %u fixed variants above: **%.1f** "
			    "(min %.1f, max %.1f).\n\n", n, med, tp_ns_step[0], tp_ns_step[n - 1]);
		bench_js_section("throughput_median");
		bench_js_sep();
		fprintf(js, "{\"variants\": %u, \"median_ns_per_step\": %.2f, \"min\": %.2f, "
			    "\"max\": %.2f}", n, med, tp_ns_step[0], tp_ns_step[n - 1]);
		bench_js_end_section();
	}
}


/* --------------------------------------------------------- memory */

void bench_section_memory(void)
{
	uint64_t big = B.quick ? 1000000 : 10000000, small = big / 10;
	const char *target = "demo-counter:atomic";

	fprintf(md, "## Memory: peak RSS of `weft run %s --strategy random` (wait4 ru_maxrss)\n\n",
		target);
	fprintf(md, "| executions | seconds | peak RSS |\n|---:|---:|---:|\n");
	bench_js_section("memory");
	uint64_t ns[2] = { small, big };
	for (unsigned i = 0; i < 2; i++) {
		struct argv_buf a;
		struct child c;
		char why[600] = "", b1[32];
		if (bench_budget_spent()) {
			snprintf(why, sizeof(why), "time budget spent");
			c.status = -1;
			c.seconds = -1;
			c.maxrss_kib = -1;
			c.out = NULL;
		} else {
			bench_av_init(&a, bench_self);
			bench_av_add(&a, "run");
			bench_av_add(&a, "%s", target);
			bench_av_add(&a, "--iterations");
			bench_av_add(&a, "%" PRIu64, ns[i]);
			bench_av_add(&a, "--quiet");
			bench_av_add(&a, "--json");
			bench_run_child(a.v, 900, true, &c);
			if (c.status != 0) {
				bench_child_why(&c, why, sizeof(why));
				c.maxrss_kib = -1;
			}
		}
		bench_child_free(&c);
		if (i == 0) {
			T.rss_small = (double)c.maxrss_kib;
			T.rss_small_n = ns[i];
		} else {
			T.rss_big = (double)c.maxrss_kib;
			T.rss_big_n = ns[i];
		}
		char b2[32];
		if (why[0])
			fprintf(md, "| %s | - | not measured: %s |\n", bench_fmt_si(b1, 32, (double)ns[i]),
				why);
		else
			fprintf(md, "| %s | %s | %ld KiB |\n", bench_fmt_si(b1, 32, (double)ns[i]),
				bench_fmt_num(b2, 32, c.seconds, 2), c.maxrss_kib);
		bench_js_sep();
		fprintf(js, "{\"target\": \"%s\", \"executions\": %" PRIu64 ", ", target, ns[i]);
		bench_js_num("seconds", why[0] ? -1 : c.seconds, true);
		bench_js_num("maxrss_kib", (double)c.maxrss_kib, true);
		bench_js_kstr("not_measured", why[0] ? why : NULL, false);
		fprintf(js, "}");
	}
	bench_js_end_section();
	fprintf(md, "\n");
}
