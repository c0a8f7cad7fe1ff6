/*
 * The invariant is an atexit() handler's: two workers each add one to a
 * counter without a lock, and the handler, run by main()'s return (exit()),
 * asserts the sum. atexit() handlers are the execution's own (rt_libc.c):
 * before, they were registered with the C library, never ran in an
 * execution (the lost update verified), piled up and ran when the process
 * ended, aborting weft run (exit 134) and losing its verdict. -DFIXED:
 * the counter is atomic.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#ifdef FIXED
static _Atomic int counter;
#else
static int counter;
#endif

static void check(void)
{
	assert(counter == 2);
}

static void *worker(void *arg)
{
#ifdef FIXED
	counter++;
#else
	int c = counter;
	counter = c + 1;
#endif
	return arg;
}

int main(void)
{
	pthread_t t[2];

	atexit(check);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
