/*
 * The shape of an SV-COMP ConcurrencySafety task, written for Weft's own
 * tests: reach_error() as __assert_fail(..., "reach_error"), a
 * __VERIFIER_nondet_int() bounded by __VERIFIER_assume(), and an atomic
 * function (__VERIFIER_atomic_*) that runs without a scheduling point. The
 * checker reads the two counters without the atomic section: it can see
 * them between the other thread's updates. -DFIXED reads them inside one.
 *
 * weft-expect: bug reach-error
 * weft-expect-fixed: clean    (dfs cannot verify it: the nondet value has 2^32
 *                              candidates, which dfs does not enumerate)
 */
#include <pthread.h>

extern void __assert_fail(const char *, const char *, unsigned int, const char *)
	__attribute__((__noreturn__));
void reach_error(void);
void reach_error(void) { __assert_fail("0", "svcomp_style.c", 19, "reach_error"); }
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

static int x, y, rounds;

/* noinline: the runtime knows an atomic function by its entry, which an
 * inlined copy (clang -O1) does not have */
void __VERIFIER_atomic_step(void) __attribute__((noinline));
void __VERIFIER_atomic_step(void)
{
	x++;
	y++;
}

static void *stepper(void *arg)
{
	for (int i = 0; i < rounds; i++)
		__VERIFIER_atomic_step();
	return arg;
}

int main(void)
{
	pthread_t t;

	rounds = __VERIFIER_nondet_int();
	__VERIFIER_assume(rounds >= 1 && rounds <= 2);
	pthread_create(&t, NULL, stepper, NULL);
#ifdef FIXED
	__VERIFIER_atomic_begin();
	int dx = x, dy = y;
	__VERIFIER_atomic_end();
#else
	int dx = x, dy = y;
#endif
	if (dx != dy)
		reach_error();
	pthread_join(t, NULL);
	return 0;
}
