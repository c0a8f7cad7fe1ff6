/*
 * main returns without joining its worker, after checking that the worker
 * moves at most one stage between two looks, which it can break by
 * running both of its steps in between.
 *
 * In dfs's first execution main runs to its end and the process ends
 * before the worker ran at all: partial-order reduction, which reverses
 * the races it saw, never learns the worker's operations unless the end
 * of the process offers every thread that may still run the turn first
 * (rt/rt_program.c). -DFIXED joins the worker before looking.
 *
 * weft-expect: bug reach-error
 * weft-expect-fixed: verified
 */
#include <pthread.h>

void __VERIFIER_error(void);

static volatile int stage;

static void *worker(void *arg)
{
	stage = 1;
	stage = 2;
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
#ifdef FIXED
	pthread_join(t, NULL);
#endif
	int first = stage;
	int second = stage;
	if (second - first > 1)
		__VERIFIER_error();
	return 0;
}
