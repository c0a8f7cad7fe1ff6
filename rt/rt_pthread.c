/*
 * rt_pthread.c - the POSIX threads of an instrumented program on Weft's
 * machine. During an execution each call maps onto the primitive of the
 * same meaning (<weft/sleep.h>, <weft/kernel.h>): a scheduling point, a
 * trace event and a dependence record at the caller's site; otherwise it
 * forwards to the C library (dlsym(RTLD_NEXT)), so the program still runs
 * natively.
 *
 *   threads      pthread_create: weft_thread_spawn() onto a fake CPU of its
 *                own; join, detach, exit, self, equal; pthread_t is the
 *                thread's number + 1 (the same in every execution)
 *   mutexes      struct weft_mutex laid over pthread_mutex_t's first words
 *                (glibc's __lock, __count), the type in glibc's __kind (so
 *                PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP works): normal
 *                (relock: deadlock; unlock by another: bad-unlock report),
 *                errorcheck (EDEADLK, EPERM), recursive; trylock; timedlock
 *                waits or times out (a choice)
 *   rwlocks      struct weft_rw_semaphore; try forms
 *   conditions   struct weft_pthread_cond: wait releases and sleeps as one
 *                step; spurious wake-ups as a choice with
 *                WEFT_SPURIOUS_WAKEUPS=1; timedwait releases, lets others
 *                run and re-takes, returning 0 or ETIMEDOUT (a choice)
 *   semaphores   struct weft_semaphore; trywait, timedwait (a choice)
 *   barriers     a count, a generation and a wait queue
 *   once         a word: 0, 1 done, 2 + the runner; latecomers block until done
 *   spinlocks    a word; a waiter blocks on it as on the kernel's spinlock
 *   keys         per-thread values outside the world; destructors at exit
 *
 * Every static initializer of glibc is all zero bytes but the recursive
 * and error-checking mutex ones, whose __kind the overlay reads.
 *
 * Length (~900 lines): one section per object family above, each mapping
 * POSIX's error cases; they share the interposition (dlsym) and the
 * in-execution test, which is why they stay in one file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory/memory.h"
#include "rt_internal.h"

#define PC() rt_caller_pc(__builtin_return_address(0))

/* the condition functions are versioned: the default is GLIBC_2.3.2 */
#define REALV(ret, name, ver, ...)                                                \
	static ret (*real_##name)(__VA_ARGS__);                                   \
	static ret (*get_##name(void))(__VA_ARGS__)                               \
	{                                                                         \
		if (!real_##name)                                                 \
			real_##name = (ret(*)(__VA_ARGS__))dlvsym(RTLD_NEXT, #name, ver); \
		if (!real_##name)                                                 \
			real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name); \
		return real_##name;                                               \
	}

REAL(int, pthread_create, pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)
REAL(int, pthread_join, pthread_t, void **)
REAL(int, pthread_detach, pthread_t)
REAL(void, pthread_exit, void *)
REAL(pthread_t, pthread_self, void)
REAL(int, pthread_mutex_init, pthread_mutex_t *, const pthread_mutexattr_t *)
REAL(int, pthread_mutex_destroy, pthread_mutex_t *)
REAL(int, pthread_mutex_lock, pthread_mutex_t *)
REAL(int, pthread_mutex_trylock, pthread_mutex_t *)
REAL(int, pthread_mutex_timedlock, pthread_mutex_t *, const struct timespec *)
REAL(int, pthread_mutex_unlock, pthread_mutex_t *)
REALV(int, pthread_cond_init, "GLIBC_2.3.2", pthread_cond_t *, const pthread_condattr_t *)
REALV(int, pthread_cond_destroy, "GLIBC_2.3.2", pthread_cond_t *)
REALV(int, pthread_cond_wait, "GLIBC_2.3.2", pthread_cond_t *, pthread_mutex_t *)
REALV(int, pthread_cond_timedwait, "GLIBC_2.3.2", pthread_cond_t *, pthread_mutex_t *,
      const struct timespec *)
REALV(int, pthread_cond_signal, "GLIBC_2.3.2", pthread_cond_t *)
REALV(int, pthread_cond_broadcast, "GLIBC_2.3.2", pthread_cond_t *)
REAL(int, pthread_rwlock_init, pthread_rwlock_t *, const pthread_rwlockattr_t *)
REAL(int, pthread_rwlock_destroy, pthread_rwlock_t *)
REAL(int, pthread_rwlock_rdlock, pthread_rwlock_t *)
REAL(int, pthread_rwlock_tryrdlock, pthread_rwlock_t *)
REAL(int, pthread_rwlock_wrlock, pthread_rwlock_t *)
REAL(int, pthread_rwlock_trywrlock, pthread_rwlock_t *)
REAL(int, pthread_rwlock_unlock, pthread_rwlock_t *)
REAL(int, pthread_spin_init, pthread_spinlock_t *, int)
REAL(int, pthread_spin_destroy, pthread_spinlock_t *)
REAL(int, pthread_spin_lock, pthread_spinlock_t *)
REAL(int, pthread_spin_trylock, pthread_spinlock_t *)
REAL(int, pthread_spin_unlock, pthread_spinlock_t *)
REAL(int, pthread_barrier_init, pthread_barrier_t *, const pthread_barrierattr_t *, unsigned)
REAL(int, pthread_barrier_destroy, pthread_barrier_t *)
REAL(int, pthread_barrier_wait, pthread_barrier_t *)
REAL(int, pthread_once, pthread_once_t *, void (*)(void))
REAL(int, pthread_key_create, pthread_key_t *, void (*)(void *))
REAL(int, pthread_key_delete, pthread_key_t)
REAL(void *, pthread_getspecific, pthread_key_t)
REAL(int, pthread_setspecific, pthread_key_t, const void *)
REAL(int, sem_init, sem_t *, int, unsigned)
REAL(int, sem_destroy, sem_t *)
REAL(int, sem_wait, sem_t *)
REAL(int, sem_trywait, sem_t *)
REAL(int, sem_timedwait, sem_t *, const struct timespec *)
REAL(int, sem_post, sem_t *)
REAL(int, sem_getvalue, sem_t *, int *)

/* The site of the interposed call: the program's instruction that made it. */
#define SITE(ev, name) RT_CALL_SITE(PC(), (ev), (name))

/* Enter the runtime from a program thread: complete its last store, and
 * inside a __VERIFIER_atomic_* section take no decision at this point. */
static inline void enter(void)
{
	rt_flush();
	if (rt_th[M.cur].atomic_depth)
		M.th[M.cur].pass = true;
}

static inline unsigned me(void)
{
	return (unsigned)M.cur;
}

/* -------------------------------------------------------------- threads */

void rt_threads_reset(void)
{
	void rt_tsan_thread_reset(unsigned tid);

	memset(&rt_th[0], 0, offsetof(struct rt_thread, jb));
	rt_tsan_thread_reset(0);
	/* threads the machine spawns (the kit's kworkers, which
	 * <weft/linux/kernel_compat.h>'s queue_work_on() starts) begin with an
	 * empty call stack too; pthread_create() clears the rest of its own */
	for (unsigned t = 1; t < WEFT_EXEC_MAX_THREADS; t++) {
		rt_th[t].depth = 0;
		rt_th[t].atomic_depth = 0;
		rt_tsan_thread_reset(t);
	}
}

/* <weft/linux/...> headers call libweft (preemption, work items) straight
 * from instrumented code: the thread's open plain access is completed
 * first, as every interposed call does. */
void weft_rt_enter(void);
void weft_rt_enter(void)
{
	if (rt_active())
		enter();
}

static void thread_body(void *world, void *arg)
{
	unsigned tid = me();
	struct rt_thread *t = &rt_th[tid];

	(void)world;
	(void)arg;
	rt_stack_scrub(tid);
	if (__builtin_setjmp(t->jb) == 0)
		t->ret = t->fn(t->arg);
	rt_flush();
	rt_thread_exit_hooks(tid);
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (!rt_active())
		return get_pthread_create()(th, attr, fn, arg);
	enter();
	const struct weft_site *s = SITE(WEFT_EV_SPAWN, "pthread_create");
	if (M.nr_threads >= WEFT_EXEC_MAX_THREADS) {
		weft_report(WEFT_KIND_LIMIT, NULL, s,
			    "limit reached: pthread_create of a thread beyond %d threads in one "
			    "execution", WEFT_EXEC_MAX_THREADS);
		return EAGAIN;
	}
	int detach = PTHREAD_CREATE_JOINABLE;
	if (attr)
		pthread_attr_getdetachstate(attr, &detach);
	/* a fake CPU of its own (the scenario has WEFT_EXEC_MAX_CPUS) */
	int tid = weft_thread_spawn(thread_body, NULL, M.nr_threads, s);
	if (tid < 0)
		return EAGAIN;
	/* the new thread runs at the creator's next point at the earliest */
	struct rt_thread *t = &rt_th[tid];
	memset(t, 0, offsetof(struct rt_thread, jb));
	void rt_tsan_thread_reset(unsigned tid);
	rt_tsan_thread_reset((unsigned)tid);
	t->fn = fn;
	t->arg = arg;
	/* a local handed to the new thread: its owner's accesses are points */
	rt_escape_handoff((uint64_t)(uintptr_t)arg, RT_USER_FP());
	t->detached = detach == PTHREAD_CREATE_DETACHED;
	/* POSIX: pthread_create() synchronizes memory (4.12): under a weak
	 * --memory the creator's stores are visible and the new thread reads
	 * no older values than the creator could */
	if (weft_mem_weak)
		weft_mem_migrate(M.cpu_of[me()], M.cpu_of[tid]);
	*th = (pthread_t)tid + 1;
	rt_silent_write(th, sizeof(*th), (uint64_t)tid + 1, s);
	return 0;
}

static int tid_of(pthread_t th)
{
	return th >= 1 && th <= M.nr_threads ? (int)th - 1 : -1;
}

int pthread_join(pthread_t th, void **ret)
{
	if (!rt_active())
		return get_pthread_join()(th, ret);
	enter();
	const struct weft_site *s = SITE(WEFT_EV_JOIN, "pthread_join");
	int tid = tid_of(th);
	if (tid < 0)
		return ESRCH;
	if (tid == M.cur)
		return EDEADLK;
	if (rt_th[tid].detached || rt_th[tid].joined)
		return EINVAL;
	weft_thread_join(tid, s);
	/* and so does pthread_join(): the joined thread's stores are visible */
	if (weft_mem_weak)
		weft_mem_migrate(M.cpu_of[tid], M.cpu_of[me()]);
	rt_th[tid].joined = true;
	if (ret) {
		*ret = rt_th[tid].ret;
		rt_silent_write(ret, sizeof(*ret), (uint64_t)(uintptr_t)rt_th[tid].ret, s);
	}
	return 0;
}

int pthread_detach(pthread_t th)
{
	if (!rt_active())
		return get_pthread_detach()(th);
	int tid = tid_of(th);
	if (tid < 0)
		return ESRCH;
	if (rt_th[tid].detached)
		return EINVAL;
	rt_th[tid].detached = true;
	return 0;
}

void pthread_exit(void *ret)
{
	if (!rt_active())
		get_pthread_exit()(ret);
	enter();
	struct rt_thread *t = &rt_th[me()];
	t->ret = ret;
	t->exited = true;
	__builtin_longjmp(t->jb, 1);
}

pthread_t pthread_self(void)
{
	if (!rt_active())
		return get_pthread_self()();
	return (pthread_t)me() + 1;
}

int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

/* -------------------------------------------------------------- mutexes */

struct rt_mutex {
	struct weft_mutex m;      /* glibc __lock, __count */
	uint32_t depth;           /* __owner: recursive holds beyond the first */
	uint32_t pad;             /* __nusers */
	int kind;                 /* __kind: PTHREAD_MUTEX_* (+ flags above 3) */
};
_Static_assert(offsetof(pthread_mutex_t, __data.__kind) == offsetof(struct rt_mutex, kind),
	       "the mutex type where glibc's static initializers put it");
_Static_assert(sizeof(struct rt_mutex) <= sizeof(pthread_mutex_t), "fits pthread_mutex_t");

static inline struct rt_mutex *mx(pthread_mutex_t *m)
{
	return (struct rt_mutex *)(void *)m;
}

int pthread_mutex_init(pthread_mutex_t *pm, const pthread_mutexattr_t *attr)
{
	if (!rt_active())
		return get_pthread_mutex_init()(pm, attr);
	enter();
	int kind = PTHREAD_MUTEX_NORMAL;
	if (attr)
		pthread_mutexattr_gettype(attr, &kind);
	struct rt_mutex *m = mx(pm);
	m->depth = 0;
	m->pad = 0;
	m->kind = kind;
	weft_mutex_init(&m->m, SITE(WEFT_EV_WRITE, "pthread_mutex_init"));
	return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *pm)
{
	if (!rt_active())
		return get_pthread_mutex_destroy()(pm);
	return weft_peek(mx(pm)->m.owner) ? EBUSY : 0;
}

static int mutex_take(pthread_mutex_t *pm, void *pc, bool try)
{
	struct rt_mutex *m = mx(pm);
	int kind = m->kind & 3;
	uint32_t self = me() + 1;

	enter();
	if (kind != PTHREAD_MUTEX_NORMAL && weft_peek(m->m.owner) == self) {
		if (kind == PTHREAD_MUTEX_RECURSIVE) {
			m->depth++;
			return 0;
		}
		if (!try)
			return EDEADLK;
	}
	const struct weft_site *s = rt_site((uintptr_t)pc, RT_CALL | (try ? WEFT_EV_TRYLOCK : WEFT_EV_LOCK) << 4,
					    try ? WEFT_EV_TRYLOCK : WEFT_EV_LOCK,
					    try ? "pthread_mutex_trylock" : "pthread_mutex_lock");
	if (try)
		return weft_mutex_trylock(&m->m, s) ? 0 : EBUSY;
	weft_mutex_lock(&m->m, s);
	return 0;
}

int pthread_mutex_lock(pthread_mutex_t *pm)
{
	if (!rt_active())
		return get_pthread_mutex_lock()(pm);
	return mutex_take(pm, PC(), false);
}

int pthread_mutex_trylock(pthread_mutex_t *pm)
{
	if (!rt_active())
		return get_pthread_mutex_trylock()(pm);
	return mutex_take(pm, PC(), true);
}

int pthread_mutex_timedlock(pthread_mutex_t *pm, const struct timespec *ts)
{
	if (!rt_active())
		return get_pthread_mutex_timedlock()(pm, ts);
	/* it gets the lock, or (a choice) gives up after others ran */
	if (mutex_take(pm, PC(), true) == 0)
		return 0;
	if (weft_choose(2, SITE(WEFT_EV_CHOICE, "pthread_mutex_timedlock: times out?"))) {
		weft_yield(SITE(WEFT_EV_YIELD, "pthread_mutex_timedlock"));
		return ETIMEDOUT;
	}
	return mutex_take(pm, PC(), false);
}

int pthread_mutex_unlock(pthread_mutex_t *pm)
{
	if (!rt_active())
		return get_pthread_mutex_unlock()(pm);
	struct rt_mutex *m = mx(pm);
	int kind = m->kind & 3;

	enter();
	if (kind != PTHREAD_MUTEX_NORMAL) {
		if (weft_peek(m->m.owner) != me() + 1)
			return EPERM;
		if (m->depth) {
			m->depth--;
			return 0;
		}
	}
	weft_mutex_unlock_posix(&m->m, SITE(WEFT_EV_UNLOCK, "pthread_mutex_unlock"));
	return 0;
}

/* ---------------------------------------------------------- conditions */

static bool spurious(void)
{
	static int on = -1;

	if (on < 0) {
		const char *e = getenv("WEFT_SPURIOUS_WAKEUPS");
		on = e && !strcmp(e, "1");
	}
	return on;
}

_Static_assert(sizeof(struct weft_pthread_cond) <= sizeof(pthread_cond_t), "fits pthread_cond_t");

static inline struct weft_pthread_cond *cv(pthread_cond_t *c)
{
	return (struct weft_pthread_cond *)(void *)c;
}

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	if (!rt_active())
		return get_pthread_cond_init()(c, attr);
	enter();
	weft_cond_init(cv(c), spurious(), SITE(WEFT_EV_WRITE, "pthread_cond_init"));
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
	if (!rt_active())
		return get_pthread_cond_destroy()(c);
	return 0;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (!rt_active())
		return get_pthread_cond_wait()(c, m);
	enter();
	if (spurious())
		cv(c)->spurious = 1;   /* a statically initialized one */
	weft_cond_wait(cv(c), &mx(m)->m, SITE(WEFT_EV_WAIT, "pthread_cond_wait"));
	return 0;
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts)
{
	if (!rt_active())
		return get_pthread_cond_timedwait()(c, m, ts);
	enter();
	/* a timed wait may always return by its timeout: release, let the
	 * others run, re-take (a signal meanwhile is not waited for) */
	weft_mutex_unlock_posix(&mx(m)->m, SITE(WEFT_EV_UNLOCK, "pthread_cond_timedwait: releases"));
	weft_yield(SITE(WEFT_EV_YIELD, "pthread_cond_timedwait"));
	weft_mutex_lock(&mx(m)->m, SITE(WEFT_EV_LOCK, "pthread_cond_timedwait: re-takes"));
	return weft_choose(2, SITE(WEFT_EV_CHOICE, "pthread_cond_timedwait: timed out?"))
		       ? ETIMEDOUT : 0;
}

int pthread_cond_signal(pthread_cond_t *c)
{
	if (!rt_active())
		return get_pthread_cond_signal()(c);
	enter();
	weft_cond_wake(cv(c), false, SITE(WEFT_EV_WAKE, "pthread_cond_signal"));
	return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (!rt_active())
		return get_pthread_cond_broadcast()(c);
	enter();
	weft_cond_wake(cv(c), true, SITE(WEFT_EV_WAKE, "pthread_cond_broadcast"));
	return 0;
}

/* -------------------------------------------------------------- rwlocks */

_Static_assert(sizeof(struct weft_rw_semaphore) <= sizeof(pthread_rwlock_t), "fits");

static inline struct weft_rw_semaphore *rw(pthread_rwlock_t *l)
{
	return (struct weft_rw_semaphore *)(void *)l;
}

int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr)
{
	if (!rt_active())
		return get_pthread_rwlock_init()(l, attr);
	enter();
	weft_init_rwsem(rw(l), SITE(WEFT_EV_WRITE, "pthread_rwlock_init"));
	return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	if (!rt_active())
		return get_pthread_rwlock_destroy()(l);
	return weft_peek(rw(l)->writer) || weft_peek(rw(l)->readers) ? EBUSY : 0;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	if (!rt_active())
		return get_pthread_rwlock_rdlock()(l);
	enter();
	weft_down_read(rw(l), SITE(WEFT_EV_LOCK, "pthread_rwlock_rdlock"));
	return 0;
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	if (!rt_active())
		return get_pthread_rwlock_tryrdlock()(l);
	enter();
	return weft_down_read_trylock(rw(l), SITE(WEFT_EV_TRYLOCK, "pthread_rwlock_tryrdlock"))
		       ? 0 : EBUSY;
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	if (!rt_active())
		return get_pthread_rwlock_wrlock()(l);
	enter();
	if (weft_peek(rw(l)->writer) == me() + 1)
		return EDEADLK;
	weft_down_write(rw(l), SITE(WEFT_EV_LOCK, "pthread_rwlock_wrlock"));
	return 0;
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	if (!rt_active())
		return get_pthread_rwlock_trywrlock()(l);
	enter();
	return weft_down_write_trylock(rw(l), SITE(WEFT_EV_TRYLOCK, "pthread_rwlock_trywrlock"))
		       ? 0 : EBUSY;
}

int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	if (!rt_active())
		return get_pthread_rwlock_unlock()(l);
	enter();
	if (weft_peek(rw(l)->writer) == me() + 1)
		weft_up_write_posix(rw(l), SITE(WEFT_EV_UNLOCK, "pthread_rwlock_unlock"));
	else
		weft_up_read_posix(rw(l), SITE(WEFT_EV_UNLOCK, "pthread_rwlock_unlock"));
	return 0;
}

/* ----------------------------------------------------------- semaphores */

_Static_assert(sizeof(struct weft_semaphore) <= sizeof(sem_t), "fits sem_t");

static inline struct weft_semaphore *sm(sem_t *s)
{
	return (struct weft_semaphore *)(void *)s;
}

int sem_init(sem_t *s, int pshared, unsigned v)
{
	if (!rt_active())
		return get_sem_init()(s, pshared, v);
	enter();
	weft_sema_init(sm(s), v, SITE(WEFT_EV_WRITE, "sem_init"));
	return 0;
}

int sem_destroy(sem_t *s)
{
	if (!rt_active())
		return get_sem_destroy()(s);
	return 0;
}

int sem_wait(sem_t *s)
{
	if (!rt_active())
		return get_sem_wait()(s);
	enter();
	weft_down(sm(s), SITE(WEFT_EV_LOCK, "sem_wait"));
	return 0;
}

int sem_trywait(sem_t *s)
{
	if (!rt_active())
		return get_sem_trywait()(s);
	enter();
	if (weft_down_trylock(sm(s), SITE(WEFT_EV_TRYLOCK, "sem_trywait")) == 0)
		return 0;
	errno = EAGAIN;
	return -1;
}

int sem_timedwait(sem_t *s, const struct timespec *ts)
{
	if (!rt_active())
		return get_sem_timedwait()(s, ts);
	enter();
	if (weft_down_trylock(sm(s), SITE(WEFT_EV_TRYLOCK, "sem_timedwait")) == 0)
		return 0;
	if (weft_choose(2, SITE(WEFT_EV_CHOICE, "sem_timedwait: times out?"))) {
		weft_yield(SITE(WEFT_EV_YIELD, "sem_timedwait"));
		errno = ETIMEDOUT;
		return -1;
	}
	weft_down(sm(s), SITE(WEFT_EV_LOCK, "sem_timedwait"));
	return 0;
}

int sem_post(sem_t *s)
{
	if (!rt_active())
		return get_sem_post()(s);
	enter();
	weft_up(sm(s), SITE(WEFT_EV_UNLOCK, "sem_post"));
	return 0;
}

int sem_getvalue(sem_t *s, int *v)
{
	if (!rt_active())
		return get_sem_getvalue()(s, v);
	enter();
	*v = (int)weft_access(&sm(s)->count, 4, WEFT_A_LOAD, 0, 0, SITE(WEFT_EV_READ, "sem_getvalue"));
	return 0;
}

/* ------------------------------------------------------------- barriers */

struct rt_barrier {
	uint32_t count, arrived, gen;
	struct weft_wait_queue_head wq;
};
_Static_assert(sizeof(struct rt_barrier) <= sizeof(pthread_barrier_t), "fits");

int pthread_barrier_init(pthread_barrier_t *pb, const pthread_barrierattr_t *attr, unsigned n)
{
	if (!rt_active())
		return get_pthread_barrier_init()(pb, attr, n);
	if (!n)
		return EINVAL;
	enter();
	struct rt_barrier *b = (void *)pb;
	const struct weft_site *s = SITE(WEFT_EV_WRITE, "pthread_barrier_init");
	weft_access(&b->count, 4, WEFT_A_STORE, n, 0, s);
	b->arrived = b->gen = 0;
	weft_init_waitqueue_head(&b->wq, s);
	return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *pb)
{
	if (!rt_active())
		return get_pthread_barrier_destroy()(pb);
	return 0;
}

int pthread_barrier_wait(pthread_barrier_t *pb)
{
	if (!rt_active())
		return get_pthread_barrier_wait()(pb);
	enter();
	struct rt_barrier *b = (void *)pb;
	const struct weft_site *s = SITE(WEFT_EV_RMW, "pthread_barrier_wait");
	uint32_t gen = (uint32_t)weft_access(&b->gen, 4, WEFT_A_LOAD, 0, 0, s);
	uint32_t n = (uint32_t)weft_access(&b->arrived, 4, WEFT_A_ADD, 1, 0, s) + 1;
	if (n >= weft_peek(b->count)) {
		/* the last one opens it for the next round, in the same step */
		rt_section_op(&b->arrived, 4, WEFT_A_STORE, 0, 0, s);
		rt_section_op(&b->gen, 4, WEFT_A_ADD, 1, 0, s);
		weft_wake_up(&b->wq, 0, SITE(WEFT_EV_WAKE, "pthread_barrier_wait"));
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	const struct weft_site *w = SITE(WEFT_EV_WAIT, "pthread_barrier_wait");
	for (;;) {
		weft_prepare_to_wait(&b->wq, NULL, TASK_UNINTERRUPTIBLE, false, w);
		if ((uint32_t)weft_access(&b->gen, 4, WEFT_A_LOAD, 0, 0, s) != gen)
			break;
		weft_schedule(w);
	}
	weft_finish_wait(&b->wq, NULL, w);
	return 0;
}

/* ------------------------------------------------------- once, spinlocks */

/* The once word: 0 never run, 1 done, 2 + the thread running fn(). A
 * latecomer blocks on the word until the first caller's done wakes it
 * (not a yield loop: a spinning thread would turn dfs's partial-order
 * reduction off and keep dfs --bound none from ending); a once function
 * that waits for its own flag is a deadlock naming the runner. */
static int once_owner(const void *chan)
{
	int v = *(const volatile int *)chan;

	return v >= 2 ? v - 2 : -1;
}

static bool once_busy(const void *chan, unsigned tid)
{
	(void)tid;
	return *(const volatile int *)chan >= 2;
}

static const struct weft_wait_class pthread_once_class = {
	.name = "pthread_once",
	.sleeps = false,
	.owner = once_owner,
	.busy = once_busy,
};

int pthread_once(pthread_once_t *o, void (*fn)(void))
{
	if (!rt_active())
		return get_pthread_once()(o, fn);
	enter();
	const struct weft_site *s = SITE(WEFT_EV_RMW, "pthread_once");
	uint64_t seen = weft_access(o, sizeof(*o), WEFT_A_CMPXCHG, 0, (uint64_t)M.cur + 2, s);
	if (seen == 0) {
		fn();
		enter();
		/* done: an exchange (atomic on memory, fully ordered), so that
		 * under --memory tso|lkmm what fn() stored is visible before
		 * "done" is */
		weft_access(o, sizeof(*o), WEFT_A_XCHG, 1, 0, s);
		weft_sched_wake_all((const void *)o);
		return 0;
	}
	while (seen != 1) {
		/* no point between the load and the block: the done that wakes
		 * it cannot fall in between */
		const struct weft_site *w = SITE(WEFT_EV_BLOCK, "pthread_once: waits for the first caller");
		uint32_t loc = loc_of((const void *)o);
		weft_trace(WEFT_EV_BLOCK, loc, seen, 1, w);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(*o), 0, w);
		weft_sched_block((const void *)o, &pthread_once_class, w);
		if (++M.step > M.step_budget)
			weft_sched_livelock("step budget exhausted");
		/* a read-modify-write (1 for 1: no change), which reads the
		 * newest value under --memory lkmm, where a load after the
		 * wake-up could still read "running" and block for good */
		seen = weft_access(o, sizeof(*o), WEFT_A_CMPXCHG, 1, 1, s);
	}
	/* and a caller that saw "done" sees what fn() stored (POSIX: every
	 * pthread_once() returns after fn() has, and synchronizes with it) */
	weft_fence(WEFT_FENCE_MB, SITE(WEFT_EV_BARRIER, "pthread_once: done"));
	return 0;
}

int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
	if (!rt_active())
		return get_pthread_spin_init()(l, pshared);
	enter();
	weft_access((void *)l, sizeof(*l), WEFT_A_STORE, 0, 0, SITE(WEFT_EV_WRITE, "pthread_spin_init"));
	return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *l)
{
	if (!rt_active())
		return get_pthread_spin_destroy()(l);
	return 0;
}

/* A pthread spinlock waits as the kernel's spinlock does under Weft
 * (primitives/spinlock.c): a thread that finds the word taken is blocked
 * on it, not runnable, until the holder's unlock wakes the waiters, who
 * then try again. So a contended lock costs no spin steps, fairness has
 * nothing to pass over, dfs --bound none ends on a program that spins on
 * it, and locks taken in opposite orders are a deadlock (every thread
 * blocked), not a livelock at the step budget. The word holds the
 * holder's thread number + 1 (glibc's holds 1: the value is opaque to the
 * program), which names the holder in a deadlock report. */
static int spin_owner(const void *chan)
{
	return *(const volatile int *)chan - 1;
}

static bool spin_busy(const void *chan, unsigned tid)
{
	(void)tid;
	return *(const volatile int *)chan != 0;
}

static const struct weft_wait_class pthread_spin_class = {
	.name = "pthread spinlock",
	.sleeps = false,
	.owner = spin_owner,
	.busy = spin_busy,
};

int pthread_spin_lock(pthread_spinlock_t *l)
{
	if (!rt_active())
		return get_pthread_spin_lock()(l);
	enter();
	const struct weft_site *s = SITE(WEFT_EV_RMW, "pthread_spin_lock");
	const uint64_t me_val = (uint64_t)M.cur + 1;
	while (weft_access((void *)l, sizeof(*l), WEFT_A_CMPXCHG, 0, me_val, s) != 0) {
		/* no point between the failed attempt and the block: the
		 * unlock that wakes it cannot fall in between */
		const struct weft_site *w = SITE(WEFT_EV_BLOCK, "pthread_spin_lock: waits");
		uint32_t loc = loc_of((const void *)l);
		weft_trace(WEFT_EV_BLOCK, loc, (uint64_t)*(volatile int *)l, me_val, w);
		weft_sched_step(WEFT_DEP_BLOCKED, loc, sizeof(*l), 0, w);
		weft_sched_block((const void *)l, &pthread_spin_class, w);
		/* running again: what it does now is the next step */
		if (++M.step > M.step_budget)
			weft_sched_livelock("step budget exhausted");
	}
	return 0;
}

int pthread_spin_trylock(pthread_spinlock_t *l)
{
	if (!rt_active())
		return get_pthread_spin_trylock()(l);
	enter();
	return weft_access((void *)l, sizeof(*l), WEFT_A_CMPXCHG, 0, (uint64_t)M.cur + 1,
			   SITE(WEFT_EV_RMW, "pthread_spin_trylock")) ? EBUSY : 0;
}

int pthread_spin_unlock(pthread_spinlock_t *l)
{
	if (!rt_active())
		return get_pthread_spin_unlock()(l);
	enter();
	const struct weft_site *s = SITE(WEFT_EV_WRITE, "pthread_spin_unlock");
	/* POSIX: undefined unless the caller holds it; the lock word names
	 * the holder (its thread + 1, pthread_spin_lock) */
	int holder = *(volatile int *)l;
	if (holder != M.cur + 1) {
		if (!holder)
			weft_report(WEFT_KIND_BAD_UNLOCK, (void *)l, s,
				    "T%d unlocks a pthread spinlock that is not locked", M.cur);
		else
			weft_report(WEFT_KIND_BAD_UNLOCK, (void *)l, s,
				    "T%d unlocks a pthread spinlock held by T%d (spinlocks are "
				    "released by their holder)", M.cur, holder - 1);
	}
	/* an exchange, not a store: under --memory tso|lkmm a buffered store
	 * of the free lock word would let a waiter see the lock held after
	 * the wake-up below and sleep for good (a false lost wake-up); the
	 * exchange is atomic on memory and fully ordered (stronger than
	 * POSIX's release: it shows no reordering out of the section) */
	weft_access((void *)l, sizeof(*l), WEFT_A_XCHG, 0, 0, s);
	weft_sched_wake_all((const void *)l);
	return 0;
}

/* ----------------------------------------------------------------- keys */

#define NKEYS (sizeof(rt_th[0].tls) / sizeof(rt_th[0].tls[0]))

int pthread_key_create(pthread_key_t *k, void (*dtor)(void *))
{
	if (!rt_active())
		return get_pthread_key_create()(k, dtor);
	enter();
	if (rt_x.nr_keys >= NKEYS)
		return EAGAIN;
	unsigned i = rt_x.nr_keys++;
	rt_x.key_used[i] = true;
	rt_x.key_dtor[i] = dtor;
	/* every thread's value of a new key is NULL */
	for (unsigned t = 0; t < M.nr_threads; t++)
		rt_th[t].tls[i] = NULL;
	*k = i;
	rt_silent_write(k, sizeof(*k), i, SITE(WEFT_EV_WRITE, "pthread_key_create"));
	return 0;
}

int pthread_key_delete(pthread_key_t k)
{
	if (!rt_active())
		return get_pthread_key_delete()(k);
	if (k >= rt_x.nr_keys || !rt_x.key_used[k])
		return EINVAL;
	rt_x.key_used[k] = false;
	return 0;
}

void *pthread_getspecific(pthread_key_t k)
{
	if (!rt_active())
		return get_pthread_getspecific()(k);
	return k < rt_x.nr_keys && rt_x.key_used[k] ? rt_th[me()].tls[k] : NULL;
}

int pthread_setspecific(pthread_key_t k, const void *v)
{
	if (!rt_active())
		return get_pthread_setspecific()(k, v);
	if (k >= rt_x.nr_keys || !rt_x.key_used[k])
		return EINVAL;
	rt_th[me()].tls[k] = (void *)v;
	return 0;
}

void rt_thread_exit_hooks(unsigned tid)
{
	/* POSIX: up to PTHREAD_DESTRUCTOR_ITERATIONS rounds */
	for (unsigned round = 0; round < 4; round++) {
		bool any = false;
		for (unsigned i = 0; i < rt_x.nr_keys; i++) {
			void *v = rt_th[tid].tls[i];
			if (!v || !rt_x.key_used[i] || !rt_x.key_dtor[i])
				continue;
			rt_th[tid].tls[i] = NULL;
			rt_x.key_dtor[i](v);
			rt_flush();
			any = true;
		}
		if (!any)
			break;
	}
}
