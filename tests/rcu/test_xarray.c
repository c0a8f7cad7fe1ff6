/*
 * test_xarray.c - xarray-lite (<weft/xarray.h>):
 *  - the API, one thread: store/load/erase, values, multi-index entries
 *    (a store into one index replaces the whole entry, an erase erases
 *    it), xa_get_order, splits at both levels (root entries into leaves,
 *    leaf entries in place, root entries into smaller root entries),
 *    cmpxchg and insert, -EINVAL (an internal entry, whatever the index
 *    holds; a split into NULL) and -ENOMEM;
 *  - xa_load never returns a torn entry: lookups racing a split (into new
 *    leaves, into siblings of a leaf, of an order-5 entry over four root
 *    slots) and the per-index stores after it see the old entry or a new
 *    one, never NULL or another index's entry (dfs bound 2, complete);
 *  - a freed leaf is reused only after a grace period: lookups racing
 *    erase/store cycles see an entry that was there, without any report;
 *  - emptied leaves go back to the pool (after the execution's callbacks).
 */
#include <weft/xarray.h>

#include "rcu_test.h"
#include "../model_driver.h"

struct item {
	int idx;
	struct rcu_head rcu;
};

struct xw {
	unsigned variant;
	struct xarray xa;
	struct item it[8];      /* A, B, C, ... */
	int res[64];
};

enum { X_API, X_SPLIT_ROOT, X_SPLIT_ORDER5, X_SPLIT_LEAF, X_REUSE, X_NR };

#define A(W) (&(W)->it[0])
#define B(W) (&(W)->it[1])
#define C(W) (&(W)->it[2])

WEFT_TEST_SETUP(xw, struct xw)
{
	xa_init(&W->xa);
	switch (W->variant) {
	case X_SPLIT_ROOT:
		xa_store_order(&W->xa, 8, 3, A(W), 0);
		break;
	case X_SPLIT_ORDER5:
		xa_store_order(&W->xa, 0, 5, A(W), 0);
		break;
	case X_SPLIT_LEAF:
		xa_store_order(&W->xa, 20, 2, A(W), 0);
		break;
	case X_REUSE:
		xa_store(&W->xa, 3, A(W), 0);
		break;
	}
}

static void torn(struct xw *W, unsigned long index, void *e, void *a, void *b, void *c, void *d)
{
	if (e != a && e != b && e != c && e != d)
		weft_report(WEFT_KIND_ASSERT, &W->xa,
			    WEFT_SITE(WEFT_EV_NOTE, "xa_load() sees the old or a new entry"),
			    "xa_load(%lu) returned a torn entry %p", index, e);
}

static void api(struct xw *W)
{
	struct xarray *xa = &W->xa;
	int *r = W->res;
	unsigned n = 0;

#define T(c) (r[n++] = !!(c))
	T(xa_store(xa, 5, xa_mk_value(5), GFP_KERNEL) == NULL);
	T(xa_load(xa, 5) == xa_mk_value(5) && xa_is_value(xa_load(xa, 5)) &&
	  xa_to_value(xa_load(xa, 5)) == 5);
	T(xa_load(xa, 4) == NULL && xa_get_order(xa, 5) == 0);
	/* an order-3 entry over root slot 1 */
	T(xa_store_order(xa, 8, 3, A(W), 0) == NULL);
	T(xa_load(xa, 8) == A(W) && xa_load(xa, 15) == A(W) && xa_load(xa, 16) == NULL);
	T(xa_get_order(xa, 12) == 3);
	/* a store inside it replaces all of it */
	T(xa_store(xa, 12, B(W), 0) == A(W));
	T(xa_load(xa, 8) == B(W) && xa_get_order(xa, 9) == 3);
	/* erasing one index erases the entry */
	T(xa_erase(xa, 9) == B(W));
	T(xa_load(xa, 8) == NULL && xa_load(xa, 15) == NULL);
	/* an order-2 entry in a leaf, split in place, then one index replaced */
	T(xa_store_order(xa, 17, 2, A(W), 0) == NULL);
	T(xa_load(xa, 16) == A(W) && xa_load(xa, 19) == A(W) && xa_load(xa, 20) == NULL);
	T(xa_get_order(xa, 18) == 2);
	/* a split to its own order is refused and leaves the entry alone */
	T(xa_split(xa, 18, 2, C(W)) == -22 && xa_load(xa, 16) == A(W) && xa_get_order(xa, 19) == 2);
	T(xa_split(xa, 18, 0, C(W)) == 0);
	T(xa_load(xa, 16) == C(W) && xa_load(xa, 19) == C(W) && xa_get_order(xa, 17) == 0);
	T(xa_store(xa, 17, B(W), 0) == C(W));
	T(xa_load(xa, 17) == B(W) && xa_load(xa, 16) == C(W));
	/* an order-2 store at an unaligned index covers its aligned range;
	 * erasing it by its last index clears it all, so a later store at
	 * its second index stores that index alone */
	T(xa_store_order(xa, 22, 2, A(W), 0) == NULL && xa_load(xa, 20) == A(W) &&
	  xa_load(xa, 23) == A(W) && xa_get_order(xa, 21) == 2);
	T(xa_erase(xa, 23) == A(W) && xa_load(xa, 20) == NULL && xa_load(xa, 22) == NULL);
	T(xa_store(xa, 21, C(W), 0) == NULL && xa_load(xa, 20) == NULL && xa_load(xa, 22) == NULL &&
	  xa_load(xa, 21) == C(W) && xa_erase(xa, 21) == C(W));
	/* an order-4 entry over root slots 4 and 5, split into new leaves */
	T(xa_store_order(xa, 32, 4, A(W), 0) == NULL);
	T(xa_get_order(xa, 47) == 4 && xa_load(xa, 40) == A(W));
	T(xa_split(xa, 40, 1, B(W)) == 0);
	T(xa_load(xa, 32) == B(W) && xa_load(xa, 47) == B(W) && xa_get_order(xa, 45) == 1);
	/* order 5 over slots 0..3 replaces everything there; split to order 3 */
	T(xa_store_order(xa, 0, 5, A(W), 0) == NULL);   /* index 0 was empty */
	T(xa_load(xa, 5) == A(W) && xa_load(xa, 17) == A(W) && xa_get_order(xa, 30) == 5);
	T(xa_split(xa, 0, 3, C(W)) == 0);
	T(xa_load(xa, 31) == C(W) && xa_get_order(xa, 31) == 3 && xa_get_order(xa, 0) == 3);
	T(xa_split(xa, 0, 3, C(W)) == -22);             /* not above the new order */
	/* cmpxchg and insert */
	T(xa_insert(xa, 60, A(W), 0) == 0 && xa_insert(xa, 60, B(W), 0) == -16);
	T(xa_cmpxchg(xa, 60, B(W), C(W), 0) == A(W) && xa_load(xa, 60) == A(W));
	T(xa_cmpxchg(xa, 60, A(W), C(W), 0) == A(W) && xa_load(xa, 60) == C(W));
	/* an empty index holds NULL: a compare with another old fails */
	T(xa_cmpxchg(xa, 62, A(W), B(W), 0) == NULL && xa_load(xa, 62) == NULL);
	/* errors */
	T(xa_err(xa_store(xa, 64, A(W), 0)) == -22);
	T(xa_err(xa_store(xa, 1, xa_mk_sibling(0), 0)) == -22);
	T(xa_split(xa, 50, 0, A(W)) == -22);
	/* an internal entry is refused whatever the index holds (it was
	 * refused only where the compare matched), and a split into NULL
	 * entries is refused (siblings of an empty slot) */
	T(xa_err(xa_cmpxchg(xa, 61, A(W), xa_mk_sibling(0), 0)) == -22);
	T(xa_insert(xa, 60, xa_mk_sibling(0), 0) == -22 && xa_load(xa, 60) == C(W));
	T(xa_split(xa, 47, 0, NULL) == -22 && xa_get_order(xa, 46) == 1 && xa_load(xa, 47) == B(W));
	/* no free leaf for a split of four root slots: the five leaves
	 * replaced or emptied so far await their grace period (the callback
	 * kthread runs when this thread ends), four more are in use */
	T(xa_erase(xa, 60) == C(W));
	T(xa_store_order(xa, 32, 5, A(W), 0) == B(W));
	for (unsigned long i = 0; i < 32; i += 8) {
		(void)xa_erase(xa, i);
		(void)xa_store(xa, i + 1, B(W), 0);
	}
	T(xa_split(xa, 32, 0, C(W)) == -12 && xa_load(xa, 33) == A(W));
#undef T
	r[63] = (int)n;
}

/* T0 splits the multi-index entry A at index at (setup stored it) into
 * order-0 entries of B and stores C at store, under the lock; T1 loads a kept index of the split
 * (A or B) and store (A, B or C), never a torn entry. */
static void split_then_store(struct xw *W, unsigned tid, unsigned long at, unsigned long store,
			     unsigned long kept)
{
	struct xarray *xa = &W->xa;

	if (tid == 0) {
		xa_lock(xa);
		__xa_split(xa, at, 0, B(W));
		__xa_store(xa, store, C(W), 0);
		xa_unlock(xa);
	} else {
		torn(W, kept, xa_load(xa, kept), A(W), B(W), B(W), B(W));
		torn(W, store, xa_load(xa, store), A(W), B(W), C(W), C(W));
	}
}

static void xw_thread(void *w, unsigned tid)
{
	struct xw *W = w;
	struct xarray *xa = &W->xa;

	switch (W->variant) {
	case X_API:
		if (tid == 0)
			api(W);
		break;
	case X_SPLIT_ROOT:
		split_then_store(W, tid, 8, 13, 9);
		break;
	case X_SPLIT_ORDER5:
		if (tid == 0)
			xa_split(xa, 0, 0, B(W));
		else {
			torn(W, 27, xa_load(xa, 27), A(W), B(W), B(W), B(W));
			torn(W, 2, xa_load(xa, 2), A(W), B(W), B(W), B(W));
		}
		break;
	case X_SPLIT_LEAF:
		split_then_store(W, tid, 20, 21, 22);
		break;
	case X_REUSE:
		if (tid == 0) {
			xa_erase(xa, 3);
			xa_store(xa, 3, B(W), 0);
			xa_erase(xa, 3);
			xa_store(xa, 3, C(W), 0);
		} else {
			torn(W, 3, xa_load(xa, 3), A(W), B(W), C(W), NULL);
			torn(W, 3, xa_load(xa, 3), A(W), B(W), C(W), NULL);
		}
		break;
	}
}

T_SCENARIO(xw, "xarray-test", "xarray", struct xw, X_NR);

static void race(unsigned v, unsigned bound, const char *what)
{
	struct t_out o = t_dfs(&xw_sc, v, bound, 3000000);

	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s: %s (%s), complete %d", what,
	      weft_kind_name(o.kind), o.r.report.msg, o.complete);
	printf("  %-54s clean, dfs bound %u complete: %llu executions\n", what, bound,
	       (unsigned long long)o.execs);
}

int main(void)
{
	t_begin(xw_variants, X_NR);

	struct t_out o = t_dfs(&xw_sc, X_API, 0, 10);
	CHECK(o.kind == WEFT_KIND_NONE, "api: %s (%s)", weft_kind_name(o.kind), o.r.report.msg);
	const struct xw *W = weft_last_world();
	CHECK(W->res[63] == 43, "api: %d checks ran", W->res[63]);
	for (int i = 0; i < W->res[63]; i++)
		CHECK(W->res[i] == 1, "api check %d", i);
	/* leaves: slots 0-3 (four after the last store loop), 4 and 5 gone
	 * with the order-5 store at 32, the others back after their grace
	 * periods */
	unsigned busy = 0;
	for (unsigned i = 1; i < WEFT_XA_NR_NODES; i++)
		busy += W->xa.busy[i];
	CHECK(busy == 4, "leaves in use at the end: %u", busy);
	printf("  the API, one thread: %d checks, %u leaves in use at the end\n", W->res[63], busy);

	race(X_SPLIT_ROOT, 2, "split of an order-3 entry into a new leaf vs lookups");
	race(X_SPLIT_ORDER5, 2, "split of an order-5 entry into four leaves vs lookups");
	race(X_SPLIT_LEAF, 2, "split of an order-2 entry in its leaf vs lookups");
	race(X_REUSE, 2, "erase/store cycles (leaf freed and reused) vs lookups");
	return check_done();
}
