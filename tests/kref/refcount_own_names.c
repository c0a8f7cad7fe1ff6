/*
 * refcount_own_names.c - a model with a refcount_dec_and_mutex_lock() of
 * its own (as models written before <weft/refcount.h> had it) still builds:
 * WEFT_OWN_REFCOUNT_DEC_AND_MUTEX_LOCK keeps the header's out (CHANGELOG.md).
 * Built into bin/weft-kref; without the switch this file does not compile.
 */
#define WEFT_OWN_REFCOUNT_DEC_AND_MUTEX_LOCK
#include <weft/kernel.h>
#include <weft/kref.h>

bool refcount_dec_and_mutex_lock(refcount_t *r, struct mutex *lock);

bool refcount_dec_and_mutex_lock(refcount_t *r, struct mutex *lock)
{
	return __weft_refcount_dec_and_mutex_lock(r, lock);
}
