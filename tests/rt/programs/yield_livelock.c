/*
 * Two polite spins that wait for each other: main waits with
 * sched_yield() for the worker's flag before it raises its own, which the
 * worker waits for first. Nothing can change once both spin: a livelock,
 * reported as soon as both await a change (each yield's iteration repeats
 * one nothing changed since), not at the step budget. -DFIXED: main
 * raises its flag before it waits.
 *
 * weft-expect: bug livelock
 * weft-expect-fixed: verified
 * weft-found-by: dfs random pct
 * weft-plain-unbounded: yes
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int mine, theirs;

static void *worker(void *arg)
{
	while (!atomic_load(&mine))
		sched_yield();
	atomic_store(&theirs, 1);
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
#ifdef FIXED
	atomic_store(&mine, 1);
#endif
	while (!atomic_load(&theirs))
		sched_yield();
#ifndef FIXED
	atomic_store(&mine, 1);
#endif
	pthread_join(t, NULL);
	return 0;
}
