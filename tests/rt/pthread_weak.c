/*
 * pthread_weak.c - the runtime's own pthread primitives keep POSIX's
 * memory synchronization under --memory tso and lkmm (check-memory-orders
 * builds each shape; none may report under any model):
 *   -DSHAPE_SPIN     two threads add to a counter under a pthread spinlock
 *                    (an unlock's store left in a store buffer let the
 *                    other thread see the lock held after the wake-up and
 *                    sleep for good: a false lost wake-up under tso; the
 *                    section's stores passed the unlock under lkmm)
 *   -DSHAPE_ONCE     pthread_once() publishes what its function stored
 *   -DSHAPE_BARRIER  each thread's store before pthread_barrier_wait() is
 *                    seen by the other after it
 *   -DSHAPE_SEM      thread 0's store before sem_post() is seen by thread
 *                    1 after its sem_wait() returns (POSIX 4.12: both
 *                    synchronize memory)
 *   -DSHAPE_COPY     each thread copies a struct from one global to
 *                    another, main reads the copies after pthread_join()
 *                    (gcc announces an aggregate copy's store before its
 *                    load: the runtime completed the store with the value
 *                    still in memory, and under tso/lkmm the buffer wrote
 *                    that stale value back over the copy: a false report)
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

static int counter, data, slot[2];
static pthread_spinlock_t sl;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_barrier_t bar;
static sem_t sem;
struct pair { int key, val; };     /* 8 bytes: one access */
static struct pair orig[2] = { { 1, 10 }, { 2, 20 } }, copy[2];

static void init_data(void)
{
	data = 42;
}

static void *worker(void *arg)
{
	long id = (long)arg;

#if defined(SHAPE_SPIN)
	pthread_spin_lock(&sl);
	counter++;
	pthread_spin_unlock(&sl);
#elif defined(SHAPE_ONCE)
	pthread_once(&once, init_data);
	assert(data == 42);
#elif defined(SHAPE_BARRIER)
	slot[id] = 1;
	pthread_barrier_wait(&bar);
	assert(slot[1 - id] == 1);
#elif defined(SHAPE_SEM)
	if (id == 0) {
		data = 7;
		sem_post(&sem);
	} else {
		sem_wait(&sem);
		assert(data == 7);
	}
#elif defined(SHAPE_COPY)
	copy[id] = orig[id];
#endif
	(void)id;
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE);
	pthread_barrier_init(&bar, NULL, 2);
	sem_init(&sem, 0, 0);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
#if defined(SHAPE_SPIN)
	assert(counter == 2);
#elif defined(SHAPE_COPY)
	for (int i = 0; i < 2; i++)
		assert(copy[i].key == orig[i].key && copy[i].val == orig[i].val);
#endif
	return 0;
}
