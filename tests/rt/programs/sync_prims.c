/*
 * Every pthread family Weft maps, used correctly: a recursive mutex, an
 * rwlock, a barrier, pthread_once, thread-specific data with a destructor,
 * a spinlock, a semaphore and C11 atomics. -DFIXED is the correct program;
 * without it the barrier expects a third thread that never comes, and the
 * two threads sleep on it for ever.
 *
 * weft-expect: bug lost-wakeup
 * weft-expect-fixed: clean
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>

#ifdef FIXED
#define PARTIES 2
#else
#define PARTIES 3
#endif

static pthread_mutex_t rec;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t barrier;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static pthread_spinlock_t spin;
static sem_t done;
static int inits, table[2], spun;
static atomic_int hits;

static void init_once(void) { inits++; }
static void drop(void *p) { free(p); }

static void *worker(void *arg)
{
	long id = (long)arg;
	int *mine = malloc(sizeof(*mine));

	pthread_once(&once, init_once);
	*mine = (int)id;
	pthread_setspecific(key, mine);
	pthread_rwlock_wrlock(&rw);
	table[id] = (int)id + 1;
	pthread_rwlock_unlock(&rw);
	pthread_barrier_wait(&barrier);
	pthread_rwlock_rdlock(&rw);
	int sum = table[0] + table[1];
	pthread_rwlock_unlock(&rw);
	assert(sum == 3);
	pthread_mutex_lock(&rec);
	pthread_mutex_lock(&rec);
	atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed);
	pthread_mutex_unlock(&rec);
	pthread_mutex_unlock(&rec);
	pthread_spin_lock(&spin);
	spun++;
	pthread_spin_unlock(&spin);
	assert(*(int *)pthread_getspecific(key) == id);
	sem_post(&done);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&rec, &attr);
	pthread_barrier_init(&barrier, NULL, PARTIES);
	pthread_key_create(&key, drop);
	pthread_spin_init(&spin, 0);
	sem_init(&done, 0, 0);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	sem_wait(&done);
	sem_wait(&done);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(inits == 1 && atomic_load(&hits) == 2 && spun == 2);
	return 0;
}
