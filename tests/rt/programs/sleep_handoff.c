/*
 * main starts a worker that fills in a result, sleeps a millisecond "to
 * let it run" and reads the result. A sleep or a sched_yield() orders
 * nothing: the worker may not have run yet (on a loaded machine, or
 * simply later), so the read may see the result unfilled. Weft handed
 * the CPU to the worker at every yield and certified this program
 * (a false "verified"); the yielder is now offered too, as the unfair
 * choice of a thread that spun (docs/strategies.md, "Fairness"), which
 * dfs charges as a preemption and pct passes over (so pct does not find
 * it). -DFIXED joins the worker before the read.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 * weft-plain-unbounded: yes
 * weft-found-by: dfs random
 */
#include <assert.h>
#include <pthread.h>
#include <unistd.h>

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
	usleep(1000);   /* sched_yield(), nanosleep(): the same */
#endif
	assert(result == 42);
#ifndef FIXED
	pthread_join(t, NULL);
#endif
	return 0;
}
