/*
 * demo_locks.c - lock demos: an ABBA deadlock, lock barging (where the
 * lock model changes the minimal preemption count), and a lost wakeup
 * that spins forever (livelock).
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

static const char *const locks_ops[] = { "nop" };
static const char *const locks_files[] = { "demo_locks.c", NULL };

/* Every world of this file starts with `unsigned variant`: setup stores the
 * variant there and has nothing else to set (the locks start zeroed). */
static void locks_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	*(unsigned *)w = variant;
	(void)wl;
}

/* What every scenario of this file shares: two CPUs, two threads each
 * running its one "nop" op once, a small decision budget, that setup, and
 * the world, thread and variants named after the prefix p; the name,
 * summary and source are the scenario's own. */
#define LOCKS_DEMO(p, name, summary, source)                                                  \
	WEFT_SCENARIO_PLAIN(name, summary, source, 2, 2, sizeof(struct p##_world), 1, locks_ops, 1, \
			    64, locks_files, locks_setup, p##_thread, p##_variants)

/* ------------------------------------------------------------- ABBA */

struct abba_world {
	unsigned variant;
	spinlock_t a, b;
	int x;
};

static void abba_thread(void *w, unsigned tid)
{
	struct abba_world *W = w;
	spinlock_t *first = &W->a, *second = &W->b;

	if (tid == 1 && W->variant == 0) {   /* "abba": the other order */
		first = &W->b;
		second = &W->a;
	}
	spin_lock(first);
	spin_lock(second);
	WRITE_ONCE(W->x, READ_ONCE(W->x) + 1);
	spin_unlock(second);
	spin_unlock(first);
}

static const struct weft_field abba_fields[] = {
	WEFT_FIELD(struct abba_world, a, "lock A"),
	WEFT_FIELD(struct abba_world, b, "lock B"),
	WEFT_FIELD(struct abba_world, x, "x"),
	{ 0, NULL },
};

static const struct weft_variant abba_variants[] = {
	{ "abba", NULL, true, "T0 takes A then B, T1 takes B then A", "textbook deadlock",
	  WEFT_KIND_DEADLOCK, 1, 0 },
	{ "ordered", NULL, false, "both take A then B", "textbook fix", WEFT_KIND_NONE, 0, 1 },
};

const struct weft_scenario weft_scn_demo_abba = {
	LOCKS_DEMO(abba, "demo-abba",
		   "demo: two locks taken in opposite orders (2 CPUs)",
		   "Weft demo; no kernel source"),
	.fields = abba_fields,
	/* the deadlock detector's demo: lockdep-lite would report the
	 * inversion at bound 0 before any deadlock (demo-lockdep shows that) */
	.checks_off = WEFT_CHECK_LOCKDEP,
};

/* ---------------------------------------------------------- barging */
/*
 * T0 runs two critical sections back to back (x = 1, then x = 2). T1
 * notes whether T0 was inside the first one when T1 went for the lock, and
 * expects FIFO service: a thread that queued during CS1 must see x == 1.
 * With the unfair test-and-set lock T0 re-takes the lock ahead of the
 * waiter ("barging"): one preemption. With the ticket lock the waiter is
 * served first, so T1 must also be delayed between its check and its
 * lock: two preemptions. The fixed variant checks under the lock.
 */
struct barge_world {
	unsigned variant;
	spinlock_t l;
	int in_cs1;
	int x;
};

static void barge_thread(void *w, unsigned tid)
{
	struct barge_world *W = w;

	if (tid == 0) {
		spin_lock(&W->l);
		WRITE_ONCE(W->in_cs1, 1);
		WRITE_ONCE(W->x, 1);
		WRITE_ONCE(W->in_cs1, 0);
		spin_unlock(&W->l);
		spin_lock(&W->l);
		WRITE_ONCE(W->x, 2);
		spin_unlock(&W->l);
		return;
	}
	int queued_in_cs1 = 0;
	if (W->variant == 0)
		queued_in_cs1 = READ_ONCE(W->in_cs1);
	spin_lock(&W->l);
	if (W->variant == 1)
		queued_in_cs1 = READ_ONCE(W->in_cs1);
	int v = READ_ONCE(W->x);
	spin_unlock(&W->l);
	if (queued_in_cs1 && v == 2)
		weft_report(WEFT_KIND_ASSERT, &W->x,
			    WEFT_SITE(WEFT_EV_NOTE, "FIFO: queued during CS1 => sees x == 1"),
			    "T1 queued during T0's first critical section but saw x == 2");
}

static const struct weft_field barge_fields[] = {
	WEFT_FIELD(struct barge_world, l, "lock"),
	WEFT_FIELD(struct barge_world, in_cs1, "in_cs1"),
	WEFT_FIELD(struct barge_world, x, "x"),
	{ 0, NULL },
};

static const struct weft_variant barge_variants[] = {
	{ "barging", NULL, true, "checks T0's state before queueing, expects FIFO",
	  "textbook unfair-lock assumption", WEFT_KIND_ASSERT, 1, 0 },
	{ "checked", NULL, false, "checks under the lock", "textbook fix", WEFT_KIND_NONE, 0, 1 },
};

const struct weft_scenario weft_scn_demo_barging = {
	LOCKS_DEMO(barge, "demo-barging",
		   "demo: a FIFO assumption that an unfair lock breaks with fewer preemptions",
		   "Weft demo; no kernel source"),
	.fields = barge_fields,
};

/* ------------------------------------------------------ lost wakeup */
/*
 * T0 waits (cpu_relax loop) for a flag T1 sets. The buggy variant sets it
 * only when T1 saw T0 waiting, which it may check too early: T0 then spins
 * alone forever (livelock). The fixed variant always sets it.
 */
struct spin_world {
	unsigned variant;
	int waiting;
	int flag;
};

static void spin_thread(void *w, unsigned tid)
{
	struct spin_world *W = w;

	if (tid == 0) {
		WRITE_ONCE(W->waiting, 1);
		while (!READ_ONCE(W->flag))
			cpu_relax();
		return;
	}
	if (W->variant == 1 || READ_ONCE(W->waiting))
		WRITE_ONCE(W->flag, 1);
}

static const struct weft_variant spin_variants[] = {
	{ "lost-wakeup", NULL, true, "the waker checks for a waiter too early",
	  "textbook lost wakeup", WEFT_KIND_LIVELOCK, 0, 0 },
	{ "always-wake", NULL, false, "the waker always sets the flag", "textbook fix",
	  WEFT_KIND_NONE, 0, 1 },
};

const struct weft_scenario weft_scn_demo_spin = {
	LOCKS_DEMO(spin, "demo-spin",
		   "demo: a lost wakeup leaves a waiter spinning (livelock)",
		   "Weft demo; no kernel source"),
	.step_budget = 20000,
};
