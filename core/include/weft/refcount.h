/*
 * refcount.h - refcount_t for Weft models: include/linux/refcount.h and
 * lib/refcount.c (v6.x), with the kernel's saturation and its warnings as
 * reports.
 *
 * Each operation is the kernel's one atomic (a fetch-add, a fetch-sub, an
 * add-unless-zero; dec_if_one() and dec_not_one() are the kernel's cmpxchg
 * loops, one scheduling point per try), then the kernel's check of the old
 * value:
 *
 *   increment/addition on 0 (REFCOUNT_ADD_UAF)       inc-from-zero
 *   underflow (REFCOUNT_SUB_UAF)                     refcount-underflow
 *   overflow (REFCOUNT_ADD_OVF, _ADD_NOT_ZERO_OVF)   refcount-saturated
 *   refcount_dec() hitting 0 (REFCOUNT_DEC_LEAK)     warn-on
 *
 * A report from a model thread ends the execution; in setup or an audit
 * the counter is then set to REFCOUNT_SATURATED (INT_MIN / 2), as
 * refcount_warn_saturate() does, and stays saturated (refcount_dec_not_one()
 * on 0 warns with the kernel's own WARN_ONCE() and leaves it at 0). The report's other
 * side is the last write of the counter (for an increment on 0: the put
 * that dropped it). Sites are the caller's ("refcount_inc(&obj->ref)").
 *
 * Works in both builds (the native one checks the same old values).
 */
#ifndef WEFT_REFCOUNT_H
#define WEFT_REFCOUNT_H

#include <limits.h>

#include <weft/kernel.h>

typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;

#define REFCOUNT_INIT(n) { .refs = ATOMIC_INIT(n) }
#define REFCOUNT_MAX INT_MAX
#define REFCOUNT_SATURATED (INT_MIN / 2)

enum refcount_saturation_type {
	REFCOUNT_ADD_NOT_ZERO_OVF,
	REFCOUNT_ADD_OVF,
	REFCOUNT_ADD_UAF,
	REFCOUNT_SUB_UAF,
	REFCOUNT_DEC_LEAK,
};

/* refcount_warn_saturate(): the report (other: the write of the value the
 * operation found), then saturate. */
static inline void weft_refcount_warn_saturate(refcount_t *r, enum refcount_saturation_type t,
					       const struct weft_access *prev)
{
	const struct weft_access *o = prev && prev->valid ? prev : NULL;

	switch (t) {
	case REFCOUNT_ADD_NOT_ZERO_OVF:
	case REFCOUNT_ADD_OVF:
		weft_report2(WEFT_KIND_REFCOUNT_SATURATED, &r->refs,
			     WEFT_SITE(WEFT_EV_NOTE, "refcount_warn_saturate(): saturated"), o,
			     "refcount_t: saturated; leaking memory");
		break;
	case REFCOUNT_ADD_UAF:
		weft_report2(WEFT_KIND_INC_FROM_ZERO, &r->refs,
			     WEFT_SITE(WEFT_EV_NOTE, "refcount_warn_saturate(): addition on 0"), o,
			     "refcount_t: addition on 0; use-after-free");
		break;
	case REFCOUNT_SUB_UAF:
		weft_report2(WEFT_KIND_REFCOUNT_UNDERFLOW, &r->refs,
			     WEFT_SITE(WEFT_EV_NOTE, "refcount_warn_saturate(): underflow"), o,
			     "refcount_t: underflow; use-after-free");
		break;
	case REFCOUNT_DEC_LEAK:
		weft_report2(WEFT_KIND_WARN_ON, &r->refs,
			     WEFT_SITE(WEFT_EV_NOTE, "refcount_warn_saturate(): decrement hit 0"), o,
			     "refcount_t: decrement hit 0; leaking memory");
		break;
	}
	atomic_set(&r->refs, REFCOUNT_SATURATED);
}

/* old + i as the kernel computes it (-fno-strict-overflow: wrapping). */
static inline int __weft_refcount_wrap_add(int old, int i)
{
	return (int)((unsigned)old + (unsigned)i);
}

static inline int __weft_refcount_rmw(refcount_t *r, unsigned aop, int a, int b,
				      const struct weft_site *s, struct weft_access *prev)
{
	return (int)weft_access_prev(&r->refs.counter, sizeof(r->refs.counter), aop, (unsigned)a,
				     (unsigned)b, s, prev);
}

/* __refcount_add(): fetch_add, then ADD_UAF on 0, ADD_OVF on overflow. */
static inline void __weft_refcount_add(int i, refcount_t *r, int *oldp,
				       const struct weft_site *s)
{
	struct weft_access prev;
	int old = __weft_refcount_rmw(r, WEFT_A_ADD, i, 0, s, &prev);

	if (oldp)
		*oldp = old;
	if (__builtin_expect(!old, 0))
		weft_refcount_warn_saturate(r, REFCOUNT_ADD_UAF, &prev);
	else if (__builtin_expect(old < 0 || __weft_refcount_wrap_add(old, i) < 0, 0))
		weft_refcount_warn_saturate(r, REFCOUNT_ADD_OVF, &prev);
}

/* __refcount_add_not_zero(): the kernel's try_cmpxchg loop is one atomic
 * add-unless-zero here; true if it added. */
static inline bool __weft_refcount_add_not_zero(int i, refcount_t *r, int *oldp,
						const struct weft_site *s)
{
	struct weft_access prev;
	int old = __weft_refcount_rmw(r, WEFT_A_ADD_UNLESS, i, 0, s, &prev);

	if (oldp)
		*oldp = old;
	if (__builtin_expect(old < 0 || __weft_refcount_wrap_add(old, i) < 0, 0))
		weft_refcount_warn_saturate(r, REFCOUNT_ADD_NOT_ZERO_OVF, &prev);
	return old != 0;
}

/* __refcount_sub_and_test(): fetch_sub, true when it dropped the last
 * reference; SUB_UAF below zero. */
static inline bool __weft_refcount_sub_and_test(int i, refcount_t *r, int *oldp,
						const struct weft_site *s)
{
	struct weft_access prev;
	int old = __weft_refcount_rmw(r, WEFT_A_ADD, -i, 0, s, &prev);

	if (oldp)
		*oldp = old;
	if (old == i)
		return true;
	if (__builtin_expect(old < 0 || __weft_refcount_wrap_add(old, -i) < 0, 0))
		weft_refcount_warn_saturate(r, REFCOUNT_SUB_UAF, &prev);
	return false;
}

/* __refcount_dec(): fetch_sub, DEC_LEAK when it hit 0 (or below). */
static inline void __weft_refcount_dec(refcount_t *r, int *oldp, const struct weft_site *s)
{
	struct weft_access prev;
	int old = __weft_refcount_rmw(r, WEFT_A_ADD, -1, 0, s, &prev);

	if (oldp)
		*oldp = old;
	if (__builtin_expect(old <= 1, 0))
		weft_refcount_warn_saturate(r, REFCOUNT_DEC_LEAK, &prev);
}

/* refcount_dec_if_one(): 1 -> 0 by cmpxchg. */
static inline bool __weft_refcount_dec_if_one(refcount_t *r, const struct weft_site *s)
{
	struct weft_access prev;

	return __weft_refcount_rmw(r, WEFT_A_CMPXCHG, 1, 0, s, &prev) == 1;
}

/* refcount_dec_not_one(): the kernel's loop; false if the count was 1
 * (nothing done), true otherwise (decremented, or saturated: left as it
 * is; on 0 an underflow warning, the count left at 0, as the kernel's). */
static inline bool __weft_refcount_dec_not_one(refcount_t *r, const struct weft_site *ld,
					       const struct weft_site *s)
{
	struct weft_access prev;
	unsigned val = (unsigned)__weft_refcount_rmw(r, WEFT_A_LOAD, 0, 0, ld, &prev);

	for (;;) {
		if (__builtin_expect(val == (unsigned)REFCOUNT_SATURATED, 0))
			return true;
		if (val == 1)
			return false;
		unsigned nv = val - 1;
		if (nv > val) {
			/* the kernel's WARN_ONCE() here leaves the count as it is
			 * (no refcount_warn_saturate()) */
			weft_report2(WEFT_KIND_REFCOUNT_UNDERFLOW, &r->refs,
				     WEFT_SITE(WEFT_EV_NOTE, "refcount_dec_not_one(): underflow"),
				     prev.valid ? &prev : NULL,
				     "refcount_t: underflow; use-after-free");
			return true;
		}
		unsigned old = (unsigned)__weft_refcount_rmw(r, WEFT_A_CMPXCHG, (int)val, (int)nv, s,
							     &prev);
		if (old == val)
			return true;
		val = old;
	}
}

#define refcount_set(r, n) atomic_set(&(r)->refs, (n))
#define refcount_read(r) ((unsigned)atomic_read(&(r)->refs))

/* The orders of Documentation/core-api/refcount-vs-atomic.rst (weak
 * memory only): the increments, _not_zero ones included, are unordered
 * (relaxed: a lookup's refcount_inc_not_zero() orders no later load; only
 * a control dependency keeps its stores); the decrements are releases;
 * refcount_sub_and_test() and refcount_dec_and_test() are a release, and
 * an acquire only on the path that returns true (the kernel's
 * smp_acquire__after_ctrl_dep()): a put that did not drop the last
 * reference orders no later load after it (the refcount_dec_and_lock()
 * family inherits both). */
#define __WEFT_RC_SITE_INC(what) WEFT_SITE_F(WEFT_EV_RMW, what, WEFT_SITE_RELAXED)
#define __WEFT_RC_SITE_DEC(what) WEFT_SITE_F(WEFT_EV_RMW, what, WEFT_SITE_RELEASE)
#define __WEFT_RC_SITE_DEC_TEST(what) \
	WEFT_SITE_F(WEFT_EV_RMW, what, WEFT_SITE_RELEASE_ACQUIRE_ZERO)
#define refcount_add(i, r) __weft_refcount_add((i), (r), NULL, __WEFT_RC_SITE_INC("refcount_add(" #r ")"))
#define refcount_inc(r) __weft_refcount_add(1, (r), NULL, __WEFT_RC_SITE_INC("refcount_inc(" #r ")"))
#define __refcount_inc(r, oldp) __weft_refcount_add(1, (r), (oldp), __WEFT_RC_SITE_INC("refcount_inc(" #r ")"))
#define refcount_add_not_zero(i, r) \
	__weft_refcount_add_not_zero((i), (r), NULL, __WEFT_RC_SITE_INC("refcount_add_not_zero(" #r ")"))
#define refcount_inc_not_zero(r) \
	__weft_refcount_add_not_zero(1, (r), NULL, __WEFT_RC_SITE_INC("refcount_inc_not_zero(" #r ")"))
#define __refcount_inc_not_zero(r, oldp) \
	__weft_refcount_add_not_zero(1, (r), (oldp), __WEFT_RC_SITE_INC("refcount_inc_not_zero(" #r ")"))
#define refcount_sub_and_test(i, r) \
	__weft_refcount_sub_and_test((i), (r), NULL, __WEFT_RC_SITE_DEC_TEST("refcount_sub_and_test(" #r ")"))
#define refcount_dec_and_test(r) \
	__weft_refcount_sub_and_test(1, (r), NULL, __WEFT_RC_SITE_DEC_TEST("refcount_dec_and_test(" #r ")"))
#define __refcount_dec_and_test(r, oldp) \
	__weft_refcount_sub_and_test(1, (r), (oldp), __WEFT_RC_SITE_DEC_TEST("refcount_dec_and_test(" #r ")"))
#define refcount_dec(r) __weft_refcount_dec((r), NULL, __WEFT_RC_SITE_DEC("refcount_dec(" #r ")"))
#define refcount_dec_if_one(r) __weft_refcount_dec_if_one((r), __WEFT_RC_SITE_DEC("refcount_dec_if_one(" #r ")"))
#define refcount_dec_not_one(r)                                                 \
	__weft_refcount_dec_not_one((r), WEFT_SITE(WEFT_EV_READ, "refcount_dec_not_one(" #r ") read"), \
				    __WEFT_RC_SITE_DEC("refcount_dec_not_one(" #r ")"))

/* refcount_dec_and_lock(): true, with lock held, if the count dropped to 0
 * (only the last put takes the lock: lock_stmt, and unlock_stmt when the
 * count did not drop to 0 after all). */
#define __weft_refcount_dec_and_lock_by(r, lock_stmt, unlock_stmt) \
	({                                                          \
		bool __weft_rc_ret = false;                         \
		if (!refcount_dec_not_one(r)) {                     \
			lock_stmt;                                  \
			if (refcount_dec_and_test(r))               \
				__weft_rc_ret = true;               \
			else                                        \
				unlock_stmt;                        \
		}                                                   \
		__weft_rc_ret;                                      \
	})
#define refcount_dec_and_lock(r, lock) \
	__weft_refcount_dec_and_lock_by(r, spin_lock(lock), spin_unlock(lock))
#define refcount_dec_and_lock_irqsave(r, lock, flags)                         \
	__weft_refcount_dec_and_lock_by(r, spin_lock_irqsave(lock, *(flags)), \
					spin_unlock_irqrestore(lock, *(flags)))

#ifndef WEFT_OWN_REFCOUNT_DEC_AND_MUTEX_LOCK
/* refcount_dec_and_mutex_lock(): the same with a struct mutex (only the
 * last put sleeps for it); a model with a refcount_dec_and_mutex_lock()
 * of its own defines WEFT_OWN_REFCOUNT_DEC_AND_MUTEX_LOCK first */
#define refcount_dec_and_mutex_lock(r, lock) \
	__weft_refcount_dec_and_lock_by(r, mutex_lock(lock), mutex_unlock(lock))
#endif

#endif
