/*
 * test_diff_searchers.c - the sampling searchers against exhaustive dfs.
 *
 * Random small programs (2-3 threads of reads, writes, atomics, critical
 * sections and weft_choose() values on shared variables) are explored by
 * plain dfs: the set of final states (the world's bytes) that exist. Each
 * sampling searcher must reach only states from it, and with enough seeded
 * runs the states its documented guarantee promises:
 *  - random (uniform over the runnable threads and choice values): every
 *    final state;
 *  - pct of depth d (Burckhardt et al., ASPLOS 2010: distinct priorities
 *    d..d+n-1 in random order, d-1 change points uniform over [1, k], k
 *    the longest run seen; at the i-th the running thread's priority drops
 *    to i; the highest runnable runs): every state of its schedule space,
 *    which a reference enumerates exhaustively (every priority order,
 *    every choice of change points in [1, k], k the longest run dfs saw)
 *    with a priority scheduler of its own;
 *  - the schedule genome's modes (the fuzzer's searchers, through the
 *    bytes strategy): walk (uniform, and with a preemption probability)
 *    and pos (Yuan et al., CAV 2018) every final state, pct (depth and
 *    k = 16 from its parameter) every state of its schedule space.
 * A searcher that never reaches a state it should (biased choices, change
 * points or priorities ignored, a stale estimate of the run's length, a
 * mode that misreads its parameter) is reported with the program.
 * WEFT_DIFF_SIZE=large runs more programs; WEFT_DIFF_SEED another sequence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "hash_set.h"
#include "lockstep.h"
#include "plain_ops.h"

#define NT 3
#define MAXOPS 3
#define RUNS 6000      /* sampled runs per searcher and program */

enum opk { O_R, O_W, O_A, O_CS, O_CHOOSE, OP__N };
PLAIN_OPS_MATCH(O_R, O_W, O_A, O_CS);
static const char *const opname[OP__N] = { "read", "write", "atomic_inc", "spin_cs", "choose" };

struct op {
	uint8_t k, x;
};

static struct {
	unsigned nt;
	unsigned n[NT];
	struct op ops[NT][MAXOPS];
} P;

struct world {
	int x[3];
	spinlock_t l;
};

LS_ONE_LOCK_SETUP(sr_setup, struct world)

static void sr_thread(void *w, unsigned t)
{
	struct world *W = w;
	int last = 0;

	for (unsigned i = 0; i < P.n[t]; i++) {
		const struct op *o = &P.ops[t][i];
		if (!plain_step(o->k, W->x, o->x, (last + (int)t + 1) & 7, &W->l, (o->x + 1) % 3,
				(int)t, &last) && o->k == O_CHOOSE)
			WRITE_ONCE(W->x[o->x], (int)WEFT_CHOOSE(3, "a value") + 8 * (int)t);
	}
}

static struct weft_scenario srsc = {
	.name = "diff-searchers", .summary = "differential: the sampling searchers",
	LS_ONE_PROGRAM, .nr_cpus = NT, .nr_threads = 2, .world_size = sizeof(struct world),
	.setup = sr_setup, .thread = sr_thread,
};

/* ----------------------------------------------------------- state sets */

/* a program with this many final states or more is not small enough */
#define MAXS 512

static uint64_t state(void)
{
	const uint8_t *b = weft_last_world();
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < sizeof(((struct world *)0)->x); i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static const uint8_t empty_wl[1] = { 0 };
static uint32_t max_steps;   /* the longest execution dfs ran */

/* every final state within bound preemptions; false if dfs did not finish */
static bool dfs_states(unsigned bound, struct hash_set *out)
{
	static struct weft_dfs d;
	struct weft_run_opts o = { .sc = &srsc, .no_trace_hash = true };
	struct weft_exec_result r;
	unsigned n = 0;

	out->n = 0;
	weft_dfs_init(&d, &srsc, bound, empty_wl, sizeof(empty_wl));
	max_steps = 0;
	while (n++ < 20000 && weft_execute(&o, &weft_strategy_dfs, &d, &r) == 0) {
		hash_set_add(out, state());
		if (r.steps > max_steps)
			max_steps = r.steps;
	}
	return d.complete && out->n < MAXS;
}

enum searcher { S_RANDOM, S_PCT1, S_PCT2, S_PCT3, S_WALK, S_WALK_P, S_POS, S_GPCT2, S_GPCT3, S__N };
static const char *const sname[S__N] = { "random", "pct depth 1", "pct depth 2", "pct depth 3",
					 "genome walk", "genome walk p=96", "genome pos",
					 "genome pct depth 2", "genome pct depth 3" };
/* the depth of a pct searcher (0: must reach every state) */
static const unsigned depth_of[S__N] = { 0, 1, 2, 3, 0, 0, 0, 2, 3 };
static const unsigned runs_of[S__N] = { RUNS, RUNS, RUNS, 4 * RUNS, RUNS, RUNS, RUNS, RUNS,
					4 * RUNS };

/* ---------------------------------------------------- the pct reference */

/* PCT's schedule space, one schedule at a time: a priority order and
 * change points, the highest-priority runnable thread runs. */
struct pctref {
	uint32_t prio[NT];
	uint32_t change[2];
	unsigned nc;
};

static int pctref_pick(void *st, const struct weft_decision *d)
{
	struct pctref *p = st;
	int best = -1;

	if (d->cur >= 0)
		for (unsigned i = 0; i < p->nc; i++)
			if (p->change[i] == d->step)
				p->prio[d->cur] = i + 1;
	for (uint64_t m = d->runnable; m; m &= m - 1) {
		unsigned t = (unsigned)__builtin_ctzll(m);
		if (best < 0 || p->prio[t] > p->prio[best])
			best = (int)t;
	}
	return best;
}

static const struct weft_strategy_ops pctref_ops = {
	.name = "pct-reference",
	.pick_next = pctref_pick,
};

/* Every state pct of depth d with change points in [1, k] can reach (on
 * programs without weft_choose(): pct's values are its own stream's). */
static void pct_space(unsigned d, uint32_t k, struct hash_set *out, bool values_any)
{
	static const uint8_t perms[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
					     { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
	struct weft_run_opts o = { .sc = &srsc, .no_trace_hash = true };
	struct weft_exec_result r;
	unsigned n = P.nt, nperm = n == 2 ? 2 : 6;

	(void)values_any;
	out->n = 0;
	for (unsigned pi = 0; pi < nperm; pi++) {
		uint32_t c0max = d >= 2 ? k : 1, c1max = d >= 3 ? k : 1;
		for (uint32_t c0 = 1; c0 <= c0max; c0++)
			for (uint32_t c1 = 1; c1 <= c1max; c1++) {
				struct pctref p = { .nc = d - 1, .change = { c0, c1 } };
				for (unsigned t = 0; t < n; t++) {
					/* a permutation of d..d+n-1 (n == 2: its first two) */
					unsigned rank = n == 2 ? (pi ? 1u - t : t) : perms[pi][t];
					p.prio[t] = d + rank;
				}
				weft_execute(&o, &pctref_ops, &p, &r);
				hash_set_add(out, state());
			}
	}
}

/* A genome input: mode, param, seed; an empty workload. */
static size_t genome(uint8_t *b, unsigned mode, unsigned param, uint32_t seed)
{
	b[0] = WEFT_GENOME_MAGIC0;
	b[1] = WEFT_GENOME_MAGIC1;
	b[2] = (uint8_t)mode;
	b[3] = (uint8_t)param;
	for (int i = 0; i < 4; i++)
		b[4 + i] = (uint8_t)(seed >> (8 * i));
	b[8] = 0;   /* no workload ops */
	return WEFT_GENOME_HEADER;
}

static void sample(enum searcher s, uint64_t seed, struct hash_set *out)
{
	static struct weft_random rnd;
	static struct weft_pct pct;
	static struct weft_bytes by;
	struct weft_run_opts o = { .sc = &srsc, .no_trace_hash = true };
	struct weft_exec_result r;
	uint8_t g[16];

	out->n = 0;
	if (s == S_RANDOM)
		weft_random_init(&rnd, &srsc, seed, empty_wl, sizeof(empty_wl));
	if (s >= S_PCT1 && s <= S_PCT3)
		weft_pct_init(&pct, &srsc, seed, 1 + (unsigned)(s - S_PCT1), empty_wl, sizeof(empty_wl));
	for (unsigned i = 0; i < runs_of[s]; i++) {
		switch (s) {
		case S_RANDOM:
			weft_execute(&o, &weft_strategy_random, &rnd, &r);
			break;
		case S_PCT1:
		case S_PCT2:
		case S_PCT3:
			weft_execute(&o, &weft_strategy_pct, &pct, &r);
			break;
		default: {
			/* a fresh genome per run, as a fuzzer's inputs */
			unsigned mode = s == S_POS ? WEFT_MODE_POS : s >= S_GPCT2 ? WEFT_MODE_PCT
										: WEFT_MODE_WALK;
			unsigned param = s == S_WALK_P ? 96 : s == S_GPCT2 ? (1 | 4 << 3)
				       : s == S_GPCT3 ? (2 | 4 << 3) : 0;
			size_t n = genome(g, mode, param, (uint32_t)(seed * 7919 + i));
			weft_bytes_init(&by, &srsc, g, n);
			weft_execute(&o, &weft_strategy_bytes, &by, &r);
			break;
		}
		}
		hash_set_add(out, state());
	}
}

/* ------------------------------------------------------------ generation */

static void gen(void)
{
	memset(&P, 0, sizeof(P));
	P.nt = 2 + (ls_rnd(3) == 0);
	for (unsigned t = 0; t < P.nt; t++) {
		P.n[t] = 1 + ls_rnd(P.nt == 2 ? MAXOPS : 2);
		for (unsigned i = 0; i < P.n[t]; i++) {
			unsigned r = ls_rnd(100);
			P.ops[t][i].k = (uint8_t)(r < 30 ? O_R : r < 60 ? O_W : r < 75 ? O_A : r < 90 ? O_CS
								       : O_CHOOSE);
			P.ops[t][i].x = (uint8_t)ls_rnd(2);
		}
	}
}

static void print_prog(FILE *f)
{
	for (unsigned t = 0; t < P.nt; t++) {
		fprintf(f, "     T%u:", t);
		for (unsigned i = 0; i < P.n[t]; i++)
			fprintf(f, " %s(x%u)", opname[P.ops[t][i].k], P.ops[t][i].x);
		fprintf(f, "\n");
	}
}

/* ------------------------------------------------------------ the checks */

static unsigned failures, tested;

static void check_prog(long p, uint64_t seed)
{
	static struct hash_set all, space, got;

	srsc.nr_threads = P.nt;
	if (!dfs_states(WEFT_BOUND_NONE, &all))
		return;
	tested++;
	for (enum searcher s = 0; s < S__N; s++) {
		sample(s, seed + s, &got);
		const struct hash_set *want = &all;
		if (depth_of[s]) {
			/* k: the longest run (pct's estimate grows to it), or the
			 * genome's 2^(param >> 3) */
			pct_space(depth_of[s], s <= S_PCT3 ? max_steps : 16, &space, false);
			want = &space;
		}
		unsigned missing = 0, foreign = 0;
		/* pct's values are its stream's: its space is checked on
		 * programs without weft_choose() */
		bool chooses = false;
		for (unsigned t = 0; t < P.nt; t++)
			for (unsigned i = 0; i < P.n[t]; i++)
				chooses |= P.ops[t][i].k == O_CHOOSE;
		for (size_t i = 0; i < want->n && !(depth_of[s] && chooses); i++)
			missing += !hash_set_has(&got, want->h[i]);
		for (size_t i = 0; i < got.n; i++)
			foreign += !hash_set_has(&all, got.h[i]);
		CHECK(!missing && !foreign,
		      "program %ld, %s: %u of the %zu states it must reach missing, %u it reached that "
		      "plain dfs does not (%u runs)", p, sname[s], missing, want->n, foreign,
		      runs_of[s]);
		if ((missing || foreign) && failures++ < 5)
			print_prog(stderr);
	}
}

int main(void)
{
	unsigned nprog = ls_large() ? 400 : 30;

	weft_machine_init();
	uint64_t seed = ls_seed();
	for (unsigned p = 0; p < nprog; p++) {
		gen();
		check_prog(p, seed * 1000 + p * 16);
	}
	printf("%u programs (%u small enough for exhaustive dfs, %s size), %u searchers, %u runs "
	       "each\n", nprog, tested, ls_large() ? "large" : "quick", S__N, RUNS);
	CHECK(tested >= nprog * 3 / 4, "too few programs small enough (%u)", tested);
	return check_done();
}
