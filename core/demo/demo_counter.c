/*
 * demo_counter.c - the smallest race: a lost update on a shared counter.
 *
 * Each thread adds 1 + (its workload ops) to a counter. "racy" does it as a
 * plain load and store (two scheduling points: another CPU can slip in
 * between and its update is lost), "atomic" with atomic_inc, "locked" under
 * a spinlock. The quiescence audit checks the sum (lost-update). The racy
 * variant is also the TSan demo: its plain accesses are a data race.
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

enum { V_RACY, V_ATOMIC, V_LOCKED };

struct counter_world {
	unsigned variant;
	unsigned expected;
	unsigned nr_incs[WEFT_MAX_THREADS];
	unsigned long plain;
	atomic_t atomic;
	spinlock_t lock;
};

static void counter_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct counter_world *W = w;

	W->variant = variant;
	for (unsigned t = 0; t < 2; t++) {
		W->nr_incs[t] = 1 + wl->nr_ops[t];
		W->expected += W->nr_incs[t];
	}
}

static void counter_thread(void *w, unsigned tid)
{
	struct counter_world *W = w;

	for (unsigned i = 0; i < W->nr_incs[tid]; i++) {
		switch (W->variant) {
		case V_RACY: {
			unsigned long v = PLAIN_READ(W->plain);
			PLAIN_WRITE(W->plain, v + 1);
			break;
		}
		case V_ATOMIC:
			atomic_inc(&W->atomic);
			break;
		case V_LOCKED:
			spin_lock(&W->lock);
			PLAIN_WRITE(W->plain, PLAIN_READ(W->plain) + 1);
			spin_unlock(&W->lock);
			break;
		}
	}
}

static void counter_quiesce(void *w)
{
	struct counter_world *W = w;
	unsigned long got = W->variant == V_ATOMIC ? (unsigned long)weft_peek(W->atomic.counter)
						   : weft_peek(W->plain);

	WEFT_SCENARIO_CHECK_SUM(W->variant == V_ATOMIC ? (void *)&W->atomic : (void *)&W->plain, got,
				W->expected);
}

static const struct weft_field counter_fields[] = {
	WEFT_FIELD(struct counter_world, plain, "counter"),
	WEFT_FIELD(struct counter_world, atomic, "atomic counter"),
	WEFT_FIELD(struct counter_world, lock, "counter lock"),
	{ 0, NULL },
};

static const char *const counter_ops[] = { "inc" };
static const char *const counter_files[] = { "demo_counter.c", NULL };

static const struct weft_variant counter_variants[] = {
	{ "racy", NULL, true, "load; store: two CPUs can both read the old value",
	  "textbook lost update", WEFT_KIND_LOST_UPDATE, 1, V_RACY },
	{ "atomic", NULL, false, "atomic_inc", "textbook fix", WEFT_KIND_NONE, 0, V_ATOMIC },
	{ "locked", NULL, false, "load; store under a spinlock", "textbook fix", WEFT_KIND_NONE, 0,
	  V_LOCKED },
};

const struct weft_scenario weft_scn_demo_counter = {
	WEFT_SCENARIO_PLAIN("demo-counter", "demo: a lost update on a shared counter (2 CPUs)",
	                    "Weft demo; no kernel source",
	                    2, 2, sizeof(struct counter_world), 1, counter_ops, 8, 256,
	                    counter_files, counter_setup, counter_thread, counter_variants),
	.quiesce = counter_quiesce,
	.fields = counter_fields,
};
