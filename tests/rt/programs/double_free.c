/*
 * Two threads each drop "the last reference" after testing a plain flag:
 * both see it set and both free the buffer. -DFIXED claims the buffer
 * with an atomic exchange, so exactly one thread frees it.
 *
 * weft-expect: bug double-free
 * weft-expect-fixed: verified
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static char *buffer;
#ifdef FIXED
static atomic_int owned = 1;
#else
static int owned = 1;
#endif

static void *release(void *arg)
{
#ifdef FIXED
	if (atomic_exchange(&owned, 0))
		free(buffer);
#else
	if (owned) {
		owned = 0;
		free(buffer);
	}
#endif
	return arg;
}

int main(void)
{
	pthread_t t[2];

	buffer = malloc(64);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, release, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
