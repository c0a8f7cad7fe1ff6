/*
 * slab_models.c - kmalloc(), kfree() and kmem caches (<weft/slab.h>) on a
 * scenario's heap, each bug beside its fixes, run through the weft command
 * line of this program (bin/weft-slab; tests/slab/CMakeLists.txt):
 *
 *  obj-lookup   an object kmalloc()ed by setup and published in a slot; T0
 *               looks it up under the slot's lock and reads it, T1
 *               unpublishes it and drops the slot's reference.
 *               read-after-unlock (bug): T0 reads it after the unlock and
 *               T1 kfree()s it at once (use-after-free);
 *               dec-then-read (bug): atomic_dec(), then atomic_read() == 0:
 *               the first to see 0 frees it while the other reads the
 *               count (use-after-free);
 *               refcount (clean): refcount_t, the lookup's get under the
 *               lock, kfree() by the last put.
 *  teardown     both threads tear the object down once: test-then-clear
 *               (bug): test_bit(), then clear_bit() and kfree(): both may
 *               free it (double-free); test-and-clear (clean).
 *  lazy-init    both threads make a shared object on first use.
 *               check-then-store (bug): both see the slot empty, both
 *               kmalloc() and store: one object is lost (memory-leak, the
 *               scan at the end of the execution); cmpxchg (clean): the
 *               loser kfree()s its own.
 *  alloc-locked GFP_KERNEL under a spinlock (sleep-in-atomic) beside
 *               GFP_ATOMIC (clean).
 *  typesafe     a SLAB_TYPESAFE_BY_RCU cache: T0 finds the object under
 *               RCU and takes a reference with refcount_inc_not_zero();
 *               T1 unpublishes it, drops the last reference, frees it and
 *               allocates another object, which reuses the memory, with
 *               another key. no-recheck (bug): T0 uses what it got as the
 *               object it looked up (assertion: another key);
 *               recheck (clean): T0 checks the key after the get;
 *               plain-cache (bug): the same reader on a cache without the
 *               flag, freed with no grace period (rcu-free-in-use). The
 *               writer orders the new key before the count with smp_wmb()
 *               and the reader the count before the key with smp_rmb()
 *               (6.13's refcount_set_release() and
 *               refcount_inc_not_zero_acquire()): without them lkmm finds
 *               the recheck reading the old key.
 *  cache-destroy T0 frees the slot's object under the slot's lock; T1
 *               destroys the cache. destroy-at-once (bug): the destroy
 *               may run before the free (bad-free, "Objects remaining");
 *               drain-first (clean): T1 drains the slot under the lock
 *               first.
 *  misuse       kfree() of a pointer inside an object, and of memory that
 *               is not the heap's (bad-free, both); kfree(NULL) (clean).
 *  no-heap      kmalloc() in a scenario without .heap_size: limit-reached,
 *               naming .heap_size.
 */
#include <weft/kernel.h>
#include <weft/refcount.h>
#include <weft/slab.h>

#define WEFT_TEST_SOURCE "mm/slub.c"
#define WEFT_TEST_FILE "slab_models.c"
#include "../model_driver.h"

/* ------------------------------------------------------------ obj-lookup */

enum { OL_READ_AFTER_UNLOCK, OL_PLAIN_COUNT, OL_REFCOUNT };

struct ol_obj {
	refcount_t ref;
	atomic_t count;
	int data;
};

struct ol_world {
	unsigned variant;
	spinlock_t lock;
	struct ol_obj *slot;
};

WEFT_TEST_SETUP(ol, struct ol_world)
{
	struct ol_obj *o = kmalloc(sizeof(*o), GFP_KERNEL);

	spin_lock_init(&W->lock);
	refcount_set(&o->ref, 1);
	atomic_set(&o->count, 1);
	WRITE_ONCE(o->data, 7);
	W->slot = o;
}

static void ol_put(struct ol_world *W, struct ol_obj *o)
{
	if (W->variant == OL_REFCOUNT) {
		if (refcount_dec_and_test(&o->ref))
			kfree(o);
		return;
	}
	atomic_dec(&o->count);   /* the decrement and the test apart */
	if (atomic_read(&o->count) == 0)
		kfree(o);
}

static void ol_thread(void *w, unsigned tid)
{
	struct ol_world *W = w;
	struct ol_obj *o;

	spin_lock(&W->lock);
	o = READ_ONCE(W->slot);
	if (tid == 1)
		WRITE_ONCE(W->slot, NULL);
	else if (o && W->variant == OL_REFCOUNT)
		refcount_inc(&o->ref);
	else if (o && W->variant == OL_PLAIN_COUNT)
		atomic_inc(&o->count);
	spin_unlock(&W->lock);
	if (!o)
		return;
	if (tid == 1) {
		if (W->variant == OL_READ_AFTER_UNLOCK)
			kfree(o);
		else
			ol_put(W, o);
		return;
	}
	if (READ_ONCE(o->data) != 7)
		weft_report(WEFT_KIND_ASSERT, &o->data, WEFT_SITE(WEFT_EV_NOTE, "ol data"),
			    "the object's data changed");
	if (W->variant != OL_READ_AFTER_UNLOCK)
		ol_put(W, o);
}

static const struct weft_variant ol_variants[] = {
	WEFT_TEST_BUG("read-after-unlock", "T0 reads the object after the unlock, T1 frees it",
		      WEFT_KIND_USE_AFTER_FREE, OL_READ_AFTER_UNLOCK),
	WEFT_TEST_BUG("dec-then-read", "atomic_dec(), then atomic_read() == 0",
		      WEFT_KIND_USE_AFTER_FREE, OL_PLAIN_COUNT),
	WEFT_TEST_FIX("refcount", "refcount_t: the get under the lock, kfree() at 0",
		      OL_REFCOUNT),
};

WEFT_TEST_SCENARIO(obj_lookup, "obj-lookup",
		   "test: a kmalloc()ed object looked up while its last reference goes",
		   struct ol_world, 2, 2, 48, ol, .heap_size = 256);

/* -------------------------------------------------------------- teardown */

enum { TD_TEST_THEN_CLEAR, TD_TEST_AND_CLEAR };

struct td_world {
	unsigned variant;
	unsigned long alive;
	int *obj;
};

WEFT_TEST_SETUP(td, struct td_world)
{
	W->obj = kzalloc(sizeof(*W->obj), GFP_KERNEL);
	W->alive = 1;
}

static void td_thread(void *w, unsigned tid)
{
	struct td_world *W = w;

	(void)tid;
	if (W->variant == TD_TEST_AND_CLEAR) {
		if (test_and_clear_bit(0, &W->alive))
			kfree(W->obj);
		return;
	}
	if (test_bit(0, &W->alive)) {
		clear_bit(0, &W->alive);
		kfree(W->obj);
	}
}

static const struct weft_variant td_variants[] = {
	WEFT_TEST_BUG("test-then-clear", "test_bit(), then clear_bit() and kfree()",
		      WEFT_KIND_DOUBLE_FREE, TD_TEST_THEN_CLEAR),
	WEFT_TEST_FIX("test-and-clear", "test_and_clear_bit(), then kfree()", TD_TEST_AND_CLEAR),
};

WEFT_TEST_SCENARIO(teardown, "teardown", "test: two threads tear one object down",
		   struct td_world, 2, 2, 32, td, .heap_size = 64);

/* ------------------------------------------------------------- lazy-init */

enum { LI_CHECK_THEN_STORE, LI_CMPXCHG };

struct li_world {
	unsigned variant;
	int *slot;
};

WEFT_TEST_SETUP_VARIANT_ONLY(li, struct li_world)

static void li_thread(void *w, unsigned tid)
{
	struct li_world *W = w;
	int *n;

	(void)tid;
	if (READ_ONCE(W->slot))
		return;
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (W->variant == LI_CHECK_THEN_STORE)
		WRITE_ONCE(W->slot, n);
	else if (cmpxchg(&W->slot, NULL, n) != NULL)
		kfree(n);   /* another thread's object won */
}

static const struct weft_variant li_variants[] = {
	WEFT_TEST_BUG("check-then-store", "READ_ONCE() the slot, then store a new object",
		      WEFT_KIND_MEMORY_LEAK, LI_CHECK_THEN_STORE),
	WEFT_TEST_FIX("cmpxchg", "cmpxchg() the slot; the loser frees its object", LI_CMPXCHG),
};

WEFT_TEST_SCENARIO(lazy_init, "lazy-init", "test: two threads make a shared object on first use",
		   struct li_world, 2, 2, 32, li, .heap_size = 64);

/* ---------------------------------------------------------- alloc-locked */

enum { AL_GFP_KERNEL, AL_GFP_ATOMIC };

struct al_world {
	unsigned variant;
	spinlock_t lock;
	void *p[2];
};

WEFT_TEST_SETUP(al, struct al_world)
{
	spin_lock_init(&W->lock);
}

static void al_thread(void *w, unsigned tid)
{
	struct al_world *W = w;

	spin_lock(&W->lock);
	W->p[tid] = kmalloc(24, W->variant == AL_GFP_KERNEL ? GFP_KERNEL : GFP_ATOMIC);
	spin_unlock(&W->lock);
	if (ksize(W->p[tid]) != 32)
		weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "al ksize"),
			    "ksize() of a 24-byte allocation is %zu, not 32", ksize(W->p[tid]));
	kfree(W->p[tid]);
}

static const struct weft_variant al_variants[] = {
	WEFT_TEST_BUG("gfp-kernel", "kmalloc(GFP_KERNEL) under a spinlock",
		      WEFT_KIND_SLEEP_IN_ATOMIC, AL_GFP_KERNEL),
	WEFT_TEST_FIX("gfp-atomic", "kmalloc(GFP_ATOMIC) under a spinlock", AL_GFP_ATOMIC),
};

WEFT_TEST_SCENARIO(alloc_locked, "alloc-locked", "test: allocating under a spinlock",
		   struct al_world, 2, 2, 32, al, .heap_size = 128);

/* -------------------------------------------------------------- typesafe */

enum { TS_NO_RECHECK, TS_RECHECK, TS_PLAIN_CACHE };

struct ts_obj {
	refcount_t ref;
	int key;
};

struct ts_world {
	unsigned variant;
	spinlock_t lock;
	struct kmem_cache *cache;
	struct ts_obj *slot;
	struct ts_obj *other;
};

WEFT_TEST_SETUP(ts, struct ts_world)
{
	spin_lock_init(&W->lock);
	W->cache = KMEM_CACHE(ts_obj, W->variant == TS_PLAIN_CACHE ? 0 : SLAB_TYPESAFE_BY_RCU);
	struct ts_obj *o = kmem_cache_alloc(W->cache, GFP_KERNEL);
	refcount_set(&o->ref, 1);
	WRITE_ONCE(o->key, 1);
	W->slot = o;
}

static void ts_put(struct ts_world *W, struct ts_obj *o)
{
	if (refcount_dec_and_test(&o->ref))
		kmem_cache_free(W->cache, o);
}

static void ts_thread(void *w, unsigned tid)
{
	struct ts_world *W = w;
	struct ts_obj *o;

	if (tid == 1) {
		spin_lock(&W->lock);
		o = READ_ONCE(W->slot);
		WRITE_ONCE(W->slot, NULL);
		spin_unlock(&W->lock);
		ts_put(W, o);
		o = kmem_cache_alloc(W->cache, GFP_KERNEL);
		WRITE_ONCE(o->key, 2);
		smp_wmb();   /* the key before the count (refcount_set_release()) */
		refcount_set(&o->ref, 1);
		WRITE_ONCE(W->other, o);
		return;
	}
	rcu_read_lock();
	o = rcu_dereference(W->slot);
	if (o && !refcount_inc_not_zero(&o->ref))
		o = NULL;
	rcu_read_unlock();
	if (!o)
		return;
	smp_rmb();   /* the count before the key (refcount_inc_not_zero_acquire()) */
	if (W->variant != TS_NO_RECHECK && READ_ONCE(o->key) != 1) {
		ts_put(W, o);   /* reused for another key: not ours */
		return;
	}
	if (READ_ONCE(o->key) != 1)
		weft_report(WEFT_KIND_ASSERT, &o->key, WEFT_SITE(WEFT_EV_NOTE, "ts key"),
			    "looked up key 1, holds an object of key %d", READ_ONCE(o->key));
	ts_put(W, o);
}

static const struct weft_variant ts_variants[] = {
	WEFT_TEST_BUG("no-recheck", "SLAB_TYPESAFE_BY_RCU, no identity check after the get",
		      WEFT_KIND_ASSERT, TS_NO_RECHECK),
	WEFT_TEST_FIX("recheck", "SLAB_TYPESAFE_BY_RCU, the key checked after the get",
		      TS_RECHECK),
	WEFT_TEST_BUG("plain-cache", "no SLAB_TYPESAFE_BY_RCU: freed with no grace period",
		      WEFT_KIND_RCU_FREE_IN_USE, TS_PLAIN_CACHE),
};

WEFT_TEST_SCENARIO(typesafe, "typesafe",
		   "test: an RCU lookup in a SLAB_TYPESAFE_BY_RCU cache while the object is "
		   "freed and reused",
		   struct ts_world, 2, 2, 48, ts, .heap_size = 256);

/* --------------------------------------------------------- cache-destroy */

enum { CD_DESTROY_AT_ONCE, CD_DRAIN_UNDER_LOCK };

struct cd_obj {
	int data;
};

struct cd_world {
	unsigned variant;
	spinlock_t lock;
	struct kmem_cache *cache;
	struct cd_obj *slot;
};

WEFT_TEST_SETUP(cd, struct cd_world)
{
	spin_lock_init(&W->lock);
	W->cache = KMEM_CACHE(cd_obj, 0);
	W->slot = kmem_cache_alloc(W->cache, GFP_KERNEL);
}

/* takes the slot's object, if still there, and frees it */
static void cd_drain(struct cd_world *W)
{
	spin_lock(&W->lock);
	struct cd_obj *o = READ_ONCE(W->slot);
	WRITE_ONCE(W->slot, NULL);
	if (o)
		kmem_cache_free(W->cache, o);
	spin_unlock(&W->lock);
}

static void cd_thread(void *w, unsigned tid)
{
	struct cd_world *W = w;

	if (tid == 0) {
		cd_drain(W);
		return;
	}
	if (W->variant == CD_DRAIN_UNDER_LOCK)
		cd_drain(W);
	kmem_cache_destroy(W->cache);
}

static const struct weft_variant cd_variants[] = {
	WEFT_TEST_BUG("destroy-at-once", "T1 destroys the cache while T0 may still hold an object",
		      WEFT_KIND_BAD_FREE, CD_DESTROY_AT_ONCE),
	WEFT_TEST_FIX("drain-first", "T1 drains the slot under its lock, then destroys the cache",
		      CD_DRAIN_UNDER_LOCK),
};

WEFT_TEST_SCENARIO(cache_destroy, "cache-destroy",
		   "test: kmem_cache_destroy() while another thread frees the cache's last object",
		   struct cd_world, 2, 2, 32, cd, .heap_size = 64);

/* ---------------------------------------------------------------- misuse */

enum { MU_INSIDE, MU_NOT_HEAP, MU_NULL };

struct mu_world {
	unsigned variant;
	int not_heap;
};

WEFT_TEST_SETUP_VARIANT_ONLY(mu, struct mu_world)

static void mu_thread(void *w, unsigned tid)
{
	struct mu_world *W = w;
	char *p = kmalloc(32, GFP_KERNEL);

	(void)tid;
	if (W->variant == MU_INSIDE)
		kfree(p + 8);
	else if (W->variant == MU_NOT_HEAP)
		kfree(&W->not_heap);
	else
		kfree(NULL);
	kfree(p);
}

static const struct weft_variant mu_variants[] = {
	WEFT_TEST_BUG("inside", "kfree() of a pointer inside an object", WEFT_KIND_BAD_FREE,
		      MU_INSIDE),
	WEFT_TEST_BUG("not-heap", "kfree() of the world's own memory", WEFT_KIND_BAD_FREE,
		      MU_NOT_HEAP),
	WEFT_TEST_FIX("null", "kfree(NULL)", MU_NULL),
};

WEFT_TEST_SCENARIO(misuse, "misuse", "test: kfree() of what kmalloc() did not return",
		   struct mu_world, 1, 1, 16, mu, .heap_size = 64);

/* --------------------------------------------------------------- no-heap */

struct nh_world {
	unsigned variant;
	void *p;
};

WEFT_TEST_SETUP_VARIANT_ONLY(nh, struct nh_world)

static void nh_thread(void *w, unsigned tid)
{
	struct nh_world *W = w;

	(void)tid;
	W->p = kmalloc(8, GFP_KERNEL);
}

static const struct weft_variant nh_variants[] = {
	WEFT_TEST_BUG("kmalloc", "kmalloc() without .heap_size", WEFT_KIND_LIMIT, 0),
};

WEFT_TEST_SCENARIO(no_heap, "no-heap", "test: kmalloc() in a scenario with no heap",
		   struct nh_world, 1, 1, 16, nh);

WEFT_DEFINE_REGISTRY(&obj_lookup, &teardown, &lazy_init, &alloc_locked, &typesafe, &cache_destroy, &misuse,
		     &no_heap);
