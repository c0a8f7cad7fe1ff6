/*
 * percpu_ref.h - percpu_ref for Weft models: include/linux/percpu-refcount.h
 * and lib/percpu-refcount.c (v6.x), on per-CPU counters, so its races are
 * real ones.
 *
 * In per-CPU mode a get or put adds to the counter of the caller's fake
 * CPU (this_cpu_add: one atomic primitive) inside an RCU read-side
 * section, after reading the mode word (READ_ONCE(percpu_count_ptr)); the
 * atomic count carries PERCPU_COUNT_BIAS so it cannot reach 0. A kill
 * sets __PERCPU_REF_DEAD and __PERCPU_REF_ATOMIC at once, takes a
 * reference for the switch, queues the switch's RCU callback (call_rcu_
 * hurry) and drops the initial reference. A thread that read the mode
 * before the kill, inside its section, still adds to its per-CPU counter:
 * a percpu_ref_tryget_live() can succeed after percpu_ref_kill() returned.
 * Only after a grace period does the callback sum the per-CPU counters into
 * the atomic count (minus the bias), call the confirmation
 * (percpu_ref_kill_and_confirm()'s confirm_kill: "tryget_live fails from
 * now on") and drop the switch's reference; the last put calls release.
 * The callback runs in softirq context (rcu.h): so do confirm_kill and a
 * release that its put calls (in_softirq(), no sleeping, their locks used
 * in softirq context for lockdep), as in the kernel.
 * That wait is what swapoff() gets with percpu_ref_kill(); synchronize_rcu()
 * and what percpu_ref_switch_to_atomic_sync() waits for.
 *
 * The mode word, both counts and the switch state are world fields read
 * and written with primitives; the callbacks (release, confirm) are
 * constant host pointers, never traced. percpu_ref_switch_lock is a
 * spinlock of each ref (the kernel's is global). The per-CPU counters are
 * poisoned when freed (__percpu_ref_exit(): after the switch unless
 * PERCPU_REF_ALLOW_REINIT, or by percpu_ref_exit()).
 *
 * Reports beyond the kernel's own WARNs: a put that takes the atomic count
 * below 0 (refcount-underflow) and a get on a released ref, count 0 in
 * atomic mode (inc-from-zero); "percpu ref <= 0 after switching to atomic"
 * is refcount-underflow too.
 *
 * Left out: percpu_ref_switch_to_percpu(), percpu_ref_reinit(),
 * percpu_ref_resurrect(), PERCPU_REF_INIT_DEAD re-arming.
 */
#ifndef WEFT_PERCPU_REF_H
#define WEFT_PERCPU_REF_H

#include <weft/gfp.h>
#include <weft/kernel.h>

struct percpu_ref;
typedef void (percpu_ref_func_t)(struct percpu_ref *);

/* flags of percpu_ref_init() */
enum {
	PERCPU_REF_INIT_ATOMIC = 1 << 0,
	PERCPU_REF_INIT_DEAD = 1 << 1,
	PERCPU_REF_ALLOW_REINIT = 1 << 2,
};

/* bits of the mode word (the kernel's low bits of percpu_count_ptr) */
#define __PERCPU_REF_ATOMIC 1ul
#define __PERCPU_REF_DEAD 2ul
#define __PERCPU_REF_ATOMIC_DEAD (__PERCPU_REF_ATOMIC | __PERCPU_REF_DEAD)
#define PERCPU_COUNT_BIAS (1l << 62)   /* the kernel's 1 << (BITS_PER_LONG - 1), halved:
					  signed arithmetic on a long here */

struct percpu_ref {
	unsigned long percpu_count_ptr;      /* mode bits only */
	struct weft_atomic_long count;       /* data->count */
	WEFT_PER_CPU(long, percpu_count);    /* the per-CPU counters */
	int switching;                       /* data->confirm_switch != NULL */
	int force_atomic;                    /* switch_lock */
	bool allow_reinit;                   /* constant after init */
	spinlock_t switch_lock;              /* percpu_ref_switch_lock */
	struct weft_rcu_head rcu;                 /* the switch's callback */
	/* host pointers, constant or written under switch_lock before the
	 * callback is queued: never traced */
	percpu_ref_func_t *release;
	percpu_ref_func_t *confirm_switch;
};

/* percpu_ref_init(ref, release, flags[, gfp]): 0. The kernel's gfp
 * argument may be passed or left out (ignored); the function itself keeps
 * the three arguments of earlier releases. */
int (percpu_ref_init)(struct percpu_ref *ref, percpu_ref_func_t *release, unsigned flags);
#define percpu_ref_init(...) __weft_percpu_ref_init(__VA_ARGS__, 0u, 0u)
#define __weft_percpu_ref_init(ref, release, flags, gfp, ...) \
	(percpu_ref_init)((ref), (release), (flags))
/* __percpu_ref_exit(): the per-CPU counters are freed (poisoned). */
void percpu_ref_exit(struct percpu_ref *ref);

void weft_percpu_ref_get_many(struct percpu_ref *ref, unsigned long nr, const struct weft_site *s);
bool weft_percpu_ref_tryget_many(struct percpu_ref *ref, unsigned long nr,
				 const struct weft_site *s);
bool weft_percpu_ref_tryget_live(struct percpu_ref *ref, const struct weft_site *s);
void weft_percpu_ref_put_many(struct percpu_ref *ref, unsigned long nr, const struct weft_site *s);
void weft_percpu_ref_kill_and_confirm(struct percpu_ref *ref, percpu_ref_func_t *confirm_kill,
				      const struct weft_site *s);
void weft_percpu_ref_switch_to_atomic(struct percpu_ref *ref, percpu_ref_func_t *confirm,
				      const struct weft_site *s);
/* Sleeps until no switch is in progress (the kernel's wait_event on
 * percpu_ref_switch_waitq for !confirm_switch): after a kill, until the
 * kill is confirmed. */
void weft_percpu_ref_switch_wait(struct percpu_ref *ref, const struct weft_site *s);
bool weft_percpu_ref_is_zero(struct percpu_ref *ref, const struct weft_site *s);
bool weft_percpu_ref_is_dying(struct percpu_ref *ref, const struct weft_site *s);

#define __WEFT_PR_SITE(what) WEFT_SITE(WEFT_EV_RMW, what)
#define percpu_ref_get(ref) weft_percpu_ref_get_many((ref), 1, __WEFT_PR_SITE("percpu_ref_get(" #ref ")"))
#define percpu_ref_get_many(ref, nr) \
	weft_percpu_ref_get_many((ref), (nr), __WEFT_PR_SITE("percpu_ref_get_many(" #ref ")"))
#define percpu_ref_tryget(ref) \
	weft_percpu_ref_tryget_many((ref), 1, __WEFT_PR_SITE("percpu_ref_tryget(" #ref ")"))
#define percpu_ref_tryget_many(ref, nr) \
	weft_percpu_ref_tryget_many((ref), (nr), __WEFT_PR_SITE("percpu_ref_tryget_many(" #ref ")"))
#define percpu_ref_tryget_live(ref) \
	weft_percpu_ref_tryget_live((ref), __WEFT_PR_SITE("percpu_ref_tryget_live(" #ref ")"))
#define percpu_ref_put(ref) weft_percpu_ref_put_many((ref), 1, __WEFT_PR_SITE("percpu_ref_put(" #ref ")"))
#define percpu_ref_put_many(ref, nr) \
	weft_percpu_ref_put_many((ref), (nr), __WEFT_PR_SITE("percpu_ref_put_many(" #ref ")"))
#define percpu_ref_kill(ref) \
	weft_percpu_ref_kill_and_confirm((ref), NULL, __WEFT_PR_SITE("percpu_ref_kill(" #ref ")"))
#define percpu_ref_kill_and_confirm(ref, confirm) \
	weft_percpu_ref_kill_and_confirm((ref), (confirm), \
					 __WEFT_PR_SITE("percpu_ref_kill_and_confirm(" #ref ")"))
#define percpu_ref_switch_to_atomic(ref, confirm) \
	weft_percpu_ref_switch_to_atomic((ref), (confirm), \
					 __WEFT_PR_SITE("percpu_ref_switch_to_atomic(" #ref ")"))
#define percpu_ref_switch_to_atomic_sync(ref)                                   \
	do {                                                                    \
		percpu_ref_switch_to_atomic((ref), NULL);                       \
		weft_percpu_ref_switch_wait((ref), WEFT_SITE(WEFT_EV_WAIT,      \
					    "percpu_ref_switch_to_atomic_sync(" #ref ")")); \
	} while (0)
#define percpu_ref_switch_wait(ref) \
	weft_percpu_ref_switch_wait((ref), WEFT_SITE(WEFT_EV_WAIT, "percpu_ref_switch_wait(" #ref ")"))
#define percpu_ref_is_zero(ref) \
	weft_percpu_ref_is_zero((ref), WEFT_SITE(WEFT_EV_READ, "percpu_ref_is_zero(" #ref ")"))
#define percpu_ref_is_dying(ref) \
	weft_percpu_ref_is_dying((ref), WEFT_SITE(WEFT_EV_READ, "percpu_ref_is_dying(" #ref ")"))

#endif
