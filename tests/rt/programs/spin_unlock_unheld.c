/*
 * An error path releases a pthread spinlock it never took: the drain
 * thread gives up early when the queue looks empty, but unlocks on the
 * way out as the full path does. Unlocking a spinlock the thread does not
 * hold is undefined (POSIX) and a bad-unlock report under Weft, naming
 * the lock and who holds it. -DFIXED returns before the unlock.
 *
 * weft-expect: bug bad-unlock
 * weft-expect-fixed: verified
 */
#include <pthread.h>

static pthread_spinlock_t queue_lock;
static int queued;

static void *fill(void *arg)
{
	(void)arg;
	pthread_spin_lock(&queue_lock);
	queued++;
	pthread_spin_unlock(&queue_lock);
	return NULL;
}

static void *drain(void *arg)
{
	(void)arg;
	if (!queued) {
#ifndef FIXED
		pthread_spin_unlock(&queue_lock);
#endif
		return NULL;
	}
	pthread_spin_lock(&queue_lock);
	queued = 0;
	pthread_spin_unlock(&queue_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	pthread_spin_init(&queue_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_create(&t[0], NULL, fill, NULL);
	pthread_create(&t[1], NULL, drain, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
