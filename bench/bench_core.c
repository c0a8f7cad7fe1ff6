/*
 * bench_core.c - weft-microbench: the core micro-benchmarks of issue 2,
 * measured side by side in one process, and the exhaustive-search runs of
 * `weft bench` that must go on past the first bug.
 *
 *   weft-microbench core [--quick]
 *	ns per context switch: Weft's fiber API (weft_fiber_switch), its asm
 *	routine called with nothing around it (weft_ctx_switch: the bare
 *	switch, the reference) and swapcontext(3); then executions, steps and
 *	scheduling decisions per second of "bench-2x50" (2 CPUs, 50
 *	scheduling points each, defined below and not in the registry) under
 *	the seeded random strategy and under a strategy that always takes the
 *	default (decisions without context switches). One JSON object.
 *
 *   weft-microbench dfs SCENARIO:VARIANT --bound K [--lock tas|ticket]
 *			 [--max N]
 *	Preemption-bounded DFS over the variant's trigger workload (what
 *	`weft run --strategy dfs` searches), continued past bugs to the end of
 *	the bounded space: executions to the first bug and to completion.
 *
 * Every number printed is measured in this process; nothing is assumed.
 * Each timing is the median of WEFT_BENCH_REPS repetitions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include <weft/kernel.h>
#include <weft/scenario.h>
#include <weft/strategy.h>

#include "fiber.h"   /* core/src/machine: the internal fiber API under test */
#include "bench_median.h"

#define WEFT_BENCH_REPS 5

/* core/src/machine/fiber_<arch>.S: the least a switch between C stacks
 * can do (save the callee-saved registers, swap the stack pointer,
 * restore, return), so called directly it is the bare switch the fiber
 * API's C wrapper is measured against. */
void weft_ctx_switch(void **save_sp, void *new_sp);

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------ context switches */

/* Ping-pong between the host context and one fiber: each round trip is two
 * switches. The fiber side loops forever; the host stops calling it. */

static struct weft_fiber fb_main, fb_peer;

static void weft_api_peer(void *arg)
{
	(void)arg;
	weft_fiber_started(&fb_peer, &fb_main);
	for (;;)
		weft_fiber_switch(&fb_peer, &fb_main, false);
}

static double switch_weft_api(uint64_t rounds)
{
	weft_fiber_reset(&fb_peer, weft_api_peer, NULL);
	weft_fiber_switch(&fb_main, &fb_peer, false);   /* start it */
	double t0 = bench_now();
	for (uint64_t i = 0; i < rounds; i++)
		weft_fiber_switch(&fb_main, &fb_peer, false);
	return (bench_now() - t0) * 1e9 / (2.0 * (double)rounds);
}

#if defined(__x86_64__) || defined(__aarch64__)
static void weft_raw_peer(void *arg)
{
	(void)arg;
	for (;;)
		weft_ctx_switch(&fb_peer.sp, fb_main.sp);
}

static double switch_weft_raw(uint64_t rounds)
{
	weft_fiber_reset(&fb_peer, weft_raw_peer, NULL);
	weft_ctx_switch(&fb_main.sp, fb_peer.sp);
	double t0 = bench_now();
	for (uint64_t i = 0; i < rounds; i++)
		weft_ctx_switch(&fb_main.sp, fb_peer.sp);
	return (bench_now() - t0) * 1e9 / (2.0 * (double)rounds);
}
#endif

static ucontext_t uc_main, uc_peer;
static char uc_stack[64 * 1024] __attribute__((aligned(16)));

static void uc_entry(void)
{
	for (;;)
		swapcontext(&uc_peer, &uc_main);
}

static double switch_ucontext(uint64_t rounds)
{
	getcontext(&uc_peer);
	uc_peer.uc_stack.ss_sp = uc_stack;
	uc_peer.uc_stack.ss_size = sizeof(uc_stack);
	uc_peer.uc_link = NULL;
	makecontext(&uc_peer, uc_entry, 0);
	swapcontext(&uc_main, &uc_peer);
	double t0 = bench_now();
	for (uint64_t i = 0; i < rounds; i++)
		swapcontext(&uc_main, &uc_peer);
	return (bench_now() - t0) * 1e9 / (2.0 * (double)rounds);
}

/* ------------------------------------------------------------ bench-2x50 */

/*
 * Two threads on two fake CPUs, 50 atomic increments each on one shared
 * counter: 100 scheduling points, every one of them a decision while both
 * threads are runnable. No detector can fire; the audit checks the sum so
 * the scenario is not optimised into nothing.
 */
#define BENCH_POINTS 50

struct bench_world {
	atomic_t counter;
};

static void bench_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	(void)w;
	(void)variant;
	(void)wl;
}

static void bench_thread(void *w, unsigned tid)
{
	struct bench_world *W = w;

	(void)tid;
	for (unsigned i = 0; i < BENCH_POINTS; i++)
		atomic_inc(&W->counter);
}

static void bench_quiesce(void *w)
{
	struct bench_world *W = w;

	if (weft_peek(W->counter.counter) != 2 * BENCH_POINTS)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->counter,
			    WEFT_SITE(WEFT_EV_NOTE, "counter == 100"), "counter is %d",
			    weft_peek(W->counter.counter));
}

static const char *const bench_opnames[] = { "nop" };
static const char *const bench_files[] = { "bench_core.c", NULL };
static const struct weft_variant bench_variants[] = {
	{ "atomic", NULL, false, "50 atomic_inc per CPU", "Weft benchmark", WEFT_KIND_NONE, 0, 0 },
};

static const struct weft_scenario bench_2x50 = {
	WEFT_SCENARIO_PLAIN("bench-2x50", "benchmark: 2 CPUs x 50 scheduling points",
	                    "Weft benchmark (bench/bench_core.c)",
	                    2, 2, sizeof(struct bench_world), 1, bench_opnames, 1, 256,
	                    bench_files, bench_setup, bench_thread, bench_variants),
	.quiesce = bench_quiesce,
};

/* A strategy that always takes the default: decisions, no preemptions. */
static int default_pick(void *st, const struct weft_decision *d)
{
	(void)st;
	return d->dflt;
}

static const struct weft_strategy_ops bench_default_ops = {
	.name = "default",
	.pick_next = default_pick,
};

struct exec_rate {
	uint64_t executions, steps, decisions, switches, bugs;
	double seconds;
};

/* Run batches of executions until min_seconds have passed. */
static int run_rate(const struct weft_strategy_ops *ops, void *st, double min_seconds,
		    struct exec_rate *out)
{
	struct weft_metrics m;
	struct weft_run_opts o = { .sc = &bench_2x50, .variant = 0, .lock = WEFT_LOCK_TAS };
	struct weft_exec_result r;
	double t0 = bench_now(), t;

	memset(out, 0, sizeof(*out));
	weft_metrics_init(&m, ops, st);
	do {
		for (unsigned i = 0; i < 4096; i++) {
			if (weft_execute(&o, weft_metrics_ops(&m), &m, &r) < 0)
				return -1;
			out->bugs += r.kind != WEFT_KIND_NONE;
		}
		t = bench_now();
	} while (t - t0 < min_seconds);
	out->seconds = t - t0;
	out->executions = m.executions;
	out->steps = m.steps;
	out->decisions = m.decisions;
	out->switches = m.switches;
	return 0;
}

static void print_rate(const char *name, const struct exec_rate *r, bool comma)
{
	printf("  \"%s\": {\"executions\": %" PRIu64 ", \"seconds\": %.6f, \"steps\": %" PRIu64
	       ", \"decisions\": %" PRIu64 ", \"switches\": %" PRIu64 ", \"reports\": %" PRIu64
	       ", \"exec_per_s\": %.0f, \"decisions_per_s\": %.0f, \"ns_per_step\": %.2f}%s\n",
	       name, r->executions, r->seconds, r->steps, r->decisions, r->switches, r->bugs,
	       (double)r->executions / r->seconds, (double)r->decisions / r->seconds,
	       r->seconds * 1e9 / (double)r->steps, comma ? "," : "");
}

static int mode_core(bool quick)
{
	uint64_t rounds = quick ? 2000000 : 10000000;
	double secs = quick ? 0.5 : 2.0;

	if (weft_machine_init())
		return 3;
	weft_fiber_init_main(&fb_main);
	if (weft_fiber_create(&fb_peer, 64 * 1024))
		return 3;

	/* The methods take turns within each repetition, so a slow spell of
	 * a shared machine hits all of them alike. */
	double v_api[WEFT_BENCH_REPS], v_raw[WEFT_BENCH_REPS], v_uc[WEFT_BENCH_REPS];
	for (unsigned i = 0; i < WEFT_BENCH_REPS; i++) {
		v_api[i] = switch_weft_api(rounds);
#if defined(__x86_64__) || defined(__aarch64__)
		v_raw[i] = switch_weft_raw(rounds);
#else
		v_raw[i] = -1;
#endif
		v_uc[i] = switch_ucontext(rounds / 10);
	}
	double ns_api = bench_median_sort(v_api, WEFT_BENCH_REPS);
	double ns_raw = bench_median_sort(v_raw, WEFT_BENCH_REPS);
	double ns_uc = bench_median_sort(v_uc, WEFT_BENCH_REPS);

	struct weft_random rs;
	struct exec_rate rr, rd;
	static const uint8_t empty_wl[1] = { 0 };

	/* fixed empty workload: the rate is the machine's, not the generator's */
	weft_random_init(&rs, &bench_2x50, 1, empty_wl, sizeof(empty_wl));
	if (run_rate(&weft_strategy_random, &rs, secs, &rr))
		return 3;
	if (run_rate(&bench_default_ops, NULL, secs, &rd))
		return 3;

	printf("{\n  \"reps\": %u, \"switch_rounds\": %" PRIu64 ",\n", WEFT_BENCH_REPS, rounds);
	printf("  \"switch_ns\": {\"weft_fiber_switch\": %.2f, \"weft_ctx_switch\": %.2f, "
	       "\"swapcontext\": %.2f},\n",
	       ns_api, ns_raw, ns_uc);
	printf("  \"scenario\": \"%s\", \"cpus\": 2, \"points_per_cpu\": %u,\n", bench_2x50.name,
	       BENCH_POINTS);
	print_rate("random", &rr, true);
	print_rate("default", &rd, false);
	printf("}\n");
	return rr.bugs || rd.bugs ? 1 : 0;
}

/* ------------------------------------------------------------------- dfs */

static int mode_dfs(int argc, char **argv)
{
	const char *spec = NULL;
	enum weft_kind want = WEFT_KIND_NONE;   /* NONE: any kind is the bug */
	unsigned long bound = 1;
	uint64_t max = 10000000;
	enum weft_lock_model lock = WEFT_LOCK_TAS;
	bool lock_set = false;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--bound") && i + 1 < argc) {
			bound = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--max") && i + 1 < argc) {
			max = strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
			want = weft_kind_from_name(argv[++i]);
			if (want == WEFT_KIND_NONE) {
				fprintf(stderr, "weft-microbench: dfs: no report kind '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--lock") && i + 1 < argc) {
			i++;
			lock = !strcmp(argv[i], "ticket") ? WEFT_LOCK_TICKET : WEFT_LOCK_TAS;
			lock_set = true;
		} else if (argv[i][0] != '-' && !spec) {
			spec = argv[i];
		} else {
			fprintf(stderr, "weft-microbench: dfs: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	unsigned vi = 0;
	const struct weft_scenario *sc = spec ? weft_scenario_find(spec, &vi) : NULL;
	if (!sc) {
		fprintf(stderr, "weft-microbench: dfs: no scenario '%s'\n", spec ? spec : "");
		return 2;
	}
	if (!lock_set)
		lock = sc->default_lock;
	static struct weft_dfs d;
	static uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = weft_dfs_workload(sc, vi, wl, sizeof(wl), NULL);   /* as weft run */
	weft_dfs_init(&d, sc, (unsigned)bound, wl, wl_len);

	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock };
	struct weft_exec_result r;
	uint64_t n = 0, first = 0, bugs = 0, other = 0;
	double t0 = bench_now(), t_first = 0;
	while (n < max) {
		if (weft_execute(&o, &weft_strategy_dfs, &d, &r) < 0)
			break;
		n++;
		if (r.kind != WEFT_KIND_NONE && want != WEFT_KIND_NONE && r.kind != want) {
			other++;
		} else if (r.kind != WEFT_KIND_NONE) {
			if (!bugs++) {
				first = n;
				t_first = bench_now() - t0;
			}
		}
	}
	double secs = bench_now() - t0;
	printf("{\"scenario\": \"%s\", \"variant\": \"%s\", \"bound\": %lu, \"workload_bytes\": %zu"
	       ", \"workload\": \"", sc->name, sc->variants[vi].name, bound, wl_len);
	for (size_t k = 0; k < wl_len; k++)
		printf("%02x", wl[k]);
	printf("\", \"executions\": %" PRIu64 ", \"seconds\": %.6f, \"complete\": %s"
	       ", \"bugs\": %" PRIu64 ", \"other_bugs\": %" PRIu64 ", \"first_bug_execution\": ",
	       n, secs, d.complete ? "true" : "false", bugs, other);
	if (bugs)
		printf("%" PRIu64 ", \"first_bug_seconds\": %.6f}\n", first, t_first);
	else
		printf("null, \"first_bug_seconds\": null}\n");
	return bugs ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "core"))
		return mode_core(argc >= 3 && !strcmp(argv[2], "--quick"));
	if (argc >= 2 && !strcmp(argv[1], "dfs"))
		return mode_dfs(argc, argv);
	fprintf(stderr, "usage: weft-microbench core [--quick]\n"
			"       weft-microbench dfs SCENARIO:VARIANT --bound K [--lock tas|ticket]"
			" [--max N] [--kind KIND]\n");
	return 2;
}
