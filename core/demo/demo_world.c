/*
 * demo_world.c - model defects that leave the world: a racy value used as
 * an index, an unsigned index that wrapped, a host global.
 *
 * A free-slot stack: slots[] holds free slot numbers, nr_free counts them.
 * Each thread pops (1 + its workload ops) slots and records what it got.
 *
 *   "racy-pop" (buggy): if (atomic_read(&nr_free) > 0) {
 *                           n = atomic_dec_return(&nr_free);
 *                           slot = READ_ONCE(slots[n]);
 *                           WRITE_ONCE(slots[n], NO_SLOT); }
 *     With one free slot, both CPUs see nr_free == 1; the first takes
 *     slots[0], the second decrements to -1 and reads slots[-1]: just
 *     before the world (slots[] is its first field). One preemption.
 *   "unsigned-pop" (buggy): the same check with an unsigned index: the
 *     second pop reads slots[0xffffffff], 16 GiB past the world.
 *   "host-stat" (buggy): correct pops, but the model counts them in a
 *     static host variable: out of the world at the first count, serially.
 *   "locked-pop" (fixed): check and pop under the stack's lock.
 *
 * Every buggy variant is an out-of-world report at the access, naming the
 * address relative to the world; the host's memory is never touched. The
 * quiescence audit
 * checks that no slot was handed out twice and nr_free never went negative.
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

enum { V_RACY_POP, V_UNSIGNED_POP, V_HOST_STAT, V_LOCKED_POP };

#define NR_SLOTS 4
#define NO_SLOT 0xffu

struct stack_world {
	uint32_t slots[NR_SLOTS];   /* first: slots[-1] is just before the world */
	atomic_t nr_free;
	spinlock_t lock;
	unsigned variant;
	unsigned nr_pops[2];
	uint32_t got[2][3];      /* 1 + max_ops pops each */
};

/* what host-stat counts in the wrong place */
static atomic_t nr_pops_total;

static void stack_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct stack_world *W = w;

	W->variant = variant;
	for (unsigned t = 0; t < 2; t++)
		W->nr_pops[t] = 1 + wl->nr_ops[t];
	spin_lock_init(&W->lock);
	/* one free slot: slot 3 */
	WRITE_ONCE(W->slots[0], 3);
	atomic_set(&W->nr_free, 1);
}

static uint32_t pop(struct stack_world *W)
{
	uint32_t slot = NO_SLOT;

	switch (W->variant) {
	case V_RACY_POP:
	case V_HOST_STAT:
		if (atomic_read(&W->nr_free) > 0) {
			int n = atomic_dec_return(&W->nr_free);
			slot = READ_ONCE(W->slots[n]);
			WRITE_ONCE(W->slots[n], NO_SLOT);
			if (W->variant == V_HOST_STAT)
				atomic_inc(&nr_pops_total);
		}
		break;
	case V_UNSIGNED_POP:
		if (atomic_read(&W->nr_free) > 0) {
			unsigned n = (unsigned)atomic_dec_return(&W->nr_free);
			slot = READ_ONCE(W->slots[n]);
			WRITE_ONCE(W->slots[n], NO_SLOT);
		}
		break;
	case V_LOCKED_POP:
		spin_lock(&W->lock);
		if (atomic_read(&W->nr_free) > 0) {
			int n = atomic_dec_return(&W->nr_free);
			slot = READ_ONCE(W->slots[n]);
			WRITE_ONCE(W->slots[n], NO_SLOT);
		}
		spin_unlock(&W->lock);
		break;
	}
	return slot;
}

static void stack_thread(void *w, unsigned tid)
{
	struct stack_world *W = w;

	for (unsigned i = 0; i < W->nr_pops[tid]; i++)
		WRITE_ONCE(W->got[tid][i], pop(W));
}

static void stack_quiesce(void *w)
{
	struct stack_world *W = w;
	unsigned handed = 0;

	for (unsigned t = 0; t < 2; t++)
		for (unsigned i = 0; i < W->nr_pops[t]; i++)
			handed += weft_peek(W->got[t][i]) != NO_SLOT;
	if (handed > 1 || weft_peek(W->nr_free.counter) < 0)
		weft_report(WEFT_KIND_ASSERT, &W->nr_free,
			    WEFT_SITE(WEFT_EV_NOTE, "one free slot, handed out once"),
			    "%u pops got the one free slot; nr_free is %d", handed,
			    weft_peek(W->nr_free.counter));
}

static void stack_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off < sizeof(((struct stack_world *)0)->slots))
		snprintf(buf, n, "slots[%u]", off / 4);
	else if (off == offsetof(struct stack_world, nr_free))
		snprintf(buf, n, "nr_free");
	else if (off >= offsetof(struct stack_world, lock) &&
		 off < offsetof(struct stack_world, lock) + sizeof(spinlock_t))
		snprintf(buf, n, "stack lock");
	else if (off >= offsetof(struct stack_world, got))
		snprintf(buf, n, "T%u's slot %u",
			 (unsigned)((off - offsetof(struct stack_world, got)) /
				    sizeof(((struct stack_world *)0)->got[0])),
			 (unsigned)((off - offsetof(struct stack_world, got)) %
				    sizeof(((struct stack_world *)0)->got[0]) / 4));
}

static const char *const stack_ops[] = { "pop" };
/* the empty workload (one pop each) is enough for every buggy variant */
static const uint8_t stack_trigger[] = { 0 };
WEFT_SCENARIO_TRIGGERS(stack, 4, stack_trigger, stack_trigger, stack_trigger);
static const char *const stack_files[] = { "demo_world.c", NULL };

static const struct weft_variant stack_variants[] = {
	{ "racy-pop", NULL, true, "atomic_read() > 0, then atomic_dec_return() as an index: -1",
	  "Weft demo", WEFT_KIND_OUT_OF_WORLD, 1, V_RACY_POP },
	{ "unsigned-pop", NULL, true, "the same check with an unsigned index: 0xffffffff",
	  "Weft demo", WEFT_KIND_OUT_OF_WORLD, 1, V_UNSIGNED_POP },
	{ "host-stat", NULL, true, "pops counted in a static host variable, not in the world",
	  "Weft demo", WEFT_KIND_OUT_OF_WORLD, 0, V_HOST_STAT },
	{ "locked-pop", NULL, false, "check and pop under the stack's lock", "Weft demo",
	  WEFT_KIND_NONE, 0, V_LOCKED_POP },
};

const struct weft_scenario weft_scn_demo_stack_index = {
	WEFT_SCENARIO_PLAIN("demo-stack-index",
	                    "demo: a racy value used as an index leaves the world (2 CPUs)",
	                    "Weft demo; no kernel source",
	                    2, 2, sizeof(struct stack_world), 1, stack_ops, 2, 64,
	                    stack_files, stack_setup, stack_thread, stack_variants),
	.quiesce = stack_quiesce,
	.describe = stack_describe,
	.triggers = stack_triggers,
	.trigger_lens = stack_trigger_lens,
};
