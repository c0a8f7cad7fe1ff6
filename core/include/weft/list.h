/*
 * list.h - the kernel's doubly linked lists under their own names
 * (include/linux/list.h, v6.12) for Weft models: struct list_head is
 * <weft/kernel.h>'s struct weft_list_head, and the operations are its
 * weft_list_* helpers (each pointer load and store a scheduling point,
 * CONFIG_DEBUG_LIST's checks a `list-corruption` report). A family header
 * of its own: a model includes it when it wants these names.
 *
 *   struct list_head, LIST_HEAD_INIT(name), LIST_HEAD(name), INIT_LIST_HEAD(h)
 *   list_add(n, h), list_add_tail(n, h), list_del(e) (poisons e),
 *   list_del_init(e), list_move(e, h), list_move_tail(e, h),
 *   list_empty(h), list_is_singular(h), list_is_last(e, h)
 *   list_entry(p, type, member), list_first_entry(h, type, member),
 *   list_last_entry(h, type, member), list_first_entry_or_null(h, type, member),
 *   list_next_entry(pos, member), list_prev_entry(pos, member)
 *   list_for_each(p, h), list_for_each_safe(p, n, h),
 *   list_for_each_entry(pos, h, member), list_for_each_entry_safe(pos, n, h, member),
 *   list_for_each_entry_reverse(pos, h, member)
 *   struct hlist_head, struct hlist_node, HLIST_HEAD_INIT, HLIST_HEAD(name),
 *   INIT_HLIST_HEAD(h), INIT_HLIST_NODE(n), hlist_unhashed(n), hlist_empty(h),
 *   hlist_add_head(n, h), hlist_del(n) (poisons n), hlist_del_init(n),
 *   hlist_entry(p, type, member), hlist_entry_safe(p, type, member),
 *   hlist_for_each_entry(pos, h, member), hlist_for_each_entry_safe(pos, n, h, member)
 *
 * RCU-protected lists are in <weft/rculist.h>. A model with list names of
 * its own defines WEFT_OWN_LIST before including it.
 */
#ifndef WEFT_LIST_H
#define WEFT_LIST_H

#include <weft/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* list_del_init(): off its list, then an empty list of its own (no
 * poison in between, as __list_del_entry() and INIT_LIST_HEAD()) */
static inline void weft_list_del_init(struct weft_list_head *e)
{
	struct weft_list_head *next, *prev;

	if (!__weft_list_del_entry(e, next, prev))
		return;
	WRITE_ONCE(e->next, e);
	WRITE_ONCE(e->prev, e);
}

/* hlists (hash chains): a head with one pointer, nodes whose pprev points
 * at the pointer that points at them. */
struct weft_hlist_node {
	struct weft_hlist_node *next, **pprev;
};
struct weft_hlist_head {
	struct weft_hlist_node *first;
};

static inline void weft_hlist_add_head(struct weft_hlist_node *n, struct weft_hlist_head *h)
{
	struct weft_hlist_node *first = READ_ONCE(h->first);

	WRITE_ONCE(n->next, first);
	if (first)
		WRITE_ONCE(first->pprev, &n->next);
	WRITE_ONCE(h->first, n);
	WRITE_ONCE(n->pprev, &h->first);
}

/* __hlist_del(): n off its chain; a node that is not on one (pprev NULL
 * or poisoned) is a list-corruption report */
static inline bool weft_hlist_unlink(struct weft_hlist_node *n)
{
	struct weft_hlist_node *next = READ_ONCE(n->next);
	struct weft_hlist_node **pprev = READ_ONCE(n->pprev);

	if (!pprev || pprev == (struct weft_hlist_node **)WEFT_LIST_POISON2) {
		weft_report(WEFT_KIND_LIST_CORRUPTION, n, WEFT_SITE(WEFT_EV_NOTE, "__hlist_del()"),
			    "hlist_del of a node on no chain (pprev=%p)", (void *)pprev);
		return false;
	}
	WRITE_ONCE(*pprev, next);
	if (next)
		WRITE_ONCE(next->pprev, pprev);
	return true;
}

#ifndef WEFT_OWN_LIST

#define list_head weft_list_head
#define LIST_HEAD_INIT(name) WEFT_LIST_HEAD_INIT(name)
#define LIST_HEAD(name) struct weft_list_head name = WEFT_LIST_HEAD_INIT(name)
#define INIT_LIST_HEAD(h) weft_list_init(h)
#define list_add(n, h) weft_list_add((n), (h))
#define list_add_tail(n, h) weft_list_add_tail((n), (h))
#define list_del(e) weft_list_del(e)
#define list_del_init(e) \
	WEFT_CALL_VOID("list_del_init(" #e ")", (weft_list_del_init)(e))
#define list_move(e, h)                                                                 \
	do {                                                                            \
		struct weft_list_head *__weft_e = (e);                                  \
		WEFT_CALL_VOID("list_move(" #e ", " #h ")",                             \
			       ((weft_list_del_init)(__weft_e), (weft_list_add)(__weft_e, (h)))); \
	} while (0)
#define list_move_tail(e, h)                                                            \
	do {                                                                            \
		struct weft_list_head *__weft_e = (e);                                  \
		WEFT_CALL_VOID("list_move_tail(" #e ", " #h ")",                        \
			       ((weft_list_del_init)(__weft_e),                         \
				(weft_list_add_tail)(__weft_e, (h))));                  \
	} while (0)
#define list_empty(h) weft_list_empty(h)
#define list_is_last(e, h) (READ_ONCE((e)->next) == (h))
#define list_is_singular(h)                                                             \
	({                                                                              \
		struct weft_list_head *__weft_h = (h);                                  \
		struct weft_list_head *__weft_n = READ_ONCE(__weft_h->next);            \
		__weft_n != __weft_h && __weft_n == READ_ONCE(__weft_h->prev);          \
	})

#define list_entry(p, type, member) weft_list_entry(p, type, member)
#define list_first_entry(h, type, member) list_entry(READ_ONCE((h)->next), type, member)
#define list_last_entry(h, type, member) list_entry(READ_ONCE((h)->prev), type, member)
#define list_first_entry_or_null(h, type, member)                                       \
	({                                                                              \
		struct weft_list_head *__weft_h = (h);                                  \
		struct weft_list_head *__weft_n = READ_ONCE(__weft_h->next);            \
		__weft_n != __weft_h ? list_entry(__weft_n, type, member) : NULL;       \
	})
#define list_next_entry(pos, member) \
	list_entry(READ_ONCE((pos)->member.next), __typeof__(*(pos)), member)
#define list_prev_entry(pos, member) \
	list_entry(READ_ONCE((pos)->member.prev), __typeof__(*(pos)), member)

#define list_for_each(p, h) for ((p) = READ_ONCE((h)->next); (p) != (h); (p) = READ_ONCE((p)->next))
#define list_for_each_safe(p, n, h)                                                     \
	for ((p) = READ_ONCE((h)->next), (n) = READ_ONCE((p)->next); (p) != (h);        \
	     (p) = (n), (n) = READ_ONCE((p)->next))
#define list_for_each_entry(pos, h, member)                                             \
	for ((pos) = list_first_entry(h, __typeof__(*(pos)), member); &(pos)->member != (h); \
	     (pos) = list_next_entry(pos, member))
#define list_for_each_entry_reverse(pos, h, member)                                     \
	for ((pos) = list_last_entry(h, __typeof__(*(pos)), member); &(pos)->member != (h); \
	     (pos) = list_prev_entry(pos, member))
#define list_for_each_entry_safe(pos, n, h, member)                                     \
	for ((pos) = list_first_entry(h, __typeof__(*(pos)), member),                   \
	    (n) = list_next_entry(pos, member);                                         \
	     &(pos)->member != (h); (pos) = (n), (n) = list_next_entry(n, member))

#define hlist_head weft_hlist_head
#define hlist_node weft_hlist_node
#define HLIST_HEAD_INIT { NULL }
#define HLIST_HEAD(name) struct weft_hlist_head name = { NULL }
#define INIT_HLIST_HEAD(h) WRITE_ONCE((h)->first, NULL)
#define INIT_HLIST_NODE(n)                                                              \
	do {                                                                            \
		WRITE_ONCE((n)->next, NULL);                                            \
		WRITE_ONCE((n)->pprev, NULL);                                           \
	} while (0)
#define hlist_unhashed(n) (READ_ONCE((n)->pprev) == NULL)
#define hlist_empty(h) (READ_ONCE((h)->first) == NULL)
#define hlist_add_head(n, h) \
	WEFT_CALL_VOID("hlist_add_head(" #n ", " #h ")", (weft_hlist_add_head)((n), (h)))
#define hlist_del(n)                                                                    \
	do {                                                                            \
		struct weft_hlist_node *__weft_n = (n);                                 \
		if (WEFT_CALL_VAL(bool, "hlist_del(" #n ")", (weft_hlist_unlink)(__weft_n))) { \
			WRITE_ONCE(__weft_n->next, (struct weft_hlist_node *)WEFT_LIST_POISON1); \
			WRITE_ONCE(__weft_n->pprev, (struct weft_hlist_node **)WEFT_LIST_POISON2); \
		}                                                                       \
	} while (0)
#define hlist_del_init(n)                                                               \
	do {                                                                            \
		struct weft_hlist_node *__weft_n = (n);                                 \
		if (!hlist_unhashed(__weft_n) &&                                        \
		    WEFT_CALL_VAL(bool, "hlist_del_init(" #n ")", (weft_hlist_unlink)(__weft_n))) \
			INIT_HLIST_NODE(__weft_n);                                      \
	} while (0)
#define hlist_entry(p, type, member) weft_list_entry(p, type, member)
#define hlist_entry_safe(p, type, member)                                               \
	({                                                                              \
		__typeof__(p) __weft_p = (p);                                           \
		__weft_p ? hlist_entry(__weft_p, type, member) : NULL;                  \
	})
#define hlist_for_each_entry(pos, h, member)                                            \
	for ((pos) = hlist_entry_safe(READ_ONCE((h)->first), __typeof__(*(pos)), member); (pos); \
	     (pos) = hlist_entry_safe(READ_ONCE((pos)->member.next), __typeof__(*(pos)), member))
#define hlist_for_each_entry_safe(pos, n, h, member)                                    \
	for ((pos) = hlist_entry_safe(READ_ONCE((h)->first), __typeof__(*(pos)), member); \
	     (pos) && ((n) = READ_ONCE((pos)->member.next), 1);                        \
	     (pos) = hlist_entry_safe(n, __typeof__(*(pos)), member))

#endif /* WEFT_OWN_LIST */

#ifdef __cplusplus
}
#endif
#endif
