/*
 * deadline_poll.c - a correct program that polls the clock up to a
 * deadline with sched_yield() in the loop while its worker runs. The
 * virtual clock moves 1 µs at each reading (rt_time.c), so each iteration
 * changes what the next one sees: not a repeat, not a lone spin. Before,
 * both rules took it for a spin that nothing could end: a false livelock
 * after one execution.
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int done;

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *worker(void *arg)
{
	atomic_store(&done, 1);
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	long deadline = now_us() + 5000;   /* 5000 readings: past the lone-yield limit */
	while (now_us() < deadline)
		sched_yield();
	pthread_join(t, NULL);
	assert(atomic_load(&done));
	return 0;
}
