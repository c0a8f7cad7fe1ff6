/*
 * test_rmw_dropped.c - every value-returning read-modify-write of
 * <weft/kernel.h> called for its effect alone, as kernel code calls
 * atomic_inc_return() for its ordering or test_and_set_bit() for the set:
 *  - the file builds with the project's warnings and -Werror under gcc
 *    and clang (the macros were bare expressions: gcc's -Wunused-value
 *    failed a model's -Werror build on each of them);
 *  - each call still does its operation: one execution of the thread
 *    below leaves every counter and word at the value the kernel's
 *    operation leaves (checked against plain arithmetic at quiescence).
 */
#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

struct rw {
	atomic_t a;
	atomic_long_t l;
	atomic64_t q;
	unsigned long flags;
	long x;
	long y;
};

static void rw_thread(void *w, unsigned tid)
{
	struct rw *W = w;

	(void)tid;
	/* atomic_t: from 0 */
	atomic_add_return(5, &W->a);                        /* 5 */
	atomic_sub_return(1, &W->a);                        /* 4 */
	atomic_inc_return(&W->a);                           /* 5 */
	atomic_dec_return(&W->a);                           /* 4 */
	atomic_add_return_relaxed(2, &W->a);                /* 6 */
	atomic_add_return_acquire(2, &W->a);                /* 8 */
	atomic_add_return_release(2, &W->a);                /* 10 */
	atomic_inc_return_relaxed(&W->a);                   /* 11 */
	atomic_inc_return_acquire(&W->a);                   /* 12 */
	atomic_inc_return_release(&W->a);                   /* 13 */
	atomic_dec_return_relaxed(&W->a);                   /* 12 */
	atomic_dec_return_acquire(&W->a);                   /* 11 */
	atomic_dec_return_release(&W->a);                   /* 10 */
	atomic_fetch_add(3, &W->a);                         /* 13 */
	atomic_fetch_add_relaxed(1, &W->a);                 /* 14 */
	atomic_fetch_add_acquire(1, &W->a);                 /* 15 */
	atomic_fetch_add_release(1, &W->a);                 /* 16 */
	atomic_dec_and_test(&W->a);                         /* 15 */
	atomic_inc_and_test(&W->a);                         /* 16 */
	atomic_sub_and_test(2, &W->a);                      /* 14 */
	atomic_add_negative(1, &W->a);                      /* 15 */
	atomic_add_unless(&W->a, 1, 0);                     /* 16 */
	atomic_fetch_add_unless(&W->a, 1, 16);              /* 16: it was 16 */
	atomic_inc_not_zero(&W->a);                         /* 17 */
	atomic_cmpxchg(&W->a, 17, 20);                      /* 20 */
	atomic_cmpxchg_relaxed(&W->a, 20, 21);              /* 21 */
	atomic_cmpxchg_acquire(&W->a, 0, 99);               /* 21: fails */
	atomic_cmpxchg_release(&W->a, 21, 22);              /* 22 */
	atomic_xchg(&W->a, 30);                             /* 30 */
	/* atomic_long_t and atomic64_t, each from 0: the same sequence through
	 * each family's names (token pasting keeps every call a plain use of
	 * the macro under test) */
#define DROPPED_FAMILY(fam, v, last)                                           \
	fam##_add_return(4, v);                  /* 4 */                       \
	fam##_sub_return(1, v);                  /* 3 */                       \
	fam##_inc_return(v);                     /* 4 */                       \
	fam##_dec_return(v);                     /* 3 */                       \
	fam##_dec_and_test(v);                   /* 2 */                       \
	fam##_inc_and_test(v);                   /* 3 */                       \
	fam##_sub_and_test(1, v);                /* 2 */                       \
	fam##_add_negative(1, v);                /* 3 */                       \
	fam##_add_unless(v, 1, 0);               /* 4 */                       \
	fam##_inc_not_zero(v);                   /* 5 */                       \
	fam##_cmpxchg(v, 5, 7);                  /* 7 */                       \
	fam##_xchg(v, last)                      /* last */
	DROPPED_FAMILY(atomic_long, &W->l, 40);
	DROPPED_FAMILY(atomic64, &W->q, 50);
#undef DROPPED_FAMILY
	/* words */
	cmpxchg(&W->x, 0L, 6L);                             /* 6 */
	xchg(&W->y, 9L);                                    /* 9 */
	test_and_set_bit(3, &W->flags);                     /* 0x8 */
	test_and_set_bit(0, &W->flags);                     /* 0x9 */
	test_and_clear_bit(3, &W->flags);                   /* 0x1 */
}

static void rw_quiesce(void *w)
{
	struct rw *W = w;

	CHECK(weft_peek(W->a.counter) == 30, "atomic_t: %d, want 30", weft_peek(W->a.counter));
	CHECK(weft_peek(W->l.counter) == 40, "atomic_long_t: %ld, want 40", weft_peek(W->l.counter));
	CHECK(weft_peek(W->q.counter) == 50, "atomic64_t: %lld, want 50",
	      (long long)weft_peek(W->q.counter));
	CHECK(weft_peek(W->x) == 6, "cmpxchg: %ld, want 6", weft_peek(W->x));
	CHECK(weft_peek(W->y) == 9, "xchg: %ld, want 9", weft_peek(W->y));
	CHECK(weft_peek(W->flags) == 1, "bits: %#lx, want 0x1", weft_peek(W->flags));
}

WEFT_TEST_ONLY_VARIANT(rw, "results dropped");
static const struct weft_scenario rw = {
	.name = "rmw-dropped", .summary = "read-modify-writes called for effect", .source = "test",
	.nr_cpus = 1, .nr_threads = 1, .world_size = sizeof(struct rw), WEFT_TEST_NOP_OP,
	.decision_hint = 8, .thread = rw_thread, WEFT_TEST_VARIANTS(rw), .quiesce = rw_quiesce,
};

int main(void)
{
	struct weft_random rs;
	struct weft_run_opts o = { .sc = &rw };
	struct weft_exec_result r;

	weft_random_init(&rs, &rw, 1, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "execute");
	CHECK(r.kind == WEFT_KIND_NONE, "report %d", (int)r.kind);
	CHECK(r.steps >= 58, "%llu steps: some operations did not run",
	      (unsigned long long)r.steps);
	return check_done();
}
