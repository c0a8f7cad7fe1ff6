/*
 * main publishes the address of a local through a global slot (a plain
 * store, as a work queue hands out requests), then
 * reads the local twice; the worker takes the address from the slot and
 * increments the local between the two reads. A pointer into a stack
 * stored where another thread can load it makes the local escaped
 * (docs/testing-c-programs.md, "What is a scheduling point"): main's reads
 * of it are scheduling points from the store on, before the worker ever
 * touched it. -DFIXED reads under the mutex the worker increments under.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int *volatile slot;

static void *worker(void *arg)
{
	volatile int *p;

	(void)arg;
	while (!(p = slot))
		;
	pthread_mutex_lock(&lock);
	(*p)++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	volatile int value = 0;   /* read twice: not folded into one read */
	int first, second;
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	slot = &value;
#ifdef FIXED
	pthread_mutex_lock(&lock);
#endif
	first = value;
	second = value;
#ifdef FIXED
	pthread_mutex_unlock(&lock);
#endif
	assert(first == second);
	pthread_join(t, NULL);
	return 0;
}
