/*
 * test_z1_page.c - the page model's detectors one by one (mm_page.[ch]):
 * the allocator's free-time checks, use-after-free of a freed page's body
 * and of its count, refcount underflow, increment from zero, LIFO reuse,
 * the -1 bias with get_page_testone, freeze/unfreeze, folios, the leak
 * audit. Each case is a one-thread scenario run serially.
 */
#include <string.h>

#include "z1_run.h"
#include <weft/mm/page.h>
#include "../model_driver.h"

enum {
	M_DOUBLE_FREE, M_FREE_ON_LRU, M_FREE_REFERENCED, M_FREE_LOCKED, M_FREE_MAPPED,
	M_UAF_BODY, M_UAF_GET, M_UAF_PUT, M_UNDERFLOW, M_NOFREE_LAST, M_INC_ZERO, M_LIFO,
	M_LEAK, M_COUNT_ABOVE_OWNERS, M_BIASED, M_FREEZE, M_FOLIO, M_EXHAUST, M_NR
};

struct pw {
	unsigned mode;
	struct weft_mm mm;
	struct weft_page *kept;        /* the page the scenario owns, if any */
	unsigned kept_refs;
	int mapping_dummy;
};

#define EXPECT(c)                                                               \
	do {                                                                    \
		if (!(c))                                                       \
			weft_report(WEFT_KIND_ASSERT, NULL,                     \
				    WEFT_SITE(WEFT_EV_NOTE, "expect(" #c ")"),     \
				    "expect(%s)", #c);                          \
	} while (0)

static void pw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct pw *W = w;

	(void)wl;
	W->mode = variant;
	weft_mm_init(&W->mm, 8, variant == M_BIASED);
}

static void pw_thread(void *w, unsigned tid)
{
	struct pw *W = w;
	struct weft_mm *mm = &W->mm;
	struct weft_page *p = weft_page_alloc(mm), *q, *r;

	(void)tid;
	EXPECT(p && weft_page_count(mm, p) == 1 && weft_page_nr(mm, p) == 0);
	switch (W->mode) {
	case M_DOUBLE_FREE:
		EXPECT(weft_put_page_testzero(mm, p));
		weft_page_free(mm, p);
		weft_page_free(mm, p);
		break;
	case M_FREE_ON_LRU:
		weft_page_set(p, lru);
		weft_put_page_testzero(mm, p);
		weft_page_free(mm, p);
		break;
	case M_FREE_REFERENCED:
		weft_page_free(mm, p);
		break;
	case M_FREE_LOCKED:
		weft_page_set(p, locked);
		weft_put_page_testzero(mm, p);
		weft_page_free(mm, p);
		break;
	case M_FREE_MAPPED:
		WRITE_ONCE(p->mapping, (void *)&W->mapping_dummy);
		weft_put_page_testzero(mm, p);
		weft_page_free(mm, p);
		break;
	case M_UAF_BODY:
		weft_put_page_testzero(mm, p);
		weft_page_free(mm, p);
		(void)READ_ONCE(p->version);
		break;
	case M_UAF_GET:
		weft_put_page_testzero(mm, p);
		weft_page_free(mm, p);
		weft_get_page_nocheck(mm, p);
		break;
	case M_UAF_PUT:
		weft_put_page_testzero(mm, p);
		weft_page_free(mm, p);
		weft_put_page_testzero(mm, p);
		break;
	case M_UNDERFLOW:
		EXPECT(weft_put_page_testzero(mm, p));
		weft_put_page_testzero(mm, p);
		break;
	case M_NOFREE_LAST:
		weft_put_page_nofree(mm, p);
		break;
	case M_INC_ZERO:
		EXPECT(weft_put_page_testzero(mm, p));
		weft_get_page(mm, p);
		break;
	case M_LIFO:
		q = weft_page_alloc(mm);
		EXPECT(q && q != p);
		EXPECT(weft_put_page_testzero(mm, p));
		weft_page_free(mm, p);
		r = weft_page_alloc(mm);
		/* the page just freed comes back first, with a new version */
		EXPECT(r == p && weft_page_count(mm, r) == 1);
		W->kept = q;
		W->kept_refs = 1;
		EXPECT(weft_put_page_testzero(mm, r));
		weft_page_free(mm, r);
		break;
	case M_LEAK:
		break;          /* nobody owns p at quiescence */
	case M_COUNT_ABOVE_OWNERS:
		weft_get_page(mm, p);
		W->kept = p;
		W->kept_refs = 1;       /* one of the two references leaked */
		break;
	case M_BIASED:
		/* 2.6.6-mm2: the stored counter is page_count() - 1 */
		EXPECT(weft_peek(p->count.counter) == 0);
		EXPECT(!weft_get_page_testone(mm, p));   /* 1 -> 2: not 0 -> 1 */
		__weft_put_page(mm, p);
		EXPECT(weft_put_page_testzero(mm, p));   /* 1 -> 0: stored -1 */
		EXPECT(weft_get_page_testone(mm, p));    /* 0 -> 1 seen: back off */
		__weft_put_page(mm, p);
		EXPECT(!weft_get_page_unless_zero(mm, p));
		weft_page_free(mm, p);
		EXPECT(weft_peek(p->count.counter) == -1);
		break;
	case M_FREEZE:
		weft_get_page(mm, p);
		EXPECT(!weft_page_ref_freeze(mm, p, 3));
		EXPECT(weft_page_ref_freeze(mm, p, 2));
		EXPECT(!weft_get_page_unless_zero(mm, p));
		weft_page_ref_unfreeze(mm, p, 1);
		EXPECT(weft_get_page_unless_zero(mm, p));
		EXPECT(!weft_put_page_testzero(mm, p));
		EXPECT(weft_put_page_testzero(mm, p));
		weft_page_free(mm, p);
		break;
	case M_FOLIO:
		q = weft_folio_alloc(mm, 2);
		/* page 0 is taken: the first free aligned block is 4..7 */
		EXPECT(q == &mm->pages[4] && q->order == 2);
		EXPECT(weft_page_test(q, head) && weft_page_test(&mm->pages[5], tail));
		EXPECT(weft_put_page_testzero(mm, q));
		weft_page_free(mm, q);
		EXPECT(weft_peek(mm->pages[7].state) == WEFT_PAGE_FREE);
		W->kept = p;
		W->kept_refs = 1;
		break;
	case M_EXHAUST:
		for (unsigned i = 1; i < 8; i++)
			EXPECT(weft_page_alloc(mm) != NULL);
		EXPECT(weft_page_alloc(mm) == NULL);
		EXPECT(weft_page_alloc_at(mm, 3) == NULL);
		W->kept = NULL;
		W->kept_refs = WEFT_MM_OWNERS_ANY;
		break;
	}
}

static unsigned pw_owned(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct pw *W = ctx;

	(void)mm;
	if (W->kept_refs == WEFT_MM_OWNERS_ANY)
		return WEFT_MM_OWNERS_ANY;
	return p == W->kept ? W->kept_refs : 0;
}

static void pw_quiesce(void *w)
{
	struct pw *W = w;

	weft_mm_audit_leaks(&W->mm, pw_owned, W);
}

static void pw_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct pw *W = w;

	weft_mm_describe(&W->mm, W, off, buf, n);
}

static const char *const pw_files[] = { "test_z1_page.c", "mm_page.c", NULL };

static const struct weft_variant pw_variants[M_NR] = {
	WEFT_TEST_CASE("double-free", WEFT_KIND_DOUBLE_FREE),
	WEFT_TEST_CASE("free-on-lru", WEFT_KIND_BAD_FREE),
	WEFT_TEST_CASE("free-referenced", WEFT_KIND_BAD_FREE),
	WEFT_TEST_CASE("free-locked", WEFT_KIND_BAD_FREE),
	WEFT_TEST_CASE("free-mapped", WEFT_KIND_BAD_FREE),
	WEFT_TEST_CASE("uaf-body", WEFT_KIND_USE_AFTER_FREE),
	WEFT_TEST_CASE("uaf-get", WEFT_KIND_USE_AFTER_FREE),
	WEFT_TEST_CASE("uaf-put", WEFT_KIND_USE_AFTER_FREE),
	WEFT_TEST_CASE("underflow", WEFT_KIND_REFCOUNT_UNDERFLOW),
	WEFT_TEST_CASE("nofree-last", WEFT_KIND_REFCOUNT_UNDERFLOW),
	WEFT_TEST_CASE("inc-zero", WEFT_KIND_INC_FROM_ZERO),
	WEFT_TEST_CASE("lifo", WEFT_KIND_NONE),
	WEFT_TEST_CASE("leak", WEFT_KIND_PAGE_LEAK),
	WEFT_TEST_CASE("count-above-owners", WEFT_KIND_PAGE_LEAK),
	WEFT_TEST_CASE("biased", WEFT_KIND_NONE),
	WEFT_TEST_CASE("freeze", WEFT_KIND_NONE),
	WEFT_TEST_CASE("folio", WEFT_KIND_NONE),
	WEFT_TEST_CASE("exhaust", WEFT_KIND_NONE),
};

static const struct weft_scenario pw_sc = {
	.name = "test-z1-page", .summary = "page model unit cases", .source = "test", .nr_cpus = 1,
	.nr_threads = 1, .world_size = sizeof(struct pw), WEFT_TEST_NOP_OP,
	.decision_hint = 16, .files = pw_files, WEFT_TEST_HOOKS(pw),
	.quiesce = pw_quiesce, .describe = pw_describe,
};

int main(void)
{
	static struct weft_bytes b;

	if (weft_machine_init())
		return 2;
	for (unsigned v = 0; v < M_NR; v++) {
		struct weft_run_opts o = { .sc = &pw_sc, .variant = v, .lock = WEFT_LOCK_TAS };
		struct weft_exec_result r;

		weft_bytes_init(&b, &pw_sc, NULL, 0);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
		CHECK(r.kind == pw_variants[v].expect_kind, "%s: got %s (%s), want %s",
		      pw_variants[v].name, weft_kind_name(r.kind), r.report.msg,
		      weft_kind_name(pw_variants[v].expect_kind));
		if (r.kind != WEFT_KIND_NONE && r.kind != WEFT_KIND_ASSERT)
			CHECK(!strncmp(r.report.object, "page ", 5), "%s: object '%s'",
			      pw_variants[v].name, r.report.object);
		if (v == M_DOUBLE_FREE)
			CHECK(r.report.other.valid && r.report.other.site &&
				      !strcmp(r.report.other.site->func, "free_one"),
			      "double free: the other side is not the first free");
	}
	return check_done();
}
