/*
 * weft_fuzz_glue.h - what every fuzz target shares, for all three engines
 * (regression driver, libFuzzer, AFL++): the interleaving feedback map and
 * the live execution counters that `weft fuzz` reads.
 *
 * Engine selection is at compile time (fuzz/CMakeLists.txt):
 *   WEFT_FUZZ_LIBFUZZER  the map is a __libfuzzer_extra_counters array;
 *   WEFT_FUZZ_AFL        the map is a run of extra guard slots in AFL++'s
 *                        coverage map (__afl_area_ptr);
 *   neither              regression driver: a private array nobody reads,
 *                        so replays still exercise the feedback path.
 *
 * Environment (read once, in weft_fuzz_glue_init):
 *   WEFT_NO_FEEDBACK=1   never attach the map (the measurement baseline);
 *   WEFT_FUZZ_STATS=PATH a file of >= 4096 bytes the target maps shared and
 *                        counts executions and reports in (weft fuzz);
 *   WEFT_FUZZ_LOCK=tas|ticket  the lock model (default: the scenario's).
 * None of them reaches an execution: the world depends only on the input.
 */
#ifndef WEFT_FUZZ_GLUE_H
#define WEFT_FUZZ_GLUE_H

#include <stdbool.h>
#include <stdint.h>

#include <weft/weft.h>

/* Size of the feedback map: a power of two (weft_feedback_attach) and a
 * multiple of 8 (libFuzzer clears extra counters in machine words). */
#define WEFT_FUZZ_MAP_SIZE 4096u

#define WEFT_FUZZ_STATS_MAGIC 0x5745465453544154ull /* "WEFTSTAT" */

/* The shared counters of WEFT_FUZZ_STATS (one page; every process of a
 * campaign adds to the same words, relaxed). */
struct weft_fuzz_stats {
	uint64_t magic;
	uint64_t execs;      /* machine executions (a systematic stage's too) */
	uint64_t reports;
	uint64_t steps;      /* steps of those executions */
	/* execs and steps when the first report was made (0: none yet): an
	 * engine goes on for a while after a crash (AFL++ ends the queue
	 * entry's stage first), so the totals overstate the work to the bug */
	uint64_t first_report_execs, first_report_steps;
};

/* Once per process, before the first execution. Returns 0, or < 0 with a
 * message on stderr (bad WEFT_FUZZ_LOCK, unmappable stats file). */
int weft_fuzz_glue_init(void);
/* The same, with the feature families in_map (WEFT_FB_*) in the engine's
 * map and the others in aux (NULL: not collected). */
int weft_fuzz_glue_init_route(unsigned in_map, uint8_t *aux);
/* Before each input: (AFL++) follows the coverage map to its shared-memory
 * home once the fork server has mapped it. */
void weft_fuzz_glue_begin(void);
/* After each machine execution: count it and its steps. */
void weft_fuzz_glue_count(uint32_t steps);
/* After each input: reduce the map to feature presence (one count per
 * feature that occurred), before the engine reads it; returns the map
 * (NULL if none). */
uint8_t *weft_fuzz_glue_end(void);
/* Extra executions that must not count as the input's coverage (the
 * systematic stage): detach, save the engine's code coverage counters;
 * then restore them and attach again. */
void weft_fuzz_glue_detach(void);
void weft_fuzz_glue_reattach(void);
/* A detector reported: count it (the target aborts next). */
void weft_fuzz_glue_report(void);

bool weft_fuzz_feedback_on(void);
/* The lock model the targets run under. */
enum weft_lock_model weft_fuzz_lock(const struct weft_scenario *sc);
/* The memory model they run under, in *memory: WEFT_FUZZ_MEMORY (weft
 * fuzz --memory), else sc's own; false, said on stderr, where the variable
 * names no model. */
bool weft_fuzz_memory(const struct weft_scenario *sc, unsigned *memory);
/* Whether WEFT_FUZZ_MEMORY names the model (else the scenario's own). */
bool weft_fuzz_memory_forced(void);
/* Set by the regression driver (and the AFL++ driver outside afl-fuzz)
 * before the first input: the inputs are stored ones (a corpus, a crash
 * kept in CORPUS/<target>/), not an engine's mutants, so a version-2 genome
 * runs under the memory model it asks for, the one it was found under
 * (weft fuzz --memory writes it there), unless WEFT_FUZZ_MEMORY says
 * otherwise: a crash found under lkmm of a scenario that declares sc fails
 * its ctest replay. While fuzzing, an input never runs weaker than the
 * target's model (a mutated header must not weaken the run). */
extern bool weft_fuzz_replaying;
/* The map while attached, else NULL (tests and measurements). */
uint8_t *weft_fuzz_map(void);

/* The regression driver (regression_driver.c): runs the target over files
 * and folders, `[--expect-crash] PATH...`; the main() of regression builds,
 * and of an AFL++ target started outside afl-fuzz (afl_driver.c). */
int weft_fuzz_replay_main(int argc, char **argv);

#endif
