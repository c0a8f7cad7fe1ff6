/*
 * main waits for a producer's flag with "if" where "while" belongs: a
 * condition variable may wake a waiter with nothing signalled (a spurious
 * wake-up, which WEFT_SPURIOUS_WAKEUPS=1 makes a choice at every wait),
 * and main then reads data the producer has not written. -DFIXED waits in
 * a loop, which a spurious wake-up only sends round again. With a choice
 * at every wait, dfs never ended on the loop (every iteration one more
 * branch); the first spurious wake-up since another thread changed
 * something is a free choice, a repeat an unfair one that the fairness
 * bound prunes (docs/strategies.md, "Fairness"). The repeat was once not
 * offered at all and dfs --bound none verified the fix; a waiter's locals
 * are not seen (cond_count_spurious.c counts its wake-ups), so the fix now
 * ends not complete, "limit reached: fairness bound 0".
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: fair-bounded
 * weft-plain-unbounded: yes
 * weft-env: WEFT_SPURIOUS_WAKEUPS=1
 */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, data;

static void *producer(void *arg)
{
	data = 42;
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, producer, NULL);
	pthread_mutex_lock(&m);
#ifdef FIXED
	while (!ready)
#else
	if (!ready)
#endif
		pthread_cond_wait(&cv, &m);
	assert(data == 42);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	return 0;
}
