/*
 * bench_fuzz.c - `weft bench --sections fuzz[,fuzz-ablation]`: every
 * searcher against every buggy zoo variant, side by side in one run.
 *
 * Rows count only reports of the variant's declared kind (expect_kind): a
 * searcher that reports another kind first goes on (the in-process
 * searchers) or is told to ignore it (`weft fuzz --kind K`).
 *   random, pct-d2, pct-d3   the strategies, in this process, seeds 1..N,
 *                            at most run_cap executions per seed;
 *   dfs-b1-gen               dfs bound 1 on generated workloads (the
 *                            random strategy's workload distribution, a
 *                            seeded stream), at most 2000 executions per
 *                            workload: dfs given no trigger workload;
 *   libfuzzer, afl           `weft fuzz --engine E --seed N --kind K
 *                            --json`, a fresh work directory per seed;
 *                            wall seconds from the start of the command to
 *                            the crash (build check and engine start-up
 *                            included, minimization not);
 *   lf-*                     ablations (WEFT_FUZZ_* environment, one
 *                            change each, docs/fuzzing.md).
 * Executions count every machine execution (a fuzz target's systematic
 * stage included); steps are the steps of all of them, so a searcher that
 * runs long workloads does not look cheap. Medians count a miss as +inf.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <weft/strategy.h>

#include "bench_fuzz.h"
#include "bench_median.h"
#include "cli.h"
#include "harness.h"
/* bench_clock(), bench_fmt_si(); this file writes to the FILEs it is given,
 * not harness.h's outputs */
#undef md
#undef js

/* ------------------------------------------------------------ results */

#define BF_MAX_SEEDS 64

struct bf_row {
	const char *name;
	unsigned runs, found;
	double ex[BF_MAX_SEEDS], st[BF_MAX_SEEDS], secs[BF_MAX_SEEDS];
	double med_ex, med_st, med_s, min_ex, max_ex;
	char note[200];
};

static double median(const double *v0, unsigned n)
{
	double v[BF_MAX_SEEDS];

	if (!n)
		return INFINITY;
	memcpy(v, v0, n * sizeof(*v));
	return bench_median_sort(v, n);
}

static void finish(struct bf_row *r)
{
	r->med_ex = median(r->ex, r->runs);
	r->med_st = median(r->st, r->runs);
	r->med_s = median(r->secs, r->runs);
	r->min_ex = INFINITY;
	r->max_ex = 0;
	for (unsigned i = 0; i < r->runs; i++)
		if (isfinite(r->ex[i])) {
			r->min_ex = r->ex[i] < r->min_ex ? r->ex[i] : r->min_ex;
			r->max_ex = r->ex[i] > r->max_ex ? r->ex[i] : r->max_ex;
		}
}

/* --------------------------------------------------- in-process searchers */

enum bf_kind { BF_RANDOM, BF_PCT2, BF_PCT3, BF_DFS_GEN };

/* One seed: executions and steps until a report of kind k (or the cap). */
static void search(const struct weft_scenario *sc, unsigned vi, enum weft_kind k, enum bf_kind s,
		   unsigned seed, unsigned long cap, double *ex, double *st, double *secs)
{
	static struct weft_random rs;
	static struct weft_pct ps;
	static struct weft_dfs ds;
	static uint8_t wl[WEFT_INPUT_MAX];
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .no_trace_hash = true, .checks = WEFT_CHECKS_DEFAULT,
				   /* the model the scenario is searched under (Z14-Z16: weak
				    * memory), as `weft fuzz` and the time-to-bug rows run it */
				   .memory = (uint8_t)sc->memory };
	struct weft_exec_result r;
	struct weft_rng wrng;
	unsigned long n = 0, in_wl = 0;

	/* past the warnings of other kinds, as `weft run --kind K` and the fuzz
	 * target under WEFT_FUZZ_KIND go (Z12's deadlock lies past lockdep's
	 * irq-lock-inversion warning) */
	if (WEFT_WARNING_KINDS & ~(1ull << k)) {
		o.checks |= WEFT_CHECK_CONTINUE_WARNINGS;
		o.continue_kinds = weft_continue_kinds(o.checks, 1ull << k);
	}
	uint64_t steps = 0;
	double t0 = bench_clock();

	*ex = *st = *secs = INFINITY;
	if (s == BF_RANDOM)
		weft_random_init(&rs, sc, seed, NULL, 0);
	else if (s == BF_PCT2 || s == BF_PCT3)
		weft_pct_init(&ps, sc, seed, s == BF_PCT2 ? 2 : 3, NULL, 0);
	weft_rng_seed(&wrng, seed * 0x9e3779b97f4a7c15ull + 1);
	bool need_wl = true;
	while (n < cap) {
		int rc;
		if (s == BF_DFS_GEN) {
			if (need_wl || in_wl >= 2000) {
				size_t len = weft_random_workload(sc, &wrng, wl, sizeof(wl));
				weft_dfs_init(&ds, sc, 1, wl, len);
				need_wl = false;
				in_wl = 0;
			}
			rc = weft_execute(&o, &weft_strategy_dfs, &ds, &r);
			if (rc < 0) {
				need_wl = true;
				continue;
			}
			in_wl++;
		} else if (s == BF_RANDOM) {
			rc = weft_execute(&o, &weft_strategy_random, &rs, &r);
		} else {
			rc = weft_execute(&o, &weft_strategy_pct, &ps, &r);
		}
		if (rc < 0)
			break;
		n++;
		steps += r.steps;
		if (r.kind == k) {
			*ex = (double)n;
			*st = (double)steps;
			*secs = bench_clock() - t0;
			return;
		}
	}
}

static void searcher_row(struct bf_row *row, const struct weft_scenario *sc, unsigned vi,
			 enum bf_kind s, const struct bench_fuzz_opts *o, unsigned seeds,
			 unsigned long cap)
{
	enum weft_kind k = sc->variants[vi].expect_kind;

	for (unsigned seed = 1; seed <= seeds && row->runs < BF_MAX_SEEDS; seed++) {
		if (o->deadline > 0 && bench_clock() > o->deadline) {
			snprintf(row->note, sizeof(row->note), "time budget spent");
			break;
		}
		unsigned i = row->runs++;
		search(sc, vi, k, s, seed, cap, &row->ex[i], &row->st[i], &row->secs[i]);
		row->found += isfinite(row->ex[i]);
	}
	if (!row->note[0] && row->found < row->runs)
		snprintf(row->note, sizeof(row->note), "cap %lu executions per seed", cap);
}

/* ------------------------------------------------------------ weft fuzz */

/* The number after "key": in the part of a one-object JSON line before
 * "import" (import's own object repeats some keys). */
static double jnum_before_import(const char *s, const char *key)
{
	char pat[64];
	const char *end = strstr(s, "\"import\":");
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(s, pat);
	if (!p || (end && p > end))
		return NAN;
	p += strlen(pat);
	if (!strncmp(p, "null", 4))
		return NAN;
	return strtod(p, NULL);
}

static bool jstr_is(const char *s, const char *key, const char *val)
{
	char pat[128];

	snprintf(pat, sizeof(pat), "\"%s\": \"%s\"", key, val);
	const char *p = strstr(s, pat), *end = strstr(s, "\"import\":");
	return p && (!end || p < end);
}

/* Runs argv with extra environment; stdout into out (cap). Returns the
 * exit code, -1 if it could not run; *wall the seconds it took. */
static int run_capture(char *const argv[], char *const env[], double timeout, char *out,
		       size_t cap, double *wall)
{
	int p[2];
	double t0 = bench_clock();

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		int devnull = open("/dev/null", O_RDWR);
		dup2(p[1], 1);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		close(p[0]);
		for (unsigned i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(p[1]);
	size_t len = 0;
	for (;;) {
		ssize_t r = read(p[0], out + len, cap - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len + 1 >= cap)
			len = 0;   /* keep the tail: the JSON is the last line */
		if (bench_clock() - t0 > timeout)
			kill(-pid, SIGKILL);
	}
	out[len] = 0;
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	*wall = bench_clock() - t0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

struct bf_fuzz {
	const char *name;
	const char *engine;
	const char *env[4];      /* WEFT_FUZZ_* settings of an ablation */
	const char *what;
};

static const struct bf_fuzz fuzzers[] = {
	{ "libfuzzer", "libfuzzer", { NULL }, "weft fuzz, all defaults" },
	{ "afl", "afl", { NULL }, "weft fuzz --engine afl (custom mutator library)" },
};

static const struct bf_fuzz ablations[] = {
	{ "lf-no-systematic", "libfuzzer", { "WEFT_FUZZ_SYSTEMATIC=0" },
	  "without the systematic stage" },
	{ "lf-features-all", "libfuzzer", { "WEFT_FUZZ_FEATURES=all" },
	  "switch pairs and reads-from in the map (the old feedback)" },
	{ "lf-no-rarity", "libfuzzer", { "WEFT_FUZZ_RARITY=0" },
	  "switch pairs and reads-from not collected at all (no rarity pool)" },
	{ "lf-no-bandit", "libfuzzer", { "WEFT_FUZZ_BANDIT=0" }, "uniform mutation shares" },
	{ "lf-seeds", "libfuzzer", { "WEFT_FUZZ_SEEDS=corpus" },
	  "the seed corpus run first (the default before 23's measurements)" },
	{ "lf-no-mode-bandit", "libfuzzer", { "WEFT_FUZZ_MODE_BANDIT=0" },
	  "a genome's schedule mode from the prior shares alone" },
	{ "lf-no-warmup", "libfuzzer", { "WEFT_FUZZ_WARMUP=0" },
	  "no start as a random search (the first 512 mutations half fresh genomes)" },
	{ "lf-walk-modes", "libfuzzer",
	  { "WEFT_FUZZ_MODES=3.5,0.33,0.33,0.34,0,0,1.5,0",
	    "WEFT_FUZZ_WARMUP_MODES=3.5,0.33,0.33,0.34,0,0,1.5,0" },
	  "generation without the pct and serial modes" },
	{ "lf-warmup-prior-modes", "libfuzzer",
	  { "WEFT_FUZZ_WARMUP_MODES=3.5,0.33,0.33,0.34,1.5,1.5,1.5,1" },
	  "the warm-up's fresh genomes from the long-run mode priors (the default before 23's mix)" },
	{ "lf-fresh-only", "libfuzzer", { "WEFT_FUZZ_ARM=fresh" },
	  "generation only (every mutation a fresh genome)" },
	{ "lf-bytes-mutator", "libfuzzer", { "WEFT_FUZZ_MUTATOR=bytes" },
	  "libFuzzer's byte mutations only" },
	{ "lf-no-feedback", "libfuzzer", { "WEFT_NO_FEEDBACK=1" },
	  "code coverage only (no state buckets, no systematic stage)" },
};

static void fuzz_row(struct bf_row *row, const struct weft_scenario *sc, unsigned vi,
		     const struct bf_fuzz *f, const struct bench_fuzz_opts *o, unsigned seeds)
{
	static char out[1 << 16];
	char spec[160], tm[32], sd[32], dir[4096];
	const char *kind = weft_kind_name(sc->variants[vi].expect_kind);

	snprintf(spec, sizeof(spec), "%s:%s", sc->name, sc->variants[vi].name);
	snprintf(tm, sizeof(tm), "%.0f", o->fuzz_cap < 1 ? 1 : o->fuzz_cap);
	for (unsigned seed = 1; seed <= seeds && row->runs < BF_MAX_SEEDS; seed++) {
		if (o->deadline > 0 && bench_clock() > o->deadline) {
			snprintf(row->note, sizeof(row->note), "time budget spent");
			break;
		}
		snprintf(sd, sizeof(sd), "%u", seed);
		snprintf(dir, sizeof(dir), "%s/fuzz/%s-%s-%s-s%u", o->out, sc->name,
			 sc->variants[vi].name, f->name, seed);
		char *argv[] = { (char *)o->self, "fuzz", spec, "--engine", (char *)f->engine,
				 "--time", tm, "--seed", sd, "--kind", (char *)kind, "--out", dir,
				 "--json", NULL };
		double wall;
		int rc = run_capture(argv, (char *const *)f->env, o->fuzz_cap * 2 + 120, out,
				     sizeof(out), &wall);
		if (rc != 0 && rc != 1) {
			snprintf(row->note, sizeof(row->note), "weft fuzz exited %d", rc);
			break;
		}
		unsigned i = row->runs++;
		row->ex[i] = row->st[i] = row->secs[i] = INFINITY;
		if (jstr_is(out, "verdict", "bug") && jstr_is(out, "kind", kind)) {
			row->ex[i] = jnum_before_import(out, "executions");
			row->st[i] = jnum_before_import(out, "steps");
			row->secs[i] = jnum_before_import(out, "seconds_to_crash");
			if (!isfinite(row->st[i]))
				row->st[i] = INFINITY;
			if (!isfinite(row->secs[i]))
				row->secs[i] = wall;
			row->found++;
		}
	}
	if (!row->note[0] && row->runs && row->found < row->runs)
		snprintf(row->note, sizeof(row->note), "cap %s s per seed", tm);
}

/* -------------------------------------------------------------- output */

static bool js_first;

static void print_row(FILE *md, FILE *js, const struct weft_scenario *sc, unsigned vi,
		      const struct bf_row *r, const char *target)
{
	char a[32], b[32], c[32], d[32], e[32];
	const struct weft_variant *v = &sc->variants[vi];

	fprintf(md, "| %s | %s | %u/%u | %s | %s | %s | %s–%s | %s | %s |\n",
		v->zoo ? v->zoo : v->name, r->name, r->found, r->runs,
		r->found * 2 > r->runs ? bench_fmt_si(a, 32, r->med_ex) : "not found",
		r->found * 2 > r->runs ? bench_fmt_si(b, 32, r->med_st) : "-",
		r->found * 2 > r->runs && isfinite(r->med_s) ? (snprintf(c, 32, "%.3f", r->med_s), c)
							     : "-",
		bench_fmt_si(d, 32, r->min_ex), bench_fmt_si(e, 32, r->max_ex == 0 ? NAN : r->max_ex),
		target ? target : "", r->note);
	fprintf(js, "%s{\"scenario\": \"%s\", \"variant\": \"%s\", \"zoo\": \"%s\", "
		    "\"kind\": \"%s\", \"searcher\": \"%s\", \"seeds\": %u, \"found\": %u",
		js_first ? "" : ",\n", sc->name, v->name, v->zoo ? v->zoo : "",
		weft_kind_name(v->expect_kind), r->name, r->runs, r->found);
	js_first = false;
	if (r->found * 2 > r->runs)
		fprintf(js, ", \"median_executions\": %.0f, \"median_steps\": %.0f, "
			    "\"median_seconds\": %.4f",
			r->med_ex, r->med_st, isfinite(r->med_s) ? r->med_s : -1);
	fprintf(js, ", \"target\": ");
	if (target)
		cli_json_str(js, target);
	else
		fprintf(js, "null");
	fprintf(js, "}");
}

/* ------------------------------------------------------------- targets */

static bool is_small_wall(const char *zoo)
{
	return zoo && (!strncmp(zoo, "Z1", 2) || !strncmp(zoo, "Z2", 2) ||
		       !strncmp(zoo, "Z5", 2) || !strncmp(zoo, "Z6", 2));
}

void bench_fuzz_section(FILE *md, FILE *js, const struct bench_fuzz_opts *o)
{
	unsigned met_ex = 0, nr_ex = 0;
	static struct bf_row rows[4 + sizeof(fuzzers) / sizeof(fuzzers[0]) +
				  sizeof(ablations) / sizeof(ablations[0])];

	js_first = true;
	fprintf(md, "## Searchers to the declared bug (random, pct, dfs-b1-gen: %u seeds of at "
		    "most %lu executions, Z7: one seed of 10 M (dfs-b1-gen 1 M); libfuzzer %u seeds, "
		    "afl %u, weft fuzz cap %.0f s)\n\n",
		o->seeds, o->quick ? o->run_cap : o->run_cap / 2, o->seeds,
		o->seeds > 5 ? 5 : o->seeds, o->fuzz_cap);
	fprintf(md, "Executions and steps count every machine execution to the first report "
		    "of the variant's declared kind; wall seconds for weft fuzz include its "
		    "start-up (build check, engine start), not minimization. Targets (issue 12): "
		    "libfuzzer found on every seed, median executions <= the best of random, "
		    "pct-d2, pct-d3, dfs-b1-gen (and never > 2x), wall <= 0.5 s on Z1, Z2, Z5, "
		    "Z6, <= 5 s on Z3, Z4 and <= 60 s on Z7 (real constants, where the blind "
		    "searchers get one seed of 10 M executions); afl (at most 5 seeds) within "
		    "3x of libfuzzer's wall.\n\n");
	fprintf(md, "| zoo | searcher | found | median exec | median steps | median s | "
		    "exec min–max | target | note |\n|---|---|---|---:|---:|---:|---:|---|---|\n");
	for (unsigned si = 0; si < weft_nr_scenarios; si++) {
		const struct weft_scenario *sc = weft_scenarios[si];
		for (unsigned vi = 0; vi < sc->nr_variants; vi++) {
			const struct weft_variant *v = &sc->variants[vi];
			char spec[160];
			snprintf(spec, sizeof(spec), "%s:%s", sc->name, v->name);
			if (!v->buggy || !v->zoo || !v->expect_kind)
				continue;
			if (o->only && !bench_only_match(o->only, sc->name, v->name))
				continue;
			if (o->quick && !o->only && strcmp(spec, "z1-lru:z1a"))
				continue;
			unsigned nr = 0;
			static const char *const sname[] = { "random", "pct-d2", "pct-d3",
							     "dfs-b1-gen" };
			double best = INFINITY;
			/* Z7 with the real constants: the blind searchers get one seed
			 * of 10 M executions each (issue 12: "find nothing in 10 M") */
			bool deep = !o->quick && !strcmp(v->zoo, "Z7");
			/* the in-process searchers: as many seeds as libfuzzer, of
			 * run_cap/2 executions (the best of four medians of few seeds
			 * is biased low: on Z8 five seeds of random gave 2 where its
			 * mean is 5.6 executions per hit) */
			unsigned sseeds = o->seeds;
			unsigned long scap = o->quick ? o->run_cap : o->run_cap / 2;
			if (o->searchers)
				for (unsigned s = 0; s < 4; s++) {
					struct bf_row *r = &rows[nr++];
					memset(r, 0, sizeof(*r));
					r->name = sname[s];
					searcher_row(r, sc, vi, (enum bf_kind)s, o, deep ? 1 : sseeds,
						     deep ? (s == BF_DFS_GEN ? 1000000ul : 10000000ul)
							  : scap);
					finish(r);
					if (r->found * 2 > r->runs && r->med_ex < best)
						best = r->med_ex;
				}
			unsigned first_fuzz = nr;
			if (!o->no_engines) {
				/* an ablation-only run compares against libfuzzer alone */
				for (unsigned f = 0; f < (o->searchers ? 2u : 1u); f++) {
					struct bf_row *r = &rows[nr++];
					memset(r, 0, sizeof(*r));
					r->name = fuzzers[f].name;
					/* AFL++ starts in seconds per run: at most 5 seeds */
					fuzz_row(r, sc, vi, &fuzzers[f], o,
						 f && o->seeds > 5 ? 5 : o->seeds);
					finish(r);
				}
				for (unsigned f = 0; o->ablation && f < sizeof(ablations) /
					     sizeof(ablations[0]); f++) {
					struct bf_row *r = &rows[nr++];
					memset(r, 0, sizeof(*r));
					r->name = ablations[f].name;
					fuzz_row(r, sc, vi, &ablations[f], o, o->seeds);
					finish(r);
				}
			}
			for (unsigned i = 0; i < nr; i++) {
				char t[200] = "";
				const struct bf_row *r = &rows[i];
				if (i == first_fuzz && !o->no_engines) {
					bool all = r->found == r->runs && r->runs;
					/* no searcher found it: a fuzzer that did beats them */
					bool ex_ok = r->med_ex <= best;
					bool ex_2x = r->med_ex <= 2 * best;
					double wlim = is_small_wall(v->zoo) ? 0.5 :
						      !strcmp(v->zoo, "Z7") ? 60 : 5;
					bool w_ok = r->med_s <= wlim;
					nr_ex++;
					met_ex += ex_ok;
					char ratio[48];
					if (isfinite(best))
						snprintf(ratio, sizeof(ratio), "exec %.2fx best",
							 r->med_ex / best);
					else
						snprintf(ratio, sizeof(ratio), "no searcher found it");
					snprintf(t, sizeof(t), "%u/%u seeds %s; %s %s; wall <= %.1f s %s",
						 r->found, r->runs, all ? "met" : "MISSED", ratio,
						 ex_ok ? "met" : ex_2x ? "missed (<= 2x)" : "MISSED",
						 wlim, w_ok ? "met" : "MISSED");
				} else if (i == first_fuzz + 1 && !o->no_engines && o->searchers) {
					const struct bf_row *lf = &rows[first_fuzz];
					bool ok = r->med_s <= 3 * lf->med_s;
					if (isfinite(r->med_s))
						snprintf(t, sizeof(t), "wall %.2fx libfuzzer: %s",
							 r->med_s / lf->med_s, ok ? "met" : "MISSED");
					else
						snprintf(t, sizeof(t), "not found on most seeds: MISSED");
				}
				print_row(md, js, sc, vi, r, t[0] ? t : NULL);
			}
		}
	}
	if (!o->no_engines && o->searchers)
		fprintf(md, "\nlibfuzzer median executions <= the best searcher's on %u of %u "
			    "variants (target: >= 8 of 10).\n\n", met_ex, nr_ex);
	if (o->ablation) {
		fprintf(md, "\nAblations (one WEFT_FUZZ_* change each against `libfuzzer`):\n\n");
		for (unsigned f = 0; f < sizeof(ablations) / sizeof(ablations[0]); f++)
			fprintf(md, "- `%s`: %s (`%s`)\n", ablations[f].name, ablations[f].what,
				ablations[f].env[0]);
		fprintf(md, "\n");
	}
}
