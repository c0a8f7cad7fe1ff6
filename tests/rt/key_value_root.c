/*
 * key_value_root.c - a heap block whose only pointer is main()'s
 * pthread_setspecific() value at exit is reachable (LeakSanitizer scans the
 * thread descriptor glibc keeps key values in): no memory-leak report (one
 * before, rt_heap.c's scan had only stacks, globals and __thread blocks).
 * A block with no pointer at all is still a leak (-DLEAK).
 */
#include <pthread.h>
#include <stdlib.h>

static pthread_key_t key;

static void *worker(void *arg)
{
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_key_create(&key, NULL);
#ifdef LEAK
	if (!malloc(16))
		return 1;
#else
	pthread_setspecific(key, malloc(16));
#endif
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
