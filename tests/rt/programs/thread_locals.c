/*
 * __thread variables are each thread's own: every thread sets `mine` to its
 * number, passes a scheduling point (the shared counter), and must still
 * read its own number. The bug: `mine` is one global for every thread
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
