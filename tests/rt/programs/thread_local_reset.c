/*
 * Every execution starts from the program's initial state, thread-local
 * variables included: `calls` (__thread) must read 0 when main starts,
 * in every execution of a search, not what the last execution left
 * there (which made SV-COMP's pthread-ext/46_monabsex2_vs a false alarm).
 * The bug is a lost update on a global counter; -DFIXED locks it. Only
 * main touches `calls` (each thread's own copy: thread_locals.c).
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>

static __thread int calls;
static int counter;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *inc(void *arg)
{
	(void)arg;
#ifdef FIXED
	pthread_mutex_lock(&m);
#endif
	int c = counter;
	counter = c + 1;
#ifdef FIXED
	pthread_mutex_unlock(&m);
#endif
	return NULL;
}

int main(void)
{
	pthread_t t;

	assert(calls == 0);
	calls++;
	pthread_create(&t, NULL, inc, NULL);
	inc(NULL);
	pthread_join(t, NULL);
	assert(counter == 2);
	return 0;
}
