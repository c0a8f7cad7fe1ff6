/*
 * pthread.h - the sleeping primitives under pthread-shaped names, for
 * models of user-space code (the peer benchmarks: SCTBench, CDSChecker,
 * Shuttle's tests). Include it after, or instead of, <weft/kernel.h>; it
 * never includes the system's <pthread.h> (models do not: docs/
 * architecture.md), and its names carry a weft_ prefix so that a model and
 * the C library never disagree about a type.
 *
 *   weft_pthread_mutex_t   struct weft_mutex: lock, trylock (0 or EBUSY),
 *                          unlock; unlocking a mutex another thread holds
 *                          (or nobody does) is a bad-unlock report (an
 *                          error-checking mutex's EPERM, a normal one's
 *                          undefined behaviour); relocking it is a deadlock
 *   weft_pthread_cond_t    wait (releases the mutex and sleeps as one step,
 *                          re-takes it when woken), signal (the oldest
 *                          waiter), broadcast (all); a signal nobody waits
 *                          for is lost, as POSIX has it; spurious wake-ups
 *                          only if the condition was initialised with
 *                          weft_pthread_cond_init_spurious() (then each
 *                          wait may return unsignalled: a weft_choose())
 *   weft_sem_t             struct weft_semaphore: wait, trywait (0, or -1
 *                          when it would block), post; any thread may post
 *                          (a handoff), a waiter nobody posts for is a
 *                          lost wakeup
 *   weft_pthread_create/   weft_thread_spawn()/weft_thread_join(): the new
 *   weft_pthread_join      thread runs fn(world, arg) on a fake CPU of its
 *                          own while one is free (WEFT_CPU_ANY), else
 *                          shares the least loaded one
 *
 * Each call is a scheduling point at the caller's site, as every kernel
 * primitive is; the pthread return codes are those of the real calls.
 */
#ifndef WEFT_PTHREAD_H
#define WEFT_PTHREAD_H

#include <weft/kernel.h>

#define WEFT_EBUSY 16    /* EBUSY and EAGAIN of Linux, without <errno.h> */
#define WEFT_EAGAIN 11

#define weft_pthread_mutex_t struct weft_mutex
#define weft_pthread_cond_t struct weft_pthread_cond
#define weft_sem_t struct weft_semaphore
#define weft_pthread_t int

#define WEFT_PTHREAD_MUTEX_INITIALIZER { 0, 0 }
#define WEFT_PTHREAD_COND_INITIALIZER { { 0, 0 }, 0 }

#define weft_pthread_mutex_init(m, attr)                                              \
	({                                                                            \
		(void)(attr);                                                         \
		weft_mutex_init((m), WEFT_SITE(WEFT_EV_WRITE, "pthread_mutex_init(" #m ")")); \
		0;                                                                    \
	})
#define weft_pthread_mutex_destroy(m) ({ (void)(m); 0; })
#define weft_pthread_mutex_lock(m) \
	({ weft_mutex_lock((m), WEFT_SITE(WEFT_EV_LOCK, "pthread_mutex_lock(" #m ")")); 0; })
#define weft_pthread_mutex_trylock(m)                                                 \
	(weft_mutex_trylock((m), WEFT_SITE(WEFT_EV_TRYLOCK, "pthread_mutex_trylock(" #m ")")) \
		 ? 0 : WEFT_EBUSY)
#define weft_pthread_mutex_unlock(m) \
	({ weft_mutex_unlock_posix((m), WEFT_SITE(WEFT_EV_UNLOCK, "pthread_mutex_unlock(" #m ")")); 0; })

#define weft_pthread_cond_init(c, attr)                                               \
	({                                                                            \
		(void)(attr);                                                         \
		weft_cond_init((c), false, WEFT_SITE(WEFT_EV_WRITE, "pthread_cond_init(" #c ")")); \
		0;                                                                    \
	})
#define weft_pthread_cond_init_spurious(c)                                            \
	({ weft_cond_init((c), true, WEFT_SITE(WEFT_EV_WRITE, "pthread_cond_init(" #c ")")); 0; })
#define weft_pthread_cond_destroy(c) ({ (void)(c); 0; })
#define weft_pthread_cond_wait(c, m) \
	({ weft_cond_wait((c), (m), WEFT_SITE(WEFT_EV_WAIT, "pthread_cond_wait(" #c ")")); 0; })
#define weft_pthread_cond_signal(c) \
	({ weft_cond_wake((c), false, WEFT_SITE(WEFT_EV_WAKE, "pthread_cond_signal(" #c ")")); 0; })
#define weft_pthread_cond_broadcast(c) \
	({ weft_cond_wake((c), true, WEFT_SITE(WEFT_EV_WAKE, "pthread_cond_broadcast(" #c ")")); 0; })

#define weft_sem_init(sem, pshared, val)                                              \
	({                                                                            \
		(void)(pshared);                                                      \
		weft_sema_init((sem), (val), WEFT_SITE(WEFT_EV_WRITE, "sem_init(" #sem ")")); \
		0;                                                                    \
	})
#define weft_sem_destroy(sem) ({ (void)(sem); 0; })
#define weft_sem_wait(sem) \
	({ weft_down((sem), WEFT_SITE(WEFT_EV_LOCK, "sem_wait(" #sem ")")); 0; })
#define weft_sem_trywait(sem) \
	(weft_down_trylock((sem), WEFT_SITE(WEFT_EV_TRYLOCK, "sem_trywait(" #sem ")")) ? -1 : 0)
#define weft_sem_post(sem) \
	({ weft_up((sem), WEFT_SITE(WEFT_EV_UNLOCK, "sem_post(" #sem ")")); 0; })

/* fn: void fn(void *world, void *arg). *t: the new thread's number. */
#define weft_pthread_create(t, attr, fn, arg)                                         \
	({                                                                            \
		(void)(attr);                                                         \
		*(t) = weft_thread_spawn((fn), (arg), WEFT_CPU_ANY,                    \
					 WEFT_SITE(WEFT_EV_SPAWN, "pthread_create(" #fn ")")); \
		*(t) < 0 ? WEFT_EAGAIN : 0;                                           \
	})
#define weft_pthread_join(t, ret)                                                     \
	({                                                                            \
		(void)(ret);                                                          \
		weft_thread_join((t), WEFT_SITE(WEFT_EV_JOIN, "pthread_join(" #t ")")); \
		0;                                                                    \
	})

#endif
