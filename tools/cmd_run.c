/*
 * cmd_run.c - `weft run`: run a scenario variant under a strategy until a
 * report, the iteration budget, or (dfs) the end of the bounded space.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/strategy.h>

#include "cli.h"
#include "replay_cli.h"
#include "run_dpor.h"

const char weft_help_run[] =
	"usage: weft run SCENARIO[:VARIANT] [options]\n"
	"       weft run ./PROGRAM [options] [-- ARGS]   (built by weft-cc: docs/testing-c-programs.md)\n\n"
	"Runs executions of the variant under a strategy until a detector reports a bug,\n"
	"the iteration budget is spent, or (dfs) the bounded space is covered.\n"
	"  --strategy S      random (default), pct, dfs, or bytes (one execution of --input)\n"
	"  --seed N          seed of random and pct (default 1)\n"
	"  --iterations N    executions at most (default 100000; dfs: unlimited)\n"
	"  --depth D         pct depth (default 2)\n"
	"  --bound K|none    dfs preemption bound (default 2); with partial-order\n"
	"                    reduction (or plain dfs in its place), bounds 0, 1, ... K\n"
	"                    are searched in turn so the first report has the fewest\n"
	"                    preemptions; none: every\n"
	"                    interleaving (\"verified\" when complete)\n"
	"  --fair-bound K|none  dfs: unfair choices per execution (a thread that spins\n"
	"                    without progress run again before the threads it waits\n"
	"                    for); branches past K are pruned and the result says\n"
	"                    \"limit reached: fairness bound K\", never complete\n"
	"                    (default: 0 with --bound none, where an unbounded spin\n"
	"                    loop would make the search endless; else none: an unfair\n"
	"                    choice costs a preemption); a plain dfs bound: a K the\n"
	"                    reduction would not apply (any K under --bound K', K > 0\n"
	"                    under --bound none) runs plain dfs, and with --por P is\n"
	"                    a usage error; docs/strategies.md\n"
	"  --por P           dfs partial-order reduction: none (plain dfs), sleep,\n"
	"                    source, optimal (default: optimal with --bound none,\n"
	"                    else source; none for scenarios with interrupts or\n"
	"                    migration, which the reduction does not model;\n"
	"                    a default search whose execution meets either, or,\n"
	"                    with --bound none, an unfair choice (a spinning\n"
	"                    thread; under a bound it costs a preemption, as in\n"
	"                    plain dfs) starts over as plain dfs; threads sharing a\n"
	"                    CPU keep the reduction; a weft_choose() of up to 16\n"
	"                    values is a branch point of every search; the output\n"
	"                    says why: \"search: plain dfs ...\", JSON \"por_why\")\n"
	"  --workloads N     dfs over every workload of at most N ops (the scenario's\n"
	"                    threads and opcodes) x every interleaving in the bound\n"
	"  --workload-args A the args --workloads enumerates: 0 .. A-1 (default 2;\n"
	"                    models take args modulo their own bounds)\n"
	"  --lock tas|ticket lock model: unfair test-and-set (default) or FIFO ticket\n"
	"  --memory M        memory model of the fake CPUs (default: the scenario's,\n"
	"                    which weft list shows, else sc): sc, tso (a FIFO\n"
	"                    store buffer per CPU: the strategy chooses when each\n"
	"                    buffered store becomes visible), lkmm (the kernel's model:\n"
	"                    stores to different locations visible out of order, loads\n"
	"                    of older values, within the kernel's barriers and\n"
	"                    ordering classes); docs/memory-model.md\n"
	"  --delay-bound N   dfs under a weak --memory: at most N weak choices per\n"
	"                    execution (a delayed store, a load of an older value),\n"
	"                    each over all its codes (default 2; 0: none)\n"
	"  --workload HEX    fixed workload section: byte 0 is the op count n, then\n"
	"                    exactly 2n bytes (dfs default: the variant's trigger\n"
	"                    workload, else the first trigger the scenario declares,\n"
	"                    else empty, with a warning: the certificate covers it only)\n"
	"  --input FILE      bytes input for --strategy bytes (a raw fuzzer input)\n"
	"  --input-hex HEX   the same, inline\n"
	"  --steps N         step budget per execution (livelock bound)\n"
	"  --kind K[,K...]   stop only at a report of these kinds (weft list names each\n"
	"                    variant's); other reports are counted (other_reports) and\n"
	"                    the search goes on: verdict and exit code are about K.\n"
	"                    An execution goes on past a warning of another kind\n"
	"                    (lockdep-lite's lock-order-inversion, irq-lock-inversion,\n"
	"                    lock-held-at-exit); any other report ends it, and dfs\n"
	"                    then cannot certify what would have followed (it says\n"
	"                    NOT covered completely, and why)\n"
	"  --no-lockdep      no lockdep-lite (lock-order and interrupt-usage checks\n"
	"                    across the executions of the run; on by default)\n"
	"  --stats           print the model's counters after the run\n"
	"  --quiet           no progress, only the result\n"
	"  --out DIR         on a bug: minimize it, write the .weft into DIR (never\n"
	"                    overwriting) and print its path and the replay command\n"
	"  --json            one JSON object: scenario, variant, strategy, verdict\n"
	"                    (\"bug\"|\"clean\"), kind, executions, and of the finding (or,\n"
	"                    when clean, of the last execution): preemptions, steps,\n"
	"                    trace_hash, input (hex), deterministic; seconds; workload\n"
	"                    (hex of a fixed one, else null) and workload_ops; dfs:\n"
	"                    complete (true: no schedule within the three bounds was\n"
	"                    left out; else why_incomplete) and the bounds it is\n"
	"                    relative to: bound (preemptions, K or \"none\"), delay_bound\n"
	"                    (weak choices per execution; null under sc, which makes\n"
	"                    none), fair_bound (unfair choices per execution, K or\n"
	"                    \"none\": under a preemption bound each costs a preemption);\n"
	"                    warning (when the certificate covers only\n"
	"                    the empty workload); with --kind: other_reports,\n"
	"                    other_kinds {kind: count}\n"
	"exit: 0 clean, 1 bug, 2 usage, 3 I/O, 4 an execution did not replay the same\n"
	"      (nondeterministic model)\n";

_Static_assert(WEFT_KIND__COUNT <= 64, "--kind keeps the kinds in a 64-bit mask");

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A search whose closing re-run of its last execution diverged searched a
 * model that is not a function of its decisions: whatever it covered, it
 * certifies nothing. */
#define NONDET_CLOSING_WHY                                                                         \
	"the closing re-run of the last execution diverged: the model is nondeterministic"

/* Why plain dfs did not certify. */
static const char *dfs_why(const struct weft_dfs *d, uint64_t cut_by_other, int det_rc)
{
	static char why[320];

	if (det_rc)
		return NONDET_CLOSING_WHY;
	if (cut_by_other) {
		snprintf(why, sizeof(why),
			 "%" PRIu64 " execution%s ended at a report of a kind not asked for "
			 "(--kind) before every thread finished: what followed was not explored",
			 cut_by_other, cut_by_other == 1 ? "" : "s");
		return why;
	}
	if (d->wide_choice)
		return "the model chose with weft_choose() among more than 16 values, which dfs "
		       "does not enumerate";
	if (d->overflow)
		return "the decision stack cap was hit, or a replayed prefix diverged (the model "
		       "is nondeterministic)";
	if (d->exhausted && d->fair_pruned) {
		snprintf(why, sizeof(why),
			 "limit reached: fairness bound %u (--fair-bound): %" PRIu64 " branch%s "
			 "where a thread spinning without progress ran again before the threads "
			 "it waits for %s pruned", d->fair_bound, d->fair_pruned,
			 d->fair_pruned == 1 ? "" : "es", d->fair_pruned == 1 ? "was" : "were");
		return why;
	}
	return "the execution cap (--iterations) was hit";
}

/* Does the scenario declare any trigger input? */
static bool has_trigger(const struct weft_scenario *sc)
{
	for (unsigned v = 0; sc->triggers && v < sc->nr_variants; v++)
		if (sc->triggers[v])
			return true;
	return false;
}

/* dfs's default workload (weft_dfs_workload(), as tools/ci/long certifies
 * fixed variants); *from names the variant whose trigger it is (NULL:
 * empty). */
static size_t dfs_default_workload(const struct weft_scenario *sc, unsigned vi, uint8_t *wl,
				   size_t cap, const char **from)
{
	int v;
	size_t n = weft_dfs_workload(sc, vi, wl, cap, &v);

	*from = v >= 0 ? sc->variants[v].name : NULL;
	return n;
}

/* "workload 0201001200 (2 ops, WHY)" or "the empty workload (WHY)". */
static void print_workload(const struct weft_scenario *sc, const uint8_t *wl, size_t n,
			   const char *why, const char *whose)
{
	char b[48];

	if (n <= 1 && !why && weft_program_self()) {
		printf("this run of the program");   /* as DPOR's verdict words it */
		return;
	}
	if (n <= 1 && !weft_scenario_takes_workload(sc)) {
		printf("the empty workload, its only one (the scenario declares no workload ops)");
		return;
	}
	if (n <= 1) {
		printf("the empty workload");
	} else {
		cli_hex_print(stdout, wl, n);
		printf(" (%s", cli_plural(b, sizeof(b), wl[0], "op"));
	}
	if (why)
		printf("%s%s%s", n <= 1 ? " (" : ", ", why, whose ? whose : "");
	if (n > 1 || why)
		printf(")");
}

int cmd_run(int argc, char **argv)
{
	const char *spec = NULL, *strategy = "random", *input_path = NULL, *input_hex = NULL;
	const char *wl_hex = NULL, *outdir = NULL;
	uint64_t seed = 1, iterations = 0, depth = 2, bound = 2, steps = 0;
	bool json = false, stats = false, quiet = false, lockdep = true;
	struct cli_model_flags model = { .lock = WEFT_LOCK_TAS, .memory = WEFT_MEM_SC };
	int flag_rc;
	uint64_t delay_bound = WEFT_DFS_DELAY_BOUND;
	bool bound_none = false, por_set = false;
	uint64_t fair_bound = 0;
	bool fair_bound_set = false, fair_bound_none = false;
	unsigned dfs_fair_bound = WEFT_BOUND_NONE;   /* weft_dfs.fair_bound */
	enum weft_por por = WEFT_POR_NONE;
	const char *por_why = NULL;   /* why dfs ran without reduction by default */
	unsigned dfs_bound = 0, dfs_final_bound = 0;   /* plain dfs: now, last */
	uint64_t workloads = 0, wl_args = 2;
	static uint8_t input[65536];
	uint8_t wl[WEFT_INPUT_MAX];
	long input_len = 0;
	size_t wl_len = 0;
	bool have_wl = false, wl_given;
	const char *wl_from = NULL;   /* dfs default: whose trigger */
	uint64_t want_kinds = 0;      /* --kind: bit k set; 0: every kind */
	uint64_t other[WEFT_KIND__COUNT] = { 0 }, nr_other = 0;
	uint64_t cut_by_other = 0;    /* executions a skipped report cut short */

	const struct cli_flag flags[] = {
		{ "--json", NULL, &json, NULL },
		{ "--stats", NULL, &stats, NULL },
		{ "--quiet", NULL, &quiet, NULL },
		{ "--strategy", NULL, NULL, &strategy },
		{ "--workload", NULL, NULL, &wl_hex },
		{ "--input", NULL, NULL, &input_path },
		{ "--input-hex", NULL, NULL, &input_hex },
		{ "--out", NULL, NULL, &outdir },
		{ 0 },
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV() CLI_NEEDV("run")
		if (cli_flag_take("run", flags, argc, argv, &i, &flag_rc)) {
			if (flag_rc)
				return flag_rc;
		} else if (!strcmp(a, "--no-lockdep")) {
			lockdep = false;
		} else if (!strcmp(a, "--seed")) {
			NEEDV();
			if (!cli_parse_u64(v, &seed))
				return cli_usage_error("run: --seed takes a number, not '%s'", v);
		} else if (!strcmp(a, "--iterations")) {
			NEEDV();
			if (!cli_parse_u64(v, &iterations) || !iterations)
				return cli_usage_error("run: --iterations takes a positive number");
		} else if (!strcmp(a, "--depth")) {
			NEEDV();
			if (!cli_parse_u64(v, &depth) || depth < 1 || depth > 8)
				return cli_usage_error("run: --depth takes 1..8");
		} else if (!strcmp(a, "--bound")) {
			NEEDV();
			bound_none = !strcmp(v, "none");
			if (!bound_none && (!cli_parse_u64(v, &bound) || bound > 255))
				return cli_usage_error("run: --bound takes 0..255 or none");
		} else if (!strcmp(a, "--fair-bound")) {
			NEEDV();
			fair_bound_set = true;
			fair_bound_none = !strcmp(v, "none");
			if (!fair_bound_none && (!cli_parse_u64(v, &fair_bound) || fair_bound > 255))
				return cli_usage_error("run: --fair-bound takes 0..255 or none");
		} else if (!strcmp(a, "--por")) {
			NEEDV();
			if (!weft_por_parse(v, &por))
				return cli_usage_error("run: --por takes none, sleep, source or optimal, "
						       "not '%s'", v);
			por_set = true;
		} else if (!strcmp(a, "--workloads")) {
			NEEDV();
			if (!cli_parse_u64(v, &workloads) || !workloads || workloads > 8)
				return cli_usage_error("run: --workloads takes 1..8 (ops)");
		} else if (!strcmp(a, "--workload-args")) {
			NEEDV();
			if (!cli_parse_u64(v, &wl_args) || !wl_args || wl_args > 256)
				return cli_usage_error("run: --workload-args takes 1..256");
		} else if (!strcmp(a, "--steps")) {
			NEEDV();
			if (!cli_parse_u64(v, &steps) || !steps || steps > UINT32_MAX)
				return cli_usage_error("run: --steps takes a positive number");
		} else if (cli_model_flag("run", a, v, &model, &flag_rc)) {
			if (flag_rc)
				return flag_rc;
			i++;
		} else if (!strcmp(a, "--delay-bound")) {
			NEEDV();
			if (!cli_parse_u64(v, &delay_bound) || delay_bound > 255)
				return cli_usage_error("run: --delay-bound takes 0..255");
		} else if (!strcmp(a, "--kind")) {
			NEEDV();
			char bad[256];
			if (!cli_parse_kinds(v, &want_kinds, bad, sizeof(bad)))
				return cli_usage_error("run: --kind: no report kind '%s' "
						       "(docs/detectors.md)", bad);
		} else {
			int rc = cli_operand("run", a, &spec);
			if (rc)
				return rc;
		}
#undef NEEDV
	}
	unsigned vi;
	const struct weft_scenario *sc = cli_operand_scenario("run", "scenario", spec, &vi);
	if (!sc)
		return WEFT_EXIT_USAGE;
	enum weft_lock_model lock;
	enum weft_memory_model memory;
	cli_model_of(&model, sc, &lock, &memory);
	if (wl_hex) {
		char why[160];
		long n = cli_workload_decode(wl_hex, wl, sizeof(wl), why, sizeof(why));
		if (n < 0)
			return cli_usage_error("run: --workload %s", why);
		wl_len = (size_t)n;
		have_wl = true;
	}
	if (input_path) {
		input_len = cli_read_file(input_path, input, sizeof(input));
		if (input_len < 0)
			return cli_io_error("run: cannot read '%s'", input_path);
	} else if (input_hex) {
		input_len = cli_hex_decode(input_hex, input, sizeof(input));
		if (input_len < 0)
			return cli_usage_error("run: --input-hex is not hex");
	}

	wl_given = have_wl;
	union {
		struct weft_random r;
		struct weft_pct p;
		struct weft_dfs d;
		struct weft_bytes b;
	} *st = calloc(1, sizeof(*st));
	const struct weft_strategy_ops *ops;
	if (!st)
		return cli_io_error("out of memory");
	if (!strcmp(strategy, "random")) {
		weft_random_init(&st->r, sc, seed, have_wl ? wl : NULL, wl_len);
		ops = &weft_strategy_random;
	} else if (!strcmp(strategy, "pct")) {
		weft_pct_init(&st->p, sc, seed, (unsigned)depth, have_wl ? wl : NULL, wl_len);
		ops = &weft_strategy_pct;
	} else if (!strcmp(strategy, "dfs")) {
		if (!have_wl)
			wl_len = dfs_default_workload(sc, vi, wl, sizeof(wl), &wl_from);
		have_wl = true;
		unsigned b = bound_none ? WEFT_BOUND_NONE : (unsigned)bound;
		/* a preemption bound bounds unfair choices too (each costs
		 * one); without one, an unbounded spin would make the search
		 * endless unless they are bounded by themselves */
		dfs_fair_bound = fair_bound_none ? WEFT_BOUND_NONE
				 : fair_bound_set ? (unsigned)fair_bound
				 : bound_none ? 0 : WEFT_BOUND_NONE;
		if (memory != WEFT_MEM_SC && por_set && por != WEFT_POR_NONE) {
			free(st);
			return cli_usage_error(
				"run: --por %s cannot certify under --memory %s: its dependence "
				"records do not say when a buffered store becomes visible, so two "
				"orders it counts as one may differ in what a load reads; plain dfs "
				"(--por none, the default under weak memory) enumerates the delays "
				"within --delay-bound", weft_por_name(por), weft_memory_name(memory));
		}
		if (!por_set) {
			por = weft_cli_uses_contexts(sc) || memory != WEFT_MEM_SC ? WEFT_POR_NONE
										 : weft_por_default(b);
			if (memory != WEFT_MEM_SC)
				por_why = "weak memory: the reduction does not model when a "
					  "buffered store becomes visible";
			else if (por == WEFT_POR_NONE)
				por_why = "the scenario has interrupt handlers or migration, "
					  "which the reduction does not model";
		}
		/* --fair-bound K is plain dfs's: the reduction charges an
		 * unfair choice a preemption under a preemption bound, and
		 * without one follows the fair default (K = 0). A K it would
		 * not apply selects plain dfs (before, the reduction ran and
		 * said "complete" of a search that ignored K). */
		if (por != WEFT_POR_NONE && fair_bound_set && !fair_bound_none &&
		    (b != WEFT_BOUND_NONE || fair_bound > 0)) {
			if (por_set) {
				free(st);
				return cli_usage_error(
					"run: --fair-bound %" PRIu64 " is a bound of plain dfs: --por %s "
					"has none (under --bound K an unfair choice costs a preemption; "
					"under --bound none it follows the fair default, 0); use --por "
					"none", fair_bound, weft_por_name(por));
			}
			por = WEFT_POR_NONE;
			por_why = "--fair-bound: partial-order reduction has no fairness bound "
				  "(plain dfs applies it)";
		}
		if (por != WEFT_POR_NONE) {
			if (!weft_por_sound(por, b)) {
				free(st);
				return cli_usage_error("run: --por %s is not sound with a preemption bound "
						       "(docs/strategies.md); use --por source, or --bound "
						       "none", weft_por_name(por));
			}
			if (workloads && wl_given) {
				free(st);
				return cli_usage_error("run: --workloads enumerates workloads: no "
						       "--workload with it");
			}
			static char why[160];
			if (wl_from)
				snprintf(why, sizeof(why), "the trigger of %s", wl_from);
			else if (wl_given)
				snprintf(why, sizeof(why), "from --workload");
			struct weft_cli_dpor_args da = {
				.sc = sc, .vi = vi, .lock = lock, .steps = steps, .lockdep = lockdep,
				.json = json, .quiet = quiet, .stats = stats, .outdir = outdir,
				.wl = wl, .wl_len = wl_len, .wl_why = wl_from || wl_given ? why : NULL,
				.por = por, .bound = b,
				.workloads = (unsigned)workloads, .wl_args = (unsigned)wl_args,
				.max_execs = iterations, .want_kinds = want_kinds,
				/* a program has no workload: its arguments are its input */
				.warning = !workloads && wl_len <= 1 && !has_trigger(sc) && !weft_program_self() &&
					   weft_scenario_takes_workload(sc)
					? (wl_given ? "the workload is empty and the scenario declares no "
						      "trigger workload: this covers the empty workload only"
						    : "the scenario declares no trigger workload, so dfs "
						      "searched the empty workload only: the certificate "
						      "covers nothing else (give one with --workload, or "
						      "enumerate with --workloads)")
					: NULL,
			};
			da.por_auto = !por_set && !workloads;
			int rc = weft_cli_run_dpor(&da);
			if (rc != WEFT_CLI_DPOR_FALLBACK) {
				free(st);
				return rc;
			}
			/* contexts (interrupts, threads sharing a CPU): the
			 * reduction cannot certify, plain dfs can */
			por = WEFT_POR_NONE;
			por_why = weft_cli_dpor_fallback_why();
		}
		if (workloads) {
			free(st);
			if (por_why)
				return cli_usage_error("run: --workloads needs partial-order "
						       "reduction, which this model cannot use: %s",
						       por_why);
			return cli_usage_error("run: --workloads needs partial-order reduction "
					       "(--por sleep|source|optimal)");
		}
		/* plain dfs in place of the reduction (por_why): bounds
		 * upwards, as the reduction's search does, so that a bug is
		 * found at the fewest preemptions it needs (one bound's dfs
		 * can reach a schedule with more preemptions before one with
		 * fewer) */
		dfs_bound = por_why && b != WEFT_BOUND_NONE ? 0 : b;
		dfs_final_bound = b;
		weft_dfs_init(&st->d, sc, dfs_bound, wl, wl_len);
		st->d.delay_bound = (unsigned)delay_bound;
		st->d.fair_bound = dfs_fair_bound;
		ops = &weft_strategy_dfs;
	} else if (!strcmp(strategy, "bytes")) {
		if (!input_path && !input_hex) {
			free(st);
			return cli_usage_error("run: --strategy bytes needs --input or --input-hex");
		}
		/* a raw fuzzer input: 0 or 1 bytes are a genome (weft_raw_input()), as the
		 * fuzz targets and `weft import` read them */
		static uint8_t fresh[WEFT_INPUT_MAX];
		size_t raw_len = (size_t)input_len;
		const uint8_t *raw = weft_raw_input(sc, vi, memory, input, &raw_len, fresh);
		weft_bytes_init(&st->b, sc, raw, raw_len);
		ops = &weft_strategy_bytes;
		iterations = 1;
	} else {
		free(st);
		return cli_usage_error("run: unknown strategy '%s' (random, pct, dfs, bytes)",
				       strategy);
	}
	if ((por_set || workloads || fair_bound_set) && strcmp(strategy, "dfs")) {
		free(st);
		return cli_usage_error("run: --por, --workloads and --fair-bound are options of "
				       "--strategy dfs");
	}
	if (!iterations)
		iterations = !strcmp(strategy, "dfs") ? UINT64_MAX : 100000;

	struct weft_metrics m;
	weft_metrics_init(&m, ops, st);
	/* The search's executions keep no trace (hash, ring): the finding or
	 * the last execution is re-run with one below. */
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock, .step_budget = steps,
				   .record = false, .no_trace_hash = true,
				   .checks = (lockdep ? WEFT_CHECKS_DEFAULT : WEFT_CHECKS_SCHED) |
					     (weft_program_self() ? WEFT_CHECKS_PROGRAM : 0),
				   .lockdep_persist = true, .memory = (uint8_t)memory };
	cli_continue_past_warnings(&o, want_kinds);
	weft_lockdep_reset();
	struct weft_exec_result r, last_r;
	memset(&r, 0, sizeof(r));
	memset(&last_r, 0, sizeof(last_r));
	double t0 = now(), last = t0;
	bool bug = false, ran = false;
	uint64_t found_at = 0;
	for (uint64_t it = 0; it < iterations; it++) {
		/* the strategy itself, not the metrics decorator: one call less
		 * per decision; m counts what ran */
		if (weft_execute(&o, ops, st, &r) < 0) {
			if (ops != &weft_strategy_dfs || dfs_bound >= dfs_final_bound)
				break;
			weft_dfs_init(&st->d, sc, ++dfs_bound, wl, wl_len);
			st->d.delay_bound = (unsigned)delay_bound;
			st->d.fair_bound = dfs_fair_bound;
			continue;
		}
		weft_metrics_add(&m, &r);
		/* a dfs that is done ends with an execute that runs nothing and
		 * clears r: the last execution is last_r (and the machine's) */
		last_r = r;
		ran = true;
		for (uint64_t c = r.continued_kinds; c; c &= c - 1) {
			other[__builtin_ctzll(c)]++;
			nr_other++;
		}
		if (r.kind != WEFT_KIND_NONE && want_kinds && !(want_kinds >> r.kind & 1)) {
			other[r.kind]++;
			nr_other++;
			cut_by_other += r.cut_short;
		} else if (r.kind != WEFT_KIND_NONE) {
			bug = true;
			found_at = m.executions;
			break;
		}
		if (!quiet && !json && (it & 0xffff) == 0xffff) {
			double t = now();
			if (t - last > 2.0) {
				fprintf(stderr, "weft: %" PRIu64 " executions, %.0f exec/s\n",
					m.executions, (double)m.executions / (t - t0));
				last = t;
			}
		}
	}
	double secs = now() - t0;

	/* The finding, or when clean the last execution, re-run from its
	 * recorded workload and decisions with full recording: checks
	 * determinism (same kind and trace hash), gives a report its trace,
	 * and gives tools/ci/determinism a real trace hash for clean runs. */
	uint8_t repro[WEFT_INPUT_MAX];
	size_t repro_len = 0;
	char det_why[256] = "";
	int det_rc = 0;
	r = last_r;
	int needs_weak = 0;
	/* the search's options (no trace); from here on every execution, and
	 * a stored finding, keeps its trace */
	const struct weft_run_opts search_o = o;
	o.no_trace_hash = false;
	/* an execution longer than the decision records cannot be re-run:
	 * say so, rather than blame the program for the re-run's divergence */
	char unrec_why[512] = "";
	bool unrecorded = ran && cli_last_unrecorded(&r, unrec_why, sizeof(unrec_why));
	if (ran && !unrecorded) {
		repro_len = weft_last_input(sc, repro, sizeof(repro));
		struct weft_exec_result first = r;
		if (bug && memory != WEFT_MEM_SC)
			needs_weak = weft_check_needs_weak(&o, &first);
		struct weft_exec_result again;
		det_rc = weft_check_determinism_rerun(&search_o, &first, &again, det_why,
						      sizeof(det_why));
		r = det_rc ? first : again;
	} else if (unrecorded) {
		needs_weak = -1;
	}
	bool dfs = ops == &weft_strategy_dfs;
	bool dfs_certified = dfs && st->d.complete && !cut_by_other && !det_rc;
	/* A certificate (or a clean verdict) that covers only the empty
	 * workload of a scenario with no trigger says so, loudly (issue 11). */
	const char *warning = NULL;
	if (!bug && have_wl && wl_len <= 1 && !has_trigger(sc) && !weft_program_self() &&
	    weft_scenario_takes_workload(sc))
		warning = wl_given ? "the workload is empty and the scenario declares no trigger "
				     "workload: this covers the empty workload only"
				   : "the scenario declares no trigger workload, so dfs searched the "
				     "empty workload only: the certificate covers nothing else "
				     "(give one with --workload)";

	char artifact[4096] = "";
	int art_rc = 0;
	if (bug && outdir && !det_rc && !unrecorded && json)
		art_rc = weft_cli_store_finding(&o, &r, ops->name, repro, repro_len, outdir, stderr,
						artifact, sizeof(artifact));
	char b1[48];
	if (json) {
		printf("{\"scenario\": ");
		cli_json_str(stdout, sc->name);
		printf(", \"variant\": ");
		cli_json_str(stdout, sc->variants[vi].name);
		printf(", \"strategy\": \"%s\"%s, \"lock\": \"%s\", \"memory\": \"%s\", "
		       "\"verdict\": \"%s\", \"kind\": ",
		       ops->name, dfs ? ", \"por\": \"none\"" : "",
		       lock == WEFT_LOCK_TICKET ? "ticket" : "tas", weft_memory_name(memory),
		       bug ? "bug" : "clean");
		if (bug)
			cli_json_str(stdout, weft_kind_name(r.kind));
		else
			printf("null");
		if (dfs && por_why) {
			printf(", \"por_why\": ");
			cli_json_str(stdout, por_why);
		}
		printf(", \"executions\": %" PRIu64 ", \"preemptions\": %" PRIu32
		       ", \"steps\": %" PRIu32 ", \"seconds\": %.6f",
		       m.executions, r.preemptions, r.steps, secs);
		printf(", \"total_steps\": %" PRIu64 ", \"total_decisions\": %" PRIu64,
		       m.steps, m.decisions);
		printf(", \"workload\": ");
		if (have_wl) {
			printf("\"");
			cli_hex_print(stdout, wl, wl_len);
			printf("\", \"workload_ops\": %u", wl_len ? wl[0] : 0);
		} else {
			printf("null, \"workload_ops\": null");
		}
		if (dfs && bound_none)
			printf(", \"bound\": \"none\", \"complete\": %s",
			       dfs_certified && !bug ? "true" : "false");
		else if (dfs)
			printf(", \"bound\": %" PRIu64 ", \"complete\": %s", bound,
			       dfs_certified && !bug ? "true" : "false");
		if (dfs && !bug && !dfs_certified) {
			printf(", \"why_incomplete\": ");
			cli_json_str(stdout, dfs_why(&st->d, cut_by_other, det_rc));
		}
		/* a complete dfs is complete within three bounds: all three
		 * are stated (null: sc makes no weak choices to bound) */
		if (dfs && memory != WEFT_MEM_SC)
			printf(", \"delay_bound\": %" PRIu64, delay_bound);
		else if (dfs)
			printf(", \"delay_bound\": null");
		if (dfs && dfs_fair_bound != WEFT_BOUND_NONE)
			printf(", \"fair_bound\": %u", dfs_fair_bound);
		else if (dfs)
			printf(", \"fair_bound\": \"none\"");
		if (dfs && !bug && st->d.exhausted && st->d.fair_pruned)
			printf(", \"fair_bounded\": true, \"fair_pruned\": %" PRIu64,
			       st->d.fair_pruned);
		if (dfs && !bug && st->d.exhausted && st->d.retry_pruned)
			printf(", \"spin_retries_pruned\": %" PRIu64, st->d.retry_pruned);
		printf(", \"trace_hash\": \"%016" PRIx64 "\"", r.trace_hash);
		if (unrecorded) {
			printf(", \"replayable\": false, \"not_replayable\": ");
			cli_json_str(stdout, unrec_why);
		} else if (ran) {
			printf(", \"deterministic\": %s, \"input\": \"", det_rc ? "false" : "true");
			cli_hex_print(stdout, repro, repro_len);
			printf("\"");
		}
		if (bug && memory != WEFT_MEM_SC && needs_weak >= 0)
			printf(", \"needs_weak_memory\": %s", needs_weak == 1 ? "true" : "false");
		if (artifact[0]) {
			printf(", \"artifact\": ");
			cli_json_str(stdout, artifact);
		}
		if (warning) {
			printf(", \"warning\": ");
			cli_json_str(stdout, warning);
		}
		if (want_kinds) {
			printf(", \"other_reports\": %" PRIu64 ", \"other_kinds\": {", nr_other);
			for (unsigned k = 1, first = 1; k < WEFT_KIND__COUNT; k++)
				if (other[k]) {
					printf("%s\"%s\": %" PRIu64, first ? "" : ", ",
					       weft_kind_name((enum weft_kind)k), other[k]);
					first = 0;
				}
			printf("}");
		}
		printf("}\n");
	} else if (bug) {
		weft_report_print(stdout, &o, &r);
		printf("%s after %s in %.3f s (%s)\n", cli_found_or_stopped(r.kind),
		       cli_plural(b1, sizeof(b1), found_at, "execution"), secs, ops->name);
		cli_print_limit_note(r.kind);
		if (dfs && por_why)
			printf("search: plain dfs, without partial-order reduction: %s\n", por_why);
		if (det_rc)
			printf("weft: NONDETERMINISM: %s\n", det_why);
		if (needs_weak == 1)
			printf("weak memory: not reproducible under --memory sc (the same schedule "
			       "with every store visible at once does not fail)\n");
		else if (memory != WEFT_MEM_SC && needs_weak == 0)
			printf("weak memory: the same schedule fails under --memory sc too\n");
		if (unrecorded)
			printf("weft: %s\n", unrec_why);
		else
			cli_print_reproduce(sc, vi, lock, memory, repro, repro_len);
		if (outdir && !det_rc && !unrecorded) {
			printf("\n");
			art_rc = weft_cli_store_finding(&o, &r, ops->name, repro, repro_len, outdir,
							stdout, artifact, sizeof(artifact));
		}
	} else {
		printf("clean: %s in %.3f s (%s)",
		       cli_plural(b1, sizeof(b1), m.executions, "execution"), secs, ops->name);
		if (dfs) {
			if (bound_none)
				printf(", every interleaving %s for %s",
				       dfs_certified ? "covered completely" : "NOT covered completely",
				       wl_len > 1 ? "workload " : "");
			else
				printf(", bound %" PRIu64 " %s for %s", bound,
				       dfs_certified ? "covered completely" : "NOT covered completely",
				       wl_len > 1 ? "workload " : "");
			print_workload(sc, wl, wl_len, wl_from ? "the trigger of " :
				       wl_given ? "from --workload" : NULL, wl_from);
			if (!dfs_certified)
				printf(" (%s)", dfs_why(&st->d, cut_by_other, det_rc));
			else if (memory != WEFT_MEM_SC)
				/* the delay bound cuts the weak choices as --bound
				 * cuts preemptions: a certificate within it */
				printf(", within %" PRIu64 " weak choices per execution "
				       "(--delay-bound)", delay_bound);
		} else if (have_wl) {
			printf(", %s", wl_len > 1 ? "workload " : "");
			print_workload(sc, wl, wl_len, NULL, NULL);
		}
		printf("\n");
		if (dfs && por_why)
			printf("search: plain dfs, without partial-order reduction: %s\n", por_why);
		if (!model.memory_set && memory != WEFT_MEM_SC)
			printf("memory: %s, the scenario's model (--memory sc runs it sequentially "
			       "consistent)\n", weft_memory_name(memory));
		if (memory == WEFT_MEM_LKMM)
			printf("weak memory: lkmm for compiled models is stronger than the LKMM: no "
			       "load buffering; full barriers, locks and dependencies order as "
			       "in a multicopy-atomic memory (docs/memory-model.md)\n");
		if (nr_other) {
			printf("other reports (not of --kind: warnings gone past, others skipped):");
			for (unsigned k = 1; k < WEFT_KIND__COUNT; k++)
				if (other[k])
					printf(" %s x%" PRIu64, weft_kind_name((enum weft_kind)k),
					       other[k]);
			printf("\n");
		}
		if (warning)
			printf("WARNING: %s\n", warning);
		if (det_rc)
			printf("weft: NONDETERMINISM: %s\n", det_why);
		if (unrecorded)
			printf("weft: %s\n", unrec_why);
	}
	if (stats && !json)
		cli_print_stats(stdout, sc, false);
	free(st);
	if (det_rc)
		return WEFT_EXIT_DESYNC;
	if (art_rc && art_rc != WEFT_EXIT_BUG)
		return art_rc;
	return bug ? WEFT_EXIT_BUG : WEFT_EXIT_CLEAN;
}
