/*
 * genome.c - the schedule genome: the version-1 input encoding (weft.h,
 * docs/strategies.md), how the bytes strategy runs one, and the fresh
 * genome a raw fuzzer input too short to be one stands for.
 *
 * A genome is a workload, a schedule mode and sparse overrides:
 *  - serial: the machine's non-preemptive default;
 *  - walk: a seeded random walk (uniform over the runnable threads, as the
 *    `random` strategy; or, with param p > 0, a preemption with probability
 *    p/256 at each point where the running thread could go on);
 *  - pct: Burckhardt, Kothari, Musuvathi, Nagarakatte, "A Randomized
 *    Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010:
 *    distinct random priorities, d-1 change points uniform over [1, k],
 *    with k carried by the input (so one input is one execution);
 *  - pos: Yuan, Yang, Gu, "Partial Order Aware Concurrency Sampling", CAV
 *    2018: every pending operation has a random priority, the highest runs;
 *    a thread's next operation is a new event (a fresh priority), and the
 *    pending operations of other threads that race with the one just run
 *    (same location, one of them a write) get fresh priorities too.
 * Overrides are keyed by (thread, operations that thread has done), so a
 * workload edit in one thread leaves every other thread's overrides where
 * they were; an override fires at the first decision at which its thread
 * has done at least k operations and is running (or just stopped), which
 * makes it robust to a thread whose k-th operation has no decision.
 *
 * Invariants: decoding never fails and reads no byte past len; the run
 * depends only on the genome and the scenario (the random streams are
 * seeded from the genome's seed); every answer is a runnable thread.
 */
#include <string.h>

#include <weft/strategy.h>

#include "internal.h"

/* Present in libweft; absent from the native build, where POS falls back
 * to fresh priorities for the running thread only. */
extern bool weft_thread_pending(unsigned tid, struct weft_step_info *out, bool *would_block)
	__attribute__((weak));

bool weft_input_is_genome(const uint8_t *buf, size_t len)
{
	return len >= 2 && buf[0] == WEFT_GENOME_MAGIC0 &&
	       (buf[1] == WEFT_GENOME_MAGIC1 || buf[1] == WEFT_GENOME_MAGIC2);
}

static uint8_t at(const uint8_t *buf, size_t len, size_t i)
{
	return i < len ? buf[i] : 0;
}

void weft_genome_decode(struct weft_genome *g, const uint8_t *buf, size_t len)
{
	size_t i;

	memset(g, 0, offsetof(struct weft_genome, wl));
	g->nr_ov = 0;
	g->mode = (uint8_t)(at(buf, len, 2) % WEFT_MODE__COUNT);
	g->param = at(buf, len, 3);
	g->seed = (uint32_t)at(buf, len, 4) | (uint32_t)at(buf, len, 5) << 8 |
		  (uint32_t)at(buf, len, 6) << 16 | (uint32_t)at(buf, len, 7) << 24;
	g->version = at(buf, len, 1) == WEFT_GENOME_MAGIC2 ? 2 : 1;
	if (g->version == 2)
		g->mem = at(buf, len, 8);
	i = g->version == 2 ? WEFT_GENOME_HEADER2 : WEFT_GENOME_HEADER;
	unsigned n = at(buf, len, i - 1);   /* the last header byte */
	i = weft_wl_decode(g->wl, &g->nr_ops, n, buf, len, i);
	WEFT_REC3_DECODE(g->ov, g->nr_ov, key, buf, len, i);
}

size_t weft_genome_encode(const struct weft_genome *g, uint8_t *buf, size_t cap)
{
	size_t i = 0;
	unsigned nov = g->nr_ov;

	size_t hdr = g->version == 2 ? WEFT_GENOME_HEADER2 : WEFT_GENOME_HEADER;

	if (cap < hdr + 2 * (size_t)g->nr_ops)
		return 0;
	while (nov && hdr + 2 * (size_t)g->nr_ops + 3 * (size_t)nov > cap)
		nov--;
	buf[i++] = WEFT_GENOME_MAGIC0;
	buf[i++] = g->version == 2 ? WEFT_GENOME_MAGIC2 : WEFT_GENOME_MAGIC1;
	buf[i++] = (uint8_t)(g->mode % WEFT_MODE__COUNT);
	buf[i++] = g->param;
	for (unsigned s = 0; s < 32; s += 8)
		buf[i++] = (uint8_t)(g->seed >> s);
	if (g->version == 2)
		buf[i++] = g->mem;
	i = weft_wl_encode(buf, i, g->wl, g->nr_ops);
	WEFT_REC3_ENCODE(buf, i, g->ov, nov, key);
	return i;
}

/* ---------------------------------------------------- fresh genomes */

/* g's workload: the legacy workload bytes wl ([n][thread|op, arg]...), n
 * bytes of them (0: none) */
static void genome_take_workload(struct weft_genome *g, const uint8_t *wl, size_t n)
{
	g->nr_ops = n ? wl[0] : 0;
	for (unsigned k = 0; k < g->nr_ops; k++) {
		g->wl[k].t_op = wl[1 + 2 * k];
		g->wl[k].arg = wl[2 + 2 * k];
	}
}

void weft_genome_fresh_workload(struct weft_genome *g, const struct weft_scenario *sc,
				struct weft_rng *r)
{
	uint8_t wl[1 + 2 * 255];

	genome_take_workload(g, wl, weft_random_workload(sc, r, wl, sizeof(wl)));
}

void weft_genome_fresh_delays(struct weft_genome *g, unsigned memory, struct weft_rng *r)
{
	if (!memory)
		return;
	/* a delay rate of 24..59 in 64: below 24 the store-buffering and
	 * message-passing bugs need 2-10x the executions (Z14, Z15 at rate 8
	 * against 40-56; `weft_fuzz_tool yield` with the rate fixed), above
	 * 56 Z16 needs 2x; the mutator's delay arm still moves a parent's
	 * rate anywhere in 0..63 */
	g->version = 2;
	g->mem = (uint8_t)((memory & 3u) | (24 + weft_rng_below(r, 36)) << 2);
}

/* The seed of a short input's walk genome: its length and its byte,
 * nothing else (no build, host or run state), so the crash file of a short
 * input re-runs the same genome in `weft import` and in every build. */
#define SHORT_INPUT_SEED 0x5745465453484f52ull   /* "WEFTSHOR" */

const uint8_t *weft_raw_input(const struct weft_scenario *sc, unsigned variant, unsigned memory,
			      const uint8_t *buf, size_t *len, uint8_t *scratch)
{
	struct weft_genome g;
	struct weft_rng r;

	if (*len >= 2)
		return buf;
	memset(&g, 0, offsetof(struct weft_genome, wl));
	g.nr_ov = 0;
	g.version = 1;
	uint8_t wl[1 + 2 * 255];
	size_t n = *len ? 0 : weft_dfs_workload(sc, variant < sc->nr_variants ? variant : 0, wl,
						 sizeof(wl), NULL);
	if (n) {
		/* dfs's first execution: the trigger it searches first, the
		 * default at every decision; a bug of that trigger under no
		 * preemption is found by the first input every engine runs */
		genome_take_workload(&g, wl, n);
		g.mode = WEFT_MODE_SERIAL;
	} else {
		weft_rng_seed(&r, SHORT_INPUT_SEED ^ (uint64_t)*len << 8 ^ (*len ? buf[0] : 0u));
		weft_genome_fresh_workload(&g, sc, &r);
		g.mode = WEFT_MODE_WALK;
		g.seed = (uint32_t)weft_rng_next(&r);
		weft_genome_fresh_delays(&g, memory, &r);
	}
	*len = weft_genome_encode(&g, scratch, WEFT_INPUT_MAX);
	return scratch;
}

/* ---------------------------------------------------------- running */

WEFT_DEFINE_STABLE_SORT(sort_ov, struct weft_override, key)

/* Called by weft_bytes_init for a genome input: the workload bytes go to
 * wl (legacy layout [n][ops]), the schedule to gr. */
size_t weft_genome_run_init(struct weft_genome_run *gr, const struct weft_scenario *sc,
			    const uint8_t *buf, size_t len, uint8_t *wl)
{
	struct weft_genome *g = &gr->g;

	weft_genome_decode(g, buf, len);
	gr->nr_threads = sc->nr_threads;
	memset(gr->nr_tov, 0, sizeof(gr->nr_tov));
	gr->nr_cov = 0;
	gr->nr_dov = 0;
	for (unsigned k = 0; k < g->nr_ov; k++) {
		struct weft_override o = g->ov[k];
		if ((o.b & 0x80) && g->version == 2 && (o.key & WEFT_OV_DELAY)) {
			o.key &= (uint16_t)~WEFT_OV_DELAY;
			gr->dov[gr->nr_dov++] = o;
		} else if (o.b & 0x80) {
			gr->cov[gr->nr_cov++] = o;
		} else {
			unsigned t = WEFT_OV_TID(o.key);
			gr->tov[t][gr->nr_tov[t]++] = o;
		}
	}
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++)
		sort_ov(gr->tov[t], gr->nr_tov[t]);
	sort_ov(gr->cov, gr->nr_cov);
	sort_ov(gr->dov, gr->nr_dov);
	return weft_wl_encode(wl, 0, g->wl, g->nr_ops);
}

/* Before the execution: the mode's random state. */
void weft_genome_run_begin(struct weft_genome_run *gr)
{
	const struct weft_genome *g = &gr->g;
	unsigned n = gr->nr_threads;

	memset(gr->cnt, 0, sizeof(gr->cnt));
	memset(gr->next_tov, 0, sizeof(gr->next_tov));
	memset(gr->prio, 0, sizeof(gr->prio));
	gr->last = -1;
	gr->nr_change = 0;
	weft_rng_seed(&gr->rng, (uint64_t)g->seed << 8 ^ (uint64_t)g->mode << 2 ^ 0x57454654ull);
	if (g->mode == WEFT_MODE_PCT) {
		unsigned d = 1 + (g->param & 7u);
		uint32_t k = 1u << (g->param >> 3 > 20 ? 20 : g->param >> 3);
		/* distinct priorities d .. d+n-1 in random order (Fisher-Yates) */
		for (unsigned i = 0; i < n; i++)
			gr->prio[i] = d + i;
		for (unsigned i = n; i > 1; i--) {
			unsigned j = weft_rng_below(&gr->rng, i);
			uint32_t t = gr->prio[i - 1];
			gr->prio[i - 1] = gr->prio[j];
			gr->prio[j] = t;
		}
		gr->nr_change = d - 1;
		for (unsigned i = 0; i < gr->nr_change; i++)
			gr->change[i] = 1 + weft_rng_below(&gr->rng, k);
	} else if (g->mode == WEFT_MODE_POS) {
		for (unsigned i = 0; i < n; i++)
			gr->prio[i] = (uint32_t)weft_rng_next(&gr->rng);
	}
}

/* Per decision and per step (mode_pick, weft_genome_run_value and _step)
 * the generator is internal.h's inline weft_rng_step() and
 * weft_rng_draw(): the same numbers as weft_rng_next() and
 * weft_rng_below(), which are calls (a shared libweft may interpose
 * them). */
static int mode_pick(struct weft_genome_run *gr, const struct weft_decision *d)
{
	const struct weft_genome *g = &gr->g;
	uint64_t m = d->runnable;

	switch (g->mode) {
	case WEFT_MODE_WALK:
		if (g->param && d->cur >= 0) {
			uint64_t others = m & ~(1ull << d->cur);
			if ((weft_rng_step(&gr->rng) & 0xff) >= g->param || !others)
				return d->cur;
			return (int)weft_nth_bit(others, weft_rng_draw(&gr->rng,
								weft_popcount64(others)));
		}
		return (int)weft_nth_bit(m, weft_rng_draw(&gr->rng, weft_popcount64(m)));
	case WEFT_MODE_PCT:
		/* change point i lowers the running thread's priority to i */
		if (d->cur >= 0)
			for (unsigned i = 0; i < gr->nr_change; i++)
				if (gr->change[i] == d->step)
					gr->prio[d->cur] = i + 1;
		__attribute__((fallthrough));   /* the highest priority runs */
	case WEFT_MODE_POS: {
		int best = -1;
		/* fairness: a spinner only when no fair thread is runnable */
		if (m & ~d->unfair)
			m &= ~d->unfair;
		for (; m; m &= m - 1) {
			unsigned t = (unsigned)__builtin_ctzll(m);
			if (best < 0 || gr->prio[t] > gr->prio[best])
				best = (int)t;
		}
		return best;
	}
	default:
		return d->dflt;
	}
}

/* WEFT_OV_KEY keeps 4 bits of thread: every scenario thread has a key of
 * its own only while scenarios have at most 16 (machine.c refuses more). */
_Static_assert(WEFT_MAX_THREADS <= 16, "WEFT_OV_KEY's thread field is 4 bits");

int weft_genome_run_pick(struct weft_genome_run *gr, const struct weft_decision *d)
{
	int base = mode_pick(gr, d);
	int a = d->cur >= 0 ? d->cur : gr->last >= 0 ? gr->last : 0;
	unsigned t = (unsigned)a;

	if (t >= WEFT_MAX_THREADS)
		return base;   /* overrides name threads 0..15 (4 bits) */

	if (gr->next_tov[t] < gr->nr_tov[t]) {
		const struct weft_override *o = &gr->tov[t][gr->next_tov[t]];
		if (WEFT_OV_K(o->key) <= gr->cnt[t]) {
			gr->next_tov[t]++;
			uint64_t others = d->runnable & ~(1ull << base);
			if (others)
				return (int)weft_nth_bit(others, o->b % weft_popcount64(others));
		}
	}
	return base;
}

uint32_t weft_genome_run_value(struct weft_genome_run *gr, uint32_t index, uint32_t n)
{
	for (unsigned k = 0; k < gr->nr_cov; k++) {
		if (gr->cov[k].key == index)
			return (gr->cov[k].b & 0x7fu) % n;
		if (gr->cov[k].key > index)
			break;
	}
	return gr->g.mode == WEFT_MODE_SERIAL ? 0 : weft_rng_draw(&gr->rng, n);
}

uint32_t weft_genome_run_delay(struct weft_genome_run *gr, uint32_t index, uint32_t ncodes)
{
	const struct weft_genome *g = &gr->g;

	if (g->version != 2 || ncodes < 2)
		return 0;
	for (unsigned k = 0; k < gr->nr_dov; k++) {
		if (gr->dov[k].key == index)
			return (gr->dov[k].b & 15u) % ncodes;
		if (gr->dov[k].key > index)
			break;
	}
	/* the rate r/64 in every mode but serial (its own stream: a delay
	 * draw never moves the schedule's random choices) */
	unsigned r = g->mem >> 2;
	if (g->mode == WEFT_MODE_SERIAL || !r)
		return 0;
	uint64_t x = weft_mix64((uint64_t)g->seed << 20 ^ index ^ 0x4d454d00000000ull);
	if ((x & 63) >= r)
		return 0;
	return 1 + (uint32_t)((x >> 8) % (ncodes - 1));
}

int weft_genome_run_memory(const struct weft_genome_run *gr)
{
	if (gr->g.version != 2)
		return -1;
	unsigned m = gr->g.mem & 3u;
	return (int)(m < WEFT_MEM__COUNT ? m : WEFT_MEM__COUNT - 1);
}

static bool races(const struct weft_step_info *a, const struct weft_step_info *b)
{
	if (a->loc == WEFT_NO_LOC || b->loc == WEFT_NO_LOC)
		return false;
	if (a->kind == WEFT_DEP_READ && b->kind == WEFT_DEP_READ)
		return false;
	if (a->kind == WEFT_DEP_NONE || b->kind == WEFT_DEP_NONE)
		return false;
	uint32_t as = a->size ? a->size : 1, bs = b->size ? b->size : 1;
	return a->loc < b->loc + bs && b->loc < a->loc + as;
}

void weft_genome_run_step(struct weft_genome_run *gr, const struct weft_step_info *si)
{
	unsigned t = si->tid;

	/* a non-preemptible region's record of RCU's reader slot rides on
	 * its operation's step: counting it would move every override and
	 * POS draw of a model that merely takes a spinlock */
	if (t >= WEFT_EXEC_MAX_THREADS || (si->flags & WEFT_STEP_CTX))
		return;
	if (t < WEFT_MAX_THREADS)   /* overrides name threads 0..15 (4 bits) */
		gr->cnt[t]++;
	gr->last = (int)t;
	if (gr->g.mode != WEFT_MODE_POS)
		return;
	gr->prio[t] = (uint32_t)weft_rng_step(&gr->rng);
	if (!weft_thread_pending || si->loc == WEFT_NO_LOC)
		return;
	for (unsigned u = 0; u < gr->nr_threads; u++) {
		struct weft_step_info pi;
		if (u == t || !weft_thread_pending(u, &pi, NULL))
			continue;
		if (races(si, &pi))
			gr->prio[u] = (uint32_t)weft_rng_step(&gr->rng);
	}
}
