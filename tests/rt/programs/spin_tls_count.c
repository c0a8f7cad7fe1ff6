/*
 * A busy-wait that counts its polls in a __thread variable and gives up
 * after 50, a bug when the worker is slow (natively too). A store to a
 * __thread variable changes the thread's state (rt_tsan.c): the loop is no
 * pure wait, so it is not taken for one that only repeats (before: dfs
 * --bound none verified the bug, and a correct bounded poll was a false
 * livelock). -DFIXED: no give-up, the worker is joined first.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 * weft-found-by: dfs pct
 * weft-opt: -O0
 */
#include <assert.h>
#include <pthread.h>

static volatile int flag;
static __thread int polls;

static void *worker(void *arg)
{
	flag = 1;
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
#ifdef FIXED
	pthread_join(t, NULL);
	assert(flag);
#else
	while (!flag)
		if (++polls == 50)
			assert(!"gave up waiting");
	pthread_join(t, NULL);
#endif
	return 0;
}
