/*
 * test_cause.c - the default race diagram shows the cause, not only the
 * failing object (issue 11, item 8). Three small models of the shapes new
 * users hit, each found by dfs at one preemption; in each, the decisive
 * event is an access the failure depends on that is not on the failing
 * field and is not the racing thread's last step before the preemption,
 * so a filter keyed on the failing object's counted fields hid it:
 *
 *  - stale compound_head(): get_page(tail) takes its reference on the head
 *    compound_head() returned; the split makes the tail its own head
 *    before put_page(tail), which drops a reference the tail never had.
 *    Decisive: T0's compound_head() read of the tail (-> the head) and the
 *    split's store that cleared it.
 *  - unlocked PageLRU test: isolate tests PG_lru without the LRU lock,
 *    then takes the lock and deletes the page another isolator deleted in
 *    between. Decisive: the unlocked test_bit() and the other isolator's
 *    __ClearPageLRU() (non-atomic: no read-modify-write on the flags).
 *  - xarray split: the split stores the second half's folio in the page
 *    cache before initialising it; a lookup finds it uninitialised.
 *    Decisive: the slot store and the lookup's slot load (both carry a
 *    pointer to the folio the BUG_ON names).
 *
 * Each check runs the default view (no --full) of the dfs-found race.
 */
#include <weft/kernel.h>
#include <weft/mm/folio.h>
#include <weft/xarray.h>

#include "diag_test.h"
#include "../model_driver.h"

/* ------------------------------------------------ stale compound_head */

struct ch_world {
	struct weft_mm mm;
	struct weft_page *head;
};

WEFT_TEST_SETUP_WORLD(ch, struct ch_world)
{
	weft_mm_init(&W->mm, 4, false);
	W->head = weft_compound_alloc(&W->mm, 1);   /* pages 0 (head) and 1 */
}

static void ch_thread(void *w, unsigned tid)
{
	struct ch_world *W = w;
	struct weft_mm *mm = &W->mm;
	struct weft_page *tail = W->head + 1;

	if (tid == 0) {
		/* get_page(tail) ... put_page(tail), each on compound_head() */
		struct weft_page *h = weft_compound_head(mm, tail);
		if (!weft_folio_try_get(mm, h))
			return;
		weft_folio_put(mm, weft_compound_head(mm, tail));
	} else {
		/* the bug: a split that does not freeze the head's count, then
		 * the owner drops its reference on each page */
		weft_split_compound(mm, W->head, 1);
		weft_folio_put(mm, tail);
		weft_folio_put(mm, W->head);
	}
}

/* The describe() of a world whose first field is its page model (this one
 * and lru_world): its offsets are the page model's. */
static void mm_first_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	weft_mm_describe(w, w, off, buf, n);
}
_Static_assert(offsetof(struct ch_world, mm) == 0, "mm_first_describe() reads mm at 0");

D_SCENARIO(ch_scn, ch, "diag-compound-head",
	   "test only: a stale compound_head()",
	   "stale-head", WEFT_KIND_USE_AFTER_FREE, 1, 2, 2,
	   WEFT_TEST_HOOKS(ch), .describe = mm_first_describe);

/* -------------------------------------------------- unlocked PageLRU */

struct lru_world {
	struct weft_mm mm;
	spinlock_t lru_lock;
	struct weft_list_head inactive;
	struct weft_page *page;
};

WEFT_TEST_SETUP_WORLD(lru, struct lru_world)
{
	weft_mm_init(&W->mm, 2, false);
	weft_list_init(&W->inactive);
	W->page = weft_page_alloc(&W->mm);
	__weft_page_set(W->page, lru);   /* a new page: nobody else sees it yet */
	weft_list_add(&W->page->lru, &W->inactive);
}

static void lru_thread(void *w, unsigned tid)
{
	struct lru_world *W = w;
	struct weft_page *p = W->page;

	if (tid == 0) {
		/* the bug: PageLRU tested before taking the lock */
		if (!weft_page_test(p, lru))
			return;
		weft_get_page(&W->mm, p);
		spin_lock(&W->lru_lock);
		__weft_page_clear(p, lru);
		weft_list_del(&p->lru);
		spin_unlock(&W->lru_lock);
		weft_put_page_testzero(&W->mm, p);
	} else {
		spin_lock(&W->lru_lock);
		if (weft_page_test(p, lru)) {
			__weft_page_clear(p, lru);
			weft_list_del(&p->lru);
		}
		spin_unlock(&W->lru_lock);
	}
}

static const struct weft_field lru_fields[] = {
	WEFT_FIELD(struct lru_world, lru_lock, "lru_lock"),
	WEFT_FIELD(struct lru_world, inactive, "inactive_list.next"),
	WEFT_FIELD(struct lru_world, inactive.prev, "inactive_list.prev"),
	{ 0, NULL },
};

_Static_assert(offsetof(struct lru_world, mm) == 0, "mm_first_describe() reads mm at 0");

D_SCENARIO(lru_scn, lru, "diag-unlocked-lru",
	   "test only: PageLRU tested without the LRU lock",
	   "unlocked-test", WEFT_KIND_LIST_CORRUPTION, 1, 2, 2,
	   WEFT_TEST_HOOKS(lru), .describe = mm_first_describe, .fields = lru_fields);

/* ------------------------------------------------------- xarray split */

struct xf {
	unsigned index, nr;
};

struct xsp_world {
	struct xarray xa;
	struct xf f[8];
};

WEFT_TEST_SETUP_WORLD(xsp, struct xsp_world)
{
	xa_init(&W->xa);
	WRITE_ONCE(W->f[4].index, 4u);
	WRITE_ONCE(W->f[4].nr, 4u);
	xa_store_order(&W->xa, 4, 2, &W->f[4], 0);
}

static void xsp_thread(void *w, unsigned tid)
{
	struct xsp_world *W = w;

	if (tid == 0) {
		/* filemap_get_entry(): re-check the slot after reading the
		 * folio (xas_reload()), so a folio that shrank is looked up
		 * again; a stable slot must hold a folio covering index 6 */
		for (;;) {
			struct xf *f = xa_load(&W->xa, 6);
			unsigned first = READ_ONCE(f->index), nr = READ_ONCE(f->nr);
			if (xa_load(&W->xa, 6) != f)
				continue;
			VM_BUG_ON_OBJ(6 < first || 6 >= first + nr, f);
			return;
		}
	} else {
		struct xf *head = &W->f[4], *half = &W->f[6];
		xa_lock(&W->xa);
		__xa_split(&W->xa, 4, 1, head);
		__xa_store(&W->xa, 6, half, 0);   /* the bug: published first */
		WRITE_ONCE(half->index, 6u);
		WRITE_ONCE(half->nr, 2u);
		WRITE_ONCE(head->nr, 2u);
		xa_unlock(&W->xa);
	}
}

static void xsp_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct xsp_world *W = w;
	uint32_t fo = offsetof(struct xsp_world, f);

	if (weft_xa_describe(&W->xa, w, off, buf, n))
		return;
	if (off >= fo && off < fo + sizeof(W->f))
		snprintf(buf, n, "folio %u ->%s", (off - fo) / (unsigned)sizeof(struct xf),
			 (off - fo) % sizeof(struct xf) ? "nr" : "index");
}

D_SCENARIO(xsp_scn, xsp, "diag-xa-split",
	   "test only: an xarray split publishes a folio before it is set up",
	   "publish-first", WEFT_KIND_BUG_ON, 1, 2, 2,
	   WEFT_TEST_HOOKS(xsp), .describe = xsp_describe);

/* ------------------------------------------------------------- checks */

/* Event i is decisive in the sense of this test: not the racing thread's
 * last step before a preemption (the old filter's only reach beyond the
 * failing object's counted fields). */
static bool not_before_switch(long i)
{
	size_t n;
	const struct weft_event *ev = weft_last_events(&n);

	if (i < 0 || (size_t)i + 1 >= n)
		return false;
	return !(ev[i + 1].flags & WEFT_EVF_PREEMPTED);
}

static struct d_run found(const struct weft_scenario *sc, enum weft_kind want)
{
	struct d_run run = d_dfs(sc, 0, 1, 0);

	CHECK(run.kind == want, "%s: dfs bound 1 found %s, want %s", sc->name,
	      weft_kind_name(run.kind), weft_kind_name(want));
	CHECK(run.r.preemptions == 1, "%s: %u preemptions", sc->name, run.r.preemptions);
	return run;
}

/* A row the diagram must keep: thread tid's event whose text has a (then
 * b, where b is not NULL); what names it in a failure. */
struct cause_row {
	unsigned tid;
	const char *a, *b, *what;
};

/* A scenario dfs bound 1 finds (kind, one preemption), T0's decisive step
 * (the first event of T0 with decisive, then decisive_b), the rows that
 * show the cause (up to four), and a text the diagram's rows contain. */
struct cause_case {
	const struct weft_scenario *sc;
	enum weft_kind kind;
	const char *decisive, *decisive_b, *decisive_what;
	struct cause_row kept[4];
	const char *row_text;
};

static const struct cause_case cases[] = {
	{ &ch_scn, WEFT_KIND_USE_AFTER_FREE,
	  "READ_ONCE_NOCHECK(p->lru.next): page 1 ->lru.next", "&page 0", "the stale read",
	  {
		  /* T0's stale compound_head() read of the tail, returning the head */
		  { 0, "READ_ONCE_NOCHECK(p->lru.next): page 1 ->lru.next", "&page 0",
		    "stale compound_head() read" },
		  /* the split's store that made the tail its own head, which
		   * T0's second compound_head() read */
		  { 1, "page 1 ->lru.next", "\u2192 0", "the split's clear" },
		  { 0, "page 1 ->lru.next = 0", NULL, "the second read" },
		  /* the reference taken on the head */
		  { 0, "page 0 ->count 1 \u2192 2", NULL, "the get on the head" },
	  },
	  "READ_ONCE_NOCHECK(p->lru.next): page 1" },
	{ &lru_scn, WEFT_KIND_LIST_CORRUPTION, "test_bit(PG_lru", NULL, "the unlocked test",
	  {
		  { 0, "test_bit(PG_lru, &p->flags): page 0 ->flags = 0x20", NULL,
		    "unlocked PageLRU test" },
		  { 1, "__clear_bit(PG_lru, &p->flags) store: page 0 ->flags 0x20", NULL,
		    "the other isolator's __ClearPageLRU" },
		  { 1, "list_del(&p->lru): page 0 ->lru.next", NULL, "the first list_del" },
	  },
	  "test_bit(PG_lru, &p->flags): page 0" },
	{ &xsp_scn, WEFT_KIND_BUG_ON, "->slots[6] = &folio 6", NULL, "the lookup's load",
	  {
		  /* the store that published folio 6, and the lookup that found it */
		  { 1, "->slots[6]", "\u2192 &folio 6", "the publishing store" },
		  { 0, "->slots[6] = &folio 6", NULL, "the lookup's load" },
	  },
	  "&folio 6" },
};

static void check_cause(const struct cause_case *c)
{
	struct d_run run = found(c->sc, c->kind);
	struct weft_trace_view v;
	char *d = d_diagram(&run, false);

	d_view(&run, &v);
	if (getenv("DIAG_VERBOSE"))
		printf("%s\n", d);
	long i = d_find(&v, 0, c->decisive, c->decisive_b);
	CHECK(i >= 0 && not_before_switch(i), "%s: %s is not the step before the preemption",
	      c->sc->name, c->decisive_what);
	for (const struct cause_row *k = c->kept; k < c->kept + 4 && k->a; k++)
		CHECK(d_kept(&v, k->tid, k->a, k->b), "%s: %s hidden:\n%s", c->sc->name, k->what, d);
	CHECK(strstr(d, c->row_text) != NULL, "%s: row text:\n%s", c->sc->name, d);
	weft_trace_view_fini(&v);
	free(d);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_cause(&cases[i]);
	return check_done();
}
