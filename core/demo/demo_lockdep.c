/*
 * demo_lockdep.c - demos of lockdep-lite (core/src/primitives/lockdep.c): lock bugs
 * reported from an execution that takes the locks, with no lucky schedule.
 *
 * demo-lockdep (2 CPUs, T0 and T1):
 *   abba        T0 takes A then B, T1 takes B then A: the serial execution
 *               (bound 0) already has both orders: lock-order-inversion,
 *               where the deadlock detector needs one preemption
 *               (demo-abba, which opts out of lockdep, shows that).
 *   ordered     both take A then B (silent).
 *   double-unlock  T0 releases A twice: bad-unlock.
 *   error-path  T0 returns early on an error path still holding A:
 *               lock-held-at-exit (without lockdep, T1 would hang on A).
 *   fixed-error-path  the error path unlocks (silent).
 *
 * demo-lockdep-split (1 CPU, T0, one workload op per execution):
 *   op "ab" takes A then B, op "ba" B then A. No single execution holds
 *   both orders; the lock-order graph persists across the executions of a
 *   run, so a run that meets both reports the inversion in the second one,
 *   and its replay file carries the first one's edge as a witness.
 *   split       the ops as above (bug, found across executions).
 *   ordered     "ba" takes A then B too (silent).
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

static const char *const ld_files[] = { "demo_lockdep.c", NULL };

struct ld_world {
	unsigned variant;
	spinlock_t a, b;
	int x;
	struct weft_op op;   /* demo-lockdep-split: T0's one op */
	unsigned nr_ops;
};

enum { LD_ABBA, LD_ORDERED, LD_DOUBLE_UNLOCK, LD_ERROR_PATH, LD_FIXED_ERROR_PATH };

static void ld_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct ld_world *W = w;

	W->variant = variant;
	W->nr_ops = wl->nr_ops[0];
	if (W->nr_ops)
		W->op = wl->ops[0][0];
}

static void take_both(struct ld_world *W, spinlock_t *first, spinlock_t *second)
{
	spin_lock(first);
	spin_lock(second);
	WRITE_ONCE(W->x, READ_ONCE(W->x) + 1);
	spin_unlock(second);
	spin_unlock(first);
}

static void ld_thread(void *w, unsigned tid)
{
	struct ld_world *W = w;

	switch (W->variant) {
	case LD_ABBA:
		if (tid == 0)
			take_both(W, &W->a, &W->b);
		else
			take_both(W, &W->b, &W->a);
		break;
	case LD_ORDERED:
		take_both(W, &W->a, &W->b);
		break;
	case LD_DOUBLE_UNLOCK:
		if (tid == 0) {
			spin_lock(&W->a);
			WRITE_ONCE(W->x, 1);
			spin_unlock(&W->a);
			spin_unlock(&W->a);
		}
		break;
	case LD_ERROR_PATH:
	case LD_FIXED_ERROR_PATH:
		spin_lock(&W->a);
		if (READ_ONCE(W->x) == 0) {   /* T0 finds the error first */
			WRITE_ONCE(W->x, 1);
			if (W->variant == LD_FIXED_ERROR_PATH)
				spin_unlock(&W->a);
			return;   /* the error path */
		}
		WRITE_ONCE(W->x, READ_ONCE(W->x) + 1);
		spin_unlock(&W->a);
		break;
	}
}

static const struct weft_field ld_fields[] = {
	WEFT_FIELD(struct ld_world, a, "lock A"),
	WEFT_FIELD(struct ld_world, b, "lock B"),
	WEFT_FIELD(struct ld_world, x, "x"),
	{ 0, NULL },
};

static const char *const ld_ops[] = { "nop" };

static const struct weft_variant ld_variants[] = {
	{ "abba", NULL, true, "T0 takes A then B, T1 B then A: found without a deadlock",
	  "kernel/locking/lockdep.c, check_noncircular()", WEFT_KIND_LOCK_ORDER, 0, LD_ABBA },
	{ "ordered", NULL, false, "both take A then B", "textbook fix", WEFT_KIND_NONE, 0,
	  LD_ORDERED },
	{ "double-unlock", NULL, true, "T0 releases A twice", "lockdep: bad unlock balance",
	  WEFT_KIND_BAD_UNLOCK, 0, LD_DOUBLE_UNLOCK },
	{ "error-path", NULL, true, "an error path returns holding A",
	  "lockdep: lock held when returning to user space", WEFT_KIND_LOCK_HELD_AT_EXIT, 0,
	  LD_ERROR_PATH },
	{ "fixed-error-path", NULL, false, "the error path unlocks", "textbook fix",
	  WEFT_KIND_NONE, 0, LD_FIXED_ERROR_PATH },
};

const struct weft_scenario weft_scn_demo_lockdep = {
	WEFT_SCENARIO_PLAIN("demo-lockdep",
	                    "demo: lock bugs lockdep-lite reports without a deadlock (2 CPUs)",
	                    "Weft demo; kernel/locking/lockdep.c",
	                    2, 2, sizeof(struct ld_world), 1, ld_ops, 1, 64,
	                    ld_files, ld_setup, ld_thread, ld_variants),
	.fields = ld_fields,
};

/* ------------------------------------------------- demo-lockdep-split */

enum { SPLIT_AB, SPLIT_BA };

static void split_thread(void *w, unsigned tid)
{
	struct ld_world *W = w;

	(void)tid;
	if (!W->nr_ops)
		return;
	if (W->op.code == SPLIT_BA && W->variant == 0)
		take_both(W, &W->b, &W->a);
	else
		take_both(W, &W->a, &W->b);
}

static const char *const split_ops[] = { "ab", "ba" };

/* dfs runs one workload: the "ba" op alone (the "ab" edge must come from
 * another execution, so dfs alone finds nothing; random meets both) */
static const uint8_t split_ba[] = { 1, 0x01, 0 };
static const uint8_t *const split_triggers[] = { split_ba, NULL };
static const size_t split_trigger_lens[] = { sizeof(split_ba), 0 };

static const struct weft_variant split_variants[] = {
	{ "split", NULL, true, "one op takes A then B, another B then A, never in one execution",
	  "kernel/locking/lockdep.c: the graph outlives each path", WEFT_KIND_LOCK_ORDER, 0, 0 },
	{ "ordered", NULL, false, "both ops take A then B", "textbook fix", WEFT_KIND_NONE, 0, 1 },
};

const struct weft_scenario weft_scn_demo_lockdep_split = {
	WEFT_SCENARIO_PLAIN("demo-lockdep-split",
	                    "demo: a lock-order inversion only visible across executions (1 CPU)",
	                    "Weft demo; kernel/locking/lockdep.c",
	                    1, 1, sizeof(struct ld_world), 2, split_ops, 1, 64,
	                    ld_files, ld_setup, split_thread, split_variants),
	.fields = ld_fields,
	.triggers = split_triggers,
	.trigger_lens = split_trigger_lens,
};
