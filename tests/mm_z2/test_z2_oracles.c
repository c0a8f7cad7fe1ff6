/*
 * test_z2_oracles.c - each oracle of the swap model fires on the misuse it
 * names, and only there: a private one-CPU scenario drives the swap API
 * (mm_swap.h) through one deliberate protocol error per variant and the
 * test checks the kind and the object of the report; the correct sequence
 * of the same calls is clean.
 */
#include <weft/mm/swap.h>
#include "zoo_test.h"
#include "../model_driver.h"

enum {
	O_CLEAN,            /* fault, swap out, swap in, swap out, zap: clean */
	O_UNDERFLOW,        /* swap_free() once more than swap_duplicate() */
	O_FREE_FREE,        /* put_swap_folio() on a slot already freed */
	O_PIN_LEAK,         /* swapcache_prepare()-like pin never dropped */
	O_COUNT_LEAK,       /* a swap count with no PTE behind it */
	O_PAGE_LEAK,        /* a page reference nobody holds */
	O_NR
};

struct oracle_world {
	unsigned variant;
	struct weft_mm mm;
	struct weft_swap_info si;
	struct weft_pgtable pt;
};

WEFT_TEST_SETUP(oracle, struct oracle_world)
{
	weft_mm_init(&W->mm, 8, false);
	/* ret_batch 0: freed slots go straight back (LIFO) */
	weft_swap_init(&W->si, &W->mm, 8, 0, WEFT_SWAP_FREE_BATCH_V3);
	weft_pgtable_init(&W->pt, 4);
}

static void oracle_thread(void *w, unsigned tid)
{
	struct oracle_world *W = w;
	struct weft_swap_info *si = &W->si;
	int off;

	(void)tid;
	switch (W->variant) {
	case O_CLEAN:
		weft_mm_fault_anon(si, &W->pt, 0, 1);
		weft_mm_swap_out(si, &W->pt, 0);
		weft_mm_swap_in(si, &W->pt, 1);
		weft_mm_swap_out(si, &W->pt, 1);
		weft_mm_zap(si, &W->pt, 0, 4);
		break;
	case O_UNDERFLOW:
		off = weft_swap_alloc(si, 0);
		weft_swap_duplicate(si, (unsigned)off);
		weft_swap_free(si, (unsigned)off);
		weft_swap_free(si, (unsigned)off);
		break;
	case O_FREE_FREE:
		off = weft_swap_alloc(si, 0);
		weft_put_swap_folio(si, (unsigned)off, 1);
		weft_put_swap_folio(si, (unsigned)off, 1);
		break;
	case O_PIN_LEAK:
		weft_swap_alloc(si, 0);
		break;
	case O_COUNT_LEAK:
		off = weft_swap_alloc(si, 0);
		weft_swap_duplicate(si, (unsigned)off);
		weft_put_swap_folio(si, (unsigned)off, 1);
		break;
	case O_PAGE_LEAK:
		weft_mm_fault_anon(si, &W->pt, 2, 0);
		weft_get_page(&W->mm, &W->mm.pages[0]);
		break;
	}
}

static void oracle_quiesce(void *w)
{
	struct oracle_world *W = w;
	struct weft_pgtable *const pts[] = { &W->pt };

	weft_swap_audit(&W->si, pts, 1);
}

static void oracle_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct oracle_world *W = w;

	if (!weft_swap_describe(&W->si, w, off, buf, n) &&
	    !weft_pgtable_describe(&W->pt, 0, w, off, buf, n))
		weft_mm_describe(&W->mm, w, off, buf, n);
}

static const char *const oracle_files[] = { "test_z2_oracles.c", NULL };
static const struct weft_variant oracle_variants[O_NR] = {
	{ "clean", NULL, false, "", "", WEFT_KIND_NONE, 0, O_CLEAN },
	{ "underflow", NULL, true, "", "", WEFT_KIND_SWAP_UNDERFLOW, 0, O_UNDERFLOW },
	{ "free-free", NULL, true, "", "", WEFT_KIND_SWAP_FREE_FREE, 0, O_FREE_FREE },
	{ "pin-leak", NULL, true, "", "", WEFT_KIND_SLOT_LEAK, 0, O_PIN_LEAK },
	{ "count-leak", NULL, true, "", "", WEFT_KIND_SLOT_LEAK, 0, O_COUNT_LEAK },
	{ "page-leak", NULL, true, "", "", WEFT_KIND_PAGE_LEAK, 0, O_PAGE_LEAK },
};

static const struct weft_scenario oracle_sc = {
	.name = "test-z2-oracles", .summary = "swap model oracle checks", .source = "tests/mm_z2",
	.nr_cpus = 1, .nr_threads = 1, .world_size = sizeof(struct oracle_world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, .files = oracle_files,
	WEFT_TEST_HOOKS(oracle), .quiesce = oracle_quiesce, .describe = oracle_describe,
};

int main(void)
{
	static const char *const objects[O_NR] = {
		"", "swap slot 0 (0x40)", "swap slot 0 (0x00)", "swap slot 0 (0x40)",
		"swap slot 0 (0x01)", "page 0 ->count",
	};

	for (unsigned v = 0; v < O_NR; v++) {
		struct weft_bytes b;
		struct weft_exec_result r;
		struct weft_run_opts o = { .sc = &oracle_sc, .variant = v };

		weft_bytes_init(&b, &oracle_sc, NULL, 0);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute %u", v);
		CHECK(r.kind == oracle_variants[v].expect_kind, "%s: expected %s, got %s (%s)",
		      oracle_variants[v].name, weft_kind_name(oracle_variants[v].expect_kind),
		      weft_kind_name(r.kind), r.report.msg);
		if (v != O_CLEAN)
			CHECK(!strcmp(r.report.object, objects[v]), "%s: object '%s', expected '%s'",
			      oracle_variants[v].name, r.report.object, objects[v]);
		printf("%-10s %-20s %s%s%s\n", oracle_variants[v].name, weft_kind_name(r.kind),
		       r.report.object, r.kind ? ": " : "", r.report.msg);
	}
	return check_done();
}
