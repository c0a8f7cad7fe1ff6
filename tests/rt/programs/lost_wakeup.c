/*
 * A consumer waits for a flag with `if` around pthread_cond_wait(): when
 * the producer sets the flag and signals before the consumer waits, the
 * signal is lost and the consumer sleeps for ever. -DFIXED re-checks the
 * flag in a loop under the mutex.
 *
 * weft-expect: bug lost-wakeup
 * weft-expect-fixed: verified
 */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;

static void *consumer(void *arg)
{
#ifdef FIXED
	pthread_mutex_lock(&lock);
	while (!ready)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
#else
	int seen = ready;
	pthread_mutex_lock(&lock);
	if (!seen)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
#endif
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, consumer, NULL);
	pthread_mutex_lock(&lock);
	ready = 1;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	return 0;
}
