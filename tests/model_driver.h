/*
 * model_driver.h - the tables of the model drivers' scenarios
 * (the tests/<family>/..._models.c files built by weft_model_driver()): one line a
 * variant and one macro a scenario, so that a driver's file reads as its
 * models. Other tests' scenarios take WEFT_TEST_HOOKS alone. A file defines
 * WEFT_TEST_SOURCE (the variants' source) and
 * WEFT_TEST_FILES (its source files, for sites) before using them; a model
 * file whose sites are all its own defines WEFT_TEST_FILE (its basename)
 * before including this header instead, and gets WEFT_TEST_FILES from it.
 */
#ifndef WEFT_TESTS_MODEL_DRIVER_H
#define WEFT_TESTS_MODEL_DRIVER_H

#include <weft/weft.h>

#ifdef WEFT_TEST_FILE
static const char *const weft_test_files[] = { WEFT_TEST_FILE, NULL };
#define WEFT_TEST_FILES weft_test_files
#endif

/* A fix (clean) and a bug (found with its own kind) of a scenario. */
#define WEFT_TEST_FIX(name, summary, id) \
	{ name, NULL, false, summary, WEFT_TEST_SOURCE, WEFT_KIND_NONE, 0, id }
#define WEFT_TEST_BUG(name, summary, kind, id) WEFT_TEST_BUG_AT(name, summary, kind, 0, id)
/* A bug whose minimal number of preemptions is known: min. */
#define WEFT_TEST_BUG_AT(name, summary, kind, min, id) \
	{ name, NULL, true, summary, WEFT_TEST_SOURCE, kind, min, id }

/* The site of a model's own report or poisoning (weft_report(), weft_poison()): it
 * expands where it is written, so the site keeps the caller's function. */
#define WEFT_TEST_NOTE_SITE(what) WEFT_SITE(WEFT_EV_NOTE, what)

/* A test's variant named after its case (its summary too), source "test":
 * a bug of kind, or a fix where kind is WEFT_KIND_NONE. */
#define WEFT_TEST_CASE(name, kind) \
	{ name, NULL, (kind) != WEFT_KIND_NONE, name, "test", kind, 0, 0 }

/* A scenario sym of the world type world_t, with prefix##_setup and
 * prefix##_thread, and the variant table prefix##_variants; further
 * designated fields (.memory, .irqs, .quiesce...) after. */
#define WEFT_TEST_SCENARIO(sym, name_, summary_, world_t, cpus, threads, hint, prefix, ...) \
	static const struct weft_scenario sym = {                                          \
		.name = name_,                                                             \
		.summary = summary_,                                                       \
		.source = WEFT_TEST_SOURCE,                                                \
		.nr_cpus = cpus,                                                           \
		.nr_threads = threads,                                                     \
		.world_size = sizeof(world_t),                                             \
		.decision_hint = hint,                                                     \
		.files = WEFT_TEST_FILES,                                                  \
		WEFT_TEST_HOOKS(prefix),                                                   \
		__VA_ARGS__                                                                \
	}

/* The fields of a scenario named after one prefix: prefix##_setup,
 * prefix##_thread and the whole table prefix##_variants. */
#define WEFT_TEST_HOOKS(prefix) \
	.setup = prefix##_setup, .thread = prefix##_thread, WEFT_TEST_VARIANTS(prefix)
#define WEFT_TEST_VARIANTS(prefix) \
	.variants = prefix##_variants,  \
	.nr_variants = sizeof(prefix##_variants) / sizeof(prefix##_variants[0])

/* The initializer of a scenario a test runs itself and never registers
 * (no summary, no source, no sites' files): world_t on cpus CPUs with
 * threads threads, one "nop" each (WEFT_TEST_NOP_OP), decision_hint
 * hint; further designated fields (WEFT_TEST_HOOKS(prefix), .cpu_of,
 * .irqs...) after. */
#define WEFT_TEST_UNLISTED(name_, world_t, cpus, threads, hint, ...)                 \
	{                                                                          \
		.name = name_, .summary = "", .source = "", .nr_cpus = cpus,       \
		.nr_threads = threads, .world_size = sizeof(world_t), WEFT_TEST_NOP_OP, \
		.decision_hint = hint, __VA_ARGS__                                 \
	}

/* The workload alphabet of a test scenario whose threads each run one
 * fixed body: the one opcode "nop", once a thread. */
static const char *const weft_test_nop_ops[] = { "nop" };
#define WEFT_TEST_NOP_OP .nr_opcodes = 1, .opnames = weft_test_nop_ops, .max_ops = 1

/* A test's one clean variant, "only" (prefix##_variants), described by
 * summary_; such a scenario takes WEFT_TEST_NOP_OP as its alphabet. */
#define WEFT_TEST_ONLY_VARIANT(prefix, summary_)                                 \
	static const struct weft_variant prefix##_variants[] = {                   \
		{ "only", NULL, false, summary_, "test", WEFT_KIND_NONE, 0, 0 },   \
	}

/* The setup of a world whose first field is `unsigned variant`: it
 * stores the variant, then runs the block after the macro with W, the
 * world (the workload is not used):
 *     WEFT_TEST_SETUP(rp, struct rp_world)
 *     {
 *             rwlock_init(&W->lock);
 *     }                                                                  */
#define WEFT_TEST_SETUP(prefix, world_t)                                                   \
	static void prefix##_init_world(world_t *W);                                             \
	static void prefix##_setup(void *w, unsigned variant, const struct weft_workload *wl) \
	{                                                                                  \
		(void)wl;                                                                  \
		((world_t *)w)->variant = variant;                                         \
		prefix##_init_world((world_t *)w);                                               \
	}                                                                                  \
	static void prefix##_init_world(world_t *W)

/* The setup of a world with nothing to set but its variant. */
#define WEFT_TEST_SETUP_VARIANT_ONLY(prefix, world_t)                                      \
	static void prefix##_setup(void *w, unsigned variant, const struct weft_workload *wl) \
	{                                                                                  \
		(void)wl;                                                                  \
		((world_t *)w)->variant = variant;                                         \
	}

/* The setup of a world with no variants and no workload to read: it runs
 * the block after the macro with W, the world (the block is the function
 * prefix##_init_world: a site inside it names that function):
 *     WEFT_TEST_SETUP_WORLD(xd, struct world)
 *     {
 *             xa_init(&W->xa);
 *     }                                                                  */
#define WEFT_TEST_SETUP_WORLD(prefix, world_t)                                             \
	static void prefix##_init_world(world_t *W);                                       \
	static void prefix##_setup(void *w, unsigned v, const struct weft_workload *wl)    \
	{                                                                                  \
		(void)v;                                                                   \
		(void)wl;                                                                  \
		prefix##_init_world((world_t *)w);                                         \
	}                                                                                  \
	static void prefix##_init_world(world_t *W)

#endif
