/*
 * xarray.c - xarray-lite (<weft/xarray.h>), following lib/xarray.c of v6.x:
 * xas_descend() (a sibling that leads to a node is a retry), xas_store()
 * (the canonical slot first, then the siblings, replaced nodes freed after
 * their slots become retry entries), xas_split() (slots rewritten from the
 * last to the first; new leaves filled before they are published),
 * xa_node_free() (call_rcu()).
 *
 * Written on the public primitives only (kernel.h, rcu.h): the same source
 * is the controlled library's and the native one's (a real spinlock and
 * the userspace RCU there). Under xa_lock, slots are read with
 * rcu_dereference_protected() and written with rcu_assign_pointer() (or
 * RCU_INIT_POINTER() in a leaf not yet published), each a primitive; only
 * bookkeeping that no reader depends on (is a leaf empty, a free node in
 * the pool) peeks.
 */
#include <weft/xarray.h>

#define XA_EINVAL 22
#define XA_EBUSY 16
#define XA_ENOMEM 12

#define ROOT(xa) (&(xa)->nodes[0])
#define LOCKED(xa) lockdep_is_held(&(xa)->xa_lock)
#define slot_locked(xa, node, off) rcu_dereference_protected((node)->slots[off], LOCKED(xa))
/* A sibling entry e points at its group's canonical slot: off becomes
 * that slot and e its entry, loaded again by reload (a macro, so that the
 * load's site stays the caller's). */
#define follow_sibling(e, off, reload)                                         \
	do {                                                                   \
		if (xa_is_sibling(e)) {                                        \
			(off) = (unsigned)xa_to_sibling(e);                    \
			(e) = (reload);                                        \
		}                                                              \
	} while (0)

static void *xa_errp(int err)
{
	return xa_mk_internal((unsigned long)-(long)err);
}

void xa_init(struct xarray *xa)
{
	if (!WEFT_CHECK_WORLD(xa, "xa_init()"))
		return;
	for (unsigned i = 0; i < WEFT_XA_NR_NODES; i++) {
		struct xa_node *n = &xa->nodes[i];

		n->nr = (unsigned char)i;
		n->xa = xa;
		n->shift = i ? 0 : WEFT_XA_CHUNK_SHIFT;
		if (i)
			weft_poison(n, sizeof(*n), WEFT_SITE(WEFT_EV_FREE, "xa_init(): free node"));
	}
	for (unsigned k = 0; k < WEFT_XA_CHUNK_SIZE; k++)
		RCU_INIT_POINTER(ROOT(xa)->slots[k], NULL);
	WRITE_ONCE(xa->busy[0], 1);
}

/* --------------------------------------------------------------- nodes */

#ifndef WEFT_NATIVE
#include "sched.h"
/* The pool's scans below peek at busy[1..upto) and decide which node is
 * taken, or ENOMEM; a node's free (node_rcu_free(), after its grace
 * period) writes busy[] without xa_lock. A READ record of the bytes read
 * (no point, nothing traced) lets the reductions order the two. Its site
 * is not in the weft_sites section: the fingerprint of a scenario listing
 * xarray.c (demo-xa-split), and its stored replays, stay as they were. */
static void pool_read(const struct xarray *xa, unsigned upto)
{
	static struct weft_site pool_site = { __FILE__, __func__, "the node pool's busy[]",
					      __LINE__, WEFT_EV_READ, 0,
					      WEFT_SITE_FLAGS_DEFAULT };

	weft_sched_step(WEFT_DEP_READ, loc_of(&xa->busy[1]), upto - 1, 0, &pool_site);
}
#else
static void pool_read(const struct xarray *xa, unsigned upto)
{
	(void)xa;
	(void)upto;
}
#endif

static unsigned nr_free_nodes(struct xarray *xa)
{
	unsigned n = 0;

	for (unsigned i = 1; i < WEFT_XA_NR_NODES; i++)
		n += !weft_peek(xa->busy[i]);
	pool_read(xa, WEFT_XA_NR_NODES);
	return n;
}

/* A free leaf (its slots are the caller's to fill), or NULL. */
static struct xa_node *alloc_node(struct xarray *xa, unsigned offset)
{
	for (unsigned i = 1; i < WEFT_XA_NR_NODES; i++) {
		if (weft_peek(xa->busy[i]))
			continue;
		pool_read(xa, i + 1);
		if (cmpxchg(&xa->busy[i], 0, 1) != 0)
			continue;
		struct xa_node *n = &xa->nodes[i];
		weft_unpoison(n, sizeof(*n), WEFT_SITE(WEFT_EV_ALLOC, "xa_node_alloc()"));
		n->offset = (unsigned char)offset;
		return n;
	}
	pool_read(xa, WEFT_XA_NR_NODES);
	return NULL;
}

/* radix_tree_node_rcu_free(): after the grace period. */
static void node_rcu_free(struct rcu_head *head)
{
	struct xa_node *n = weft_list_entry(head, struct xa_node, rcu);
	struct xarray *xa = n->xa;
	unsigned nr = n->nr;

	weft_poison(n, sizeof(*n), WEFT_SITE(WEFT_EV_FREE, "xa_node_free(): kmem_cache_free()"));
	WRITE_ONCE(xa->busy[nr], 0);
}

/* A leaf no longer reachable from the root: lookups that hold it retry
 * (xas_free_nodes()), the node goes back after a grace period. */
static void free_node(struct xarray *xa, struct xa_node *n, bool retry)
{
	if (retry)
		for (unsigned k = 0; k < WEFT_XA_CHUNK_SIZE; k++)
			if (weft_peek(n->slots[k]))
				rcu_assign_pointer(n->slots[k], XA_RETRY_ENTRY);
	call_rcu(&n->rcu, node_rcu_free);
}

static bool leaf_empty(const struct xa_node *n)
{
	for (unsigned k = 0; k < WEFT_XA_CHUNK_SIZE; k++)
		if (weft_peek(n->slots[k]))
			return false;
	return true;
}

/* Slots of the entry whose canonical slot is c (1 + its siblings). */
static unsigned nr_slots(struct xarray *xa, struct xa_node *n, unsigned c)
{
	unsigned k = c + 1;

	while (k < WEFT_XA_CHUNK_SIZE) {
		void *e = slot_locked(xa, n, k);
		if (!xa_is_sibling(e) || xa_to_sibling(e) != c)
			break;
		k++;
	}
	return k - c;
}

static unsigned ilog2(unsigned v)
{
	return 31u - (unsigned)__builtin_clz(v);
}

/* Replace the whole entry at canonical slot c of n (it keeps its range);
 * erasing clears its siblings, and an emptied leaf leaves the tree. */
static void *replace_entry(struct xarray *xa, struct xa_node *n, unsigned c, void *old,
			   void *entry)
{
	rcu_assign_pointer(n->slots[c], entry);
	if (entry)
		return old;
	for (unsigned k = c + 1; k < WEFT_XA_CHUNK_SIZE; k++) {
		void *e = slot_locked(xa, n, k);
		if (!xa_is_sibling(e) || xa_to_sibling(e) != c)
			break;
		rcu_assign_pointer(n->slots[k], NULL);
	}
	if (n != ROOT(xa) && leaf_empty(n)) {
		rcu_assign_pointer(ROOT(xa)->slots[n->offset], NULL);
		free_node(xa, n, false);
	}
	return old;
}

/* The slots [first, first + nr) of n become one entry (canonical first,
 * then the siblings, ascending, as xas_store() writes them). */
static void fill_range(struct xa_node *n, unsigned first, unsigned nr, void *entry,
		       bool published)
{
	for (unsigned k = first; k < first + nr; k++) {
		void *v = k == first || !entry ? entry : xa_mk_sibling(first);
		if (published)
			rcu_assign_pointer(n->slots[k], v);
		else
			RCU_INIT_POINTER(n->slots[k], v);
	}
}

/* ------------------------------------------------------------- lookups */

void *xa_load(struct xarray *xa, unsigned long index)
{
	void *e;

	if (index > WEFT_XA_MAX_INDEX)
		return NULL;
	rcu_read_lock();
	for (;;) {
		struct xa_node *n = ROOT(xa);

		e = rcu_dereference(n->slots[index >> WEFT_XA_CHUNK_SHIFT]);
		if (xa_is_sibling(e)) {
			e = rcu_dereference(n->slots[xa_to_sibling(e)]);
			if (xa_is_node(e))
				e = XA_RETRY_ENTRY;   /* xas_descend(): split under us */
		}
		if (xa_is_node(e)) {
			n = xa_to_node(e);
			e = rcu_dereference(n->slots[index & WEFT_XA_CHUNK_MASK]);
			if (xa_is_sibling(e))
				e = rcu_dereference(n->slots[xa_to_sibling(e)]);
		}
		if (!xa_is_retry(e))
			break;
	}
	rcu_read_unlock();
	return e;
}

int xa_get_order(struct xarray *xa, unsigned long index)
{
	int order = 0;

	if (index > WEFT_XA_MAX_INDEX)
		return 0;
	rcu_read_lock();
	struct xa_node *n = ROOT(xa);
	unsigned c = (unsigned)(index >> WEFT_XA_CHUNK_SHIFT);
	void *e = rcu_dereference(n->slots[c]);
	follow_sibling(e, c, rcu_dereference(n->slots[c]));
	if (xa_is_node(e)) {
		n = xa_to_node(e);
		c = index & WEFT_XA_CHUNK_MASK;
		e = rcu_dereference(n->slots[c]);
		follow_sibling(e, c, rcu_dereference(n->slots[c]));
	} else if (e) {
		order = WEFT_XA_CHUNK_SHIFT;
	}
	if (e && !xa_is_internal(e)) {
		unsigned k = c + 1;
		while (k < WEFT_XA_CHUNK_SIZE) {
			void *s = rcu_dereference(n->slots[k]);
			if (!xa_is_sibling(s) || xa_to_sibling(s) != c)
				break;
			k++;
		}
		order += (int)ilog2(k - c);
	} else if (!e) {
		order = 0;
	}
	rcu_read_unlock();
	return order;
}

/* -------------------------------------------------------------- stores */

/* Under xa_lock: the entry at index, and where its canonical slot is. */
static void *locate(struct xarray *xa, unsigned long index, struct xa_node **np, unsigned *cp)
{
	struct xa_node *n = ROOT(xa);
	unsigned c = (unsigned)(index >> WEFT_XA_CHUNK_SHIFT);
	void *e = slot_locked(xa, n, c);

	follow_sibling(e, c, slot_locked(xa, n, c));
	if (xa_is_node(e)) {
		n = xa_to_node(e);
		c = index & WEFT_XA_CHUNK_MASK;
		e = slot_locked(xa, n, c);
		follow_sibling(e, c, slot_locked(xa, n, c));
	}
	*np = n;
	*cp = c;
	return e;
}

void *__xa_store_order(struct xarray *xa, unsigned long index, unsigned order, void *entry,
		       unsigned gfp)
{
	struct xa_node *root = ROOT(xa);

	(void)gfp;
	if (index > WEFT_XA_MAX_INDEX || order > WEFT_XA_MAX_ORDER ||
	    (entry && xa_is_internal(entry)))
		return xa_errp(XA_EINVAL);
	index &= ~((1ul << order) - 1);
	unsigned r = (unsigned)(index >> WEFT_XA_CHUNK_SHIFT);
	void *re = slot_locked(xa, root, r);

	if (xa_is_sibling(re)) {
		/* inside a larger root-level entry: replace all of it */
		unsigned c = (unsigned)xa_to_sibling(re);
		return replace_entry(xa, root, c, slot_locked(xa, root, c), entry);
	}
	if (order >= WEFT_XA_CHUNK_SHIFT) {
		unsigned nr = 1u << (order - WEFT_XA_CHUNK_SHIFT);
		if (re && !xa_is_node(re) && nr_slots(xa, root, r) > nr)
			return replace_entry(xa, root, r, re, entry);
		struct xa_node *on;
		unsigned oc;
		void *old = xa_is_node(re) ? locate(xa, index, &on, &oc) : re;
		for (unsigned k = r; k < r + nr; k++) {
			void *prev = k == r ? re : slot_locked(xa, root, k);
			rcu_assign_pointer(root->slots[k], k == r || !entry ? entry : xa_mk_sibling(r));
			if (xa_is_node(prev))
				free_node(xa, xa_to_node(prev), true);
		}
		return old;
	}
	if (re && !xa_is_node(re))   /* inside a root-level entry */
		return replace_entry(xa, root, r, re, entry);
	unsigned lo = index & WEFT_XA_CHUNK_MASK, nr = 1u << order;
	if (!re) {
		if (!entry)
			return NULL;
		struct xa_node *leaf = alloc_node(xa, r);
		if (!leaf)
			return xa_errp(XA_ENOMEM);
		fill_range(leaf, 0, lo, NULL, false);
		fill_range(leaf, lo, nr, entry, false);
		fill_range(leaf, lo + nr, WEFT_XA_CHUNK_SIZE - lo - nr, NULL, false);
		rcu_assign_pointer(root->slots[r], xa_mk_node(leaf));
		return NULL;
	}
	struct xa_node *leaf = xa_to_node(re);
	void *e = slot_locked(xa, leaf, lo);
	if (xa_is_sibling(e)) {
		unsigned c = (unsigned)xa_to_sibling(e);
		return replace_entry(xa, leaf, c, slot_locked(xa, leaf, c), entry);
	}
	if (e && nr_slots(xa, leaf, lo) > nr)
		return replace_entry(xa, leaf, lo, e, entry);
	fill_range(leaf, lo, nr, entry, true);
	if (!entry && leaf_empty(leaf)) {
		rcu_assign_pointer(root->slots[r], NULL);
		free_node(xa, leaf, false);
	}
	return e;
}

void *__xa_store(struct xarray *xa, unsigned long index, void *entry, unsigned gfp)
{
	return __xa_store_order(xa, index, 0, entry, gfp);
}

void *__xa_erase(struct xarray *xa, unsigned long index)
{
	return __xa_store_order(xa, index, 0, NULL, 0);
}

void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry,
		   unsigned gfp)
{
	struct xa_node *n;
	unsigned c;

	/* an internal entry is refused whatever the array holds, as the
	 * kernel's xa_is_advanced() check does before the lookup */
	if (index > WEFT_XA_MAX_INDEX || (entry && xa_is_internal(entry)))
		return xa_errp(XA_EINVAL);
	void *curr = locate(xa, index, &n, &c);
	if (curr == old)
		return __xa_store(xa, index, entry, gfp);
	return curr;
}

int __xa_insert(struct xarray *xa, unsigned long index, void *entry, unsigned gfp)
{
	if (!entry || index > WEFT_XA_MAX_INDEX)
		return -XA_EINVAL;
	void *curr = __xa_cmpxchg(xa, index, NULL, entry, gfp);
	if (xa_is_err(curr))
		return xa_err(curr);
	return curr ? -XA_EBUSY : 0;
}

/* xas_split()'s rewrite inside one node: groups of gs slots, from the last
 * group to the first, each its canonical slot then its siblings from the
 * top down; the first group (the old canonical slot, which the old
 * siblings point to) goes last. */
static void rewrite_descending(struct xa_node *n, unsigned first, unsigned ns, unsigned gs,
			       void *entry)
{
	for (unsigned g = ns / gs; g-- > 0;) {
		unsigned canon = first + g * gs;
		rcu_assign_pointer(n->slots[canon], entry);
		for (unsigned k = canon + gs - 1; k > canon; k--)
			rcu_assign_pointer(n->slots[k], xa_mk_sibling(canon));
	}
}

int __xa_split(struct xarray *xa, unsigned long index, unsigned new_order, void *entry)
{
	struct xa_node *root = ROOT(xa);

	/* a NULL entry would leave siblings pointing at an empty canonical
	 * slot: a later store into one of them would fill the whole group */
	if (index > WEFT_XA_MAX_INDEX || !entry || xa_is_internal(entry))
		return -XA_EINVAL;
	unsigned r = (unsigned)(index >> WEFT_XA_CHUNK_SHIFT);
	void *re = slot_locked(xa, root, r);
	follow_sibling(re, r, slot_locked(xa, root, r));
	if (!re)
		return -XA_EINVAL;
	if (!xa_is_node(re)) {
		unsigned ns = nr_slots(xa, root, r);
		unsigned order = WEFT_XA_CHUNK_SHIFT + ilog2(ns);
		if (new_order >= order)
			return -XA_EINVAL;
		if (new_order >= WEFT_XA_CHUNK_SHIFT) {
			rewrite_descending(root, r, ns, 1u << (new_order - WEFT_XA_CHUNK_SHIFT),
					   entry);
			return 0;
		}
		/* xas_split_alloc() before any change: all leaves or none */
		if (nr_free_nodes(xa) < ns)
			return -XA_ENOMEM;
		for (unsigned k = ns; k-- > 0;) {
			struct xa_node *leaf = alloc_node(xa, r + k);
			unsigned gs = 1u << new_order;
			if (!leaf)
				return -XA_ENOMEM;
			for (unsigned g = 0; g < WEFT_XA_CHUNK_SIZE; g += gs)
				fill_range(leaf, g, gs, entry, false);
			rcu_assign_pointer(root->slots[r + k], xa_mk_node(leaf));
		}
		return 0;
	}
	struct xa_node *leaf = xa_to_node(re);
	unsigned lo = index & WEFT_XA_CHUNK_MASK;
	void *e = slot_locked(xa, leaf, lo);
	follow_sibling(e, lo, slot_locked(xa, leaf, lo));
	if (!e)
		return -XA_EINVAL;
	unsigned ns = nr_slots(xa, leaf, lo);
	if (new_order >= ilog2(ns))
		return -XA_EINVAL;
	rewrite_descending(leaf, lo, ns, 1u << new_order, entry);
	return 0;
}

/* ------------------------------------------------------ locked wrappers */

void *xa_store(struct xarray *xa, unsigned long index, void *entry, unsigned gfp)
{
	xa_lock(xa);
	void *old = __xa_store(xa, index, entry, gfp);
	xa_unlock(xa);
	return old;
}

void *xa_store_order(struct xarray *xa, unsigned long index, unsigned order, void *entry,
		     unsigned gfp)
{
	xa_lock(xa);
	void *old = __xa_store_order(xa, index, order, entry, gfp);
	xa_unlock(xa);
	return old;
}

void *xa_erase(struct xarray *xa, unsigned long index)
{
	xa_lock(xa);
	void *old = __xa_erase(xa, index);
	xa_unlock(xa);
	return old;
}

void *xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, unsigned gfp)
{
	xa_lock(xa);
	void *curr = __xa_cmpxchg(xa, index, old, entry, gfp);
	xa_unlock(xa);
	return curr;
}

int xa_insert(struct xarray *xa, unsigned long index, void *entry, unsigned gfp)
{
	xa_lock(xa);
	int err = __xa_insert(xa, index, entry, gfp);
	xa_unlock(xa);
	return err;
}

int xa_split(struct xarray *xa, unsigned long index, unsigned new_order, void *entry)
{
	xa_lock(xa);
	int err = __xa_split(xa, index, new_order, entry);
	xa_unlock(xa);
	return err;
}

/* ------------------------------------------------------------ describe */

bool weft_xa_describe(const struct xarray *xa, const void *world, uint32_t off, char *buf,
		      size_t n)
{
	uintptr_t base = (uintptr_t)xa - (uintptr_t)world;
	uintptr_t nodes = (uintptr_t)xa->nodes - (uintptr_t)world;

	if (off < base || off >= base + sizeof(*xa))
		return false;
	if (off < base + sizeof(xa->xa_lock)) {
		snprintf(buf, n, "xa_lock");
	} else if (off < nodes) {
		snprintf(buf, n, "xa node %u busy",
			 (unsigned)(off - base - offsetof(struct xarray, busy)));
	} else {
		unsigned i = (unsigned)((off - nodes) / sizeof(struct xa_node));
		size_t f = (off - nodes) % sizeof(struct xa_node);
		char who[24];

		if (i)
			snprintf(who, sizeof(who), "xa node %u", i);
		else
			snprintf(who, sizeof(who), "xa root");
		if (f >= offsetof(struct xa_node, slots) && f < offsetof(struct xa_node, rcu))
			snprintf(buf, n, "%s ->slots[%u]", who,
				 (unsigned)((f - offsetof(struct xa_node, slots)) / sizeof(void *)));
		else if (f >= offsetof(struct xa_node, rcu) && f < offsetof(struct xa_node, xa))
			snprintf(buf, n, "%s ->rcu", who);
		else
			snprintf(buf, n, "%s", who);
	}
	return true;
}
