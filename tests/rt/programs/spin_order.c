/*
 * pthread spinlocks wait as the kernel's spinlocks do under Weft: a thread
 * that finds one taken is blocked on it until the unlock, so two threads
 * that take two spinlocks in opposite orders are a deadlock (every thread
 * blocked, each lock's holder named), not a livelock at the step budget,
 * and the fixed program, which spins on contended locks in every
 * execution, is verified by dfs --bound none (a spin that costs steps
 * would make its search endless). -DFIXED takes them in one order.
 *
 * weft-expect: bug deadlock
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>

static pthread_spinlock_t queue_lock, stats_lock;
static int queued, served;

static void *producer(void *arg)
{
	(void)arg;
	pthread_spin_lock(&queue_lock);
	pthread_spin_lock(&stats_lock);
	queued++;
	served++;
	pthread_spin_unlock(&stats_lock);
	pthread_spin_unlock(&queue_lock);
	return NULL;
}

static void *auditor(void *arg)
{
	(void)arg;
#ifdef FIXED
	pthread_spin_lock(&queue_lock);
	pthread_spin_lock(&stats_lock);
#else
	pthread_spin_lock(&stats_lock);
	pthread_spin_lock(&queue_lock);
#endif
	assert(queued == served);
	pthread_spin_unlock(&queue_lock);
	pthread_spin_unlock(&stats_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	pthread_spin_init(&queue_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&stats_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_create(&t[0], NULL, producer, NULL);
	pthread_create(&t[1], NULL, producer, NULL);
	pthread_create(&t[2], NULL, auditor, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert(queued == 2 && served == 2);
	return 0;
}
