/*
 * test_detectors.c - detectors fired by a second misuse each: every case
 * is a small private scenario that breaks one rule in a way the model
 * tests (test_z1_page, test_z2_oracles, the zoo) do not, run serially, and
 * the test checks the kind of the report (and that the correct use next
 * to it is clean). One ctest per case (detectors_CASE), so that the
 * mutation tier (tools/ci/mutants) sees each detector caught by two
 * independent tests.
 *
 * Usage: test_detectors CASE | --list
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <weft/strategy.h>
#include <weft/mm/page.h>
#include <weft/mm/mapcount.h>
#include <weft/mm/lru.h>
#include <weft/mm/swap.h>
#include <weft/rcu.h>
#include <weft/refcount.h>

#include "check.h"
#include "../model_driver.h"

enum {
	D_CLEAN,             /* pages and lists used correctly: no report */
	D_PAGE_LEAK_UNOWNED, /* of two pages, the second is owned by nobody */
	D_INC_FROM_FROZEN,   /* get_page() on a page frozen to 0 */
	D_LIST_ADD_STALE,    /* list_add after a neighbour's pointer went stale */
	D_LIST_ADD_TWICE,    /* list_add of the entry that is already first */
	D_LIST_DEL_TWICE,    /* list_del of a poisoned (deleted) entry */
	D_LIST_DEL_STALE,    /* list_del when a neighbour no longer points back */
	D_LRU_FLAG_ONLY,     /* PG_lru set on a page never put on a list */
	D_LRU_TAKEN_OFF,     /* a page unlinked from the LRU with PG_lru left set */
	D_SWAP_FREE_AFTER_PUT, /* swap_free() of a slot the swap cache freed */
	D_SWAP_FREE_PINNED,  /* swap_free() of a slot with no PTE reference */
	D_LIVELOCK_ALONE,    /* one thread polls a flag nobody will set */
	D_LIVELOCK_PINGPONG, /* two threads each wait for the other to move first */
	D_RCU_UNLOCK_NEVER,  /* rcu_read_unlock() by a thread that never entered */
	D_REFCOUNT_ADD_OVF,  /* refcount_add(2) from INT_MAX - 1 */
	D_REFCOUNT_SAT_UAF,  /* refcount_inc() on 0 (host): reported, and saturated */
	D_LOCKDEP_CLASS_CYCLE, /* la[0] -> lb, lb -> la[1]: la[] one class (one init site) */
	D_LOCKDEP_ONE_CLASS, /* la[0] -> la[1], la[1] -> la[0]: nested in one class */
	D_UAF_LAST_WORD,     /* kfree() of an object, then a read of its last word */
	D_LOCKDEP_THREE_CYCLE, /* la[0] -> la[1], la[1] -> lb; lb -> la[0]: la[] instances */
	D_BH_ENABLE_UNBALANCED, /* local_bh_enable() with bottom halves enabled */
	D_PAGE_LEAK_LAST,    /* the last page of the mm allocated and owned by nobody */
	D_MAPPED_FREE,       /* the last put of a page a page table still maps */
	D_NR
};

struct dw {
	unsigned mode;
	struct weft_mm mm;
	struct weft_lru lru;
	struct weft_swap_info si;
	struct weft_list_head head, a, b;
	struct weft_page *kept;
	uint32_t owned_mask;   /* pages owned (any count), by number */
	int flag[2];
	refcount_t rc;
	spinlock_t la[2], lb;
	struct { int head, pad[6], tail; } obj;
	struct weft_mapcounts maps;
};

static void dw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct dw *W = w;

	(void)wl;
	W->mode = variant;
	weft_mm_init(&W->mm, 8, false);
	weft_lru_init(&W->lru, &W->mm, WEFT_LRU_2_4_19, false);
	weft_swap_init(&W->si, &W->mm, 8, 0, WEFT_SWAP_FREE_BATCH_V3);
	weft_list_init(&W->head);
	weft_mapcounts_init(&W->maps, &W->mm);
	refcount_set(&W->rc, 1);
	if (variant == D_REFCOUNT_SAT_UAF) {
		refcount_set(&W->rc, 0);
		refcount_inc(&W->rc);
	}
	if (variant == D_LOCKDEP_THREE_CYCLE) {
		/* three classes: la[] classed by instance (no init) */
		W->la[0] = W->la[1] = (spinlock_t){ 0 };
	} else {
		for (unsigned i = 0; i < 2; i++)
			spin_lock_init(&W->la[i]);   /* one site: one lockdep class */
	}
	spin_lock_init(&W->lb);
}

/* inner taken and released inside outer: the order outer -> inner, the
 * lockdep cases' unit. A macro: the locks' sites stay dw_thread()'s, with
 * the same texts ("spin_lock(x)"...) as written out. */
#define LOCK_NESTED(outer, inner)  \
	do {                       \
		spin_lock(outer);   \
		spin_lock(inner);   \
		spin_unlock(inner); \
		spin_unlock(outer); \
	} while (0)

static void dw_thread(void *w, unsigned tid)
{
	struct dw *W = w;
	struct weft_mm *mm = &W->mm;
	struct weft_page *p;
	int off;

	if (W->mode == D_LIVELOCK_PINGPONG) {
		/* each waits for the other's flag before raising its own */
		for (unsigned i = 0; i < 100000 && !READ_ONCE(W->flag[!tid]); i++)
			;
		WRITE_ONCE(W->flag[tid], 1);
		return;
	}
	if (W->mode == D_LOCKDEP_CLASS_CYCLE || W->mode == D_LOCKDEP_ONE_CLASS) {
		spinlock_t *x = &W->la[tid], *y = W->mode == D_LOCKDEP_ONE_CLASS ? &W->la[!tid] : &W->lb;
		if (tid && W->mode == D_LOCKDEP_CLASS_CYCLE) {
			x = &W->lb;
			y = &W->la[1];
		}
		LOCK_NESTED(x, y);
		return;
	}
	if (W->mode == D_LOCKDEP_THREE_CYCLE) {
		/* A -> B and B -> C by T0, C -> A by T1: a cycle of three
		 * classes, no two of which were taken in both orders */
		spinlock_t *a = &W->la[0], *b = &W->la[1], *c = &W->lb;
		if (tid == 0) {
			LOCK_NESTED(a, b);
			LOCK_NESTED(b, c);
		} else {
			LOCK_NESTED(c, a);
		}
		return;
	}
	if (W->mode == D_UAF_LAST_WORD) {
		if (tid)
			return;
		WRITE_ONCE(W->obj.tail, 1);
		weft_kfree(&W->obj);
		(void)READ_ONCE(W->obj.tail);   /* the last word of what was freed */
		return;
	}
	if (tid)
		return;
	switch (W->mode) {
	case D_CLEAN:
		p = weft_page_alloc(mm);
		weft_get_page(mm, p);
		__weft_put_page(mm, p);
		W->kept = p;
		weft_list_add(&W->a, &W->head);
		weft_list_add_tail(&W->b, &W->head);
		weft_list_del(&W->a);
		weft_list_del(&W->b);
		break;
	case D_PAGE_LEAK_UNOWNED:
		W->kept = weft_page_alloc(mm);
		weft_page_alloc(mm);
		break;
	case D_INC_FROM_FROZEN:
		p = weft_page_alloc(mm);
		W->kept = p;
		weft_page_ref_freeze(mm, p, 1);
		weft_get_page(mm, p);
		break;
	case D_LIST_ADD_STALE:
		weft_list_add(&W->a, &W->head);
		WRITE_ONCE(W->a.prev, &W->b);   /* a no longer points back at head */
		weft_list_add(&W->b, &W->head);
		break;
	case D_LIST_ADD_TWICE:
		weft_list_add(&W->a, &W->head);
		weft_list_add(&W->a, &W->head);
		break;
	case D_LIST_DEL_TWICE:
		weft_list_add(&W->a, &W->head);
		weft_list_del(&W->a);
		weft_list_del(&W->a);
		break;
	case D_LIST_DEL_STALE:
		weft_list_add(&W->a, &W->head);
		weft_list_add(&W->b, &W->head);   /* head, b, a */
		WRITE_ONCE(W->head.next, &W->a);  /* head skips b */
		weft_list_del(&W->b);
		break;
	case D_LRU_FLAG_ONLY:
		p = weft_page_alloc(mm);
		W->kept = p;
		weft_page_set(p, lru);
		break;
	case D_LRU_TAKEN_OFF:
		p = weft_page_alloc(mm);
		W->kept = p;
		weft_lru_cache_add(&W->lru, p);
		spin_lock(&W->lru.lock);
		weft_list_del(&p->lru);           /* off the list, PG_lru still set */
		spin_unlock(&W->lru.lock);
		break;
	case D_SWAP_FREE_AFTER_PUT:
		off = weft_swap_alloc(&W->si, 0);
		weft_put_swap_folio(&W->si, (unsigned)off, 1);
		weft_swap_free(&W->si, (unsigned)off);
		break;
	case D_SWAP_FREE_PINNED:
		off = weft_swap_alloc(&W->si, 0);
		weft_swap_free(&W->si, (unsigned)off);
		weft_put_swap_folio(&W->si, (unsigned)off, 1);
		break;
	case D_RCU_UNLOCK_NEVER:
		rcu_read_unlock();
		break;
	case D_REFCOUNT_ADD_OVF:
		refcount_set(&W->rc, INT_MAX - 1);
		refcount_add(2, &W->rc);
		break;
	case D_BH_ENABLE_UNBALANCED:
		local_bh_disable();
		local_bh_enable();
		local_bh_enable();   /* one more than disabled */
		break;
	case D_PAGE_LEAK_LAST:
		/* every page allocated, the last one owned by nobody (the
		 * leak at the other end from page-leak-unowned's) */
		for (unsigned i = 0; i < mm->nr_pages; i++)
			(void)weft_page_alloc(mm);
		W->owned_mask = (1u << (mm->nr_pages - 1)) - 1;
		break;
	case D_LIVELOCK_ALONE:
		for (unsigned i = 0; i < 100000 && !READ_ONCE(W->flag[0]); i++)
			;
		break;
	case D_MAPPED_FREE:
		/* a PTE maps it (page_add_anon_rmap), the owner's put is the last */
		p = weft_page_alloc(mm);
		weft_page_add_rmap(&W->maps, mm, p);
		if (weft_put_page_testzero(mm, p))
			weft_page_free(mm, p);
		break;
	}
}

static unsigned dw_owned(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct dw *W = ctx;

	return p == W->kept || (W->owned_mask >> weft_page_nr(mm, p) & 1) ? WEFT_MM_OWNERS_ANY : 0;
}

static void dw_quiesce(void *w)
{
	struct dw *W = w;

	weft_lru_audit(&W->lru);
	/* the swap audit also audits the pages (owned by page tables: none) */
	if (W->mode == D_SWAP_FREE_AFTER_PUT || W->mode == D_SWAP_FREE_PINNED)
		weft_swap_audit(&W->si, NULL, 0);
	else
		weft_mm_audit_leaks(&W->mm, dw_owned, W);
}

static void dw_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct dw *W = w;

	if (!weft_swap_describe(&W->si, w, off, buf, n) &&
	    !weft_mapcounts_describe(&W->maps, w, off, buf, n))
		weft_mm_describe(&W->mm, w, off, buf, n);
}

static const char *const dw_files[] = { "test_detectors.c", NULL };

static const struct weft_variant dw_variants[D_NR] = {
	WEFT_TEST_CASE("clean", WEFT_KIND_NONE),
	WEFT_TEST_CASE("page-leak-unowned", WEFT_KIND_PAGE_LEAK),
	WEFT_TEST_CASE("inc-from-frozen", WEFT_KIND_INC_FROM_ZERO),
	WEFT_TEST_CASE("list-add-stale", WEFT_KIND_LIST_CORRUPTION),
	WEFT_TEST_CASE("list-add-twice", WEFT_KIND_LIST_CORRUPTION),
	WEFT_TEST_CASE("list-del-twice", WEFT_KIND_LIST_CORRUPTION),
	WEFT_TEST_CASE("list-del-stale", WEFT_KIND_LIST_CORRUPTION),
	WEFT_TEST_CASE("lru-flag-only", WEFT_KIND_LRU_STATE),
	WEFT_TEST_CASE("lru-taken-off", WEFT_KIND_LRU_STATE),
	WEFT_TEST_CASE("swap-free-after-put", WEFT_KIND_SWAP_FREE_FREE),
	WEFT_TEST_CASE("swap-free-pinned", WEFT_KIND_SWAP_UNDERFLOW),
	WEFT_TEST_CASE("livelock-alone", WEFT_KIND_LIVELOCK),
	WEFT_TEST_CASE("livelock-pingpong", WEFT_KIND_LIVELOCK),
	WEFT_TEST_CASE("rcu-unlock-never", WEFT_KIND_RCU_MISUSE),
	WEFT_TEST_CASE("refcount-add-ovf", WEFT_KIND_REFCOUNT_SATURATED),
	WEFT_TEST_CASE("refcount-sat-uaf", WEFT_KIND_INC_FROM_ZERO),
	WEFT_TEST_CASE("lockdep-class-cycle", WEFT_KIND_LOCK_ORDER),
	WEFT_TEST_CASE("lockdep-one-class", WEFT_KIND_NONE),
	WEFT_TEST_CASE("uaf-last-word", WEFT_KIND_USE_AFTER_FREE),
	WEFT_TEST_CASE("lockdep-three-cycle", WEFT_KIND_LOCK_ORDER),
	WEFT_TEST_CASE("bh-enable-unbalanced", WEFT_KIND_BUG_ON),
	WEFT_TEST_CASE("page-leak-last", WEFT_KIND_PAGE_LEAK),
	WEFT_TEST_CASE("mapped-free", WEFT_KIND_BAD_FREE),
};

static const struct weft_scenario dw_sc = {
	.name = "test-detectors", .summary = "each detector fired by a second misuse",
	.source = "tests/detectors", .nr_cpus = 2, .nr_threads = 2, .world_size = sizeof(struct dw),
	WEFT_TEST_NOP_OP, .decision_hint = 64, .files = dw_files,
	WEFT_TEST_HOOKS(dw), .quiesce = dw_quiesce, .describe = dw_describe,
};

/* ------------------------------------- cases with an interrupt handler */

enum {
	X_IRQ_PREEMPT_LEAK,  /* a hard handler returns with preemption disabled */
	X_SOFTIRQ_LOCK,      /* a lock taken in a softirq and by a task with bottom halves on */
	X_NR
};

struct xw {
	unsigned mode;
	spinlock_t l;
	int done;
};

static void xw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct xw *W = w;

	(void)wl;
	W->mode = variant;
	spin_lock_init(&W->l);
}

static void xw_thread(void *w, unsigned tid)
{
	struct xw *W = w;

	(void)tid;
	if (W->mode == X_SOFTIRQ_LOCK) {
		spin_lock(&W->l);   /* SOFTIRQ-ON: spin_lock_bh() would be right */
		spin_unlock(&W->l);
	}
	WRITE_ONCE(W->done, 1);
}

static void xw_irq(void *w, unsigned irq)
{
	struct xw *W = w;

	(void)irq;
	if (W->mode == X_IRQ_PREEMPT_LEAK) {
		preempt_disable();   /* and no preempt_enable() */
	} else {
		spin_lock(&W->l);    /* IN-SOFTIRQ */
		spin_unlock(&W->l);
	}
}

static const struct weft_irq xw_hard[] = { { "leaky", WEFT_HARDIRQ, 1, xw_irq, true } };
static const struct weft_irq xw_soft[] = { { "net_rx", WEFT_SOFTIRQ, 1, xw_irq, true } };

static const struct weft_variant xw_variants[X_NR] = {
	WEFT_TEST_CASE("irq-preempt-leak", WEFT_KIND_BUG_ON),
	WEFT_TEST_CASE("softirq-lock-unsafe", WEFT_KIND_IRQ_LOCK_INVERSION),
};

static struct weft_scenario xw_sc = {
	.name = "test-detectors-irq",
	.summary = "detectors fired by a second misuse, with an interrupt handler",
	.source = "tests/detectors", .nr_cpus = 1, .nr_threads = 1, .world_size = sizeof(struct xw),
	WEFT_TEST_NOP_OP, .decision_hint = 64, .files = dw_files,
	WEFT_TEST_HOOKS(xw), .nr_irqs = 1,
};

/* Every serial order of the thread and the handler (dfs, bound 1: the
 * handler before, inside and after the thread) ends in the report. */
static int run_irq_case(unsigned v)
{
	static struct weft_dfs d;
	struct weft_exec_result r;
	struct weft_run_opts o = { .sc = &xw_sc, .variant = v, .step_budget = 2000,
				   .checks = WEFT_CHECKS_DEFAULT };
	unsigned n = 0, bad = 0;

	xw_sc.irqs = v == X_IRQ_PREEMPT_LEAK ? xw_hard : xw_soft;
	weft_dfs_init(&d, &xw_sc, 1, NULL, 0);
	while (n < 1000 && weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		n++;
		if (r.kind != xw_variants[v].expect_kind && bad++ < 3)
			CHECK(0, "%s: expected %s, got %s (%s)", xw_variants[v].name,
			      weft_kind_name(xw_variants[v].expect_kind), weft_kind_name(r.kind),
			      r.report.msg);
		else if (n == 1)
			printf("%-20s %-18s %s: %s\n", xw_variants[v].name, weft_kind_name(r.kind),
			       r.report.object, r.report.msg);
	}
	CHECK(n >= 2 && d.complete && !bad, "%s: %u of %u executions without the report",
	      xw_variants[v].name, bad, n);
	return check_done();
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";

	if (!strcmp(name, "--list")) {
		for (unsigned v = 0; v < D_NR; v++)
			printf("%s\n", dw_variants[v].name);
		for (unsigned v = 0; v < X_NR; v++)
			printf("%s\n", xw_variants[v].name);
		return 0;
	}
	for (unsigned v = 0; v < X_NR; v++)
		if (!strcmp(name, xw_variants[v].name))
			return run_irq_case(v);
	for (unsigned v = 0; v < D_NR; v++) {
		if (strcmp(name, dw_variants[v].name))
			continue;
		struct weft_bytes b;
		struct weft_exec_result r;
		/* a small step budget: the livelock cases poll 100000 times */
		bool ld = v == D_LOCKDEP_CLASS_CYCLE || v == D_LOCKDEP_ONE_CLASS ||
			  v == D_LOCKDEP_THREE_CYCLE;
		struct weft_run_opts o = { .sc = &dw_sc, .variant = v, .step_budget = 2000,
					   .checks = ld ? WEFT_CHECKS_DEFAULT : 0 };
		weft_bytes_init(&b, &dw_sc, NULL, 0);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute %s", name);
		CHECK(r.kind == dw_variants[v].expect_kind, "%s: expected %s, got %s (%s)", name,
		      weft_kind_name(dw_variants[v].expect_kind), weft_kind_name(r.kind),
		      r.report.msg);
		if (v == D_RCU_UNLOCK_NEVER)
			CHECK(strstr(r.report.msg, "outside an RCU read-side section") &&
			      strstr(r.report.msg, "never entered"), "%s: %s", name, r.report.msg);
		if (v == D_REFCOUNT_SAT_UAF) {
			const struct dw *W = weft_last_world();
			CHECK(W->rc.refs.counter == REFCOUNT_SATURATED,
			      "%s: the counter is %d after the warning, not saturated", name,
			      W->rc.refs.counter);
		}
		printf("%-20s %-18s %s%s%s\n", name, weft_kind_name(r.kind), r.report.object,
		       r.kind ? ": " : "", r.report.msg);
		if (ld) {
			/* as replay files recorded before setup classes run: the
			 * locks setup initialised are classes of their own */
			struct weft_exec_result old;
			o.checks = WEFT_CHECK_LOCKDEP | WEFT_CHECK_LOCKDEP_IRQ_ORDER;
			weft_bytes_init(&b, &dw_sc, NULL, 0);
			CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &old) == 0, "execute %s", name);
			enum weft_kind want = v == D_LOCKDEP_CLASS_CYCLE ? WEFT_KIND_NONE
									 : WEFT_KIND_LOCK_ORDER;
			CHECK(old.kind == want, "%s without setup classes: expected %s, got %s (%s)",
			      name, weft_kind_name(want), weft_kind_name(old.kind), old.report.msg);
		}
		/* the clean case stays clean under every schedule of bound 2 */
		if (v == D_CLEAN) {
			static struct weft_dfs d;
			unsigned n = 0, bad = 0;
			weft_dfs_init(&d, &dw_sc, 2, NULL, 0);
			while (n < 10000 && weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
				n++;
				bad += r.kind != WEFT_KIND_NONE;
			}
			CHECK(bad == 0 && d.complete, "clean: %u of %u executions reported", bad, n);
		}
		return check_done();
	}
	fprintf(stderr, "usage: test_detectors CASE | --list (no case '%s')\n", name);
	return 2;
}
