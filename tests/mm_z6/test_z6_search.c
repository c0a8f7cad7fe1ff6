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
#include "zoo_test.h"

#define Z6 "z6-spec-pagecache"

static bool manifestation(enum weft_kind k)
{
	return k == WEFT_KIND_DOUBLE_FREE || k == WEFT_KIND_USE_AFTER_FREE ||
	       k == WEFT_KIND_BAD_FREE || k == WEFT_KIND_REFCOUNT_UNDERFLOW;
}

/* To any report (each must be a manifestation), then measured to the
 * variant's expected kind. */
static void search(const char *variant, const char *label, const char *strategy, unsigned depth,
		   const uint8_t *wl, size_t wl_len)
{
	unsigned vi;
	const char *spec = zoo_spec(Z6, variant);
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	char l[96];

	snprintf(l, sizeof(l), "%s %s, any kind", variant, label);
	zoo_search_budget(&(struct zoo_budget){
		.label = l, .spec = spec, .strategy = strategy, .param = depth, .wl = wl,
		.wl_len = wl_len, .nseeds = 10, .budget = 20000, .accept = manifestation });
	snprintf(l, sizeof(l), "%s %s, %s", variant, label,
		 weft_kind_name(sc->variants[vi].expect_kind));
	zoo_search_budget(&(struct zoo_budget){
		.label = l, .spec = spec, .strategy = strategy, .param = depth, .wl = wl,
		.wl_len = wl_len, .nseeds = 10, .budget = 5000,
		.want = sc->variants[vi].expect_kind, .until = sc->variants[vi].expect_kind,
		.measured_only = true });
}

int main(void)
{
	static const char *const buggy[] = { "z6a", "z6b" };

	for (unsigned b = 0; b < 2; b++) {
		uint8_t wl[64];
		size_t wl_len = mm_trigger_workload(zoo_spec(Z6, buggy[b]), wl, sizeof(wl));

		search(buggy[b], "random, generated", "random", 0, NULL, 0);
		search(buggy[b], "pct d=2, generated", "pct", 2, NULL, 0);
		search(buggy[b], "pct d=3, generated", "pct", 3, NULL, 0);
		search(buggy[b], "random, trigger workload", "random", 0, wl, wl_len);
		search(buggy[b], "pct d=2, trigger workload", "pct", 2, wl, wl_len);
	}
	return check_done();
}
