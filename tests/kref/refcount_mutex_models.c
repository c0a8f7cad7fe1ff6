/*
 * refcount_mutex_models.c - refcount_dec_and_mutex_lock()
 * (include/linux/refcount.h, lib/refcount.c): an object published in a
 * table under a mutex, the table holding the first reference; T0 looks it
 * up under the mutex and takes a reference with refcount_inc(), reads it
 * and puts it; T1 puts the table's reference. The last put unpublishes the
 * object and frees it (bin/weft-kref; tests/kref/CMakeLists.txt):
 *
 *  refcount-mutex-lookup  dec-then-lock (bug): the put takes the mutex
 *                         after refcount_dec_and_test() dropped the count
 *                         to 0, so a lookup in between finds the object
 *                         and increments a count of 0 (inc-from-zero);
 *                         dec-and-mutex-lock (clean):
 *                         refcount_dec_and_mutex_lock() takes the mutex
 *                         before the count reaches 0 (only the last put
 *                         takes it), so no lookup finds it then.
 */
#include <weft/kernel.h>
#include <weft/refcount.h>

#define WEFT_TEST_SOURCE "include/linux/refcount.h"
#define WEFT_TEST_FILE "refcount_mutex_models.c"
#include "../model_driver.h"

enum { RM_DEC_THEN_LOCK, RM_DEC_AND_MUTEX_LOCK };

struct rm_obj {
	refcount_t ref;
	int data;
};

struct rm_world {
	unsigned variant;
	struct mutex table_lock;
	struct rm_obj *table;
	struct rm_obj obj;
};

WEFT_TEST_SETUP(rm, struct rm_world)
{
	mutex_init(&W->table_lock);
	refcount_set(&W->obj.ref, 1);
	W->obj.data = 7;
	W->table = &W->obj;
}

/* called with the table's mutex held: unpublish, unlock, free */
static void rm_free(struct rm_world *W, struct rm_obj *o)
{
	WRITE_ONCE(W->table, NULL);
	mutex_unlock(&W->table_lock);
	weft_poison(o, sizeof(*o), WEFT_SITE(WEFT_EV_NOTE, "kfree(obj)"));
}

static void rm_put(struct rm_world *W, struct rm_obj *o)
{
	if (W->variant == RM_DEC_AND_MUTEX_LOCK) {
		if (refcount_dec_and_mutex_lock(&o->ref, &W->table_lock))
			rm_free(W, o);
		return;
	}
	if (refcount_dec_and_test(&o->ref)) {
		mutex_lock(&W->table_lock);
		rm_free(W, o);
	}
}

static void rm_thread(void *w, unsigned tid)
{
	struct rm_world *W = w;
	struct rm_obj *o;

	if (tid == 1) {
		rm_put(W, &W->obj);   /* the table's reference */
		return;
	}
	mutex_lock(&W->table_lock);
	o = READ_ONCE(W->table);
	if (o)
		refcount_inc(&o->ref);
	mutex_unlock(&W->table_lock);
	if (!o)
		return;
	if (READ_ONCE(o->data) != 7)
		weft_report(WEFT_KIND_ASSERT, &o->data, WEFT_SITE(WEFT_EV_NOTE, "rm data"),
			    "the object's data changed under a reference");
	rm_put(W, o);
}

static const struct weft_variant rm_variants[] = {
	WEFT_TEST_BUG("dec-then-lock",
	              "refcount_dec_and_test(), then the mutex: a lookup may come in between",
	              WEFT_KIND_INC_FROM_ZERO, RM_DEC_THEN_LOCK),
	WEFT_TEST_FIX("dec-and-mutex-lock",
	              "refcount_dec_and_mutex_lock(): the last put takes the mutex first",
	              RM_DEC_AND_MUTEX_LOCK),
};

extern const struct weft_scenario weft_refcount_mutex_lookup;   /* kref_models.c registers it */
const struct weft_scenario weft_refcount_mutex_lookup = {
	.name = "refcount-mutex-lookup",
	.summary = "test: a lookup under a mutex while the last reference goes",
	.source = WEFT_TEST_SOURCE,
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct rm_world),
	.decision_hint = 48,
	.files = WEFT_TEST_FILES,
	WEFT_TEST_HOOKS(rm),
};
