/*
 * refcount_put_order_models.c - what refcount_dec_and_test() orders: a
 * release, and an acquire only when it returns true
 * (Documentation/core-api/refcount-vs-atomic.rst: "RELEASE ordering +
 * ACQUIRE ordering on success"; include/linux/refcount.h's
 * smp_acquire__after_ctrl_dep() on the path that dropped the last
 * reference). A put that does not drop the last reference orders no later
 * load after it (bin/weft-kref; tests/kref/CMakeLists.txt):
 *
 *  refcount-put-order  put-false-read (bug, lkmm): the count starts at 3
 *                      (the table keeps one); T0 writes its field and puts;
 *                      T1 puts after it (its put found 2 and returned
 *                      false) and reads T0's field, which may still be
 *                      stale (warn-on);
 *                      put-false-rmb (clean): smp_rmb() after the false
 *                      put (the kernel's smp_acquire__after_ctrl_dep());
 *                      put-true-read (clean): the count starts at 2; each
 *                      thread writes its field and puts, and the one whose
 *                      refcount_dec_and_test() returns true reads the
 *                      other's field: ordered by the acquire on success;
 *                      kref-release-read (clean): the same with kref_put()
 *                      and a release that reads both fields.
 */
#include <weft/kernel.h>
#include <weft/kref.h>

#define WEFT_TEST_SOURCE "Documentation/core-api/refcount-vs-atomic.rst"
#define WEFT_TEST_FILE "refcount_put_order_models.c"
#include "../model_driver.h"

enum { RP_PUT_FALSE_READ, RP_PUT_FALSE_RMB, RP_PUT_TRUE_READ, RP_KREF_RELEASE_READ };

struct rp_world {
	unsigned variant;
	int field[2];   /* what each thread wrote before its put */
	struct kref ref;
};

WEFT_TEST_SETUP(rp, struct rp_world)
{
	/* the false-put variants: a third reference (the table's) stays */
	bool table = W->variant == RP_PUT_FALSE_READ || W->variant == RP_PUT_FALSE_RMB;

	refcount_set(&W->ref.refcount, table ? 3 : 2);
}

/* kref_put()'s release: it reads what both putters wrote */
static void rp_release(struct kref *k)
{
	struct rp_world *W = container_of(k, struct rp_world, ref);

	WARN_ON(READ_ONCE(W->field[0]) != 1 || READ_ONCE(W->field[1]) != 1);
}

static void rp_thread(void *w, unsigned tid)
{
	struct rp_world *W = w;
	int old;

	WRITE_ONCE(W->field[tid], 1);
	switch (W->variant) {
	case RP_PUT_FALSE_READ:
	case RP_PUT_FALSE_RMB:
		if (tid == 0) {
			WARN_ON(refcount_dec_and_test(&W->ref.refcount));
			return;
		}
		/* old 2: T0's put came first */
		if (__refcount_dec_and_test(&W->ref.refcount, &old) || old != 2)
			return;
		if (W->variant == RP_PUT_FALSE_RMB)
			smp_rmb();
		WARN_ON(READ_ONCE(W->field[0]) != 1);
		return;
	case RP_PUT_TRUE_READ:
		if (refcount_dec_and_test(&W->ref.refcount))
			WARN_ON(READ_ONCE(W->field[1 - tid]) != 1);
		return;
	default:
		kref_put(&W->ref, rp_release);
		return;
	}
}

static const struct weft_variant rp_variants[] = {
	WEFT_TEST_BUG("put-false-read",
	              "a read after a refcount_dec_and_test() that returned false may be stale",
	              WEFT_KIND_WARN_ON, RP_PUT_FALSE_READ),
	WEFT_TEST_FIX("put-false-rmb", "smp_rmb() after the put that returned false",
	              RP_PUT_FALSE_RMB),
	WEFT_TEST_FIX("put-true-read",
	              "the last put (refcount_dec_and_test() true) reads the other's field",
	              RP_PUT_TRUE_READ),
	WEFT_TEST_FIX("kref-release-read", "kref_put()'s release reads both fields",
	              RP_KREF_RELEASE_READ),
};

extern const struct weft_scenario weft_refcount_put_order;   /* kref_models.c registers it */
const struct weft_scenario weft_refcount_put_order = {
	.name = "refcount-put-order",
	.summary = "test: refcount_dec_and_test() acquires only when it returns true",
	.source = WEFT_TEST_SOURCE,
	.nr_cpus = 2,
	.nr_threads = 2,
	.world_size = sizeof(struct rp_world),
	.decision_hint = 32,
	.files = WEFT_TEST_FILES,
	WEFT_TEST_HOOKS(rp),
	.memory = WEFT_MEM_LKMM,
};
