/*
 * bench_scaling.c - weft-bench-scaling: how executions to a bug and the
 * cost of a step grow with threads and with steps per thread (issue 23,
 * item 5), measured in this process. `weft bench --sections scaling` runs
 * it and prints its table; it prints one JSON object.
 *
 *   weft-bench-scaling [--quick] [--seeds N] [--zoo SCENARIO:VARIANT]
 *
 * Two workloads:
 *  - bench-counter-race (defined here, not in the registry): T threads on
 *    T fake CPUs, S scheduling points each: S/2 - 1 atomic_inc of a
 *    counter of the thread's own, one unlocked increment of a shared
 *    counter (READ_ONCE, then WRITE_ONCE of the value + 1: two points),
 *    the rest private again. Quiescence checks the shared counter == T (a
 *    lost update otherwise: two threads' increments must interleave
 *    inside one window of one step). T in 2, 4, 8, 16; S in 16 ... 1024.
 *  - a zoo variant (default z1-lru:z1a, its own thread count) on its
 *    trigger workload with each thread's ops repeated r = 1, 2, 4, 8 times
 *    (at most max_ops): the steps per thread it reaches are measured.
 *
 * Searchers, each to the first report of the workload's declared kind:
 *  random       the seeded random walk, seeds 1..N;
 *  pct-d2       PCT depth 2, seeds 1..N;
 *  dpor         source-DPOR (sleep sets) with iterative preemption
 *               bounding 0, 1, 2 (what `weft run --strategy dfs` does),
 *               deterministic: one run;
 *  genome       the genome fuzzer of libweft_fuzz in this process: the
 *               mutator's fresh genomes and mutations (its arm and mode
 *               bandits) over a corpus of the inputs whose trace hash was
 *               new (the only feedback; libFuzzer's code coverage and the
 *               target's state buckets are absent: the synthetic scenario
 *               is not a registered fuzz target), seeds 1..N. Its genomes'
 *               workload is replaced by the row's workload.
 * Every seed is capped by executions and by steps (a cell never costs more
 * than its step budget); a seed that hits a cap is a miss, and a median
 * with half the seeds or more missing is "not found". ns/step is the wall
 * time of all the cell's executions over all their steps (the searcher's
 * own work included), so a cell that found the bug at once measures few
 * steps: read it with its steps column.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/fuzz.h>
#include <weft/kernel.h>
#include <weft/scenario.h>
#include <weft/strategy.h>

#include "bench_median.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------- bench-counter-race */

#define CR_MAX_STEPS 1024

static unsigned cr_steps;   /* scheduling points per thread */
static unsigned counter_race_threads;

struct cr_world {
	atomic_t own[WEFT_MAX_THREADS];
	int shared;
};

static void cr_thread(void *w, unsigned tid)
{
	struct cr_world *W = w;
	unsigned before = cr_steps / 2 - 1, after = cr_steps - 2 - before;

	for (unsigned i = 0; i < before; i++)
		atomic_inc(&W->own[tid]);
	int v = READ_ONCE(W->shared);
	WRITE_ONCE(W->shared, v + 1);
	for (unsigned i = 0; i < after; i++)
		atomic_inc(&W->own[tid]);
}

static void cr_quiesce(void *w)
{
	struct cr_world *W = w;
	int n = weft_peek(W->shared);

	if (n != (int)counter_race_threads)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->shared,
			    WEFT_SITE(WEFT_EV_NOTE, "shared == threads"), "shared counter is %d", n);
}

static const char *const cr_opnames[] = { "nop" };
static const char *const cr_files[] = { "bench_scaling.c", NULL };
static const struct weft_variant cr_variants[] = {
	{ "racy", "bench-counter-race", true, "one unlocked increment per thread",
	  "Weft benchmark", WEFT_KIND_LOST_UPDATE, 0, 0 },
};

/* nr_cpus and nr_threads are set per row */
static struct weft_scenario counter_race = {
	WEFT_SCENARIO_PLAIN("bench-counter-race",
	                    "benchmark: T CPUs x S scheduling points, one racy increment each",
	                    "Weft benchmark (bench/bench_scaling.c)",
	                    0, 0, sizeof(struct cr_world), 1, cr_opnames, 1, 256,
	                    cr_files, NULL, cr_thread, cr_variants),
	.quiesce = cr_quiesce,
};

/* ----------------------------------------------------------- searchers */

enum searcher { S_RANDOM, S_PCT2, S_DPOR, S_GENOME, S__COUNT };
static const char *const searcher_name[S__COUNT] = { "random", "pct-d2", "dpor", "genome" };

struct seed_result {
	double execs, steps, secs;   /* execs INFINITY: not found */
	const char *why;             /* dpor: why it stopped short */
};

struct row_cfg {
	const struct weft_scenario *sc;
	unsigned vi;
	enum weft_kind kind;
	const uint8_t *wl;
	size_t wl_len;
	uint64_t cap_execs, cap_steps;
};

static struct weft_run_opts run_opts(const struct row_cfg *c, bool hash)
{
	struct weft_run_opts o = { .sc = c->sc, .variant = c->vi, .lock = c->sc->default_lock,
				   .no_trace_hash = !hash, .checks = WEFT_CHECKS_DEFAULT,
				   .memory = (uint8_t)c->sc->memory };
	return o;
}

/* Counts one execution; true when the search stops (found or capped). */
static bool account(struct seed_result *s, const struct row_cfg *c, uint64_t *n, uint64_t *steps,
		    const struct weft_exec_result *r)
{
	(*n)++;
	*steps += r->steps;
	if (r->kind == c->kind) {
		s->execs = (double)*n;
		return true;
	}
	return *n >= c->cap_execs || *steps >= c->cap_steps;
}

static struct seed_result run_strategy(const struct row_cfg *c, enum searcher s, unsigned seed)
{
	static struct weft_random rs;
	static struct weft_pct ps;
	struct weft_run_opts o = run_opts(c, false);
	struct weft_exec_result r;
	struct seed_result x = { INFINITY, 0, 0, NULL };
	uint64_t n = 0, steps = 0;
	double t0 = now_s();

	if (s == S_RANDOM)
		weft_random_init(&rs, c->sc, seed, c->wl, c->wl_len);
	else
		weft_pct_init(&ps, c->sc, seed, 2, c->wl, c->wl_len);
	for (;;) {
		int rc = s == S_RANDOM ? weft_execute(&o, &weft_strategy_random, &rs, &r)
				       : weft_execute(&o, &weft_strategy_pct, &ps, &r);
		if (rc < 0 || account(&x, c, &n, &steps, &r))
			break;
	}
	x.steps = (double)steps;
	x.secs = now_s() - t0;
	return x;
}

static struct seed_result run_dpor(const struct row_cfg *c)
{
	struct weft_run_opts o = run_opts(c, false);
	struct weft_exec_result r;
	struct seed_result x = { INFINITY, 0, 0, NULL };
	uint64_t n = 0, steps = 0;
	double t0 = now_s();
	struct weft_dpor *d = weft_dpor_new();

	if (!d) {
		x.why = "out of memory";
		return x;
	}
	for (unsigned bound = 0; bound <= 2 && !isfinite(x.execs); bound++) {
		if (weft_dpor_reset(d, c->sc, weft_por_default(bound), bound, c->sc->default_lock,
				    c->wl, c->wl_len) < 0) {
			x.why = "could not start";
			break;
		}
		bool stop = false;
		while (!stop && weft_execute(&o, &weft_strategy_dpor, d, &r) == 0)
			stop = account(&x, c, &n, &steps, &r);
		if (isfinite(x.execs))
			break;
		if (!weft_dpor_complete(d)) {
			/* a capped or cut-off search: bounds above it would not be sound
			 * to skip to, and the cap is spent anyway */
			x.why = n >= c->cap_execs || steps >= c->cap_steps ? "cap"
									    : weft_dpor_why_incomplete(d);
			break;
		}
		struct weft_dpor_stats st;
		weft_dpor_get_stats(d, &st);
		if (!st.bound_cuts)
			break;   /* every larger bound makes the same search (as weft run stops) */
	}
	weft_dpor_free(d);
	x.steps = (double)steps;
	x.secs = now_s() - t0;
	return x;
}

/* The row's workload in place of the genome's own (a genome without one
 * is left as it is: the synthetic scenario takes none). */
static size_t pin_workload(const struct row_cfg *c, uint8_t *buf, size_t len, size_t cap)
{
	static struct weft_genome g;

	if (!c->wl_len || !weft_input_is_genome(buf, len))
		return len;
	weft_genome_decode(&g, buf, len);
	g.nr_ops = c->wl[0];
	for (unsigned i = 0; i < g.nr_ops; i++) {
		g.wl[i].t_op = c->wl[1 + 2 * i];
		g.wl[i].arg = c->wl[2 + 2 * i];
	}
	size_t n = weft_genome_encode(&g, buf, cap);
	return n ? n : len;
}

#define CORPUS_MAX 512
#define SEEN_BITS 16

static struct {
	uint8_t buf[WEFT_INPUT_MAX];
	size_t len;
	struct weft_fuzz_shape shape;
} corpus[CORPUS_MAX];
static uint64_t seen[1u << SEEN_BITS];

static bool novel(uint64_t h)
{
	uint64_t *slot = &seen[h & ((1u << SEEN_BITS) - 1)];

	if (*slot == (h | 1))
		return false;
	*slot = h | 1;
	return true;
}

static struct seed_result run_genome(const struct row_cfg *c, unsigned seed)
{
	static struct weft_mutator m;
	static struct weft_bytes b;
	static uint8_t in[WEFT_INPUT_MAX];
	struct weft_run_opts o = run_opts(c, true);
	struct weft_exec_result r;
	struct seed_result x = { INFINITY, 0, 0, NULL };
	struct weft_rng pick;
	uint64_t n = 0, steps = 0;
	unsigned nc = 0;
	double t0 = now_s();

	memset(seen, 0, sizeof(seen));
	weft_mutator_init(&m, c->sc, seed);
	weft_rng_seed(&pick, seed * 0x9e3779b97f4a7c15ull + 7);
	for (;;) {
		size_t len;
		const struct weft_fuzz_shape *sh = NULL;
		if (!nc) {
			len = weft_mutator_generate(&m, in, sizeof(in));
			m.last_arm = -1;
		} else {
			unsigned p = (unsigned)(weft_rng_next(&pick) % nc);
			memcpy(in, corpus[p].buf, corpus[p].len);
			sh = &corpus[p].shape;
			len = weft_mutator_mutate(&m, in, corpus[p].len, sizeof(in),
						  (uint32_t)weft_rng_next(&pick), sh);
		}
		len = pin_workload(c, in, len, sizeof(in));
		m.last_hash = weft_fuzz_hash(in, len);
		weft_bytes_init(&b, c->sc, in, len);
		if (weft_execute(&o, &weft_strategy_bytes, &b, &r) < 0)
			break;
		bool gain = novel(r.trace_hash);
		weft_mutator_reward(&m, in, len, gain, r.steps);
		if (gain) {
			unsigned slot = nc < CORPUS_MAX ? nc++ : (unsigned)(weft_rng_next(&pick) %
									    CORPUS_MAX);
			memcpy(corpus[slot].buf, in, len);
			corpus[slot].len = len;
			memset(&corpus[slot].shape, 0, sizeof(corpus[slot].shape));
			corpus[slot].shape.known = true;
			corpus[slot].shape.steps = r.steps;
			if (b.genome)
				memcpy(corpus[slot].shape.cnt, b.gr.cnt,
				       sizeof(corpus[slot].shape.cnt));
		}
		if (account(&x, c, &n, &steps, &r))
			break;
	}
	x.steps = (double)steps;
	x.secs = now_s() - t0;
	return x;
}

/* --------------------------------------------------------------- output */

static bool first_row = true;

/* s as a JSON string: quotes, backslashes and control bytes escaped. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* One cell: every seed of searcher s on c; one JSON object. */
static void cell(const char *workload, unsigned threads, double steps_per_thread,
		 const struct row_cfg *c, enum searcher s, unsigned seeds)
{
	double ex[64];
	double all_steps = 0, all_secs = 0;
	unsigned found = 0, runs = s == S_DPOR ? 1 : seeds;
	const char *why = NULL;

	for (unsigned i = 0; i < runs; i++) {
		struct seed_result x = s == S_DPOR	? run_dpor(c)
				       : s == S_GENOME ? run_genome(c, i + 1)
						       : run_strategy(c, s, i + 1);
		ex[i] = x.execs;
		found += isfinite(x.execs);
		all_steps += x.steps;
		all_secs += x.secs;
		if (x.why)
			why = x.why;
	}
	double med = bench_median_sort(ex, runs);
	printf("%s    {\"workload\": \"%s\", \"threads\": %u, \"steps_per_thread\": %.1f, "
	       "\"searcher\": \"%s\", \"seeds\": %u, \"found\": %u, ",
	       first_row ? "" : ",\n", workload, threads, steps_per_thread, searcher_name[s], runs,
	       found);
	first_row = false;
	if (found * 2 > runs)
		printf("\"median_executions\": %.1f, ", med);
	else
		printf("\"median_executions\": null, ");
	printf("\"steps\": %.0f, \"seconds\": %.4f, \"ns_per_step\": %.2f, \"cap_executions\": "
	       "%" PRIu64 ", \"cap_steps\": %" PRIu64 ", \"note\": ",
	       all_steps, all_secs, all_steps > 0 ? all_secs * 1e9 / all_steps : -1.0,
	       c->cap_execs, c->cap_steps);
	json_str(why ? why : "");
	putchar('}');
	fflush(stdout);
}

/* Variant vi's trigger workload with each thread's ops repeated r times;
 * its length, 0 if it does not fit. */
static size_t repeat_workload(const struct weft_scenario *sc, unsigned vi, unsigned r,
			      uint8_t *out, size_t cap)
{
	uint8_t base[WEFT_INPUT_MAX];
	size_t len = weft_trigger_workload(sc, vi, base, sizeof(base));
	unsigned per[WEFT_MAX_THREADS] = { 0 }, total = 0;

	if (!len)
		return 0;
	for (unsigned i = 0; i < base[0]; i++)
		per[(base[1 + 2 * i] >> 4) % WEFT_MAX_THREADS]++;
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++) {
		if (per[t] * r > sc->max_ops)
			return 0;
		total += per[t] * r;
	}
	if (total > 255 || 1 + 2 * (size_t)total > cap)
		return 0;
	out[0] = (uint8_t)total;
	size_t k = 1;
	for (unsigned rep = 0; rep < r; rep++)
		for (unsigned i = 0; i < base[0]; i++) {
			out[k++] = base[1 + 2 * i];
			out[k++] = base[2 + 2 * i];
		}
	return k;
}

static void usage(void)
{
	fprintf(stderr, "usage: weft-bench-scaling [--quick] [--seeds N] [--zoo SCENARIO:VARIANT]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool quick = false;
	unsigned seeds = 5;
	const char *zoo = "z1-lru:z1a";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
			seeds = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--zoo") && i + 1 < argc)
			zoo = argv[++i];
		else
			usage();
	}
	if (!seeds || seeds > 64)
		usage();
	if (quick && seeds > 3)
		seeds = 3;
	unsigned zvi;
	const struct weft_scenario *zsc = weft_scenario_find(zoo, &zvi);
	if (!zsc || !zsc->variants[zvi].buggy || !zsc->variants[zvi].expect_kind) {
		fprintf(stderr, "weft-bench-scaling: '%s' is not a buggy variant with a declared "
				"kind\n", zoo);
		return 2;
	}
	if (weft_machine_init() < 0) {
		fprintf(stderr, "weft-bench-scaling: cannot start the machine\n");
		return 5;
	}
	static const unsigned threads_full[] = { 2, 4, 8, 16 }, threads_quick[] = { 2, 8 };
	static const unsigned steps_full[] = { 16, 64, 256, 1024 }, steps_quick[] = { 16, 256 };
	static const unsigned reps_full[] = { 1, 2, 4, 8 }, reps_quick[] = { 1, 4 };
	const unsigned *th = quick ? threads_quick : threads_full;
	const unsigned *stp = quick ? steps_quick : steps_full;
	const unsigned *reps = quick ? reps_quick : reps_full;
	unsigned nth = quick ? 2 : 4, nst = quick ? 2 : 4, nrep = quick ? 2 : 4;
	/* per seed: executions, and steps (the wall-clock budget) */
	uint64_t cap_execs = quick ? 2000 : 100000;
	uint64_t cap_steps = quick ? 2000000 : 10000000;

	printf("{\"quick\": %s, \"seeds\": %u, \"zoo\": \"%s\", \"cap_executions\": %" PRIu64
	       ", \"cap_steps\": %" PRIu64 ",\n  \"rows\": [\n",
	       quick ? "true" : "false", seeds, zoo, cap_execs, cap_steps);
	for (unsigned a = 0; a < nth; a++)
		for (unsigned b = 0; b < nst; b++) {
			counter_race.nr_cpus = th[a];
			counter_race.nr_threads = th[a];
			cr_steps = stp[b];
			counter_race_threads = th[a];
			struct row_cfg c = { &counter_race, 0, WEFT_KIND_LOST_UPDATE, NULL, 0,
					     cap_execs, cap_steps };
			for (unsigned s = 0; s < S__COUNT; s++)
				cell(counter_race.name, th[a], stp[b], &c, (enum searcher)s, seeds);
		}
	for (unsigned k = 0; k < nrep; k++) {
		static uint8_t wl[WEFT_INPUT_MAX];
		size_t len = repeat_workload(zsc, zvi, reps[k], wl, sizeof(wl));
		if (!len)
			continue;
		struct row_cfg c = { zsc, zvi, zsc->variants[zvi].expect_kind, wl, len, cap_execs,
				     cap_steps };
		/* steps per thread of this workload: the mean over 200 random runs */
		static struct weft_random rs;
		struct weft_run_opts o = run_opts(&c, false);
		struct weft_exec_result r;
		uint64_t st = 0;
		weft_random_init(&rs, zsc, 12345, wl, len);
		for (unsigned i = 0; i < 200; i++)
			if (weft_execute(&o, &weft_strategy_random, &rs, &r) == 0)
				st += r.steps;
		double spt = (double)st / 200.0 / zsc->nr_threads;
		char name[160];
		snprintf(name, sizeof(name), "%s x%u ops", zoo, reps[k]);
		for (unsigned s = 0; s < S__COUNT; s++)
			cell(name, zsc->nr_threads, spt, &c, (enum searcher)s, seeds);
	}
	printf("\n  ]\n}\n");
	return 0;
}
