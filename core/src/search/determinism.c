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
	size_t ny;
	const uint8_t *y = weft_last_delays(&ny);

	/* the bytes encoding has no delays: a weak execution that delayed a
	 * store has no such input */
	for (size_t i = 0; i < ny; i++)
		if (y[i])
			return 0;
	return weft_last_input_nodelays(sc, buf, cap);
}

size_t weft_last_input_nodelays(const struct weft_scenario *sc, uint8_t *buf, size_t cap)
{
	size_t nd, nc, nw;
	const struct weft_decision_rec *d = weft_last_decisions(&nd);
	const uint32_t *c = weft_last_choices(&nc);
	const uint8_t *w = weft_last_workload(&nw);
	struct weft_input in;
	int ne;

	memset(&in, 0, sizeof(in));
	ne = weft_entries_from_decisions(sc, d, nd, c, nc, in.e, WEFT_MAX_ENTRIES);
	if (ne < 0)
		return 0;
	in.nr_entries = (unsigned)ne;
	weft_input_set_workload(&in, w, nw);
	return weft_input_encode(&in, buf, cap);
}

/* ----------------------------------------------------------- determinism */

/* A copy of the last execution's decisions, choices, workload and delays
 * (the machine's own are overwritten by the re-runs that replay them). */
struct last_copy {
	struct weft_decision_rec *d;
	uint32_t *c;
	size_t nd, nc, nw, ny;
	uint8_t wl[WEFT_INPUT_MAX];
};
static uint8_t last_delays[WEFT_MAX_DELAYS];

static int last_copy_take(struct last_copy *l)
{
	const struct weft_decision_rec *d0 = weft_last_decisions(&l->nd);
	const uint32_t *c0 = weft_last_choices(&l->nc);
	const uint8_t *w0 = weft_last_workload(&l->nw);
	const uint8_t *y0 = weft_last_delays(&l->ny);

	l->d = malloc((l->nd ? l->nd : 1) * sizeof(*l->d));
	l->c = malloc((l->nc ? l->nc : 1) * sizeof(*l->c));
	if (!l->d || !l->c) {
		free(l->d);
		free(l->c);
		return WEFT_ENOMEM;
	}
	/* an execution that reported before its first decision recorded none
	 * (d0 may then be NULL: memcpy from NULL is undefined even for 0) */
	if (l->nd)
		memcpy(l->d, d0, l->nd * sizeof(*l->d));
	if (l->nc)
		memcpy(l->c, c0, l->nc * sizeof(*l->c));
	if (l->nw)
		memcpy(l->wl, w0, l->nw);
	memcpy(last_delays, y0, l->ny);
	return 0;
}

/* A replay strategy over the copy, with its delays or without. */
static void last_copy_replay(struct last_copy *l, struct weft_replay_strategy *rs, bool delays)
{
	weft_replay_strategy_init(rs, l->wl, l->nw, l->d, l->nd, l->c, l->nc);
	if (delays)
		weft_replay_strategy_delays(rs, last_delays, l->ny);
}

static void last_copy_free(struct last_copy *l)
{
	free(l->d);
	free(l->c);
}

int weft_check_determinism_rerun(const struct weft_run_opts *o,
				 const struct weft_exec_result *first,
				 struct weft_exec_result *again, char *why, size_t n)
{
	struct last_copy l;
	struct weft_replay_strategy rs;
	struct weft_run_opts ro = *o;
	int rc = last_copy_take(&l);

	if (rc)
		return rc;
	last_copy_replay(&l, &rs, true);
	ro.memory = (uint8_t)weft_last_memory();   /* as run (a genome may narrow it) */
	ro.feedback = false;
	ro.record = true;   /* the caller gets the full trace of the re-run */
	ro.no_trace_hash = false;
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
	rc = weft_execute(&ro, &weft_strategy_replay, &rs, again);
	if (rc == 0 && (rs.desync || again->kind != first->kind ||
			(!o->no_trace_hash && again->trace_hash != first->trace_hash) ||
			(o->no_trace_hash && again->steps != first->steps))) {
		if (o->no_trace_hash)
			snprintf(why, n, "nondeterministic execution: %s then %s in %u then %u steps%s%s",
				 weft_kind_name(first->kind), weft_kind_name(again->kind),
				 first->steps, again->steps, rs.desync ? "; " : "",
				 rs.desync ? rs.why : "");
		else
			snprintf(why, n,
				 "nondeterministic execution: trace hash %016llx then %016llx%s%s",
				 (unsigned long long)first->trace_hash,
				 (unsigned long long)again->trace_hash, rs.desync ? "; " : "",
				 rs.desync ? rs.why : "");
		rc = WEFT_EDESYNC;
	}
	if (rc == 0 && o->no_trace_hash) {
		/* The first run kept no trace hash (a search's execution): the
		 * re-run above followed its decisions to its verdict in as many
		 * steps; a second re-run must then give the same trace hash. */
		struct weft_exec_result twice;
		last_copy_replay(&l, &rs, true);
		rc = weft_execute(&ro, &weft_strategy_replay, &rs, &twice);
		if (rc == 0 && (rs.desync || twice.trace_hash != again->trace_hash ||
				twice.kind != again->kind)) {
			snprintf(why, n,
				 "nondeterministic execution: its re-runs give trace hash %016llx then "
				 "%016llx%s%s",
				 (unsigned long long)again->trace_hash,
				 (unsigned long long)twice.trace_hash, rs.desync ? "; " : "",
				 rs.desync ? rs.why : "");
			rc = WEFT_EDESYNC;
		}
	}
	last_copy_free(&l);
	return rc;
}

int weft_check_determinism(const struct weft_run_opts *o, const struct weft_exec_result *first,
			   char *why, size_t n)
{
	struct weft_exec_result again;

	return weft_check_determinism_rerun(o, first, &again, why, n);
}

/* ------------------------------------------------------- weak memory */

int weft_check_needs_weak(const struct weft_run_opts *o, const struct weft_exec_result *first)
{
	struct last_copy l;
	struct weft_replay_strategy rs;
	struct weft_exec_result again;
	struct weft_run_opts ro = *o;

	if (weft_last_memory() == WEFT_MEM_SC)
		return 0;
	int rc = last_copy_take(&l);
	if (rc)
		return rc;
	enum weft_memory_model mem = weft_last_memory();
	last_copy_replay(&l, &rs, false);
	ro.memory = WEFT_MEM_SC;
	ro.record = false;
	ro.feedback = false;
	ro.lockdep_persist = false;
	rc = weft_execute(&ro, &weft_strategy_replay, &rs, &again);
	int needs = rs.desync || again.kind != first->kind;
	/* the execution again, as it ran: the caller's last execution */
	last_copy_replay(&l, &rs, true);
	ro = *o;
	ro.memory = (uint8_t)mem;
	ro.record = true;
	ro.feedback = false;
	if (!rc)
		rc = weft_execute(&ro, &weft_strategy_replay, &rs, &again);
	last_copy_free(&l);
	return rc ? rc : needs;
}
