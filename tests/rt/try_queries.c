/*
 * try_queries.c - each trylock and state query of the C library's
 * primitives, racing with another thread's hold (argv[1] names which):
 * the main thread's query is "busy" when it saw the holder inside, and
 * asserts it was not. Plain dfs finds that order; a reduction finds it
 * only if the query's dependence record names what the holder changes (a
 * query with no READ record looks independent of the hold, and the search
 * certifies the program). ctests rt_query_<variant>_source: dfs under
 * --por source reports the assertion.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <threads.h>

static const char *variant;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static sem_t sem;
static mtx_t c11_mutex;

static int is(const char *name)
{
	return strcmp(variant, name) == 0;
}

/* the holder: takes the variant's primitive and gives it back */
static void *holder(void *arg)
{
	(void)arg;
	if (is("mutex-trylock")) {
		pthread_mutex_lock(&mutex);
		pthread_mutex_unlock(&mutex);
	} else if (is("rwlock-tryrdlock")) {
		pthread_rwlock_wrlock(&rwlock);
		pthread_rwlock_unlock(&rwlock);
	} else if (is("rwlock-trywrlock")) {
		pthread_rwlock_rdlock(&rwlock);
		pthread_rwlock_unlock(&rwlock);
	} else if (is("spin-trylock")) {
		pthread_spin_lock(&spin);
		pthread_spin_unlock(&spin);
	} else if (is("sem-trywait") || is("sem-getvalue")) {
		sem_wait(&sem);
		sem_post(&sem);
	} else if (is("mtx-trylock")) {
		mtx_lock(&c11_mutex);
		mtx_unlock(&c11_mutex);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int busy = 0, value;

	variant = argc > 1 ? argv[1] : "mutex-trylock";
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	sem_init(&sem, 0, 1);
	mtx_init(&c11_mutex, mtx_plain);
	pthread_create(&t, NULL, holder, NULL);
	if (is("mutex-trylock")) {
		busy = pthread_mutex_trylock(&mutex) != 0;
		if (!busy)
			pthread_mutex_unlock(&mutex);
	} else if (is("rwlock-tryrdlock") || is("rwlock-trywrlock")) {
		busy = (is("rwlock-tryrdlock") ? pthread_rwlock_tryrdlock(&rwlock)
					       : pthread_rwlock_trywrlock(&rwlock)) != 0;
		if (!busy)
			pthread_rwlock_unlock(&rwlock);
	} else if (is("spin-trylock")) {
		busy = pthread_spin_trylock(&spin) != 0;
		if (!busy)
			pthread_spin_unlock(&spin);
	} else if (is("sem-trywait")) {
		busy = sem_trywait(&sem) != 0;
		if (!busy)
			sem_post(&sem);
	} else if (is("sem-getvalue")) {
		sem_getvalue(&sem, &value);
		busy = value == 0;
	} else if (is("mtx-trylock")) {
		busy = mtx_trylock(&c11_mutex) != thrd_success;
		if (!busy)
			mtx_unlock(&c11_mutex);
	} else if (is("tryjoin")) {
		busy = pthread_tryjoin_np(t, NULL) != 0;   /* the holder still runs */
		if (!busy)
			return 0;
	}
	assert(!busy);
	pthread_join(t, NULL);
	return 0;
}
