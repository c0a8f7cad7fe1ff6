/*
 * test_machine.c - the machine itself: context switches keep registers,
 * deep recursion and many fibers work, dfs enumerates exactly the
 * closed-form number of interleavings and respects its bound, stack
 * overflow and use-after-free are reports, traces are deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

/* ------------------------------------------------------ a toy for dfs */
/* 2 threads x 3 independent operations: C(6,3) = 20 interleavings. */

struct toy_world {
	int x[2][3];
};

static uint8_t toy_order[64][6];     /* op sequence (thread ids) of each run */
static unsigned toy_nr_runs;
static uint8_t toy_cur[6];
static unsigned toy_pos;

static void toy_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	(void)w; (void)v; (void)wl;
	toy_pos = 0;
}

static void toy_thread(void *w, unsigned tid)
{
	struct toy_world *W = w;

	for (int i = 0; i < 3; i++) {
		WRITE_ONCE(W->x[tid][i], 1);
		if (toy_pos < 6)
			toy_cur[toy_pos++] = (uint8_t)tid;   /* test bookkeeping only */
	}
}

static void toy_quiesce(void *w)
{
	(void)w;
	if (toy_nr_runs < 64)
		memcpy(toy_order[toy_nr_runs], toy_cur, 6);
	toy_nr_runs++;
}

WEFT_TEST_ONLY_VARIANT(toy, "toy");
static const struct weft_scenario toy = {
	.name = "toy", .summary = "toy", .source = "test", .nr_cpus = 2, .nr_threads = 2,
	.world_size = sizeof(struct toy_world), WEFT_TEST_NOP_OP, .decision_hint = 64,
	WEFT_TEST_HOOKS(toy), .quiesce = toy_quiesce,
};

/* preemptions of an op sequence: switches away from a thread with ops left */
static unsigned seq_preemptions(const uint8_t *s)
{
	unsigned left[2] = { 3, 3 }, p = 0;

	for (int i = 0; i < 6; i++) {
		if (i > 0 && s[i] != s[i - 1] && left[s[i - 1]] > 0)
			p++;
		left[s[i]]--;
	}
	return p;
}

static unsigned seq_code(const uint8_t *s)
{
	unsigned c = 0;

	for (int i = 0; i < 6; i++)
		c = c << 1 | s[i];
	return c;
}

static void test_dfs_toy(void)
{
	/* all 20 sequences and their preemption counts, enumerated by hand */
	unsigned expected_by_bound[5] = { 0 };
	for (unsigned c = 0; c < 64; c++) {
		uint8_t s[6];
		unsigned ones = 0;
		for (int i = 0; i < 6; i++) {
			s[i] = (uint8_t)(c >> (5 - i) & 1);
			ones += s[i];
		}
		if (ones != 3)
			continue;
		for (unsigned k = 0; k < 5; k++)
			if (seq_preemptions(s) <= k)
				expected_by_bound[k]++;
	}
	CHECK(expected_by_bound[4] == 20, "closed form: %u", expected_by_bound[4]);

	for (unsigned bound = 0; bound <= 4; bound++) {
		struct weft_dfs *d = calloc(1, sizeof(*d));
		struct weft_run_opts o = { .sc = &toy, .lock = WEFT_LOCK_TAS };
		struct weft_exec_result r;
		toy_nr_runs = 0;
		weft_dfs_init(d, &toy, bound == 4 ? UINT32_MAX : bound, NULL, 0);
		while (weft_execute(&o, &weft_strategy_dfs, d, &r) == 0)
			CHECK(r.kind == WEFT_KIND_NONE, "toy reported %d", r.kind);
		CHECK(d->complete, "dfs bound %u not complete", bound);
		CHECK(toy_nr_runs == expected_by_bound[bound],
		      "bound %u: %u executions, expected %u", bound, toy_nr_runs,
		      expected_by_bound[bound]);
		/* exactly the schedules with <= bound preemptions, each once */
		uint64_t seen = 0;
		for (unsigned i = 0; i < toy_nr_runs && i < 64; i++) {
			unsigned code = seq_code(toy_order[i]);
			CHECK(!(seen >> code & 1), "bound %u: schedule %02x visited twice", bound,
			      code);
			seen |= 1ull << code;
			CHECK(seq_preemptions(toy_order[i]) <= bound,
			      "bound %u: schedule with %u preemptions", bound,
			      seq_preemptions(toy_order[i]));
		}
		free(d);
	}
}

/* ------------------------------------------ registers, recursion, fibers */

struct reg_world {
	atomic_t a;
	unsigned long sum[WEFT_MAX_THREADS];
};

#if defined(__x86_64__) || defined(__aarch64__)
void weft_test_regs(void (*fn)(void *), void *arg, const uint64_t in[6], uint64_t out[6]);

static void two_points(void *a)
{
	atomic_inc((atomic_t *)a);
	atomic_inc((atomic_t *)a);
}

static unsigned reg_failures;

/* Callee-saved registers survive scheduling points that switch fibers. */
static void regs_survive_switch(atomic_t *a, unsigned tid)
{
	uint64_t in[6], out[6];

	for (int i = 0; i < 6; i++)
		in[i] = 0x0101010101010101ull * (uint64_t)(i + 1) ^ (uint64_t)tid << 40;
	weft_test_regs(two_points, a, in, out);
	for (int i = 0; i < 6; i++)
		if (in[i] != out[i])
			reg_failures++;
}
#endif

static unsigned long deep(atomic_t *a, unsigned n)
{
	volatile char pad[96];

	pad[0] = (char)n;
	if (n == 0) {
		atomic_inc(a);
		return pad[0];
	}
	return deep(a, n - 1) + (unsigned long)pad[0] + n;
}

static unsigned reg_mode;

static void reg_thread(void *w, unsigned tid)
{
	struct reg_world *W = w;
	/* many live values across scheduling points */
	unsigned long v0 = tid * 7 + 1, v1 = tid * 11 + 2, v2 = tid * 13 + 3, v3 = tid * 17 + 4;
	unsigned long v4 = tid * 19 + 5, v5 = tid * 23 + 6, v6 = tid * 29 + 7;

	for (int i = 0; i < 4; i++) {
		atomic_inc(&W->a);
		v0 += v1; v1 ^= v2; v2 += v3 * 3; v3 ^= v4 << 1; v4 += v5; v5 ^= v6; v6 += v0;
	}
	if (reg_mode == 1)
		v0 += deep(&W->a, 1000) - deep(&W->a, 1000);  /* ~1000 frames deep */
#if defined(__x86_64__) || defined(__aarch64__)
	regs_survive_switch(&W->a, tid);
#endif
	W->sum[tid] = v0 + v1 + v2 + v3 + v4 + v5 + v6;
}

static unsigned long reg_expect(unsigned tid)
{
	unsigned long v0 = tid * 7 + 1, v1 = tid * 11 + 2, v2 = tid * 13 + 3, v3 = tid * 17 + 4;
	unsigned long v4 = tid * 19 + 5, v5 = tid * 23 + 6, v6 = tid * 29 + 7;

	for (int i = 0; i < 4; i++) {
		v0 += v1; v1 ^= v2; v2 += v3 * 3; v3 ^= v4 << 1; v4 += v5; v5 ^= v6; v6 += v0;
	}
	return v0 + v1 + v2 + v3 + v4 + v5 + v6;
}

/* A scenario of the fiber tests named sym: thread_ on as many threads as
 * CPUs, a zeroed world (no setup) and the toy table. */
#define FIBER_SCENARIO(sym, cpus, world_t, hint, thread_)                                  \
	static const struct weft_scenario sym = {                                          \
		.name = #sym, .summary = "t", .source = "t", .nr_cpus = cpus, .nr_threads = cpus, \
		.world_size = sizeof(world_t), WEFT_TEST_NOP_OP, .decision_hint = hint,  \
		.thread = thread_, WEFT_TEST_VARIANTS(toy),                                \
	}

FIBER_SCENARIO(regs, 16, struct reg_world, 1024, reg_thread);

static void test_registers_and_fibers(void)
{
	struct weft_random rs;
	struct weft_run_opts o = { .sc = &regs, .lock = WEFT_LOCK_TAS };
	struct weft_exec_result r;

	for (reg_mode = 0; reg_mode < 2; reg_mode++) {
		weft_random_init(&rs, &regs, 42, NULL, 0);
		for (int it = 0; it < 200; it++) {
			CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "execute");
			CHECK(r.kind == WEFT_KIND_NONE, "regs reported %s: %s", weft_kind_name(r.kind),
			      r.report.msg);
			CHECK(r.switches > 16, "only %u switches", r.switches);
			const struct reg_world *W = weft_last_world();
			for (unsigned t = 0; t < 16; t++)
				CHECK(W->sum[t] == reg_expect(t), "T%u lost a register value", t);
#if defined(__x86_64__) || defined(__aarch64__)
			CHECK(reg_failures == 0, "%u callee-saved registers clobbered", reg_failures);
			const int per_thread = 6;
#else
			const int per_thread = 4;
#endif
			CHECK(weft_peek(W->a.counter) == 16 * (per_thread + 2 * (int)reg_mode),
			      "counter %d", weft_peek(W->a.counter));
			if (check_failed)
				return;
		}
	}
}

/* ------------------------------------------------------ stack overflow */

static unsigned long overflow_rec(atomic_t *a, unsigned n)
{
	volatile char pad[4096];

	pad[0] = (char)n;
	pad[4095] = pad[0];
	if (n % 64 == 0)
		atomic_inc(a);
	if (n == 1u << 30)   /* never: 4 GiB of frames; keeps the compiler honest */
		return pad[0];
	return overflow_rec(a, n + 1) + pad[4095];
}

static void overflow_thread(void *w, unsigned tid)
{
	struct reg_world *W = w;

	if (tid == 1)
		W->sum[0] = overflow_rec(&W->a, 0);
	atomic_inc(&W->a);
}

FIBER_SCENARIO(overflow, 2, struct reg_world, 64, overflow_thread);

static __attribute__((unused)) void test_stack_overflow(void)
{
	struct weft_random rs;
	struct weft_run_opts o = { .sc = &overflow, .lock = WEFT_LOCK_TAS };
	struct weft_exec_result r;

	weft_random_init(&rs, &overflow, 1, NULL, 0);
	for (int i = 0; i < 3; i++) {
		CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "execute");
		CHECK(r.kind == WEFT_KIND_STACK_OVERFLOW, "got %s", weft_kind_name(r.kind));
		CHECK(r.report.here.tid == 1, "overflow blamed on T%d", r.report.here.tid);
	}
	/* the machine is still usable afterwards */
	weft_random_init(&rs, &regs, 3, NULL, 0);
	o.sc = &regs;
	reg_mode = 0;
	CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0 && r.kind == WEFT_KIND_NONE,
	      "machine broken after an overflow: %s", weft_kind_name(r.kind));
}

/* --------------------------------------------------- use after free */

struct uaf_world {
	atomic_t obj[2];
	int freed;
};

static void uaf_thread(void *w, unsigned tid)
{
	struct uaf_world *W = w;

	if (tid == 0) {
		atomic_inc(&W->obj[0]);
		weft_poison(&W->obj[0], sizeof(W->obj[0]),
			    WEFT_SITE(WEFT_EV_FREE, "kfree(obj)"));
	} else {
		atomic_inc(&W->obj[0]);    /* after the free: use-after-free */
	}
}

FIBER_SCENARIO(uaf, 2, struct uaf_world, 64, uaf_thread);

static void test_uaf(void)
{
	struct weft_bytes b;
	struct weft_run_opts o = { .sc = &uaf, .lock = WEFT_LOCK_TAS };
	struct weft_exec_result r;

	weft_bytes_init(&b, &uaf, NULL, 0);   /* serial: T0 frees, then T1 uses */
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
	CHECK(r.kind == WEFT_KIND_USE_AFTER_FREE, "got %s", weft_kind_name(r.kind));
	CHECK(r.report.here.tid == 1 && r.report.other.valid && r.report.other.tid == 0,
	      "sides: here T%d other T%d", r.report.here.tid, r.report.other.tid);
	CHECK(r.report.other.site && strstr(r.report.other.site->what, "kfree"),
	      "the other side is not the free");
	/* T1 first: no report */
	static const uint8_t t1_first[] = { 0, 0, 0, 0 };   /* preempt at decision 0 */
	weft_bytes_init(&b, &uaf, t1_first, sizeof(t1_first));
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
	CHECK(r.kind == WEFT_KIND_NONE, "T1 first reported %s", weft_kind_name(r.kind));
}

/* ------------------------------------------------------- determinism */

static void test_determinism(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("demo-counter:racy", &vi);
	struct weft_random rs;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = WEFT_LOCK_TAS };
	struct weft_exec_result r;
	char why[256];
	unsigned checked = 0;

	CHECK(sc != NULL, "demo-counter:racy missing");
	if (!sc)
		return;
	weft_random_init(&rs, sc, 7, NULL, 0);
	for (int i = 0; i < 300; i++) {
		CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "execute");
		struct weft_exec_result first = r;
		CHECK(weft_check_determinism(&o, &first, why, sizeof(why)) == 0, "%s", why);
		checked++;
	}
	CHECK(checked == 300, "checked %u", checked);

	/* A change of one decision changes the hash; the same input gives the
	 * same hash twice. */
	static const uint8_t in_a[] = { 0x01, 0x00, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t in_b[] = { 0x01, 0x00, 0x00, 0x02, 0x00, 0x00 };
	struct weft_bytes b;
	uint64_t h[3];
	weft_bytes_init(&b, sc, in_a, sizeof(in_a));
	weft_execute(&o, &weft_strategy_bytes, &b, &r);
	h[0] = r.trace_hash;
	weft_bytes_init(&b, sc, in_a, sizeof(in_a));
	weft_execute(&o, &weft_strategy_bytes, &b, &r);
	h[1] = r.trace_hash;
	weft_bytes_init(&b, sc, in_b, sizeof(in_b));
	weft_execute(&o, &weft_strategy_bytes, &b, &r);
	h[2] = r.trace_hash;
	CHECK(h[0] == h[1], "same input, different hashes");
	CHECK(h[0] != h[2], "different schedule, same hash");
}

/* Two executions that differ only in the value an access overwrites (the
 * same schedule, sites, locations and stored values) hash differently under
 * both trace hashes: a hash that ignored an access's old value would call
 * a run that read other memory the same run. The initial value is written
 * by setup with a plain store, which is no event. */
struct oldval_world {
	int x;
};

static int oldval_init;
static int oldval_drift;   /* > 0: each execution stores another value (host state) */

static void oldval_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	(void)v; (void)wl;
	((struct oldval_world *)w)->x = oldval_init;
}

static void oldval_thread(void *w, unsigned tid)
{
	(void)tid;
	WRITE_ONCE(((struct oldval_world *)w)->x, oldval_drift ? ++oldval_drift : 5);
}

static const struct weft_variant oldval_variants[] = {
	{ "only", NULL, false, "oldval", "test", WEFT_KIND_NONE, 0, 0 },
};
static const struct weft_scenario oldval = {
	.name = "oldval", .summary = "oldval", .source = "test", .nr_cpus = 1, .nr_threads = 1,
	.world_size = sizeof(struct oldval_world), WEFT_TEST_NOP_OP, .decision_hint = 8,
	WEFT_TEST_HOOKS(oldval),
};

static uint64_t oldval_hash(int init, unsigned checks)
{
	struct weft_random rs;
	struct weft_run_opts o = { .sc = &oldval, .variant = 0, .lock = WEFT_LOCK_TAS,
				   .checks = checks };
	struct weft_exec_result r;

	oldval_init = init;
	weft_random_init(&rs, &oldval, 1, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0 && r.kind == WEFT_KIND_NONE,
	      "oldval execute");
	return r.trace_hash;
}

static void test_hash_old_value(void)
{
	static const unsigned checks[] = { 0, WEFT_CHECK_TRACE_HASH2 };

	for (unsigned i = 0; i < 2; i++) {
		uint64_t a = oldval_hash(1, checks[i]), a2 = oldval_hash(1, checks[i]);
		uint64_t b = oldval_hash(2, checks[i]);

		CHECK(a == a2, "hash %u: one execution, two hashes", i + 1);
		CHECK(a != b, "hash %u: old values 1 and 2, the same hash %016llx", i + 1,
		      (unsigned long long)a);
	}
	CHECK(oldval_hash(1, 0) != oldval_hash(1, WEFT_CHECK_TRACE_HASH2),
	      "the two trace hashes agree");
}

/* The determinism check re-runs an execution and compares: a model that
 * reads host state (a value stored that differs in every execution) is
 * refused, the same model without it is passed; so too when the first run
 * kept no trace (a search's, o.no_trace_hash: its re-runs are compared). */
static void test_determinism_drift(void)
{
	struct weft_random rs;
	struct weft_exec_result r;
	char why[256] = "";

	for (int untraced = 0; untraced < 2; untraced++) {
		struct weft_run_opts o = { .sc = &oldval, .variant = 0, .lock = WEFT_LOCK_TAS,
					   .no_trace_hash = untraced };
		for (int drift = 0; drift < 2; drift++) {
			oldval_init = 0;
			oldval_drift = drift;
			weft_random_init(&rs, &oldval, 1, NULL, 0);
			CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "drift execute");
			int rc = weft_check_determinism(&o, &r, why, sizeof(why));
			CHECK(drift ? rc != 0 : rc == 0,
			      "drift %d, %s a trace: determinism check returned %d (%s)", drift,
			      untraced ? "without" : "with", rc, why);
		}
	}
	oldval_drift = 0;
}

/* The periodic state hashes of a recorded execution (what a .weft file
 * stores to find where a replay first goes elsewhere) follow the trace:
 * the running hash every WEFT_STATE_HASH_EVERY events, so distinct and not
 * 0 along one execution, the same for the same input, and not all the same
 * as another schedule's. */
static void test_state_hashes(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("z1-lru:z1a", &vi);
	struct weft_run_opts o = { .sc = sc, .variant = vi, .record = true };
	struct weft_exec_result r;
	struct weft_random rs;
	uint64_t first[64];
	size_t n0 = 0, n;

	CHECK(sc != NULL, "z1-lru:z1a missing");
	if (!sc)
		return;
	for (unsigned k = 0; k < 3; k++) {
		weft_random_init(&rs, sc, k == 2 ? 8 : 7, NULL, 0);
		CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "execute");
		const uint64_t *h = weft_last_state_hashes(&n);
		CHECK(n >= 2, "%zu state hashes (%u steps)", n, (unsigned)r.steps);
		for (size_t i = 0; i < n; i++) {
			CHECK(h[i] != 0, "state hash %zu is 0", i);
			for (size_t j = 0; j < i; j++)
				CHECK(h[i] != h[j], "state hashes %zu and %zu are equal", j, i);
		}
		if (k == 0) {
			n0 = n < 64 ? n : 64;
			memcpy(first, h, n0 * sizeof(*h));
		} else if (k == 1) {
			CHECK(n >= n0 && !memcmp(first, h, n0 * sizeof(*h)),
			      "the same input gave other state hashes");
		} else {
			CHECK(n0 == 0 || n == 0 || memcmp(first, h, (n < n0 ? n : n0) * sizeof(*h)),
			      "another schedule gave the same state hashes");
		}
	}
}

/* The replay strategy meets each recorded decision at the same step, site,
 * runnable set and default, or reports DESYNC at that decision: a
 * recorded decision list replays clean, and one field of one decision
 * changed makes it desync there (not at the end, not never). */
static void test_replay_desync(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("z1-lru:fix-testone", &vi);
	struct weft_run_opts o = { .sc = sc, .variant = vi, .record = true };
	struct weft_exec_result r, again;
	struct weft_random rs;
	static struct weft_decision_rec d[4096];
	static uint32_t c[1024];
	static uint8_t wl[WEFT_INPUT_MAX];
	size_t nd, nc, nw;

	CHECK(sc != NULL, "z1-lru:fix-testone missing");
	if (!sc)
		return;
	weft_random_init(&rs, sc, 3, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "execute");
	const struct weft_decision_rec *d0 = weft_last_decisions(&nd);
	const uint32_t *c0 = weft_last_choices(&nc);
	const uint8_t *w0 = weft_last_workload(&nw);
	CHECK(nd > 4 && nd <= 4096 && nc <= 1024 && nw <= sizeof(wl), "%zu decisions", nd);
	if (nd <= 4 || nd > 4096 || nc > 1024 || nw > sizeof(wl))
		return;
	memcpy(wl, w0, nw);
	for (unsigned field = 0; field < 5; field++) {
		struct weft_replay_strategy rp;
		size_t k = nd / 2;
		memcpy(d, d0 ? d0 : d, nd * sizeof(*d));
		if (nc)
			memcpy(c, c0, nc * sizeof(*c));
		switch (field) {
		case 1: d[k].step++; break;
		case 2: d[k].site_id ^= 1; break;
		case 3: d[k].runnable ^= 1u << 7; break;
		case 4: d[k].dflt ^= 1; break;
		}
		weft_replay_strategy_init(&rp, wl, nw, d, nd, c, nc);
		CHECK(weft_execute(&o, &weft_strategy_replay, &rp, &again) == 0, "replay");
		if (field == 0) {
			CHECK(!rp.desync && again.trace_hash == r.trace_hash,
			      "the recorded decisions did not replay: %s", rp.why);
		} else {
			CHECK(rp.desync && rp.desync_index == k,
			      "decision %zu changed (field %u): desync %d at %u", k, field,
			      rp.desync, rp.desync_index);
		}
		/* the replay's recording replaced the one copied from: record again */
		weft_random_init(&rs, sc, 3, NULL, 0);
		weft_execute(&o, &weft_strategy_random, &rs, &r);
		d0 = weft_last_decisions(&nd);
		c0 = weft_last_choices(&nc);
	}
}

int main(void)
{
	if (weft_machine_init()) {
		fprintf(stderr, "machine init failed\n");
		return 1;
	}
	test_dfs_toy();
	test_registers_and_fibers();
#ifndef WEFT_TSAN
	test_stack_overflow();   /* under TSan an overflow exits with a message */
#endif
	test_uaf();
	test_determinism();
	test_state_hashes();
	test_hash_old_value();
	test_determinism_drift();
	test_replay_desync();
	return check_done();
}
