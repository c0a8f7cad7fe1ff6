/*
 * A worker replaces a cached string with a new one; when two workers race
 * on the swap, one string is overwritten without being freed: at exit no
 * pointer reaches it (LeakSanitizer's rule). -DFIXED swaps atomically and
 * frees what it replaced.
 *
 * weft-expect: bug memory-leak
 * weft-expect-fixed: verified
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static char *_Atomic cache;

static void *refresh(void *arg)
{
	char *fresh = malloc(16);
	strcpy(fresh, "fresh");
#ifdef FIXED
	char *old = atomic_exchange(&cache, fresh);
	free(old);
#else
	char *old = cache;
	cache = fresh;
	free(old);
#endif
	return arg;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, refresh, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	free(cache);
	return 0;
}
