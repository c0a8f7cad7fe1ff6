/*
 * llist.h - lock-less NULL-terminated singly linked lists under their
 * kernel names (include/linux/llist.h and lib/llist.c, v6.12) for Weft
 * models: every load and store of a list pointer is a scheduling point,
 * and the operations order memory as the kernel's do (llist_add() and
 * llist_del_first() end in a try_cmpxchg(), fully ordered when it
 * succeeds and unordered when it fails; llist_del_all() is an xchg(),
 * fully ordered; llist_del_first() loads the head with acquire). A family
 * header of its own: a model includes it when it wants these names.
 *
 * What a search finds is what kernel code gets wrong with them:
 *  - llist_del_first() from two consumers at once without a lock of the
 *    model's (llist.h's table: del_first against del_first needs one): the
 *    ABA of the head's cmpxchg hands a node out twice or links a taken
 *    one back;
 *  - __llist_add() (non-atomic) from two producers: a lost node;
 *  - freeing entries in llist_for_each_entry() instead of the _safe form:
 *    the walk loads ->next of the freed entry (use-after-free);
 *  - under `--memory lkmm`, an entry's fields written after its
 *    llist_add(): a consumer can see it before them.
 *
 *   struct llist_head, struct llist_node, LLIST_HEAD_INIT(name),
 *   LLIST_HEAD(name), init_llist_head(h), init_llist_node(n),
 *   llist_on_list(n), llist_empty(h), llist_next(n),
 *   llist_entry(p, type, member),
 *   llist_add(n, h), llist_add_batch(first, last, h), __llist_add(n, h),
 *   __llist_add_batch(first, last, h),
 *   llist_del_first(h), llist_del_first_init(h), llist_del_first_this(h, n),
 *   llist_del_all(h), __llist_del_all(h), llist_reverse_order(first),
 *   llist_for_each(pos, first), llist_for_each_safe(pos, n, first),
 *   llist_for_each_entry(pos, first, member),
 *   llist_for_each_entry_safe(pos, n, first, member)
 *
 * A model with llist names of its own defines WEFT_OWN_LLIST before
 * including it (the weft_llist_* forms stay).
 */
#ifndef WEFT_LLIST_H
#define WEFT_LLIST_H

#include <stddef.h>

#include <weft/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

struct weft_llist_node {
	struct weft_llist_node *next;
};

struct weft_llist_head {
	struct weft_llist_node *first;
};

/* The head's try_cmpxchg() from old to new (fully ordered on success):
 * the value found there. */
#define __weft_llist_cmpxchg(h, old, new_, what)                                         \
	((struct weft_llist_node *)(uintptr_t)WEFT_ACCESS_F(&(h)->first, WEFT_A_CMPXCHG,  \
							    (uintptr_t)(old), (uintptr_t)(new_), \
							    WEFT_EV_RMW, what, 0u))

/* llist_add_batch(): new_first..new_last (already linked) in front of the
 * list; true if it was empty */
static inline bool weft_llist_add_batch(struct weft_llist_node *new_first,
					struct weft_llist_node *new_last,
					struct weft_llist_head *h)
{
	struct weft_llist_node *first = READ_ONCE(h->first);

	for (;;) {
		WRITE_ONCE(new_last->next, first);
		struct weft_llist_node *seen =
			__weft_llist_cmpxchg(h, first, new_first, "try_cmpxchg(&head->first)");
		if (seen == first)
			return !first;
		first = seen;
	}
}

/* __llist_add_batch(): the same without atomicity (the caller's lock, or
 * a list no other CPU touches) */
static inline bool weft___llist_add_batch(struct weft_llist_node *new_first,
					  struct weft_llist_node *new_last,
					  struct weft_llist_head *h)
{
	struct weft_llist_node *first = READ_ONCE(h->first);

	WRITE_ONCE(new_last->next, first);
	WRITE_ONCE(h->first, new_first);
	return !first;
}

/* llist_del_first() and llist_del_first_this(): the first entry off the
 * list (only if it is `only`, when given), NULL if none was taken. One
 * consumer at a time (lib/llist.c): the cmpxchg compares the head with the
 * entry it read, not with the entry's ->next it read (ABA). */
static inline struct weft_llist_node *__weft_llist_del_first_if(struct weft_llist_head *h,
								 struct weft_llist_node *only)
{
	struct weft_llist_node *entry = (struct weft_llist_node *)(uintptr_t)WEFT_ACCESS_F(
		&h->first, WEFT_A_LOAD, 0, 0, WEFT_EV_READ, "smp_load_acquire(&head->first)",
		WEFT_SITE_ACQUIRE);

	for (;;) {
		if (!entry || (only && entry != only))
			return NULL;
		struct weft_llist_node *next = READ_ONCE(entry->next);
		struct weft_llist_node *seen =
			__weft_llist_cmpxchg(h, entry, next, "try_cmpxchg(&head->first)");
		if (seen == entry)
			return entry;
		entry = seen;
	}
}

static inline struct weft_llist_node *weft_llist_del_first(struct weft_llist_head *h)
{
	return __weft_llist_del_first_if(h, NULL);
}

/* llist_del_first_this(): this off the list if it is the first entry */
static inline bool weft_llist_del_first_this(struct weft_llist_head *h,
					     struct weft_llist_node *this_)
{
	return __weft_llist_del_first_if(h, this_) != NULL;
}

/* llist_del_all(): the whole list, first entry first (xchg, fully ordered) */
static inline struct weft_llist_node *weft_llist_del_all(struct weft_llist_head *h)
{
	return (struct weft_llist_node *)(uintptr_t)WEFT_ACCESS_F(
		&h->first, WEFT_A_XCHG, 0, 0, WEFT_EV_RMW, "xchg(&head->first, NULL)", 0u);
}

static inline struct weft_llist_node *weft___llist_del_all(struct weft_llist_head *h)
{
	struct weft_llist_node *first = READ_ONCE(h->first);

	WRITE_ONCE(h->first, NULL);
	return first;
}

/* llist_reverse_order(): a list taken off a head, oldest entry first */
static inline struct weft_llist_node *weft_llist_reverse_order(struct weft_llist_node *n)
{
	struct weft_llist_node *rev = NULL;

	while (n) {
		struct weft_llist_node *next = READ_ONCE(n->next);
		WRITE_ONCE(n->next, rev);
		rev = n;
		n = next;
	}
	return rev;
}

/* init_llist_node()/llist_on_list(): a node off any list points at itself */
static inline void weft_init_llist_node(struct weft_llist_node *n)
{
	WRITE_ONCE(n->next, n);
}

static inline bool weft_llist_on_list(struct weft_llist_node *n)
{
	return READ_ONCE(n->next) != n;
}

static inline struct weft_llist_node *weft_llist_del_first_init(struct weft_llist_head *h)
{
	struct weft_llist_node *n = weft_llist_del_first(h);

	if (n)
		weft_init_llist_node(n);
	return n;
}

#ifndef WEFT_OWN_LLIST

#define llist_node weft_llist_node
#define llist_head weft_llist_head
#define LLIST_HEAD_INIT(name) { NULL }
#define LLIST_HEAD(name) struct weft_llist_head name = LLIST_HEAD_INIT(name)
#define init_llist_head(h) WRITE_ONCE((h)->first, (struct weft_llist_node *)NULL)
#define init_llist_node(n) weft_init_llist_node(n)
#define llist_on_list(n) weft_llist_on_list(n)
#define llist_empty(h) (READ_ONCE((h)->first) == NULL)
#define llist_next(n) READ_ONCE((n)->next)
#define llist_entry(p, type, member) container_of(p, type, member)

#define llist_add_batch(first, last, h)                                                 \
	({                                                                              \
		struct weft_llist_node *__weft_lf = (first), *__weft_ll = (last);       \
		WEFT_CALL_VAL(bool, "llist_add_batch(" #first ", " #last ", " #h ")",   \
			      (weft_llist_add_batch)(__weft_lf, __weft_ll, (h)));       \
	})
#define llist_add(n, h)                                                                 \
	({                                                                              \
		struct weft_llist_node *__weft_ln = (n);                                \
		WEFT_CALL_VAL(bool, "llist_add(" #n ", " #h ")",                        \
			      (weft_llist_add_batch)(__weft_ln, __weft_ln, (h)));       \
	})
#define __llist_add_batch(first, last, h)                                               \
	({                                                                              \
		struct weft_llist_node *__weft_lf = (first), *__weft_ll = (last);       \
		WEFT_CALL_VAL(bool, "__llist_add_batch(" #first ", " #last ", " #h ")", \
			      (weft___llist_add_batch)(__weft_lf, __weft_ll, (h)));     \
	})
#define __llist_add(n, h)                                                               \
	({                                                                              \
		struct weft_llist_node *__weft_ln = (n);                                \
		WEFT_CALL_VAL(bool, "__llist_add(" #n ", " #h ")",                      \
			      (weft___llist_add_batch)(__weft_ln, __weft_ln, (h)));     \
	})
#define llist_del_first(h)                                                              \
	WEFT_CALL_VAL(struct weft_llist_node *, "llist_del_first(" #h ")",              \
		      (weft_llist_del_first)(h))
#define llist_del_first_init(h)                                                         \
	WEFT_CALL_VAL(struct weft_llist_node *, "llist_del_first_init(" #h ")",         \
		      (weft_llist_del_first_init)(h))
#define llist_del_first_this(h, n)                                                      \
	WEFT_CALL_VAL(bool, "llist_del_first_this(" #h ", " #n ")",                     \
		      (weft_llist_del_first_this)((h), (n)))
#define llist_del_all(h)                                                                \
	WEFT_CALL_VAL(struct weft_llist_node *, "llist_del_all(" #h ")", (weft_llist_del_all)(h))
#define __llist_del_all(h)                                                              \
	WEFT_CALL_VAL(struct weft_llist_node *, "__llist_del_all(" #h ")",              \
		      (weft___llist_del_all)(h))
/* the list evaluated first: llist_reverse_order(llist_del_all(h)) is the
 * common form, and the call-name scopes must not nest */
#define llist_reverse_order(n)                                                          \
	({                                                                              \
		struct weft_llist_node *__weft_lr = (n);                                \
		WEFT_CALL_VAL(struct weft_llist_node *, "llist_reverse_order(" #n ")",  \
			      (weft_llist_reverse_order)(__weft_lr));                   \
	})

/* member_address_is_nonnull(): the walk ends at NULL even where member is
 * not the first field */
#define __weft_llist_member_nonnull(pos, member) \
	((uintptr_t)(pos) + offsetof(__typeof__(*(pos)), member) != 0)
#define llist_for_each(pos, first) for ((pos) = (first); (pos); (pos) = READ_ONCE((pos)->next))
#define llist_for_each_safe(pos, n, first) \
	for ((pos) = (first); (pos) && ((n) = READ_ONCE((pos)->next), 1); (pos) = (n))
#define llist_for_each_entry(pos, first, member)                                        \
	for ((pos) = llist_entry((first), __typeof__(*(pos)), member);                  \
	     __weft_llist_member_nonnull(pos, member);                                  \
	     (pos) = llist_entry(READ_ONCE((pos)->member.next), __typeof__(*(pos)), member))
#define llist_for_each_entry_safe(pos, n, first, member)                                \
	for ((pos) = llist_entry((first), __typeof__(*(pos)), member);                  \
	     __weft_llist_member_nonnull(pos, member) &&                                \
	     ((n) = llist_entry(READ_ONCE((pos)->member.next), __typeof__(*(n)), member), 1); \
	     (pos) = (n))

#endif /* WEFT_OWN_LLIST */

#ifdef __cplusplus
}
#endif
#endif
