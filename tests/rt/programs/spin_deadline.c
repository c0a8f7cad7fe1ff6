/*
 * A busy-wait with a time-out: main spins on the worker's flag and gives
 * up once 100 µs of the clock have passed, a bug when the worker is slow
 * (natively too). The clock's readings are changes of the thread's state
 * (rt_time.c): the loop is no pure wait, so it is not taken for one that
 * only repeats (before: dfs --bound none verified the bug), and the fix's
 * give-up that cannot fire is no false livelock either. -DFIXED: no
 * time-out, the worker is joined first.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 * weft-found-by: dfs pct
 */
#include <assert.h>
#include <pthread.h>
#include <time.h>

static volatile int flag;

static void *worker(void *arg)
{
	flag = 1;
	return arg;
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
#ifdef FIXED
	pthread_join(t, NULL);
	assert(flag);
#else
	long t0 = now_us();
	while (!flag)
		if (now_us() - t0 > 100)
			assert(!"timed out");
	pthread_join(t, NULL);
#endif
	return 0;
}
