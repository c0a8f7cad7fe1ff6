/*
 * strategy.h - the built-in strategies and their decorators.
 *
 * Each strategy is a state struct the caller owns (no allocation) plus a
 * const struct weft_strategy_ops. Workloads: a strategy either replays fixed
 * workload bytes (wl/wl_len set) or generates them itself (random, pct).
 */
#ifndef WEFT_STRATEGY_H
#define WEFT_STRATEGY_H

#include <weft/weft.h>

#ifdef __cplusplus
extern "C" {
#endif

/* xoshiro256** seeded through splitmix64 (Blackman and Vigna, 2018). */
struct weft_rng {
	uint64_t s[4];
};
void weft_rng_seed(struct weft_rng *r, uint64_t seed);
uint64_t weft_rng_next(struct weft_rng *r);
/* Uniform in [0, n), n > 0 (Lemire's multiply-shift, no modulo bias
 * worth measuring for n <= 2^16). */
uint32_t weft_rng_below(struct weft_rng *r, uint32_t n);

/* ----------------------------------------------------------------- bytes */

/* The schedule of a genome input while it runs (core/src/search/genome.c). */
struct weft_genome_run {
	struct weft_genome g;
	struct weft_rng rng;
	uint32_t cnt[WEFT_MAX_THREADS];     /* operations each thread did */
	int last;                           /* thread of the last operation */
	/* overrides by thread, sorted by k; next[t] the first unused */
	uint8_t nr_tov[WEFT_MAX_THREADS], next_tov[WEFT_MAX_THREADS];
	struct weft_override tov[WEFT_MAX_THREADS][WEFT_MAX_ENTRIES];
	unsigned nr_cov;
	struct weft_override cov[WEFT_MAX_ENTRIES];   /* choice overrides */
	unsigned nr_dov;
	struct weft_override dov[WEFT_MAX_ENTRIES];   /* delay overrides (v2) */
	uint32_t prio[WEFT_EXEC_MAX_THREADS];   /* pct, pos */
	uint32_t change[8];
	unsigned nr_change;
	unsigned nr_threads;
};

/* Decisions and workload from one fuzzer input (see weft_input; a genome
 * input, see weft_genome, runs its mode and overrides instead). */
struct weft_bytes {
	const struct weft_scenario *sc;
	struct weft_input in;
	uint8_t wl[2 * 255 + 1];
	size_t wl_len;
	/* sorted schedule entries */
	unsigned nr_pre, nr_cho;
	struct weft_entry pre[WEFT_MAX_ENTRIES];
	struct weft_entry cho[WEFT_MAX_ENTRIES];
	unsigned next_pre, next_cho;
	bool done;      /* one execution per init */
	bool genome;    /* the input is a genome: gr holds it */
	struct weft_genome_run gr;
};
void weft_bytes_init(struct weft_bytes *b, const struct weft_scenario *sc,
		     const uint8_t *buf, size_t len);
extern const struct weft_strategy_ops weft_strategy_bytes;

/*
 * A raw fuzzer input too short to be a genome (0 or 1 bytes: libFuzzer runs
 * the empty input and "\n" before its first mutation) stands for a genome:
 *  - the empty input, when the scenario declares a trigger workload
 *    (weft_dfs_workload() of variant), is dfs's first execution: that
 *    workload, serially (the default at every decision), so a bug of the
 *    trigger under no preemption is the first execution of every engine;
 *  - otherwise a fresh walk genome: a random workload, the walk mode
 *    (uniform over the runnable threads, as the random strategy) and, under
 *    a weak memory model, a version-2 genome asking for it with a delay
 *    rate of 24..59 in 64, all drawn from a stream seeded by the input's
 *    length and byte alone.
 * weft_raw_input() returns buf itself for any longer input, else that
 * genome encoded into scratch (WEFT_INPUT_MAX bytes), with *len its
 * length. The fuzz targets, their mutators, `weft import` and `weft min`
 * of a raw input read inputs through it (variant: the target's; memory: the
 * run's model, the weakest a genome may ask for); weft_bytes_init() keeps
 * the legacy meaning (the empty input is the serial run of the empty
 * workload).
 */
const uint8_t *weft_raw_input(const struct weft_scenario *sc, unsigned variant, unsigned memory,
			      const uint8_t *buf, size_t *len, uint8_t *scratch);
/* A fresh genome's parts, as weft_raw_input() and the mutators' generation
 * draw them: the workload of weft_random_workload(); under a weak memory
 * model (memory != WEFT_MEM_SC) version 2 asking for memory, at a random
 * delay rate of 24..59 in 64 (nothing under sc). */
void weft_genome_fresh_workload(struct weft_genome *g, const struct weft_scenario *sc,
				struct weft_rng *r);
void weft_genome_fresh_delays(struct weft_genome *g, unsigned memory, struct weft_rng *r);

/* The genome's side of the bytes strategy (core/src/search/genome.c). */
size_t weft_genome_run_init(struct weft_genome_run *gr, const struct weft_scenario *sc,
			    const uint8_t *buf, size_t len, uint8_t *wl);
void weft_genome_run_begin(struct weft_genome_run *gr);
int weft_genome_run_pick(struct weft_genome_run *gr, const struct weft_decision *d);
uint32_t weft_genome_run_value(struct weft_genome_run *gr, uint32_t index, uint32_t n);
/* Genome version 2: a store's delay code, and the memory model asked for
 * (-1 for a version-1 genome). */
uint32_t weft_genome_run_delay(struct weft_genome_run *gr, uint32_t index, uint32_t ncodes);
int weft_genome_run_memory(const struct weft_genome_run *gr);
void weft_genome_run_step(struct weft_genome_run *gr, const struct weft_step_info *si);

/* Turn a recorded decision list into schedule entries that reproduce it
 * under the bytes strategy (each non-default choice becomes one entry).
 * Returns the number of entries, or < 0 if more than cap are needed. */
int weft_entries_from_decisions(const struct weft_scenario *sc,
				const struct weft_decision_rec *d, size_t nd,
				const uint32_t *choice_vals, size_t nc,
				struct weft_entry *out, size_t cap);

/* The bytes input that reproduces the last execution (its workload and
 * its non-default decisions and choices); 0 if it needs more entries than
 * an input holds or positions beyond the scenario's decision_hint. */
size_t weft_last_input(const struct weft_scenario *sc, uint8_t *buf, size_t cap);
/* The same whether or not the execution delayed stores (the encoding has
 * no delays: a replay file keeps them beside it). */
size_t weft_last_input_nodelays(const struct weft_scenario *sc, uint8_t *buf, size_t cap);

/* ---------------------------------------------------------------- random */

struct weft_random {
	const struct weft_scenario *sc;
	struct weft_rng rng;
	const uint8_t *fixed_wl;   /* NULL: generate a workload per execution */
	size_t fixed_wl_len;
};
void weft_random_init(struct weft_random *r, const struct weft_scenario *sc,
		      uint64_t seed, const uint8_t *wl, size_t wl_len);
extern const struct weft_strategy_ops weft_strategy_random;
/* Random workload bytes for sc (shared by random and pct). */
size_t weft_random_workload(const struct weft_scenario *sc, struct weft_rng *r,
			    uint8_t *wl, size_t cap);
/* A begin() hook's answer for a fixed workload of len bytes: copied into
 * wl and its length, or -1 (nothing to run) when it is longer than cap. */
int weft_begin_fixed_workload(uint8_t *wl, size_t cap, const uint8_t *fixed, size_t len);

/* ------------------------------------------------------------------- pct */

/*
 * PCT: Burckhardt, Kothari, Musuvathi, Nagarakatte, "A Randomized Scheduler
 * with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010. Threads get
 * distinct random priorities d..d+n-1; d-1 change points are drawn
 * uniformly from [1, k]; the highest-priority runnable thread runs; at the
 * i-th change point the running thread's priority drops to i. k is the
 * longest execution seen so far (Shuttle does the same).
 */
struct weft_pct {
	const struct weft_scenario *sc;
	struct weft_rng rng;
	unsigned depth;
	uint32_t k;                       /* estimated steps */
	uint64_t prio[WEFT_EXEC_MAX_THREADS];   /* see pct_rank() */
	uint32_t change[8];
	unsigned nr_change;
	const uint8_t *fixed_wl;
	size_t fixed_wl_len;
};
void weft_pct_init(struct weft_pct *p, const struct weft_scenario *sc, uint64_t seed,
		   unsigned depth, const uint8_t *wl, size_t wl_len);
extern const struct weft_strategy_ops weft_strategy_pct;

/* ------------------------------------------------------------------- dfs */

/*
 * Stateless depth-first search over the decision tree with a preemption
 * bound (Musuvathi and Qadeer, "Iterative context bounding", PLDI 2007).
 * At each decision the alternatives are tried default first, then the
 * other runnable threads in ascending order; an alternative that would
 * exceed the bound is pruned. A preemption is a switch away from a thread
 * that could go on, or a choice of a thread that spins while a fair one
 * could run (weft_decision.unfair). complete is true once the bounded
 * space has been covered.
 */
#define WEFT_DFS_MAX_DEPTH 4096
/* A weft_choose() of at most this many values is a branch point of dfs
 * and its reductions; a wider one (a nondet int) takes value 0 only, and
 * the search is then not complete. */
#define WEFT_DFS_MAX_CHOICE 16
struct weft_dfs_frame {
	uint64_t runnable;
	uint64_t unfair;         /* weft_decision.unfair (a value frame:
				    weft_choice_unfair()): choosing one costs a
				    preemption and counts against fair_bound */
	uint8_t dflt;
	uint8_t cur_runnable;    /* the current thread was runnable (2: the
				    frame is a weft_choose() of the values in
				    runnable, which costs no preemption; 3: a
				    store's delay code, weak memory) */
	uint8_t chosen;
	uint8_t preempt_before;  /* preemptions before this decision */
	uint8_t delayed_before;  /* stores given a non-zero delay before it */
	uint8_t unfair_before;   /* unfair choices before it (fair_bound) */
	uint8_t retry1;          /* 1 + the thread whose unfair choice only
				    repeats its spin (weft_decision.spin_retry;
				    0: none) */
};
/* Weak memory: dfs enumerates every delay code of at most this many
 * stores per execution (weft_dfs.delay_bound; 0: none delayed). */
#define WEFT_DFS_DELAY_BOUND 2
struct weft_dfs {
	const struct weft_scenario *sc;
	unsigned bound;          /* UINT_MAX: unbounded */
	const uint8_t *fixed_wl;
	size_t fixed_wl_len;
	uint32_t depth;          /* frames recorded in this execution */
	uint32_t replay_len;     /* prefix to replay in the next execution */
	bool started, exhausted;
	bool complete;           /* exhausted, and nothing was cut off */
	bool overflow;           /* depth cap hit or the model diverged */
	bool wide_choice;        /* a weft_choose() of more than 16 values: not
				    enumerated (value 0 only), so not complete */
	unsigned delay_bound;    /* delayed stores per execution (weak memory;
				    weft_dfs_init sets WEFT_DFS_DELAY_BOUND) */
	/* Fairness bound, after CHESS (Musuvathi and Qadeer, PLDI 2008):
	 * unfair choices (weft_decision.unfair: a thread that spins without
	 * progress run again before the threads it waits for) per execution;
	 * a branch past it is pruned and counted in fair_pruned, and the
	 * search is then not complete: it covered every schedule with at
	 * most fair_bound unfair choices. WEFT_BOUND_NONE (weft_dfs_init's
	 * default): none pruned, an unfair choice costs a preemption only. */
	unsigned fair_bound;
	uint64_t fair_pruned;    /* branches the fairness bound pruned */
	/* of fair_pruned, the branches that only repeat a spin iteration
	 * (weft_decision.spin_retry): the same yield, nothing changed since.
	 * Under the good-samaritan assumption they reach nothing new, but a
	 * thread's locals are not seen (a bounded poll's counter), so they
	 * still make the search incomplete */
	uint64_t retry_pruned;
	uint64_t executions;
	struct weft_dfs_frame f[WEFT_DFS_MAX_DEPTH];
};
void weft_dfs_init(struct weft_dfs *d, const struct weft_scenario *sc, unsigned bound,
		   const uint8_t *wl, size_t wl_len);
extern const struct weft_strategy_ops weft_strategy_dfs;

/* ------------------------------------------------------------------ dpor */

/*
 * dfs with partial-order reduction (core/src/search/dpor.c, docs/strategies.md).
 * Dependence comes from the machine's ops->on_step records: two events of
 * different threads conflict when they touch overlapping world bytes and
 * one of them writes (a lock's acquire, release and stateful blocked
 * attempt write the lock); a spawn happens before the child's first event,
 * a thread's end before every join of it. A thread that would block on a
 * test-and-set spinlock or a join (blocking that changes no state) is not
 * enabled; one that would take a ticket or sleep on a wait queue is.
 *
 *  NONE     plain dfs; use weft_strategy_dfs (it is exactly that).
 *  SLEEP    dfs over every enabled thread, pruned by sleep sets
 *           (Godefroid, "Partial-order methods...", LNCS 1032, 1996).
 *  SOURCE   source-DPOR with sleep sets (Abdulla, Aronis, Jonsson,
 *           Sagonas, "Optimal dynamic partial order reduction", POPL 2014,
 *           Algorithm 1; Flanagan and Godefroid, POPL 2005).
 *  OPTIMAL  optimal DPOR: source sets and wakeup trees (POPL 2014,
 *           Algorithm 2; JACM 64(4) 2017): one execution per Mazurkiewicz
 *           trace, never a sleep-set-blocked one.
 *
 * With a preemption bound, SLEEP and SOURCE switch to their bounded forms,
 * which keep "no bug within K preemptions" sound (docs/strategies.md):
 * an alternative to continuing the current thread is explored only once
 * an explored run shows a conflicting event that has not seen the
 * thread's next op (a delay argument, in place of the conservative
 * backtrack points of Coons, Musuvathi, McKinley, "Bounded partial-order
 * reduction", OOPSLA 2013, which a brute-force check found unsound here),
 * and a thread put to sleep where it was not the current thread covers
 * its whole next block. OPTIMAL has no sound bounded form here and is
 * refused (weft_dpor_reset returns WEFT_EINVAL). With yields, OPTIMAL
 * continues as SOURCE.
 */
enum weft_por {
	WEFT_POR_NONE = 0,
	WEFT_POR_SLEEP,
	WEFT_POR_SOURCE,
	WEFT_POR_OPTIMAL,
};
#define WEFT_BOUND_NONE 0xffffffffu   /* no preemption bound */

const char *weft_por_name(enum weft_por p);
/* "none", "sleep", "source", "optimal"; false for anything else. */
bool weft_por_parse(const char *s, enum weft_por *out);
/* Is mode sound with a preemption bound (bound != WEFT_BOUND_NONE)? */
bool weft_por_sound(enum weft_por p, unsigned bound);
/* The best mode that is sound with bound: OPTIMAL without one, SOURCE
 * with one. */
enum weft_por weft_por_default(unsigned bound);

struct weft_dpor_stats {
	uint64_t executions;     /* machine executions run */
	uint64_t redundant;      /* of which sleep-set blocked: covered by others
				    (never for OPTIMAL on a model without yields) */
	uint64_t states;         /* decisions taken beyond a replayed prefix: the
				    nodes of the explored decision tree */
	uint64_t events;         /* visible operations executed */
	uint64_t races;          /* reversible races analysed */
	uint64_t backtracks;     /* backtrack points / wakeup sequences added */
	uint64_t fallbacks;      /* the thread a race wanted could not run where
				    it was wanted (a yield, an unknown op): every
				    enabled thread was added there instead */
	uint64_t yield_restarts; /* the model yields: the search started over once
				    with blocking threads as choices (1 or 0),
				    and optimal DPOR went on as source-DPOR */
	uint64_t final_states;   /* distinct world states at the end of an
				    execution (weft_dpor_count_final_states) */
	bool final_states_capped;
	uint32_t max_depth;      /* deepest decision stack */
	uint64_t value_frames;   /* weft_choose() calls of more than one value
				    made branch points (each value explored);
				    a model that chooses makes optimal DPOR go
				    on as source-DPOR, as yields do */
	uint64_t cpu_restarts;   /* threads shared a CPU: the search started over
				    once with any two events on one CPU dependent
				    (1 or 0), and optimal DPOR went on as
				    source-DPOR */
	uint64_t bound_cuts;     /* bounded: choices left out, or frames not
				    justified, because of the bound. 0 on a
				    complete search means that every larger bound
				    makes exactly the same search (weft run stops
				    its iterative bounding there) */
};

struct weft_dpor;
/* Allocates a searcher (NULL if out of memory); reset it before use. */
struct weft_dpor *weft_dpor_new(void);
void weft_dpor_free(struct weft_dpor *d);
/*
 * Start a new search: mode (not NONE), bound (WEFT_BOUND_NONE: every
 * interleaving), the run's lock model, the fixed workload bytes (copied).
 * Returns 0, or WEFT_EINVAL for NONE or a mode that is not sound with the
 * bound.
 */
int weft_dpor_reset(struct weft_dpor *d, const struct weft_scenario *sc, enum weft_por mode,
		    unsigned bound, enum weft_lock_model lock, const uint8_t *wl, size_t wl_len);
/* Caps (0: keep the default): decisions per execution, events per
 * execution, executions. Hitting one makes the search incomplete. */
void weft_dpor_set_caps(struct weft_dpor *d, uint32_t max_frames, uint32_t max_events,
			uint64_t max_executions);
/* Count distinct final world states (a hash of the world after each
 * execution; costs one pass over the world per execution). */
void weft_dpor_count_final_states(struct weft_dpor *d, bool on);
/* The search is over (its begin returned < 0). */
bool weft_dpor_done(const struct weft_dpor *d);
/* Over, and nothing was cut off: no cap hit, no replayed prefix diverged
 * (a nondeterministic model), no wakeup sequence lost. */
bool weft_dpor_complete(const struct weft_dpor *d);
/* Why the search is not complete ("" when it is, or still running). */
const char *weft_dpor_why_incomplete(const struct weft_dpor *d);
void weft_dpor_get_stats(const struct weft_dpor *d, struct weft_dpor_stats *out);
extern const struct weft_strategy_ops weft_strategy_dpor;

/* ---------------------------------------------------------------- replay */

/* An explicit decision list; any divergence is reported as DESYNC. */
struct weft_replay_strategy {
	const uint8_t *wl;
	size_t wl_len;
	const struct weft_decision_rec *d;
	size_t nd;
	const uint32_t *choices;
	size_t nc;
	const uint8_t *delays;        /* weak memory: each store's delay code */
	size_t nr_delays;
	/* result */
	bool desync;
	uint32_t desync_index;        /* decision index */
	struct weft_decision_rec expected, got;
	char why[160];
};
void weft_replay_strategy_init(struct weft_replay_strategy *r, const uint8_t *wl,
			       size_t wl_len, const struct weft_decision_rec *d, size_t nd,
			       const uint32_t *choices, size_t nc);
/* The recorded delay codes (weak memory; none: every store at once). */
void weft_replay_strategy_delays(struct weft_replay_strategy *r, const uint8_t *delays,
				 size_t n);
extern const struct weft_strategy_ops weft_strategy_replay;

/* ---------------------------------------------------------- decorators */

/* Metrics: sums over executions. Wraps any strategy. */
struct weft_metrics {
	const struct weft_strategy_ops *inner;
	void *inner_st;
	uint64_t executions, steps, decisions, switches, preemptions;
	uint64_t max_steps;
};
void weft_metrics_init(struct weft_metrics *m, const struct weft_strategy_ops *inner,
		       void *inner_st);
extern const struct weft_strategy_ops weft_strategy_metrics;
/* The metrics ops for m: weft_strategy_metrics, or the same without on_step
 * when m's strategy has none (the machine then builds no dependence record
 * per step: about 4% of a step). Use it rather than weft_strategy_metrics. */
const struct weft_strategy_ops *weft_metrics_ops(const struct weft_metrics *m);
/* Add one execution's result to m, as the decorator does at its end: for a
 * driver that passes the strategy itself to weft_execute() (and so spares
 * every decision the decorator's extra call) and counts what returned 0. */
void weft_metrics_add(struct weft_metrics *m, const struct weft_exec_result *r);

/*
 * Determinism check: runs the last execution a second time from its
 * workload and decisions (always recorded) under the replay strategy, with
 * full event recording, and compares kind and trace hash. Returns 0 when
 * equal; < 0 and a message when they differ. Afterwards weft_last_events()
 * holds the re-run's trace.
 *
 * When the first run kept no trace (o->no_trace_hash, as a search's
 * executions do), the re-run must follow its decisions to the same kind in
 * as many steps, and a second re-run must give the same trace hash.
 */
int weft_check_determinism(const struct weft_run_opts *o, const struct weft_exec_result *first,
			   char *why, size_t n);
/* The same, giving the re-run's result in *again: its trace hash, and its
 * report with the callers and the trace tail a run without a trace lacks. */
int weft_check_determinism_rerun(const struct weft_run_opts *o,
				 const struct weft_exec_result *first,
				 struct weft_exec_result *again, char *why, size_t n);

/*
 * Weak memory: does the last execution need its memory model? Re-runs its
 * workload and decisions under sc (every store visible at once): 1 if that
 * does not give the same verdict (or cannot follow the decisions), 0 if it
 * does or the execution ran under sc. Afterwards the last execution is
 * the same one again (re-run with recording).
 */
int weft_check_needs_weak(const struct weft_run_opts *o, const struct weft_exec_result *first);

#ifdef __cplusplus
}
#endif
#endif
