/*
 * scenario.h - the struct weft_scenario fields a model names after one
 * prefix, for models that follow the zoo's naming: a world struct
 * `struct p_world`, opcodes P_NR_OPS and p_opnames (at most P_MAX_OPS per
 * thread), and the hooks and tables p_files, p_setup, p_thread,
 * p_quiesce, p_describe, p_stats, p_state_bucket, p_variants, p_triggers
 * and p_trigger_lens. Written once here so that a scenario's initializer
 * says only what is its own (name, CPUs, budgets, memory model, irqs):
 *
 *   WEFT_SCENARIO_ONE_TRIGGER(z8, Z8_NR_VARIANTS, 1, 0x14, 2, ...);
 *   const struct weft_scenario weft_scn_z8 = {
 *           .name = "z8", ..., WEFT_SCENARIO_WORLD(z8, Z8),
 *           WEFT_SCENARIO_HOOKS(z8),
 *   };
 *
 * Only macros: the initializer a model gets is the one it would write out.
 */
#ifndef WEFT_SCENARIO_H
#define WEFT_SCENARIO_H

#include <weft/weft.h>

/* The world and the workload alphabet: struct p##_world, P##_NR_OPS
 * opcodes named by p##_opnames, P##_MAX_OPS ops per thread. */
#define WEFT_SCENARIO_WORLD(p, P)                                                      \
	.world_size = sizeof(struct p##_world), .nr_opcodes = P##_NR_OPS,               \
	.opnames = p##_opnames, .max_ops = P##_MAX_OPS

/* The hooks and tables named after p; nr_variants is p##_variants' length. */
#define WEFT_SCENARIO_HOOKS(p)                                                         \
	.files = p##_files, .setup = p##_setup, .thread = p##_thread,                   \
	.quiesce = p##_quiesce, .describe = p##_describe, .stats = p##_stats,           \
	.state_bucket = p##_state_bucket, .variants = p##_variants,                     \
	.nr_variants = sizeof(p##_variants) / sizeof(p##_variants[0]),                  \
	.triggers = p##_triggers, .trigger_lens = p##_trigger_lens

/* p##_stat() and p##_stats() for a world whose stat has P##_THREADS + 1
 * rows: each thread's own, then one for every other context (kworkers,
 * interrupts). */
#define WEFT_SCENARIO_STAT_FNS_CTX(p, P)                                                \
	static inline void p##_stat(struct p##_world *W, enum p##_stat s)              \
	{                                                                               \
		unsigned t = weft_current_tid();                                        \
		W->stat[t < P##_THREADS ? t : P##_THREADS][s]++;                        \
	}                                                                               \
	static unsigned p##_stats(const void *w, const char **names, uint64_t *vals,    \
				  unsigned max)                                         \
	{                                                                               \
		const struct p##_world *W = w;                                          \
		return weft_stat_rows(p##_stat_names, P##_NR_STATS, &W->stat[0][0],     \
				      P##_THREADS + 1, names, vals, max);               \
	}

/* A zoo model's fields after its name, summary and source: cpus CPUs and
 * P##_THREADS threads, the world and the hooks named after p, the decision
 * hint, test-and-set locks, and the model version. */
#define WEFT_SCENARIO_ZOO(p, P, cpus, hint, version)                                   \
	.nr_cpus = (cpus), .nr_threads = P##_THREADS, WEFT_SCENARIO_WORLD(p, P),          \
	.decision_hint = (hint), .default_lock = WEFT_LOCK_TAS, .model_version = (version), \
	WEFT_SCENARIO_HOOKS(p)

/* The trigger input p##_trigger (bytes encoding: the arguments) that all
 * nr variants take (a fixed variant must stay silent on the bug's own
 * schedule), and the tables p##_triggers and p##_trigger_lens of it. */
#define WEFT_SCENARIO_ONE_TRIGGER(p, nr, ...)                                          \
	static const uint8_t p##_trigger[] = { __VA_ARGS__ };                           \
	static const uint8_t *const p##_triggers[nr] = { [0 ...(nr)-1] = p##_trigger };  \
	static const size_t p##_trigger_lens[nr] = { [0 ...(nr)-1] = sizeof(p##_trigger) }

/* The header of a version-2 genome (weft.h) as a trigger's first bytes: a
 * serial run (mode param 0, seed 0) asking for memory model mem with no
 * delay rate; n, the op count, follows. */
#define WEFT_GENOME_V2_SERIAL(mem)                                                      \
	WEFT_GENOME_MAGIC0, WEFT_GENOME_MAGIC2, WEFT_MODE_SERIAL, 0, 0, 0, 0, 0, (mem)

/* The tables p##_triggers and p##_trigger_lens of nr variants, from the
 * trigger arrays named (at most 8), one a variant in order; a variant past
 * them has none (NULL, 0). */
#define WEFT_SCENARIO_TRIGGERS(p, nr, ...)                                              \
	static const uint8_t *const p##_triggers[nr] = { __VA_ARGS__ };                 \
	static const size_t p##_trigger_lens[nr] = { __WEFT_SIZEOFS(__VA_ARGS__) }
#define __WEFT_SIZEOFS(...) __WEFT_SZ_CAT(__WEFT_SZ, __WEFT_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define __WEFT_NARGS(...) __WEFT_NARGS_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define __WEFT_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) n
#define __WEFT_SZ_CAT(a, b) __WEFT_SZ_CAT_(a, b)
#define __WEFT_SZ_CAT_(a, b) a##b
#define __WEFT_SZ1(a) sizeof(a)
#define __WEFT_SZ2(a, ...) sizeof(a), __WEFT_SZ1(__VA_ARGS__)
#define __WEFT_SZ3(a, ...) sizeof(a), __WEFT_SZ2(__VA_ARGS__)
#define __WEFT_SZ4(a, ...) sizeof(a), __WEFT_SZ3(__VA_ARGS__)
#define __WEFT_SZ5(a, ...) sizeof(a), __WEFT_SZ4(__VA_ARGS__)
#define __WEFT_SZ6(a, ...) sizeof(a), __WEFT_SZ5(__VA_ARGS__)
#define __WEFT_SZ7(a, ...) sizeof(a), __WEFT_SZ6(__VA_ARGS__)
#define __WEFT_SZ8(a, ...) sizeof(a), __WEFT_SZ7(__VA_ARGS__)

/* The start of p##_setup: the variant (one out of range runs as fix) and
 * the workload, copied into W->nr_ops and W->ops (P##_THREADS threads of
 * at most P##_MAX_OPS ops). */
#define WEFT_SCENARIO_SETUP_START(P, W, variant, wl, fix)                               \
	do {                                                                            \
		(W)->variant = (variant) < P##_NR_VARIANTS ? (variant) : (fix);         \
		weft_workload_copy(wl, P##_THREADS, P##_MAX_OPS, (W)->nr_ops,           \
				   &(W)->ops[0][0]);                                    \
	} while (0)

/* p##_stat(W, s): counts s for the current thread in
 * W->stat[thread][s] (the model's stats() reads it). */
#define WEFT_SCENARIO_STAT_FN(p, P)                                                     \
	static inline void p##_stat(struct p##_world *W, enum p##_stat s)              \
	{                                                                               \
		W->stat[weft_current_tid() % P##_THREADS][s]++;                         \
	}

/* A quiesce() check of a counter the threads incremented: got (unsigned
 * long), read at addr, must be expected (unsigned), else a lost-update
 * report at a site of the caller's. */
#define WEFT_SCENARIO_CHECK_SUM(addr, got, expected)                                    \
	do {                                                                            \
		if ((got) != (expected))                                                \
			weft_report(WEFT_KIND_LOST_UPDATE, (addr),                      \
				    WEFT_SITE(WEFT_EV_NOTE, "counter == sum of increments"), \
				    "counter is %lu after %u increments: %lu lost", (got),  \
				    (expected), (expected) - (got));                    \
	} while (0)

/* A scenario's identity and plain fields, for one whose hooks are not
 * named after one prefix (the demos, the benchmarks, the examples): name,
 * summary and source; cpus and threads (nr_cpus 0: set at run time); the
 * world's size in bytes; nr_ops opcodes named by ops, at most max_ops a
 * thread; the decision hint; the files (NULL-terminated, or NULL), setup
 * (or NULL) and thread hooks; and the variants, whose count is the
 * table's length. What a scenario has beyond these (quiesce, describe,
 * fields, triggers, irqs, budgets) follows it in the initializer:
 *
 *   const struct weft_scenario weft_scn_demo_x = {
 *           WEFT_SCENARIO_PLAIN("demo-x", "demo: ...", "Weft demo", 2, 2,
 *                               sizeof(struct x_world), 1, x_ops, 4, 256,
 *                               x_files, x_setup, x_thread, x_variants),
 *           .quiesce = x_quiesce,
 *   };
 */
#define WEFT_SCENARIO_PLAIN(name_, summary_, source_, cpus, threads, world_bytes, nr_ops,  \
			    ops, ops_per_thread, hint, files_, setup_, thread_, variants_)     \
	.name = (name_), .summary = (summary_), .source = (source_), .nr_cpus = (cpus),      \
	.nr_threads = (threads), .world_size = (world_bytes), .nr_opcodes = (nr_ops),         \
	.opnames = (ops), .max_ops = (ops_per_thread), .decision_hint = (hint),               \
	.files = (files_), .setup = (setup_), .thread = (thread_), .variants = (variants_),   \
	.nr_variants = sizeof(variants_) / sizeof((variants_)[0])

#endif
