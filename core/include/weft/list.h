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

	if (!__weft_list_del_valid(e, next, prev))
		return;
	WRITE_ONCE(next->prev, prev);
	WRITE_ONCE(prev->next, next);
	WRITE_ONCE(e->next, e);
	WRITE_ONCE(e->prev, e);
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

#endif /* WEFT_OWN_LIST */

#ifdef __cplusplus
}
#endif
#endif
