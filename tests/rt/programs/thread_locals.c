/*
 * __thread variables are each thread's own: every thread sets `mine` to its
 * number between two scheduling points (the shared counter) and must still
 * read its own number after the second. The bug: `mine` is one global for every thread
 * (a thread reads what another stored). -DFIXED makes it __thread, which
 * Weft gave one copy for all threads until 2026-12-05 (a false report).
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifdef FIXED
static __thread long mine;
#else
static long mine;
#endif
static _Atomic int passed;

static void *worker(void *arg)
{
	long id = (long)arg;

	/* points before and after the store: the other thread can run its
	 * own store between this one and the check in every search */
	atomic_fetch_add(&passed, 1);
	mine = id;
	atomic_fetch_add(&passed, 1);
	assert(mine == id);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
