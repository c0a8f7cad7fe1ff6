/*
 * sleep.h - sleeping and blocking primitives for Weft models: mutexes,
 * rw semaphores, semaphores, completions, wait queues (wait_event and the
 * open-coded prepare_to_wait/schedule/finish_wait pattern), bit locks and
 * bit waits (the page lock's foundation, <weft/mm/pagelock.h>). Included by
 * <weft/kernel.h>; <weft/pthread.h> gives the same machinery pthread-shaped
 * names for models of user-space code.
 *
 * Follows (v6.8 unless noted): kernel/locking/mutex.c, rwsem.c,
 * semaphore.c; kernel/sched/completion.c, wait.c; include/linux/wait.h
 * (___wait_event); mm/filemap.c folio_wait_bit_common(),
 * folio_wake_bit(), wake_page_function(); include/linux/wait_bit.h.
 *
 * Controlled build: a sleeper is a blocked thread of the scheduler (it takes
 * no steps while asleep) until a waker makes it runnable; every operation
 * is one scheduling point, one trace event (WAIT when it falls asleep,
 * WAKE when it wakes others, LOCK/UNLOCK/TRYLOCK/READ/WRITE/RMW otherwise)
 * and one dependence record. When every unfinished thread sleeps, the
 * machine reports `deadlock` if the sleepers wait for an owner (a mutex's,
 * an rwsem writer's or reader's, a bit lock's holder) and `lost-wakeup` if
 * one waits on a channel nobody owns (a wait queue, a completion, a
 * semaphore, a condition variable, a bit nobody holds), naming the sleeper,
 * what it waits on and the last write to that object.
 *
 * Lock models (enum weft_lock_model, `--lock`): under `tas` a released
 * mutex or rwsem is free at once and the oldest waiter is woken to retry
 * (a thread that arrives first may take it: optimistic stealing, as
 * kernel/locking/mutex.c allows); under `ticket` the release hands it to
 * the oldest waiter (MUTEX_FLAG_HANDOFF). Semaphores, completions and
 * lock-bit waits hand over as the kernel always does (__up(),
 * swake_up_locked(), wake_page_function()).
 *
 * From setup and audits (the host context) the primitives act at once;
 * one that would have to sleep there reports an `assertion` instead.
 *
 * Native build (-DWEFT_NATIVE): the same semantics on real threads: every
 * wait list is a queue under one process-wide lock, a sleeper waits on its
 * own futex with a timeout and polls the stop flag, so a report elsewhere
 * (or the stress loop's hang detector) still ends the iteration.
 */
#ifndef WEFT_SLEEP_H
#define WEFT_SLEEP_H

#ifdef __cplusplus
extern "C" {
#endif

/* struct mutex (kernel/locking/mutex.c). owner: 1 + the owner thread, 0
 * when unlocked. nr_waiters: threads on its wait list. */
struct weft_mutex {
	uint32_t owner;
	uint32_t nr_waiters;
};

/* struct rw_semaphore (kernel/locking/rwsem.c). writer: 1 + the writer
 * thread, 0 if none; readers: read holds; held: a summary of each
 * thread's read holds, 2 bits per thread (saturating at 3); the owner
 * checks and reports use exact depths the machine keeps beside it. */
struct weft_rw_semaphore {
	uint32_t writer;
	uint32_t readers;
	uint32_t held;
	uint32_t nr_waiters;
};

/* held's summary of thread t's read holds (the machine and the native
 * build keep the exact depths beside it) */
static inline unsigned weft_held_summary(uint32_t held, unsigned t)
{
	return held >> (2 * t) & 3u;
}

/* held after thread t's read hold (d > 0) or release (d < 0): a saturated
 * summary stays */
static inline uint32_t weft_held_summary_add(uint32_t held, unsigned t, int d)
{
	unsigned h = weft_held_summary(held, t);

	if (d > 0 && h < 3)
		h++;
	else if (d < 0 && h > 0 && h < 3)
		h--;
	return (held & ~(3u << (2 * t))) | h << (2 * t);
}

/* struct semaphore (kernel/locking/semaphore.c). */
struct weft_semaphore {
	uint32_t count;
	uint32_t nr_waiters;
};

/* struct completion (kernel/sched/completion.c). done: UINT32_MAX after
 * complete_all(). */
struct weft_completion {
	uint32_t done;
	uint32_t nr_waiters;
};

/* wait_queue_head_t. wakes: wake-up calls made on it (only wakers write
 * it, so the last write a lost-wakeup report names is the wake-up that
 * found nobody); nr_queued: entries on the list. */
struct weft_wait_queue_head {
	uint32_t wakes;
	uint32_t nr_queued;
};

/* struct wait_queue_entry (DEFINE_WAIT): the thread's own entry. A thread
 * is on at most one wait list at a time. */
struct weft_wait_entry {
	uint32_t flags;
};

#ifndef WEFT_OWN_WAIT
#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1     /* no signals are modelled: as UNINTERRUPTIBLE */
#define TASK_UNINTERRUPTIBLE 2
#endif

#define WEFT_COMPLETION_ALL 0xffffffffu    /* done after complete_all() */

/* Every operation takes its site (the caller's, through the macros below). */
void weft_mutex_init(struct weft_mutex *m, const struct weft_site *s);
void weft_mutex_lock(struct weft_mutex *m, const struct weft_site *s);
bool weft_mutex_trylock(struct weft_mutex *m, const struct weft_site *s);
/* mutex_unlock(): with waiters, the release and the wake-up that touches m
 * after it are two steps (the kernel's slow path); _posix: one step, as
 * pthread_mutex_unlock() (POSIX lets the last user destroy the mutex at
 * once). */
void weft_mutex_unlock(struct weft_mutex *m, const struct weft_site *s);
void weft_mutex_unlock_posix(struct weft_mutex *m, const struct weft_site *s);
bool weft_mutex_is_locked(struct weft_mutex *m, const struct weft_site *s);

void weft_init_rwsem(struct weft_rw_semaphore *r, const struct weft_site *s);
void weft_down_read(struct weft_rw_semaphore *r, const struct weft_site *s);
int weft_down_read_trylock(struct weft_rw_semaphore *r, const struct weft_site *s);
void weft_up_read(struct weft_rw_semaphore *r, const struct weft_site *s);
void weft_down_write(struct weft_rw_semaphore *r, const struct weft_site *s);
int weft_down_write_trylock(struct weft_rw_semaphore *r, const struct weft_site *s);
void weft_up_write(struct weft_rw_semaphore *r, const struct weft_site *s);
/* up_read()/up_write() in one step (pthread_rwlock_unlock()): the two
 * above wake waiters in a step after the release, as rwsem_wake() does */
void weft_up_read_posix(struct weft_rw_semaphore *r, const struct weft_site *s);
void weft_up_write_posix(struct weft_rw_semaphore *r, const struct weft_site *s);
void weft_downgrade_write(struct weft_rw_semaphore *r, const struct weft_site *s);

void weft_sema_init(struct weft_semaphore *sem, unsigned val, const struct weft_site *s);
void weft_down(struct weft_semaphore *sem, const struct weft_site *s);
int weft_down_trylock(struct weft_semaphore *sem, const struct weft_site *s);
/* down_timeout(): 0 with the semaphore, -WEFT_ETIME when timeout jiffies
 * (<weft/timer.h>) passed before an up() handed it over (at once when the
 * count is 0 and timeout <= 0) */
#define WEFT_ETIME 62   /* Linux's ETIME, without <errno.h> */
int weft_down_timeout(struct weft_semaphore *sem, long timeout, const struct weft_site *s);
void weft_up(struct weft_semaphore *sem, const struct weft_site *s);

void weft_init_completion(struct weft_completion *x, const struct weft_site *s);
void weft_complete(struct weft_completion *x, bool all, const struct weft_site *s);
void weft_wait_for_completion(struct weft_completion *x, const struct weft_site *s);
bool weft_try_wait_for_completion(struct weft_completion *x, const struct weft_site *s);
/* Asleep until complete() or timeout jiffies (<weft/timer.h>) pass: 0 if
 * the time ran out with nothing to take, else the jiffies left (>= 1). */
unsigned long weft_wait_for_completion_timeout(struct weft_completion *x, unsigned long timeout,
					       const struct weft_site *s);
bool weft_completion_done(struct weft_completion *x, const struct weft_site *s);

void weft_init_waitqueue_head(struct weft_wait_queue_head *wq, const struct weft_site *s);
/* prepare_to_wait(_exclusive)(): on the list (once), task state set. */
void weft_prepare_to_wait(struct weft_wait_queue_head *wq, struct weft_wait_entry *e,
			  int state, bool exclusive, const struct weft_site *s);
/* finish_wait(): TASK_RUNNING, off the list. */
void weft_finish_wait(struct weft_wait_queue_head *wq, struct weft_wait_entry *e,
		      const struct weft_site *s);
/* schedule(): sleeps unless a waker already made the task TASK_RUNNING.
 * Returns false in the host context (nothing can wake it there: reported). */
bool weft_schedule(const struct weft_site *s);
/* __wake_up(): every non-exclusive waiter and nr_exclusive exclusive ones
 * (0: all), oldest first; each leaves the list (autoremove_wake_function). */
void weft_wake_up(struct weft_wait_queue_head *wq, unsigned nr_exclusive,
		  const struct weft_site *s);
bool weft_waitqueue_active(struct weft_wait_queue_head *wq, const struct weft_site *s);

/*
 * Bit locks and bit waits on an unsigned long word (include/linux/wait_bit.h,
 * and the page lock's folio_wait_bit_common()/folio_wake_bit() with a
 * "waiters" bit in the same word, as PG_waiters).
 *
 * weft_test_and_set_bit_lock() is test_and_set_bit() with acquire
 * semantics, and remembers the holder (deadlock reports name it);
 * weft_clear_bit_unlock_fetch() clears with release semantics and returns
 * the old word (clear_bit_unlock_is_negative_byte(), folio_xor_flags_has_
 * waiters(): one atomic that also tells whether someone waits).
 *
 * weft_wait_on_bit_waiters() is folio_wait_bit_common() as one step under
 * the wait queue's lock: set waiters_bit, then (lock) test_and_set bit or
 * (!lock) test bit; if that does not succeed, join the wait list and sleep.
 * A lock waiter returns holding the bit (the waker took it on its behalf:
 * wake_page_function()'s handoff); a plain waiter returns once woken.
 * weft_wake_up_bit_waiters() is folio_wake_bit() as one step: wake, oldest
 * first, every plain waiter up to the first lock waiter, and hand the bit to
 * that one if it is clear (stop if it is set); then clear waiters_bit if no
 * waiter on this word is left. Sleeper and waker meet only through the
 * word: a store that erases waiters_bit after a sleeper set it makes the
 * unlock wake nobody.
 */
bool weft_test_and_set_bit_lock(unsigned nr, unsigned long *addr, const struct weft_site *s);
void weft_clear_bit_unlock(unsigned nr, unsigned long *addr, const struct weft_site *s);
unsigned long weft_clear_bit_unlock_fetch(unsigned nr, unsigned long *addr,
					  const struct weft_site *s);
void weft_wait_on_bit_waiters(unsigned long *word, unsigned bit, unsigned waiters_bit, bool lock,
			      const struct weft_site *s);
void weft_wake_up_bit_waiters(unsigned long *word, unsigned bit, unsigned waiters_bit,
			      const struct weft_site *s);

/* pthread_cond_t (<weft/pthread.h>): a wait list plus whether spurious
 * wake-ups are modelled (then each wait may return without a signal: a
 * model-level choice, weft_choose()). */
struct weft_pthread_cond {
	struct weft_wait_queue_head wq;
	uint32_t spurious;
};
void weft_cond_init(struct weft_pthread_cond *c, bool spurious, const struct weft_site *s);
/* Releases m and sleeps on c as one step, then re-takes m. */
void weft_cond_wait(struct weft_pthread_cond *c, struct weft_mutex *m, const struct weft_site *s);
/* Wakes the oldest waiter (signal) or all of them (broadcast). */
void weft_cond_wake(struct weft_pthread_cond *c, bool all, const struct weft_site *s);

/* ------------------------------------------------------- kernel names */
/*
 * Each group of kernel names can be left to the model: a model that has
 * its own rw semaphore called down_read()/up_read() (or its own mutex,
 * semaphore, completion, wait queue, bit lock) defines WEFT_OWN_RWSEM
 * (WEFT_OWN_MUTEX, WEFT_OWN_SEMAPHORE, WEFT_OWN_COMPLETION, WEFT_OWN_WAIT,
 * WEFT_OWN_BITLOCK) before including any Weft header, and keeps Weft's
 * primitives under their weft_ names (CHANGELOG.md lists every name each
 * release added and its switch).
 */

#ifndef WEFT_OWN_MUTEX
/* struct mutex: the kernel's name for struct weft_mutex (the macros below take
 * either) */
#ifndef __cplusplus
struct mutex {
	struct weft_mutex weft;
};
#define __weft_mutex(p)                                                            \
	_Generic((p), struct mutex *: &((struct mutex *)(void *)(p))->weft, default: (p))
#else
#define __weft_mutex(p) (p)
#endif
#define mutex_init(m) weft_mutex_init(__weft_mutex(m), WEFT_SITE(WEFT_EV_WRITE, "mutex_init(" #m ")"))
#define mutex_lock(m) weft_mutex_lock(__weft_mutex(m), WEFT_SITE(WEFT_EV_LOCK, "mutex_lock(" #m ")"))
/* no signals: the killable/interruptible forms always get the lock */
#define mutex_lock_interruptible(m) \
	({ weft_mutex_lock(__weft_mutex(m), WEFT_SITE(WEFT_EV_LOCK, "mutex_lock_interruptible(" #m ")")); 0; })
#define mutex_lock_killable(m) \
	({ weft_mutex_lock(__weft_mutex(m), WEFT_SITE(WEFT_EV_LOCK, "mutex_lock_killable(" #m ")")); 0; })
#define mutex_trylock(m) \
	weft_mutex_trylock(__weft_mutex(m), WEFT_SITE(WEFT_EV_TRYLOCK, "mutex_trylock(" #m ")"))
#define mutex_unlock(m) weft_mutex_unlock(__weft_mutex(m), WEFT_SITE(WEFT_EV_UNLOCK, "mutex_unlock(" #m ")"))
#define mutex_is_locked(m) \
	weft_mutex_is_locked(__weft_mutex(m), WEFT_SITE(WEFT_EV_READ, "mutex_is_locked(" #m ")"))
#endif /* WEFT_OWN_MUTEX */

#ifndef WEFT_OWN_RWSEM
/* struct rw_semaphore: the kernel's name for struct weft_rw_semaphore (the macros below take
 * either) */
#ifndef __cplusplus
struct rw_semaphore {
	struct weft_rw_semaphore weft;
};
#define __weft_rwsem(p)                                                            \
	_Generic((p), struct rw_semaphore *: &((struct rw_semaphore *)(void *)(p))->weft, default: (p))
#else
#define __weft_rwsem(p) (p)
#endif
#define init_rwsem(r) weft_init_rwsem(__weft_rwsem(r), WEFT_SITE(WEFT_EV_WRITE, "init_rwsem(" #r ")"))
#define down_read(r) weft_down_read(__weft_rwsem(r), WEFT_SITE(WEFT_EV_LOCK, "down_read(" #r ")"))
#define down_read_trylock(r) \
	weft_down_read_trylock(__weft_rwsem(r), WEFT_SITE(WEFT_EV_TRYLOCK, "down_read_trylock(" #r ")"))
#define up_read(r) weft_up_read(__weft_rwsem(r), WEFT_SITE(WEFT_EV_UNLOCK, "up_read(" #r ")"))
#define down_write(r) weft_down_write(__weft_rwsem(r), WEFT_SITE(WEFT_EV_LOCK, "down_write(" #r ")"))
#define down_write_trylock(r) \
	weft_down_write_trylock(__weft_rwsem(r), WEFT_SITE(WEFT_EV_TRYLOCK, "down_write_trylock(" #r ")"))
#define up_write(r) weft_up_write(__weft_rwsem(r), WEFT_SITE(WEFT_EV_UNLOCK, "up_write(" #r ")"))
#define downgrade_write(r) \
	weft_downgrade_write(__weft_rwsem(r), WEFT_SITE(WEFT_EV_UNLOCK, "downgrade_write(" #r ")"))
#endif /* WEFT_OWN_RWSEM */

#ifndef WEFT_OWN_SEMAPHORE
/* struct semaphore: the kernel's name for struct weft_semaphore (the macros below take
 * either) */
#ifndef __cplusplus
struct semaphore {
	struct weft_semaphore weft;
};
#define __weft_sema(p)                                                            \
	_Generic((p), struct semaphore *: &((struct semaphore *)(void *)(p))->weft, default: (p))
#else
#define __weft_sema(p) (p)
#endif
#define sema_init(sem, n) \
	weft_sema_init(__weft_sema(sem), (n), WEFT_SITE(WEFT_EV_WRITE, "sema_init(" #sem ")"))
#define down(sem) weft_down(__weft_sema(sem), WEFT_SITE(WEFT_EV_LOCK, "down(" #sem ")"))
#define down_interruptible(sem) \
	({ weft_down(__weft_sema(sem), WEFT_SITE(WEFT_EV_LOCK, "down_interruptible(" #sem ")")); 0; })
/* 0 when it got the semaphore, 1 when not (as the kernel's) */
#define down_trylock(sem) \
	weft_down_trylock(__weft_sema(sem), WEFT_SITE(WEFT_EV_TRYLOCK, "down_trylock(" #sem ")"))
#define up(sem) weft_up(__weft_sema(sem), WEFT_SITE(WEFT_EV_UNLOCK, "up(" #sem ")"))
#ifndef WEFT_OWN_SEMAPHORE_TIMEOUT
/* 0, or -ETIME (-62) when the timeout's jiffies passed first */
#define down_timeout(sem, t) \
	weft_down_timeout(__weft_sema(sem), (long)(t), WEFT_SITE(WEFT_EV_LOCK, "down_timeout(" #sem ")"))
#endif /* WEFT_OWN_SEMAPHORE_TIMEOUT */
#endif /* WEFT_OWN_SEMAPHORE */

#ifndef WEFT_OWN_COMPLETION
/* struct completion: the kernel's name for struct weft_completion (the macros below take
 * either) */
#ifndef __cplusplus
struct completion {
	struct weft_completion weft;
};
#define __weft_completion(p)                                                            \
	_Generic((p), struct completion *: &((struct completion *)(void *)(p))->weft, default: (p))
#else
#define __weft_completion(p) (p)
#endif
#define init_completion(x) \
	weft_init_completion(__weft_completion(x), WEFT_SITE(WEFT_EV_WRITE, "init_completion(" #x ")"))
#define reinit_completion(x) \
	weft_init_completion(__weft_completion(x), WEFT_SITE(WEFT_EV_WRITE, "reinit_completion(" #x ")"))
#define complete(x) weft_complete(__weft_completion(x), false, WEFT_SITE(WEFT_EV_WAKE, "complete(" #x ")"))
#define complete_all(x) weft_complete(__weft_completion(x), true, WEFT_SITE(WEFT_EV_WAKE, "complete_all(" #x ")"))
#define wait_for_completion(x) \
	weft_wait_for_completion(__weft_completion(x), WEFT_SITE(WEFT_EV_LOCK, "wait_for_completion(" #x ")"))
#define try_wait_for_completion(x) \
	weft_try_wait_for_completion(__weft_completion(x), WEFT_SITE(WEFT_EV_TRYLOCK, "try_wait_for_completion(" #x ")"))
#define completion_done(x) \
	weft_completion_done(__weft_completion(x), WEFT_SITE(WEFT_EV_READ, "completion_done(" #x ")"))
#ifndef WEFT_OWN_COMPLETION_TIMEOUT
/* The timed waits: timeouts in jiffies (<weft/timer.h>); no signals, so
 * the _interruptible and _killable forms return what the plain one does */
#define __weft_wfc_timeout(x, t, name) \
	weft_wait_for_completion_timeout(__weft_completion(x), (t), \
					 WEFT_SITE(WEFT_EV_LOCK, name "(" #x ")"))
#define wait_for_completion_timeout(x, t) __weft_wfc_timeout(x, t, "wait_for_completion_timeout")
#define wait_for_completion_io_timeout(x, t) \
	__weft_wfc_timeout(x, t, "wait_for_completion_io_timeout")
#define wait_for_completion_interruptible_timeout(x, t) \
	((long)__weft_wfc_timeout(x, t, "wait_for_completion_interruptible_timeout"))
#define wait_for_completion_killable_timeout(x, t) \
	((long)__weft_wfc_timeout(x, t, "wait_for_completion_killable_timeout"))
#endif /* WEFT_OWN_COMPLETION_TIMEOUT */
#endif /* WEFT_OWN_COMPLETION */

#ifndef WEFT_OWN_WAIT
#define wait_queue_head_t struct weft_wait_queue_head
#define wait_queue_entry_t struct weft_wait_entry
#define DEFINE_WAIT(name) struct weft_wait_entry name = { 0 }
#define init_waitqueue_head(wq) \
	weft_init_waitqueue_head((wq), WEFT_SITE(WEFT_EV_WRITE, "init_waitqueue_head(" #wq ")"))
#define prepare_to_wait(wq, e, state) \
	weft_prepare_to_wait((wq), (e), (state), false, \
			     WEFT_SITE(WEFT_EV_WRITE, "prepare_to_wait(" #wq ")"))
#define prepare_to_wait_exclusive(wq, e, state) \
	weft_prepare_to_wait((wq), (e), (state), true, \
			     WEFT_SITE(WEFT_EV_WRITE, "prepare_to_wait_exclusive(" #wq ")"))
#define finish_wait(wq, e) \
	weft_finish_wait((wq), (e), WEFT_SITE(WEFT_EV_WRITE, "finish_wait(" #wq ")"))
#define schedule() ((void)weft_schedule(WEFT_SITE(WEFT_EV_WAIT, "schedule()")))
#define io_schedule() ((void)weft_schedule(WEFT_SITE(WEFT_EV_WAIT, "io_schedule()")))
#define wake_up(wq) weft_wake_up((wq), 1, WEFT_SITE(WEFT_EV_WAKE, "wake_up(" #wq ")"))
#define wake_up_nr(wq, nr) weft_wake_up((wq), (nr), WEFT_SITE(WEFT_EV_WAKE, "wake_up_nr(" #wq ")"))
#define wake_up_all(wq) weft_wake_up((wq), 0, WEFT_SITE(WEFT_EV_WAKE, "wake_up_all(" #wq ")"))
#define wake_up_interruptible(wq) \
	weft_wake_up((wq), 1, WEFT_SITE(WEFT_EV_WAKE, "wake_up_interruptible(" #wq ")"))
#define waitqueue_active(wq) \
	weft_waitqueue_active((wq), WEFT_SITE(WEFT_EV_READ, "waitqueue_active(" #wq ")"))

/* wq_has_sleeper() (include/linux/wait.h): smp_mb(), then
 * waitqueue_active(): the waker's full barrier pairs with the one the
 * sleeper's set_current_state() makes after queueing, so the waker's
 * store before it and the sleeper's check of the condition cannot both
 * miss. Switch: WEFT_OWN_WQ_HAS_SLEEPER. */
#ifndef WEFT_OWN_WQ_HAS_SLEEPER
#define wq_has_sleeper(wq)                                                           \
	({                                                                           \
		weft_fence(WEFT_FENCE_MB,                                            \
			   WEFT_SITE(WEFT_EV_BARRIER, "wq_has_sleeper(" #wq ") smp_mb()")); \
		weft_waitqueue_active((wq), WEFT_SITE(WEFT_EV_READ, "wq_has_sleeper(" #wq ")")); \
	})
#endif /* WEFT_OWN_WQ_HAS_SLEEPER */

/*
 * wait_event(wq, condition) as include/linux/wait.h writes it: the
 * condition is model code (primitives: real scheduling points), tested
 * once before queueing and again after every prepare_to_wait, so a waker
 * that makes it true and calls wake_up() before the sleeper queued cannot
 * be missed. wq is the wait_queue_head_t itself (not a pointer).
 */
#define __weft_wait_event(wq, condition, excl, name)                                  \
	do {                                                                          \
		struct weft_wait_entry __weft_we = { 0 };                             \
		might_sleep();                                                        \
		if (condition)                                                        \
			break;                                                        \
		for (;;) {                                                            \
			weft_prepare_to_wait(&(wq), &__weft_we, TASK_UNINTERRUPTIBLE, \
					     (excl),                                  \
					     WEFT_SITE(WEFT_EV_WRITE,                 \
						       name "(" #wq ") prepare_to_wait")); \
			if (condition)                                                \
				break;                                                \
			if (!weft_schedule(WEFT_SITE(WEFT_EV_WAIT,                    \
						     name "(" #wq ") schedule()")))   \
				break;                                                \
		}                                                                     \
		weft_finish_wait(&(wq), &__weft_we,                                   \
				 WEFT_SITE(WEFT_EV_WRITE, name "(" #wq ") finish_wait"));   \
	} while (0)
#define wait_event(wq, condition) __weft_wait_event(wq, condition, false, "wait_event")
#define wait_event_exclusive(wq, condition) \
	__weft_wait_event(wq, condition, true, "wait_event_exclusive")
#define wait_event_interruptible(wq, condition)                                       \
	({                                                                            \
		__weft_wait_event(wq, condition, false, "wait_event_interruptible");  \
		0;                                                                    \
	})
#endif /* WEFT_OWN_WAIT */

/*
 * The forms kernel code uses beside the ones above: lockdep subclasses
 * (the _nested forms: lockdep-lite leaves one class taken twice to the
 * deadlock detector, so the subclass changes nothing), _io forms (the
 * same wait), and the interruptible and killable forms (no signals are
 * modelled: they wait as the plain form and return 0).
 * wait_event_lock_irq(wq, cond, lock): called with the spinlock held (by
 * spin_lock_irq()); it is dropped around each sleep and held again
 * before each test of the condition and on return, as
 * __wait_event_lock_irq() does. Switch: WEFT_OWN_SLEEP_FORMS.
 */
#ifndef WEFT_OWN_SLEEP_FORMS
#define mutex_lock_nested(m, subclass) \
	weft_mutex_lock(__weft_mutex(m), WEFT_SITE(WEFT_EV_LOCK, "mutex_lock_nested(" #m ")"))
#define mutex_lock_io(m) \
	weft_mutex_lock(__weft_mutex(m), WEFT_SITE(WEFT_EV_LOCK, "mutex_lock_io(" #m ")"))
#define down_read_nested(r, subclass) \
	weft_down_read(__weft_rwsem(r), WEFT_SITE(WEFT_EV_LOCK, "down_read_nested(" #r ")"))
#define down_write_nested(r, subclass) \
	weft_down_write(__weft_rwsem(r), WEFT_SITE(WEFT_EV_LOCK, "down_write_nested(" #r ")"))
#define down_read_killable(r) \
	({ weft_down_read(__weft_rwsem(r), WEFT_SITE(WEFT_EV_LOCK, "down_read_killable(" #r ")")); 0; })
#define down_read_interruptible(r) \
	({ weft_down_read(__weft_rwsem(r), WEFT_SITE(WEFT_EV_LOCK, "down_read_interruptible(" #r ")")); 0; })
#define down_write_killable(r) \
	({ weft_down_write(__weft_rwsem(r), WEFT_SITE(WEFT_EV_LOCK, "down_write_killable(" #r ")")); 0; })
#define down_killable(sem) \
	({ weft_down(__weft_sema(sem), WEFT_SITE(WEFT_EV_LOCK, "down_killable(" #sem ")")); 0; })
#define wait_for_completion_io(x) \
	weft_wait_for_completion(__weft_completion(x), \
				 WEFT_SITE(WEFT_EV_LOCK, "wait_for_completion_io(" #x ")"))
#define wait_for_completion_killable(x) \
	({ weft_wait_for_completion(__weft_completion(x), \
		WEFT_SITE(WEFT_EV_LOCK, "wait_for_completion_killable(" #x ")")); 0; })
#define wait_for_completion_interruptible(x) \
	({ weft_wait_for_completion(__weft_completion(x), \
		WEFT_SITE(WEFT_EV_LOCK, "wait_for_completion_interruptible(" #x ")")); 0; })
#define wait_event_killable(wq, condition) \
	({ __weft_wait_event(wq, condition, false, "wait_event_killable"); 0; })
#define wait_event_idle(wq, condition) __weft_wait_event(wq, condition, false, "wait_event_idle")
#define wait_event_freezable(wq, condition) \
	({ __weft_wait_event(wq, condition, false, "wait_event_freezable"); 0; })
#define wait_event_interruptible_exclusive(wq, condition) \
	({ __weft_wait_event(wq, condition, true, "wait_event_interruptible_exclusive"); 0; })
#define __weft_wait_event_lock_irq(wq, condition, lock, name)                          \
	do {                                                                          \
		struct weft_wait_entry __weft_we = { 0 };                             \
		if (condition)                                                        \
			break;                                                        \
		for (;;) {                                                            \
			weft_prepare_to_wait(&(wq), &__weft_we, TASK_UNINTERRUPTIBLE, \
					     false,                                   \
					     WEFT_SITE(WEFT_EV_WRITE,                 \
						       name "(" #wq ") prepare_to_wait")); \
			if (condition)                                                \
				break;                                                \
			spin_unlock_irq(&(lock));                                     \
			weft_schedule(WEFT_SITE(WEFT_EV_WAIT, name "(" #wq ") schedule()")); \
			spin_lock_irq(&(lock));                                       \
		}                                                                     \
		weft_finish_wait(&(wq), &__weft_we,                                   \
				 WEFT_SITE(WEFT_EV_WRITE, name "(" #wq ") finish_wait"));   \
	} while (0)
#define wait_event_lock_irq(wq, condition, lock) \
	__weft_wait_event_lock_irq(wq, condition, lock, "wait_event_lock_irq")
#define wait_event_interruptible_lock_irq(wq, condition, lock) \
	({ __weft_wait_event_lock_irq(wq, condition, lock, "wait_event_interruptible_lock_irq"); 0; })
#endif /* WEFT_OWN_SLEEP_FORMS */

/* Bit locks (include/asm-generic/bitops/lock.h). */
#ifndef WEFT_OWN_BITLOCK
#ifndef WEFT_NATIVE
/* an acquire and a release (weak memory only), as the kernel's: a wake-up
 * after clear_bit_unlock() needs smp_mb__after_atomic() */
#define test_and_set_bit_lock(nr, addr) \
	weft_test_and_set_bit_lock((nr), (addr), \
				   WEFT_SITE_F(WEFT_EV_RMW, "test_and_set_bit_lock(" #nr ", " #addr ")", \
					       WEFT_SITE_ACQUIRE))
#define clear_bit_unlock(nr, addr) \
	weft_clear_bit_unlock((nr), (addr), \
			      WEFT_SITE_F(WEFT_EV_RMW, "clear_bit_unlock(" #nr ", " #addr ")", \
					  WEFT_SITE_RELEASE))
#else
#define test_and_set_bit_lock(nr, addr) test_and_set_bit(nr, addr)
#define clear_bit_unlock(nr, addr) clear_bit(nr, addr)
#endif
#endif /* WEFT_OWN_BITLOCK */

#ifdef __cplusplus
}
#endif
#endif
