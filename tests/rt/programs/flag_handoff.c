/*
 * A consumer busy-waits for a producer's flag, then reads what the flag
 * publishes. The bug sets the flag before the data, so the consumer can
 * read the data unwritten; -DFIXED writes the data first. The wait is an
 * unbounded spin that re-reads a flag only the producer changes: Weft
 * blocks the consumer until the producer writes it (docs/testing-c-
 * programs.md, "Spin loops"), so dfs --bound none ends and proves the fix.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>

static volatile int ready;
static int payload;

static void *producer(void *arg)
{
	(void)arg;
#ifdef FIXED
	payload = 42;
	ready = 1;
#else
	ready = 1;
	payload = 42;
#endif
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, producer, NULL);
	while (!ready)
		;
	assert(payload == 42);
	pthread_join(t, NULL);
	return 0;
}
