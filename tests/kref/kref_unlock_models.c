/*
 * kref_unlock_models.c - an object with an embedded sleeping lock and a
 * count of its users, freed by its last user, in the way
 * Documentation/locking/mutex-design.rst warns about: mutex_unlock() (and
 * up_write(), rwsem_wake()) may touch the lock after it has released it,
 * so a thread that takes the lock after that release must not assume the
 * unlocker is done with it. T0 sets the object up under its lock and,
 * still holding it, completes `ready`; T1 and T2 wait for `ready`, then
 * each takes the lock, updates the object and drops its use, as T0 does
 * (bin/weft-kref; tests/kref/CMakeLists.txt):
 *
 *  kref-unlock  mutex-last-frees (bug): the use count is dropped under the
 *               mutex and the thread that took it to 0 frees the object
 *               after its own mutex_unlock(), while an earlier unlocker,
 *               which released the mutex with a waiter queued, may still
 *               be about to wake that waiter (use-after-free);
 *               mutex-kref (clean): each thread puts its kref after its
 *               mutex_unlock() has returned, so the release runs after
 *               every unlock; rwsem-last-frees (bug) and rwsem-kref
 *               (clean): the same with down_write()/up_write().
 */
#include <weft/kernel.h>
#include <weft/kref.h>

#define WEFT_TEST_SOURCE "Documentation/locking/mutex-design.rst"
#define WEFT_TEST_FILE "kref_unlock_models.c"
#include "../model_driver.h"

enum { KU_MUTEX_LAST_FREES, KU_MUTEX_KREF, KU_RWSEM_LAST_FREES, KU_RWSEM_KREF };

enum { KU_THREADS = 3 };

struct ku_obj {
	struct mutex lock;
	struct rw_semaphore sem;
	struct kref ref;   /* one reference a thread (the kref variants) */
	struct completion ready;
	int users;         /* under the lock: the users left */
	int data;
};

struct ku_world {
	unsigned variant;
	struct ku_obj obj;
};

static void ku_free(struct ku_obj *o)
{
	weft_poison(o, sizeof(*o), WEFT_TEST_NOTE_SITE("kfree(obj)"));
}

static void ku_release(struct kref *k)
{
	ku_free(container_of(k, struct ku_obj, ref));
}

WEFT_TEST_SETUP(ku, struct ku_world)
{
	mutex_init(&W->obj.lock);
	init_rwsem(&W->obj.sem);
	init_completion(&W->obj.ready);
	kref_init(&W->obj.ref);
	for (unsigned t = 1; t < KU_THREADS; t++)
		kref_get(&W->obj.ref);
	W->obj.users = KU_THREADS;
}

static void ku_thread(void *w, unsigned tid)
{
	struct ku_world *W = w;
	struct ku_obj *o = &W->obj;
	bool rw = W->variant == KU_RWSEM_LAST_FREES || W->variant == KU_RWSEM_KREF;
	bool kref = W->variant == KU_MUTEX_KREF || W->variant == KU_RWSEM_KREF;
	int users;

	if (tid != 0)
		wait_for_completion(&o->ready);
	if (rw)
		down_write(&o->sem);
	else
		mutex_lock(&o->lock);
	if (tid == 0)
		complete_all(&o->ready);   /* set up: the others may come */
	WRITE_ONCE(o->data, READ_ONCE(o->data) + 1);
	users = READ_ONCE(o->users) - 1;
	WRITE_ONCE(o->users, users);
	if (rw)
		up_write(&o->sem);
	else
		mutex_unlock(&o->lock);
	if (kref)
		kref_put(&o->ref, ku_release);
	else if (users == 0)
		ku_free(o);
}

static const struct weft_variant ku_variants[] = {
	WEFT_TEST_BUG("mutex-last-frees",
	              "the last user frees the object after its own mutex_unlock()",
	              WEFT_KIND_USE_AFTER_FREE, KU_MUTEX_LAST_FREES),
	WEFT_TEST_FIX("mutex-kref",
	              "each user puts a kref after its mutex_unlock() returned",
	              KU_MUTEX_KREF),
	WEFT_TEST_BUG("rwsem-last-frees",
	              "the last user frees the object after its own up_write()",
	              WEFT_KIND_USE_AFTER_FREE, KU_RWSEM_LAST_FREES),
	WEFT_TEST_FIX("rwsem-kref",
	              "each user puts a kref after its up_write() returned",
	              KU_RWSEM_KREF),
};

static const struct weft_field ku_fields[] = {
	WEFT_FIELD(struct ku_world, obj.lock, "obj->lock"),
	WEFT_FIELD(struct ku_world, obj.sem, "obj->sem"),
	WEFT_FIELD(struct ku_world, obj.ref, "obj->ref"),
	WEFT_FIELD(struct ku_world, obj.ready, "obj->ready"),
	WEFT_FIELD(struct ku_world, obj.users, "obj->users"),
	WEFT_FIELD(struct ku_world, obj.data, "obj->data"),
	{ 0, NULL },
};

extern const struct weft_scenario weft_kref_unlock;   /* kref_models.c registers it */
const struct weft_scenario weft_kref_unlock = {
	.name = "kref-unlock",
	.summary = "test: the last user of an object frees it while an unlock may still touch "
		   "its lock",
	.source = WEFT_TEST_SOURCE,
	.nr_cpus = KU_THREADS,
	.nr_threads = KU_THREADS,
	.world_size = sizeof(struct ku_world),
	.decision_hint = 64,
	.files = WEFT_TEST_FILES,
	WEFT_TEST_HOOKS(ku),
	.fields = ku_fields,
};
