/*
 * run_dpor.h - `weft run --strategy dfs` with partial-order reduction
 * (cmd_run_dpor.c): iterative bounding, whole-workload verification and
 * the bounded model checker over workloads. cmd_run.c parses the flags
 * and hands over here when --por is not none.
 */
#ifndef WEFT_RUN_DPOR_H
#define WEFT_RUN_DPOR_H

#include <stdbool.h>
#include <stdint.h>

#include <weft/strategy.h>

struct weft_cli_dpor_args {
	const struct weft_scenario *sc;
	unsigned vi;
	enum weft_lock_model lock;
	uint64_t steps;              /* step budget (0: the scenario's) */
	bool lockdep;
	bool json, quiet, stats;
	const char *outdir;          /* --out */
	const uint8_t *wl;           /* the fixed workload (ignored with workloads) */
	size_t wl_len;
	const char *wl_why;          /* where the workload came from, or NULL */
	enum weft_por por;
	unsigned bound;              /* WEFT_BOUND_NONE: every interleaving */
	unsigned workloads;          /* > 0: every workload of 0..workloads ops */
	unsigned wl_args;            /* the args enumerated: 0 .. wl_args - 1 */
	uint64_t max_execs;          /* 0: no cap */
	uint64_t want_kinds;         /* --kind: bit k set; 0: every kind */
	const char *warning;         /* printed with a clean verdict (empty workload) */
	bool por_auto;               /* --por was not given: give up (returning
					WEFT_CLI_DPOR_FALLBACK, printing nothing)
					at the first execution with active contexts
					or a weft_choose() of several values,
					for plain dfs to search instead */
};

#define WEFT_CLI_DPOR_FALLBACK (-1)

/* After WEFT_CLI_DPOR_FALLBACK: why the reduction handed over to plain dfs,
 * in words for the text output and the JSON's "por_why". */
const char *weft_cli_dpor_fallback_why(void);

/* Runs the search and prints the result; returns a WEFT_EXIT_* code, or
 * WEFT_CLI_DPOR_FALLBACK (por_auto). */
int weft_cli_run_dpor(const struct weft_cli_dpor_args *a);

/* Whether a scenario uses contexts the reduction does not model
 * (interrupts, migration; threads sharing a CPU it does model): dfs
 * defaults to --por none there. */
bool weft_cli_uses_contexts(const struct weft_scenario *sc);

#endif
