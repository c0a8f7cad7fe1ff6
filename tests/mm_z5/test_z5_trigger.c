/*
 * test_z5_trigger.c - Z5 on hand-written inputs: the trigger reports
 * swap-count-underflow on slot 0 in swap_entry_free() with 1 preemption,
 * and its trace shows the byte going 0x40 -> 0xff; the fixed variant is
 * clean on it (the truncate finds SWAP_MAP_SHMEM and drops the slot, or
 * leaves it 0x40 to the swap cache while writepage holds the page); the
 * trigger workload run serially is clean on both; dfs bound 0 covers it
 * completely without a report and bound 1 finds the underflow; the fixed
 * variant is clean and complete under dfs bound 2.
 */
#include "zoo_test.h"

#define Z5 "z5-tmpfs-truncate"

int main(void)
{
	struct zoo_trigger_case t;
	struct mm_outcome o;

	if (!zoo_trigger_case(Z5 ":z5", 5, &t))
		return check_done();
	CHECK(t.sc->variants[t.vi].expect_kind == WEFT_KIND_SWAP_UNDERFLOW &&
	      t.sc->variants[t.vi].min_preemptions == 1, "variant table");

	/* the trigger, recorded */
	struct weft_run_opts ro = { .sc = t.sc, .variant = t.vi, .lock = t.sc->default_lock,
				    .record = true };
	struct weft_bytes b;
	struct weft_exec_result r;
	weft_bytes_init(&b, t.sc, t.input, t.input_len);
	CHECK(weft_execute(&ro, &weft_strategy_bytes, &b, &r) == 0, "execute");
	CHECK(r.kind == WEFT_KIND_SWAP_UNDERFLOW, "z5 trigger: %s (%s)", weft_kind_name(r.kind),
	      r.report.msg);
	CHECK(r.preemptions == 1, "z5 trigger: %u preemptions", r.preemptions);
	CHECK(r.report.here.site && !strcmp(r.report.here.site->func, "__weft_swap11_entry_free") &&
	      !strcmp(r.report.here.site->what, "swap_entry_free: count-- on a count of 0"),
	      "reported at %s: %s", r.report.here.site ? r.report.here.site->func : "?",
	      r.report.here.site ? r.report.here.site->what : "?");
	CHECK(r.report.here.tid == 1 && r.report.other.valid && r.report.other.tid == 0,
	      "truncate (T1) underflows the slot writepage (T0) allocated");
	CHECK(!strncmp(r.report.object, "swap slot 0", 11), "object '%s'", r.report.object);
	size_t nev;
	const struct weft_event *ev = weft_last_events(&nev);
	bool wrap = false;
	for (size_t k = 0; k < nev; k++) {
		char obj[64] = "";
		if (ev[k].loc == WEFT_NO_LOC || ev[k].ev != WEFT_EV_WRITE)
			continue;
		t.sc->describe(weft_last_world(), ev[k].loc, obj, sizeof(obj));
		if (!strncmp(obj, "swap slot 0 ", 12) && ev[k].old == 0x40 && ev[k].val == 0xff &&
		    ev[k].tid == 1)
			wrap = true;
	}
	CHECK(wrap, "the trace shows T1 writing swap slot 0 0x40 -> 0xff");
	zoo_print_trigger("z5", &r);

	/* fix: clean; truncate dropped SHMEM, found the page locked */
	zoo_trigger(Z5 ":fix", Z5 ":z5", WEFT_KIND_NONE, 0, NULL, NULL);
	CHECK(zoo_stat(Z5 ":fix", "shmem_writepage") == 1 &&
	      zoo_stat(Z5 ":fix", "truncate_swap_entry") == 1 &&
	      zoo_stat(Z5 ":fix", "free_swap_and_cache_page_busy") +
	      zoo_stat(Z5 ":fix", "free_swap_and_cache_dropped_page") == 1 &&
	      zoo_stat(Z5 ":fix", "swap_shmem_alloc_failed") == 0, "fix: the paths of the race");

	/* the workload alone (serial: writepage completes first) */
	for (unsigned v = 0; v < 2; v++) {
		o = zoo_run(v ? Z5 ":fix" : Z5 ":z5", "bytes", 0, 0, t.wl, t.wl_len, 1, NULL);
		CHECK(o.kind == WEFT_KIND_NONE, "%s serial: %s", v ? "fix" : "z5",
		      weft_kind_name(o.kind));
		CHECK(zoo_stat(Z5 ":fix", "free_swap_and_cache_dropped_page") == 1,
		      "serial: truncate freed the slot and its swap-cache page");
	}

	/* minimal bound; the fix on the same workload */
	zoo_dfs_minimal(Z5 ":z5", NULL, 1, WEFT_KIND_SWAP_UNDERFLOW);
	zoo_dfs_clean(Z5 ":fix", Z5 ":z5", 2);
	return check_done();
}
