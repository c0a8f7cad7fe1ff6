/*
 * litmus.h - the kernel's C litmus tests (tools/memory-model/litmus-tests,
 * Documentation/litmus-tests) on Weft's fake CPUs: a parser of the C
 * litmus format and a runner that executes each test's processes as model
 * threads through the access funnel under a memory model
 * (docs/litmus.md). Depends on libweft only.
 *
 * Invariants: weft_litmus_parse() accepts any bytes and either returns a
 * test or an error naming line and column (never asserts, never reads past
 * len); a parsed test runs or is refused (a construct this build does not
 * model is named in `unsupported`), never half-run.
 */
#ifndef WEFT_LITMUS_H
#define WEFT_LITMUS_H

#include <weft/strategy.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_LITMUS_MAX_PROCS 8
#define WEFT_LITMUS_MAX_VARS 32
#define WEFT_LITMUS_MAX_REGS 16      /* per process */
#define WEFT_LITMUS_MAX_NODES 2048
#define WEFT_LITMUS_MAX_STATES 256   /* distinct final states counted */
#define WEFT_LITMUS_MAX_SHOWN 24     /* locations of a final state */

enum weft_litmus_expect {
	WEFT_LITMUS_UNKNOWN = 0,    /* the file states no result */
	WEFT_LITMUS_NEVER,
	WEFT_LITMUS_SOMETIMES,
	WEFT_LITMUS_ALWAYS,
	WEFT_LITMUS_DEADLOCK,       /* "Result: DEADLOCK" */
};
const char *weft_litmus_expect_name(enum weft_litmus_expect e);

struct weft_litmus;   /* a parsed test (opaque) */

/* Parse one file's text; name is shown in errors ("FILE:LINE:COL: ...").
 * Returns NULL and fills err on a syntax error. */
struct weft_litmus *weft_litmus_parse(const char *name, const char *text, size_t len,
				      char *err, size_t errn);
void weft_litmus_free(struct weft_litmus *t);

const char *weft_litmus_name(const struct weft_litmus *t);
/* The file's own "Result:" line. */
enum weft_litmus_expect weft_litmus_expected(const struct weft_litmus *t);
/* NULL, or why this build cannot run the test (a primitive it does not
 * model yet), with the line of its first use. */
const char *weft_litmus_unsupported(const struct weft_litmus *t);
/* "exists (0:r0=0 /\ 1:r0=0)" as written (normalized spacing). */
const char *weft_litmus_condition(const struct weft_litmus *t);
unsigned weft_litmus_nr_procs(const struct weft_litmus *t);

struct weft_litmus_run_opts {
	enum weft_memory_model memory;
	const char *strategy;       /* "random", "pct", "dfs" */
	uint64_t executions;        /* random/pct; dfs: a cap (0: none) */
	uint64_t seed;
	unsigned depth;             /* pct */
	unsigned delay_bound;       /* dfs */
	unsigned preemption_bound;  /* dfs; WEFT_BOUND_NONE: every interleaving */
	uint64_t stop_after_witness; /* stop once the condition held this often (0: never) */
};

struct weft_litmus_state {
	char text[160];             /* "0:r0=0; 1:r0=1; x=1;" */
	uint64_t count;
	bool satisfies;             /* the condition's proposition holds */
};

struct weft_litmus_result {
	uint64_t executions;
	uint64_t positive, negative; /* executions where the proposition held / not
					(filtered-out executions count in neither) */
	uint64_t filtered;
	unsigned nr_states;
	struct weft_litmus_state states[WEFT_LITMUS_MAX_STATES];
	bool states_capped;
	bool complete;              /* dfs covered its bounded space */
	bool exists;                /* the quantifier: exists/~exists/forall */
	char quantifier[8];         /* "exists", "~exists", "forall" */
	enum weft_litmus_expect observed;   /* Never/Sometimes/Always of the proposition */
	enum weft_kind report;      /* a machine report ended an execution (deadlock...) */
	char report_msg[200];
	double seconds;
};

/* Run t; 0, or WEFT_EINVAL (unsupported test or bad options, *why set). */
int weft_litmus_run(const struct weft_litmus *t, const struct weft_litmus_run_opts *o,
		    struct weft_litmus_result *r, char *why, size_t whyn);

#ifdef __cplusplus
}
#endif
#endif
