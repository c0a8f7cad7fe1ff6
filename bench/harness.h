/*
 * harness.h - what the files of the bench harness (libweft_bench, bench/)
 * share: the JSON parser, child processes, the page and JSON being
 * written, the variant list, this run's settings, and the results one
 * section leaves for another. The CLI sees only weft_bench.h.
 *
 * Every symbol is prefixed bench_ (the library links into programs with
 * models of their own); B, T, md and js name the four a row uses most, as
 * core/src/machine/sched.h's M does.
 */
#ifndef WEFT_BENCH_HARNESS_H
#define WEFT_BENCH_HARNESS_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <weft/weft.h>

#include "cli.h"

/* ------------------------------------------------------------- JSON */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jtype t;
	bool b;
	double num;
	char *str;
	char *key;
	struct jnode *kid, *next;
};

/* bench_json.c: the value s[0, len), or NULL if it is not exactly one. */
struct jnode *bench_jparse(const char *s, size_t len);
void bench_jfree(struct jnode *n);
/* Member key of object o (NULL if o is not an object or has none). */
const struct jnode *bench_jget(const struct jnode *o, const char *key);
/* Member key as a number (dflt if absent or not a number) or a string. */
double bench_jnum(const struct jnode *o, const char *key, double dflt);
const char *bench_jstr(const struct jnode *o, const char *key);

/* -------------------------------------------------------- children */

struct child {
	int status;            /* exit code, or 128 + signal, or -1 not run */
	bool timed_out;
	double seconds;        /* wall */
	long maxrss_kib;
	char *out;             /* stdout */
	size_t out_len;
	char err[512];         /* the last line of stderr that had text */
};

/* argv builder */
struct argv_buf {
	char *v[40];
	char store[40][PATH_MAX];
	int n;
};

/* fmin/fmax without libm (weft links none) */
static inline double dmin(double a, double b)
{
	return a < b ? a : b;
}

static inline double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* strlcpy: copy what fits, always terminated. */
static inline void copy_trunc(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);

	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = 0;
}

/* bench_child.c. This weft (/proc/self/exe) and its folder, where the
 * helper programs are; the CPU timed children are pinned to; the budget's
 * end (monotonic seconds, 0: none); the log of every child (bench.log). */
extern char bench_self[PATH_MAX], bench_bindir[PATH_MAX];
extern int bench_cpu;
extern double bench_deadline;
extern FILE *bench_log;
/* The running child's process group: an interrupted bench takes it along. */
extern volatile sig_atomic_t bench_child_pgid;
void bench_on_signal(int sig);
double bench_clock(void);
bool bench_budget_spent(void);

/* Run argv (argv[0] a path), wall-clock bounded by timeout seconds (then
 * SIGKILL to its process group). pin: restrict it to bench_cpu. */
int bench_run_child(char *const argv[], double timeout, bool pin, struct child *c);
void bench_child_free(struct child *c);
/* The last line of the child's stdout that parses as a JSON value. */
struct jnode *bench_child_json(const struct child *c);
/* Why a child did not give a usable answer. */
void bench_child_why(const struct child *c, char *buf, size_t n);
/* A section's child that gave no usable answer: its row is not measured
 * (bench_not_measured(), why from bench_child_why()); frees n and c. */
void bench_child_unmeasured(struct child *c, struct jnode *n, const char *what);
/* The child's JSON object, verbatim (it parsed strictly), to the JSON
 * output (bench_js_out) without the trailing newline. */
void bench_child_copy_object(const struct child *c);
void bench_av_init(struct argv_buf *a, const char *prog);
void bench_av_add(struct argv_buf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool bench_file_executable(const char *path);
/* Why a helper program is missing, and how to get it. */
void bench_missing_program(char *buf, size_t n, const char *prog);
/* A section's "not measured": "PREFIXnot measured: WHAT: why" in the
 * markdown (what may be NULL) and {"not_measured": why} as its JSON value. */
void bench_not_measured(const char *prefix, const char *what, const char *why);
/* The helper program a section runs, bindir/prog, into path; false (and
 * the section written as not measured) if it is missing or the time budget
 * is spent. */
bool bench_program_ready(char *path, size_t n, const char *prog, const char *prefix);
/* A section that runs helper program prog: "## heading" in the markdown,
 * key in the JSON, and a started with prog's path; false (the section
 * written as not measured) as bench_program_ready(). */
bool bench_program_section(const char *heading, const char *key, const char *prog,
			   struct argv_buf *a);
/* Does this weft have subcommand `name`? (`weft help name` exits 0) */
bool bench_have_command(const char *name);

/* ----------------------------------------------------------- output */

/* bench_rows.c: the markdown page and the JSON document being written. */
extern FILE *bench_md_out, *bench_js_out;
#define md bench_md_out
#define js bench_js_out

void bench_js_sep(void);
void bench_js_num(const char *key, double v, bool comma);
void bench_js_kstr(const char *key, const char *v, bool comma);
/* The start of a section's JSON row of one variant: its scenario and
 * variant keys, the next key to follow */
void bench_js_variant_row(const char *scenario, const char *variant);
void bench_js_section(const char *name);
void bench_js_end_section(void);
/* A row of a two-column markdown table: a label and its figure. */
struct bench_figure {
	const char *name;
	double v;
};
/* Numbers for the markdown table: "-" when unknown. */
const char *bench_fmt_num(char *buf, size_t n, double v, int prec);
const char *bench_fmt_si(char *buf, size_t n, double v);
const char *bench_fmt_secs(char *buf, size_t n, double v);

/* -------------------------------------------------------- variants */

struct bvariant {
	char scenario[64], variant[64], zoo[32];
	bool buggy;
	char kind[32];
};

#define MAX_VARIANTS 256   /* weft list has 100 variants (zoo and demos) */
extern struct bvariant bench_vars[MAX_VARIANTS];
extern unsigned bench_nr_vars;
/* `weft list --json` of this weft into bench_vars; -1 on failure. */
int bench_load_variants(void);
bool bench_have_zoo(void);

/* ---------------------------------------------------------- settings */

enum skind { S_RUN, S_DFS, S_FUZZ, S_STRESS };

struct bench_settings {
	bool quick, no_engines, all;
	const char *out;
	unsigned seeds;
	double stress_cap, fuzz_cap, budget;
	uint64_t run_cap;            /* executions per random/pct seed */
	uint64_t silence_iters;
	double silence_secs;
	const char *only;
	const char *sections;         /* NULL: all */
	unsigned slow_seeds;          /* seeds of fuzz and stress rows */
	bool have_fuzz, have_min;
	const char *markdown;         /* --markdown FILE */
	char cmdline[512];
};
extern struct bench_settings bench_settings;
#define B bench_settings

/* Why a row of this kind is not run, or NULL. */
const char *bench_skip_kind(enum skind k);
/* Why this row is not run, or NULL. engine: the fuzz engine. */
const char *bench_skip_row(enum skind k, const char *engine, unsigned param);
/* Is section name in --sections (or are all on)? */
bool bench_section_on(const char *name);
/* Is this variant in the per-variant sections? */
bool bench_selected(const struct bvariant *v);
/* The loop over the variants a per-variant section measures: the buggy
 * ones (time to bug) or the fixed ones (silence, throughput), each in
 * bench_selected(). i indexes bench_vars. */
#define BENCH_FOR_EACH_SELECTED(i, want_buggy)                                    \
	for (unsigned i = 0; i < bench_nr_vars; i++)                              \
		if (bench_vars[i].buggy != (want_buggy) || !bench_selected(&bench_vars[i])) \
			continue;                                                 \
		else

/* --------------------------------------------------------- sections */

/* bench_speed.c: values the target table needs later. */
struct bench_measured {
	double sw_api, sw_bare, sw_uc, dec_per_s, exec_2x50, empty_lf;
	double z1_exec_per_s;
	char z1_target[160];
	double rss_small, rss_big;
	uint64_t rss_small_n, rss_big_n;
	/* instrumented programs (bench_prog.c) */
	double p_own, p_tls, p_plain, p_shared, p_model, p_in, p_fork;
	/* the libFuzzer target's ns/step over in-process random's on the
	 * first z1 variant of the throughput section (0: not measured) */
	double z1_lf_over;
	char z1_lf_target[96];
};
extern struct bench_measured bench_measured;
#define T bench_measured

/* The CPU with the most idle time over 200 ms (/proc/stat). */
int bench_idlest_cpu(long cores);
void bench_section_machine(void);
void bench_section_core(void);
void bench_section_empty_libfuzzer(void);
void bench_section_throughput(void);
void bench_section_memory(void);
void bench_section_program(void);    /* bench_prog.c */

/* bench_ttb.c: the searchers of the time-to-bug and silence rows. */
struct bstrategy {
	const char *name;
	enum skind kind;
	const char *arg;      /* run: strategy; fuzz: engine */
	unsigned param;       /* pct depth, dfs bound, fuzz: 1 = --no-feedback */
};

#define NR_STRATEGIES 9
extern const struct bstrategy bench_strategies[NR_STRATEGIES];

struct ttb {
	unsigned runs, found;
	double med_s, min_s, max_s, med_e, min_e, max_e;
	double cap;              /* seconds or executions, per run */
	bool cap_is_execs;
	char note[600];
	/* dfs */
	double dfs_total, dfs_secs, dfs_other;
	bool dfs_complete;
	/* reports of other kinds than the variant's: not counted as found */
	unsigned other[WEFT_KIND__COUNT];
};

/* Per buggy variant and strategy, for the headline and the targets. */
extern struct ttb bench_ttb_results[MAX_VARIANTS][NR_STRATEGIES];
/* Censored median: misses are +inf. */
double bench_cmedian(double *v, unsigned n);
int bench_strategy_index(const char *name);
void bench_section_ttb(void);
void bench_section_headline(void);

void bench_section_silence(void);    /* bench_silence.c */
void bench_section_min(void);        /* bench_min.c */
void bench_section_targets(void);    /* bench_targets.c */
void bench_section_scaling(void);    /* bench_curve.c */
/* bench_markdown.c: docs/benchmarks.md from this run's tables. */
int bench_write_markdown(const char *path, const char *tables, size_t len);

#endif
