/*
 * A poll under a mutex: the worker takes the lock, looks at the slot main
 * publishes, drops the lock, and tries again until the slot is set. The
 * bug: main fills the value after publishing it. An iteration that only
 * re-reads the slot spins, and its wait for another thread's change starts
 * once the unlock after the read has run: blocked before it, the worker
 * kept the mutex main needs to publish, and dfs and pct reported a false
 * livelock on the fix.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 * weft-found-by: dfs random pct
 * weft-plain-unbounded: yes
 */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int *slot;
static int value;

static void *worker(void *arg)
{
	int *p = 0;

	(void)arg;
	while (!p) {
		pthread_mutex_lock(&lock);
		p = slot;
		pthread_mutex_unlock(&lock);
	}
	assert(*p == 42);
	return 0;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, 0, worker, 0);
#ifdef FIXED
	value = 42;
	pthread_mutex_lock(&lock);
	slot = &value;
	pthread_mutex_unlock(&lock);
#else
	pthread_mutex_lock(&lock);
	slot = &value;
	pthread_mutex_unlock(&lock);
	value = 42;
#endif
	pthread_join(t, 0);
	return 0;
}
