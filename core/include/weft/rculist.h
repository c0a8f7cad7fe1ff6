/*
 * rculist.h - RCU-protected lists (include/linux/rculist.h, v6.12) for
 * Weft models, on <weft/list.h> and <weft/rcu.h>: updaters (serialised by
 * a lock of the model's) publish entries with rcu_assign_pointer() and
 * unlink them leaving ->next intact for readers still on them; readers
 * walk with rcu_dereference() inside rcu_read_lock(). A family header of
 * its own: a model includes it when it wants these.
 *
 * What a search finds is what the kernel gets wrong:
 *  - an updater that frees an entry after list_del_rcu() without waiting
 *    for a grace period (synchronize_rcu(), kfree_rcu()) while a reader
 *    is on it: `rcu-free-in-use`;
 *  - a reader outside rcu_read_lock() (`rcu-misuse`, as lockdep's RCU
 *    checks; an updater walking under its lock passes the condition,
 *    list_for_each_entry_rcu(pos, head, member, lockdep_is_held(&lock)));
 *  - list_del() instead of list_del_rcu(): the reader follows a poisoned
 *    ->next (a report of the access);
 *  - under `--memory lkmm`, a publication with a plain store: the reader
 *    can see the entry before its initialisation.
 *
 *   list_add_rcu(n, h), list_add_tail_rcu(n, h), list_del_rcu(e),
 *   list_replace_rcu(old, new), list_entry_rcu(p, type, member),
 *   list_first_or_null_rcu(h, type, member), list_next_rcu(l),
 *   list_for_each_entry_rcu(pos, h, member[, cond])
 *   hlist_add_head_rcu(n, h), hlist_del_rcu(n),
 *   hlist_for_each_entry_rcu(pos, h, member[, cond])
 *
 * A model with names of its own for these defines WEFT_OWN_RCULIST first.
 */
#ifndef WEFT_RCULIST_H
#define WEFT_RCULIST_H

#include <weft/list.h>
#include <weft/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rcu_assign_pointer() and rcu_dereference_check() of <weft/rcu.h>, by
 * their weft_ names (a model with WEFT_OWN_RCU has its own kernel names) */
#define __weft_rculist_publish(p, v)                                                    \
	((void)WEFT_ACCESS_F(&(p), WEFT_A_STORE, (uintptr_t)(v), 0, WEFT_EV_WRITE,      \
			     "rcu_assign_pointer(" #p ")", WEFT_SITE_RELEASE))
#define __weft_rculist_deref(p, cond, what)                                             \
	((__typeof__(p))(uintptr_t)weft_rcu_deref(&(p), sizeof(p),                      \
						  (cond) ? WEFT_RCU_DEREF_OK : WEFT_RCU_DEREF, \
						  WEFT_SITE(WEFT_EV_READ, what)))

/* __list_add_rcu(): the entry's own pointers, then its publication */
static inline void weft_list_add_rcu(struct weft_list_head *n, struct weft_list_head *prev,
				     struct weft_list_head *next)
{
	__weft_list_add_valid(n, prev, next);
	WRITE_ONCE(n->next, next);
	WRITE_ONCE(n->prev, prev);
	__weft_rculist_publish(prev->next, n);
	WRITE_ONCE(next->prev, n);
}

/* list_del_rcu(): unlinked, ->next left for readers still on it, ->prev
 * poisoned */
static inline void weft_list_del_rcu(struct weft_list_head *e)
{
	struct weft_list_head *next, *prev;

	if (!__weft_list_del_entry(e, next, prev))
		return;
	WRITE_ONCE(e->prev, WEFT_LIST_POISON2);
}

/* list_replace_rcu(): new takes old's place; old's ->next stays */
static inline void weft_list_replace_rcu(struct weft_list_head *old, struct weft_list_head *n)
{
	struct weft_list_head *next = READ_ONCE(old->next);
	struct weft_list_head *prev = READ_ONCE(old->prev);

	WRITE_ONCE(n->next, next);
	WRITE_ONCE(n->prev, prev);
	__weft_rculist_publish(prev->next, n);
	WRITE_ONCE(next->prev, n);
	WRITE_ONCE(old->prev, WEFT_LIST_POISON2);
}

/* hlist_add_head_rcu(): the node's own pointers, then its publication */
static inline void weft_hlist_add_head_rcu(struct weft_hlist_node *n, struct weft_hlist_head *h)
{
	struct weft_hlist_node *first = READ_ONCE(h->first);

	WRITE_ONCE(n->next, first);
	WRITE_ONCE(n->pprev, &h->first);
	__weft_rculist_publish(h->first, n);
	if (first)
		WRITE_ONCE(first->pprev, &n->next);
}

#ifndef WEFT_OWN_RCULIST

#define list_next_rcu(l) ((l)->next)
#define list_add_rcu(n, h)                                                              \
	do {                                                                            \
		struct weft_list_head *__weft_h = (h);                                  \
		WEFT_CALL_VOID("list_add_rcu(" #n ", " #h ")",                          \
			       (weft_list_add_rcu)((n), __weft_h, READ_ONCE(__weft_h->next))); \
	} while (0)
#define list_add_tail_rcu(n, h)                                                         \
	do {                                                                            \
		struct weft_list_head *__weft_h = (h);                                  \
		WEFT_CALL_VOID("list_add_tail_rcu(" #n ", " #h ")",                     \
			       (weft_list_add_rcu)((n), READ_ONCE(__weft_h->prev), __weft_h)); \
	} while (0)
#define list_del_rcu(e) WEFT_CALL_VOID("list_del_rcu(" #e ")", (weft_list_del_rcu)(e))
#define list_replace_rcu(old, n) \
	WEFT_CALL_VOID("list_replace_rcu(" #old ", " #n ")", (weft_list_replace_rcu)((old), (n)))

/* a reader's load of a list pointer (cond: the updater's lock is held;
 * none: 0) */
#define __weft_rcu_cond_of(x, c, ...) (c)
#define __weft_list_rcu_load(p, cond) \
	__weft_rculist_deref(p, cond, "rcu_dereference_check(" #p ")")
#define list_entry_rcu(p, type, member) \
	list_entry(__weft_rculist_deref(p, 0, "rcu_dereference(" #p ")"), type, member)
#define list_first_or_null_rcu(h, type, member)                                         \
	({                                                                              \
		struct weft_list_head *__weft_h = (h);                                  \
		struct weft_list_head *__weft_n =                                       \
			__weft_rculist_deref(__weft_h->next, 0, "rcu_dereference(" #h "->next)"); \
		__weft_n != __weft_h ? list_entry(__weft_n, type, member) : NULL;       \
	})
#define list_for_each_entry_rcu(pos, h, member, ...)                                    \
	for ((pos) = list_entry(__weft_list_rcu_load((h)->next, __weft_rcu_cond_of(0, ##__VA_ARGS__, 0)),       \
				__typeof__(*(pos)), member);                            \
	     &(pos)->member != (h);                                                     \
	     (pos) = list_entry(__weft_list_rcu_load((pos)->member.next, __weft_rcu_cond_of(0, ##__VA_ARGS__, 0)), \
				__typeof__(*(pos)), member))

#define hlist_add_head_rcu(n, h) \
	WEFT_CALL_VOID("hlist_add_head_rcu(" #n ", " #h ")", (weft_hlist_add_head_rcu)((n), (h)))
/* hlist_del_rcu(): unlinked, ->next left for readers still on it */
#define hlist_del_rcu(n)                                                                \
	do {                                                                            \
		struct weft_hlist_node *__weft_n = (n);                                 \
		if (WEFT_CALL_VAL(bool, "hlist_del_rcu(" #n ")", (weft_hlist_unlink)(__weft_n))) \
			WRITE_ONCE(__weft_n->pprev, (struct weft_hlist_node **)WEFT_LIST_POISON2); \
	} while (0)
#define hlist_for_each_entry_rcu(pos, h, member, ...)                                   \
	for ((pos) = hlist_entry_safe(__weft_list_rcu_load((h)->first,                  \
				__weft_rcu_cond_of(0, ##__VA_ARGS__, 0)), __typeof__(*(pos)), member); \
	     (pos);                                                                     \
	     (pos) = hlist_entry_safe(__weft_list_rcu_load((pos)->member.next,          \
				__weft_rcu_cond_of(0, ##__VA_ARGS__, 0)), __typeof__(*(pos)), member))

#endif /* WEFT_OWN_RCULIST */

#ifdef __cplusplus
}
#endif
#endif
