/*
 * rt_pthread_np.c - the rest of glibc's pthread API on Weft's machine: the
 * clock and timed variants, the joins that do not wait, and the functions
 * that take a pthread_t (pthread_yield() is sched_yield() in glibc's
 * header, which rt_libc.c defines). A pthread_t of an execution is a thread number
 * + 1 (rt_pthread.c), not glibc's thread descriptor: passed to glibc's own
 * pthread_setname_np() it was dereferenced, and a program that names its
 * threads was reported as a crash. Outside an execution each is glibc's.
 *
 *   *_clockwait, *_clocklock, sem_clockwait
 *                                        the timed form (the clock does not
 *                                        matter: time does not pass)
 *   pthread_rwlock_timed/clock{rd,wr}lock  the lock, or (a choice, when it
 *                                        is taken) a time-out after others ran
 *   pthread_tryjoin_np                   the join if the thread has ended,
 *                                        else EBUSY
 *   pthread_timedjoin_np, _clockjoin_np  the same, else (a choice) the join
 *                                        or a time-out after others ran
 *   pthread_setname_np, _getname_np      a name per thread (15 bytes)
 *   scheduling parameters, affinity      accepted, no effect (Weft's search
 *                                        decides who runs); the affinity is
 *                                        the thread's fake CPU
 *   pthread_getattr_np                   default attributes
 *   pthread_kill(t, 0)                   whether t exists
 *   pthread_cancel, pthread_kill,        not modelled: the execution ends with
 *   pthread_sigqueue                     a limit-reached report naming it
 *                                        (no verdict), never a crash
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "rt_internal.h"

#define PC() rt_caller_pc(__builtin_return_address(0))
#define SITE(ev, name) RT_CALL_SITE(PC(), (ev), (name))

REAL(int, pthread_cond_clockwait, pthread_cond_t *, pthread_mutex_t *, clockid_t,
     const struct timespec *)
REAL(int, pthread_mutex_clocklock, pthread_mutex_t *, clockid_t, const struct timespec *)
REAL(int, sem_clockwait, sem_t *, clockid_t, const struct timespec *)
REAL(int, pthread_rwlock_timedrdlock, pthread_rwlock_t *, const struct timespec *)
REAL(int, pthread_rwlock_timedwrlock, pthread_rwlock_t *, const struct timespec *)
REAL(int, pthread_rwlock_clockrdlock, pthread_rwlock_t *, clockid_t, const struct timespec *)
REAL(int, pthread_rwlock_clockwrlock, pthread_rwlock_t *, clockid_t, const struct timespec *)
REAL(int, pthread_tryjoin_np, pthread_t, void **)
REAL(int, pthread_timedjoin_np, pthread_t, void **, const struct timespec *)
REAL(int, pthread_clockjoin_np, pthread_t, void **, clockid_t, const struct timespec *)
REAL(int, pthread_setname_np, pthread_t, const char *)
REAL(int, pthread_getname_np, pthread_t, char *, size_t)
REAL(int, pthread_getschedparam, pthread_t, int *, struct sched_param *)
REAL(int, pthread_setschedparam, pthread_t, int, const struct sched_param *)
REAL(int, pthread_setschedprio, pthread_t, int)
REAL(int, pthread_setaffinity_np, pthread_t, size_t, const cpu_set_t *)
REAL(int, pthread_getaffinity_np, pthread_t, size_t, cpu_set_t *)
REAL(int, pthread_getattr_np, pthread_t, pthread_attr_t *)
REAL(int, pthread_getcpuclockid, pthread_t, clockid_t *)
REAL(int, pthread_cancel, pthread_t)
REAL(int, pthread_kill, pthread_t, int)
REAL(int, pthread_sigqueue, pthread_t, int, const union sigval)

static int thread_of(pthread_t th)
{
	return th >= 1 && th <= M.nr_threads ? (int)th - 1 : -1;
}

static bool ended(int tid)
{
	return M.th[tid].state == T_DONE;
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
			   const struct timespec *ts)
{
	if (!rt_active())
		return get_pthread_cond_clockwait()(c, m, clk, ts);
	return RT_AS_CALLER(pthread_cond_timedwait(c, m, ts));
}

int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *ts)
{
	if (!rt_active())
		return get_pthread_mutex_clocklock()(m, clk, ts);
	return RT_AS_CALLER(pthread_mutex_timedlock(m, ts));
}

int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *ts)
{
	if (!rt_active())
		return get_sem_clockwait()(s, clk, ts);
	return RT_AS_CALLER(sem_timedwait(s, ts));
}

/* a timed rwlock: the lock if free; else it waits for it or (a choice)
 * gives up after the others ran */
static int rwlock_timed(pthread_rwlock_t *l, bool write, void *pc)
{
	int r = RT_AS_CALLER_AT(pc, write ? pthread_rwlock_trywrlock(l) : pthread_rwlock_tryrdlock(l));
	if (r == EBUSY) {
		const struct weft_site *s = RT_CALL_SITE(pc, WEFT_EV_CHOICE,
							 write ? "pthread_rwlock_timedwrlock: times out?"
							       : "pthread_rwlock_timedrdlock: times out?");
		if (weft_choose(2, s)) {
			weft_yield(RT_CALL_SITE(pc, WEFT_EV_YIELD, "pthread_rwlock_timedlock"));
			r = ETIMEDOUT;
		} else {
			r = RT_AS_CALLER_AT(pc, write ? pthread_rwlock_wrlock(l) : pthread_rwlock_rdlock(l));
		}
	}
	return r;
}

#define RWLOCK_TIMED(name, write, ...)                                            \
	int name(pthread_rwlock_t *l, __VA_ARGS__)                                \
	{                                                                         \
		if (!rt_active())                                                 \
			return get_##name()(l, ARGS_##name);                      \
		return rwlock_timed(l, (write), PC());                            \
	}
#define ARGS_pthread_rwlock_timedrdlock ts
#define ARGS_pthread_rwlock_timedwrlock ts
#define ARGS_pthread_rwlock_clockrdlock clk, ts
#define ARGS_pthread_rwlock_clockwrlock clk, ts
RWLOCK_TIMED(pthread_rwlock_timedrdlock, false, const struct timespec *ts)
RWLOCK_TIMED(pthread_rwlock_timedwrlock, true, const struct timespec *ts)
RWLOCK_TIMED(pthread_rwlock_clockrdlock, false, clockid_t clk, const struct timespec *ts)
RWLOCK_TIMED(pthread_rwlock_clockwrlock, true, clockid_t clk, const struct timespec *ts)

/* ------------------------------------------------------------------ joins */

/* the join if t has ended; else EBUSY, or, timed (a choice), the join or
 * ETIMEDOUT after the others ran */
static int join_unless(pthread_t th, void **ret, bool timed, void *pc)
{
	int tid = thread_of(th);

	if (tid < 0)
		return ESRCH;
	/* whether t has ended is no dependence record: the reduction would
	 * never try the order in which this comes first */
	weft_sched_untracked("pthread_tryjoin_np() or pthread_timedjoin_np() looked at whether "
			     "a thread has ended, which the reduction does not track");
	const struct weft_site *s = RT_CALL_SITE(pc, WEFT_EV_NOTE, timed ? "pthread_timedjoin_np"
									 : "pthread_tryjoin_np");
	sched_point(s);
	weft_trace(WEFT_EV_NOTE, WEFT_NO_LOC, (uint64_t)tid, ended(tid), s);
	weft_sched_step(WEFT_DEP_NONE, WEFT_NO_LOC, 0, 0, s);
	if (!ended(tid)) {
		if (!timed)
			return EBUSY;
		if (weft_choose(2, RT_CALL_SITE(pc, WEFT_EV_CHOICE,
						"pthread_timedjoin_np: times out?"))) {
			weft_yield(RT_CALL_SITE(pc, WEFT_EV_YIELD, "pthread_timedjoin_np"));
			return ETIMEDOUT;
		}
	}
	return RT_AS_CALLER_AT(pc, pthread_join(th, ret));
}

int pthread_tryjoin_np(pthread_t th, void **ret)
{
	if (!rt_active())
		return get_pthread_tryjoin_np()(th, ret);
	return join_unless(th, ret, false, PC());
}

int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *ts)
{
	if (!rt_active())
		return get_pthread_timedjoin_np()(th, ret, ts);
	return join_unless(th, ret, true, PC());
}

int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clk, const struct timespec *ts)
{
	if (!rt_active())
		return get_pthread_clockjoin_np()(th, ret, clk, ts);
	return join_unless(th, ret, true, PC());
}

/* ------------------------------------------------ names, scheduling, CPUs */

static char names[WEFT_EXEC_MAX_THREADS][16];

int pthread_setname_np(pthread_t th, const char *name)
{
	if (!rt_active())
		return get_pthread_setname_np()(th, name);
	int tid = thread_of(th);
	if (tid < 0)
		return ESRCH;
	if (strlen(name) >= sizeof(names[0]))
		return ERANGE;
	strcpy(names[tid], name);
	return 0;
}

int pthread_getname_np(pthread_t th, char *buf, size_t len)
{
	if (!rt_active())
		return get_pthread_getname_np()(th, buf,
											 len);
	int tid = thread_of(th);
	if (tid < 0)
		return ESRCH;
	if (strlen(names[tid]) >= len)
		return ERANGE;
	strcpy(buf, names[tid]);
	return 0;
}

/* a new execution's threads have no names (rt_world.c) */
void rt_pthread_np_reset(void)
{
	memset(names, 0, sizeof(names));
}

int pthread_getschedparam(pthread_t th, int *policy, struct sched_param *param)
{
	if (!rt_active())
		return get_pthread_getschedparam()(th, policy, param);
	if (thread_of(th) < 0)
		return ESRCH;
	*policy = SCHED_OTHER;
	memset(param, 0, sizeof(*param));
	return 0;
}

int pthread_setschedparam(pthread_t th, int policy, const struct sched_param *param)
{
	if (!rt_active())
		return get_pthread_setschedparam()(th, policy, param);
	return thread_of(th) < 0 ? ESRCH : 0;
}

int pthread_setschedprio(pthread_t th, int prio)
{
	if (!rt_active())
		return get_pthread_setschedprio()(th, prio);
	return thread_of(th) < 0 ? ESRCH : 0;
}

int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *set)
{
	if (!rt_active())
		return get_pthread_setaffinity_np()(th, size, set);
	return thread_of(th) < 0 ? ESRCH : 0;
}

int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *set)
{
	if (!rt_active())
		return get_pthread_getaffinity_np()(th, size, set);
	int tid = thread_of(th);
	if (tid < 0)
		return ESRCH;
	CPU_ZERO_S(size, set);
	if ((size_t)M.cpu_of[tid] >= size * 8)
		return EINVAL;
	CPU_SET_S(M.cpu_of[tid], size, set);
	return 0;
}

int pthread_getattr_np(pthread_t th, pthread_attr_t *attr)
{
	if (!rt_active())
		return get_pthread_getattr_np()(th, attr);
	if (thread_of(th) < 0)
		return ESRCH;
	return pthread_attr_init(attr);
}

int pthread_getcpuclockid(pthread_t th, clockid_t *clk)
{
	if (!rt_active())
		return get_pthread_getcpuclockid()(th, clk);
	(void)clk;
	return thread_of(th) < 0 ? ESRCH : ENOENT;   /* no CPU-time clock per thread */
}

/* ------------------------------------------------------ not modelled */

static int not_modelled(void *pc, const char *what)
{
	rt_not_modelled(pc, what, "threads are never cancelled or signalled");
	return ENOTSUP;
}

int pthread_cancel(pthread_t th)
{
	if (!rt_active())
		return get_pthread_cancel()(th);
	if (thread_of(th) < 0)
		return ESRCH;
	return not_modelled(PC(), "pthread_cancel()");
}

int pthread_kill(pthread_t th, int sig)
{
	if (!rt_active())
		return get_pthread_kill()(th, sig);
	int tid = thread_of(th);
	if (tid < 0)
		return ESRCH;
	if (sig == 0)   /* does it exist? */
		return ended(tid) && rt_th[tid].joined ? ESRCH : 0;
	return not_modelled(PC(), "pthread_kill()");
}

int pthread_sigqueue(pthread_t th, int sig, const union sigval val)
{
	if (!rt_active())
		return get_pthread_sigqueue()(
			th, sig, val);
	if (thread_of(th) < 0)
		return ESRCH;
	return not_modelled(PC(), "pthread_sigqueue()");
}
