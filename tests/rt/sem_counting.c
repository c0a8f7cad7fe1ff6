/*
 * POSIX semaphores as a user counts on them (sem_post(3), sem_wait(3)):
 * sem_post() adds one to the value and, when a thread is blocked in
 * sem_wait(), one of them is unblocked; sem_wait() takes one or blocks
 * while the value is zero; sem_trywait() takes one or fails with EAGAIN.
 * A producer hands two items to main through a semaphore that starts at 0;
 * main then counts a semaphore up and down by hand. Every interleaving must
 * be clean: a lost post is a deadlock (main waits forever) or a failed
 * assert.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

static sem_t ready;
static int items[2];

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2; i++) {
		__atomic_store_n(&items[i], i + 1, __ATOMIC_RELAXED);
		sem_post(&ready);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	sem_t count;
	int v = -1;

	sem_init(&ready, 0, 0);
	pthread_create(&t, NULL, producer, NULL);
	for (int i = 0; i < 2; i++) {
		sem_wait(&ready);
		/* the post came after the store: the item is there */
		assert(__atomic_load_n(&items[i], __ATOMIC_RELAXED) == i + 1);
	}
	pthread_join(t, NULL);
	sem_getvalue(&ready, &v);
	assert(v == 0);

	/* counting by hand: two posts allow two takes, not three */
	sem_init(&count, 0, 0);
	assert(sem_trywait(&count) == -1 && errno == EAGAIN);
	sem_post(&count);
	sem_post(&count);
	sem_getvalue(&count, &v);
	assert(v == 2);
	assert(sem_trywait(&count) == 0);
	sem_wait(&count);
	assert(sem_trywait(&count) == -1 && errno == EAGAIN);
	return 0;
}
