/*
 * A polite spin: main waits for the worker's flag with sched_yield() in
 * the loop, then reads the data the flag publishes. The bug: the worker
 * sets the flag before the data. A yield back at the same yield with
 * nothing changed by anyone since its last one repeats the iteration, so
 * it awaits another thread's change (as a spin on a read does): dfs
 * --bound none covers the fix completely (before, every such loop ended
 * "not covered completely: fairness bound 0").
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 * weft-found-by: dfs random pct
 * weft-plain-unbounded: yes
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int flag;
static int data;

static void *worker(void *arg)
{
#ifdef FIXED
	data = 1;
	atomic_store_explicit(&flag, 1, memory_order_release);
#else
	atomic_store_explicit(&flag, 1, memory_order_release);
	data = 1;
#endif
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	while (!atomic_load_explicit(&flag, memory_order_acquire))
		sched_yield();
	assert(data == 1);
	pthread_join(t, NULL);
	return 0;
}
