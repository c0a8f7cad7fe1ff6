/*
 * demo_por.c - the shapes that partial-order reduction is for (issue 13):
 * many threads whose work mostly commutes, with bugs that need 0, 1 and 2
 * preemptions. Plain dfs explores every order of the commuting work (and
 * every order in which the threads can finish); dfs with --por explores
 * one execution per Mazurkiewicz trace, or close to it under a bound.
 *
 *  demo-por-writers  two threads increment a shared counter (racy: load;
 *                    store), ten more each write a location of their own.
 *  demo-por-locks    8 threads, shared data under one lock or two.
 *  demo-por-rw       one writer publishes a record twice, three readers
 *                    check what they see.
 *
 * Every thread has a CPU of its own: partial-order reduction certifies
 * searches without contexts (threads sharing a CPU, interrupts).
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

static const char *const por_files[] = { "demo_por.c", NULL };
static const char *const por_ops[] = { "again" };

/* ------------------------------------------------------------ writers */

enum { WR_PAIR = 2, WR_THREADS = 12 };
enum { WR_RACY, WR_ATOMIC };

struct wr_world {
	unsigned variant;
	unsigned rounds[WR_THREADS];
	unsigned expected;
	long x[WR_THREADS];
	long counter;
	atomic_t acounter;
};

/* each op of a thread's workload is one more round of its work */
static void wr_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct wr_world *W = w;

	W->variant = variant;
	for (unsigned t = 0; t < WR_THREADS; t++)
		W->rounds[t] = 1 + wl->nr_ops[t];
	W->expected = W->rounds[0] + W->rounds[1];
}

static void wr_thread(void *w, unsigned tid)
{
	struct wr_world *W = w;

	for (unsigned i = 0; i < W->rounds[tid]; i++) {
		if (tid >= WR_PAIR) {
			WRITE_ONCE(W->x[tid], (long)i + 1);
		} else if (W->variant == WR_RACY) {
			long v = READ_ONCE(W->counter);
			WRITE_ONCE(W->counter, v + 1);
		} else {
			atomic_inc(&W->acounter);
		}
	}
}

static void wr_quiesce(void *w)
{
	struct wr_world *W = w;
	unsigned long got = W->variant == WR_RACY ? (unsigned long)weft_peek(W->counter)
						  : (unsigned long)weft_peek(W->acounter.counter);

	WEFT_SCENARIO_CHECK_SUM(W->variant == WR_RACY ? (void *)&W->counter : (void *)&W->acounter,
				got, W->expected);
}

static void wr_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off >= offsetof(struct wr_world, x) && off < offsetof(struct wr_world, counter))
		snprintf(buf, n, "x[%u]", (unsigned)((off - offsetof(struct wr_world, x)) / sizeof(long)));
	else if (off == offsetof(struct wr_world, counter))
		snprintf(buf, n, "counter");
	else if (off == offsetof(struct wr_world, acounter))
		snprintf(buf, n, "atomic counter");
}

static const struct weft_variant wr_variants[] = {
	{ "racy", NULL, true, "T0 and T1 increment the counter with a load and a store",
	  "textbook lost update among independent writers", WEFT_KIND_LOST_UPDATE, 1, WR_RACY },
	{ "atomic", NULL, false, "T0 and T1 use atomic_inc", "textbook fix", WEFT_KIND_NONE, 0,
	  WR_ATOMIC },
};

const struct weft_scenario weft_scn_demo_por_writers = {
	WEFT_SCENARIO_PLAIN("demo-por-writers",
	                    "demo: a racy pair and 10 independent writers (12 CPUs)",
	                    "Weft demo; no kernel source",
	                    WR_THREADS, WR_THREADS, sizeof(struct wr_world), 1, por_ops, 4, 256,
	                    por_files, wr_setup, wr_thread, wr_variants),
	.quiesce = wr_quiesce,
	.describe = wr_describe,
};

/* -------------------------------------------------------------- locks */
/*
 * 8 threads run critical sections. "one-lock": every thread adds to one
 * counter under one lock (8! orders of the critical sections, each a
 * different trace). "two-locks": threads 0-3 use lock A and counter A,
 * threads 4-7 lock B and counter B (4! x 4! traces). "split": as
 * two-locks, but the threads also keep a shared total, each under its own
 * group's lock: two locks for one datum, a lost update at 1 preemption.
 */
enum { LK_THREADS = 8 };
enum { LK_ONE, LK_TWO, LK_SPLIT };

struct lk_world {
	unsigned variant;
	unsigned rounds[LK_THREADS];
	unsigned expected;
	spinlock_t lock[2];
	long count[2];
	long total;
	long last[LK_THREADS];
};

static void lk_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct lk_world *W = w;

	W->variant = variant;
	for (unsigned t = 0; t < LK_THREADS; t++) {
		W->rounds[t] = 1 + wl->nr_ops[t];
		W->expected += W->rounds[t];
	}
}

static void lk_thread(void *w, unsigned tid)
{
	struct lk_world *W = w;
	unsigned g = W->variant == LK_ONE ? 0 : tid / (LK_THREADS / 2);

	for (unsigned i = 0; i < W->rounds[tid]; i++) {
		spin_lock(&W->lock[g]);
		long c = READ_ONCE(W->count[g]);
		WRITE_ONCE(W->count[g], c + 1);
		WRITE_ONCE(W->last[tid], c);
		if (W->variant == LK_SPLIT)
			WRITE_ONCE(W->total, READ_ONCE(W->total) + 1);
		spin_unlock(&W->lock[g]);
	}
}

static void lk_quiesce(void *w)
{
	struct lk_world *W = w;
	long sum = weft_peek(W->count[0]) + weft_peek(W->count[1]);

	if (sum != (long)W->expected)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->count[0],
			    WEFT_SITE(WEFT_EV_NOTE, "counters sum to the critical sections"),
			    "counters sum to %ld after %u critical sections", sum, W->expected);
	else if (W->variant == LK_SPLIT && weft_peek(W->total) != (long)W->expected)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->total,
			    WEFT_SITE(WEFT_EV_NOTE, "total == number of critical sections"),
			    "total is %ld after %u critical sections: %ld lost",
			    weft_peek(W->total), W->expected, (long)W->expected - weft_peek(W->total));
}

static void lk_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	for (unsigned g = 0; g < 2; g++) {
		if (off == offsetof(struct lk_world, lock) + g * sizeof(spinlock_t))
			snprintf(buf, n, "lock %c", 'A' + g);
		else if (off == offsetof(struct lk_world, count) + g * sizeof(long))
			snprintf(buf, n, "counter %c", 'A' + g);
	}
	if (off == offsetof(struct lk_world, total))
		snprintf(buf, n, "total");
	else if (off >= offsetof(struct lk_world, last) &&
		 off < offsetof(struct lk_world, last) + sizeof(((struct lk_world *)0)->last))
		snprintf(buf, n, "last[%u]",
			 (unsigned)((off - offsetof(struct lk_world, last)) / sizeof(long)));
}

static const struct weft_variant lk_variants[] = {
	{ "one-lock", NULL, false, "8 threads, one counter under one lock", "textbook", WEFT_KIND_NONE,
	  0, LK_ONE },
	{ "two-locks", NULL, false, "two groups of 4, a counter and a lock each", "textbook",
	  WEFT_KIND_NONE, 0, LK_TWO },
	{ "split", NULL, true, "two-locks plus one total kept under either lock",
	  "textbook: one datum, two locks", WEFT_KIND_LOST_UPDATE, 1, LK_SPLIT },
};

const struct weft_scenario weft_scn_demo_por_locks = {
	WEFT_SCENARIO_PLAIN("demo-por-locks",
	                    "demo: 8 threads, shared data under one lock or two (8 CPUs)",
	                    "Weft demo; no kernel source",
	                    LK_THREADS, LK_THREADS, sizeof(struct lk_world), 1, por_ops, 4, 256,
	                    por_files, lk_setup, lk_thread, lk_variants),
	.quiesce = lk_quiesce,
	.describe = lk_describe,
};

/* ---------------------------------------------------------- readers/writer */
/*
 * T0 publishes a record (a, b) in generations 1, 2, ...: a = g, then b = g
 * (b is the commit word). T1-T3 read it:
 *  "unchecked" reads a and b and uses them as published: a reader that
 *      starts first sees b == 0 (0 preemptions).
 *  "torn" reads b, and if a generation is published reads a and b again
 *      expecting a == b: T0 preempted between a = 2 and b = 2 (1).
 *  "ordered" checks only that b is not ahead of a ("a is written first"):
 *      true within a generation, false across two: the reader must read
 *      a = 1 while T0 sits between generations (T0 preempted) and b = 2
 *      after T0 moved on (the reader preempted): 2 preemptions.
 *  "locked" reads and writes under a spinlock.
 */
enum { RW_THREADS = 4 };
enum { RW_UNCHECKED, RW_TORN, RW_ORDERED, RW_LOCKED };

struct rw_world {
	unsigned variant;
	unsigned gens;
	spinlock_t lock;
	long a, b;
	long seen[RW_THREADS];
};

static void rw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct rw_world *W = w;

	W->variant = variant;
	W->gens = 2 + wl->nr_ops[0];
}

static void rw_thread(void *w, unsigned tid)
{
	struct rw_world *W = w;
	bool locked = W->variant == RW_LOCKED;

	if (tid == 0) {
		for (unsigned g = 1; g <= W->gens; g++) {
			if (locked)
				spin_lock(&W->lock);
			WRITE_ONCE(W->a, (long)g);
			WRITE_ONCE(W->b, (long)g);
			if (locked)
				spin_unlock(&W->lock);
		}
		return;
	}
	if (locked)
		spin_lock(&W->lock);
	long b0 = W->variant == RW_UNCHECKED ? 1 : READ_ONCE(W->b);
	long ra = 0, rb = 0;
	if (b0) {
		ra = READ_ONCE(W->a);
		rb = READ_ONCE(W->b);
	}
	if (locked)
		spin_unlock(&W->lock);
	if (!b0)
		return;         /* nothing published yet: nothing to check */
	WRITE_ONCE(W->seen[tid], rb);
	if (W->variant == RW_UNCHECKED && rb == 0)
		weft_report(WEFT_KIND_ASSERT, &W->b,
			    WEFT_SITE(WEFT_EV_NOTE, "readers start after the first publication"),
			    "T%u read the record before it was published (b == 0)", tid);
	else if ((W->variant == RW_TORN || W->variant == RW_LOCKED) && ra != rb)
		weft_report(WEFT_KIND_ASSERT, &W->a,
			    WEFT_SITE(WEFT_EV_NOTE, "a published record reads a == b"),
			    "T%u read a torn record: a == %ld, b == %ld", tid, ra, rb);
	else if (W->variant == RW_ORDERED && rb > ra)
		weft_report(WEFT_KIND_ASSERT, &W->b,
			    WEFT_SITE(WEFT_EV_NOTE, "a is written before b: b is never ahead"),
			    "T%u read b == %ld ahead of a == %ld (a from one generation, b from the next)",
			    tid, rb, ra);
}

static const struct weft_field rw_fields[] = {
	WEFT_FIELD(struct rw_world, lock, "record lock"),
	WEFT_FIELD(struct rw_world, a, "record.a"),
	WEFT_FIELD(struct rw_world, b, "record.b"),
	{ 0, NULL },
};

static void rw_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off >= offsetof(struct rw_world, seen))
		snprintf(buf, n, "seen[%u]",
			 (unsigned)((off - offsetof(struct rw_world, seen)) / sizeof(long)));
}

static const struct weft_variant rw_variants[] = {
	{ "unchecked", NULL, true, "readers use the record without checking it was published",
	  "textbook use before publication", WEFT_KIND_ASSERT, 0, RW_UNCHECKED },
	{ "torn", NULL, true, "lock-free readers expect a == b", "textbook torn read",
	  WEFT_KIND_ASSERT, 1, RW_TORN },
	{ "ordered", NULL, true, "lock-free readers expect b never ahead of a",
	  "ordering reasoning that holds for one update, not two", WEFT_KIND_ASSERT, 2, RW_ORDERED },
	{ "locked", NULL, false, "the writer and the readers take a spinlock", "textbook fix",
	  WEFT_KIND_NONE, 0, RW_LOCKED },
};

const struct weft_scenario weft_scn_demo_por_rw = {
	WEFT_SCENARIO_PLAIN("demo-por-rw",
	                    "demo: one writer, three readers: bugs at 0, 1 and 2 preemptions (4 CPUs)",
	                    "Weft demo; no kernel source",
	                    RW_THREADS, RW_THREADS, sizeof(struct rw_world), 1, por_ops, 2, 256,
	                    por_files, rw_setup, rw_thread, rw_variants),
	.describe = rw_describe,
	.fields = rw_fields,
};
