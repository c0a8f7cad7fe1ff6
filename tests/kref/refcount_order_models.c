/*
 * refcount_order_models.c - what refcount_inc_not_zero() orders: nothing
 * (Documentation/core-api/refcount-vs-atomic.rst: the increments are
 * fully unordered; a successful _not_zero keeps only a control dependency
 * for stores). A lookup that takes a reference and then reads what the
 * publisher wrote before setting the count may read it stale under a weak
 * memory model, the bug class of objects reused under
 * SLAB_TYPESAFE_BY_RCU (bin/weft-kref; tests/kref/CMakeLists.txt):
 *
 *  refcount-order  inc-not-zero (bug, lkmm): T0 writes the object's key,
 *                  smp_wmb(), refcount_set(1); T1's refcount_inc_not_zero()
 *                  succeeds and its read of the key may still see the
 *                  old one (warn-on);
 *                  inc-not-zero-rmb (clean): smp_rmb() after the
 *                  successful increment orders the read after it;
 *                  atomic-inc-not-zero (clean): atomic_inc_not_zero(), a
 *                  value-returning atomic, is fully ordered.
 */
#include <weft/kernel.h>
#include <weft/refcount.h>

#define WEFT_TEST_SOURCE "Documentation/core-api/refcount-vs-atomic.rst"
#define WEFT_TEST_FILE "refcount_order_models.c"
#include "../model_driver.h"

enum { RO_INC_NOT_ZERO, RO_INC_NOT_ZERO_RMB, RO_ATOMIC_INC_NOT_ZERO };

struct ro_world {
	unsigned variant;
	int key;
	refcount_t ref;
	atomic_t aref;
};

WEFT_TEST_SETUP(ro, struct ro_world)
{
	W->key = 1;   /* the object's previous identity */
}

static void ro_thread(void *w, unsigned tid)
{
	struct ro_world *W = w;

	if (tid == 0) {
		WRITE_ONCE(W->key, 2);
		smp_wmb();
		if (W->variant == RO_ATOMIC_INC_NOT_ZERO)
			atomic_set(&W->aref, 1);
		else
			refcount_set(&W->ref, 1);
		return;
	}
	bool got = W->variant == RO_ATOMIC_INC_NOT_ZERO ? atomic_inc_not_zero(&W->aref)
							: refcount_inc_not_zero(&W->ref);
	if (!got)
		return;
	if (W->variant == RO_INC_NOT_ZERO_RMB)
		smp_rmb();
	WARN_ON(READ_ONCE(W->key) != 2);
}

static const struct weft_variant ro_variants[] = {
	WEFT_TEST_BUG("inc-not-zero",
	              "the key read after refcount_inc_not_zero() (unordered) may be stale",
	              WEFT_KIND_WARN_ON, RO_INC_NOT_ZERO),
	WEFT_TEST_FIX("inc-not-zero-rmb", "smp_rmb() after the successful refcount_inc_not_zero()",
	              RO_INC_NOT_ZERO_RMB),
	WEFT_TEST_FIX("atomic-inc-not-zero", "atomic_inc_not_zero(): fully ordered",
	              RO_ATOMIC_INC_NOT_ZERO),
};

extern const struct weft_scenario weft_refcount_order;   /* kref_models.c registers it */
const struct weft_scenario weft_refcount_order = {
	.name = "refcount-order",
	.summary = "test: a lookup's refcount_inc_not_zero() orders no later read",
	.source = WEFT_TEST_SOURCE,
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct ro_world),
	.decision_hint = 32,
	.files = WEFT_TEST_FILES,
	WEFT_TEST_HOOKS(ro),
	.memory = WEFT_MEM_LKMM,
};
