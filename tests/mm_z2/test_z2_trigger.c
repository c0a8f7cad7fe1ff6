/*
 * test_z2_trigger.c - Z2 on hand-written workloads: the trigger reports
 * the leak of the expected slot on v2 with 0 preemptions and nothing on
 * v3 / per-entry; the race version (a reclaim on
 * another CPU between split and zap) needs exactly 1 preemption and the
 * fixed variants are clean on it with 1; the model's counters show which
 * free path ran; the transient HAS_CACHE pin of a freed slot waiting in
 * its CPU's return batch is not reported.
 */
#include "zoo_test.h"

#define Z2 "z2-swap-batch"

/* T0: swapout 0 order 2, split 0, zap 0..3; T1: reclaim 1. */
static const uint8_t race_wl[] = { 4, 0x00, 0x20, 0x01, 0x00, 0x04, 0x30, 0x12, 0x01 };

int main(void)
{
	struct zoo_trigger_case t;
	struct mm_outcome o;

	if (!zoo_trigger_case(Z2 ":v2", 9, &t))
		return check_done();

	/* the trigger input itself (bytes strategy) */
	o = zoo_run(Z2 ":v2", "bytes", 0, 0, t.input, t.input_len, 1, NULL);
	CHECK(o.kind == WEFT_KIND_SLOT_LEAK, "v2 trigger: %s", weft_kind_name(o.kind));
	CHECK(!strcmp(o.r.report.object, "swap slot 1 (0x40)"), "v2 leaks slot 1 as 0x40, got '%s'",
	      o.r.report.object);
	CHECK(o.r.preemptions == 0, "v2 trigger needs no preemption (%u)", o.r.preemptions);
	CHECK(zoo_stat(Z2 ":v2", "batch_fast_path_has_cache") == 1, "v2 took the cached fast path");
	CHECK(zoo_stat(Z2 ":v2", "try_to_reclaim_swap_freed") == 3, "v2 reclaimed 3 folios");
	printf("v2 trigger: %s: %s\n", o.r.report.object, o.r.report.msg);

	o = zoo_run(Z2 ":v3", "bytes", 0, 0, t.input, t.input_len, 1, NULL);
	CHECK(o.kind == WEFT_KIND_NONE, "v3 trigger: %s %s", weft_kind_name(o.kind), o.r.report.msg);
	CHECK(zoo_stat(Z2 ":v3", "batch_fallback") == 1, "v3 fell back");
	CHECK(zoo_stat(Z2 ":v3", "batch_fast_path") == 0, "v3 took no fast path");
	CHECK(zoo_stat(Z2 ":v3", "swap_slots_freed") == 4, "v3 freed the 4 slots (%llu)",
	      (unsigned long long)zoo_stat(Z2 ":v3", "swap_slots_freed"));
	o = zoo_run(Z2 ":per-entry", "bytes", 0, 0, t.input, t.input_len, 1, NULL);
	CHECK(o.kind == WEFT_KIND_NONE, "per-entry trigger: %s %s", weft_kind_name(o.kind),
	      o.r.report.msg);
	CHECK(zoo_stat(Z2 ":per-entry", "swap_entry_free") == 4, "per-entry freed 4 entries");

	/* dfs bound 0 finds it at once; bound 2 certifies the fixed ones */
	o = zoo_run(Z2 ":v2", "dfs", 0, 0, t.wl, t.wl_len, 100000, NULL);
	CHECK(o.kind == WEFT_KIND_SLOT_LEAK && o.executions == 1, "v2 dfs 0: %s after %llu",
	      weft_kind_name(o.kind), (unsigned long long)o.executions);
	const char *fixed[] = { "v3", "per-entry" };

	/* the race: a reclaim on CPU1 between CPU0's split and zap */
	o = zoo_run(Z2 ":v2", "dfs", 0, 0, race_wl, sizeof(race_wl), 1000000, NULL);
	CHECK(o.kind == WEFT_KIND_NONE && o.complete, "v2 race, bound 0: %s complete %d",
	      weft_kind_name(o.kind), o.complete);
	o = zoo_run(Z2 ":v2", "dfs", 0, 1, race_wl, sizeof(race_wl), 1000000, NULL);
	CHECK(o.kind == WEFT_KIND_SLOT_LEAK && o.r.preemptions == 1,
	      "v2 race, bound 1: %s with %u preemptions", weft_kind_name(o.kind), o.r.preemptions);
	printf("v2 race: dfs bound 1 found %s after %llu executions: %s\n", weft_kind_name(o.kind),
	       (unsigned long long)o.executions, o.r.report.msg);
	for (unsigned k = 0; k < 2; k++) {
		o = zoo_run(zoo_spec(Z2, fixed[k]), "dfs", 0, 1, race_wl, sizeof(race_wl), 1000000, NULL);
		CHECK(o.kind == WEFT_KIND_NONE && o.complete, "%s race dfs 1: %s (%s) complete %d",
		      fixed[k], weft_kind_name(o.kind), o.r.report.msg, o.complete);
		printf("%s: dfs bound 1 on the race workload: %llu executions, %.3f s\n", fixed[k],
		       (unsigned long long)o.executions, o.seconds);
	}
	/* v3 on the trigger, recorded: slot 1 (0x01 before the zap) is freed
	 * entry by entry, becomes a 0x40 pin with no folio while it waits in
	 * CPU0's return batch, and goes to 0 only at the drain; in between
	 * other primitives run; the verdict is clean. */
	struct weft_run_opts ro = { .sc = t.sc, .variant = 1, .record = true };
	struct weft_bytes b;
	struct weft_exec_result r;
	unsigned v3i;
	weft_scenario_find(Z2 ":v3", &v3i);
	ro.variant = v3i;
	weft_bytes_init(&b, t.sc, t.input, t.input_len);
	CHECK(weft_execute(&ro, &weft_strategy_bytes, &b, &r) == 0 && r.kind == WEFT_KIND_NONE,
	      "v3 recorded trigger is clean (%s)", weft_kind_name(r.kind));
	size_t nev;
	const struct weft_event *ev = weft_last_events(&nev);
	int pinned_at = -1, freed_at = -1;
	for (size_t i = 0; i < nev; i++) {
		char obj[64] = "";
		if (ev[i].loc == WEFT_NO_LOC || ev[i].ev != WEFT_EV_WRITE)
			continue;
		t.sc->describe(weft_last_world(), ev[i].loc, obj, sizeof(obj));
		if (strncmp(obj, "swap slot 1 (", 13))
			continue;
		if (ev[i].old == 0x01 && ev[i].val == 0x40)
			pinned_at = (int)i;
		else if (pinned_at >= 0 && ev[i].old == 0x40 && ev[i].val == 0)
			freed_at = (int)i;
	}
	CHECK(pinned_at >= 0 && freed_at > pinned_at + 10,
	      "slot 1: pinned 0x01->0x40 at event %d, freed 0x40->0 at event %d", pinned_at,
	      freed_at);
	printf("v3 trigger: slot 1 pinned (0x40, no folio) from event %d to %d of %zu: clean\n",
	       pinned_at, freed_at, nev);
	return check_done();
}
