/*
 * test_z6_search.c - search budgets for the buggy Z6 variants: random and
 * pct (depth 2 and 3) over generated workloads, and pct d=2 on each
 * variant's trigger workload, each find the variant's expected kind within
 * Z6_BUDGET executions for every one of 10 seeds, with a report that is
 * one of the race's manifestations (the lost or extra reference shows as
 * the variant's kind, or bad-free / refcount-underflow depending on where
 * it lands; never an assertion, leak, deadlock or livelock). Measured
 * again (not asserted: PCT's priorities favour the woken reader, which
 * then shows the underflow) to the first report of the variant's
 * expected kind, Z6_KIND_BUDGET at most. Prints min/median/max
 * executions and ms and how many seeds found it (docs/zoo/z6.md).
 */
#include <stdlib.h>

#include "z6_test_util.h"

#define Z6_SEEDS 10
#define Z6_BUDGET 20000
#define Z6_KIND_BUDGET 5000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static bool manifestation(enum weft_kind k)
{
	return k == WEFT_KIND_DOUBLE_FREE || k == WEFT_KIND_USE_AFTER_FREE ||
	       k == WEFT_KIND_BAD_FREE || k == WEFT_KIND_REFCOUNT_UNDERFLOW;
}

static void search1(const char *variant, const char *label, const char *strategy,
		    unsigned depth, const uint8_t *wl, size_t wl_len, enum weft_kind until)
{
	uint64_t ex[Z6_SEEDS];
	double secs[Z6_SEEDS];
	unsigned found = 0;

	for (unsigned s = 0; s < Z6_SEEDS; s++) {
		z6_until_kind = until;
		struct mm_outcome o = z6_run(variant, strategy, 1 + s, depth, wl, wl_len,
					     until ? Z6_KIND_BUDGET : Z6_BUDGET);
		z6_until_kind = WEFT_KIND_NONE;
		if (!until)
			CHECK(manifestation(o.kind), "%s %s seed %u: %s after %llu executions",
			      variant, label, 1 + s, weft_kind_name(o.kind),
			      (unsigned long long)o.executions);
		found += o.kind != WEFT_KIND_NONE;
		ex[s] = o.executions;
		secs[s] = o.seconds;
	}
	qsort(ex, Z6_SEEDS, sizeof(ex[0]), cmp_u64);
	qsort(secs, Z6_SEEDS, sizeof(secs[0]), cmp_dbl);
	printf("%s %-26s %-18s executions min %llu median %llu max %llu; ms min %.2f median "
	       "%.2f max %.2f; found by %u/%u seeds\n", variant, label,
	       until ? weft_kind_name(until) : "any kind", (unsigned long long)ex[0],
	       (unsigned long long)ex[Z6_SEEDS / 2], (unsigned long long)ex[Z6_SEEDS - 1],
	       secs[0] * 1e3, secs[Z6_SEEDS / 2] * 1e3, secs[Z6_SEEDS - 1] * 1e3, found,
	       Z6_SEEDS);
}

static void search(const char *variant, const char *label, const char *strategy, unsigned depth,
		   const uint8_t *wl, size_t wl_len)
{
	unsigned vi;
	const struct weft_scenario *sc = z6_scenario(variant, &vi);

	search1(variant, label, strategy, depth, wl, wl_len, WEFT_KIND_NONE);
	search1(variant, label, strategy, depth, wl, wl_len, sc->variants[vi].expect_kind);
}

int main(void)
{
	static const char *const buggy[] = { "z6a", "z6b" };

	for (unsigned b = 0; b < 2; b++) {
		uint8_t wl[64];
		size_t wl_len = z6_trigger_workload(buggy[b], wl, sizeof(wl));

		search(buggy[b], "random, generated", "random", 0, NULL, 0);
		search(buggy[b], "pct d=2, generated", "pct", 2, NULL, 0);
		search(buggy[b], "pct d=3, generated", "pct", 3, NULL, 0);
		search(buggy[b], "random, trigger workload", "random", 0, wl, wl_len);
		search(buggy[b], "pct d=2, trigger workload", "pct", 2, wl, wl_len);
	}
	return check_done();
}
