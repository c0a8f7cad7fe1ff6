/*
 * test_memory.c - the memory subsystem (core/src/memory/): store buffering
 * (SB) is impossible under sc and found under tso by every searcher; a
 * full fence, an atomic RMW or a lock forbids it; a thread reads its own
 * buffered store (forwarding, CoWR); coherence of one location (CoRR);
 * a spin-wait on a buffered flag ends; replaying the recorded decisions
 * and delays gives the same trace. spin_unlock() is a release store (x86:
 * a mov): a store made under a lock of its own may still be buffered when
 * the thread's next load runs (SB), but one made under a lock the other
 * side takes is visible to it; a task switch on a CPU is a full barrier.
 * Every atomic operation changes memory under every model (V_XOR: xor,
 * which tso and lkmm once computed as "no change").
 */
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

enum { V_PLAIN, V_MB, V_RMW, V_LOCK, V_OWN, V_CORR, V_SPIN, V_PLAINACC, V_OWNLOCK,
       V_SHAREDLOCK, V_XOR, V__COUNT };

struct sb_world {
	long x, y;
	long r[2];
	long rr[2];
	spinlock_t lock;
	spinlock_t own[2];
	atomic_t a;
	unsigned long bits;
};

static unsigned variant;

static void sb_thread(void *w, unsigned tid)
{
	struct sb_world *W = w;
	long *mine = tid ? &W->y : &W->x, *other = tid ? &W->x : &W->y;

	switch (variant) {
	case V_PLAIN:
		WRITE_ONCE(*mine, 1);
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_PLAINACC:
		PLAIN_WRITE(*mine, 1);
		W->r[tid] = PLAIN_READ(*other);
		break;
	case V_MB:
		WRITE_ONCE(*mine, 1);
		smp_mb();
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_RMW:
		WRITE_ONCE(*mine, 1);
		atomic_inc(&W->a);
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_LOCK:
		WRITE_ONCE(*mine, 1);
		spin_lock(&W->lock);
		spin_unlock(&W->lock);
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_OWN:   /* CoWR: a thread reads its own latest store */
		WRITE_ONCE(*mine, 1);
		WRITE_ONCE(*mine, 2);
		W->r[tid] = READ_ONCE(*mine) == 2;
		break;
	case V_CORR:  /* T0 writes x twice; T1 must not read 2 then 1 */
		if (tid == 0) {
			WRITE_ONCE(W->x, 1);
			WRITE_ONCE(W->x, 2);
		} else {
			W->rr[0] = READ_ONCE(W->x);
			W->rr[1] = READ_ONCE(W->x);
		}
		break;
	case V_OWNLOCK:   /* a release does not drain: SB as V_PLAIN */
		spin_lock(&W->own[tid]);
		WRITE_ONCE(*mine, 1);
		spin_unlock(&W->own[tid]);
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_SHAREDLOCK:   /* the other side's lock sees the store */
		spin_lock(&W->lock);
		WRITE_ONCE(*mine, 1);
		spin_unlock(&W->lock);
		W->r[tid] = READ_ONCE(*other);
		break;
	case V_XOR:   /* each flips its own bit: both set in the end */
		change_bit(tid, &W->bits);
		break;
	case V_SPIN:  /* a waiter sees a buffered store in the end */
		if (tid == 0)
			WRITE_ONCE(W->x, 1);
		else
			while (!READ_ONCE(W->x))
				cpu_relax();
		break;
	}
}

static void sb_quiesce(void *w)
{
	struct sb_world *W = w;

	if (variant == V_OWN) {
		BUG_ON(!W->r[0] || !W->r[1]);
		return;
	}
	if (variant == V_CORR) {
		BUG_ON(W->rr[0] == 2 && W->rr[1] == 1);
		BUG_ON(weft_peek(W->x) != 2);   /* the last store wins (CoWW) */
		return;
	}
	if (variant == V_XOR) {
		BUG_ON(weft_peek(W->bits) != 3);
		return;
	}
	if (variant == V_SPIN)
		return;
	/* both loads read the initial value: store buffering */
	BUG_ON(W->r[0] == 0 && W->r[1] == 0);
}

WEFT_TEST_ONLY_VARIANT(sb, "sb");
static const struct weft_scenario sb = {
	.name = "sb", .summary = "store buffering", .source = "test", .nr_cpus = 2, .nr_threads = 2,
	.world_size = sizeof(struct sb_world), WEFT_TEST_NOP_OP, .decision_hint = 64,
	.thread = sb_thread, WEFT_TEST_VARIANTS(sb), .quiesce = sb_quiesce,
};

/* dfs (bound none, delay bound 2): bug found? complete when clean? */
static bool dfs_finds(enum weft_memory_model m, uint64_t *execs)
{
	static struct weft_dfs d;
	struct weft_run_opts o = { .sc = &sb, .memory = (uint8_t)m };
	struct weft_exec_result r;

	weft_dfs_init(&d, &sb, WEFT_BOUND_NONE, NULL, 0);
	*execs = 0;
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		(*execs)++;
		if (r.kind != WEFT_KIND_NONE)
			return true;
	}
	CHECK(d.complete, "dfs under %s did not complete", weft_memory_name(m));
	return false;
}

static uint64_t random_finds(enum weft_memory_model m, bool pct, uint64_t seed, uint64_t max)
{
	struct weft_random rs;
	struct weft_pct ps;
	struct weft_run_opts o = { .sc = &sb, .memory = (uint8_t)m };
	struct weft_exec_result r;

	weft_random_init(&rs, &sb, seed, NULL, 0);
	weft_pct_init(&ps, &sb, seed, 2, NULL, 0);
	for (uint64_t i = 1; i <= max; i++) {
		CHECK(weft_execute(&o, pct ? &weft_strategy_pct : &weft_strategy_random,
				   pct ? (void *)&ps : (void *)&rs, &r) == 0, "execute");
		if (r.kind != WEFT_KIND_NONE)
			return i;
	}
	return 0;
}

/* T0 and T2 share CPU0: T0 stores x and goes on; T2, switched in after
 * the store, loads y; T1 (CPU1) stores y, smp_mb(), loads x. */
struct sw_world {
	long x, y, dummy;
	long r1, r2;
	int t0_stored, t2_after;   /* oracle (not model state) */
};

static void sw_thread(void *w, unsigned tid)
{
	struct sw_world *W = w;

	if (tid == 0) {
		WRITE_ONCE(W->x, 1);
		__atomic_store_n(&W->t0_stored, 1, __ATOMIC_RELAXED);
		(void)READ_ONCE(W->dummy);
		(void)READ_ONCE(W->dummy);
	} else if (tid == 1) {
		WRITE_ONCE(W->y, 1);
		smp_mb();
		W->r1 = READ_ONCE(W->x);
	} else {
		W->t2_after = __atomic_load_n(&W->t0_stored, __ATOMIC_RELAXED);
		W->r2 = READ_ONCE(W->y);
	}
}

static void sw_quiesce(void *w)
{
	struct sw_world *W = w;

	BUG_ON(W->t2_after && !W->r1 && !W->r2);
}

static const uint8_t sw_cpus[3] = { 0, 1, 0 };
static const struct weft_scenario sw = {
	.name = "switch", .summary = "a task switch is a barrier", .source = "test", .nr_cpus = 2,
	.nr_threads = 3, .cpu_of = sw_cpus, .world_size = sizeof(struct sw_world),
	WEFT_TEST_NOP_OP, .decision_hint = 64, .thread = sw_thread, .quiesce = sw_quiesce,
	WEFT_TEST_VARIANTS(sb),
};

static bool switch_dfs_finds(enum weft_memory_model m)
{
	static struct weft_dfs d;
	struct weft_run_opts o = { .sc = &sw, .memory = (uint8_t)m };
	struct weft_exec_result r;
	uint64_t n = 0;

	weft_dfs_init(&d, &sw, WEFT_BOUND_NONE, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		n++;
		if (r.kind != WEFT_KIND_NONE)
			return true;
	}
	CHECK(d.complete, "switch dfs under %s did not complete", weft_memory_name(m));
	printf("switch: %s dfs clean, complete after %llu executions\n", weft_memory_name(m),
	       (unsigned long long)n);
	return false;
}

int main(void)
{
	uint64_t n;

	for (variant = V_PLAIN; variant < V__COUNT; variant++) {
		bool weak_bug = variant == V_PLAIN || variant == V_PLAINACC || variant == V_OWNLOCK;
		CHECK(!dfs_finds(WEFT_MEM_SC, &n), "variant %u: sc shows a weak outcome", variant);
		bool found = dfs_finds(WEFT_MEM_TSO, &n);
		CHECK(found == weak_bug, "variant %u: tso dfs %s", variant,
		      found ? "found a forbidden outcome" : "missed store buffering");
		printf("variant %u: tso dfs %s after %llu executions\n", variant,
		       found ? "found SB" : "clean, complete", (unsigned long long)n);
		if (variant == V_SPIN) {
			CHECK(random_finds(WEFT_MEM_TSO, false, 1, 2000) == 0, "spin: a report");
			continue;
		}
		for (uint64_t seed = 1; seed <= 5; seed++) {
			uint64_t a = random_finds(WEFT_MEM_TSO, false, seed, 10000);
			uint64_t b = random_finds(WEFT_MEM_TSO, true, seed, 10000);
			CHECK(weak_bug ? a && b : !a && !b, "variant %u seed %llu: random %llu pct %llu",
			      variant, (unsigned long long)seed, (unsigned long long)a,
			      (unsigned long long)b);
			CHECK(random_finds(WEFT_MEM_SC, false, seed, 2000) == 0, "sc random found SB");
		}
	}

	/* a task switch on CPU0 between T0's store and T2's load is a full
	 * barrier: with T1's smp_mb(), r1 = r2 = 0 is forbidden */
	CHECK(!switch_dfs_finds(WEFT_MEM_SC), "switch: sc");
	CHECK(!switch_dfs_finds(WEFT_MEM_TSO), "switch: tso shows SB across a task switch");

	/* replay: the recorded decisions and delays reproduce the trace */
	variant = V_PLAIN;
	struct weft_random rs;
	struct weft_run_opts o = { .sc = &sb, .memory = WEFT_MEM_TSO, .record = true };
	struct weft_exec_result r;
	weft_random_init(&rs, &sb, 7, NULL, 0);
	do
		CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "execute");
	while (r.kind == WEFT_KIND_NONE);
	size_t ny, nflush = 0, ne;
	const uint8_t *y = weft_last_delays(&ny);
	CHECK(weft_last_memory() == WEFT_MEM_TSO && ny == 2 && (y[0] || y[1]),
	      "the SB execution delayed no store");
	const struct weft_event *ev = weft_last_events(&ne);
	for (size_t i = 0; i < ne; i++)
		nflush += ev[i].ev == WEFT_EV_FLUSH;
	CHECK(nflush >= 1, "no flush event traced");
	char why[256];
	CHECK(weft_check_determinism(&o, &r, why, sizeof(why)) == 0, "%s", why);
	/* the same decisions without the delays, under sc: no bug */
	{
		size_t nd, nc, nw;
		const struct weft_decision_rec *d0 = weft_last_decisions(&nd);
		const uint32_t *c0 = weft_last_choices(&nc);
		const uint8_t *w0 = weft_last_workload(&nw);
		struct weft_decision_rec *d = malloc((nd + 1) * sizeof(*d));
		memcpy(d, d0, nd * sizeof(*d));
		uint8_t wl[WEFT_INPUT_MAX];
		memcpy(wl, w0, nw);
		struct weft_replay_strategy rp;
		weft_replay_strategy_init(&rp, wl, nw, d, nd, c0, nc);
		struct weft_run_opts so = { .sc = &sb };
		CHECK(weft_execute(&so, &weft_strategy_replay, &rp, &r) == 0, "execute");
		CHECK(r.kind == WEFT_KIND_NONE, "the SB schedule fails under sc");
		free(d);
	}
	return check_done();
}
