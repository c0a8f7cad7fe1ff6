/*
 * obj_put.c - an out-of-tree Weft model: a reference-counted object whose
 * put is a "decrement, then look" instead of one atomic step.
 *
 * Two owners hold one reference each (refs == 2). Each thread uses the
 * object a few times (its workload: "use" reads obj->data), then drops its
 * reference.
 *
 *   "split-put" (buggy):  atomic_dec(&o->refs);
 *                         if (atomic_read(&o->refs) == 0) obj_free(o);
 *     CPU0: dec 2->1 | CPU1: dec 1->0, reads 0, frees | CPU0: reads 0, frees
 *     again: a double free after one preemption. (Or CPU1's use lands after
 *     CPU0's free: a use-after-free.)
 *   "dec-and-test" (fixed): if (atomic_dec_and_test(&o->refs)) obj_free(o);
 *     exactly one put sees the 1->0 transition (kref_put, put_page).
 *
 * The quiescence audit checks that the object was freed exactly once.
 * This file is all a model needs: the world, setup, thread bodies, the
 * audit, the scenario, and the registry (WEFT_DEFINE_REGISTRY); the weft
 * command line comes from the installed libweft_main.
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

enum { V_SPLIT_PUT, V_DEC_AND_TEST };

struct obj {
	atomic_t refs;
	unsigned long flags;    /* bit 0: freed (the allocator's state) */
	int data;
};

struct obj_world {
	unsigned variant;
	struct obj o;
	unsigned nr_uses[2];     /* from the workload */
};

static void obj_free(struct obj *o)
{
	if (test_and_set_bit(0, &o->flags)) {
		weft_report(WEFT_KIND_DOUBLE_FREE, o, WEFT_SITE(WEFT_EV_FREE, "obj_free(o)"),
			    "object freed twice");
		return;
	}
	/* any later primitive on o->data is a use-after-free */
	weft_poison(&o->data, sizeof(o->data), WEFT_SITE(WEFT_EV_FREE, "kfree(o)"));
}

static void obj_put(struct obj_world *W)
{
	struct obj *o = &W->o;

	if (W->variant == V_SPLIT_PUT) {
		atomic_dec(&o->refs);
		if (atomic_read(&o->refs) == 0)
			obj_free(o);
	} else {
		if (atomic_dec_and_test(&o->refs))
			obj_free(o);
	}
}

static void obj_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct obj_world *W = w;

	W->variant = variant;
	for (unsigned t = 0; t < 2; t++)
		W->nr_uses[t] = wl->nr_ops[t];
	atomic_set(&W->o.refs, 2);
	WRITE_ONCE(W->o.data, 42);
}

static void obj_thread(void *w, unsigned tid)
{
	struct obj_world *W = w;

	for (unsigned i = 0; i < W->nr_uses[tid]; i++)
		(void)READ_ONCE(W->o.data);     /* op 0: "use" */
	obj_put(W);
}

static void obj_quiesce(void *w)
{
	struct obj_world *W = w;

	if (!(weft_peek(W->o.flags) & 1))
		weft_report(WEFT_KIND_PAGE_LEAK, &W->o,
			    WEFT_SITE(WEFT_EV_NOTE, "object freed at quiescence"),
			    "both references were dropped but the object was never freed");
}

static const struct weft_field obj_fields[] = {
	WEFT_FIELD(struct obj_world, o.refs, "obj->refs"),
	WEFT_FIELD(struct obj_world, o.flags, "obj->flags"),
	WEFT_FIELD(struct obj_world, o.data, "obj->data"),
	{ 0, NULL },
};

static const char *const obj_ops[] = { "use" };
static const char *const obj_files[] = { "obj_put.c", NULL };

static const struct weft_variant obj_variants[] = {
	{ "split-put", NULL, true, "atomic_dec(); then atomic_read() == 0 => free",
	  "Weft example", WEFT_KIND_DOUBLE_FREE, 1, V_SPLIT_PUT },
	{ "dec-and-test", NULL, false, "atomic_dec_and_test() => free", "kref_put()",
	  WEFT_KIND_NONE, 0, V_DEC_AND_TEST },
};

static const struct weft_scenario example_obj_put = {
	WEFT_SCENARIO_PLAIN("example-obj-put",
	                    "example: a put that decrements, then looks (2 CPUs)",
	                    "docs/examples/refcount-put",
	                    2, 2, sizeof(struct obj_world), 1, obj_ops, 4, 64,
	                    obj_files, obj_setup, obj_thread, obj_variants),
	.quiesce = obj_quiesce,
	.fields = obj_fields,
};

WEFT_DEFINE_REGISTRY(&example_obj_put);
