/*
 * main posts a request that lives on its stack to a worker and spins on the
 * request's done flag, which the worker sets once it has computed the
 * result. main's accesses to the request are its own stack's, not
 * scheduling points until the request's address escapes (here to
 * pthread_create()): then main's spin reads are points that await the
 * worker's store (docs/testing-c-programs.md, "Spin loops"), and dfs
 * --bound none ends. In the bug main marks the request posted only after
 * starting the worker, and a worker that runs first finds nothing posted
 * and leaves: main waits for a store no thread is left to make, a lost
 * wake-up that Weft reports as a livelock at once. -DFIXED posts the
 * request before the worker starts.
 *
 * weft-expect: bug livelock
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct req {
	int arg, result;
	atomic_int posted, done;
};

static void *worker(void *p)
{
	struct req *r = p;

	if (!atomic_load_explicit(&r->posted, memory_order_acquire))
		return NULL;   /* nothing to do */
	r->result = r->arg * 2;
	atomic_store_explicit(&r->done, 1, memory_order_release);
	return NULL;
}

int main(void)
{
	struct req req = { .arg = 21 };
	pthread_t t;

#ifdef FIXED
	atomic_store_explicit(&req.posted, 1, memory_order_release);
	pthread_create(&t, NULL, worker, &req);
#else
	pthread_create(&t, NULL, worker, &req);
	atomic_store_explicit(&req.posted, 1, memory_order_release);
#endif
	while (!atomic_load_explicit(&req.done, memory_order_acquire))
		;
	assert(req.result == 42);
	pthread_join(t, NULL);
	return 0;
}
