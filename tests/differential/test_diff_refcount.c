/*
 * test_diff_refcount.c - refcount_t (<weft/refcount.h>) against a
 * reference of the kernel's saturation rules (include/linux/refcount.h,
 * lib/refcount.c), and its guarantee to concurrent users as a property.
 *
 * Sequential: every operation (refcount_add/inc, add_not_zero/
 * inc_not_zero, sub_and_test/dec_and_test, dec, dec_if_one, dec_not_one)
 * from every interesting value (0, 1, 2, small, INT_MAX - 1, INT_MAX,
 * negative, REFCOUNT_SATURATED, INT_MIN) with every interesting amount, and
 * random sequences of them: after each operation its result and the
 * counter's value, and the first warning's kind, must be the reference's
 * (written as plain integer arithmetic on the kernel's rules: an addition
 * on 0 warns and saturates, so do an overflow past INT_MAX, a subtraction
 * below 0, a refcount_dec() to 0; a saturated counter stays saturated).
 * Setup (the host context) runs them: a warning there is reported and the
 * run goes on, saturated.
 *
 * Concurrent: N threads each take a reference with inc_not_zero (or own
 * one from setup) and drop it with dec_and_test; exactly one drop sees
 * the count reach zero, it is the last, and no inc_not_zero succeeds after
 * it (serial, random schedules, dfs bound 2).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/refcount.h>
#include <weft/strategy.h>

#include "check.h"
#include "props.h"
#include "../model_driver.h"

enum opk { R_ADD, R_ADD_NOT_ZERO, R_SUB_AND_TEST, R_DEC, R_DEC_IF_ONE, R_DEC_NOT_ONE, OP__N };
static const char *const opname[OP__N] = { "refcount_add", "refcount_add_not_zero",
					   "refcount_sub_and_test", "refcount_dec",
					   "refcount_dec_if_one", "refcount_dec_not_one" };

#define MAXOPS 12

struct op {
	uint8_t k;
	int i;
};

static struct {
	int start;
	unsigned n;
	struct op ops[MAXOPS];
} P;

struct world {
	refcount_t r;
};

/* results of the program as it ran: per op, the result and the value after */
static int got_res[MAXOPS], got_val[MAXOPS];

/* ----------------------------------------------------------- the reference */

static int wrap_add(int a, int b)
{
	return (int)((unsigned)a + (unsigned)b);
}

/* The kernel's rules: the result, the new value, the warning (NONE). */
static enum weft_kind ref_op(const struct op *o, int *v, int *res)
{
	int old = *v, i = o->i;
	enum weft_kind w = WEFT_KIND_NONE;

	*res = 0;
	switch (o->k) {
	case R_ADD:
		*v = wrap_add(old, i);
		if (old == 0)
			w = WEFT_KIND_INC_FROM_ZERO;
		else if (old < 0 || wrap_add(old, i) < 0)
			w = WEFT_KIND_REFCOUNT_SATURATED;
		break;
	case R_ADD_NOT_ZERO:
		*res = old != 0;
		if (old)
			*v = wrap_add(old, i);
		if (old < 0 || wrap_add(old, i) < 0)
			w = WEFT_KIND_REFCOUNT_SATURATED;
		break;
	case R_SUB_AND_TEST:
		*v = wrap_add(old, -i);
		if (old == i) {
			*res = 1;
			return WEFT_KIND_NONE;
		}
		if (old < 0 || wrap_add(old, -i) < 0)
			w = WEFT_KIND_REFCOUNT_UNDERFLOW;
		break;
	case R_DEC:
		*v = wrap_add(old, -1);
		if (old <= 1)
			w = WEFT_KIND_WARN_ON;
		break;
	case R_DEC_IF_ONE:
		*res = old == 1;
		if (old == 1)
			*v = 0;
		break;
	case R_DEC_NOT_ONE:
		if ((unsigned)old == (unsigned)REFCOUNT_SATURATED) {
			*res = 1;
			break;
		}
		if (old == 1)
			break;
		*res = 1;
		if ((unsigned)old - 1 > (unsigned)old)
			return WEFT_KIND_REFCOUNT_UNDERFLOW;   /* WARN_ONCE, no saturation */
		*v = old - 1;
		break;
	}
	if (w != WEFT_KIND_NONE)
		*v = REFCOUNT_SATURATED;
	return w;
}

/* ------------------------------------------------------------- the program */

WEFT_TEST_SETUP_WORLD(rf, struct world)
{
	refcount_set(&W->r, P.start);
	for (unsigned k = 0; k < P.n; k++) {
		const struct op *o = &P.ops[k];
		int res = 0;
		switch (o->k) {
		case R_ADD:
			refcount_add(o->i, &W->r);
			break;
		case R_ADD_NOT_ZERO:
			res = refcount_add_not_zero(o->i, &W->r);
			break;
		case R_SUB_AND_TEST:
			res = refcount_sub_and_test(o->i, &W->r);
			break;
		case R_DEC:
			refcount_dec(&W->r);
			break;
		case R_DEC_IF_ONE:
			res = refcount_dec_if_one(&W->r);
			break;
		case R_DEC_NOT_ONE:
			res = refcount_dec_not_one(&W->r);
			break;
		}
		got_res[k] = res;
		got_val[k] = (int)refcount_read(&W->r);
	}
}

static void rf_thread(void *w, unsigned tid)
{
	(void)w;
	(void)tid;
}

WEFT_TEST_ONLY_VARIANT(rf, "a sequence");
static const struct weft_scenario rfsc = {
	.name = "diff-refcount", .summary = "differential: refcount_t", .source = "test",
	.nr_cpus = 1, .nr_threads = 1, .world_size = sizeof(struct world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, WEFT_TEST_HOOKS(rf),
};

static unsigned failures, nr_seq, nr_ops;

static void print_seq(FILE *f)
{
	fprintf(f, "   from %d:", P.start);
	for (unsigned k = 0; k < P.n; k++)
		fprintf(f, " %s(%d)", opname[P.ops[k].k], P.ops[k].i);
	fprintf(f, "\n");
}

static void check_seq(void)
{
	struct weft_run_opts o = { .sc = &rfsc };
	struct weft_exec_result r;
	struct weft_bytes b;
	enum weft_kind first = WEFT_KIND_NONE;
	int v = P.start;
	char why[400] = "";

	weft_bytes_init(&b, &rfsc, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
	nr_seq++;
	for (unsigned k = 0; k < P.n && !why[0]; k++) {
		int res;
		enum weft_kind w = ref_op(&P.ops[k], &v, &res);
		nr_ops++;
		if (first == WEFT_KIND_NONE)
			first = w;
		if (got_res[k] != res || got_val[k] != v)
			snprintf(why, sizeof(why), "op %u (%s(%d)): result %d, value %d; the reference %d, %d",
				 k, opname[P.ops[k].k], P.ops[k].i, got_res[k], got_val[k], res, v);
	}
	if (!why[0] && r.kind != first)
		snprintf(why, sizeof(why), "first warning %s (%s), the reference %s",
			 weft_kind_name(r.kind), r.report.msg, weft_kind_name(first));
	CHECK(!why[0], "%s", why);
	if (why[0] && failures++ < 5)
		print_seq(stderr);
}

/* ---------------------------------------------------- the concurrent part */

#define NT 3

static struct {
	unsigned nt;
	bool owns[NT];    /* a reference from setup, else inc_not_zero */
} C;

struct cworld {
	refcount_t r;
	int zero_seen, live_after;
	int data;
};

static void cw_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	struct cworld *W = w;
	int n = 1;   /* the object's own reference, dropped by T0 */

	(void)v;
	(void)wl;
	for (unsigned t = 0; t < C.nt; t++)
		n += C.owns[t];
	refcount_set(&W->r, n);
}

static void cw_thread(void *w, unsigned t)
{
	struct cworld *W = w;
	bool have = C.owns[t];

	if (!have)
		have = refcount_inc_not_zero(&W->r);
	if (have) {
		if (W->zero_seen)
			weft_report(WEFT_KIND_ASSERT, NULL,
				    WEFT_SITE(WEFT_EV_NOTE, "no reference after the last drop"),
				    "T%u holds a reference after the count reached 0", t);
		(void)READ_ONCE(W->data);
		if (refcount_dec_and_test(&W->r))
			W->zero_seen++;
	}
	if (t == 0 && refcount_dec_and_test(&W->r))   /* the object's own */
		W->zero_seen++;
}

static void cw_quiesce(void *w)
{
	struct cworld *W = w;

	if (W->zero_seen != 1)
		weft_report(WEFT_KIND_ASSERT, NULL,
			    WEFT_SITE(WEFT_EV_NOTE, "exactly one drop reaches 0"),
			    "%d drops saw the count reach 0", W->zero_seen);
}

static struct weft_scenario cwsc = {
	.name = "diff-refcount-conc", .summary = "properties: refcount_t", .source = "test",
	.nr_cpus = NT, .nr_threads = NT, .world_size = sizeof(struct cworld), WEFT_TEST_NOP_OP,
	.decision_hint = 4096, .setup = cw_setup, .thread = cw_thread, .quiesce = cw_quiesce,
	WEFT_TEST_VARIANTS(rf),
};

int main(void)
{
	static const int starts[] = { 0, 1, 2, 5, INT_MAX - 1, INT_MAX, -1, -5,
				      REFCOUNT_SATURATED, INT_MIN, INT_MIN / 2 + 1 };
	static const int amounts[] = { 1, 2, 3, INT_MAX / 2, INT_MAX };
	unsigned nrand = ls_large() ? 200000 : 10000;

	weft_machine_init();
	/* every operation from every value by every amount */
	for (unsigned s = 0; s < sizeof(starts) / sizeof(starts[0]); s++)
		for (unsigned k = 0; k < OP__N; k++)
			for (unsigned a = 0; a < sizeof(amounts) / sizeof(amounts[0]); a++) {
				P.start = starts[s];
				P.n = 1;
				P.ops[0] = (struct op){ (uint8_t)k, amounts[a] };
				check_seq();
			}
	/* random sequences */
	ls_seed();
	for (unsigned q = 0; q < nrand; q++) {
		P.start = ls_rnd(3) ? (int)ls_rnd(4) : starts[ls_rnd(sizeof(starts) / sizeof(starts[0]))];
		P.n = 1 + ls_rnd(MAXOPS);
		for (unsigned k = 0; k < P.n; k++) {
			P.ops[k].k = (uint8_t)ls_rnd(OP__N);
			P.ops[k].i = ls_rnd(5) ? 1 + (int)ls_rnd(3) : amounts[ls_rnd(5)];
		}
		check_seq();
	}
	printf("%u sequences, %u operations against the reference (%s size)\n", nr_seq, nr_ops,
	       ls_large() ? "large" : "quick");
	/* the concurrent property over every ownership pattern */
	uint64_t total = 0;
	for (unsigned nt = 1; nt <= NT; nt++)
		for (unsigned m = 0; m < 1u << nt; m++) {
			struct props_out out;
			C.nt = nt;
			for (unsigned t = 0; t < nt; t++)
				C.owns[t] = m >> t & 1;
			cwsc.nr_threads = nt;
			bool ok = props_run(&cwsc, 0, 20, 1000 + m, 2, 50000, WEFT_KIND_NONE,
					    WEFT_KIND_NONE, &out);
			total += out.executions;
			CHECK(ok && out.dfs_complete, "%u threads, owners %#x: %s: %s%s", nt, m,
			      weft_kind_name(out.bad.kind), out.bad.report.msg,
			      out.dfs_complete ? "" : " (dfs incomplete)");
		}
	printf("concurrent get/put: %llu executions\n", (unsigned long long)total);
	return check_done();
}
