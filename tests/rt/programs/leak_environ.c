/*
 * Two workers each put a setting in the environment with putenv() of a
 * string from strdup(): the environment keeps the string, so it is no
 * leak (LeakSanitizer scans the C library's globals and what they reach;
 * so does Weft's leak check: docs/testing-c-programs.md, "Reports"). In
 * the bug both workers use the same name: the second putenv() replaces
 * the first entry, and the first string is reachable from nowhere, a real
 * leak. -DFIXED gives each worker a name of its own.
 *
 * weft-expect: bug memory-leak
 * weft-expect-fixed: verified
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *configure(void *arg)
{
#ifdef FIXED
	char *e = strdup((uintptr_t)arg ? "WEFT_WORKER_B=1" : "WEFT_WORKER_A=1");
#else
	char *e = strdup((uintptr_t)arg ? "WEFT_WORKER=b" : "WEFT_WORKER=a");
#endif
	putenv(e);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (uintptr_t i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, configure, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return getenv("WEFT_WORKER") || getenv("WEFT_WORKER_A") ? 0 : 1;
}
