/*
 * fuzz.h - libweft_fuzz: the fuzz target of one scenario variant for
 * libFuzzer, AFL++ and the regression driver, its genome generator and
 * mutators (docs/fuzzing.md). Installed with the package: an out-of-tree
 * model gets the same targets through weft_add_model() (CMake) or
 * pkg-config (weft-fuzz-<engine>).
 *
 * The target is selected at link time: the program defines
 *   const char weft_fuzz_target_spec[] = "scenario:variant";
 * (weft_add_model and fuzz/CMakeLists.txt generate that one-line file), and
 * links one engine flavour of the library: weft_fuzz_libfuzzer (extra
 * counters, LLVMFuzzerCustomMutator), weft_fuzz_afl (AFL++ map slots) or
 * weft_fuzz_regression (main() that replays files and folders).
 */
#ifndef WEFT_FUZZ_H
#define WEFT_FUZZ_H

#include <weft/strategy.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "scenario:variant" of this target, defined by the program. */
extern const char weft_fuzz_target_spec[];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The whole of a target's own source:  WEFT_FUZZ_TARGET("scenario:variant");
 * It defines the spec and a strong reference to the library's
 * LLVMFuzzerTestOneInput (AFL++'s driver refers to it weakly, which would
 * not pull it out of the static library).
 */
#define WEFT_FUZZ_TARGET(spec)                                                  \
	const char weft_fuzz_target_spec[] = spec;                              \
	int (*const weft_fuzz_target_entry)(const uint8_t *, size_t)            \
		__attribute__((used)) = LLVMFuzzerTestOneInput

/*
 * Optional, beside it: WEFT_FUZZ_PROGRAM("lru-isolate"); names the program
 * that has this scenario (an out-of-tree model's weft_add_model NAME), so
 * the hint a crashing target prints ("... import FILE --target ...") runs
 * that program, not `weft`, which does not know the scenario. weft_add_model
 * writes it; without it the hint names weft (the in-tree targets).
 */
extern const char weft_fuzz_program[] __attribute__((weak));
#define WEFT_FUZZ_PROGRAM(name) const char weft_fuzz_program[] = name

/* What the last execution of an input looked like (mutation positions). */
struct weft_fuzz_shape {
	bool known;
	uint32_t steps;
	uint32_t cnt[WEFT_MAX_THREADS];     /* operations per thread */
	uint32_t stores;                    /* weak memory: stores asked a delay */
};

/* The genome mutations, one arm of the bandit each. */
enum weft_mut_arm {
	WEFT_MUT_FRESH,       /* a newly generated genome */
	WEFT_MUT_MODE,        /* another mode (and parameter) */
	WEFT_MUT_SEED,        /* another seed for the mode */
	WEFT_MUT_OV_INSERT,   /* an override inside the parent's execution */
	WEFT_MUT_OV_MOVE,     /* an override a few operations earlier/later, or retargeted */
	WEFT_MUT_OV_REMOVE,
	WEFT_MUT_OP_INSERT,   /* a workload op */
	WEFT_MUT_OP_DELETE,
	WEFT_MUT_OP_CHANGE,   /* its thread, opcode or argument */
	WEFT_MUT_BYTES,       /* the engine's byte mutations (after the magic) */
	WEFT_MUT_DELAY,       /* weak memory only: the delay rate, or a store's
				 delay override inserted, moved or removed */
	WEFT_MUT__COUNT
};

/*
 * The mutator: generation and genome mutations with shares adapted by
 * measured yield. Deterministic: its state is a function of the calls made
 * to it (the engine's seeds and the rewards), nothing else.
 */
struct weft_mutator {
	const struct weft_scenario *sc;
	struct weft_rng rng;
	/* bandit: successes and tries per arm (halved every 4096 tries) */
	double gain[WEFT_MUT__COUNT], tries[WEFT_MUT__COUNT];
	uint64_t total;
	bool adaptive;               /* false: uniform shares (ablation) */
	int fixed_arm;               /* >= 0: only this arm (ablation) */
	int last_arm;
	int last_mode;               /* mode class of the last mutation's result */
	uint64_t last_hash;
	/* the same bandit over the schedule modes a genome is given
	 * (WEFT_MUT_MODE_CLASSES classes: walk, walk p4/p16/p48, pct d2/d3,
	 * pos, serial, pct d8) */
#define WEFT_MUT_MODE_CLASSES 9
	double mgain[WEFT_MUT_MODE_CLASSES], mtries[WEFT_MUT_MODE_CLASSES];
	/* the prior share of each mode class; whether measured yields move
	 * them (false: the prior alone, an ablation) */
	double mode_prior[WEFT_MUT_MODE_CLASSES];
	bool mode_bandit;
	/* the prior shares of the warm-up's forced fresh genomes (below), and
	 * whether the genome being made is one */
	double warmup_prior[WEFT_MUT_MODE_CLASSES];
	bool warm;
	/* the first `warmup` mutations are fresh genomes `warmup_fresh` in
	 * 1000 of the time, mutation n after them warmup_fresh *
	 * (warmup/n)^2 (a campaign starts as a random search) */
	unsigned warmup, warmup_fresh;
	uint32_t avg_steps;          /* running mean of execution length */
	/* the engine's byte mutator (LLVMFuzzerMutate, AFL++ havoc) or NULL */
	size_t (*byte_mutate)(uint8_t *data, size_t size, size_t max);
	/* the target's memory model (enum weft_memory_model): under a weak
	 * one genomes are version 2 asking for it, and the delay arm runs;
	 * sc (0) keeps every genome version 1 */
	unsigned memory;
	/* the target's variant: the empty input's genome is its dfs trigger
	 * (weft_raw_input) */
	unsigned variant;
};

void weft_mutator_init(struct weft_mutator *m, const struct weft_scenario *sc, uint64_t seed);
/* A random genome: weft_random_workload()'s workload distribution, a mode
 * drawn from serial, walk, pct d2/d3/d8, pos (the warm-up's shares for
 * the warm-up's forced fresh genomes, m->warm, else the prior); under a weak memory model a
 * version-2 genome with a delay rate drawn from 24..59 (of 64;
 * weft_genome_fresh_delays). Returns its length. */
size_t weft_mutator_generate(struct weft_mutator *m, uint8_t *out, size_t cap);
/* Mutate data (a genome; an input of 0 or 1 bytes the fresh genome it
 * stands for, weft_raw_input; a legacy input becomes the serial genome of
 * its workload) in place with one arm; seed is the engine's. */
size_t weft_mutator_mutate(struct weft_mutator *m, uint8_t *data, size_t size, size_t max,
			   uint32_t seed, const struct weft_fuzz_shape *shape);
/* The execution of data (just run) found something new (gain) or not:
 * credited to the arm that made it, if it was the last mutation. */
void weft_mutator_reward(struct weft_mutator *m, const uint8_t *data, size_t size, bool gain,
			 uint32_t steps);
const char *weft_mut_arm_name(unsigned arm);
uint64_t weft_fuzz_hash(const uint8_t *data, size_t size);

/* Seed corpus: n generated genomes (that do not report) into dir, plus the
 * two-byte serial genome; returns how many were written or < 0. */
int weft_fuzz_write_seeds(const struct weft_scenario *sc, unsigned vi, const char *dir,
			  unsigned n, uint64_t seed);

/* The libFuzzer/AFL++ dictionary of a target: its workload ops and early
 * overrides. 0 or < 0. */
int weft_fuzz_write_dict(const struct weft_scenario *sc, unsigned vi, const char *path);

/*
 * Any engine's target, run with WEFT_FUZZ_WRITE_SEEDS=DIR (and/or
 * WEFT_FUZZ_WRITE_DICT=FILE) in the environment, writes its generated seed
 * corpus (and dictionary) and exits 0 before fuzzing: how `weft fuzz` seeds
 * a target whose program has no corpus/ of its own.
 */
#define WEFT_FUZZ_NR_SEEDS 32

#ifdef __cplusplus
}
#endif
#endif
