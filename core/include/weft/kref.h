/*
 * kref.h - struct kref for Weft models (include/linux/kref.h, v6.12): a
 * refcount_t (<weft/refcount.h>, with its saturation checks: addition on
 * 0, underflow) and the release callback the last put runs. A family
 * header of its own: a model includes it when it wants these.
 *
 * The race kref.h's comments warn about is what a search finds: a lookup
 * that takes a reference with kref_get() to an object whose last
 * kref_put() is under way (refcount_t reports the addition on 0, and the
 * release has freed the object: a use-after-free). The fixes are the
 * kernel's: kref_get_unless_zero() in the lookup, or kref_put_lock() /
 * kref_put_mutex() so that the last put takes the lookup's lock before
 * the count reaches 0.
 *
 *   struct kref, KREF_INIT(n), kref_init(k), kref_read(k), kref_get(k),
 *   kref_put(k, release), kref_put_lock(k, release, spinlock),
 *   kref_put_mutex(k, release, mutex), kref_get_unless_zero(k)
 *
 * release(k) runs in the caller, as in the kernel; kref_put_lock() and
 * kref_put_mutex() call it with the lock held, and it must drop it. A
 * model with kernel names of its own for these defines WEFT_OWN_KREF
 * before including it.
 */
#ifndef WEFT_KREF_H
#define WEFT_KREF_H

#include <weft/refcount.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef WEFT_OWN_KREF

struct kref {
	refcount_t refcount;
};

#define KREF_INIT(n) { .refcount = REFCOUNT_INIT(n) }
#define kref_init(k) refcount_set(&(k)->refcount, 1)
#define kref_read(k) refcount_read(&(k)->refcount)
#define kref_get(k) refcount_inc(&(k)->refcount)
#define kref_get_unless_zero(k) refcount_inc_not_zero(&(k)->refcount)

/* kref_put(): 1 if this put released the object (release(k) ran);
 * last_put(&k->refcount, ...) is the refcount operation that says so */
#define __weft_kref_put_by(k, release, last_put, ...)                                    \
	({                                                                              \
		struct kref *__weft_kref = (k);                                         \
		int __weft_released = 0;                                                \
		if (last_put(&__weft_kref->refcount, ##__VA_ARGS__)) {                  \
			(release)(__weft_kref);                                         \
			__weft_released = 1;                                            \
		}                                                                       \
		__weft_released;                                                        \
	})
#define kref_put(k, release) __weft_kref_put_by(k, release, refcount_dec_and_test)
#define kref_put_lock(k, release, lock) __weft_kref_put_by(k, release, refcount_dec_and_lock, lock)
/* refcount_dec_and_mutex_lock(): only the last put takes the mutex */
#define __weft_refcount_dec_and_mutex_lock(r, mutex) \
	__weft_refcount_dec_and_lock_by(r, mutex_lock(mutex), mutex_unlock(mutex))
#define kref_put_mutex(k, release, mutex) \
	__weft_kref_put_by(k, release, __weft_refcount_dec_and_mutex_lock, mutex)

#endif /* WEFT_OWN_KREF */

#ifdef __cplusplus
}
#endif
#endif
