/*
 * test_folio.c - folios and compound pages of the mm kit
 * (<weft/mm/folio.h>):
 *  - the API, one thread: compound_head() of heads, tails and order-0
 *    pages; the folio refcount funnel (get, try_get, sub_and_test, freeze,
 *    unfreeze, put freeing the folio); flag helpers; the split leaving
 *    order-0 pages the allocator frees one by one;
 *  - the reports: folio_get() on a count of 0 (inc-from-zero), a put below
 *    0 (refcount-underflow), a put on a freed folio (use-after-free);
 *  - the split's order matters and each step is a scheduling point: a
 *    speculative get_page_unless_zero() on a tail racing the kit's split
 *    (flags, mapping, compound head, then unfreeze) never finds the tail
 *    still pointing at its head nor loses a flag it set; the 2018 order
 *    (unfreeze first) does both, at one preemption (ZOO.md Z8's race).
 */
#include <weft/mm/folio.h>

#include "rcu_test.h"
#include "../model_driver.h"

struct fw {
	unsigned variant;
	struct weft_mm mm;
	struct weft_page *head;
	int res[40];
	int got, flagged;
};

enum { F_API, F_GET_ZERO, F_UNDERFLOW, F_PUT_FREED, F_SPLIT, F_SPLIT_UNFREEZE_FIRST,
       F_LOST_FLAG, F_LOST_FLAG_UNFREEZE_FIRST, F_NR };

WEFT_TEST_SETUP(fw, struct fw)
{
	weft_mm_init(&W->mm, 8, false);
	W->head = weft_compound_alloc(&W->mm, 2);
	weft_folio_set(W->head, uptodate);
	weft_folio_set(W->head, locked);   /* split holds the folio lock */
}

/* __split_huge_page() in the order before v4.17: unfreeze first */
static void split_unfreeze_first(struct weft_mm *mm, struct weft_page *head)
{
	for (unsigned i = 4; i-- > 1;) {
		struct weft_page *t = head + i;
		weft_folio_ref_unfreeze(mm, t, 1);
		weft_split_tail_flags(mm, head, t);
		weft_split_tail_mapping(mm, head, t, i);
		weft_clear_compound_head(mm, t);
	}
	clear_bit(WEFT_PG_head, &head->flags);
	WRITE_ONCE(head->order, (uint8_t)0);
}

static void api(struct fw *W)
{
	struct weft_mm *mm = &W->mm;
	struct weft_page *h = W->head, *t = h + 3, *single = weft_page_alloc(mm);
	int *r = W->res;
	unsigned n = 0;

#define T(c) (r[n++] = !!(c))
	T(weft_compound_head(mm, t) == h && weft_compound_head(mm, h) == h);
	T(weft_page_is_tail(mm, h + 1) && !weft_page_is_tail(mm, h));
	T(weft_compound_head(mm, single) == single && weft_folio_nr(mm, h) == 4);
	T(weft_folio_ref_count(mm, h) == 1);
	weft_folio_get(mm, h);
	T(weft_folio_try_get(mm, h) && weft_folio_ref_count(mm, h) == 3);
	T(!weft_folio_ref_sub_and_test(mm, h, 2) && weft_folio_ref_count(mm, h) == 1);
	T(!weft_folio_ref_freeze(mm, h, 2) && weft_folio_ref_freeze(mm, h, 1));
	T(!weft_folio_try_get(mm, h) && weft_folio_ref_count(mm, h) == 0);
	weft_folio_ref_unfreeze(mm, h, 1);
	weft_folio_ref_add(mm, h, 2);
	weft_folio_ref_sub(mm, h, 2);
	T(weft_folio_ref_count(mm, h) == 1);
	weft_folio_set(h, dirty);
	T(weft_folio_test(h, dirty) && weft_folio_test_set(h, dirty));
	T(weft_folio_test_clear(h, dirty) && !weft_folio_test(h, dirty));
	__weft_folio_set(h, referenced);
	T(weft_folio_test(h, referenced));
	__weft_folio_clear(h, referenced);
	weft_folio_clear(h, uptodate);
	T(!weft_folio_test(h, referenced) && !weft_folio_test(h, uptodate));
	weft_folio_set(h, uptodate);
	/* the split: freeze the head, split, unfreeze */
	T(weft_folio_ref_freeze(mm, h, 1));
	weft_split_compound(mm, h, 1);
	weft_folio_ref_unfreeze(mm, h, 1);
	T(weft_compound_head(mm, t) == t && weft_folio_nr(mm, h) == 1);
	T(weft_folio_ref_count(mm, t) == 1 && !weft_page_peek_flag(t, tail) &&
	  weft_page_peek_flag(t, uptodate) && weft_page_peek_flag(t, locked) &&
	  !weft_page_peek_flag(h, head));
	/* unlock and free each page on its own */
	for (unsigned i = 0; i < 4; i++) {
		weft_folio_clear(h + i, locked);
		weft_folio_put(mm, h + i);
	}
	weft_folio_put(mm, single);
	T(weft_peek(t->state) == WEFT_PAGE_FREE && weft_peek(h->state) == WEFT_PAGE_FREE &&
	  mm->nr_free == 8);
	/* a free page is its own head, without a use-after-free report */
	T(weft_compound_head(mm, t) == t);
#undef T
	r[39] = (int)n;
}

/* The speculative getter: a reference on tail 2, then its head, or a flag
 * of its own (lock_page()'s PG_waiters in Z8; PG_error here). */
static void getter(struct fw *W, bool flag)
{
	struct weft_mm *mm = &W->mm;
	struct weft_page *t = W->head + 2;

	if (!weft_get_page_unless_zero(mm, t))
		return;
	if (!flag && weft_compound_head(mm, t) != t)
		weft_report(WEFT_KIND_ASSERT, &t->lru.next,
			    WEFT_SITE(WEFT_EV_NOTE, "a referenced tail is its own head"),
			    "get_page_unless_zero() succeeded on a tail whose compound head is "
			    "still set: its put goes to the head");
	if (flag) {
		weft_folio_set(t, error);
		WRITE_ONCE(W->flagged, 1);
	}
}

static void fw_thread(void *w, unsigned tid)
{
	struct fw *W = w;
	struct weft_mm *mm = &W->mm;

	switch (W->variant) {
	case F_API:
		if (tid == 0)
			api(W);
		break;
	case F_GET_ZERO:
		if (tid == 0)
			weft_folio_get(mm, W->head + 1);   /* a tail: count 0 */
		break;
	case F_UNDERFLOW:
		if (tid == 0)
			weft_folio_ref_sub(mm, W->head + 1, 1);
		break;
	case F_PUT_FREED:
		if (tid == 0) {
			struct weft_page *p = weft_page_alloc(mm);
			weft_folio_put(mm, p);
			weft_folio_put(mm, p);
		}
		break;
	case F_SPLIT:
	case F_SPLIT_UNFREEZE_FIRST:
	case F_LOST_FLAG:
	case F_LOST_FLAG_UNFREEZE_FIRST:
		if (tid == 0) {
			if (!weft_folio_ref_freeze(mm, W->head, 1))
				break;
			if (W->variant == F_SPLIT || W->variant == F_LOST_FLAG)
				weft_split_compound(mm, W->head, 1);
			else
				split_unfreeze_first(mm, W->head);
			weft_folio_ref_unfreeze(mm, W->head, 1);
		} else {
			getter(W, W->variant == F_LOST_FLAG ||
					  W->variant == F_LOST_FLAG_UNFREEZE_FIRST);
		}
		break;
	}
}

static void fw_quiesce(void *w)
{
	struct fw *W = w;

	if (weft_peek(W->flagged) && !weft_page_peek_flag(W->head + 2, error))
		weft_report(WEFT_KIND_LOST_UPDATE, &W->head[2].flags,
			    WEFT_SITE(WEFT_EV_NOTE, "the getter's flag survives the split"),
			    "the split's non-atomic flags store erased the getter's PG_error");
}

T_SCENARIO(fw, "folio-test", "folio", struct fw, F_NR, .quiesce = fw_quiesce);

/* every case: dfs at its bound, at most 3000000 executions */
#define expect(v, bound, k, what) t_expect(&fw_sc, v, bound, k, 3000000, what)

int main(void)
{
	t_begin(fw_variants, F_NR);

	expect(F_API, 0, WEFT_KIND_NONE, "the API, one thread");
	const struct fw *W = weft_last_world();
	CHECK(W->res[39] == 18, "api: %d checks ran", W->res[39]);
	for (int i = 0; i < W->res[39]; i++)
		CHECK(W->res[i] == 1, "api check %d", i);
	expect(F_GET_ZERO, 0, WEFT_KIND_INC_FROM_ZERO, "folio_get() on a count of 0");
	expect(F_UNDERFLOW, 0, WEFT_KIND_REFCOUNT_UNDERFLOW, "folio_ref_sub() below 0");
	expect(F_PUT_FREED, 0, WEFT_KIND_USE_AFTER_FREE, "folio_put() of a freed folio");
	expect(F_SPLIT, 2, WEFT_KIND_NONE, "split vs get_page_unless_zero(tail)");
	expect(F_LOST_FLAG, 2, WEFT_KIND_NONE, "split vs a flag set by the getter");
	struct t_out o = t_dfs(&fw_sc, F_SPLIT_UNFREEZE_FIRST, 0, 100000);
	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "unfreeze first: clean at bound 0");
	expect(F_SPLIT_UNFREEZE_FIRST, 1, WEFT_KIND_ASSERT, "unfreeze first: the tail's head");
	expect(F_LOST_FLAG_UNFREEZE_FIRST, 1, WEFT_KIND_LOST_UPDATE,
	       "unfreeze first: the getter's flag");
	return check_done();
}
