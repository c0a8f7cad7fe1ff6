/*
 * rculist_models.c - lists under their kernel names (<weft/list.h>) and
 * RCU-protected lists (<weft/rculist.h>) in the shapes kernel code gets
 * wrong, each bug beside its fix, run through the weft command line of
 * this program (bin/weft-rculist; tests/rculist/CMakeLists.txt):
 *
 *  rcu-del    T0, the updater, finds entry A under the list's lock
 *             (list_for_each_entry_rcu() with lockdep_is_held()), unlinks
 *             it and frees it; T1 walks the list in rcu_read_lock().
 *             sync: list_del_rcu(), synchronize_rcu(), free (clean under
 *             sc, tso and lkmm); no-sync: the free right after
 *             list_del_rcu() (rcu-free-in-use); plain-del: list_del(),
 *             which poisons ->next under the reader, then the grace
 *             period (the reader follows the poison: out-of-world).
 *  rcu-add    T0 publishes entry C; T1 walks and reads each entry's
 *             value. init-first: the value, then list_add_tail_rcu()
 *             (clean under sc, tso and lkmm: the reader's loads of the
 *             entry's fields depend on the pointer it loaded, through
 *             container_of()); init-after: list_add_rcu()
 *             then the value (assertion: a reader saw it unset).
 *  rcu-hash   a hash chain (hlist): T0 publishes an entry with
 *             hlist_add_head_rcu() and removes another with
 *             hlist_del_rcu() under its lock; T1 looks them up in
 *             rcu_read_lock(). sync: synchronize_rcu() before the free
 *             (clean under sc, tso and lkmm); no-sync: rcu-free-in-use.
 *  rcu-hold   T0 takes gp in rcu_read_lock() and never loads through it;
 *             T1 frees the entry gp points at. unpublish: NULL first, then
 *             synchronize_rcu() (clean); published: the free while gp
 *             still points at it (rcu-free-in-use, only if the free falls
 *             between the dereference and the unlock: the bounded DPOR
 *             search certified it clean before the free and the
 *             dereference had dependence records, rcu.c).
 *  list-move  T0 moves entries between two lists under a spinlock
 *             (list_move_tail(), list_del_init(), list_for_each_entry_safe());
 *             T1 counts both lists under the same lock: locked (clean);
 *             unlocked-count (T1 walks without the lock: a wrong count,
 *             an assertion, or a walk led round a half-moved entry for
 *             ever, a livelock).
 *  rcu-query  one thread asks once, with a percpu_ref query or get, an
 *             xarray update, xa_load() or xa_get_order(), what the other
 *             did to a percpu_ref or an xarray (both on RCU:
 *             <weft/percpu_ref.h>, <weft/xarray.h>), and reports in the
 *             order plain dfs does not run first: every variant is a bug
 *             a reduction finds only by reversing the two, so one that
 *             lacks a dependence record of either side certifies it
 *             (dpor_vs_dfs runs them all). No model of the tools called
 *             percpu_ref_is_zero(), _is_dying(), _switch_to_atomic(),
 *             _tryget_many(), xa_store(), xa_erase(), xa_insert(),
 *             xa_cmpxchg(), xa_split() or xa_get_order() before.
 */
#include <weft/kernel.h>
#include <weft/percpu_ref.h>
#include <weft/rculist.h>
#include <weft/xarray.h>

#define WEFT_TEST_SOURCE "tests/rculist"
#define WEFT_TEST_FILE "rculist_models.c"
#include "../model_driver.h"

struct entry {
	int key;
	int val;
	struct list_head node;
};

/* ----------------------------------------------------------------- rcu-del */

enum { RD_SYNC, RD_NO_SYNC, RD_PLAIN_DEL };

struct rdel_world {
	unsigned variant;
	spinlock_t lock;
	struct list_head head;
	struct entry a, b;
};

WEFT_TEST_SETUP(rdel, struct rdel_world)
{
	spin_lock_init(&W->lock);
	INIT_LIST_HEAD(&W->head);
	W->a.key = 1;
	W->a.val = 10;
	W->b.key = 2;
	W->b.val = 20;
	list_add_tail(&W->a.node, &W->head);
	list_add_tail(&W->b.node, &W->head);
}

static void rdel_thread(void *w, unsigned tid)
{
	struct rdel_world *W = w;
	struct entry *pos, *victim = NULL;

	if (tid == 1) {
		int sum = 0;
		rcu_read_lock();
		list_for_each_entry_rcu(pos, &W->head, node)
			sum += READ_ONCE(pos->val);
		rcu_read_unlock();
		if (sum != 20 && sum != 30)
			weft_report(WEFT_KIND_ASSERT, &W->head, WEFT_TEST_NOTE_SITE("rdel sum"),
				    "the walk summed %d", sum);
		return;
	}
	spin_lock(&W->lock);
	list_for_each_entry_rcu(pos, &W->head, node, lockdep_is_held(&W->lock)) {
		if (READ_ONCE(pos->key) == 1) {
			victim = pos;
			break;
		}
	}
	if (victim) {
		if (W->variant == RD_PLAIN_DEL)
			list_del(&victim->node);
		else
			list_del_rcu(&victim->node);
	}
	spin_unlock(&W->lock);
	if (!victim)
		return;
	if (W->variant != RD_NO_SYNC)
		synchronize_rcu();
	weft_poison(victim, sizeof(*victim), WEFT_TEST_NOTE_SITE("kfree(victim)"));
}

static const struct weft_variant rdel_variants[] = {
	WEFT_TEST_FIX("sync", "list_del_rcu(), synchronize_rcu(), then the free", RD_SYNC),
	WEFT_TEST_BUG("no-sync",
	              "the free right after list_del_rcu()",
	              WEFT_KIND_RCU_FREE_IN_USE, RD_NO_SYNC),
	WEFT_TEST_BUG("plain-del",
	              "list_del() poisons ->next under a reader",
	              WEFT_KIND_OUT_OF_WORLD, RD_PLAIN_DEL),
};

WEFT_TEST_SCENARIO(rcu_del, "rcu-del",
		   "test: removing an entry from an RCU-protected list",
		   struct rdel_world, 2, 2, 64, rdel);

/* ----------------------------------------------------------------- rcu-add */

enum { RA_INIT_FIRST, RA_INIT_AFTER };

struct radd_world {
	unsigned variant;
	struct list_head head;
	struct entry a, c;
};

WEFT_TEST_SETUP(radd, struct radd_world)
{
	INIT_LIST_HEAD(&W->head);
	W->a.val = 10;
	list_add_tail(&W->a.node, &W->head);
}

static void radd_thread(void *w, unsigned tid)
{
	struct radd_world *W = w;
	struct entry *pos;

	if (tid == 1) {
		rcu_read_lock();
		list_for_each_entry_rcu(pos, &W->head, node)
			if (!READ_ONCE(pos->val))
				weft_report(WEFT_KIND_ASSERT, &pos->val,
					    WEFT_TEST_NOTE_SITE("radd val"),
					    "a reader found an entry not yet initialised");
		rcu_read_unlock();
		return;
	}
	if (W->variant == RA_INIT_FIRST) {
		WRITE_ONCE(W->c.val, 30);
		list_add_tail_rcu(&W->c.node, &W->head);
	} else {
		list_add_rcu(&W->c.node, &W->head);
		WRITE_ONCE(W->c.val, 30);
	}
}

static const struct weft_variant radd_variants[] = {
	WEFT_TEST_FIX("init-first",
	              "the entry initialised, then list_add_tail_rcu()",
	              RA_INIT_FIRST),
	WEFT_TEST_BUG("init-after",
	              "list_add_rcu() before the entry is initialised",
	              WEFT_KIND_ASSERT, RA_INIT_AFTER),
};

WEFT_TEST_SCENARIO(rcu_add, "rcu-add",
		   "test: publishing an entry on an RCU-protected list",
		   struct radd_world, 2, 2, 48, radd);

/* --------------------------------------------------------------- list-move */

enum { LM_LOCKED, LM_UNLOCKED_COUNT };

struct lm_world {
	unsigned variant;
	spinlock_t lock;
	struct list_head from, to;
	struct entry e[3];
};

WEFT_TEST_SETUP(lm, struct lm_world)
{
	spin_lock_init(&W->lock);
	INIT_LIST_HEAD(&W->from);
	INIT_LIST_HEAD(&W->to);
	for (unsigned i = 0; i < ARRAY_SIZE(W->e); i++) {
		W->e[i].key = (int)i;
		list_add_tail(&W->e[i].node, &W->from);
	}
}

static void lm_thread(void *w, unsigned tid)
{
	struct lm_world *W = w;
	struct entry *pos, *n;

	if (tid == 0) {
		spin_lock(&W->lock);
		list_for_each_entry_safe(pos, n, &W->from, node)
			if (READ_ONCE(pos->key) != 1)
				list_move_tail(&pos->node, &W->to);
		spin_unlock(&W->lock);
		return;
	}
	unsigned count = 0;
	if (W->variant == LM_LOCKED)
		spin_lock(&W->lock);
	list_for_each_entry(pos, &W->from, node)
		count++;
	list_for_each_entry(pos, &W->to, node)
		count++;
	if (W->variant == LM_LOCKED)
		spin_unlock(&W->lock);
	if (count != ARRAY_SIZE(W->e))
		weft_report(WEFT_KIND_ASSERT, &W->from, WEFT_TEST_NOTE_SITE("lm count"),
			    "counted %u entries on the two lists, not %zu", count,
			    ARRAY_SIZE(W->e));
}

static const struct weft_variant lm_variants[] = {
	WEFT_TEST_FIX("locked", "the mover and the counter under one spinlock", LM_LOCKED),
	WEFT_TEST_BUG("unlocked-count",
	              "the counter walks without the lock",
	              WEFT_KIND_ASSERT, LM_UNLOCKED_COUNT),
};

WEFT_TEST_SCENARIO(list_move_scn, "list-move",
		   "test: moving entries between lists under a lock",
		   struct lm_world, 2, 2, 96, lm);

/* ---------------------------------------------------------------- rcu-hash */

enum { RH_SYNC, RH_NO_SYNC };

struct hentry {
	int key;
	int val;
	struct hlist_node hnode;
};

struct rh_world {
	unsigned variant;
	spinlock_t lock;
	struct hlist_head chain;
	struct hentry e[3];
};

WEFT_TEST_SETUP(rh, struct rh_world)
{
	spin_lock_init(&W->lock);
	INIT_HLIST_HEAD(&W->chain);
	for (int i = 0; i < 2; i++) {
		W->e[i].key = i + 1;
		W->e[i].val = 10 * (i + 1);
		INIT_HLIST_NODE(&W->e[i].hnode);
		hlist_add_head(&W->e[i].hnode, &W->chain);
	}
}

static void rh_thread(void *w, unsigned tid)
{
	struct rh_world *W = w;
	struct hentry *pos, *victim = NULL;

	if (tid == 1) {
		rcu_read_lock();
		hlist_for_each_entry_rcu(pos, &W->chain, hnode)
			if (READ_ONCE(pos->key) && !READ_ONCE(pos->val))
				weft_report(WEFT_KIND_ASSERT, &pos->val,
					    WEFT_TEST_NOTE_SITE("rh val"),
					    "a reader found an entry not yet initialised");
		rcu_read_unlock();
		return;
	}
	W->e[2].key = 3;
	WRITE_ONCE(W->e[2].val, 30);
	spin_lock(&W->lock);
	hlist_add_head_rcu(&W->e[2].hnode, &W->chain);
	hlist_for_each_entry_rcu(pos, &W->chain, hnode, lockdep_is_held(&W->lock))
		if (READ_ONCE(pos->key) == 1)
			victim = pos;
	if (victim)
		hlist_del_rcu(&victim->hnode);
	spin_unlock(&W->lock);
	if (!victim)
		return;
	if (W->variant == RH_SYNC)
		synchronize_rcu();
	weft_poison(victim, sizeof(*victim), WEFT_TEST_NOTE_SITE("kfree(victim)"));
}

/* At the end: two entries left on the chain, which empties cleanly. */
static void rh_quiesce(void *w)
{
	struct rh_world *W = w;
	struct hentry *pos;
	struct hlist_node *n;
	unsigned count = 0;

	hlist_for_each_entry_safe(pos, n, &W->chain, hnode) {
		count++;
		if (count == 1)
			hlist_del(&pos->hnode);
		else
			hlist_del_init(&pos->hnode);
	}
	if (count != 2 || !hlist_empty(&W->chain))
		weft_report(WEFT_KIND_ASSERT, &W->chain, WEFT_TEST_NOTE_SITE("rh chain"),
			    "%u entries at the end, chain %s", count,
			    hlist_empty(&W->chain) ? "empty" : "not empty");
}

static const struct weft_variant rh_variants[] = {
	WEFT_TEST_FIX("sync", "hlist_add_head_rcu(), hlist_del_rcu(), synchronize_rcu(), free",
		      RH_SYNC),
	WEFT_TEST_BUG("no-sync", "the free right after hlist_del_rcu()",
		      WEFT_KIND_RCU_FREE_IN_USE, RH_NO_SYNC),
};

WEFT_TEST_SCENARIO(rcu_hash, "rcu-hash",
		   "test: a hash chain (hlist) under RCU",
		   struct rh_world, 2, 2, 64, rh, .quiesce = rh_quiesce);

/* --------------------------------------------------------------- rcu-hold */

enum { RHO_UNPUBLISH, RHO_PUBLISHED };

struct rho_world {
	unsigned variant;
	struct entry *gp;
	struct entry a;
};

WEFT_TEST_SETUP(rho, struct rho_world)
{
	W->a.val = 10;
	W->gp = &W->a;
}

static void rho_thread(void *w, unsigned tid)
{
	struct rho_world *W = w;

	if (tid == 0) {
		/* holds the pointer inside the section, never loads through it */
		rcu_read_lock();
		struct entry *p = rcu_dereference(W->gp);
		rcu_read_unlock();
		(void)p;
		return;
	}
	if (W->variant == RHO_UNPUBLISH) {
		rcu_assign_pointer(W->gp, NULL);
		synchronize_rcu();
	}
	weft_poison(&W->a, sizeof(W->a), WEFT_TEST_NOTE_SITE("kfree(a)"));
}

static const struct weft_variant rho_variants[] = {
	WEFT_TEST_FIX("unpublish", "rcu_assign_pointer(gp, NULL), synchronize_rcu(), then the free",
		      RHO_UNPUBLISH),
	WEFT_TEST_BUG("published", "the free while gp still points at it",
		      WEFT_KIND_RCU_FREE_IN_USE, RHO_PUBLISHED),
};

WEFT_TEST_SCENARIO(rcu_hold, "rcu-hold",
		   "test: a reader holds an RCU pointer it never loads through",
		   struct rho_world, 2, 2, 64, rho);

/* ------------------------------------------------------------- rcu-query */

enum {
	RQ_PR_IS_ZERO,
	RQ_PR_IS_DYING,
	RQ_PR_SWITCH_TO_ATOMIC,
	RQ_PR_TRYGET_MANY,
	RQ_XA_STORE,
	RQ_XA_ERASE,
	RQ_XA_INSERT,
	RQ_XA_CMPXCHG,
	RQ_XA_SPLIT,
	RQ_XA_SPLIT_NOMEM,
};

struct rq_world {
	unsigned variant;
	struct percpu_ref ref;
	struct xarray xa;
	int obj[4];   /* entries: 4-byte aligned pointers into the world */
};

static void rq_release(struct percpu_ref *ref)
{
	(void)ref;
}

/* The index the xarray variants race on, and rcu-query's split: an order-2
 * entry at 4..7 (XA_SPLIT), or an order-4 entry at 48..63 beside leaves in
 * root slots 0..5 (XA_SPLIT_NOMEM: two of the five free nodes are needed). */
#define RQ_INDEX 3ul

WEFT_TEST_SETUP(rq, struct rq_world)
{
	unsigned v = W->variant;

	percpu_ref_init(&W->ref, rq_release,
			v == RQ_PR_IS_ZERO || v == RQ_PR_TRYGET_MANY ? PERCPU_REF_INIT_ATOMIC : 0);
	xa_init(&W->xa);
	if (v == RQ_XA_ERASE || v == RQ_XA_INSERT || v == RQ_XA_CMPXCHG)
		xa_store(&W->xa, RQ_INDEX, &W->obj[0], 0);
	if (v == RQ_XA_SPLIT)
		xa_store_order(&W->xa, 4, 2, &W->obj[0], 0);
	if (v == RQ_XA_SPLIT_NOMEM) {
		for (unsigned long i = 0; i < 48; i += 8)
			xa_store(&W->xa, i, &W->obj[1], 0);
		xa_store_order(&W->xa, 48, 4, &W->obj[0], 0);
	}
}

/* Each variant's two sides together: T0's change, and T1's one query or
 * update, true when it ran before T0's change (dfs runs T0 first: the
 * reductions find it only by reversing the two). */
static bool rq_side(struct rq_world *W, bool t0)
{
	bool busy = false;
	struct percpu_ref *ref = &W->ref;
	struct xarray *xa = &W->xa;

	switch (W->variant) {
	case RQ_PR_IS_ZERO:   /* atomic mode: the count is the atomic one */
		if (t0)
			percpu_ref_put(ref);
		else
			busy = !percpu_ref_is_zero(ref);
		break;
	case RQ_PR_IS_DYING:
		if (t0)
			percpu_ref_kill(ref);
		else
			busy = !percpu_ref_is_dying(ref);
		break;
	case RQ_PR_SWITCH_TO_ATOMIC:
		/* zero once the switch's callback summed the counters; dfs
		 * runs T1 first here, while T0 waits for the callback: busy
		 * when T1 ran after it */
		if (t0) {
			percpu_ref_put(ref);
			percpu_ref_switch_to_atomic_sync(ref);
		} else {
			busy = percpu_ref_is_zero(ref);
		}
		break;
	case RQ_PR_TRYGET_MANY:
		if (t0)
			percpu_ref_put(ref);
		else if ((busy = percpu_ref_tryget_many(ref, 2)))
			percpu_ref_put_many(ref, 2);
		break;
	case RQ_XA_STORE:
		if (t0)
			xa_store(xa, RQ_INDEX, &W->obj[0], 0);
		else
			busy = xa_load(xa, RQ_INDEX) == NULL;
		break;
	case RQ_XA_ERASE:
		if (t0)
			xa_erase(xa, RQ_INDEX);
		else
			busy = xa_load(xa, RQ_INDEX) != NULL;
		break;
	case RQ_XA_INSERT:
		if (t0)
			xa_erase(xa, RQ_INDEX);
		else
			busy = xa_insert(xa, RQ_INDEX, &W->obj[1], 0) != 0;
		break;
	case RQ_XA_CMPXCHG:
		if (t0)
			xa_store(xa, RQ_INDEX, &W->obj[1], 0);
		else
			busy = xa_cmpxchg(xa, RQ_INDEX, &W->obj[0], &W->obj[2], 0) == &W->obj[0];
		break;
	case RQ_XA_SPLIT:
		if (t0)
			xa_split(xa, 4, 0, &W->obj[0]);
		else
			busy = xa_get_order(xa, 5) != 0;
		break;
	case RQ_XA_SPLIT_NOMEM:
		/* here T1 changes, T0 asks: T1 frees the leaves of root slots
		 * 0..3 (back after a grace period) and takes four others, which
		 * leaves one free node until the RCU callbacks give the four
		 * back; T0's split needs two */
		if (t0) {
			busy = xa_split(xa, 48, 0, &W->obj[0]) != 0;
		} else {
			xa_store_order(xa, 0, 5, &W->obj[1], 0);
			xa_split(xa, 0, 0, &W->obj[1]);
		}
		break;
	}
	return busy;
}

static void rq_thread(void *w, unsigned tid)
{
	if (rq_side(w, tid == 0))
		weft_report(WEFT_KIND_ASSERT, w, WEFT_TEST_NOTE_SITE("rq busy"),
			    "the query ran before the other thread's change");
}

#define RQ_BUG(name, what, id) WEFT_TEST_BUG(name, what, WEFT_KIND_ASSERT, id)

static const struct weft_variant rq_variants[] = {
	RQ_BUG("pr-is-zero", "percpu_ref_is_zero() while T0 may drop the last reference",
	       RQ_PR_IS_ZERO),
	RQ_BUG("pr-is-dying", "percpu_ref_is_dying() while T0 may kill the ref", RQ_PR_IS_DYING),
	RQ_BUG("pr-switch-to-atomic",
	       "percpu_ref_is_zero() while T0 may drop its reference and switch to atomic "
	       "(percpu_ref_switch_to_atomic_sync())",
	       RQ_PR_SWITCH_TO_ATOMIC),
	RQ_BUG("pr-tryget-many", "percpu_ref_tryget_many() while T0 may drop the last reference",
	       RQ_PR_TRYGET_MANY),
	RQ_BUG("xa-store", "xa_load() while T0 may xa_store() there", RQ_XA_STORE),
	RQ_BUG("xa-erase", "xa_load() while T0 may xa_erase() there", RQ_XA_ERASE),
	RQ_BUG("xa-insert", "xa_insert() while T0 may xa_erase() there", RQ_XA_INSERT),
	RQ_BUG("xa-cmpxchg", "xa_cmpxchg() while T0 may xa_store() there", RQ_XA_CMPXCHG),
	RQ_BUG("xa-split", "xa_get_order() while T0 may xa_split() the entry", RQ_XA_SPLIT),
	RQ_BUG("xa-split-nomem",
	       "xa_split() while T0's freed nodes may still wait for their grace period",
	       RQ_XA_SPLIT_NOMEM),
};

WEFT_TEST_SCENARIO(rcu_query, "rcu-query",
		   "test: percpu_ref and xarray queries and updates racing with another thread's "
		   "change",
		   struct rq_world, 2, 2, 64, rq);

WEFT_DEFINE_REGISTRY(&rcu_del, &rcu_add, &list_move_scn, &rcu_hash, &rcu_hold, &rcu_query);
