/*
 * glibc's non-portable and clock variants (rt/rt_pthread_np.c): a worker
 * publishes a result, main polls for it with pthread_tryjoin_np(), names
 * it with pthread_setname_np(), then uses pthread_timedjoin_np(), the clock
 * and timed lock variants, scheduling parameters and affinity on Weft's
 * thread numbers. A pthread_t there is not glibc's descriptor: glibc's own
 * pthread_setname_np() crashed on it. The bug takes the first tryjoin's
 * result as the thread's even when it said EBUSY; -DFIXED polls until it
 * succeeds.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: clean
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static int result;

static void *worker(void *arg)
{
	struct timespec ts = { 0, 0 };

	(void)arg;
	if (pthread_rwlock_timedwrlock(&rw, &ts) == 0) {
		result = 42;
		pthread_rwlock_unlock(&rw);
	} else {
		pthread_rwlock_wrlock(&rw);
		result = 42;
		pthread_rwlock_unlock(&rw);
	}
	sem_post(&sem);
	return (void *)(long)result;
}

int main(void)
{
	pthread_t t, t2;
	void *ret = NULL;
	char name[16];
	struct timespec ts = { 0, 0 };
	struct sched_param sp;
	int policy, r;
	cpu_set_t cpus;

	sem_init(&sem, 0, 0);
	pthread_create(&t, NULL, worker, NULL);
#ifdef FIXED
	while ((r = pthread_tryjoin_np(t, &ret)) == EBUSY)
		sched_yield();
#else
	r = pthread_tryjoin_np(t, &ret);
#endif
	assert(r == 0 && (long)ret == 42);
	assert(pthread_setname_np(t, "worker") == 0);
	assert(pthread_getname_np(t, name, sizeof(name)) == 0 && strcmp(name, "worker") == 0);
	assert(pthread_setname_np(t, "a name that is far too long") == ERANGE);
	assert(pthread_getschedparam(t, &policy, &sp) == 0 && policy == SCHED_OTHER);
	assert(pthread_setschedparam(t, SCHED_OTHER, &sp) == 0);
	assert(pthread_getaffinity_np(t, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) == 1);
	assert(pthread_kill(t, 0) == ESRCH);   /* joined */
	if (pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts) == 0)
		pthread_rwlock_unlock(&rw);
	if (pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &ts) == 0) {
		r = pthread_cond_clockwait(&cv, &m, CLOCK_MONOTONIC, &ts);
		assert(r == 0 || r == ETIMEDOUT);
		pthread_mutex_unlock(&m);
	}
	r = sem_clockwait(&sem, CLOCK_MONOTONIC, &ts);
	assert(r == 0 || errno == ETIMEDOUT);
	pthread_create(&t2, NULL, worker, NULL);
	r = pthread_timedjoin_np(t2, &ret, &ts);
	assert(r == 0 ? (long)ret == 42 : r == ETIMEDOUT);
	if (r == ETIMEDOUT)
		assert(pthread_join(t2, &ret) == 0 && (long)ret == 42);
	assert(pthread_kill(t2, 0) == ESRCH);
	return 0;
}
