/*
 * sleep_handoff.c with two yields: main yields twice "to let the worker
 * run" and reads its result. Two yields in a row order nothing either.
 * A yielder back at the same yield, having looked at something and
 * changed nothing, repeats a spin iteration, which the fairness bound
 * prunes without calling the search incomplete; two different yields
 * in a row, with nothing between them, are not that: dfs finds the bug
 * at bound 2, and plain dfs --bound none ends incomplete ("fairness
 * bound 0"). -DFIXED joins the worker before the read.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 * weft-found-by: dfs random
 * weft-plain-unbounded: yes
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>

static int result;

static void *worker(void *arg)
{
	result = 42;
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
#ifdef FIXED
	pthread_join(t, NULL);
#else
	sched_yield();
	sched_yield();
#endif
	assert(result == 42);
#ifndef FIXED
	pthread_join(t, NULL);
#endif
	return 0;
}
