/*
 * llist_models.c - lock-less lists under their kernel names
 * (<weft/llist.h>) in the shapes kernel code gets wrong, each bug beside
 * its fix, run through the weft command line of this program
 * (bin/weft-llist; tests/llist/CMakeLists.txt):
 *
 *  del-first  three nodes on a list; T0 takes two with llist_del_first();
 *             T1 takes two, puts the first back with llist_add() and
 *             keeps the second. locked: the two consumers' del_first()s
 *             under a spinlock of the model's (llist.h's table; clean);
 *             two-consumers: none: T0's cmpxchg of the head from the node
 *             it read to that node's old ->next succeeds after T1 took
 *             both and put the first back (ABA): a node T1 keeps is back
 *             on the list, and taken twice (assertion).
 *  drain      T1 and T2 each kmalloc() an item, set its value and add it;
 *             T0 takes the list with llist_del_all(), puts it in order
 *             with llist_reverse_order(), reads and frees each item, twice.
 *             safe: llist_for_each_entry_safe() (clean under sc, tso and
 *             lkmm: the adds' and the del_all's atomics are fully
 *             ordered); unsafe-walk: llist_for_each_entry() loads ->next of
 *             the item it freed (use-after-free); plain-add: __llist_add()
 *             from both producers, a node lost (assertion at the end) or
 *             linked behind a node the consumer took and freed
 *             (use-after-free);
 *             init-after: the value set after llist_add() (assertion: the
 *             consumer read it unset).
 */
#include <weft/kernel.h>
#include <weft/llist.h>
#include <weft/slab.h>

#define WEFT_TEST_SOURCE "tests/llist"
#define WEFT_TEST_FILE "llist_models.c"
#include "../model_driver.h"

/* --------------------------------------------------------------- del-first */

enum { DF_LOCKED, DF_TWO_CONSUMERS };

struct df_item {
	int taken;
	struct llist_node node;
};

struct df_world {
	unsigned variant;
	spinlock_t lock;
	struct llist_head head;
	struct df_item item[3];
};

WEFT_TEST_SETUP(df, struct df_world)
{
	spin_lock_init(&W->lock);
	init_llist_head(&W->head);
	for (int i = 2; i >= 0; i--)
		llist_add(&W->item[i].node, &W->head);
}

static struct df_item *df_pop(struct df_world *W)
{
	struct llist_node *n;

	if (W->variant == DF_LOCKED)
		spin_lock(&W->lock);
	n = llist_del_first(&W->head);
	if (W->variant == DF_LOCKED)
		spin_unlock(&W->lock);
	return n ? llist_entry(n, struct df_item, node) : NULL;
}

static void df_take(struct df_item *it)
{
	if (!it)
		return;
	if (READ_ONCE(it->taken))
		weft_report(WEFT_KIND_ASSERT, it, WEFT_TEST_NOTE_SITE("taken twice"),
			    "a node taken twice off the list");
	WRITE_ONCE(it->taken, 1);
}

static void df_thread(void *w, unsigned tid)
{
	struct df_world *W = w;

	if (tid == 0) {
		df_take(df_pop(W));
		df_take(df_pop(W));
		return;
	}
	struct df_item *back = df_pop(W), *kept = df_pop(W);
	if (back)
		llist_add(&back->node, &W->head);
	df_take(kept);
}

/* every node either on the list or taken, never both */
static void df_quiesce(void *w)
{
	struct df_world *W = w;
	struct df_item *pos;
	unsigned on = 0, taken = 0, steps = 0;

	llist_for_each_entry(pos, READ_ONCE(W->head.first), node) {
		if (READ_ONCE(pos->taken) || ++steps > 3) {
			weft_report(WEFT_KIND_ASSERT, pos, WEFT_TEST_NOTE_SITE("taken and listed"),
				    "a taken node is on the list");
			return;
		}
		on++;
	}
	for (int i = 0; i < 3; i++)
		taken += (unsigned)READ_ONCE(W->item[i].taken);
	if (on + taken != 3)
		weft_report(WEFT_KIND_ASSERT, &W->head, WEFT_TEST_NOTE_SITE("nodes counted"),
			    "%u nodes listed and %u taken of 3", on, taken);
}

static const struct weft_variant df_variants[] = {
	WEFT_TEST_FIX("locked", "the consumers' llist_del_first() under a lock", DF_LOCKED),
	WEFT_TEST_BUG("two-consumers",
	              "llist_del_first() from two consumers at once: the head's cmpxchg ABA",
	              WEFT_KIND_ASSERT, DF_TWO_CONSUMERS),
};

WEFT_TEST_SCENARIO(llist_del_first_scn, "del-first",
		   "test: llist_del_first() from two consumers",
		   struct df_world, 2, 2, 64, df, .quiesce = df_quiesce);

/* ------------------------------------------------------------------- drain */

enum { DR_SAFE, DR_UNSAFE_WALK, DR_PLAIN_ADD, DR_INIT_AFTER };

struct dr_item {
	int val;
	struct llist_node node;
};

struct dr_world {
	unsigned variant;
	struct llist_head head;
	int consumed;
};

WEFT_TEST_SETUP(dr, struct dr_world)
{
	init_llist_head(&W->head);
}

static void dr_thread(void *w, unsigned tid)
{
	struct dr_world *W = w;

	if (tid != 0) {
		struct dr_item *it = kmalloc(sizeof(*it), GFP_KERNEL);
		if (W->variant != DR_INIT_AFTER)
			WRITE_ONCE(it->val, (int)tid);
		if (W->variant == DR_PLAIN_ADD)
			__llist_add(&it->node, &W->head);
		else
			llist_add(&it->node, &W->head);
		if (W->variant == DR_INIT_AFTER)
			WRITE_ONCE(it->val, (int)tid);
		return;
	}
	for (int round = 0; round < 2; round++) {
		struct llist_node *batch = llist_reverse_order(llist_del_all(&W->head));
		struct dr_item *pos, *n;
		if (W->variant == DR_UNSAFE_WALK) {
			llist_for_each_entry(pos, batch, node) {
				if (!READ_ONCE(pos->val))
					weft_report(WEFT_KIND_ASSERT, pos, WEFT_TEST_NOTE_SITE("unset"),
						    "an item taken before its value was set");
				kfree(pos);
				WRITE_ONCE(W->consumed, READ_ONCE(W->consumed) + 1);
			}
			continue;
		}
		llist_for_each_entry_safe(pos, n, batch, node) {
			if (!READ_ONCE(pos->val))
				weft_report(WEFT_KIND_ASSERT, pos, WEFT_TEST_NOTE_SITE("unset"),
					    "an item taken before its value was set");
			kfree(pos);
			WRITE_ONCE(W->consumed, READ_ONCE(W->consumed) + 1);
		}
	}
}

/* both items consumed or still listed: none lost */
static void dr_quiesce(void *w)
{
	struct dr_world *W = w;
	struct dr_item *pos, *n;
	unsigned on = 0;

	llist_for_each_entry_safe(pos, n, READ_ONCE(W->head.first), node) {
		on++;
		kfree(pos);
	}
	if (on + (unsigned)READ_ONCE(W->consumed) != 2)
		weft_report(WEFT_KIND_ASSERT, &W->head, WEFT_TEST_NOTE_SITE("items counted"),
			    "%u items listed and %d consumed of 2", on, READ_ONCE(W->consumed));
}

static const struct weft_variant dr_variants[] = {
	WEFT_TEST_FIX("safe", "llist_del_all(), then llist_for_each_entry_safe() frees", DR_SAFE),
	WEFT_TEST_BUG("unsafe-walk", "llist_for_each_entry() over the items it frees",
	              WEFT_KIND_USE_AFTER_FREE, DR_UNSAFE_WALK),
	WEFT_TEST_BUG("plain-add", "__llist_add() from two producers: a node lost (or linked to a freed one)",
	              WEFT_KIND_ASSERT, DR_PLAIN_ADD),
	WEFT_TEST_BUG("init-after", "the item's value set after llist_add()",
	              WEFT_KIND_ASSERT, DR_INIT_AFTER),
};

WEFT_TEST_SCENARIO(llist_drain_scn, "drain",
		   "test: producers llist_add(), a consumer llist_del_all()",
		   struct dr_world, 3, 3, 64, dr, .quiesce = dr_quiesce, .heap_size = 4096);

WEFT_DEFINE_REGISTRY(&llist_del_first_scn, &llist_drain_scn);
