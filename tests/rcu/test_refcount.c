/*
 * test_refcount.c - refcount_t (<weft/refcount.h>), atomic_long_t,
 * atomic64_t and the bit locks of kernel.h:
 *  - each of the kernel's saturation events is a report of its kind, at
 *    the operation, naming the counter: increment and addition on 0
 *    (inc-from-zero), underflow (refcount-underflow), overflow past
 *    INT_MAX (refcount-saturated), refcount_dec() hitting 0 (warn-on);
 *  - in setup (the host context) the report does not end the execution
 *    and the counter is left saturated at REFCOUNT_SATURATED, except
 *    refcount_dec_not_one() on 0, whose underflow warning leaves it at 0
 *    (the kernel's WARN_ONCE(), no refcount_warn_saturate());
 *  - the legal paths are silent: dec_and_test's last put, inc_not_zero and
 *    add_not_zero on 0 (false), dec_if_one, dec_not_one, dec_and_lock
 *    (the lock only on the last put);
 *  - a racy lookup with refcount_inc() on an object whose count may drop
 *    to 0 is inc-from-zero at one preemption; inc_not_zero is clean;
 *  - atomic_long/atomic64 arithmetic on 64-bit values; bit locks.
 */
#include <limits.h>

#include <weft/refcount.h>

#include "rcu_test.h"
#include "../model_driver.h"

struct rc_world {
	unsigned variant;
	refcount_t r;
	spinlock_t lock;
	atomic_long_t al;
	atomic64_t a64;
	unsigned long word;
	int results[16];
};

enum {
	V_INC_ZERO, V_ADD_ZERO, V_UNDERFLOW, V_SUB_UNDERFLOW, V_SATURATE, V_ADD_NZ_SATURATE,
	V_DEC_LEAK, V_LEGAL, V_HOST_SATURATE, V_HOST_DEC_NOT_ONE_ZERO, V_RACE_INC,
	V_RACE_INC_NOT_ZERO, V_ATOMICS, V_NR
};

WEFT_TEST_SETUP(rc, struct rc_world)
{
	refcount_set(&W->r, 1);
	if (W->variant == V_HOST_SATURATE) {
		refcount_set(&W->r, INT_MAX);
		refcount_inc(&W->r);   /* recorded; the counter saturates */
	}
	if (W->variant == V_HOST_DEC_NOT_ONE_ZERO) {
		refcount_set(&W->r, 0);
		W->results[0] = refcount_dec_not_one(&W->r);   /* warns, true, stays 0 */
	}
}

static void rc_thread(void *w, unsigned tid)
{
	struct rc_world *W = w;
	int *res = W->results;

	switch (W->variant) {
	case V_INC_ZERO:
		refcount_set(&W->r, 0);
		refcount_inc(&W->r);
		break;
	case V_ADD_ZERO:
		refcount_set(&W->r, 0);
		refcount_add(2, &W->r);
		break;
	case V_UNDERFLOW:
		refcount_set(&W->r, 0);
		(void)refcount_dec_and_test(&W->r);
		break;
	case V_SUB_UNDERFLOW:
		refcount_set(&W->r, 1);
		(void)refcount_sub_and_test(2, &W->r);
		break;
	case V_SATURATE:
		refcount_set(&W->r, INT_MAX);
		refcount_inc(&W->r);
		break;
	case V_ADD_NZ_SATURATE:
		refcount_set(&W->r, INT_MAX - 1);
		(void)refcount_add_not_zero(5, &W->r);
		break;
	case V_DEC_LEAK:
		refcount_set(&W->r, 1);
		refcount_dec(&W->r);
		break;
	case V_LEGAL:
		if (tid)
			break;
		refcount_set(&W->r, 2);
		res[0] = refcount_dec_and_test(&W->r);           /* 2 -> 1: false */
		res[1] = refcount_dec_and_test(&W->r);           /* 1 -> 0: true */
		res[2] = refcount_inc_not_zero(&W->r);           /* 0: false */
		res[3] = refcount_add_not_zero(3, &W->r);        /* 0: false */
		refcount_set(&W->r, 1);
		res[4] = refcount_inc_not_zero(&W->r);           /* 1 -> 2: true */
		res[5] = refcount_dec_if_one(&W->r);             /* 2: false */
		res[6] = refcount_dec_not_one(&W->r);            /* 2 -> 1: true */
		res[7] = refcount_dec_not_one(&W->r);            /* 1: false */
		res[8] = refcount_dec_and_lock(&W->r, &W->lock); /* 1 -> 0, locked */
		res[9] = spin_is_locked(&W->lock);
		if (res[8])
			spin_unlock(&W->lock);
		refcount_set(&W->r, 2);
		res[10] = refcount_dec_and_lock(&W->r, &W->lock);   /* 2 -> 1, no lock */
		res[11] = spin_is_locked(&W->lock);
		res[12] = (int)refcount_read(&W->r);
		res[13] = refcount_dec_if_one(&W->r);            /* 1 -> 0 */
		break;
	case V_RACE_INC:
	case V_RACE_INC_NOT_ZERO:
		/* T0 drops the last reference; T1 looks the object up and takes
		 * one without the lookup's protection */
		if (tid == 0) {
			(void)refcount_dec_and_test(&W->r);
		} else if (refcount_read(&W->r)) {
			if (W->variant == V_RACE_INC)
				refcount_inc(&W->r);
			else
				(void)refcount_inc_not_zero(&W->r);
		}
		break;
	case V_ATOMICS:
		if (tid)
			break;
		atomic_long_set(&W->al, 1l << 40);
		atomic_long_add(5, &W->al);
		res[0] = atomic_long_read(&W->al) == (1l << 40) + 5;
		res[1] = atomic_long_sub_and_test((1l << 40) + 5, &W->al);
		res[2] = !atomic_long_inc_not_zero(&W->al);
		res[3] = atomic_long_add_unless(&W->al, 1, 1) && atomic_long_read(&W->al) == 1;
		res[4] = atomic_long_cmpxchg(&W->al, 1, -7) == 1 && atomic_long_dec_return(&W->al) == -8;
		atomic64_set(&W->a64, -(1ll << 50));
		res[5] = atomic64_add_negative(1, &W->a64);
		res[6] = atomic64_xchg(&W->a64, 3) == -(1ll << 50) + 1 && atomic64_inc_return(&W->a64) == 4;
		res[7] = !test_and_set_bit_lock(3, &W->word) && test_and_set_bit_lock(3, &W->word);
		clear_bit_unlock(3, &W->word);
		set_bit(5, &W->word);
		res[8] = !test_bit(3, &W->word);
		__clear_bit_unlock(5, &W->word);
		res[9] = READ_ONCE(W->word) == 0;
		break;
	}
}

T_SCENARIO(rc, "refcount-test", "refcount_t", struct rc_world, V_NR);

static void expect(unsigned v, unsigned bound, enum weft_kind k, const char *msg, const char *what)
{
	struct t_out o = t_expect(&rc_sc, v, bound, k, 100000, what);

	if (msg)
		CHECK(strstr(o.r.report.msg, msg) != NULL, "%s: message '%s'", what, o.r.report.msg);
	if (k != WEFT_KIND_NONE)
		CHECK(o.r.report.loc == offsetof(struct rc_world, r), "%s: names the counter", what);
}

int main(void)
{
	t_begin(rc_variants, V_NR);

	expect(V_INC_ZERO, 0, WEFT_KIND_INC_FROM_ZERO, "addition on 0", "refcount_inc() on 0");
	expect(V_ADD_ZERO, 0, WEFT_KIND_INC_FROM_ZERO, "addition on 0", "refcount_add() on 0");
	expect(V_UNDERFLOW, 0, WEFT_KIND_REFCOUNT_UNDERFLOW, "underflow",
	       "refcount_dec_and_test() on 0");
	expect(V_SUB_UNDERFLOW, 0, WEFT_KIND_REFCOUNT_UNDERFLOW, "underflow",
	       "refcount_sub_and_test(2) on 1");
	expect(V_SATURATE, 0, WEFT_KIND_REFCOUNT_SATURATED, "saturated",
	       "refcount_inc() on INT_MAX");
	expect(V_ADD_NZ_SATURATE, 0, WEFT_KIND_REFCOUNT_SATURATED, "saturated",
	       "refcount_add_not_zero(5) on INT_MAX-1");
	expect(V_DEC_LEAK, 0, WEFT_KIND_WARN_ON, "decrement hit 0", "refcount_dec() to 0");
	expect(V_LEGAL, 0, WEFT_KIND_NONE, NULL, "the legal paths");
	{
		const struct rc_world *W = weft_last_world();
		static const int want[14] = { 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1 };
		for (unsigned i = 0; i < 14; i++)
			CHECK(W->results[i] == want[i], "legal path %u: %d, want %d", i,
			      W->results[i], want[i]);
	}

	/* setup: recorded, and the counter saturated */
	{
		struct weft_run_opts ro = { .sc = &rc_sc, .variant = V_HOST_SATURATE };
		static struct weft_dfs d;
		struct weft_exec_result r;
		weft_dfs_init(&d, &rc_sc, 0, NULL, 0);
		CHECK(weft_execute(&ro, &weft_strategy_dfs, &d, &r) == 0 &&
		      r.kind == WEFT_KIND_REFCOUNT_SATURATED, "setup saturation: %s",
		      weft_kind_name(r.kind));
		const struct rc_world *W = weft_last_world();
		CHECK(W->r.refs.counter == REFCOUNT_SATURATED, "saturated at %d",
		      W->r.refs.counter);
		ro.variant = V_HOST_DEC_NOT_ONE_ZERO;
		weft_dfs_init(&d, &rc_sc, 0, NULL, 0);
		CHECK(weft_execute(&ro, &weft_strategy_dfs, &d, &r) == 0 &&
		      r.kind == WEFT_KIND_REFCOUNT_UNDERFLOW, "dec_not_one on 0: %s",
		      weft_kind_name(r.kind));
		W = weft_last_world();
		CHECK(W->r.refs.counter == 0 && W->results[0] == 1,
		      "dec_not_one on 0 left %d (returned %d), want 0 (true)", W->r.refs.counter,
		      W->results[0]);
	}

	struct t_out o = t_dfs(&rc_sc, V_RACE_INC, 0, 1000);
	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "lookup race: not at bound 0");
	expect(V_RACE_INC, 1, WEFT_KIND_INC_FROM_ZERO, "addition on 0",
	       "lookup + refcount_inc() vs the last put");
	o = t_dfs(&rc_sc, V_RACE_INC, 1, 1000);
	CHECK(o.r.report.other.valid && o.r.report.other.tid == 0 &&
	      strstr(o.r.report.other.site->what, "refcount_dec_and_test"),
	      "other side: T0's refcount_dec_and_test()");
	expect(V_RACE_INC_NOT_ZERO, 3, WEFT_KIND_NONE, NULL, "lookup + refcount_inc_not_zero()");

	expect(V_ATOMICS, 0, WEFT_KIND_NONE, NULL, "atomic_long, atomic64, bit locks");
	{
		const struct rc_world *W = weft_last_world();
		for (unsigned i = 0; i < 10; i++)
			CHECK(W->results[i] == 1, "atomics check %u", i);
	}
	return check_done();
}
