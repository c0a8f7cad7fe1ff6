/*
 * genome_mutate.c - generation and mutation of schedule genomes (weft.h,
 * docs/fuzzing.md), shared by the libFuzzer target, the AFL++ custom
 * mutator and the seed corpus writer.
 *
 * Every mutation is local: it changes the mode, the seed, one override or
 * one workload op, so a corpus input near a bug stays near it. Override
 * positions are drawn inside the parent's own execution (its operations per
 * thread, remembered by the target), never after its end. The shares of
 * the arms follow their measured yield (new features per try): a
 * Thompson-free, deterministic bandit, share_i ~ (gain_i + 1)/(tries_i + 2)
 * with a floor, counts halved every 4096 tries so the shares can follow the
 * campaign's phases.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <weft/fuzz.h>

static const char *const arm_names[WEFT_MUT__COUNT] = {
	"fresh", "mode", "seed", "ov-insert", "ov-move", "ov-remove",
	"op-insert", "op-delete", "op-change", "bytes", "delay",
};

const char *weft_mut_arm_name(unsigned arm)
{
	return arm < WEFT_MUT__COUNT ? arm_names[arm] : "?";
}

uint64_t weft_fuzz_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++) {
		h ^= data[i];
		h *= 0x100000001b3ull;
	}
	return h ^ size;
}

/* Mode classes: walk, sparse walks (a preemption with probability 4, 16
 * or 48 in 256 where the running thread could go on), pct d2, pct d3, pos,
 * serial, pct d8. Default prior shares 35/10/15/15/15/10/0 with the sparse
 * walks' 10 split in three (generation starts near the `random` and `pct`
 * strategies' distributions); measured yields move them. */
enum { MC_WALK, MC_P4, MC_P16, MC_P48, MC_PCT2, MC_PCT3, MC_POS, MC_SERIAL, MC_PCT8, MC__COUNT };
_Static_assert(MC__COUNT == WEFT_MUT_MODE_CLASSES, "the mode classes of <weft/fuzz.h>");
static const double mode_prior[MC__COUNT] = { 3.5, 0.33, 0.33, 0.34, 1.5, 1.5, 1.5, 1, 0 };
/* The warm-up's own shares (its forced fresh genomes, a random search):
 * near the mix whose expected executions per hit are within the least
 * factor of the best searcher's over the shallow zoo bugs (walk, walk p48,
 * pos, pct d8; no serial run finds any of them, Z5 only pct), the better of
 * two such mixes measured over 30-60 seeds (docs/fuzzing.md, "The warm-up's
 * mix"). */
static const double warmup_prior[MC__COUNT] = { 2, 0, 0, 2, 0, 0, 1, 0, 5 };
/* a walk class's genome parameter: its preemption chance in 256 */
static const uint8_t walk_param[MC_P48 + 1] = { [MC_WALK] = 0, [MC_P4] = 4, [MC_P16] = 16,
						 [MC_P48] = 48 };

void weft_mutator_init(struct weft_mutator *m, const struct weft_scenario *sc, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	m->sc = sc;
	weft_rng_seed(&m->rng, seed);
	m->adaptive = true;
	m->fixed_arm = -1;
	m->last_arm = -1;
	m->avg_steps = 64;
	/* prior: generation is what a campaign starts from (random search is
	 * strong on shallow bugs); the measured yields take over from here */
	m->gain[WEFT_MUT_FRESH] = 4;
	m->tries[WEFT_MUT_FRESH] = 4;
	memcpy(m->mode_prior, mode_prior, sizeof(m->mode_prior));
	memcpy(m->warmup_prior, warmup_prior, sizeof(m->warmup_prior));
	m->mode_bandit = true;
	m->warmup = 512;
	m->warmup_fresh = 900;
}

static uint32_t below(struct weft_mutator *m, uint32_t n)
{
	return n ? weft_rng_below(&m->rng, n) : 0;
}

/* One of the *nr elements (of sz bytes) of arr, picked by m, removed;
 * false where there is none. */
static bool remove_random(struct weft_mutator *m, void *arr, unsigned *nr, size_t sz)
{
	unsigned k;

	if (!*nr)
		return false;
	k = below(m, *nr);
	memmove((uint8_t *)arr + k * sz, (uint8_t *)arr + (k + 1) * sz, (*nr - k - 1) * sz);
	(*nr)--;
	return true;
}

static unsigned log2_ceil(uint32_t v)
{
	unsigned e = 0;

	while (e < 20 && (1u << e) < v)
		e++;
	return e;
}

static int mode_class(const struct weft_genome *g)
{
	switch (g->mode) {
	case WEFT_MODE_WALK:
		return !g->param ? MC_WALK : g->param < 10 ? MC_P4 : g->param < 32 ? MC_P16 : MC_P48;
	case WEFT_MODE_PCT:
		return (g->param & 7) == 7 ? MC_PCT8 : (g->param & 7) >= 2 ? MC_PCT3 : MC_PCT2;
	case WEFT_MODE_POS:
		return MC_POS;
	default:
		return MC_SERIAL;
	}
}

/* An index drawn in proportion to w[0..n), after each weight where gate is
 * NULL or gate[i] > 0 is raised to at least floor_share x sum (sum: the
 * weights' total before that); fallback if rounding leaves the draw past
 * the last weight. One rng draw. */
static unsigned draw_floored(struct weft_rng *rng, double *w, unsigned n, double sum,
			     double floor_share, const double *gate, unsigned fallback)
{
	for (unsigned i = 0; i < n; i++)
		if ((!gate || gate[i] > 0) && w[i] < floor_share * sum)
			w[i] = floor_share * sum;
	sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += w[i];
	double x = (double)(weft_rng_next(rng) >> 11) * 0x1p-53 * sum;
	for (unsigned i = 0; i < n; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return fallback;
}

static unsigned pick_mode(struct weft_mutator *m)
{
	double w[MC__COUNT], sum = 0;
	const double *prior = m->warm ? m->warmup_prior : m->mode_prior;

	for (unsigned c = 0; c < MC__COUNT; c++) {
		w[c] = prior[c] * (m->adaptive && m->mode_bandit ?
				   (m->mgain[c] + 1) / (m->mtries[c] + 2) : 1);
		sum += w[c];
	}
	if (!(sum > 0))
		return MC_WALK;
	return draw_floored(&m->rng, w, MC__COUNT, sum, 0.03, prior, MC_WALK);
}

/* A mode and its parameter (pct's k from the running mean length). */
static void random_mode(struct weft_mutator *m, struct weft_genome *g)
{
	unsigned e = log2_ceil(m->avg_steps);

	g->seed = (uint32_t)weft_rng_next(&m->rng);
	g->param = 0;
	unsigned c = pick_mode(m);
	switch (c) {
	case MC_WALK:
	case MC_P4:
	case MC_P16:
	case MC_P48:
		g->mode = WEFT_MODE_WALK;
		g->param = walk_param[c];
		break;
	case MC_PCT2:
		g->mode = WEFT_MODE_PCT;
		g->param = (uint8_t)(1 | e << 3);
		break;
	case MC_PCT3:
		g->mode = WEFT_MODE_PCT;
		g->param = (uint8_t)(2 | e << 3);
		break;
	case MC_PCT8:
		g->mode = WEFT_MODE_PCT;
		g->param = (uint8_t)(7 | e << 3);
		break;
	case MC_POS:
		g->mode = WEFT_MODE_POS;
		break;
	default:
		g->mode = WEFT_MODE_SERIAL;
		break;
	}
}

/* Weak memory: a version-2 genome asking for the target's model. */
static void make_v2(struct weft_mutator *m, struct weft_genome *g)
{
	if (g->version == 2)
		return;
	g->version = 2;
	g->mem = (uint8_t)(m->memory & 3u);
}

size_t weft_mutator_generate(struct weft_mutator *m, uint8_t *out, size_t cap)
{
	static struct weft_genome g;

	memset(&g, 0, offsetof(struct weft_genome, wl));
	g.nr_ov = 0;
	weft_genome_fresh_workload(&g, m->sc, &m->rng);
	random_mode(m, &g);
	weft_genome_fresh_delays(&g, m->memory, &m->rng);
	return weft_genome_encode(&g, out, cap);
}

/* The genome the target ran for data: a short input's fresh genome
 * (weft_raw_input) included, so its mutations are local edits of it. */
static void to_genome(struct weft_mutator *m, struct weft_genome *g, const uint8_t *data,
		      size_t size)
{
	static uint8_t fresh[WEFT_INPUT_MAX];

	data = weft_raw_input(m->sc, m->variant, m->memory, data, &size, fresh);
	if (weft_input_is_genome(data, size)) {
		weft_genome_decode(g, data, size);
		return;
	}
	/* a legacy input: its workload, serially (its schedule's positions
	 * mean nothing under overrides) */
	struct weft_input in;
	weft_input_decode(&in, data, size);
	memset(g, 0, offsetof(struct weft_genome, wl));
	g->nr_ov = 0;
	g->nr_ops = in.nr_wl_ops;
	for (unsigned k = 0; k < in.nr_wl_ops; k++) {
		g->wl[k].t_op = in.wl[k].t_op;
		g->wl[k].arg = in.wl[k].arg;
	}
}

static unsigned pick_arm(struct weft_mutator *m)
{
	double w[WEFT_MUT__COUNT], sum = 0;

	if (m->fixed_arm >= 0)
		return (unsigned)m->fixed_arm;
	/* A campaign starts as a random search over genomes, which is strong
	 * on shallow bugs: the first `warmup` mutations generate warmup_fresh
	 * in 1000 of the time, and after them that share decays as
	 * (warmup/total)^2 (a quarter at twice the warm-up, 1/16 at four
	 * times; about warmup more fresh genomes in all), so the local arms
	 * that reach deep states own the rest of a long campaign
	 * (docs/fuzzing.md, "the warm-up"). */
	if (m->adaptive && m->warmup && m->warmup_fresh) {
		uint64_t share = m->warmup_fresh;
		if (m->total >= m->warmup)
			share = share * m->warmup / (m->total + 1) * m->warmup / (m->total + 1);
		if (share && weft_rng_below(&m->rng, 1000) < share) {
			m->warm = true;   /* its mode from the warm-up's shares */
			return WEFT_MUT_FRESH;
		}
	}
	/* the delay arm only under weak memory (an sc target's arms and
	 * their draws are as before it existed) */
	unsigned na = m->memory ? WEFT_MUT__COUNT : WEFT_MUT_DELAY;
	for (unsigned a = 0; a < na; a++) {
		w[a] = m->adaptive ? (m->gain[a] + 1) / (m->tries[a] + 2) : 1;
		sum += w[a];
	}
	/* a floor of 2% per arm: a starved arm can still show it got better */
	return draw_floored(&m->rng, w, na, sum, 0.02, NULL, na - 1);
}

/* The delay arm: the rate r (each store delayed with probability r/64), or
 * one store's delay override (key bit 15 | store index; b = 0x80 | code)
 * inserted inside the parent's execution, moved a few stores or given
 * another code, or removed. */
static bool apply_delay(struct weft_mutator *m, struct weft_genome *g,
			const struct weft_fuzz_shape *sh)
{
	unsigned nd = 0, k;
	uint32_t stores = sh && sh->known && sh->stores ? sh->stores : m->avg_steps / 2 + 1;

	make_v2(m, g);
	for (k = 0; k < g->nr_ov; k++)
		nd += (g->ov[k].b & 0x80) && (g->ov[k].key & WEFT_OV_DELAY);
	switch (below(m, 4)) {
	case 0: {
		static const uint8_t rates[] = { 0, 2, 8, 16, 32, 48, 63 };
		uint8_t r = below(m, 2) ? rates[below(m, sizeof(rates))] : (uint8_t)below(m, 64);
		g->mem = (uint8_t)((g->mem & 3u) | r << 2);
		return true;
	}
	case 1:
		if (g->nr_ov >= WEFT_MAX_ENTRIES)
			return false;
		g->ov[g->nr_ov].key = (uint16_t)(WEFT_OV_DELAY | (below(m, stores) & 0x7fffu));
		g->ov[g->nr_ov].b = (uint8_t)(0x80 | below(m, WEFT_DELAY_CODES));
		g->nr_ov++;
		return true;
	default:
		if (!nd)
			return false;
		break;
	}
	unsigned i = below(m, nd);
	for (k = 0; k < g->nr_ov; k++)
		if ((g->ov[k].b & 0x80) && (g->ov[k].key & WEFT_OV_DELAY) && !i--)
			break;
	struct weft_override *o = &g->ov[k];
	if (below(m, 3)) {   /* move or recode */
		if (below(m, 2)) {
			int d = (int)below(m, 7) - 3, at = (int)(o->key & 0x7fffu) + (d ? d : 1);
			o->key = (uint16_t)(WEFT_OV_DELAY | (unsigned)(at < 0 ? 0 : at));
		} else {
			o->b = (uint8_t)(0x80 | below(m, WEFT_DELAY_CODES));
		}
		return true;
	}
	memmove(&g->ov[k], &g->ov[k + 1], (g->nr_ov - k - 1) * sizeof(g->ov[0]));
	g->nr_ov--;
	return true;
}

/* A thread with operations, weighted by how many (none known: any). */
static unsigned pick_thread(struct weft_mutator *m, const struct weft_fuzz_shape *sh,
			    uint32_t *k_max)
{
	unsigned nt = m->sc->nr_threads ? m->sc->nr_threads : 1;
	uint32_t total = 0;

	if (sh && sh->known)
		for (unsigned t = 0; t < nt; t++)
			total += sh->cnt[t];
	if (!total) {
		unsigned t = below(m, nt);
		*k_max = m->avg_steps / nt + 1;
		return t;
	}
	uint32_t x = below(m, total);
	for (unsigned t = 0; t < nt; t++) {
		if (x < sh->cnt[t]) {
			*k_max = sh->cnt[t];
			return t;
		}
		x -= sh->cnt[t];
	}
	*k_max = 1;
	return 0;
}

static uint8_t random_arg(struct weft_mutator *m)
{
	return (uint8_t)(below(m, 4) ? below(m, 8) : below(m, 256));
}

static bool apply(struct weft_mutator *m, unsigned arm, struct weft_genome *g,
		  const struct weft_fuzz_shape *sh)
{
	unsigned nt = m->sc->nr_threads ? m->sc->nr_threads : 1;
	unsigned nop = m->sc->nr_opcodes ? m->sc->nr_opcodes : 1;
	unsigned k;
	uint32_t kmax;

	switch (arm) {
	case WEFT_MUT_DELAY:
		return m->memory && apply_delay(m, g, sh);
	case WEFT_MUT_MODE: {
		uint8_t old = g->mode, oldp = g->param;
		uint32_t seed = g->seed;
		random_mode(m, g);
		if (g->mode == old && g->param == oldp)
			g->mode = (uint8_t)((g->mode + 1 + below(m, WEFT_MODE__COUNT - 1)) %
					    WEFT_MODE__COUNT);
		g->seed = seed;   /* the mode changes, not the stream */
		return true;
	}
	case WEFT_MUT_SEED:
		if (g->mode == WEFT_MODE_SERIAL)
			return false;
		g->seed = (uint32_t)weft_rng_next(&m->rng);
		return true;
	case WEFT_MUT_OV_INSERT: {
		if (g->nr_ov >= WEFT_MAX_ENTRIES)
			return false;
		unsigned t = pick_thread(m, sh, &kmax);
		struct weft_override *o = &g->ov[g->nr_ov++];
		o->key = WEFT_OV_KEY(t, below(m, kmax + 1));
		o->b = (uint8_t)below(m, nt > 2 ? nt - 1 : 1);
		return true;
	}
	case WEFT_MUT_OV_MOVE: {
		unsigned sched = 0;
		for (k = 0; k < g->nr_ov; k++)
			sched += !(g->ov[k].b & 0x80);
		if (!sched)
			return false;
		unsigned i = below(m, sched);
		for (k = 0; k < g->nr_ov; k++)
			if (!(g->ov[k].b & 0x80) && !i--)
				break;
		struct weft_override *o = &g->ov[k];
		unsigned t = WEFT_OV_TID(o->key), kk = WEFT_OV_K(o->key);
		switch (below(m, 4)) {
		case 0:
		case 1: {
			int d = (int)below(m, 9) - 4;
			if (!d)
				d = 1;
			kk = (unsigned)((int)kk + d < 0 ? 0 : (int)kk + d);
			break;
		}
		case 2:
			t = pick_thread(m, sh, &kmax);
			kk = below(m, kmax + 1);
			break;
		default:
			o->b = (uint8_t)((o->b + 1) & 0x7f);
			break;
		}
		o->key = WEFT_OV_KEY(t, kk);
		return true;
	}
	case WEFT_MUT_OV_REMOVE:
		return remove_random(m, g->ov, &g->nr_ov, sizeof(g->ov[0]));
	case WEFT_MUT_OP_INSERT:
		if (g->nr_ops >= 255)
			return false;
		k = below(m, g->nr_ops + 1);
		/* half of the time 1-4 copies of an existing op: repeating what
		 * a thread does is how deep states (counts) are reached */
		if (g->nr_ops && below(m, 2)) {
			unsigned src = below(m, g->nr_ops), copies = 1 + below(m, 4);
			uint8_t t_op = g->wl[src].t_op, arg = g->wl[src].arg;
			for (unsigned c = 0; c < copies && g->nr_ops < 255; c++) {
				memmove(&g->wl[k + 1], &g->wl[k], (g->nr_ops - k) * sizeof(g->wl[0]));
				g->wl[k].t_op = t_op;
				g->wl[k].arg = arg;
				g->nr_ops++;
			}
			return true;
		}
		memmove(&g->wl[k + 1], &g->wl[k], (g->nr_ops - k) * sizeof(g->wl[0]));
		g->wl[k].t_op = (uint8_t)(below(m, nt) << 4 | below(m, nop));
		g->wl[k].arg = random_arg(m);
		g->nr_ops++;
		return true;
	case WEFT_MUT_OP_DELETE:
		return remove_random(m, g->wl, &g->nr_ops, sizeof(g->wl[0]));
	case WEFT_MUT_OP_CHANGE:
		if (!g->nr_ops)
			return false;
		k = below(m, g->nr_ops);
		switch (below(m, 3)) {
		case 0:
			g->wl[k].t_op = (uint8_t)(below(m, nt) << 4 | (g->wl[k].t_op & 15));
			break;
		case 1:
			g->wl[k].t_op = (uint8_t)((g->wl[k].t_op & 0xf0) | below(m, nop));
			break;
		default:
			/* a nearby argument in the low or the high nibble (models
			 * pack two fields into it), or any */
			switch (below(m, 3)) {
			case 0:
				g->wl[k].arg = (uint8_t)(g->wl[k].arg + 1 + below(m, 3));
				break;
			case 1:
				g->wl[k].arg = (uint8_t)(g->wl[k].arg + 16 * (1 + below(m, 3)));
				break;
			default:
				g->wl[k].arg = random_arg(m);
				break;
			}
			break;
		}
		return true;
	default:
		return false;
	}
}

size_t weft_mutator_mutate(struct weft_mutator *m, uint8_t *data, size_t size, size_t max,
			   uint32_t seed, const struct weft_fuzz_shape *shape)
{
	static struct weft_genome g;
	static uint8_t out[WEFT_INPUT_MAX];
	unsigned arm;
	size_t n = 0;

	m->rng.s[0] ^= seed;
	weft_rng_next(&m->rng);
	m->warm = false;
	arm = pick_arm(m);
	if (max > sizeof(out))
		max = sizeof(out);
	/* a parent without workload ops (the serial seed) has nothing a
	 * local arm can keep */
	if (arm != WEFT_MUT_FRESH && m->fixed_arm < 0) {
		to_genome(m, &g, data, size);
		if (!g.nr_ops)
			arm = WEFT_MUT_FRESH;
	}
	if (arm == WEFT_MUT_BYTES && m->byte_mutate && size >= 2 && weft_input_is_genome(data, size) &&
	    max > 2) {
		n = 2 + m->byte_mutate(data + 2, size - 2, max - 2);
		goto done;
	}
	if (arm == WEFT_MUT_FRESH || arm == WEFT_MUT_BYTES) {
		arm = WEFT_MUT_FRESH;
		n = weft_mutator_generate(m, out, max);
	} else {
		to_genome(m, &g, data, size);
		/* an arm with nothing to act on falls back to another */
		for (unsigned tries = 0; !apply(m, arm, &g, shape) && tries < 4; tries++)
			arm = WEFT_MUT_MODE + below(m, WEFT_MUT_OP_CHANGE);
		n = weft_genome_encode(&g, out, max);
	}
	if (!n)
		n = weft_mutator_generate(m, out, max);
	m->warm = false;
	memcpy(data, out, n);
done:
	m->tries[arm] += 1;
	m->total++;
	if (m->total % 4096 == 0)
		for (unsigned a = 0; a < WEFT_MUT__COUNT; a++) {
			m->gain[a] /= 2;
			m->tries[a] /= 2;
			if (a < MC__COUNT) {
				m->mgain[a] /= 2;
				m->mtries[a] /= 2;
			}
		}
	m->last_arm = (int)arm;
	m->last_mode = -1;
	if (weft_input_is_genome(data, n)) {
		struct weft_genome h;
		h.mode = (uint8_t)((n > 2 ? data[2] : 0) % WEFT_MODE__COUNT);
		h.param = n > 3 ? data[3] : 0;
		m->last_mode = mode_class(&h);
		m->mtries[m->last_mode] += 1;
	}
	m->last_hash = weft_fuzz_hash(data, n);
	return n;
}

void weft_mutator_reward(struct weft_mutator *m, const uint8_t *data, size_t size, bool gain,
			 uint32_t steps)
{
	m->avg_steps = (uint32_t)(((uint64_t)m->avg_steps * 15 + steps) / 16);
	if (!m->avg_steps)
		m->avg_steps = 1;
	if (m->last_arm < 0 || weft_fuzz_hash(data, size) != m->last_hash)
		return;
	if (gain) {
		m->gain[m->last_arm] += 1;
		if (m->last_mode >= 0)
			m->mgain[m->last_mode] += 1;
	}
	m->last_arm = -1;
}

/* ------------------------------------------------------------ seeds */

int weft_fuzz_write_seeds(const struct weft_scenario *sc, unsigned vi, const char *dir,
			  unsigned n, uint64_t seed)
{
	static struct weft_mutator m;
	static struct weft_bytes b;
	uint8_t buf[WEFT_INPUT_MAX];
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = sc->default_lock,
				   .no_trace_hash = true, .checks = WEFT_CHECKS_DEFAULT,
				   .memory = (uint8_t)sc->memory };
	struct weft_exec_result r;
	unsigned written = 0, tries = 0;
	char path[4096];

	if (mkdir(dir, 0777) && errno != EEXIST)
		return -1;
	weft_mutator_init(&m, sc, seed);
	m.memory = sc->memory;
	m.variant = vi;
	/* the serial run of the empty workload, as the legacy empty input */
	buf[0] = WEFT_GENOME_MAGIC0;
	buf[1] = WEFT_GENOME_MAGIC1;
	snprintf(path, sizeof(path), "%s/serial-empty", dir);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, 2, f) != 2 || fclose(f))
		return -1;
	written++;
	/* measure the execution length first: pct's k */
	for (unsigned i = 0; i < 16; i++) {
		size_t len = weft_mutator_generate(&m, buf, sizeof(buf));
		weft_bytes_init(&b, sc, buf, len);
		if (weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0)
			weft_mutator_reward(&m, buf, len, false, r.steps);
	}
	while (written <= n && tries < 50 * n) {
		size_t len = weft_mutator_generate(&m, buf, sizeof(buf));
		tries++;
		weft_bytes_init(&b, sc, buf, len);
		if (weft_execute(&o, &weft_strategy_bytes, &b, &r) || r.kind != WEFT_KIND_NONE)
			continue;   /* a buggy variant's seeds stay clean */
		snprintf(path, sizeof(path), "%s/gen-%03u", dir, written);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
			return -1;
		written++;
	}
	return (int)written;
}

int weft_fuzz_write_dict(const struct weft_scenario *sc, unsigned vi, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "# %s:%s - genome tokens (weft fuzz / fuzz/make-corpus)\n"
		   "# workload ops: [thread<<4 | opcode][arg]\n",
		sc->name, sc->variants[vi].name);
	for (unsigned t = 0; t < sc->nr_threads && t < 16; t++)
		for (unsigned op = 0; op < sc->nr_opcodes; op++)
			fprintf(f, "op_t%u_%s=\"\\x%02x\\x00\"\n", t,
				sc->opnames ? sc->opnames[op] : "op", t << 4 | op);
	/* genome overrides [k lo][tid << 4 | k hi][b]: preempt thread t after
	 * its k-th operation (the byte mutations insert whole ones) */
	fprintf(f, "# genome overrides: preempt thread t after its k-th operation\n");
	for (unsigned t = 0; t < sc->nr_threads && t < 16; t++)
		for (unsigned k = 0; k < 32; k += 2)
			fprintf(f, "ov_t%u_%u=\"\\x%02x\\x%02x\\x00\"\n", t, k, k, t << 4);
	return fclose(f) ? -1 : 0;
}
