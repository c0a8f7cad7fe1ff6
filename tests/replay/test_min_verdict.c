/*
 * test_min_verdict.c - the minimizer keeps the verdict it was given: a
 * candidate with fewer preemptions that fails differently is not a
 * smaller version of the same bug and must be refused.
 *
 * A private two-thread scenario: T0 writes x then y; T1 reads them. T1
 * between the two writes (one preemption) sees x without y: report A.
 * T1 after both (no preemption, the default schedule) sees y: report B —
 * another kind (mode "kind") or the same kind at another site (mode
 * "site"). Minimizing the execution that reported A must keep A and its
 * one preemption; a minimizer that accepts any failure slides to B.
 *
 * Usage: test_min_verdict kind|site
 */
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>
#include <weft/replay.h>

#include "check.h"
#include "../model_driver.h"

struct mw {
	unsigned mode;   /* 0: B is another kind, 1: B is the same kind elsewhere */
	int x, y;
};

static void mw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct mw *W = w;

	(void)wl;
	W->mode = variant;
}

static void mw_thread(void *w, unsigned tid)
{
	struct mw *W = w;

	if (tid == 0) {
		WRITE_ONCE(W->x, 1);
		WRITE_ONCE(W->y, 1);
		return;
	}
	int x = READ_ONCE(W->x), y = READ_ONCE(W->y);
	if (x && !y)
		weft_report(WEFT_KIND_ASSERT, &W->y, WEFT_SITE(WEFT_EV_NOTE, "A: x without y"),
			    "A: T1 saw x = 1 before y = 1");
	if (y && W->mode == 0)
		weft_report(WEFT_KIND_BUG_ON, &W->y, WEFT_SITE(WEFT_EV_NOTE, "B: y seen"),
			    "B: T1 saw y = 1 (another kind)");
	if (y && W->mode == 1)
		weft_report(WEFT_KIND_ASSERT, &W->y, WEFT_SITE(WEFT_EV_NOTE, "B': y seen"),
			    "B': T1 saw y = 1 (the same kind, another site)");
}

static const char *const mw_files[] = { "test_min_verdict.c", NULL };
static const struct weft_variant mw_variants[] = {
	{ "kind", NULL, true, "B is another kind", "test", WEFT_KIND_ASSERT, 0, 0 },
	{ "site", NULL, true, "B is the same kind at another site", "test", WEFT_KIND_ASSERT, 0,
	  0 },
};

static const struct weft_scenario mw_sc = {
	.name = "test-min-verdict", .summary = "two failures, one preemption apart",
	.source = "tests/replay", .nr_cpus = 2, .nr_threads = 2, .world_size = sizeof(struct mw),
	WEFT_TEST_NOP_OP, .decision_hint = 64, .files = mw_files,
	WEFT_TEST_HOOKS(mw),
};

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned vi = !strcmp(mode, "kind") ? 0 : !strcmp(mode, "site") ? 1 : 2;

	if (vi > 1) {
		fprintf(stderr, "usage: test_min_verdict kind|site\n");
		return 2;
	}
	struct weft_run_opts o = { .sc = &mw_sc, .variant = vi };
	struct weft_exec_result r;
	static struct weft_dfs d;
	bool found = false;
	uint64_t site_a = 0;

	/* the default schedule gives B; dfs with one preemption finds A */
	weft_dfs_init(&d, &mw_sc, 1, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		if (r.kind == WEFT_KIND_ASSERT && r.report.here.site &&
		    strstr(r.report.msg, "A:")) {
			found = true;
			site_a = r.report.here.site->id;
			break;
		}
	}
	CHECK(found, "%s: dfs found no report A", mode);
	if (!found)
		return check_done();
	CHECK(r.preemptions >= 1, "%s: A with %u preemptions", mode, r.preemptions);

	uint8_t out[WEFT_INPUT_MAX];
	size_t out_len;
	struct weft_min_result mr;
	int rc = weft_minimize_last(&o, &r, out, &out_len, &mr);
	CHECK(rc == 0, "%s: minimizer failed (%d)", mode, rc);
	if (rc)
		return check_done();
	CHECK(mr.kind == WEFT_KIND_ASSERT && mr.final.kind == WEFT_KIND_ASSERT,
	      "%s: minimized to %s", mode, weft_kind_name(mr.final.kind));
	CHECK(mr.final.report.here.site && mr.final.report.here.site->id == site_a &&
	      strstr(mr.final.report.msg, "A:"),
	      "%s: minimized to another failure: %s", mode, mr.final.report.msg);
	CHECK(mr.after.preemptions == 1, "%s: %u preemptions after minimizing, want 1", mode,
	      mr.after.preemptions);
	printf("%s: kept '%s' with %u preemption(s), %llu executions\n", mode,
	       mr.final.report.msg, mr.after.preemptions, (unsigned long long)mr.executions);
	return check_done();
}
