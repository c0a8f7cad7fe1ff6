/*
 * A deadline measured with clock_gettime(): main waits for a worker's
 * result, polling every millisecond, and gives up at its deadline; the
 * worker needs 2 ms (a usleep) first. Weft's clock is virtual (rt/
 * rt_time.c): the same readings in every execution and every replay, a
 * sleep moving it forward by what it asked. The bug's deadline (1 ms) is
 * shorter than the work, and main uses the result it gave up on; -DFIXED
 * waits up to a second.
 *
 * pct does not find it: its fairness rule runs a thread that polls with
 * usleep() only when no other thread can run, so main never reaches its
 * deadline while the worker could still go on (dfs and random do).
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: clean
 * weft-found-by: dfs random
 */
#include <assert.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#ifdef FIXED
#define DEADLINE_MS 1000
#else
#define DEADLINE_MS 1
#endif

static volatile int ready;
static int result;

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

static void *worker(void *arg)
{
	(void)arg;
	usleep(2000);
	result = 42;
	ready = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	pthread_create(&t, NULL, worker, NULL);
	while (!ready && elapsed_ms(&start) < DEADLINE_MS)
		usleep(1000);
	assert(result == 42);
	pthread_join(t, NULL);
	return 0;
}
