/*
 * wait_bit.h - the kernel's generic hashed wait queues (include/linux/
 * wait_bit.h, kernel/sched/wait_bit.c, v6.12): waiting for a variable to
 * change (wait_var_event, wake_up_var) and for a bit of a word to clear
 * (wait_on_bit, wake_up_bit), with no wait_queue_head_t of the model's own.
 * A family header of its own: a model includes it when it wants these.
 *
 * The kernel keys each waiter by (var) or (word, bit) in one shared table,
 * and a wake-up wakes only the waiters whose key matches. Here a waiter is
 * on the list of its key (hash collisions, which the key test refuses, are
 * not modelled). What the kernel's comments ask of the waker is what the
 * search checks:
 *  - wake_up_var() and wake_up_bit() are __wake_up_bit(): an unlocked
 *    waitqueue_active() test, then the wake-up only if someone waits. The
 *    test is a plain read, not a barrier: a store the waker made just
 *    before may still be in its CPU's buffer (`--memory tso/lkmm`) when a
 *    waiter tests the condition, and both miss each other (a lost wakeup).
 *    The waker needs smp_mb() (or smp_mb__after_atomic() after an atomic
 *    bit operation) before the wake-up; clear_and_wake_up_bit(),
 *    store_release_wake_up() and atomic_dec_and_wake_up() have it.
 *  - The waiter's prepare_to_wait() sets its task state with a full
 *    barrier, as set_current_state() does, before it tests the condition.
 *  - A wake-up wakes every plain waiter whose key matches and the oldest
 *    exclusive one (wait_on_bit_lock); a bit waiter only if the bit is
 *    clear when the waker looks (wake_bit_function()).
 * A waiter nobody wakes is a `lost-wakeup`; a wait_on_bit_lock() waiter
 * whose bit a sleeping thread holds is a `deadlock` naming that thread.
 *
 *   wait_var_event(var, cond), wait_var_event_interruptible(var, cond),
 *   wait_var_event_killable(var, cond)        (no signals: 0)
 *   wait_var_event_timeout(var, cond, t)     (0 if still false at the timeout)
 *   wake_up_var(var), atomic_dec_and_wake_up(atomic_t *),
 *   store_release_wake_up(var, val)
 *   wait_on_bit(word, bit, mode), wait_on_bit_io(...)          (0)
 *   wait_on_bit_lock(word, bit, mode), wait_on_bit_lock_io(...) (0, holding it)
 *   wake_up_bit(word, bit), clear_and_wake_up_bit(bit, word),
 *   test_and_clear_wake_up_bit(bit, word)
 *   TASK_KILLABLE, TASK_IDLE (as TASK_UNINTERRUPTIBLE: no signals)
 *
 * Every step names its key's address: a var or word outside the model's
 * world is reported as for any other access. Natively (weft stress) the
 * same semantics run on real threads (core/src/native/native_sleep.c).
 * A model with kernel names of its own for these defines
 * WEFT_OWN_WAIT_BIT first.
 */
#ifndef WEFT_WAIT_BIT_H
#define WEFT_WAIT_BIT_H

#include <weft/kernel.h>
#include <weft/timer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The bit of a var's key (the kernel's bit_nr -1). */
#define WEFT_WAIT_VAR_BIT 0xffu

/* prepare_to_wait(_exclusive)() on the hashed queue of key (a var, or a
 * word and one of its bits): on the key's list (once), the task state set,
 * then a full barrier (set_current_state()). */
void weft_wait_hashed_prepare(void *key, unsigned bit, bool exclusive, int state,
			      const struct weft_site *s);
/* finish_wait() on it: TASK_RUNNING, off the list if still on it. */
void weft_wait_hashed_finish(void *key, const struct weft_site *s);
/* __wake_up_bit(): waitqueue_active() at site active (a read, no
 * barrier), then, if someone waits on key, the wake-up at site wake (a
 * full barrier). */
void weft_wake_up_hashed(void *key, unsigned bit, const struct weft_site *active,
			 const struct weft_site *wake);

#ifndef WEFT_OWN_WAIT_BIT

#ifndef TASK_KILLABLE
#define TASK_KILLABLE TASK_UNINTERRUPTIBLE
#endif
#ifndef TASK_IDLE
#define TASK_IDLE TASK_UNINTERRUPTIBLE
#endif

#define __WEFT_WB_SITE(ev, name, var, step) WEFT_SITE(ev, name "(" #var ") " step)

/* ___wait_var_event(): prepare, test, sleep, until the condition holds;
 * the timed form keeps the jiffies left in ret (__weft_wait_cond_timeout(),
 * <weft/timer.h>) */
#define __weft_wait_var_event(var, condition, name)                                     \
	do {                                                                            \
		for (;;) {                                                              \
			weft_wait_hashed_prepare((void *)(var), WEFT_WAIT_VAR_BIT, false,  \
						 TASK_UNINTERRUPTIBLE,                  \
				__WEFT_WB_SITE(WEFT_EV_WRITE, name, var, "prepare_to_wait_event")); \
			if (condition)                                                  \
				break;                                                  \
			weft_schedule(__WEFT_WB_SITE(WEFT_EV_WAIT, name, var, "schedule()")); \
		}                                                                       \
		weft_wait_hashed_finish((void *)(var),                                  \
			__WEFT_WB_SITE(WEFT_EV_WRITE, name, var, "finish_wait"));         \
	} while (0)

#define wait_var_event(var, condition)                                                  \
	do {                                                                            \
		might_sleep();                                                          \
		if (condition)                                                          \
			break;                                                          \
		__weft_wait_var_event(var, condition, "wait_var_event");                \
	} while (0)
#define __weft_wait_var_event_ret0(var, condition, name)                                \
	({                                                                              \
		might_sleep();                                                          \
		if (!(condition))                                                       \
			__weft_wait_var_event(var, condition, name);                    \
		0;                                                                      \
	})
#define wait_var_event_interruptible(var, condition) \
	__weft_wait_var_event_ret0(var, condition, "wait_var_event_interruptible")
#define wait_var_event_killable(var, condition) \
	__weft_wait_var_event_ret0(var, condition, "wait_var_event_killable")
#define wait_var_event_timeout(var, condition, timeout)                                 \
	({                                                                              \
		long __weft_ret = (long)(timeout);                                      \
		might_sleep();                                                          \
		if (!__weft_wait_cond_timeout(condition, __weft_ret)) {                \
			for (;;) {                                                      \
				weft_wait_hashed_prepare((void *)(var), WEFT_WAIT_VAR_BIT, \
					false, TASK_UNINTERRUPTIBLE,                    \
					__WEFT_WB_SITE(WEFT_EV_WRITE, "wait_var_event_timeout", \
						       var, "prepare_to_wait_event"));  \
				if (__weft_wait_cond_timeout(condition, __weft_ret))    \
					break;                                          \
				__weft_ret = weft_schedule_timeout(__weft_ret,          \
					__WEFT_WB_SITE(WEFT_EV_WAIT, "wait_var_event_timeout", \
						       var, "schedule_timeout()"));     \
			}                                                               \
			weft_wait_hashed_finish((void *)(var),                          \
				__WEFT_WB_SITE(WEFT_EV_WRITE, "wait_var_event_timeout", var, \
					       "finish_wait"));                         \
		}                                                                       \
		__weft_ret;                                                             \
	})

#define wake_up_var(var)                                                                \
	weft_wake_up_hashed((void *)(var), WEFT_WAIT_VAR_BIT,                           \
			    WEFT_SITE(WEFT_EV_READ, "wake_up_var(" #var ") waitqueue_active"), \
			    WEFT_SITE(WEFT_EV_WAKE, "wake_up_var(" #var ")"))
#define atomic_dec_and_wake_up(v)                                                       \
	({                                                                              \
		bool __weft_z = atomic_dec_and_test(v);                                 \
		if (__weft_z)                                                           \
			wake_up_var(v);                                                 \
		__weft_z;                                                               \
	})
#define store_release_wake_up(var, val)                                                 \
	do {                                                                            \
		smp_store_release(var, val);                                            \
		smp_mb();                                                               \
		wake_up_var(var);                                                       \
	} while (0)

/* wait_on_bit(): test_bit_acquire() first; then __wait_on_bit()'s loop:
 * prepare, sleep while the bit is set, until test_bit_acquire() sees it
 * clear. mode is not modelled (no signals): the result is 0. */
#define __weft_wb_test(word, bit, name, flags)                                          \
	((WEFT_ACCESS_F((word), WEFT_A_LOAD, 0, 0, WEFT_EV_READ,                        \
			name "(" #word ", " #bit ") test_bit", flags) >> (bit)) & 1ul)
/* One pass of the wait loops below: prepare_to_wait() (exclusive: the
 * _exclusive form), then schedule() while the bit is still set. */
#define __weft_wb_sleep(word, bit, name, exclusive, prepare)                            \
	do {                                                                            \
		weft_wait_hashed_prepare((void *)(word), (unsigned)(bit), exclusive,    \
			TASK_UNINTERRUPTIBLE,                                           \
			WEFT_SITE(WEFT_EV_WRITE, name "(" #word ", " #bit ") " prepare)); \
		if (__weft_wb_test(word, bit, name, WEFT_SITE_RELAXED))                 \
			weft_schedule(WEFT_SITE(WEFT_EV_WAIT,                           \
						name "(" #word ", " #bit ") schedule()")); \
	} while (0)
#define __weft_wait_on_bit(word, bit, mode, name)                                       \
	({                                                                              \
		(void)(mode);                                                           \
		might_sleep();                                                          \
		if (__weft_wb_test(word, bit, name, WEFT_SITE_ACQUIRE)) {              \
			do {                                                            \
				__weft_wb_sleep(word, bit, name, false, "prepare_to_wait");  \
			} while (__weft_wb_test(word, bit, name, WEFT_SITE_ACQUIRE));  \
			weft_wait_hashed_finish((void *)(word),                         \
				WEFT_SITE(WEFT_EV_WRITE, name "(" #word ", " #bit ") finish_wait")); \
		}                                                                       \
		0;                                                                      \
	})
#define wait_on_bit(word, bit, mode) __weft_wait_on_bit(word, bit, mode, "wait_on_bit")
#define wait_on_bit_io(word, bit, mode) __weft_wait_on_bit(word, bit, mode, "wait_on_bit_io")
/* wait_on_bit_timeout(): the same loop with bit_wait_timeout() as its
 * action: 0 once the bit is clear, -EAGAIN (-11, Linux's) when timeout
 * jiffies passed with the bit still set. */
#define wait_on_bit_timeout(word, bit, mode, timeout)                                   \
	({                                                                              \
		int __weft_r = 0;                                                       \
		long __weft_left = (long)(timeout);                                     \
		(void)(mode);                                                           \
		might_sleep();                                                          \
		if (__weft_wb_test(word, bit, "wait_on_bit_timeout", WEFT_SITE_ACQUIRE)) { \
			do {                                                            \
				weft_wait_hashed_prepare((void *)(word), (unsigned)(bit), false, \
					TASK_UNINTERRUPTIBLE,                           \
					WEFT_SITE(WEFT_EV_WRITE, "wait_on_bit_timeout(" #word ", " \
						  #bit ") prepare_to_wait"));           \
				if (__weft_wb_test(word, bit, "wait_on_bit_timeout",   \
						   WEFT_SITE_RELAXED)) {                \
					if (__weft_left <= 0)                           \
						__weft_r = -11;                         \
					else                                            \
						__weft_left = weft_schedule_timeout(__weft_left, \
							WEFT_SITE(WEFT_EV_WAIT,         \
								  "wait_on_bit_timeout(" #word ", " \
								  #bit ") schedule_timeout()")); \
				}                                                       \
			} while (!__weft_r && __weft_wb_test(word, bit, "wait_on_bit_timeout", \
							     WEFT_SITE_ACQUIRE));       \
			weft_wait_hashed_finish((void *)(word),                         \
				WEFT_SITE(WEFT_EV_WRITE, "wait_on_bit_timeout(" #word ", " #bit \
					  ") finish_wait"));                            \
		}                                                                       \
		__weft_r;                                                               \
	})

/* wait_on_bit_lock(): test_and_set_bit() first, then __wait_on_bit_lock()'s
 * loop as an exclusive waiter. The bit is taken as a bit lock (its holder
 * named in deadlock reports), after a full barrier: test_and_set_bit() is
 * fully ordered. Returns 0 holding the bit. */
#define __weft_wb_trylock(word, bit, name)                                              \
	(weft_fence(WEFT_FENCE_MB, WEFT_SITE(WEFT_EV_BARRIER, name "(" #word ", " #bit    \
					      ") test_and_set_bit")),                   \
	 weft_test_and_set_bit_lock((unsigned)(bit), (word),                            \
				    WEFT_SITE(WEFT_EV_RMW, name "(" #word ", " #bit        \
					      ") test_and_set_bit")))
#define __weft_wait_on_bit_lock(word, bit, mode, name)                                  \
	({                                                                              \
		(void)(mode);                                                           \
		might_sleep();                                                          \
		if (__weft_wb_trylock(word, bit, name)) {                               \
			for (;;) {                                                      \
				__weft_wb_sleep(word, bit, name, true,                  \
						"prepare_to_wait_exclusive");           \
				if (!__weft_wb_trylock(word, bit, name))                \
					break;                                          \
			}                                                               \
			weft_wait_hashed_finish((void *)(word),                         \
				WEFT_SITE(WEFT_EV_WRITE, name "(" #word ", " #bit ") finish_wait")); \
		}                                                                       \
		0;                                                                      \
	})
#define wait_on_bit_lock(word, bit, mode) \
	__weft_wait_on_bit_lock(word, bit, mode, "wait_on_bit_lock")
#define wait_on_bit_lock_io(word, bit, mode) \
	__weft_wait_on_bit_lock(word, bit, mode, "wait_on_bit_lock_io")

#define wake_up_bit(word, bit)                                                          \
	weft_wake_up_hashed((void *)(word), (unsigned)(bit),                            \
			    WEFT_SITE(WEFT_EV_READ, "wake_up_bit(" #word ", " #bit ") waitqueue_active"), \
			    WEFT_SITE(WEFT_EV_WAKE, "wake_up_bit(" #word ", " #bit ")"))
#define clear_and_wake_up_bit(bit, word)                                                \
	do {                                                                            \
		clear_bit_unlock(bit, word);                                            \
		smp_mb__after_atomic();                                                 \
		wake_up_bit(word, bit);                                                 \
	} while (0)
#define test_and_clear_wake_up_bit(bit, word)                                           \
	({                                                                              \
		bool __weft_was = test_and_clear_bit(bit, word);                        \
		if (__weft_was)                                                         \
			wake_up_bit(word, bit);                                         \
		__weft_was;                                                             \
	})

#endif /* WEFT_OWN_WAIT_BIT */

#ifdef __cplusplus
}
#endif
#endif
