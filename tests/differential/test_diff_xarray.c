/*
 * test_diff_xarray.c - xarray-lite against a reference map.
 *
 * Random sequences of every operation of <weft/xarray.h> - xa_store,
 * xa_store_order (orders 0-5), xa_erase, xa_cmpxchg, xa_insert, xa_split,
 * xa_load, xa_get_order - over indices 0..63 and a few beyond, with value
 * entries, pointers into the world, NULL and internal entries, and for
 * xa_cmpxchg every kind of `old` (the current entry, NULL, another value,
 * another pointer) against every kind of new entry; plus an exhaustive
 * pass over every (operation, index kind, old kind, entry kind) on small
 * states with multi-index entries at both levels. After each operation
 * its return value and the whole array (xa_load and xa_get_order of every
 * index) must be what the reference gives.
 *
 * The reference is the documented semantics as a plain array of
 * (first index, order, entry) ranges, not a tree: an entry of order k
 * covers the 2^k aligned indices around its index; storing into any index
 * of a larger multi-index entry replaces the whole entry (it keeps its
 * range), erasing one index erases it; a store of order k over smaller
 * entries replaces them all and returns what was at its first index;
 * xa_cmpxchg stores only if the current entry is `old` (NULL included: an
 * empty index is not "anything"); xa_insert only into an empty index;
 * xa_split turns the entry covering an index into entries of a smaller
 * order holding the given entry. Internal entries are refused (-EINVAL)
 * by every store, as the kernel's xa_is_advanced() check does.
 *
 * The program runs in one model thread with rcu_barrier() after every
 * operation (freed nodes go back to the pool: -ENOMEM cannot happen).
 * WEFT_DIFF_SIZE=large runs more programs; WEFT_DIFF_SEED another
 * sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>
#include <weft/xarray.h>

#include "check.h"
#include "lockstep.h"

#define NIDX 64
#define MAXOPS 40

enum opk { X_STORE, X_STORE_ORDER, X_ERASE, X_CMPXCHG, X_INSERT, X_SPLIT, X_LOAD, X_ORDER, OP__N };
static const char *const opname[OP__N] = {
	"xa_store", "xa_store_order", "xa_erase", "xa_cmpxchg", "xa_insert", "xa_split",
	"xa_load", "xa_get_order",
};

/* entries: a code the world turns into a pointer (so programs are
 * printable): 0 NULL, 1..8 xa_mk_value(code), 9..16 &obj[code - 9], 17 an
 * internal entry */
#define E_NULL 0
#define E_INTERNAL 17
#define NE 18

struct op {
	uint8_t k;
	uint8_t index;       /* 0..70 (64.. beyond the array) */
	uint8_t order;       /* store_order: the order; split: the new order */
	uint8_t entry, old;  /* entry codes */
	uint8_t old_current; /* cmpxchg: old is whatever the index holds now */
};

struct prog {
	unsigned n;
	struct op ops[MAXOPS];
	/* the state setup builds first: entries (index, order, code) */
	unsigned ninit;
	struct op init[8];
};

static struct prog P;

struct world {
	struct xarray xa;
	uint32_t obj[8];
};

/* ----------------------------------------------------------- the reference */

static struct {
	int cov[NIDX];          /* first index of the entry covering i, or -1 */
	uint8_t ord[NIDX];      /* at a first index */
	void *val[NIDX];
} R;

static void ref_reset(void)
{
	for (unsigned i = 0; i < NIDX; i++) {
		R.cov[i] = -1;
		R.val[i] = NULL;
		R.ord[i] = 0;
	}
}

static void *errp(int err)
{
	return xa_mk_internal((unsigned long)-(long)err);
}

static void ref_erase_entry(int base)
{
	unsigned n = 1u << R.ord[base];

	for (unsigned i = (unsigned)base; i < (unsigned)base + n; i++)
		R.cov[i] = -1;
	R.val[base] = NULL;
}

static void ref_put(unsigned base, unsigned order, void *e)
{
	for (unsigned i = base; i < base + (1u << order); i++)
		R.cov[i] = (int)base;
	R.ord[base] = (uint8_t)order;
	R.val[base] = e;
}

static void *ref_load(unsigned long i)
{
	return i < NIDX && R.cov[i] >= 0 ? R.val[R.cov[i]] : NULL;
}

static void *ref_store_order(unsigned long i, unsigned k, void *e)
{
	if (i >= NIDX || k > WEFT_XA_MAX_ORDER || (e && xa_is_internal(e)))
		return errp(22);
	unsigned base = (unsigned)i & ~((1u << k) - 1), n = 1u << k;
	int x = R.cov[base];
	if (x >= 0 && R.ord[x] > k) {
		/* inside a larger entry: all of it, its range kept */
		void *old = R.val[x];
		if (e)
			R.val[x] = e;
		else
			ref_erase_entry(x);
		return old;
	}
	void *old = ref_load(base);
	for (unsigned j = base; j < base + n; j++)
		if (R.cov[j] >= 0)
			ref_erase_entry(R.cov[j]);
	if (e)
		ref_put(base, k, e);
	return old;
}

static void *ref_cmpxchg(unsigned long i, void *old, void *e)
{
	if (i >= NIDX || (e && xa_is_internal(e)))
		return errp(22);
	void *curr = ref_load(i);
	if (curr == old)
		ref_store_order(i, 0, e);
	return curr;
}

static int ref_insert(unsigned long i, void *e)
{
	if (!e || i >= NIDX || xa_is_internal(e))
		return -22;
	return ref_load(i) ? -16 : (ref_store_order(i, 0, e), 0);
}

static int ref_split(unsigned long i, unsigned new_order, void *e)
{
	if (i >= NIDX || !e || xa_is_internal(e))
		return -22;
	int x = R.cov[i];
	if (x < 0 || R.ord[x] <= new_order)
		return -22;
	unsigned order = R.ord[x];
	ref_erase_entry(x);
	for (unsigned b = (unsigned)x; b < (unsigned)x + (1u << order); b += 1u << new_order)
		ref_put(b, new_order, e);
	return 0;
}

/* ------------------------------------------------------------- the program */

static struct world *Wp;

static void *entry_of(unsigned code)
{
	if (code == E_NULL)
		return NULL;
	if (code <= 8)
		return xa_mk_value(code);
	if (code < E_INTERNAL)
		return &Wp->obj[code - 9];
	return xa_mk_internal(5);
}

static char fail_msg[400];
static unsigned fail_op;

static void failf(unsigned i, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(unsigned i, const char *fmt, ...)
{
	va_list ap;

	if (fail_msg[0])
		return;
	fail_op = i;
	va_start(ap, fmt);
	vsnprintf(fail_msg, sizeof(fail_msg), fmt, ap);
	va_end(ap);
}

/* A pointer as the program names it. */
static void name_of(const void *p, char *buf, size_t n)
{
	if (!p)
		snprintf(buf, n, "NULL");
	else if (xa_is_value(p))
		snprintf(buf, n, "value %lu", xa_to_value(p));
	else if (xa_is_err(p))
		snprintf(buf, n, "error %d", xa_err(p));
	else if (xa_is_internal(p))
		snprintf(buf, n, "internal %lu", xa_to_internal(p));
	else if ((const char *)p >= (const char *)Wp->obj &&
		 (const char *)p < (const char *)(Wp->obj + 8))
		snprintf(buf, n, "&obj[%ld]", (long)((const uint32_t *)p - Wp->obj));
	else
		snprintf(buf, n, "%p", p);
}

static void compare_all(unsigned i)
{
	for (unsigned long x = 0; x < NIDX + 2 && !fail_msg[0]; x++) {
		void *got = xa_load(&Wp->xa, x), *want = ref_load(x);
		if (got != want) {
			char a[32], b[32];
			name_of(got, a, sizeof(a));
			name_of(want, b, sizeof(b));
			failf(i, "then xa_load(%lu) is %s, the reference %s", x, a, b);
		}
		int og = xa_get_order(&Wp->xa, x);
		int ow = x < NIDX && R.cov[x] >= 0 ? R.ord[R.cov[x]] : 0;
		if (og != ow)
			failf(i, "then xa_get_order(%lu) is %d, the reference %d", x, og, ow);
	}
}

static void run_op(unsigned i, const struct op *o)
{
	void *e = entry_of(o->entry), *got = NULL, *want = NULL;
	int ig = 0, iw = 0;
	bool ptr = true;

	switch (o->k) {
	case X_STORE:
		got = xa_store(&Wp->xa, o->index, e, 0);
		want = ref_store_order(o->index, 0, e);
		break;
	case X_STORE_ORDER:
		got = xa_store_order(&Wp->xa, o->index, o->order, e, 0);
		want = ref_store_order(o->index, o->order, e);
		break;
	case X_ERASE:
		got = xa_erase(&Wp->xa, o->index);
		want = ref_store_order(o->index, 0, NULL);
		break;
	case X_CMPXCHG: {
		void *old = o->old_current ? ref_load(o->index) : entry_of(o->old);
		got = xa_cmpxchg(&Wp->xa, o->index, old, e, 0);
		want = ref_cmpxchg(o->index, old, e);
		break;
	}
	case X_INSERT:
		ptr = false;
		ig = xa_insert(&Wp->xa, o->index, e, 0);
		iw = ref_insert(o->index, e);
		break;
	case X_SPLIT:
		ptr = false;
		ig = xa_split(&Wp->xa, o->index, o->order, e);
		iw = ref_split(o->index, o->order, e);
		break;
	case X_LOAD:
		got = xa_load(&Wp->xa, o->index);
		want = ref_load(o->index);
		break;
	case X_ORDER:
		ptr = false;
		ig = xa_get_order(&Wp->xa, o->index);
		iw = o->index < NIDX && R.cov[o->index] >= 0 ? R.ord[R.cov[o->index]] : 0;
		break;
	}
	if (ptr && got != want) {
		char a[32], b[32];
		name_of(got, a, sizeof(a));
		name_of(want, b, sizeof(b));
		failf(i, "returns %s, the reference %s", a, b);
	} else if (!ptr && ig != iw) {
		failf(i, "returns %d, the reference %d", ig, iw);
	}
	rcu_barrier();   /* freed nodes back in the pool */
	compare_all(i);
}

WEFT_TEST_SETUP_WORLD(xd, struct world)
{
	Wp = W;
	xa_init(&W->xa);
}

static void xd_thread(void *w, unsigned tid)
{
	(void)tid;
	Wp = w;
	ref_reset();
	for (unsigned i = 0; i < P.ninit; i++) {
		const struct op *o = &P.init[i];
		xa_store_order(&Wp->xa, o->index, o->order, entry_of(o->entry), 0);
		ref_store_order(o->index, o->order, entry_of(o->entry));
	}
	rcu_barrier();
	compare_all(0);
	for (unsigned i = 0; i < P.n && !fail_msg[0]; i++)
		run_op(i, &P.ops[i]);
}

static struct weft_scenario xsc = {
	.name = "diff-xarray", .summary = "differential: xarray-lite", LS_ONE_PROGRAM,
	.nr_cpus = 1, .nr_threads = 1, .world_size = sizeof(struct world), .setup = xd_setup,
	.thread = xd_thread, .step_budget = 50000000,
};

/* ------------------------------------------------------------ generation */

static void print_op(FILE *f, const struct op *o)
{
	static const char *const en[NE] = { "NULL", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8",
					    "&obj0", "&obj1", "&obj2", "&obj3", "&obj4", "&obj5",
					    "&obj6", "&obj7", "internal" };
	fprintf(f, " %s(%u", opname[o->k], o->index);
	if (o->k == X_STORE_ORDER || o->k == X_SPLIT)
		fprintf(f, ", order %u", o->order);
	if (o->k == X_CMPXCHG)
		fprintf(f, ", old %s", o->old_current ? "current" : en[o->old]);
	if (o->k <= X_SPLIT && o->k != X_ERASE)
		fprintf(f, ", %s", en[o->entry]);
	fprintf(f, ")");
}

static void print_prog(FILE *f)
{
	fprintf(f, "   setup:");
	for (unsigned i = 0; i < P.ninit; i++)
		print_op(f, &P.init[i]);
	fprintf(f, "\n   ops:");
	for (unsigned i = 0; i < P.n; i++)
		print_op(f, &P.ops[i]);
	fprintf(f, "\n");
}

static unsigned gen_index(void)
{
	unsigned r = ls_rnd(100);

	if (r < 3)
		return 64 + ls_rnd(7);           /* beyond the array */
	if (r < 60)
		return ls_rnd(16);               /* crowd two leaves */
	return ls_rnd(NIDX);
}

static unsigned gen_entry(void)
{
	unsigned r = ls_rnd(100);

	if (r < 10)
		return E_NULL;
	if (r < 12)
		return E_INTERNAL;
	if (r < 60)
		return 1 + ls_rnd(8);
	return 9 + ls_rnd(8);
}

static void gen_op(struct op *o)
{
	unsigned r = ls_rnd(100);

	memset(o, 0, sizeof(*o));
	o->k = r < 15 ? X_STORE : r < 35 ? X_STORE_ORDER : r < 45 ? X_ERASE : r < 65 ? X_CMPXCHG
	       : r < 75 ? X_INSERT : r < 90 ? X_SPLIT : r < 95 ? X_LOAD : X_ORDER;
	o->index = (uint8_t)gen_index();
	o->entry = (uint8_t)gen_entry();
	o->order = (uint8_t)(o->k == X_SPLIT ? ls_rnd(5) : ls_rnd(7));   /* 6: too large */
	o->old = (uint8_t)gen_entry();
	o->old_current = ls_rnd(2);
}

static void gen(void)
{
	memset(&P, 0, sizeof(P));
	P.ninit = ls_rnd(4);
	for (unsigned i = 0; i < P.ninit; i++) {
		struct op *o = &P.init[i];
		o->k = X_STORE_ORDER;
		o->index = (uint8_t)ls_rnd(NIDX);
		o->order = (uint8_t)ls_rnd(6);
		o->entry = (uint8_t)(1 + ls_rnd(16));
	}
	P.n = 4 + ls_rnd(MAXOPS - 4);
	for (unsigned i = 0; i < P.n; i++)
		gen_op(&P.ops[i]);
}

/* ------------------------------------------------------------ the checks */

static unsigned failures, nr_programs, nr_ops;
static long cur_prog;

static void run_prog(void)
{
	struct weft_run_opts o = { .sc = &xsc };
	struct weft_exec_result r;
	struct weft_bytes b;

	fail_msg[0] = 0;
	weft_bytes_init(&b, &xsc, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
	nr_programs++;
	nr_ops += P.n;
	bool bad = fail_msg[0] || r.kind != WEFT_KIND_NONE;
	CHECK(!bad, "program %ld: %s%s%s", cur_prog, r.kind ? weft_kind_name(r.kind) : "",
	      r.kind ? ": " : "", r.kind ? r.report.msg : fail_msg);
	if (bad && failures++ < 5) {
		print_prog(stderr);
		if (fail_msg[0]) {
			fprintf(stderr, "   at op %u:", fail_op);
			print_op(stderr, &P.ops[fail_op]);
			fprintf(stderr, "\n");
		}
	}
}

/* Every operation, with every kind of index, old and entry, on states
 * holding multi-index entries at both levels. */
static void exhaustive(void)
{
	static const struct op states[][3] = {
		{ { X_STORE_ORDER, 8, 3, 1, 0, 0 }, { X_STORE_ORDER, 20, 2, 9, 0, 0 },
		  { X_STORE_ORDER, 3, 0, 2, 0, 0 } },
		{ { X_STORE_ORDER, 0, 5, 10, 0, 0 }, { X_STORE_ORDER, 33, 1, 3, 0, 0 },
		  { X_STORE_ORDER, 40, 4, 4, 0, 0 } },
		{ { X_STORE_ORDER, 16, 4, 11, 0, 0 }, { X_STORE_ORDER, 5, 0, 5, 0, 0 },
		  { X_STORE_ORDER, 6, 1, 6, 0, 0 } },
	};
	static const uint8_t idx[] = { 0, 3, 5, 6, 8, 11, 16, 20, 22, 23, 33, 40, 47, 63, 64, 70 };
	static const uint8_t ent[] = { E_NULL, 1, 2, 9, 10, E_INTERNAL };
	unsigned runs = 0;

	for (unsigned s = 0; s < sizeof(states) / sizeof(states[0]); s++)
		for (unsigned k = 0; k < OP__N; k++)
			for (unsigned ix = 0; ix < sizeof(idx); ix++)
				for (unsigned en = 0; en < sizeof(ent); en++)
					for (unsigned ol = 0; ol < (k == X_CMPXCHG ? 7u : 1u); ol++)
						for (unsigned od = 0; od < (k == X_STORE_ORDER || k == X_SPLIT ? 6u : 1u); od++) {
							memset(&P, 0, sizeof(P));
							P.ninit = 3;
							memcpy(P.init, states[s], sizeof(states[s]));
							struct op *o = &P.ops[P.n++];
							o->k = (uint8_t)k;
							o->index = idx[ix];
							o->entry = ent[en];
							o->order = (uint8_t)od;
							o->old_current = ol == 6;
							o->old = ol < 6 ? ent[ol] : 0;
							/* and a lookup-changing follow-up */
							P.ops[P.n++] = (struct op){ X_STORE, idx[ix], 0, 3, 0, 0 };
							cur_prog = -1 - (long)runs++;
							if (failures < 20)   /* a broken xarray fails fast */
								run_prog();
						}
	printf("exhaustive: %u (state, operation, index, old, entry, order) cases\n", runs);
}

int main(void)
{
	unsigned nprog = ls_large() ? 60000 : 2000;

	weft_machine_init();
	exhaustive();
	ls_seed();
	for (unsigned p = 0; p < nprog && failures < 20; p++) {
		gen();
		cur_prog = p;
		run_prog();
	}
	printf("%u programs, %u operations in lock step with the reference map (%s size)\n",
	       nr_programs, nr_ops, ls_large() ? "large" : "quick");
	return check_done();
}
