/*
 * test_z13.c - ZOO Z13 (zonelist_update_seq, v5.19 .. v6.4), on the
 * installed kit:
 *  - noseq's trigger: a premature OOM (assertion in the slowpath) with 1
 *    preemption; z13's trigger: the timer interrupt delivered in the write
 *    section spins alone in read_seqbegin() (livelock, 1 delivery); the
 *    fix is clean on both;
 *  - dfs, bound 0 complete and clean and bound 1 the kind, on noseq's
 *    trigger workload (T0 `offline`, T1 `alloc`), z13's (T0 `offline`:
 *    the interrupt) and the pty one (T0 `offline`, T1 `tty`: printk()
 *    under the seqlock wants the port->lock of a reader);
 *  - the pty shape itself (dfs on the pty workload finds the interrupt's
 *    livelock first: the timer is pending from the start): T0 preempted
 *    inside the write section before its printk(), T1 takes port->lock and
 *    spins in read_seqbegin() alone while T0 spins on port->lock;
 *  - the fix is complete and clean under dfs bound 2 on all three;
 *  - random and pct d=2 over generated workloads find each buggy
 *    variant's kind from 5 seeds, every finding re-runs the same; the fix
 *    stays silent under random and pct, and the generated workloads reach
 *    the rebuild, the slowpath restart, the atomic allocations and the
 *    deferred printk.
 */
#include "zoo_test.h"

#define NOSEQ "z13-zonelist-seq:noseq"
#define Z13 "z13-zonelist-seq:z13"
#define Z13_FIX "z13-zonelist-seq:fix"
#define WL_NOSEQ "0200001200"
#define WL_IRQ "010000"
#define WL_TTY "0200001400"

/* T0 offline, T1 tty; at decision 9 (T0 has made the sequence odd, its
 * printk() is to come) T1 runs: the preemption. */
static void tty_shape(void)
{
	static const uint8_t in[] = { 2, 0x00, 0x00, 0x14, 0x00, 0x09, 0x00, 0x00 };
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(Z13, &vi);
	struct weft_bytes b;
	struct weft_exec_result r;
	const struct weft_event *ev;
	size_t n;

	CHECK(sc != NULL, "no %s", Z13);
	if (!sc)
		return;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .record = true };
	weft_bytes_init(&b, sc, in, sizeof(in));
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
	CHECK(r.kind == WEFT_KIND_LIVELOCK && r.preemptions == 1 && r.report.here.tid == 1 &&
	      r.report.here.site && !strcmp(r.report.here.site->func, "z13_read_seqbegin"),
	      "pty shape: %s, %u preemptions, T%d", weft_kind_name(r.kind), r.preemptions,
	      r.report.here.tid);
	ev = weft_last_events(&n);
	const struct weft_event *last0 = NULL;
	for (size_t i = 0; i < n; i++)
		if (ev[i].tid == 0)
			last0 = &ev[i];
	CHECK(last0 && last0->site && strstr(last0->site->what, "port_lock") &&
	      (last0->ev == WEFT_EV_BLOCK || (last0->flags & WEFT_EVF_FAILED)),
	      "pty shape: T0's last event is %s, not a wait for port->lock",
	      last0 && last0->site ? last0->site->what : "?");
	printf("%s pty shape: T1 spins in read_seqbegin() holding port->lock, T0 waits in "
	       "%s (step %u)\n", Z13, last0 && last0->site ? last0->site->what : "?",
	       last0 ? last0->step : 0);
	for (unsigned v = 0; v < sc->nr_variants; v++) {
		if (sc->variants[v].buggy)
			continue;
		o.variant = v;
		weft_bytes_init(&b, sc, in, sizeof(in));
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0 &&
		      r.kind == WEFT_KIND_NONE, "%s on the pty input: %s",
		      sc->variants[v].name, weft_kind_name(r.kind));
	}
}

int main(void)
{
	zoo_trigger(NOSEQ, NOSEQ, WEFT_KIND_ASSERT, 1, "z13_alloc", "__alloc_pages_may_oom");
	zoo_trigger_and_fix(Z13, Z13_FIX, WEFT_KIND_LIVELOCK, 1, "z13_read_seqbegin", "cpu_relax");
	zoo_trigger(Z13_FIX, NOSEQ, WEFT_KIND_NONE, 0, NULL, NULL);

	zoo_dfs_minimal(NOSEQ, WL_NOSEQ, 1, WEFT_KIND_ASSERT);
	zoo_dfs_minimal(Z13, WL_IRQ, 1, WEFT_KIND_LIVELOCK);
	zoo_dfs_minimal(Z13, WL_TTY, 1, WEFT_KIND_LIVELOCK);
	tty_shape();
	zoo_dfs_clean(Z13_FIX, WL_NOSEQ, 2);
	zoo_dfs_clean(Z13_FIX, WL_IRQ, 2);
	zoo_dfs_clean(Z13_FIX, WL_TTY, 2);

	zoo_search_random_pct(NOSEQ, 20000, WEFT_KIND_ASSERT);
	zoo_search_random_pct(Z13, 20000, WEFT_KIND_LIVELOCK);

	static const char *const must[] = {
		"build_all_zonelists", "slowpath_restart_zonelist_changed", "alloc_pages",
		"alloc_pages_atomic", "read_seqbegin_spins", "printk_deferred",
	};
	zoo_silent_random_pct(Z13_FIX, must, ZOO_N(must));
	return check_done();
}
