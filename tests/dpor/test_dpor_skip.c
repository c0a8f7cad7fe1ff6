/*
 * test_dpor_skip.c - an execution that skips logging its replayed prefix
 * (core/src/search/dpor.c, dpor_begin(), skip_to()) still notices a
 * model that does not replay: the prefix's records are checked against
 * the log they stand for (dpor_clocks.c, skip_record()).
 *
 * The model keeps host state across executions (as tests/verdicts'
 * verdict-leak does, there for the length of a thread): from its third
 * execution on, T0's first write goes to another word, same kind and
 * size. The first two executions log their prefixes (the first has none;
 * the second follows the one that learnt the threads' first ops), so the
 * first execution to replay T0's first write with the other word is one
 * that may skip its prefix: the search must say the model is
 * nondeterministic instead of certifying, for each reduction. The same
 * model without the change (a counter reset each search) is certified,
 * with the executions plain dfs's C(5, 2) interleavings of the five
 * writes to one word need (each is its own trace).
 */
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

struct sk {
	int x[2];
};

static unsigned setups;
static bool moves;   /* T0's first write moves from the third execution on */

WEFT_TEST_SETUP_WORLD(sk, struct sk)
{
	(void)W;
	setups++;
}

static void sk_thread(void *w, unsigned tid)
{
	struct sk *W = w;

	if (tid == 0) {
		WRITE_ONCE(W->x[moves && setups >= 3 ? 1 : 0], 1);
		WRITE_ONCE(W->x[0], 2);
		WRITE_ONCE(W->x[0], 3);
	} else {
		WRITE_ONCE(W->x[0], 4);
		WRITE_ONCE(W->x[0], 5);
	}
}

WEFT_TEST_ONLY_VARIANT(sk, "skipped prefix");
static struct weft_scenario sk = WEFT_TEST_UNLISTED("skipped-prefix", struct sk, 2, 2, 64,
						    .setup = sk_setup, .thread = sk_thread,
						    WEFT_TEST_VARIANTS(sk));

static void search(enum weft_por m, bool move)
{
	struct weft_dpor *d = weft_dpor_new();
	struct weft_run_opts o = { .sc = &sk };
	struct weft_exec_result r;
	struct weft_dpor_stats st;

	setups = 0;
	moves = move;
	CHECK(d && weft_dpor_reset(d, &sk, m, WEFT_BOUND_NONE, WEFT_LOCK_TAS, NULL, 0) == 0,
	      "reset");
	while (weft_execute(&o, &weft_strategy_dpor, d, &r) == 0)
		CHECK(r.kind == WEFT_KIND_NONE, "a report: %s", weft_kind_name(r.kind));
	weft_dpor_get_stats(d, &st);
	if (move) {
		CHECK(!weft_dpor_complete(d) &&
			      strstr(weft_dpor_why_incomplete(d), "nondeterministic") != NULL,
		      "%s: T0's first write moved from the third execution on, yet the search "
		      "says complete %d (%s) after %llu executions",
		      weft_por_name(m), weft_dpor_complete(d), weft_dpor_why_incomplete(d),
		      (unsigned long long)st.executions);
	} else {
		CHECK(weft_dpor_complete(d) && st.executions == 10,
		      "%s: a deterministic model: complete %d (%s), %llu executions, want 10",
		      weft_por_name(m), weft_dpor_complete(d), weft_dpor_why_incomplete(d),
		      (unsigned long long)st.executions);
	}
	weft_dpor_free(d);
}

int main(void)
{
	weft_machine_init();
	for (int move = 0; move <= 1; move++) {
		search(WEFT_POR_OPTIMAL, move);
		search(WEFT_POR_SOURCE, move);
		search(WEFT_POR_SLEEP, move);
	}
	return check_done();
}
