/*
 * determinism.c - the determinism-check decorator: re-run the last
 * execution from its recorded workload and decisions, compare trace hashes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

size_t weft_last_input(const struct weft_scenario *sc, uint8_t *buf, size_t cap)
{
	size_t nd, nc, nw, ny;
	const struct weft_decision_rec *d = weft_last_decisions(&nd);
	const uint32_t *c = weft_last_choices(&nc);
	const uint8_t *w = weft_last_workload(&nw);
	const uint8_t *y = weft_last_delays(&ny);
	struct weft_input in;
	int ne;

	/* the bytes encoding has no delays: a weak execution that delayed a
	 * store has no such input */
	for (size_t i = 0; i < ny; i++)
		if (y[i])
			return 0;

	memset(&in, 0, sizeof(in));
	ne = weft_entries_from_decisions(sc, d, nd, c, nc, in.e, WEFT_MAX_ENTRIES);
	if (ne < 0)
		return 0;
	in.nr_entries = (unsigned)ne;
	if (nw) {
		in.nr_wl_ops = w[0];
		for (unsigned k = 0; k < in.nr_wl_ops && 2 + 2 * (size_t)k < nw; k++) {
			in.wl[k].t_op = w[1 + 2 * k];
			in.wl[k].arg = w[2 + 2 * k];
		}
	}
	return weft_input_encode(&in, buf, cap);
}

/* ----------------------------------------------------------- determinism */

int weft_check_determinism(const struct weft_run_opts *o, const struct weft_exec_result *first,
			   char *why, size_t n)
{
	size_t nd, nc, nw;
	const struct weft_decision_rec *d0 = weft_last_decisions(&nd);
	const uint32_t *c0 = weft_last_choices(&nc);
	const uint8_t *w0 = weft_last_workload(&nw);
	struct weft_decision_rec *d = malloc((nd ? nd : 1) * sizeof(*d));
	uint32_t *c = malloc((nc ? nc : 1) * sizeof(*c));
	uint8_t wl[WEFT_INPUT_MAX];
	struct weft_replay_strategy rs;
	struct weft_exec_result again;
	struct weft_run_opts ro = *o;
	int rc = 0;

	if (!d || !c) {
		free(d);
		free(c);
		return WEFT_ENOMEM;
	}
	/* an execution that reported before its first decision recorded none
	 * (d0 may then be NULL: memcpy from NULL is undefined even for 0) */
	if (nd)
		memcpy(d, d0, nd * sizeof(*d));
	if (nc)
		memcpy(c, c0, nc * sizeof(*c));
	if (nw)
		memcpy(wl, w0, nw);
	weft_replay_strategy_init(&rs, wl, nw, d, nd, c, nc);
	static uint8_t delays[WEFT_MAX_DELAYS];
	size_t ny;
	const uint8_t *y0 = weft_last_delays(&ny);
	memcpy(delays, y0, ny);
	weft_replay_strategy_delays(&rs, delays, ny);
	ro.memory = (uint8_t)weft_last_memory();   /* as run (a genome may narrow it) */
	ro.feedback = false;
	ro.record = true;   /* the caller gets the full trace of the re-run */
	/* lockdep-lite: the re-run starts from a fresh graph seeded with what
	 * the first run's report took from earlier executions, as a replay
	 * file will (the persistent graph already holds this run's edges) */
	static struct weft_lockdep_fact seed[WEFT_LOCKDEP_MAX_FACTS];
	size_t nseed;
	const struct weft_lockdep_fact *w = weft_lockdep_last_witness(&nseed);
	if (o->lockdep_persist) {
		memcpy(seed, w, nseed * sizeof(*seed));
		ro.lockdep_persist = false;
		ro.lockdep_seed = seed;
		ro.nr_lockdep_seed = nseed;
	}
	rc = weft_execute(&ro, &weft_strategy_replay, &rs, &again);
	if (rc == 0 && (rs.desync || again.trace_hash != first->trace_hash ||
			again.kind != first->kind)) {
		snprintf(why, n,
			 "nondeterministic execution: trace hash %016llx then %016llx%s%s",
			 (unsigned long long)first->trace_hash,
			 (unsigned long long)again.trace_hash, rs.desync ? "; " : "",
			 rs.desync ? rs.why : "");
		rc = WEFT_EDESYNC;
	}
	free(d);
	free(c);
	return rc;
}

/* ------------------------------------------------------- weak memory */

int weft_check_needs_weak(const struct weft_run_opts *o, const struct weft_exec_result *first)
{
	size_t nd, nc, nw;
	const struct weft_decision_rec *d0 = weft_last_decisions(&nd);
	const uint32_t *c0 = weft_last_choices(&nc);
	const uint8_t *w0 = weft_last_workload(&nw);
	struct weft_decision_rec *d = malloc((nd ? nd : 1) * sizeof(*d));
	uint32_t *c = malloc((nc ? nc : 1) * sizeof(*c));
	uint8_t wl[WEFT_INPUT_MAX];
	struct weft_replay_strategy rs;
	struct weft_exec_result again;
	struct weft_run_opts ro = *o;

	if (weft_last_memory() == WEFT_MEM_SC) {
		free(d);
		free(c);
		return 0;
	}
	if (!d || !c) {
		free(d);
		free(c);
		return WEFT_ENOMEM;
	}
	if (nd)
		memcpy(d, d0, nd * sizeof(*d));
	if (nc)
		memcpy(c, c0, nc * sizeof(*c));
	if (nw)
		memcpy(wl, w0, nw);
	static uint8_t delays[WEFT_MAX_DELAYS];
	size_t ny;
	const uint8_t *y0 = weft_last_delays(&ny);
	enum weft_memory_model mem = weft_last_memory();
	memcpy(delays, y0, ny);
	weft_replay_strategy_init(&rs, wl, nw, d, nd, c, nc);
	ro.memory = WEFT_MEM_SC;
	ro.record = false;
	ro.feedback = false;
	ro.lockdep_persist = false;
	int rc = weft_execute(&ro, &weft_strategy_replay, &rs, &again);
	int needs = rs.desync || again.kind != first->kind;
	/* the execution again, as it ran: the caller's last execution */
	weft_replay_strategy_init(&rs, wl, nw, d, nd, c, nc);
	weft_replay_strategy_delays(&rs, delays, ny);
	ro = *o;
	ro.memory = (uint8_t)mem;
	ro.record = true;
	ro.feedback = false;
	if (!rc)
		rc = weft_execute(&ro, &weft_strategy_replay, &rs, &again);
	free(d);
	free(c);
	return rc ? rc : needs;
}
