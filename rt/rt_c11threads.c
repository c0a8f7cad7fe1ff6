/*
 * rt_c11threads.c - C11's <threads.h> on Weft's machine. glibc implements
 * thrd_create(), mtx_lock(), cnd_wait() and the rest over its pthread
 * functions by internal calls, which interposing pthread_create() does not
 * see: without these, a program's thrd_create()d threads ran as real OS
 * threads beside the scheduler (false reports, NONDETERMINISM). Each
 * function here is the pthread function of the same meaning
 * (rt_pthread.c, rt_libc.c), whose site is this call's (rt_caller_pc());
 * outside an execution they are glibc's.
 *
 * Layouts are glibc's (2.28 and later): thrd_t is pthread_t, mtx_t and
 * cnd_t are unions the size of pthread_mutex_t and pthread_cond_t,
 * once_flag is pthread_once_t's int, tss_t is pthread_key_t. Results map
 * as C11 says: 0 thrd_success, EBUSY thrd_busy, ETIMEDOUT thrd_timedout,
 * ENOMEM thrd_nomem, anything else thrd_error.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <threads.h>
#include <time.h>

#include "rt_internal.h"

_Static_assert(sizeof(thrd_t) == sizeof(pthread_t), "thrd_t is pthread_t");
_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "mtx_t over pthread_mutex_t");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "cnd_t over pthread_cond_t");
_Static_assert(sizeof(once_flag) == sizeof(pthread_once_t), "once_flag over pthread_once_t");
_Static_assert(sizeof(tss_t) == sizeof(pthread_key_t), "tss_t is pthread_key_t");

static int thrd_result(int err)
{
	switch (err) {
	case 0:
		return thrd_success;
	case EBUSY:
		return thrd_busy;
	case ETIMEDOUT:
		return thrd_timedout;
	case ENOMEM:
		return thrd_nomem;
	default:
		return thrd_error;
	}
}

/* ---------------------------------------------------------------- threads */

/* thrd_create()'s function and argument, per thread of the execution (a
 * thread's slot is written before it can first run) */
static struct {
	thrd_start_t fn;
	void *arg;
} start_slot[WEFT_EXEC_MAX_THREADS];

static void *c11_start(void *slot)
{
	unsigned i = (unsigned)(uintptr_t)slot;

	return (void *)(intptr_t)start_slot[i].fn(start_slot[i].arg);
}

REAL(int, thrd_create, thrd_t *, thrd_start_t, void *)

int thrd_create(thrd_t *thr, thrd_start_t fn, void *arg)
{
	if (!rt_active())
		return get_thrd_create()(thr, fn, arg);
	unsigned tid = M.nr_threads;   /* the number pthread_create() gives it */
	if (tid < WEFT_EXEC_MAX_THREADS) {
		start_slot[tid].fn = fn;
		start_slot[tid].arg = arg;
		rt_escape_handoff((uint64_t)(uintptr_t)arg, RT_USER_FP());   /* as pthread_create()'s */
	}
	pthread_t th = 0;
	int err = RT_AS_CALLER(pthread_create(&th, NULL, c11_start, (void *)(uintptr_t)tid));
	if (err == 0)
		*thr = th;
	return thrd_result(err);
}

int thrd_join(thrd_t thr, int *res)
{
	void *ret = NULL;
	int err = RT_AS_CALLER(pthread_join(thr, &ret));

	if (err == 0 && res)
		*res = (int)(intptr_t)ret;
	return thrd_result(err);
}

int thrd_detach(thrd_t thr)
{
	return thrd_result(pthread_detach(thr));
}

_Noreturn void thrd_exit(int res)
{
	if (M.cur >= 0 && !rt_th[M.cur].c11_pc)
		rt_th[M.cur].c11_pc = __builtin_return_address(0);
	pthread_exit((void *)(intptr_t)res);
}

thrd_t thrd_current(void)
{
	return pthread_self();
}

int thrd_equal(thrd_t a, thrd_t b)
{
	return a == b;
}

void thrd_yield(void)
{
	RT_AS_CALLER(sched_yield());
}

int thrd_sleep(const struct timespec *duration, struct timespec *remaining)
{
	int r = RT_AS_CALLER(nanosleep(duration, remaining));

	return r == 0 ? 0 : errno == EINTR ? -1 : -2;
}

/* ---------------------------------------------------------------- mutexes */

int mtx_init(mtx_t *m, int type)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	if (type & mtx_recursive)
		pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	int err = RT_AS_CALLER(pthread_mutex_init((pthread_mutex_t *)(void *)m, &attr));
	pthread_mutexattr_destroy(&attr);
	return thrd_result(err);
}

int mtx_lock(mtx_t *m)
{
	return thrd_result(RT_AS_CALLER(pthread_mutex_lock((pthread_mutex_t *)(void *)m)));
}

int mtx_trylock(mtx_t *m)
{
	return thrd_result(RT_AS_CALLER(pthread_mutex_trylock((pthread_mutex_t *)(void *)m)));
}

int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
	return thrd_result(RT_AS_CALLER(pthread_mutex_timedlock((pthread_mutex_t *)(void *)m, ts)));
}

int mtx_unlock(mtx_t *m)
{
	return thrd_result(RT_AS_CALLER(pthread_mutex_unlock((pthread_mutex_t *)(void *)m)));
}

void mtx_destroy(mtx_t *m)
{
	RT_AS_CALLER(pthread_mutex_destroy((pthread_mutex_t *)(void *)m));
}

/* ------------------------------------------------------------- conditions */

int cnd_init(cnd_t *c)
{
	return thrd_result(RT_AS_CALLER(pthread_cond_init((pthread_cond_t *)(void *)c, NULL)));
}

int cnd_signal(cnd_t *c)
{
	return thrd_result(RT_AS_CALLER(pthread_cond_signal((pthread_cond_t *)(void *)c)));
}

int cnd_broadcast(cnd_t *c)
{
	return thrd_result(RT_AS_CALLER(pthread_cond_broadcast((pthread_cond_t *)(void *)c)));
}

int cnd_wait(cnd_t *c, mtx_t *m)
{
	return thrd_result(RT_AS_CALLER(
		pthread_cond_wait((pthread_cond_t *)(void *)c, (pthread_mutex_t *)(void *)m)));
}

int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict ts)
{
	return thrd_result(RT_AS_CALLER(pthread_cond_timedwait(
		(pthread_cond_t *)(void *)c, (pthread_mutex_t *)(void *)m, ts)));
}

void cnd_destroy(cnd_t *c)
{
	RT_AS_CALLER(pthread_cond_destroy((pthread_cond_t *)(void *)c));
}

/* ------------------------------------------------------- once, thread keys */

void call_once(once_flag *flag, void (*fn)(void))
{
	RT_AS_CALLER(pthread_once((pthread_once_t *)(void *)flag, fn));
}

int tss_create(tss_t *key, tss_dtor_t dtor)
{
	return thrd_result(RT_AS_CALLER(pthread_key_create((pthread_key_t *)key, dtor)));
}

void *tss_get(tss_t key)
{
	return pthread_getspecific(key);
}

int tss_set(tss_t key, void *val)
{
	return thrd_result(RT_AS_CALLER(pthread_setspecific(key, val)));
}

void tss_delete(tss_t key)
{
	RT_AS_CALLER(pthread_key_delete(key));
}
