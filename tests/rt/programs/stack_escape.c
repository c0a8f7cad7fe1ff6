/*
 * main hands the address of a local to a worker and reads the local twice,
 * expecting the same value: the worker's store may come between the two
 * loads. Both loads are main's accesses to its own stack, which are not
 * scheduling points until the local's address escapes; pthread_create()'s
 * argument is such a hand-off (docs/testing-c-programs.md, "What is a
 * scheduling point"), so the race is searched from main's side too.
 * -DFIXED reads both under the mutex the worker stores under (the mutex
 * is a local of main as well).
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct box {
	pthread_mutex_t lock;
	atomic_int x;
};

static void *worker(void *arg)
{
	struct box *b = arg;

	pthread_mutex_lock(&b->lock);
	atomic_store(&b->x, 1);
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

int main(void)
{
	struct box b = { .lock = PTHREAD_MUTEX_INITIALIZER, .x = 0 };
	pthread_t t;
	int first, second;

	pthread_create(&t, NULL, worker, &b);
#ifdef FIXED
	pthread_mutex_lock(&b.lock);
#endif
	first = atomic_load(&b.x);
	second = atomic_load(&b.x);
#ifdef FIXED
	pthread_mutex_unlock(&b.lock);
#endif
	assert(first == second);
	pthread_join(t, NULL);
	return 0;
}
