/*
 * verdict_models.c - small programs whose right verdict is known, for the
 * wrong verdicts of issue 18 (tests/verdicts/CMakeLists.txt runs them
 * through the weft command line of this program, bin/weft-verdicts):
 *
 *  verdict-cut      every execution ends at an assertion before the
 *                   deadlock behind it: no search may certify
 *                   "no deadlock" (--kind deadlock).
 *  verdict-spin     correct spin-waiting programs (a trylock loop, a
 *                   cmpxchg lock, a test-and-set bit lock, a flag poll, a
 *                   work-stealing queue) that fair scheduling must find
 *                   clean under every strategy; a flag published too early
 *                   and a real livelock that must still be found.
 *  verdict-threads  64 threads in one execution: main's 63 children, or
 *                   16 declared threads with 3 children each; children
 *                   of main each on a fake CPU of their own while CPUs
 *                   remain.
 *  verdict-leak     a model that keeps state in a static variable across
 *                   executions (a lazily filled table, say): its first
 *                   execution is shorter than the rest, so no later
 *                   execution ends inside a replayed prefix, yet the
 *                   prefix meets other decisions: dfs must not certify it.
 */
#include <weft/kernel.h>
#include <weft/pthread.h>
#define WEFT_TEST_SOURCE "tests/verdicts"
#include "../model_driver.h"

/* ------------------------------------------------------------ verdict-cut */

enum { C_CUT, C_UNCUT };

struct cut_world {
	unsigned variant;
	int a;                         /* never written: T0 always fails on it */
	struct weft_spinlock l;
};

WEFT_TEST_SETUP(cut, struct cut_world)
{
	spin_lock_init(&W->l);
}

static void cut_thread(void *w, unsigned tid)
{
	struct cut_world *W = w;

	if (tid == 0) {
		if (READ_ONCE(W->a) == 0 && W->variant == C_CUT)
			weft_report(WEFT_KIND_ASSERT, &W->a,
				    WEFT_SITE(WEFT_EV_NOTE, "WARN: a is still 0"),
				    "T0 always fails here, before T1's deadlock can show");
		return;
	}
	/* T1 deadlocks on itself once T0 has finished */
	spin_lock(&W->l);
	spin_lock(&W->l);
}

static const struct weft_variant cut_variants[] = {
	WEFT_TEST_BUG("cut",
	              "an assertion of T0 ends every execution before T1's deadlock",
	              WEFT_KIND_ASSERT, C_CUT),
	WEFT_TEST_BUG("uncut",
	              "T1 deadlocks on itself once T0 has finished",
	              WEFT_KIND_DEADLOCK, C_UNCUT),
};

static const char *const verdict_files[] = { "verdict_models.c", NULL };

static const struct weft_scenario verdict_cut = {
	.name = "verdict-cut", .summary = "test: a report of one kind hides a bug of another",
	.source = "tests/verdicts", .nr_cpus = 2, .nr_threads = 2,
	.world_size = sizeof(struct cut_world), .decision_hint = 64, .files = verdict_files,
	WEFT_TEST_HOOKS(cut),
};

/* ----------------------------------------------------------- verdict-spin */

enum { S_TRYLOCK, S_CAS_LOCK, S_TAS_BIT, S_FLAG, S_FLAG_EARLY, S_STEAL, S_LIVELOCK, S_NR };

#define NR_ITEMS 6

struct spin_world {
	unsigned variant;
	struct weft_spinlock l;
	atomic_t word;                 /* the cmpxchg lock: 0 free, 1 held */
	unsigned long bits;            /* the bit lock: bit 0 */
	int counter;                   /* under the lock, plain READ/WRITE_ONCE */
	int data, flag;                /* the hand-off */
	int f[2];                      /* the livelock's intents */
	/* the work-stealing queue: items [head, tail) under l */
	int items[NR_ITEMS];
	int head, tail;
	atomic_t done;                 /* items consumed, by anyone */
	int taken[NR_ITEMS];           /* each item consumed once */
};

WEFT_TEST_SETUP(spin, struct spin_world)
{
	spin_lock_init(&W->l);
}

static void lock_(struct spin_world *W)
{
	switch (W->variant) {
	case S_TRYLOCK: case S_STEAL:
		while (!spin_trylock(&W->l))
			;   /* no cpu_relax(): fairness must see the spin itself */
		break;
	case S_CAS_LOCK:
		while (atomic_cmpxchg(&W->word, 0, 1) != 0)
			;
		break;
	case S_TAS_BIT:
		while (test_and_set_bit(0, &W->bits))
			;
		break;
	}
}

static void unlock_(struct spin_world *W)
{
	switch (W->variant) {
	case S_TRYLOCK: case S_STEAL:
		spin_unlock(&W->l);
		break;
	case S_CAS_LOCK:
		atomic_set(&W->word, 0);
		break;
	case S_TAS_BIT:
		clear_bit(0, &W->bits);
		break;
	}
}

/* consume one item from the front (thieves) or the back (the owner) */
static bool take(struct spin_world *W, bool owner)
{
	int i = -1;

	lock_(W);
	int h = READ_ONCE(W->head), t = READ_ONCE(W->tail);
	if (h < t) {
		if (owner) {
			i = t - 1;
			WRITE_ONCE(W->tail, i);
		} else {
			i = h;
			WRITE_ONCE(W->head, h + 1);
		}
	}
	unlock_(W);
	if (i < 0)
		return false;
	if (READ_ONCE(W->taken[i]))
		weft_report(WEFT_KIND_ASSERT, &W->taken[i],
			    WEFT_SITE(WEFT_EV_NOTE, "BUG: item taken twice"), "item %d taken twice", i);
	WRITE_ONCE(W->taken[i], 1);
	atomic_inc(&W->done);
	return true;
}

static void spin_thread(void *w, unsigned tid)
{
	struct spin_world *W = w;

	switch (W->variant) {
	case S_TRYLOCK: case S_CAS_LOCK: case S_TAS_BIT:
		for (int k = 0; k < 2; k++) {
			lock_(W);
			int c = READ_ONCE(W->counter);
			WRITE_ONCE(W->counter, c + 1);
			unlock_(W);
		}
		break;
	case S_FLAG: case S_FLAG_EARLY:
		if (tid == 0) {
			if (W->variant == S_FLAG_EARLY)
				WRITE_ONCE(W->flag, 1);
			WRITE_ONCE(W->data, 42);
			WRITE_ONCE(W->flag, 1);
		} else {
			while (!READ_ONCE(W->flag))
				;
			if (READ_ONCE(W->data) != 42)
				weft_report(WEFT_KIND_ASSERT, &W->data,
					    WEFT_SITE(WEFT_EV_NOTE, "BUG: data read before it was set"),
					    "T%u saw the flag before the data", tid);
		}
		break;
	case S_STEAL:
		if (tid == 0) {
			/* the owner publishes every item, then works from the back */
			for (int k = 0; k < NR_ITEMS; k++) {
				lock_(W);
				WRITE_ONCE(W->items[k], k + 1);
				WRITE_ONCE(W->tail, k + 1);
				unlock_(W);
			}
			while (take(W, true))
				;
		} else {
			/* thieves steal until everything is consumed */
			while (atomic_read(&W->done) < NR_ITEMS)
				(void)take(W, false);
		}
		break;
	case S_LIVELOCK:
		/* each announces its intent, then waits for the other to drop
		 * its own: once both have announced, nobody ever moves */
		WRITE_ONCE(W->f[tid & 1], 1);
		while (READ_ONCE(W->f[!(tid & 1)]))
			;
		WRITE_ONCE(W->f[tid & 1], 0);
		break;
	}
}

static void spin_quiesce(void *w)
{
	struct spin_world *W = w;
	const struct weft_site *s = WEFT_SITE(WEFT_EV_NOTE, "audit: every increment counted");

	switch (W->variant) {
	case S_TRYLOCK: case S_CAS_LOCK: case S_TAS_BIT:
		if (weft_peek(W->counter) != 6)
			weft_report(WEFT_KIND_LOST_UPDATE, &W->counter, s,
				    "counter %d, not 6: the lock did not exclude", weft_peek(W->counter));
		break;
	case S_STEAL:
		if (weft_peek(W->done.counter) != NR_ITEMS)
			weft_report(WEFT_KIND_ASSERT, &W->done, s, "%d of %d items consumed",
				    weft_peek(W->done.counter), NR_ITEMS);
		break;
	}
}

static const struct weft_field spin_fields[] = {
	WEFT_FIELD(struct spin_world, l, "lock l"),
	WEFT_FIELD(struct spin_world, word, "lock word"),
	WEFT_FIELD(struct spin_world, bits, "bit lock"),
	WEFT_FIELD(struct spin_world, flag, "flag"),
	WEFT_FIELD(struct spin_world, f[0], "f[0]"),
	WEFT_FIELD(struct spin_world, f[1], "f[1]"),
	{ 0, NULL },
};

static const struct weft_variant spin_variants[] = {
	WEFT_TEST_FIX("trylock",
	              "3 threads, while (!spin_trylock()) ;, a counter under it", S_TRYLOCK),
	WEFT_TEST_FIX("cas-lock", "3 threads, while (atomic_cmpxchg(&w, 0, 1)) ;", S_CAS_LOCK),
	WEFT_TEST_FIX("tas-bit", "3 threads, while (test_and_set_bit(0, &b)) ;", S_TAS_BIT),
	WEFT_TEST_FIX("flag", "data, then the flag; two readers poll the flag", S_FLAG),
	WEFT_TEST_BUG_AT("flag-early",
	                 "the flag before the data: a reader sees no data",
	                 WEFT_KIND_ASSERT, 1, S_FLAG_EARLY),
	WEFT_TEST_FIX("steal",
	              "a work-stealing queue: owner and two thieves, trylock loops", S_STEAL),
	WEFT_TEST_BUG_AT("livelock",
	                 "both announce, then wait for the other to retract",
	                 WEFT_KIND_LIVELOCK, 1, S_LIVELOCK),
};

static const struct weft_scenario verdict_spin = {
	.name = "verdict-spin", .summary = "test: spin-waiting programs under fair scheduling",
	.source = "tests/verdicts", .nr_cpus = 3, .nr_threads = 3,
	.world_size = sizeof(struct spin_world), .decision_hint = 1024, .step_budget = 20000,
	.files = verdict_files, WEFT_TEST_HOOKS(spin), .quiesce = spin_quiesce,
	.fields = spin_fields,
};

/* -------------------------------------------------------- verdict-threads */

enum { T_DECLARED, T_SPAWNED, T_CPUS, T_PERCPU };

#define NR_DECLARED WEFT_MAX_THREADS
#define NR_GRANDCHILDREN 3   /* of each declared thread */

struct threads_world {
	unsigned variant;
	atomic_t count;
	int go;
	int cpu_of[WEFT_EXEC_MAX_THREADS];  /* 1 + the CPU each thread ran on */
	int tids[WEFT_EXEC_MAX_THREADS];
	WEFT_PER_CPU(long, pc);          /* WEFT_MAX_CPUS entries */
	int after_pc;                    /* a field a slot past pc's end would hit */
};

static void threads_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct threads_world *W = w;

	(void)wl;
	W->variant = variant == 0 ? T_SPAWNED : T_CPUS;
}

static void threads64_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct threads_world *W = w;

	(void)wl;
	W->variant = variant == 0 ? T_DECLARED : T_PERCPU;
}

static void child(void *w, void *arg)
{
	struct threads_world *W = w;
	unsigned me = (unsigned)(uintptr_t)arg;

	WRITE_ONCE(W->cpu_of[me], (int)raw_smp_processor_id() + 1);
	if (W->variant == T_PERCPU)   /* CPUs 16.. have no slot: reported */
		this_cpu_inc(W->pc);
	if (W->variant == T_CPUS)   /* alive until every sibling started */
		while (!READ_ONCE(W->go))
			cpu_relax();
	atomic_inc(&W->count);
}

static unsigned nr_children(const struct threads_world *W)
{
	return W->variant == T_SPAWNED ? WEFT_EXEC_MAX_THREADS - 1 : 3;
}

static void threads_thread(void *w, unsigned tid)
{
	struct threads_world *W = w;

	if (W->variant == T_DECLARED || W->variant == T_PERCPU) {
		/* each declared thread counts itself and starts 3 children:
		 * 16 + 48 = 64 threads */
		int kids[NR_GRANDCHILDREN];
		atomic_inc(&W->count);
		for (unsigned i = 0; i < NR_GRANDCHILDREN; i++)
			weft_pthread_create(&kids[i], NULL, child,
					    (void *)(uintptr_t)(NR_DECLARED + tid * NR_GRANDCHILDREN + i));
		for (unsigned i = 0; i < NR_GRANDCHILDREN; i++)
			weft_pthread_join(kids[i], NULL);
		return;
	}
	/* main: start the children, join them all */
	unsigned n = nr_children(W);
	for (unsigned i = 0; i < n; i++)
		weft_pthread_create(&W->tids[i], NULL, child, (void *)(uintptr_t)(i + 1));
	WRITE_ONCE(W->go, 1);
	for (unsigned i = 0; i < n; i++)
		weft_pthread_join(W->tids[i], NULL);
}

static void threads_quiesce(void *w)
{
	struct threads_world *W = w;
	const struct weft_site *s = WEFT_SITE(WEFT_EV_NOTE, "audit: every thread ran");
	unsigned want = W->variant == T_DECLARED || W->variant == T_PERCPU
				? NR_DECLARED * (1 + NR_GRANDCHILDREN) : nr_children(W);

	if ((unsigned)weft_peek(W->count.counter) != want)
		weft_report(WEFT_KIND_ASSERT, &W->count, s, "%d of %u threads ran",
			    weft_peek(W->count.counter), want);
	if (W->variant == T_CPUS)   /* 4 CPUs: main on CPU0, a child on each other */
		for (unsigned i = 1; i <= 3; i++)
			if (weft_peek(W->cpu_of[i]) != (int)i + 1)
				weft_report(WEFT_KIND_ASSERT, &W->cpu_of[i], s,
					    "child %u ran on CPU%d, not CPU%u", i,
					    weft_peek(W->cpu_of[i]) - 1, i);
}

static const struct weft_variant threads_variants[] = {
	WEFT_TEST_FIX("spawned", "main creates and joins 63 threads", T_SPAWNED),
	WEFT_TEST_FIX("cpus", "main creates 3 threads on 4 CPUs: each on a CPU of its own", T_CPUS),
};

static const struct weft_scenario verdict_threads = {
	.name = "verdict-threads", .summary = "test: 64 threads, spawned by main",
	.source = "tests/verdicts", .nr_cpus = 4, .nr_threads = 1,
	.world_size = sizeof(struct threads_world), .decision_hint = 4096, .files = verdict_files,
	WEFT_TEST_HOOKS(threads), .quiesce = threads_quiesce,
};

static const struct weft_variant threads64_variants[] = {
	WEFT_TEST_FIX("declared",
	              "16 declared threads, 3 children each: 64 threads on 64 CPUs", T_DECLARED),
	WEFT_TEST_BUG("percpu",
	              "the same, each bumping a WEFT_PER_CPU counter: 16 slots",
	              WEFT_KIND_ASSERT, T_PERCPU),
};

/* 16 declared threads whose children fill 64 CPUs */
static const struct weft_scenario verdict_threads64 = {
	.name = "verdict-threads64",
	.summary = "test: 16 declared threads and their 48 children on 64 CPUs",
	.source = "tests/verdicts", .nr_cpus = WEFT_EXEC_MAX_CPUS, .nr_threads = NR_DECLARED,
	.world_size = sizeof(struct threads_world), .decision_hint = 4096, .files = verdict_files,
	.setup = threads64_setup, .thread = threads_thread, .quiesce = threads_quiesce,
	WEFT_TEST_VARIANTS(threads64),
};

/* ----------------------------------------------------------- verdict-leak */

enum { L_SHARED, L_PRIVATE };

struct leak_world {
	unsigned variant;
	int x;
	int own[3];
};

/* Host state the model forgets to reset: how many executions have set up.
 * (The bug under test is the model's; Weft must notice it, not certify.) */
static unsigned leak_setups;

WEFT_TEST_SETUP(leak, struct leak_world)
{
	leak_setups++;
}

/* T0 writes twice in the first execution, three times in every later one;
 * T1 and T2 write twice: from the second execution on, a prefix recorded
 * in the first meets a runnable set with T0 in it where T0 had ended. */
static void leak_thread(void *w, unsigned tid)
{
	struct leak_world *W = w;
	unsigned n = tid == 0 && leak_setups > 1 ? 3 : 2;

	for (unsigned i = 0; i < n; i++) {
		if (W->variant == L_SHARED)
			WRITE_ONCE(W->x, (int)(tid * 4 + i));
		else
			WRITE_ONCE(W->own[tid], (int)i);
	}
}

static const struct weft_variant leak_variants[] = {
	WEFT_TEST_BUG("leak",
	              "T0's length depends on a static counter the model never resets",
	              WEFT_KIND_NONE, L_SHARED),
	WEFT_TEST_BUG("private",
	              "the same, each thread writing a word of its own: one trace",
	              WEFT_KIND_NONE, L_PRIVATE),
};

static const struct weft_scenario verdict_leak = {
	.name = "verdict-leak",
	.summary = "test: a model whose executions depend on host state kept across them",
	.source = "tests/verdicts", .nr_cpus = 3, .nr_threads = 3,
	.world_size = sizeof(struct leak_world), .decision_hint = 64, .files = verdict_files,
	WEFT_TEST_HOOKS(leak),
};

WEFT_DEFINE_REGISTRY(&verdict_cut, &verdict_spin, &verdict_threads, &verdict_threads64,
		     &verdict_leak);
