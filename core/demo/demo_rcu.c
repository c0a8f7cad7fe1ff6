/*
 * demo_rcu.c - demos of the RCU-era vocabulary: RCU itself, refcount_t
 * lookups, an xarray multi-index split, and percpu_ref's kill.
 *
 *  - demo-rcu: an RCU-protected pointer is replaced and the old object
 *    freed. Without a grace period a reader that dereferenced it just
 *    before is still inside its read-side section: rcu-free-in-use (one
 *    preemption). synchronize_rcu(), kfree_rcu() and call_rcu() are the
 *    fixes (Documentation/RCU/whatisRCU.rst, "What are some example uses
 *    of core RCU API?").
 *  - demo-refcount: a lookup under rcu_read_lock() that takes its
 *    reference with refcount_inc() races the removal that drops the last
 *    one: addition on 0 (inc-from-zero, one preemption). The fix is
 *    refcount_inc_not_zero() (Documentation/RCU/rcuref.rst).
 *  - demo-xa-split: an order-2 folio's multi-index entry (indices 4..7) is
 *    split into two order-1 halves (split_huge_page_to_list_to_order(),
 *    v6.10): __xa_split(), then the second half's folio is stored at 6. A
 *    lookup checks folio_contains() (after re-checking the slot, as
 *    filemap_get_entry() does with xas_reload()). Publishing the half
 *    before initialising it lets a lookup see an uninitialised folio
 *    (bug-on, one preemption); storing it without the split replaces the
 *    whole entry and breaks the first half at once (no preemption).
 *  - demo-percpu-ref: swapoff-style teardown of a percpu_ref that users
 *    enter with percpu_ref_tryget_live() (get_swap_device(), v5.14+).
 *    percpu_ref_kill() returns before every CPU sees it: a user that read
 *    the per-CPU mode inside its RCU section still gets in. Taking the
 *    device offline right after the kill lets that user see it offline
 *    (assertion, one preemption). Fixes: swapoff's synchronize_rcu() after
 *    the kill, or percpu_ref_kill_and_confirm() and a wait for the
 *    confirmation.
 */
#include <weft/percpu_ref.h>
#include <weft/refcount.h>
#include <weft/scenario.h>
#include <weft/xarray.h>

static const char *const rcu_demo_files[] = { "demo_rcu.c", NULL };

/* The decoded workload of two threads. */
struct demo_ops {
	unsigned nr[2];
	struct weft_op op[2][WEFT_MAX_OPS];
};

static void demo_ops_copy(struct demo_ops *d, const struct weft_workload *wl)
{
	for (unsigned t = 0; t < 2; t++) {
		d->nr[t] = wl->nr_ops[t];
		for (unsigned i = 0; i < wl->nr_ops[t]; i++)
			d->op[t][i] = wl->ops[t][i];
	}
}

/* T0 runs op 0, T1 op 1 (the bytes encoding: count, [thread<<4|op][arg]) */
static const uint8_t demo_trigger_t0op0_t1op1[] = { 2, 0x00, 0x00, 0x11, 0x00 };
static const size_t demo_trigger_len = sizeof(demo_trigger_t0op0_t1op1);

/* ============================================================= demo-rcu */

#define RCU_OBJS 9

enum { RCU_NO_GRACE, RCU_SYNCHRONIZE, RCU_KFREE_RCU, RCU_CALL_RCU };

struct rcu_obj {
	int data;
	struct rcu_head rcu;
};

struct rcu_world {
	unsigned variant;
	struct demo_ops ops;
	spinlock_t update_lock;
	struct rcu_obj *gp;          /* RCU-protected: the current object */
	unsigned next;               /* update_lock: objects used so far */
	struct rcu_obj objs[RCU_OBJS];
};

static void rcu_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct rcu_world *W = w;

	W->variant = variant;
	demo_ops_copy(&W->ops, wl);
	WRITE_ONCE(W->objs[0].data, 100);
	rcu_assign_pointer(W->gp, &W->objs[0]);
	WRITE_ONCE(W->next, 1u);
}

static void rcu_free_cb(struct rcu_head *head)
{
	weft_kfree(weft_list_entry(head, struct rcu_obj, rcu));
}

static void rcu_reader(struct rcu_world *W)
{
	rcu_read_lock();
	struct rcu_obj *p = rcu_dereference(W->gp);
	(void)READ_ONCE(p->data);
	rcu_read_unlock();
}

/* Publish a new object, then free the old one as the variant does. */
static void rcu_update(struct rcu_world *W)
{
	spin_lock(&W->update_lock);
	unsigned n = READ_ONCE(W->next);
	if (n == RCU_OBJS) {
		spin_unlock(&W->update_lock);
		return;
	}
	WRITE_ONCE(W->next, n + 1);
	struct rcu_obj *new = &W->objs[n];
	WRITE_ONCE(new->data, 100 + (int)n);
	struct rcu_obj *old = rcu_dereference_protected(W->gp, lockdep_is_held(&W->update_lock));
	rcu_assign_pointer(W->gp, new);
	spin_unlock(&W->update_lock);

	switch (W->variant) {
	case RCU_NO_GRACE:
		weft_kfree(old);
		break;
	case RCU_SYNCHRONIZE:
		synchronize_rcu();
		weft_kfree(old);
		break;
	case RCU_KFREE_RCU:
		kfree_rcu(old, rcu);
		break;
	case RCU_CALL_RCU:
		call_rcu(&old->rcu, rcu_free_cb);
		break;
	}
}

static void rcu_thread(void *w, unsigned tid)
{
	struct rcu_world *W = w;

	for (unsigned i = 0; i < W->ops.nr[tid]; i++) {
		if (W->ops.op[tid][i].code == 0)
			rcu_reader(W);
		else
			rcu_update(W);
	}
}

/* Every replaced object was freed (once its readers were gone); the
 * current one was not. (Freed memory is the controlled machine's shadow:
 * the native build has no such audit.) */
static void rcu_quiesce(void *w)
{
#ifndef WEFT_NATIVE
	struct rcu_world *W = w;
	unsigned n = weft_peek(W->next);

	for (unsigned k = 0; k < n; k++) {
		bool cur = weft_peek(W->gp) == &W->objs[k];
		if (cur == weft_is_poisoned(&W->objs[k]))
			weft_report(WEFT_KIND_PAGE_LEAK, &W->objs[k],
				    WEFT_SITE(WEFT_EV_NOTE, "replaced objects are freed, the current one is not"),
				    "object %u is %s but %s", k, cur ? "current" : "replaced",
				    cur ? "freed" : "never freed");
	}
#else
	(void)w;
#endif
}

static void rcu_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct rcu_world *W = w;
	uintptr_t objs = (uintptr_t)W->objs - (uintptr_t)W;

	if (off == offsetof(struct rcu_world, gp))
		snprintf(buf, n, "gp");
	else if (off >= offsetof(struct rcu_world, update_lock) &&
		 off < offsetof(struct rcu_world, update_lock) + sizeof(spinlock_t))
		snprintf(buf, n, "update_lock");
	else if (off == offsetof(struct rcu_world, next))
		snprintf(buf, n, "objects used");
	else if (off >= objs && off < objs + sizeof(W->objs)) {
		unsigned k = (unsigned)((off - objs) / sizeof(struct rcu_obj));
		size_t f = (off - objs) % sizeof(struct rcu_obj);
		snprintf(buf, n, "object %u ->%s", k, f < offsetof(struct rcu_obj, rcu) ? "data" : "rcu");
	}
}

static const char *const rcu_opnames[] = { "read", "update" };

static const struct weft_variant rcu_variants[] = {
	{ "no-grace", NULL, true, "rcu_assign_pointer() the new object, kfree() the old at once",
	  "Documentation/RCU/whatisRCU.rst: the grace period an updater must wait",
	  WEFT_KIND_RCU_FREE_IN_USE, 1, RCU_NO_GRACE },
	{ "synchronize", NULL, false, "synchronize_rcu() before kfree()", "whatisRCU.rst, 5.",
	  WEFT_KIND_NONE, 0, RCU_SYNCHRONIZE },
	{ "kfree-rcu", NULL, false, "kfree_rcu() of the old object", "include/linux/rcupdate.h",
	  WEFT_KIND_NONE, 0, RCU_KFREE_RCU },
	{ "call-rcu", NULL, false, "call_rcu() with a callback that frees it",
	  "whatisRCU.rst, call_rcu()", WEFT_KIND_NONE, 0, RCU_CALL_RCU },
};

static const uint8_t *const rcu_triggers[] = {
	demo_trigger_t0op0_t1op1, demo_trigger_t0op0_t1op1, demo_trigger_t0op0_t1op1,
	demo_trigger_t0op0_t1op1,
};
static const size_t rcu_trigger_lens[] = { demo_trigger_len, demo_trigger_len, demo_trigger_len,
					   demo_trigger_len };

const struct weft_scenario weft_scn_demo_rcu = {
	WEFT_SCENARIO_PLAIN("demo-rcu",
	                    "demo: an RCU-protected object replaced and freed under a reader (2 CPUs)",
	                    "Documentation/RCU/whatisRCU.rst",
	                    2, 2, sizeof(struct rcu_world), 2, rcu_opnames, 4, 256,
	                    rcu_demo_files, rcu_setup, rcu_thread, rcu_variants),
	.quiesce = rcu_quiesce,
	.describe = rcu_describe,
	.triggers = rcu_triggers,
	.trigger_lens = rcu_trigger_lens,
};

/* ======================================================== demo-refcount */

#define RC_OBJS 9

enum { RC_INC, RC_INC_NOT_ZERO };

struct rc_obj {
	refcount_t ref;
	int data;
	struct rcu_head rcu;
};

struct rc_world {
	unsigned variant;
	struct demo_ops ops;
	spinlock_t lock;             /* table updates */
	struct rc_obj *table;        /* RCU-protected; holds one reference */
	unsigned next;               /* lock: objects used so far */
	struct rc_obj objs[RC_OBJS];
};

static void rc_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct rc_world *W = w;

	W->variant = variant;
	demo_ops_copy(&W->ops, wl);
	refcount_set(&W->objs[0].ref, 1);
	rcu_assign_pointer(W->table, &W->objs[0]);
	WRITE_ONCE(W->next, 1u);
}

static void rc_put(struct rc_obj *o)
{
	if (refcount_dec_and_test(&o->ref))
		kfree_rcu(o, rcu);
}

static void rc_lookup(struct rc_world *W)
{
	rcu_read_lock();
	struct rc_obj *o = rcu_dereference(W->table);
	if (o) {
		if (W->variant == RC_INC)
			refcount_inc(&o->ref);
		else if (!refcount_inc_not_zero(&o->ref))
			o = NULL;   /* being freed: not found */
	}
	rcu_read_unlock();
	if (o) {
		(void)READ_ONCE(o->data);
		rc_put(o);
	}
}

static void rc_remove(struct rc_world *W)
{
	spin_lock(&W->lock);
	struct rc_obj *o = rcu_dereference_protected(W->table, lockdep_is_held(&W->lock));
	if (o)
		rcu_assign_pointer(W->table, NULL);
	spin_unlock(&W->lock);
	if (o)
		rc_put(o);   /* the table's reference */
}

static void rc_insert(struct rc_world *W)
{
	spin_lock(&W->lock);
	unsigned n = READ_ONCE(W->next);
	if (!rcu_dereference_protected(W->table, lockdep_is_held(&W->lock)) && n < RC_OBJS) {
		struct rc_obj *o = &W->objs[n];
		WRITE_ONCE(W->next, n + 1);
		refcount_set(&o->ref, 1);
		WRITE_ONCE(o->data, (int)n);
		rcu_assign_pointer(W->table, o);
	}
	spin_unlock(&W->lock);
}

static void rc_thread(void *w, unsigned tid)
{
	struct rc_world *W = w;

	for (unsigned i = 0; i < W->ops.nr[tid]; i++) {
		switch (W->ops.op[tid][i].code) {
		case 0: rc_lookup(W); break;
		case 1: rc_remove(W); break;
		default: rc_insert(W); break;
		}
	}
}

/* The object in the table holds exactly the table's reference; every
 * other object used was freed. */
static void rc_quiesce(void *w)
{
	struct rc_world *W = w;
	unsigned n = weft_peek(W->next);

	for (unsigned k = 0; k < n; k++) {
		struct rc_obj *o = &W->objs[k];
		bool cur = weft_peek(W->table) == o;
		if (cur && weft_peek(o->ref.refs.counter) != 1)
			weft_report(WEFT_KIND_PAGE_LEAK, o,
				    WEFT_SITE(WEFT_EV_NOTE, "the table's object holds one reference"),
				    "object %u in the table has %d references", k,
				    weft_peek(o->ref.refs.counter));
#ifndef WEFT_NATIVE   /* freed memory is the controlled machine's shadow */
		else if (!cur && !weft_is_poisoned(o))
			weft_report(WEFT_KIND_PAGE_LEAK, o,
				    WEFT_SITE(WEFT_EV_NOTE, "removed objects are freed"),
				    "object %u was removed but never freed", k);
#endif
	}
}

static void rc_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct rc_world *W = w;
	uintptr_t objs = (uintptr_t)W->objs - (uintptr_t)W;

	if (off == offsetof(struct rc_world, table))
		snprintf(buf, n, "table");
	else if (off >= offsetof(struct rc_world, lock) &&
		 off < offsetof(struct rc_world, lock) + sizeof(spinlock_t))
		snprintf(buf, n, "table lock");
	else if (off == offsetof(struct rc_world, next))
		snprintf(buf, n, "objects used");
	else if (off >= objs && off < objs + sizeof(W->objs)) {
		unsigned k = (unsigned)((off - objs) / sizeof(struct rc_obj));
		size_t f = (off - objs) % sizeof(struct rc_obj);
		snprintf(buf, n, "object %u ->%s", k,
			 f < offsetof(struct rc_obj, data) ? "ref" :
			 f < offsetof(struct rc_obj, rcu) ? "data" : "rcu");
	}
}

static const char *const rc_opnames[] = { "lookup", "remove", "insert" };

static const struct weft_variant rc_variants[] = {
	{ "inc", NULL, true, "lookup under rcu_read_lock() takes its reference with refcount_inc()",
	  "Documentation/RCU/rcuref.rst", WEFT_KIND_INC_FROM_ZERO, 1, RC_INC },
	{ "inc-not-zero", NULL, false, "refcount_inc_not_zero(): a dying object is not found",
	  "Documentation/RCU/rcuref.rst", WEFT_KIND_NONE, 0, RC_INC_NOT_ZERO },
};

static const uint8_t *const rc_triggers[] = { demo_trigger_t0op0_t1op1, demo_trigger_t0op0_t1op1 };
static const size_t rc_trigger_lens[] = { demo_trigger_len, demo_trigger_len };

const struct weft_scenario weft_scn_demo_refcount = {
	WEFT_SCENARIO_PLAIN("demo-refcount",
	                    "demo: an RCU lookup's refcount_inc() races the last put (2 CPUs)",
	                    "Documentation/RCU/rcuref.rst",
	                    2, 2, sizeof(struct rc_world), 3, rc_opnames, 4, 256,
	                    rcu_demo_files, rc_setup, rc_thread, rc_variants),
	.quiesce = rc_quiesce,
	.describe = rc_describe,
	.triggers = rc_triggers,
	.trigger_lens = rc_trigger_lens,
};

/* ======================================================== demo-xa-split */

enum { XS_PUBLISH_FIRST, XS_NO_SPLIT, XS_INIT_FIRST };

struct xs_folio {
	unsigned index;              /* folio->index */
	unsigned nr;                 /* folio_nr_pages() */
};

struct xs_world {
	unsigned variant;
	struct demo_ops ops;
	struct xarray xa;            /* the page cache: i_pages */
	struct xs_folio f[8];        /* f[4]: the order-2 folio at 4..7 */
	int split;                   /* xa_lock: split done */
};

static void xs_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct xs_world *W = w;

	W->variant = variant;
	demo_ops_copy(&W->ops, wl);
	xa_init(&W->xa);
	WRITE_ONCE(W->f[4].index, 4u);
	WRITE_ONCE(W->f[4].nr, 4u);
	xa_store_order(&W->xa, 4, 2, &W->f[4], 0);
}

/* filemap_get_entry() + folio_contains(): re-check the slot after reading
 * the folio (xas_reload()); a stable slot must hold a folio covering it. */
static void xs_lookup(struct xs_world *W, unsigned long index)
{
	for (;;) {
		struct xs_folio *f = xa_load(&W->xa, index);
		if (!f) {
			weft_report(WEFT_KIND_BUG_ON, &W->xa,
				    WEFT_SITE(WEFT_EV_NOTE, "the page cache keeps the folio"),
				    "index %lu has no folio", index);
			return;
		}
		unsigned first = READ_ONCE(f->index), nr = READ_ONCE(f->nr);
		if (xa_load(&W->xa, index) != f)
			continue;   /* xas_reload(): changed under us, retry */
		if (index < first || index >= first + nr)
			weft_report(WEFT_KIND_BUG_ON, f,
				    WEFT_SITE(WEFT_EV_NOTE, "VM_BUG_ON_FOLIO(!folio_contains(folio, index))"),
				    "index %lu found folio %u (index %u, %u pages)", index,
				    (unsigned)(f - W->f), first, nr);
		return;
	}
}

/* __split_huge_page() to order 1 under xa_lock: the entry becomes two
 * order-1 entries of the head; the second half's folio (page 6) is set up
 * and stored at 6; the head shrinks to its first half. */
static void xs_split(struct xs_world *W)
{
	struct xarray *xa = &W->xa;
	struct xs_folio *head = &W->f[4], *half = &W->f[6];

	xa_lock(xa);
	if (READ_ONCE(W->split)) {
		xa_unlock(xa);
		return;
	}
	WRITE_ONCE(W->split, 1);
	switch (W->variant) {
	case XS_INIT_FIRST:
		__xa_split(xa, 4, 1, head);
		WRITE_ONCE(half->index, 6u);
		WRITE_ONCE(half->nr, 2u);
		__xa_store(xa, 6, half, 0);
		break;
	case XS_PUBLISH_FIRST:
		__xa_split(xa, 4, 1, head);
		__xa_store(xa, 6, half, 0);
		WRITE_ONCE(half->index, 6u);
		WRITE_ONCE(half->nr, 2u);
		break;
	case XS_NO_SPLIT:
		WRITE_ONCE(half->index, 6u);
		WRITE_ONCE(half->nr, 2u);
		__xa_store(xa, 6, half, 0);   /* replaces all of 4..7 */
		break;
	}
	WRITE_ONCE(head->nr, 2u);
	xa_unlock(xa);
}

static void xs_thread(void *w, unsigned tid)
{
	struct xs_world *W = w;

	for (unsigned i = 0; i < W->ops.nr[tid]; i++) {
		const struct weft_op *op = &W->ops.op[tid][i];
		if (op->code == 0)
			xs_lookup(W, 4 + op->arg % 4);
		else
			xs_split(W);
	}
}

static void xs_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct xs_world *W = w;
	uintptr_t fo = (uintptr_t)W->f - (uintptr_t)W;

	if (weft_xa_describe(&W->xa, w, off, buf, n))
		return;
	if (off >= fo && off < fo + sizeof(W->f)) {
		unsigned k = (unsigned)((off - fo) / sizeof(struct xs_folio));
		size_t f = (off - fo) % sizeof(struct xs_folio);
		snprintf(buf, n, "folio %u ->%s", k, f < offsetof(struct xs_folio, nr) ? "index" : "nr");
	} else if (off == offsetof(struct xs_world, split)) {
		snprintf(buf, n, "split done");
	}
}

static const char *const xs_opnames[] = { "lookup", "split" };
static const char *const xs_files[] = { "demo_rcu.c", "xarray.c", NULL };

static const struct weft_variant xs_variants[] = {
	{ "publish-first", NULL, true,
	  "__xa_split(), then the second half stored before its folio is set up",
	  "split_huge_page_to_list_to_order() (v6.10), __xa_store() before the tail's index",
	  WEFT_KIND_BUG_ON, 1, XS_PUBLISH_FIRST },
	{ "no-split", NULL, true, "the second half stored into the multi-index entry unsplit",
	  "lib/xarray.c: a store into a multi-index entry replaces all of it", WEFT_KIND_BUG_ON, 0,
	  XS_NO_SPLIT },
	{ "init-first", NULL, false, "__xa_split(), set the half up, then store it",
	  "__split_huge_page(): xas_split() and the tails set up before they are stored",
	  WEFT_KIND_NONE, 0, XS_INIT_FIRST },
};

/* T0 splits, T1 looks up index 7 (the second half), then 5 (the first) */
static const uint8_t xs_trigger[] = { 3, 0x01, 0x00, 0x10, 0x03, 0x10, 0x01 };
WEFT_SCENARIO_TRIGGERS(xs, 3, xs_trigger, xs_trigger, xs_trigger);

const struct weft_scenario weft_scn_demo_xa_split = {
	WEFT_SCENARIO_PLAIN("demo-xa-split",
	                    "demo: a page-cache lookup races the split of a multi-index entry (2 CPUs)",
	                    "lib/xarray.c xas_split(); mm/huge_memory.c __split_huge_page()",
	                    2, 2, sizeof(struct xs_world), 2, xs_opnames, 4, 256,
	                    xs_files, xs_setup, xs_thread, xs_variants),
	.describe = xs_describe,
	.triggers = xs_triggers,
	.trigger_lens = xs_trigger_lens,
};

/* ====================================================== demo-percpu-ref */

enum { PR_KILL, PR_KILL_SYNC, PR_KILL_CONFIRM };

struct pr_world {
	unsigned variant;
	struct demo_ops ops;
	struct percpu_ref users;     /* si->users */
	int offline;                 /* the device is gone (swap_info freed) */
	int torn_down;               /* a teardown started */
	atomic_t released, confirmed;
};

static struct pr_world *pr_world_of(struct percpu_ref *ref)
{
	return weft_list_entry(ref, struct pr_world, users);
}

/* swap_users_ref_free(): complete(&si->comp) in the kernel */
static void pr_release(struct percpu_ref *ref)
{
	atomic_inc(&pr_world_of(ref)->released);
}

static void pr_confirm(struct percpu_ref *ref)
{
	atomic_inc(&pr_world_of(ref)->confirmed);
}

static void pr_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct pr_world *W = w;

	W->variant = variant;
	demo_ops_copy(&W->ops, wl);
	percpu_ref_init(&W->users, pr_release, 0);
}

/* get_swap_device() ... put_swap_device(): the user checks the device
 * under the RCU section its tryget_live ran in; a confirmed kill cannot
 * have happened while it is inside. */
static void pr_user(struct pr_world *W)
{
	rcu_read_lock();
	if (percpu_ref_tryget_live(&W->users)) {
		if (READ_ONCE(W->offline))
			weft_report(WEFT_KIND_ASSERT, &W->offline,
				    WEFT_SITE(WEFT_EV_NOTE, "a live reference means a live device"),
				    "percpu_ref_tryget_live() succeeded, yet the device is offline");
		percpu_ref_put(&W->users);
	}
	rcu_read_unlock();
}

/* swapoff(): stop new users, then take the device down. */
static void pr_teardown(struct pr_world *W)
{
	if (xchg(&W->torn_down, 1))
		return;
	switch (W->variant) {
	case PR_KILL:
		percpu_ref_kill(&W->users);
		break;
	case PR_KILL_SYNC:
		percpu_ref_kill(&W->users);
		synchronize_rcu();
		break;
	case PR_KILL_CONFIRM:
		percpu_ref_kill_and_confirm(&W->users, pr_confirm);
		percpu_ref_switch_wait(&W->users);
		break;
	}
	WRITE_ONCE(W->offline, 1);
}

static void pr_thread(void *w, unsigned tid)
{
	struct pr_world *W = w;

	for (unsigned i = 0; i < W->ops.nr[tid]; i++) {
		if (W->ops.op[tid][i].code == 0)
			pr_user(W);
		else
			pr_teardown(W);
	}
}

/* Torn down: released exactly once (every user put its reference). */
static void pr_quiesce(void *w)
{
	struct pr_world *W = w;
	int want = weft_peek(W->torn_down) ? 1 : 0;
	int got = weft_peek(W->released.counter);

	if (got != want)
		weft_report(WEFT_KIND_PAGE_LEAK, &W->released,
			    WEFT_SITE(WEFT_EV_NOTE, "released once after the teardown"),
			    "the ref was released %d times (teardown %d)", got, want);
}

static void pr_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	uintptr_t u = offsetof(struct pr_world, users);

	(void)w;
	if (off >= u && off < u + sizeof(struct percpu_ref)) {
		size_t f = off - u;
		if (f < offsetof(struct percpu_ref, count))
			snprintf(buf, n, "users ->mode");
		else if (f < offsetof(struct percpu_ref, percpu_count))
			snprintf(buf, n, "users ->count");
		else if (f < offsetof(struct percpu_ref, switching))
			snprintf(buf, n, "users ->percpu_count[%u]",
				 (unsigned)((f - offsetof(struct percpu_ref, percpu_count)) / sizeof(long)));
		else
			snprintf(buf, n, "users");
	} else if (off == offsetof(struct pr_world, offline)) {
		snprintf(buf, n, "device offline");
	} else if (off == offsetof(struct pr_world, torn_down)) {
		snprintf(buf, n, "teardown started");
	}
}

static const char *const pr_opnames[] = { "user", "teardown" };
static const char *const pr_files[] = { "demo_rcu.c", "percpu_ref.c", NULL };

static const struct weft_variant pr_variants[] = {
	{ "kill", NULL, true, "percpu_ref_kill(), then the device goes offline",
	  "lib/percpu-refcount.c: tryget_live may succeed until the kill is confirmed",
	  WEFT_KIND_ASSERT, 1, PR_KILL },
	{ "kill-sync", NULL, false, "percpu_ref_kill(); synchronize_rcu(); then offline",
	  "mm/swapfile.c swapoff() (v5.14+)", WEFT_KIND_NONE, 0, PR_KILL_SYNC },
	{ "kill-confirm", NULL, false,
	  "percpu_ref_kill_and_confirm(), wait for the confirmation, then offline",
	  "lib/percpu-refcount.c percpu_ref_kill_and_confirm()", WEFT_KIND_NONE, 0,
	  PR_KILL_CONFIRM },
};

static const uint8_t *const pr_triggers[] = { demo_trigger_t0op0_t1op1, demo_trigger_t0op0_t1op1,
					      demo_trigger_t0op0_t1op1 };
static const size_t pr_trigger_lens[] = { demo_trigger_len, demo_trigger_len, demo_trigger_len };

const struct weft_scenario weft_scn_demo_percpu_ref = {
	WEFT_SCENARIO_PLAIN("demo-percpu-ref",
	                    "demo: percpu_ref_tryget_live() against a kill not yet confirmed (2 CPUs)",
	                    "lib/percpu-refcount.c; mm/swapfile.c get_swap_device()/swapoff()",
	                    2, 2, sizeof(struct pr_world), 2, pr_opnames, 4, 256,
	                    pr_files, pr_setup, pr_thread, pr_variants),
	.quiesce = pr_quiesce,
	.describe = pr_describe,
	.triggers = pr_triggers,
	.trigger_lens = pr_trigger_lens,
};
