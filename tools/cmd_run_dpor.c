/*
 * cmd_run_dpor.c - `weft run --strategy dfs --por sleep|source|optimal`:
 * the search of core/src/search/dpor.c behind the command line.
 *
 *  - With a bound K, iterative bounding (Musuvathi and Qadeer, PLDI 2007):
 *    bound 0, then 1, ... K, each a complete search of its own, so the
 *    first report has the fewest preemptions any report can have; each
 *    level says how many executions it took and whether it was complete.
 *  - With --bound none, one search over every interleaving: "verified"
 *    when it ends with nothing cut off.
 *  - With --workloads N, the same over every workload of at most N ops
 *    (the scenario's threads and opcodes, args 0 .. --workload-args - 1):
 *    a bounded model checker over (workload <= N ops) x interleavings.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/strategy.h>

#include "cli.h"
#include "replay_cli.h"
#include "run_dpor.h"

#define MAX_LEVELS 64

struct level {
	unsigned bound;
	uint64_t execs, redundant;
	uint64_t bound_cuts;         /* choices the bound left out */
	bool complete;
	double secs;
};

struct run {
	const struct weft_cli_dpor_args *a;
	struct weft_run_opts o;
	struct weft_dpor *d;
	struct level lv[MAX_LEVELS];
	unsigned nlv;
	bool bug;
	bool cut_by_other;           /* an execution ended in a kind not asked for */
	bool fallback;               /* por_auto and contexts were active (bug is
					set too, to stop every loop) */
	bool infeasible;             /* an execution ended in weft_sched_infeasible()
					with other threads left (source/optimal) */
	bool to_sleep;               /* ... and por_auto: search again with sleep
					sets alone (bug is set too) */
	struct weft_exec_result r;
	struct weft_exec_result last;  /* the last execution run (clean runs) */
	bool ran;
	uint64_t other[WEFT_KIND__COUNT], nr_other;   /* --kind: skipped reports */
	uint64_t found_at;           /* executions until the bug */
	uint64_t execs;              /* all executions */
	uint64_t states, final_states, traces;
	bool traces_exact;   /* optimal DPOR throughout: traces counts them */
	bool final_capped;
	bool complete;               /* every search complete so far */
	const char *why;             /* why not */
	uint64_t workloads;          /* workloads searched */
	bool saturated;              /* the last level searched cut nothing: the
					levels up to the bound asked for would
					repeat it */
	uint8_t wl[WEFT_INPUT_MAX];  /* the current workload */
	size_t wl_len;
	double t0, last_progress;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *fallback_why;

const char *weft_cli_dpor_fallback_why(void)
{
	return fallback_why;
}

bool weft_cli_uses_contexts(const struct weft_scenario *sc)
{
	return sc->nr_irqs || sc->migratable;
}

/* One complete search of the current workload at one bound. */
static void search(struct run *R, unsigned bound)
{
	const struct weft_cli_dpor_args *a = R->a;
	struct level *L = R->nlv < MAX_LEVELS ? &R->lv[R->nlv++] : &R->lv[MAX_LEVELS - 1];
	struct weft_dpor_stats st;
	double t0 = now();

	memset(L, 0, sizeof(*L));
	L->bound = bound;
	if (a->max_execs && R->execs >= a->max_execs) {
		/* --iterations reached: no further execution, at any bound */
		R->complete = false;
		if (!R->why)
			R->why = "the execution cap (--iterations) was hit";
		if (L == &R->lv[R->nlv - 1])
			R->nlv--;
		return;
	}
	if (weft_dpor_reset(R->d, a->sc, a->por, bound, a->lock, R->wl, R->wl_len) < 0) {
		R->complete = false;
		R->why = "the search could not start";
		return;
	}
	uint64_t cap = a->max_execs ? a->max_execs - R->execs : 0;
	weft_dpor_set_caps(R->d, 0, 0, cap);
	weft_dpor_count_final_states(R->d, bound == WEFT_BOUND_NONE);
	/* (no metrics decorator: the search needs ops->on_step) */
	uint64_t n = 0;
	while (weft_execute(&R->o, &weft_strategy_dpor, R->d, &R->r) == 0) {
		n++;
		R->last = R->r;
		R->ran = true;
		for (uint64_t c = R->r.continued_kinds; c; c &= c - 1) {
			R->other[__builtin_ctzll(c)]++;   /* warnings gone past */
			R->nr_other++;
		}
		if (R->r.kind != WEFT_KIND_NONE && a->want_kinds && !(a->want_kinds >> R->r.kind & 1)) {
			/* not a kind asked for: counted, and the search goes
			 * on; but if the execution stopped at that report
			 * while a thread could still run, the races of the
			 * remaining events were never seen: the search cannot
			 * certify past it (neither can plain dfs) */
			R->other[R->r.kind]++;
			R->nr_other++;
			if (R->r.cut_short) {
				if (a->por_auto) {
					/* plain dfs cannot certify past it either,
					 * but it tries every alternative before the
					 * cut, so it finds more (and says why it is
					 * incomplete) */
					fallback_why = "an execution stopped at a report of a kind "
						       "not asked for (--kind) while threads could "
						       "still run";
					R->fallback = R->bug = true;
					break;
				}
				R->cut_by_other = true;
			}
		} else if (R->r.kind != WEFT_KIND_NONE) {
			R->bug = true;
			R->found_at = R->execs + n;
			break;
		}
		if (R->r.infeasible && a->por >= WEFT_POR_SOURCE) {
			/* the step that could not go on read what later events
			 * of the others may change: races never seen, so the
			 * reduction's alternatives are not enough; sleep sets
			 * alone explore every thread at every state */
			if (a->por_auto) {
				R->to_sleep = R->bug = true;
				break;
			}
			R->infeasible = true;
		}
		/* under a bound an unfair choice is a frame that costs a
		 * preemption (core/src/search/dpor.c); unbounded it is not;
		 * an unfair value (a spurious wake-up again) is neither */
		bool unfair_value = weft_unfair_values();
		bool unfair = (weft_fair_restricted() && bound == WEFT_BOUND_NONE) || unfair_value;
		/* threads sharing a CPU are certified (dpor.c); interrupts and
		 * migration are not */
		bool irq_ctx = weft_contexts_active() &&
			       (weft_cli_uses_contexts(a->sc) || weft_interrupts_active());
		if (a->por_auto && (irq_ctx || unfair || weft_untracked_why() ||
				    weft_last_nr_threads() > WEFT_MAX_THREADS)) {
			fallback_why = weft_untracked_why() ? weft_untracked_why()
				: irq_ctx
				? "an execution ran an interrupt handler or migrated a thread, "
				  "which the reduction does not model"
				: unfair_value
				? "a waiter could be woken spuriously again with nothing "
				  "changed (an unfair choice), which the reduction does not take"
				: unfair
				? "fair scheduling passed over a spinning thread, which the "
				  "reduction does not track"
				: "an execution spawned more threads than the reduction tracks";
			R->fallback = R->bug = true;
			break;
		}
		if (!a->quiet && !a->json && (n & 0x3fff) == 0) {
			double t = now();
			if (t - R->last_progress > 2.0) {
				char bb[16];
				snprintf(bb, sizeof(bb), "%u", bound);
				fprintf(stderr, "weft: bound %s: %" PRIu64 " executions, %.0f exec/s\n",
					bound == WEFT_BOUND_NONE ? "none" : bb, R->execs + n,
					(double)(R->execs + n) / (t - R->t0));
				R->last_progress = t;
			}
		}
	}
	weft_dpor_get_stats(R->d, &st);
	L->execs = st.executions;
	L->redundant = st.redundant;
	L->bound_cuts = st.bound_cuts;
	L->complete = !R->bug && !R->cut_by_other && !R->infeasible && weft_dpor_complete(R->d);
	L->secs = now() - t0;
	R->execs += st.executions;
	R->states += st.states;
	R->final_states += st.final_states;
	R->final_capped |= st.final_states_capped;
	R->traces += st.executions - st.redundant;
	/* one execution a trace only while optimal DPOR stayed optimal */
	if (st.yield_restarts || st.value_frames || st.cpu_restarts)
		R->traces_exact = false;
	if (!R->bug && !L->complete) {
		R->complete = false;
		if (!R->why)
			R->why = R->cut_by_other
				? "an execution ended at a report of a kind not asked for (--kind) "
				  "before every thread finished: what followed was not explored"
				: R->infeasible
				? "an execution could not go on (__VERIFIER_assume(0)) while other "
				  "threads were not done: what it read, their later events may "
				  "change, races the reduction never saw (--por sleep covers it)"
				: weft_dpor_why_incomplete(R->d);
	}
}

/* Every level of the current workload: 0 .. bound, or none. A complete
 * level at which the bound left no choice out (weft_dpor_stats.bound_cuts)
 * ends the iteration: every larger bound would make the same search. */
static void search_workload(struct run *R)
{
	unsigned b = R->a->bound;

	R->workloads++;
	R->saturated = false;
	if (b == WEFT_BOUND_NONE) {
		search(R, b);
		return;
	}
	for (unsigned k = 0; k <= b && !R->bug; k++) {
		unsigned n = R->nlv;
		search(R, k);
		const struct level *L = &R->lv[R->nlv - 1];
		if (R->nlv > n && L->bound == k && L->complete && !L->bound_cuts && k < b) {
			R->saturated = true;
			break;
		}
	}
}

/* Every workload of exactly n more ops for threads t.. (canonical: ops
 * grouped by thread, in thread order). */
static void enum_workloads(struct run *R, unsigned t, unsigned n, unsigned pos)
{
	const struct weft_scenario *sc = R->a->sc;
	unsigned max = sc->max_ops ? sc->max_ops : WEFT_MAX_OPS;

	if (R->bug || (R->a->max_execs && R->execs >= R->a->max_execs))
		return;
	if (t == sc->nr_threads) {
		if (!n) {
			R->wl[0] = (uint8_t)pos;
			R->wl_len = 1 + 2 * (size_t)pos;
			R->nlv = 0;
			search_workload(R);
		}
		return;
	}
	/* c ops for thread t, each any opcode and arg */
	for (unsigned c = 0; c <= n && c <= max; c++) {
		unsigned per = sc->nr_opcodes * R->a->wl_args, total = 1;
		for (unsigned i = 0; i < c; i++)
			total *= per;
		for (unsigned x = 0; x < total && !R->bug; x++) {
			unsigned v = x;
			for (unsigned i = 0; i < c; i++) {
				unsigned op = v % per;
				v /= per;
				R->wl[1 + 2 * (pos + i)] = (uint8_t)(t << 4 | op / R->a->wl_args);
				R->wl[2 + 2 * (pos + i)] = (uint8_t)(op % R->a->wl_args);
			}
			enum_workloads(R, t + 1, n - c, pos + c);
		}
	}
}

static void print_bound(FILE *f, unsigned b)
{
	if (b == WEFT_BOUND_NONE)
		fprintf(f, "\"none\"");
	else
		fprintf(f, "%u", b);
}

static void print_levels_text(const struct run *R)
{
	unsigned bmax = R->a->bound;

	for (unsigned i = 0; i < R->nlv; i++) {
		const struct level *L = &R->lv[i];
		if (L->bound == WEFT_BOUND_NONE)
			continue;
		printf("  bound %u: %" PRIu64 " execution%s", L->bound, L->execs,
		       L->execs == 1 ? "" : "s");
		if (L->redundant)
			printf(" (%" PRIu64 " covered by others: sleep-set blocked)", L->redundant);
		const char *ended = !R->bug || i + 1 != R->nlv ? "NOT complete"
				    : R->r.kind == WEFT_KIND_LIMIT ? "stopped at a limit of Weft's"
								   : "stopped at a bug";
		printf(", %s (%.3f s)\n", L->complete ? "complete" : ended, L->secs);
		if (R->saturated && i + 1 == R->nlv) {
			if (L->bound + 1 == bmax)
				printf("  bound %u", bmax);
			else
				printf("  bounds %u..%u", L->bound + 1, bmax);
			printf(": the same search as bound %u (the bound left no choice out)\n",
			       L->bound);
		}
	}
}

static void print_levels_json(const struct run *R)
{
	printf(", \"levels\": [");
	for (unsigned i = 0; i < R->nlv; i++) {
		const struct level *L = &R->lv[i];
		printf("%s{\"bound\": ", i ? ", " : "");
		print_bound(stdout, L->bound);
		printf(", \"executions\": %" PRIu64 ", \"redundant\": %" PRIu64
		       ", \"complete\": %s, \"seconds\": %.6f}",
		       L->execs, L->redundant, L->complete ? "true" : "false", L->secs);
	}
	printf("]");
	if (R->saturated && R->nlv)
		printf(", \"same_search_from_bound\": %u", R->lv[R->nlv - 1].bound);
}

int weft_cli_run_dpor(const struct weft_cli_dpor_args *a)
{
	static struct run R;
	const struct weft_scenario *sc = a->sc;
	const char *lockname = a->lock == WEFT_LOCK_TICKET ? "ticket" : "tas";
	char strat[64];

	memset(&R, 0, sizeof(R));
	R.a = a;
	R.complete = true;
	R.traces_exact = true;
	R.o = (struct weft_run_opts){ .sc = sc, .variant = a->vi, .lock = a->lock,
				      .step_budget = a->steps,
				      .checks = (a->lockdep ? WEFT_CHECKS_DEFAULT : WEFT_CHECKS_SCHED) |
						(weft_program_self() ? WEFT_CHECKS_PROGRAM : 0),
				      .lockdep_persist = true,
				      /* searching: the closing re-run gets the trace */
				      .no_trace_hash = true };
	cli_continue_past_warnings(&R.o, a->want_kinds);
	R.d = weft_dpor_new();
	if (!R.d)
		return cli_io_error("out of memory");
	weft_lockdep_reset();
	snprintf(strat, sizeof(strat), "dfs-%s", weft_por_name(a->por));
	R.t0 = R.last_progress = now();
	if (a->workloads) {
		for (unsigned n = 0; n <= a->workloads && !R.bug; n++)
			enum_workloads(&R, 0, n, 0);
		if (a->max_execs && R.execs >= a->max_execs && !R.bug) {
			R.complete = false;
			if (!R.why)
				R.why = "the execution cap (--iterations) was hit";
		}
	} else {
		if (a->wl_len > sizeof(R.wl)) {
			weft_dpor_free(R.d);
			return cli_usage_error("run: workload too long");
		}
		memcpy(R.wl, a->wl, a->wl_len);
		R.wl_len = a->wl_len;
		search_workload(&R);
	}
	double secs = now() - R.t0;
	weft_dpor_free(R.d);
	if (R.fallback)
		return WEFT_CLI_DPOR_FALLBACK;
	if (R.to_sleep) {
		struct weft_cli_dpor_args s = *a;
		s.por = WEFT_POR_SLEEP;
		return weft_cli_run_dpor(&s);
	}

	/* The finding, or when clean the last execution, re-run from its
	 * recorded workload and decisions with full recording: determinism,
	 * the report's trace, a reproducer, a real trace hash for clean runs. */
	uint8_t repro[WEFT_INPUT_MAX];
	size_t repro_len = 0;
	char det_why[256] = "";
	int det_rc = 0;
	if (!R.bug)
		R.r = R.last;
	/* the search's options (no trace); from here on every execution, and
	 * a stored finding, keeps its trace */
	const struct weft_run_opts search_o = R.o;
	R.o.no_trace_hash = false;
	/* an execution longer than the decision records cannot be re-run:
	 * say so, rather than blame the program for the re-run's divergence */
	char unrec_why[512] = "";
	bool unrecorded = R.ran && cli_last_unrecorded(&R.r, unrec_why, sizeof(unrec_why));
	if (R.ran && !unrecorded) {
		repro_len = weft_last_input(sc, repro, sizeof(repro));
		struct weft_exec_result first = R.r;
		struct weft_exec_result again;
		det_rc = weft_check_determinism_rerun(&search_o, &first, &again, det_why,
						      sizeof(det_why));
		R.r = det_rc ? first : again;
	}
	/* a model that is not a function of its decisions is certified by
	 * nothing the search covered */
	if (det_rc && R.complete) {
		R.complete = false;
		R.why = "the closing re-run of the last execution diverged: the model is "
			"nondeterministic";
	}
	bool unbounded = a->bound == WEFT_BOUND_NONE;
	unsigned found_bound = R.nlv ? R.lv[R.nlv - 1].bound : 0;
	char artifact[4096] = "";
	int art_rc = 0;
	if (R.bug && a->outdir && !det_rc && !unrecorded && a->json)
		art_rc = weft_cli_store_finding(&R.o, &R.r, strat, repro, repro_len, a->outdir,
						stderr, artifact, sizeof(artifact));
	if (a->json) {
		printf("{\"scenario\": ");
		cli_json_str(stdout, sc->name);
		printf(", \"variant\": ");
		cli_json_str(stdout, sc->variants[a->vi].name);
		printf(", \"strategy\": \"dfs\", \"por\": \"%s\", \"lock\": \"%s\", \"verdict\": \"%s\""
		       ", \"kind\": ",
		       weft_por_name(a->por), lockname, R.bug ? "bug" : "clean");
		if (R.bug)
			cli_json_str(stdout, weft_kind_name(R.r.kind));
		else
			printf("null");
		printf(", \"executions\": %" PRIu64 ", \"preemptions\": %" PRIu32
		       ", \"steps\": %" PRIu32 ", \"seconds\": %.6f",
		       R.bug ? R.found_at : R.execs, R.r.preemptions, R.r.steps, secs);
		printf(", \"workload\": \"");
		cli_hex_print(stdout, R.wl, R.wl_len);
		printf("\", \"workload_ops\": %u", R.wl_len ? R.wl[0] : 0);
		printf(", \"bound\": ");
		print_bound(stdout, a->bound);
		printf(", \"complete\": %s", !R.bug && R.complete ? "true" : "false");
		/* the other two bounds a complete search is relative to: the
		 * reduction runs under sc only (no weak choices to bound), and
		 * has no fairness bound of its own: under a preemption bound an
		 * unfair choice costs a preemption (as plain dfs's "none"), and
		 * without one it follows the fair default, and a search that
		 * met an unfair choice is not complete (as plain dfs's 0) */
		printf(", \"memory\": \"sc\", \"delay_bound\": null, \"fair_bound\": %s",
		       unbounded ? "0" : "\"none\"");
		if (unbounded && !R.bug)
			printf(", \"verified\": %s", R.complete ? "true" : "false");
		if (a->por == WEFT_POR_OPTIMAL && R.traces_exact && !R.bug)
			printf(", \"traces\": %" PRIu64, R.traces);
		printf(", \"states\": %" PRIu64, R.states);
		if (unbounded)
			printf(", \"final_states\": %" PRIu64 ", \"final_states_capped\": %s",
			       R.final_states, R.final_capped ? "true" : "false");
		if (a->workloads)
			printf(", \"workloads\": %" PRIu64 ", \"workload_ops_max\": %u"
			       ", \"workload_args\": %u",
			       R.workloads, a->workloads, a->wl_args);
		if (!R.bug && !R.complete && R.why) {
			printf(", \"why_incomplete\": ");
			cli_json_str(stdout, R.why);
		}
		if (!a->workloads)
			print_levels_json(&R);
		printf(", \"trace_hash\": \"%016" PRIx64 "\"", R.r.trace_hash);
		if (R.bug) {
			printf(", \"found_at_bound\": ");
			print_bound(stdout, found_bound);
		}
		if (unrecorded) {
			printf(", \"replayable\": false, \"not_replayable\": ");
			cli_json_str(stdout, unrec_why);
		} else if (R.ran) {
			printf(", \"deterministic\": %s, \"input\": \"", det_rc ? "false" : "true");
			cli_hex_print(stdout, repro, repro_len);
			printf("\"");
		}
		if (artifact[0]) {
			printf(", \"artifact\": ");
			cli_json_str(stdout, artifact);
		}
		if (!R.bug && a->warning) {
			printf(", \"warning\": ");
			cli_json_str(stdout, a->warning);
		}
		if (a->want_kinds) {
			printf(", \"other_reports\": %" PRIu64 ", \"other_kinds\": {", R.nr_other);
			for (unsigned k = 1, first = 1; k < WEFT_KIND__COUNT; k++)
				if (R.other[k]) {
					printf("%s\"%s\": %" PRIu64, first ? "" : ", ",
					       weft_kind_name((enum weft_kind)k), R.other[k]);
					first = 0;
				}
			printf("}");
		}
		printf("}\n");
	} else if (R.bug) {
		weft_report_print(stdout, &R.o, &R.r);
		printf("%s after %" PRIu64 " execution%s in %.3f s (dfs, por %s",
		       cli_found_or_stopped(R.r.kind), R.found_at, R.found_at == 1 ? "" : "s", secs,
		       weft_por_name(a->por));
		if (unbounded)
			printf(", no bound");
		else
			printf(", at bound %u: every smaller bound was searched completely first",
			       found_bound);
		printf(")\n");
		cli_print_limit_note(R.r.kind);
		if (a->workloads) {
			printf("workload ");
			cli_hex_print(stdout, R.wl, R.wl_len);
			printf(" (workload %" PRIu64 " of the enumeration)\n", R.workloads);
		}
		if (!a->workloads)
			print_levels_text(&R);
		if (det_rc)
			printf("weft: NONDETERMINISM: %s\n", det_why);
		if (unrecorded)
			printf("weft: %s\n", unrec_why);
		else
			cli_print_reproduce(sc, a->vi, a->lock, WEFT_MEM_SC, repro, repro_len);
		if (a->outdir && !det_rc && !unrecorded) {
			printf("\n");
			art_rc = weft_cli_store_finding(&R.o, &R.r, strat, repro, repro_len,
							a->outdir, stdout, artifact, sizeof(artifact));
		}
	} else {
		const char *what = unbounded ? "every interleaving" : NULL;
		char wbuf[64], b1[48], b2[48];
		if (!unbounded) {
			snprintf(wbuf, sizeof(wbuf), "every interleaving within %s",
				 cli_plural(b1, sizeof(b1), a->bound, "preemption"));
			what = wbuf;
		}
		/* the first line as plain dfs words it, the search's own facts after */
		if (unbounded && R.complete && !a->workloads) {
			if (a->por == WEFT_POR_OPTIMAL && R.traces_exact)
				printf("verified: %s, no bug: ",
				       cli_plural(b1, sizeof(b1), R.traces, "trace"));
			else
				printf("verified: every trace covered, no bug: ");
		} else if (R.complete && a->workloads) {
			printf("verified: %s of at most %s (args 0..%u) x %s, no bug: ",
			       cli_plural(b1, sizeof(b1), R.workloads, "workload"),
			       cli_plural(b2, sizeof(b2), a->workloads, "op"), a->wl_args - 1, what);
		} else {
			printf("clean: ");
		}
		printf("%s in %.3f s (dfs, por %s)", cli_plural(b1, sizeof(b1), R.execs, "execution"),
		       secs, weft_por_name(a->por));
		if (!a->workloads) {
			if (unbounded)
				printf(", every interleaving %s", R.complete ? "covered completely"
									     : "NOT covered completely");
			else
				printf(", bound %u %s", a->bound, R.complete ? "covered completely"
									 : "NOT covered completely");
			if (R.wl_len > 1) {
				printf(" for workload ");
				cli_hex_print(stdout, R.wl, R.wl_len);
				printf(" (%s%s%s)", cli_plural(b2, sizeof(b2), R.wl[0], "op"),
				       a->wl_why ? ", " : "", a->wl_why ? a->wl_why : "");
			} else if (weft_program_self()) {
				printf(" for this run of the program");
			} else if (!weft_scenario_takes_workload(a->sc)) {
				printf(" for the empty workload, its only one (the scenario declares no "
				       "workload ops)");
			} else {
				printf(" for the empty workload%s%s%s", a->wl_why ? " (" : "",
				       a->wl_why ? a->wl_why : "", a->wl_why ? ")" : "");
			}
		} else if (!R.complete) {
			printf(", %s NOT covered completely", what);
		}
		printf("\n");
		if (!R.complete)
			printf("NOT %s: %s\n", unbounded || a->workloads ? "verified" : "complete",
			       R.why ? R.why : "incomplete");
		printf("  %s", cli_plural(b1, sizeof(b1), R.states, "state"));
		if (unbounded && !weft_program_self())   /* not counted for programs */
			printf(", %s%s", R.final_capped ? ">= " : "",
			       cli_plural(b2, sizeof(b2), R.final_states, "distinct final state"));
		printf("\n");
		if (!a->workloads)
			print_levels_text(&R);
		if (R.nr_other) {
			printf("other reports (not of --kind: warnings gone past, others skipped):");
			for (unsigned k = 1; k < WEFT_KIND__COUNT; k++)
				if (R.other[k])
					printf(" %s x%" PRIu64, weft_kind_name((enum weft_kind)k),
					       R.other[k]);
			printf("\n");
		}
		if (a->warning)
			printf("WARNING: %s\n", a->warning);
		if (det_rc)
			printf("weft: NONDETERMINISM: %s\n", det_why);
		if (unrecorded)
			printf("weft: %s\n", unrec_why);
	}
	if (a->stats && !a->json)
		cli_print_stats(stdout, sc, false);
	if (det_rc)
		return WEFT_EXIT_DESYNC;
	if (art_rc && art_rc != WEFT_EXIT_BUG)
		return art_rc;
	return R.bug ? WEFT_EXIT_BUG : WEFT_EXIT_CLEAN;
}
