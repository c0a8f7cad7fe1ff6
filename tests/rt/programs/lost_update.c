/*
 * Two threads add to a shared counter with a load and a store: an update
 * is lost when both load before either stores (one preemption).
 * -DFIXED takes a mutex around the update.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 2

static int counter;
#ifdef FIXED
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static void *add(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
#ifdef FIXED
		pthread_mutex_lock(&lock);
#endif
		int seen = counter;
		counter = seen + 1;
#ifdef FIXED
		pthread_mutex_unlock(&lock);
#endif
	}
	return arg;
}

int main(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, add, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("counter = %d\n", counter);
	assert(counter == 2 * ROUNDS);
	return 0;
}
