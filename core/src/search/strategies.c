/*
 * strategies.c - bytes, random, pct, dfs and replay strategies, and the
 * metrics and determinism decorators (see weft/strategy.h).
 *
 * Length: five strategies of 100-200 lines each on one ops interface and
 * one random stream; partial-order reduction has files of its own (dpor*.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "internal.h"

/* ------------------------------------------------------------------ rng */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void weft_rng_seed(struct weft_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

/* xoshiro256** itself: weft_rng_step() and weft_rng_draw() (internal.h,
 * inline: the exported functions below may be interposed in a shared
 * libweft, so the compiler calls them even from this file; the random
 * strategy draws one number per decision and two per workload operation,
 * and the machine draws a decision of random's itself, ops->uniform). */
uint64_t weft_rng_next(struct weft_rng *r)
{
	return weft_rng_step(r);
}

uint32_t weft_rng_below(struct weft_rng *r, uint32_t n)
{
	return weft_rng_draw(r, n);
}

static unsigned hint_of(const struct weft_scenario *sc)
{
	return sc->decision_hint ? sc->decision_hint : 1024;
}

/* ---------------------------------------------------------------- bytes */

WEFT_DEFINE_STABLE_SORT(sort_entries, struct weft_entry, pos)

void weft_bytes_init(struct weft_bytes *b, const struct weft_scenario *sc, const uint8_t *buf,
		     size_t len)
{
	unsigned hint = hint_of(sc);

	memset(b, 0, offsetof(struct weft_bytes, pre));
	b->next_pre = b->next_cho = 0;
	b->done = false;
	b->sc = sc;
	b->genome = weft_input_is_genome(buf, len);
	if (b->genome) {
		b->wl_len = weft_genome_run_init(&b->gr, sc, buf, len, b->wl);
		return;
	}
	weft_input_decode(&b->in, buf, len);
	if (len)
		b->wl_len = weft_input_workload(&b->in, b->wl, sizeof(b->wl));
	for (unsigned k = 0; k < b->in.nr_entries; k++) {
		struct weft_entry e = b->in.e[k];
		e.pos = (uint16_t)(e.pos % hint);
		if (e.b & 0x80)
			b->cho[b->nr_cho++] = e;
		else
			b->pre[b->nr_pre++] = e;
	}
	sort_entries(b->pre, b->nr_pre);
	sort_entries(b->cho, b->nr_cho);
}

static int bytes_begin(void *st, uint8_t *wl, size_t cap)
{
	struct weft_bytes *b = st;

	if (b->done)
		return -1;
	b->done = true;
	b->next_pre = b->next_cho = 0;
	if (b->genome)
		weft_genome_run_begin(&b->gr);
	return weft_begin_fixed_workload(wl, cap, b->wl, b->wl_len);
}

static int bytes_pick(void *st, const struct weft_decision *d)
{
	struct weft_bytes *b = st;

	if (b->genome)
		return weft_genome_run_pick(&b->gr, d);
	while (b->next_pre < b->nr_pre && b->pre[b->next_pre].pos < d->index)
		b->next_pre++;
	if (b->next_pre < b->nr_pre && b->pre[b->next_pre].pos == d->index) {
		uint8_t v = b->pre[b->next_pre].b;
		/* later entries at the same position are shadowed */
		while (b->next_pre < b->nr_pre && b->pre[b->next_pre].pos == d->index)
			b->next_pre++;
		uint64_t others = d->runnable & ~(1ull << d->dflt);
		if (!others)
			return d->dflt;
		return (int)weft_nth_bit(others, v % weft_popcount64(others));
	}
	return d->dflt;
}

static uint32_t bytes_value(void *st, uint32_t index, uint32_t n)
{
	struct weft_bytes *b = st;

	if (b->genome)
		return weft_genome_run_value(&b->gr, index, n);
	while (b->next_cho < b->nr_cho && b->cho[b->next_cho].pos < index)
		b->next_cho++;
	if (b->next_cho < b->nr_cho && b->cho[b->next_cho].pos == index)
		return (b->cho[b->next_cho].b & 0x7fu) % n;
	return 0;
}

static uint32_t bytes_delay(void *st, uint32_t index, uint32_t ncodes)
{
	struct weft_bytes *b = st;

	return b->genome ? weft_genome_run_delay(&b->gr, index, ncodes) : 0;
}

static int bytes_memory(void *st)
{
	struct weft_bytes *b = st;

	return b->genome ? weft_genome_run_memory(&b->gr) : -1;
}

/* A walk genome at param 0 without thread overrides picks as random
 * does: weft_genome_run_pick() is then mode_pick()'s uniform draw of the
 * runnable threads from gr.rng (fairness aside: it draws from them all, as
 * the machine's draw does), so the machine draws it itself (ops->uniform:
 * no call, no struct weft_decision), on the same generator, in the same
 * order with the choices' draws. Anything else asks. */
static struct weft_rng *bytes_uniform(void *st)
{
	struct weft_bytes *b = st;

	if (!b->genome || b->gr.g.mode != WEFT_MODE_WALK || b->gr.g.param)
		return NULL;
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++)
		if (b->gr.nr_tov[t])
			return NULL;
	return &b->gr.rng;
}

/* Only a genome counts operations per thread (its overrides' keys). */
static void bytes_step(void *st, const struct weft_step_info *si)
{
	struct weft_bytes *b = st;

	if (b->genome)
		weft_genome_run_step(&b->gr, si);
}

const struct weft_strategy_ops weft_strategy_bytes = {
	.name = "bytes",
	.begin = bytes_begin,
	.pick_next = bytes_pick,
	.pick_value = bytes_value,
	.on_step = bytes_step,
	.pick_delay = bytes_delay,
	.memory = bytes_memory,
	.uniform = bytes_uniform,
};

int weft_entries_from_decisions(const struct weft_scenario *sc,
				const struct weft_decision_rec *d, size_t nd,
				const uint32_t *choice_vals, size_t nc, struct weft_entry *out,
				size_t cap)
{
	size_t n = 0;
	unsigned hint = hint_of(sc);

	for (size_t i = 0; i < nd; i++) {
		if (d[i].chosen == d[i].dflt)
			continue;
		uint64_t others = d[i].runnable & ~(1ull << d[i].dflt);
		unsigned rank = weft_popcount64(others & ((1ull << d[i].chosen) - 1));
		if (n == cap || i >= hint)
			return -1;
		out[n].pos = (uint16_t)i;
		out[n].b = (uint8_t)rank;
		n++;
	}
	for (size_t i = 0; i < nc; i++) {
		if (!choice_vals[i])
			continue;
		if (n == cap || i >= hint || choice_vals[i] > 0x7f)
			return -1;
		out[n].pos = (uint16_t)i;
		out[n].b = (uint8_t)(0x80 | choice_vals[i]);
		n++;
	}
	return (int)n;
}

/* --------------------------------------------------------------- random */

size_t weft_random_workload(const struct weft_scenario *sc, struct weft_rng *r, uint8_t *wl,
			    size_t cap)
{
	unsigned nt = sc->nr_threads ? sc->nr_threads : 1;
	unsigned max = sc->max_ops ? sc->max_ops : 8;
	unsigned lim = nt * max < 255 ? nt * max : 255;
	unsigned n = 1 + weft_rng_draw(r, lim);

	if (1 + 2 * (size_t)n > cap)
		n = (unsigned)((cap - 1) / 2);
	wl[0] = (uint8_t)n;
	for (unsigned k = 0; k < n; k++) {
		uint64_t x = weft_rng_step(r);
		wl[1 + 2 * k] = (uint8_t)((weft_rng_draw(r, nt) << 4) |
					  (unsigned)(x % (sc->nr_opcodes ? sc->nr_opcodes : 1)));
		wl[2 + 2 * k] = (uint8_t)(x >> 32);
	}
	return 1 + 2 * (size_t)n;
}

int weft_begin_fixed_workload(uint8_t *wl, size_t cap, const uint8_t *fixed, size_t len)
{
	if (len > cap)
		return -1;
	if (len)   /* fixed may be NULL then */
		memcpy(wl, fixed, len);
	return (int)len;
}

static int fill_wl(const struct weft_scenario *sc, struct weft_rng *r, const uint8_t *fixed,
		   size_t fixed_len, uint8_t *wl, size_t cap)
{
	if (fixed)
		return weft_begin_fixed_workload(wl, cap, fixed, fixed_len);
	return (int)weft_random_workload(sc, r, wl, cap);
}

void weft_random_init(struct weft_random *r, const struct weft_scenario *sc, uint64_t seed,
		      const uint8_t *wl, size_t wl_len)
{
	r->sc = sc;
	weft_rng_seed(&r->rng, seed);
	r->fixed_wl = wl;
	r->fixed_wl_len = wl_len;
}

static int random_begin(void *st, uint8_t *wl, size_t cap)
{
	struct weft_random *r = st;

	return fill_wl(r->sc, &r->rng, r->fixed_wl, r->fixed_wl_len, wl, cap);
}

static int random_pick(void *st, const struct weft_decision *d)
{
	struct weft_random *r = st;

	return (int)weft_uniform_pick(&r->rng, d->runnable);
}

/* random_pick() reads d->runnable only: the machine may draw it itself */
static struct weft_rng *random_uniform(void *st)
{
	return &((struct weft_random *)st)->rng;
}

static uint32_t random_value(void *st, uint32_t index, uint32_t n)
{
	struct weft_random *r = st;

	(void)index;
	return weft_rng_draw(&r->rng, n);
}

/* The weak-memory probability model of random and pct (docs/strategies.md):
 * each store stays buffered with probability 1/2, for a delay code
 * uniform over 1..ncodes-1 (1..8 steps, then 16, 32, ... 1024). */
static uint32_t delay_draw(struct weft_rng *r, uint32_t ncodes)
{
	if (ncodes < 2 || !weft_rng_draw(r, 2))
		return 0;
	return 1 + weft_rng_draw(r, ncodes - 1);
}

static uint32_t random_delay(void *st, uint32_t index, uint32_t ncodes)
{
	struct weft_random *r = st;

	(void)index;
	return delay_draw(&r->rng, ncodes);
}

const struct weft_strategy_ops weft_strategy_random = {
	.name = "random",
	.begin = random_begin,
	.pick_next = random_pick,
	.pick_value = random_value,
	.pick_delay = random_delay,
	.uniform = random_uniform,
};

/* ------------------------------------------------------------------ pct */

void weft_pct_init(struct weft_pct *p, const struct weft_scenario *sc, uint64_t seed,
		   unsigned depth, const uint8_t *wl, size_t wl_len)
{
	memset(p, 0, sizeof(*p));
	p->sc = sc;
	weft_rng_seed(&p->rng, seed);
	p->depth = depth < 1 ? 1 : depth > 8 ? 8 : depth;
	p->k = 1;   /* grows to the longest execution seen */
	p->fixed_wl = wl;
	p->fixed_wl_len = wl_len;
}

static int pct_begin(void *st, uint8_t *wl, size_t cap)
{
	struct weft_pct *p = st;
	unsigned n = p->sc->nr_threads;

	/* distinct priorities d .. d+n-1 in random order (Fisher-Yates),
	 * scaled by 2^32 so that threads which appear later (interrupt
	 * handlers, spawned threads) get distinct random priorities between
	 * them (pct_pick), while change points 1..d-1 stay below all */
	memset(p->prio, 0, sizeof(p->prio));
	for (unsigned i = 0; i < n; i++)
		p->prio[i] = (uint64_t)(p->depth + i) << 32;
	for (unsigned i = n; i > 1; i--) {
		unsigned j = weft_rng_below(&p->rng, i);
		uint64_t t = p->prio[i - 1];
		p->prio[i - 1] = p->prio[j];
		p->prio[j] = t;
	}
	p->nr_change = p->depth - 1;
	for (unsigned i = 0; i < p->nr_change; i++)
		p->change[i] = 1 + weft_rng_below(&p->rng, p->k);
	return fill_wl(p->sc, &p->rng, p->fixed_wl, p->fixed_wl_len, wl, cap);
}

/* A thread the scenario does not declare (an interrupt handler, a spawned
 * thread), first seen: a priority in a random one of the n+1 gaps around
 * the declared threads' (d+i) << 32, distinct from every other thread's. */
static uint64_t pct_later_prio(struct weft_pct *p)
{
	for (;;) {
		uint64_t slot = weft_rng_below(&p->rng, p->sc->nr_threads + 1);
		uint64_t v = ((p->depth + slot) << 32) - 1 - (weft_rng_next(&p->rng) >> 34);
		bool taken = false;
		for (unsigned u = 0; u < WEFT_EXEC_MAX_THREADS && !taken; u++)
			taken = p->prio[u] == v;
		if (!taken)
			return v;
	}
}

static int pct_pick(void *st, const struct weft_decision *d)
{
	struct weft_pct *p = st;

	/* change point i lowers the running thread's priority to i */
	if (d->cur >= 0)
		for (unsigned i = 0; i < p->nr_change; i++)
			if (p->change[i] == d->step)
				p->prio[d->cur] = i + 1;
	int best = -1;
	/* fairness: a spinner only when no fair thread is runnable (pct's
	 * priorities would otherwise starve the thread it waits for) */
	uint64_t fair = d->runnable & ~d->unfair ? d->runnable & ~d->unfair : d->runnable;
	for (uint64_t m = fair; m; m &= m - 1) {
		unsigned t = (unsigned)__builtin_ctzll(m);
		if (!p->prio[t])
			p->prio[t] = pct_later_prio(p);
		if (best < 0 || p->prio[t] > p->prio[best])
			best = (int)t;
	}
	return best;
}

static uint32_t pct_value(void *st, uint32_t index, uint32_t n)
{
	struct weft_pct *p = st;
	uint64_t unfair = weft_choice_unfair();

	(void)index;
	/* fairness: a value that only repeats a wait loop's iteration (a
	 * spurious wake-up again, nothing changed) is passed over, as a
	 * spinning thread is (value 0 is never unfair) */
	if (__builtin_expect(unfair != 0, 0) && n <= 64) {
		uint64_t fair = (n == 64 ? ~0ull : (1ull << n) - 1) & ~unfair;
		uint32_t k = weft_rng_below(&p->rng, (uint32_t)__builtin_popcountll(fair));
		while (k--)
			fair &= fair - 1;
		return (uint32_t)__builtin_ctzll(fair);
	}
	return weft_rng_below(&p->rng, n);
}

static void pct_end(void *st, const struct weft_exec_result *r)
{
	struct weft_pct *p = st;

	if (r->steps > p->k)
		p->k = r->steps;
}

/* PCT's guarantee is about the schedule; delays are drawn as random's,
 * from PCT's own stream. */
static uint32_t pct_delay(void *st, uint32_t index, uint32_t ncodes)
{
	struct weft_pct *p = st;

	(void)index;
	return delay_draw(&p->rng, ncodes);
}

const struct weft_strategy_ops weft_strategy_pct = {
	.name = "pct",
	.begin = pct_begin,
	.pick_next = pct_pick,
	.pick_value = pct_value,
	.end = pct_end,
	.pick_delay = pct_delay,
};

/* ------------------------------------------------------------------ dfs */

void weft_dfs_init(struct weft_dfs *d, const struct weft_scenario *sc, unsigned bound,
		   const uint8_t *wl, size_t wl_len)
{
	memset(d, 0, offsetof(struct weft_dfs, f));
	d->sc = sc;
	d->bound = bound;
	d->fixed_wl = wl;
	d->fixed_wl_len = wl_len;
	d->delay_bound = WEFT_DFS_DELAY_BOUND;
	d->fair_bound = WEFT_BOUND_NONE;
}

/* What choosing alt at frame f costs: a preemption when the current thread
 * could go on and alt is another, or when alt spins while a fair thread
 * is runnable (fairness: the unfair choice). */
static unsigned frame_cost(const struct weft_dfs_frame *f, unsigned alt)
{
	return (f->cur_runnable == 1 && alt != f->dflt) || (f->unfair >> alt & 1);
}

/* Preemptions, delayed stores and unfair choices before the frame after p. */
static void frame_counts(const struct weft_dfs_frame *p, unsigned *pre, unsigned *del,
			 unsigned *unf)
{
	*pre = p->preempt_before + frame_cost(p, p->chosen);
	*del = p->delayed_before + (p->cur_runnable == 3 && p->chosen != 0);
	*unf = p->unfair_before + (p->unfair >> p->chosen & 1);
}

/* The alternative after `chosen` in the order: default, then the other
 * runnable threads ascending. -1 if none. */
static int next_alt(const struct weft_dfs_frame *f, unsigned chosen)
{
	uint64_t others = f->runnable & ~(1ull << f->dflt);

	if (chosen != f->dflt)
		others &= ~((2ull << chosen) - 1);
	return others ? __builtin_ctzll(others) : -1;
}

static int dfs_begin(void *st, uint8_t *wl, size_t cap)
{
	struct weft_dfs *d = st;

	if (d->exhausted)
		return -1;
	if (!d->started) {
		d->started = true;
		d->replay_len = 0;
	} else {
		uint32_t i = d->depth;
		bool found = false;
		while (i-- > 0) {
			struct weft_dfs_frame *f = &d->f[i];
			int alt = (int)f->chosen;
			while ((alt = next_alt(f, (unsigned)alt)) >= 0) {
				unsigned pre = f->preempt_before + frame_cost(f, (unsigned)alt);
				unsigned del = f->delayed_before + (f->cur_runnable == 3 && alt != 0);
				bool unfair = f->unfair >> alt & 1;
				if (pre > d->bound || del > d->delay_bound)
					continue;
				if (unfair && f->unfair_before + 1u > d->fair_bound) {
					/* the fairness bound, not the space; a branch
					 * that only repeats a spin iteration
					 * (weft_decision.spin_retry) is counted apart,
					 * and cut as well: the repeat is taken from what
					 * Weft sees (the site, the thread's changes), not
					 * from the thread's locals, so a bounded poll's
					 * give-up path is such a branch */
					if (f->retry1 == alt + 1)
						d->retry_pruned++;
					d->fair_pruned++;
					continue;
				}
				break;
			}
			if (alt >= 0) {
				f->chosen = (uint8_t)alt;
				d->replay_len = i + 1;
				found = true;
				break;
			}
		}
		if (!found) {
			d->exhausted = true;
			d->complete = !d->overflow && !d->wide_choice && !d->fair_pruned;
			return -1;
		}
	}
	d->depth = 0;
	return fill_wl(d->sc, NULL, d->fixed_wl ? d->fixed_wl : (const uint8_t *)"", d->fixed_wl_len,
		       wl, cap);
}

static void new_frame(struct weft_dfs *d, uint32_t i, uint64_t runnable, uint64_t unfair,
		      uint64_t retry, uint8_t dflt, uint8_t kind)
{
	struct weft_dfs_frame *f = &d->f[i];
	unsigned pre = 0, del = 0, unf = 0;

	if (i > 0)
		frame_counts(&d->f[i - 1], &pre, &del, &unf);
	f->runnable = runnable;
	f->unfair = unfair;
	f->retry1 = retry ? (uint8_t)(__builtin_ctzll(retry) + 1) : 0;
	f->dflt = dflt;
	f->cur_runnable = kind;
	f->chosen = dflt;
	f->preempt_before = (uint8_t)(pre > 255 ? 255 : pre);
	f->delayed_before = (uint8_t)(del > 255 ? 255 : del);
	f->unfair_before = (uint8_t)(unf > 255 ? 255 : unf);
}

static int dfs_pick(void *st, const struct weft_decision *dec)
{
	struct weft_dfs *d = st;
	uint32_t i = d->depth;

	if (i >= WEFT_DFS_MAX_DEPTH) {
		d->overflow = true;
		return dec->dflt;
	}
	d->depth++;
	struct weft_dfs_frame *f = &d->f[i];
	if (i < d->replay_len) {
		/* The replayed prefix must meet the same decisions. With two
		 * threads every decision's runnable mask is the same, so the
		 * default and whether the current thread could go on are
		 * compared too. */
		if (f->cur_runnable > 1 || f->runnable != dec->runnable || f->dflt != dec->dflt ||
		    f->cur_runnable != (dec->cur >= 0) || f->unfair != dec->unfair)
			d->overflow = true;   /* nondeterministic model: cannot certify */
		return f->chosen;
	}
	new_frame(d, i, dec->runnable, dec->unfair, dec->spin_retry & dec->unfair,
		  (uint8_t)dec->dflt, dec->cur >= 0);
	return dec->dflt;
}

/* A frame of its own whose alternatives are n values, 0 first (kind: the
 * frame's cur_runnable mark, 2 a value, 3 a delay code); replayed from the
 * prefix while there is one. */
static uint32_t dfs_choice_frame(struct weft_dfs *d, uint32_t n, uint8_t kind, uint64_t unfair)
{
	uint32_t i = d->depth;

	if (i >= WEFT_DFS_MAX_DEPTH) {
		d->overflow = true;
		return 0;
	}
	d->depth++;
	struct weft_dfs_frame *f = &d->f[i];
	uint64_t vals = (1ull << n) - 1;
	unfair &= vals;
	if (i < d->replay_len) {
		if (f->cur_runnable != kind || f->runnable != vals || f->unfair != unfair)
			d->overflow = true;   /* nondeterministic model */
		return f->chosen;
	}
	/* an unfair value only repeats a wait loop's iteration
	 * (weft_choice_unfair()): a spin retry, charged as an unfair thread */
	new_frame(d, i, vals, unfair, unfair, 0, kind);
	return 0;
}

/* A weft_choose() of n values: a frame of its own whose alternatives are
 * the values (0 first), at no preemption cost, so that complete covers
 * every value the model could choose; but an unfair value
 * (weft_choice_unfair(): a spurious wake-up again, nothing changed) costs
 * a preemption and counts against the fairness bound, as an unfair
 * thread does. */
static uint32_t dfs_value(void *st, uint32_t index, uint32_t n)
{
	struct weft_dfs *d = st;

	(void)index;
	if (n > WEFT_DFS_MAX_CHOICE) {
		d->wide_choice = true;
		return 0;
	}
	return dfs_choice_frame(d, n, 2, weft_choice_unfair());
}

/* A store's delay code (weak memory): a frame whose alternatives are the
 * codes, 0 (visible at once) first; a non-zero code counts against the
 * delay bound, not the preemption bound. */
static uint32_t dfs_delay(void *st, uint32_t index, uint32_t ncodes)
{
	struct weft_dfs *d = st;

	(void)index;
	if (ncodes > 16)
		ncodes = 16;
	if (!d->delay_bound || ncodes < 2)
		return 0;
	return dfs_choice_frame(d, ncodes, 3, 0);
}

static void dfs_end(void *st, const struct weft_exec_result *r)
{
	struct weft_dfs *d = st;

	(void)r;
	/* an execution that ended inside the prefix it was to replay diverged */
	if (d->depth < d->replay_len)
		d->overflow = true;
	d->executions++;
}

const struct weft_strategy_ops weft_strategy_dfs = {
	.name = "dfs",
	.begin = dfs_begin,
	.pick_next = dfs_pick,
	.pick_value = dfs_value,
	.end = dfs_end,
	.pick_delay = dfs_delay,
};

/* --------------------------------------------------------------- replay */

void weft_replay_strategy_init(struct weft_replay_strategy *r, const uint8_t *wl, size_t wl_len,
			       const struct weft_decision_rec *d, size_t nd,
			       const uint32_t *choices, size_t nc)
{
	memset(r, 0, sizeof(*r));
	r->wl = wl;
	r->wl_len = wl_len;
	r->d = d;
	r->nd = nd;
	r->choices = choices;
	r->nc = nc;
}

static int replay_begin(void *st, uint8_t *wl, size_t cap)
{
	struct weft_replay_strategy *r = st;

	return weft_begin_fixed_workload(wl, cap, r->wl, r->wl_len);
}

static void desync(struct weft_replay_strategy *r, uint32_t idx, const struct weft_decision *d,
		   const char *why)
{
	if (r->desync)
		return;
	r->desync = true;
	r->desync_index = idx;
	if (idx < r->nd)
		r->expected = r->d[idx];
	r->got.step = d->step;
	r->got.runnable = d->runnable;
	r->got.cur = d->cur < 0 ? 0xff : (uint8_t)d->cur;
	r->got.dflt = (uint8_t)d->dflt;
	r->got.chosen = (uint8_t)d->dflt;
	r->got.site_id = d->site ? d->site->id : 0;
	snprintf(r->why, sizeof(r->why), "%s", why);
}

static int replay_pick(void *st, const struct weft_decision *d)
{
	struct weft_replay_strategy *r = st;

	if (r->desync)
		return d->dflt;
	if (d->index >= r->nd) {
		desync(r, d->index, d, "the execution takes more decisions than were recorded");
		return d->dflt;
	}
	const struct weft_decision_rec *e = &r->d[d->index];
	uint32_t site = d->site ? d->site->id : 0;
	if (e->runnable != d->runnable || e->step != d->step || e->site_id != site ||
	    e->dflt != d->dflt) {
		desync(r, d->index, d,
		       e->runnable != d->runnable ? "a different set of threads is runnable"
		       : e->site_id != site      ? "the decision is taken at a different site"
		       : e->step != d->step      ? "the decision is taken at a different step"
						 : "a different default thread");
		return d->dflt;
	}
	return e->chosen;
}

static uint32_t replay_value(void *st, uint32_t index, uint32_t n)
{
	struct weft_replay_strategy *r = st;

	return index < r->nc ? r->choices[index] % n : 0;
}

static uint32_t replay_delay(void *st, uint32_t index, uint32_t ncodes)
{
	struct weft_replay_strategy *r = st;

	return index < r->nr_delays ? r->delays[index] % ncodes : 0;
}

void weft_replay_strategy_delays(struct weft_replay_strategy *r, const uint8_t *delays,
				 size_t n)
{
	r->delays = delays;
	r->nr_delays = n;
}

static void replay_end(void *st, const struct weft_exec_result *res)
{
	struct weft_replay_strategy *r = st;

	if (!r->desync && res->decisions < r->nd) {
		r->desync = true;
		r->desync_index = res->decisions;
		r->expected = r->d[res->decisions];
		memset(&r->got, 0, sizeof(r->got));
		snprintf(r->why, sizeof(r->why),
			 "the execution ended after %u of %zu recorded decisions", res->decisions,
			 r->nd);
	}
}

const struct weft_strategy_ops weft_strategy_replay = {
	.name = "replay",
	.begin = replay_begin,
	.pick_next = replay_pick,
	.pick_value = replay_value,
	.end = replay_end,
	.pick_delay = replay_delay,
};

/* -------------------------------------------------------------- metrics */

void weft_metrics_init(struct weft_metrics *m, const struct weft_strategy_ops *inner,
		       void *inner_st)
{
	memset(m, 0, sizeof(*m));
	m->inner = inner;
	m->inner_st = inner_st;
}

static int metrics_begin(void *st, uint8_t *wl, size_t cap)
{
	struct weft_metrics *m = st;

	return m->inner->begin ? m->inner->begin(m->inner_st, wl, cap) : 0;
}

static int metrics_pick(void *st, const struct weft_decision *d)
{
	struct weft_metrics *m = st;

	return m->inner->pick_next(m->inner_st, d);
}

static uint32_t metrics_value(void *st, uint32_t index, uint32_t n)
{
	struct weft_metrics *m = st;

	return m->inner->pick_value ? m->inner->pick_value(m->inner_st, index, n) : 0;
}

static uint32_t metrics_delay(void *st, uint32_t index, uint32_t ncodes)
{
	struct weft_metrics *m = st;

	return m->inner->pick_delay ? m->inner->pick_delay(m->inner_st, index, ncodes) : 0;
}

static int metrics_memory(void *st)
{
	struct weft_metrics *m = st;

	return m->inner->memory ? m->inner->memory(m->inner_st) : -1;
}

void weft_metrics_add(struct weft_metrics *m, const struct weft_exec_result *r)
{
	m->executions++;
	m->steps += r->steps;
	m->decisions += r->decisions;
	m->switches += r->switches;
	m->preemptions += r->preemptions;
	if (r->steps > m->max_steps)
		m->max_steps = r->steps;
}

static void metrics_end(void *st, const struct weft_exec_result *r)
{
	struct weft_metrics *m = st;

	weft_metrics_add(m, r);
	if (m->inner->end)
		m->inner->end(m->inner_st, r);
}

/* Forwarded: a wrapped strategy that wants dependence records (a genome's
 * per-thread counts) must get them through the decorator. Only the table
 * weft_metrics_ops() gives for such a strategy has it: the machine builds
 * a record at every step for a strategy with an on_step, and random, pct
 * and the others want none. */
static void metrics_step(void *st, const struct weft_step_info *si)
{
	struct weft_metrics *m = st;

	if (m->inner->on_step)
		m->inner->on_step(m->inner_st, si);
}

const struct weft_strategy_ops weft_strategy_metrics = {
	.name = "metrics",
	.begin = metrics_begin,
	.pick_next = metrics_pick,
	.pick_value = metrics_value,
	.end = metrics_end,
	.on_step = metrics_step,
	.pick_delay = metrics_delay,
	.memory = metrics_memory,
};

/* The same without on_step, for a wrapped strategy that has none. */
static const struct weft_strategy_ops weft_strategy_metrics_stepless = {
	.name = "metrics",
	.begin = metrics_begin,
	.pick_next = metrics_pick,
	.pick_value = metrics_value,
	.end = metrics_end,
	.pick_delay = metrics_delay,
	.memory = metrics_memory,
};

const struct weft_strategy_ops *weft_metrics_ops(const struct weft_metrics *m)
{
	return m->inner->on_step ? &weft_strategy_metrics : &weft_strategy_metrics_stepless;
}


