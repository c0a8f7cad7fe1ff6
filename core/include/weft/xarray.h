/*
 * xarray.h - xarray-lite for Weft models: the part of include/linux/
 * xarray.h and lib/xarray.c (v6.x) the page cache, the swap cache and
 * shmem race on.
 *
 *  - xa_load() is an RCU lookup: rcu_read_lock(), an rcu_dereference() of
 *    each slot on the way down (a sibling entry sends it to its canonical
 *    slot, a retry entry back to the top), rcu_read_unlock();
 *  - xa_store(), xa_cmpxchg(), xa_insert(), xa_erase() take xa_lock (their
 *    _bh and _irq forms with bottom halves or interrupts off); the
 *    __xa_*() forms expect it held (xa_lock()/xa_unlock(), _irq, _bh);
 *  - multi-index entries: an entry of order k covers the 2^k naturally
 *    aligned indices around its index: a canonical slot plus sibling
 *    entries (xa_mk_sibling()), in a leaf node for k < 3, in the root node
 *    for 3 <= k <= 5. Storing into any index of a multi-index entry
 *    replaces the whole entry (it keeps its range); erasing one index
 *    erases it;
 *  - splitting: __xa_split() is xas_split(): the multi-index entry
 *    covering an index becomes entries of a smaller order, each holding the
 *    given entry, published so that a concurrent xa_load() sees the old
 *    entry or a new one, never an empty or a half-built slot: inside a node
 *    the slots are rewritten from the last to the first (the old canonical
 *    slot, which the old siblings point to, last); a new leaf is filled
 *    completely before rcu_assign_pointer() publishes it;
 *  - values and pointers: xa_mk_value()/xa_to_value()/xa_is_value();
 *    pointers must be 4-byte aligned and point into the world.
 *
 * Every slot access is a primitive (rcu_dereference() for lookups,
 * rcu_dereference_protected() and rcu_assign_pointer() under the lock).
 * Nodes live in the xarray itself (WEFT_XA_NR_NODES, no heap): a freed
 * node (emptied, or replaced by a larger entry: its live slots first become
 * retry entries) is poisoned and returned to the pool by an RCU callback
 * after a grace period, as xa_node_free() does, so a lookup holding it
 * stays safe and a node reused too early is a report.
 *
 * Lite limits: fixed height 2 (a root node of 8 slots, leaves of 8:
 * indices 0..63; the kernel grows the tree from xa_head), orders 0..5, no
 * marks, no xa_for_each, no allocating (xa_alloc) arrays. An index beyond
 * 63 stores nothing (-EINVAL).
 */
#ifndef WEFT_XARRAY_H
#define WEFT_XARRAY_H

#include <weft/gfp.h>
#include <weft/kernel.h>

#define WEFT_XA_CHUNK_SHIFT 3
#define WEFT_XA_CHUNK_SIZE (1u << WEFT_XA_CHUNK_SHIFT)
#define WEFT_XA_CHUNK_MASK (WEFT_XA_CHUNK_SIZE - 1)
#define WEFT_XA_MAX_INDEX 63ul
#define WEFT_XA_MAX_ORDER 5u
#define WEFT_XA_NR_NODES 12        /* the root and up to 11 leaves */

struct xa_node {
	unsigned char shift;       /* 3: the root, 0: a leaf; constant */
	unsigned char offset;      /* slot in the root; xa_lock */
	unsigned char nr;          /* index in the pool; constant */
	void *slots[WEFT_XA_CHUNK_SIZE];
	struct weft_rcu_head rcu;
	struct xarray *xa;         /* constant */
};

struct xarray {
	spinlock_t xa_lock;
	unsigned char busy[WEFT_XA_NR_NODES];   /* node allocated or awaiting its
						   grace period; written under
						   xa_lock and by the RCU callback */
	struct xa_node nodes[WEFT_XA_NR_NODES]; /* nodes[0]: the root */
};

/* ------------------------------------------------------------- entries */

static inline void *xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1);
}
static inline unsigned long xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}
static inline bool xa_is_value(const void *entry)
{
	return (unsigned long)entry & 1;
}
static inline void *xa_mk_internal(unsigned long v)
{
	return (void *)((v << 2) | 2);
}
static inline unsigned long xa_to_internal(const void *entry)
{
	return (unsigned long)entry >> 2;
}
static inline bool xa_is_internal(const void *entry)
{
	return ((unsigned long)entry & 3) == 2;
}
static inline void *xa_mk_sibling(unsigned offset)
{
	return xa_mk_internal(offset);
}
static inline unsigned long xa_to_sibling(const void *entry)
{
	return xa_to_internal(entry);
}
static inline bool xa_is_sibling(const void *entry)
{
	return xa_is_internal(entry) &&
	       (unsigned long)entry <= (unsigned long)xa_mk_sibling(WEFT_XA_CHUNK_SIZE - 1);
}
#define XA_RETRY_ENTRY xa_mk_internal(256)
static inline bool xa_is_retry(const void *entry)
{
	return entry == XA_RETRY_ENTRY;
}
static inline bool xa_is_node(const void *entry)
{
	return xa_is_internal(entry) && (unsigned long)entry > 4096;
}
static inline void *xa_mk_node(const struct xa_node *node)
{
	return (void *)((unsigned long)node | 2);
}
static inline struct xa_node *xa_to_node(const void *entry)
{
	return (struct xa_node *)((unsigned long)entry - 2);
}
/* Errors come back as internal entries, as in the kernel. */
static inline bool xa_is_err(const void *entry)
{
	return xa_is_internal(entry) &&
	       (unsigned long)entry >= (unsigned long)xa_mk_internal(-4095ul);
}
static inline int xa_err(const void *entry)
{
	return xa_is_err(entry) ? (int)((long)entry >> 2) : 0;
}

/* ----------------------------------------------------------------- api */

/* xa_init(): setup or a model thread. */
void xa_init(struct xarray *xa);
#define xa_init_flags(xa, flags) xa_init(xa)

/* include/linux/xarray.h's lock forms: _bh disables bottom halves, _irq
 * interrupts, as spin_lock_bh()/spin_lock_irq() do (a softirq user, a
 * timer callback, takes plain xa_lock()) */
#define xa_lock(xa) spin_lock(&(xa)->xa_lock)
#define xa_unlock(xa) spin_unlock(&(xa)->xa_lock)
#define xa_lock_irq(xa) spin_lock_irq(&(xa)->xa_lock)
#define xa_unlock_irq(xa) spin_unlock_irq(&(xa)->xa_lock)
#define xa_lock_bh(xa) spin_lock_bh(&(xa)->xa_lock)
#define xa_unlock_bh(xa) spin_unlock_bh(&(xa)->xa_lock)
#define xa_lock_irqsave(xa, flags) spin_lock_irqsave(&(xa)->xa_lock, flags)
#define xa_unlock_irqrestore(xa, flags) spin_unlock_irqrestore(&(xa)->xa_lock, flags)
#ifndef WEFT_OWN_XA_FORMS
#define xa_trylock(xa) spin_trylock(&(xa)->xa_lock)
#define xa_lock_nested(xa, subclass) spin_lock_nested(&(xa)->xa_lock, subclass)
#define xa_lock_irqsave_nested(xa, flags, subclass) \
	spin_lock_irqsave_nested(&(xa)->xa_lock, flags, subclass)
#endif

/* The entry at index (RCU lookup: takes rcu_read_lock itself). */
void *xa_load(struct xarray *xa, unsigned long index);
/* Store entry (NULL erases) at index, or over the whole multi-index entry
 * covering it; returns the old entry or an xa_err() entry. gfp ignored. */
void *xa_store(struct xarray *xa, unsigned long index, void *entry, unsigned gfp);
void *__xa_store(struct xarray *xa, unsigned long index, void *entry, unsigned gfp);
/* A multi-index store: entry covers the 2^order aligned indices around
 * index (XA_STATE_ORDER() + xas_store() in the kernel). */
void *xa_store_order(struct xarray *xa, unsigned long index, unsigned order, void *entry,
		     unsigned gfp);
void *__xa_store_order(struct xarray *xa, unsigned long index, unsigned order, void *entry,
		       unsigned gfp);
void *xa_erase(struct xarray *xa, unsigned long index);
void *__xa_erase(struct xarray *xa, unsigned long index);
/* Store entry if the current entry is old (NULL: only if empty); returns
 * the current entry, or an xa_err() entry (an internal entry is refused
 * whatever the index holds). */
void *xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, unsigned gfp);
void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry,
		   unsigned gfp);
/* Store entry if index is empty: 0, -EBUSY (-16) or -EINVAL (-22). */
int xa_insert(struct xarray *xa, unsigned long index, void *entry, unsigned gfp);
int __xa_insert(struct xarray *xa, unsigned long index, void *entry, unsigned gfp);
/* xas_split(): the multi-index entry covering index becomes entries of
 * new_order, each holding entry (not NULL). 0, -EINVAL (none there, its
 * order is not above new_order, or entry is NULL or internal) or -ENOMEM
 * (-12: no free node). */
int xa_split(struct xarray *xa, unsigned long index, unsigned new_order, void *entry);
int __xa_split(struct xarray *xa, unsigned long index, unsigned new_order, void *entry);
/* The order of the entry at index (0 if none), under the lock or RCU. */
int xa_get_order(struct xarray *xa, unsigned long index);

/* The _bh and _irq forms of the locked operations (include/linux/
 * xarray.h's inlines): xa_lock_bh()/xa_lock_irq(), the __xa_*() form,
 * the unlock. xa evaluated once. A model with these names (and
 * xa_trylock(), xa_lock_nested(), xa_lock_irqsave_nested()) of its own
 * defines WEFT_OWN_XA_FORMS first. */
#define __weft_xa_locked(xa, how, name, call)                                            \
	({                                                                                \
		struct xarray *__weft_xa = (xa);                                          \
		weft_spin_lock_##how(&__weft_xa->xa_lock,                                 \
				     WEFT_SITE_F(WEFT_EV_LOCK, name ": xa_lock_" #how "()", \
						 WEFT_SITE_ACQUIRE));                     \
		__typeof__(call) __weft_xr = (call);                                      \
		weft_spin_unlock_##how(&__weft_xa->xa_lock,                               \
				       WEFT_SITE_F(WEFT_EV_UNLOCK,                        \
						   name ": xa_unlock_" #how "()",         \
						   WEFT_SITE_RELEASE));                   \
		__weft_xr;                                                                \
	})
#ifndef WEFT_OWN_XA_FORMS
#define xa_store_bh(xa, index, entry, gfp) \
	__weft_xa_locked(xa, bh, "xa_store_bh(" #xa ")", __xa_store(__weft_xa, (index), (entry), (gfp)))
#define xa_store_irq(xa, index, entry, gfp) \
	__weft_xa_locked(xa, irq, "xa_store_irq(" #xa ")", __xa_store(__weft_xa, (index), (entry), (gfp)))
#define xa_erase_bh(xa, index) \
	__weft_xa_locked(xa, bh, "xa_erase_bh(" #xa ")", __xa_erase(__weft_xa, (index)))
#define xa_erase_irq(xa, index) \
	__weft_xa_locked(xa, irq, "xa_erase_irq(" #xa ")", __xa_erase(__weft_xa, (index)))
#define xa_cmpxchg_bh(xa, index, old, entry, gfp)                                       \
	__weft_xa_locked(xa, bh, "xa_cmpxchg_bh(" #xa ")",                               \
			 __xa_cmpxchg(__weft_xa, (index), (old), (entry), (gfp)))
#define xa_cmpxchg_irq(xa, index, old, entry, gfp)                                      \
	__weft_xa_locked(xa, irq, "xa_cmpxchg_irq(" #xa ")",                             \
			 __xa_cmpxchg(__weft_xa, (index), (old), (entry), (gfp)))
#define xa_insert_bh(xa, index, entry, gfp) \
	__weft_xa_locked(xa, bh, "xa_insert_bh(" #xa ")", __xa_insert(__weft_xa, (index), (entry), (gfp)))
#define xa_insert_irq(xa, index, entry, gfp) \
	__weft_xa_locked(xa, irq, "xa_insert_irq(" #xa ")", __xa_insert(__weft_xa, (index), (entry), (gfp)))
#endif /* WEFT_OWN_XA_FORMS */

/* describe() helper: "xa root ->slots[2]", "xa node 3 ->slots[5]",
 * "xa_lock"; false if off is not inside xa. */
bool weft_xa_describe(const struct xarray *xa, const void *world, uint32_t off, char *buf,
		      size_t n);

#endif
