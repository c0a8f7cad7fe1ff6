/*
 * scenario.h - the struct weft_scenario fields a model names after one
 * prefix, for models that follow the zoo's naming: a world struct
 * `struct p_world`, opcodes P_NR_OPS and p_opnames (at most P_MAX_OPS per
 * thread), and the hooks and tables p_files, p_setup, p_thread,
 * p_quiesce, p_describe, p_stats, p_state_bucket, p_variants, p_triggers
 * and p_trigger_lens. Written once here so that a scenario's initializer
 * says only what is its own (name, CPUs, budgets, memory model, irqs):
 *
 *   WEFT_SCENARIO_ONE_TRIGGER(z8, Z8_NR_VARIANTS, z8_trigger);
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

/* p##_triggers and p##_trigger_lens for nr variants that all take the one
 * trigger input trig (a fixed variant must stay silent on the bug's own
 * schedule). */
#define WEFT_SCENARIO_ONE_TRIGGER(p, nr, trig)                                         \
	static const uint8_t *const p##_triggers[nr] = { [0 ...(nr)-1] = trig };        \
	static const size_t p##_trigger_lens[nr] = { [0 ...(nr)-1] = sizeof(trig) }

#endif
