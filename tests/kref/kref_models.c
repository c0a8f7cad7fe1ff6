/*
 * kref_models.c - struct kref (<weft/kref.h>) in the lookup race
 * include/linux/kref.h warns about, the bug beside its two fixes, run
 * through the weft command line of this program (bin/weft-kref;
 * tests/kref/CMakeLists.txt):
 *
 *  kref-lookup  an object published in a table (the table holds the
 *               first reference); T0 looks it up under the table's lock,
 *               takes a reference, reads it and puts it; T1 puts the
 *               table's reference, and the release unpublishes and frees
 *               the object. get (bug): the lookup's kref_get() can meet a
 *               count the last put already took to 0 (inc-from-zero: the
 *               object is being freed); get-unless-zero (clean):
 *               kref_get_unless_zero() treats such an object as gone;
 *               put-lock (clean): kref_put_lock() takes the table's lock
 *               before the count reaches 0, so no lookup finds it then.
 */
#include <weft/kernel.h>
#include <weft/kref.h>

#define WEFT_TEST_SOURCE "include/linux/kref.h"
#define WEFT_TEST_FILE "kref_models.c"
#include "../model_driver.h"

enum { KR_GET, KR_GET_UNLESS_ZERO, KR_PUT_LOCK };

struct kr_obj {
	struct kref ref;
	int data;
};

struct kr_world {
	unsigned variant;
	spinlock_t table_lock;
	struct kr_obj *table;
	struct kr_obj obj;
};

static struct kr_world *kr_world_of(struct kref *k)
{
	return container_of(container_of(k, struct kr_obj, ref), struct kr_world, obj);
}

/* kref_put()'s release: unpublish under the lock, then free */
static void kr_release(struct kref *k)
{
	struct kr_world *W = kr_world_of(k);

	spin_lock(&W->table_lock);
	WRITE_ONCE(W->table, NULL);
	spin_unlock(&W->table_lock);
	weft_poison(&W->obj, sizeof(W->obj), WEFT_SITE(WEFT_EV_NOTE, "kfree(obj)"));
}

/* kref_put_lock()'s release: called with the table's lock held */
static void kr_release_locked(struct kref *k)
{
	struct kr_world *W = kr_world_of(k);

	WRITE_ONCE(W->table, NULL);
	spin_unlock(&W->table_lock);
	weft_poison(&W->obj, sizeof(W->obj), WEFT_SITE(WEFT_EV_NOTE, "kfree(obj)"));
}

static void kr_put(struct kr_world *W, struct kr_obj *o)
{
	if (W->variant == KR_PUT_LOCK)
		kref_put_lock(&o->ref, kr_release_locked, &W->table_lock);
	else
		kref_put(&o->ref, kr_release);
}

WEFT_TEST_SETUP(kr, struct kr_world)
{
	spin_lock_init(&W->table_lock);
	kref_init(&W->obj.ref);
	W->obj.data = 7;
	W->table = &W->obj;
}

static void kr_thread(void *w, unsigned tid)
{
	struct kr_world *W = w;
	struct kr_obj *o;

	if (tid == 1) {
		kr_put(W, &W->obj);   /* the table's reference */
		return;
	}
	spin_lock(&W->table_lock);
	o = READ_ONCE(W->table);
	if (o && W->variant == KR_GET_UNLESS_ZERO) {
		if (!kref_get_unless_zero(&o->ref))
			o = NULL;
	} else if (o) {
		kref_get(&o->ref);
	}
	spin_unlock(&W->table_lock);
	if (!o)
		return;
	if (READ_ONCE(o->data) != 7)
		weft_report(WEFT_KIND_ASSERT, &o->data, WEFT_SITE(WEFT_EV_NOTE, "kr data"),
			    "the object's data changed under a reference");
	kr_put(W, o);
}

static const struct weft_variant kr_variants[] = {
	WEFT_TEST_BUG("get",
	              "kref_get() in the lookup: the last put may have run",
	              WEFT_KIND_INC_FROM_ZERO, KR_GET),
	WEFT_TEST_FIX("get-unless-zero",
	              "kref_get_unless_zero() in the lookup",
	              KR_GET_UNLESS_ZERO),
	WEFT_TEST_FIX("put-lock",
	              "kref_put_lock(): the last put takes the table's lock",
	              KR_PUT_LOCK),
};

WEFT_TEST_SCENARIO(kref_lookup, "kref-lookup",
		   "test: looking up a kref'd object while its last reference goes",
		   struct kr_world, 2, 2, 48, kr);

/* kref_unlock_models.c */
extern const struct weft_scenario weft_kref_unlock;
extern const struct weft_scenario weft_refcount_order;
/* refcount_put_order_models.c */
extern const struct weft_scenario weft_refcount_put_order;
/* refcount_mutex_models.c */
extern const struct weft_scenario weft_refcount_mutex_lookup;

WEFT_DEFINE_REGISTRY(&kref_lookup, &weft_kref_unlock, &weft_refcount_order,
		     &weft_refcount_put_order, &weft_refcount_mutex_lookup);
