/*
 * shared_main.c - a correct program whose counter lives in an instrumented
 * shared library (shared_lib.c): two threads add 1 atomically, main()
 * checks 2. weft run must refuse it (ctest rt_shared_lib_refused).
 */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

void shared_inc(void);
int shared_get(void);

static void *adder(void *arg)
{
	(void)arg;
	shared_inc();
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, adder, NULL);
	pthread_create(&b, NULL, adder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(shared_get() == 2);
	return 0;
}
