/*
 * minimize.c - shrink a failing execution while keeping its verdict
 * (report kind and site), over the decoded structure rather than bytes.
 *
 * A candidate is a workload (ops per thread, as in the bytes encoding) and
 * a sparse schedule over the default (non-preemptive) choice: entries "the
 * k-th time thread c reaches a scheduling point at site s, run thread t"
 * (keyed by program point, not by decision number, so removing one entry
 * or one op does not move the others), plus "the i-th weft_choose()
 * returns v" entries.
 * Unlike the bytes encoding it has no 64-entry or position cap, so a
 * finding of the random strategy with dozens of preemptions can be
 * minimized too; the result is converted to the bytes encoding at the end.
 *
 * Passes: schedule entries by ddmin (Zeller and Hildebrandt, "Simplifying
 * and Isolating Failure-Inducing Input", TSE 2002); a preemption-bounded
 * DFS (Musuvathi and Qadeer, PLDI 2007) below the current preemption count
 * on the current workload, bounds tried upwards, so the first hit has the
 * fewest preemptions any schedule of that workload needs; workload ops by
 * ddmin; each op (and all of them at once) dropped with a bounded search
 * for a new schedule of the smaller workload, since an op's removal moves
 * the program points the old schedule named (down to zero ops); fewer
 * steps (simpler op arguments, earlier preemptions); fewer threads (all
 * ops of a thread at once); when nothing else helps, pairs of ops dropped
 * together. Last, the canonical form: arguments zeroed where the verdict
 * allows (ops sharing an argument change it together), so an argument the
 * model ignores never tells two findings of one trace apart, and the
 * threads renamed to the smallest form of equal measure, so a race found
 * with the roles swapped gives the same file.
 *
 * Length: about a thousand lines, the passes (60-180 lines each) on one
 * candidate type, one sparse strategy and one context, all private here;
 * a split would make them a header's interface for no second user.
 *
 * Invariant: the current candidate always reproduces the verdict, and each
 * accepted candidate is strictly smaller in (preemptions, ops, steps,
 * bytes, sum of op arguments) lexicographically, so the loop terminates;
 * the renaming (a finite loop over permutations) also takes a candidate of
 * equal measure that is smaller in cand_cmp's order.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/replay.h>

#define MIN_MAX_EXECS 400000u
#define MIN_DFS_EXECS 20000u    /* per bound */
#define MIN_DFS_BOUND 3         /* highest bound searched */
#define MIN_DFS_OPS 40          /* larger workloads wait for the ops pass */
#define MIN_DROP_EXECS 4000u   /* per bound, per op dropped with a new schedule */
#define MIN_PAIR_OPS 12          /* pairs of ops dropped together up to this many ops */
#define MIN_PAIR_EXECS 1000u    /* per bound, per pair */
#define MIN_MAX_PRE 4096
#define MIN_MAX_CHO 256
#define MIN_MAX_DLY 256

/* Weak memory: dly[] are the stores kept buffered (the idx-th store of the
 * execution gets delay code `code`); every other store is visible at once.
 * ddmin over them removes each reordering the verdict does not need. */
/* A sparse array's entry: the value of one index that is not 0 */
struct idx_val {
	uint32_t idx, v;
};

struct cand {
	unsigned nr_ops, nr_pre, nr_cho, nr_dly;
	struct weft_wl_op wl[255];
	struct { uint32_t occ, site; uint8_t cur, t; } pre[MIN_MAX_PRE];
	struct idx_val cho[MIN_MAX_CHO];
	struct idx_val dly[MIN_MAX_DLY];   /* v: the delay code */
};

/* The value of index in a sparse array (0 where it has none) */
static uint32_t idx_val_at(const struct idx_val *e, unsigned n, uint32_t index)
{
	/* few entries: a linear scan */
	for (unsigned k = 0; k < n; k++)
		if (e[k].idx == index)
			return e[k].v;
	return 0;
}

/* Value v of index i (not 0) added to a sparse array of at most cap;
 * false when it is full */
static bool idx_val_add(struct idx_val *e, unsigned *n, unsigned cap, size_t i, uint32_t v)
{
	if (*n == cap)
		return false;
	e[*n].idx = (uint32_t)i;
	e[*n].v = v;
	++*n;
	return true;
}

/* Occurrence counts of (current thread, site) pairs in one execution. */
#define OCC_SLOTS 2048
struct occ_tab {
	struct { uint32_t site, n; uint8_t cur, used; } e[OCC_SLOTS];
	unsigned nr;
};

/* The k (from 1) of this occurrence of (cur, site); 0 if the table is full. */
static uint32_t occ_next(struct occ_tab *o, uint8_t cur, uint32_t site)
{
	uint32_t h = (site ^ (uint32_t)cur * 0x9e3779b9u) * 0x85ebca6bu;

	for (unsigned i = 0; i < OCC_SLOTS; i++) {
		unsigned k = (h + i) & (OCC_SLOTS - 1);
		if (!o->e[k].used) {
			if (o->nr >= OCC_SLOTS * 3 / 4)
				return 0;
			o->e[k].used = 1;
			o->e[k].cur = cur;
			o->e[k].site = site;
			o->e[k].n = 0;
			o->nr++;
		}
		if (o->e[k].cur == cur && o->e[k].site == site)
			return ++o->e[k].n;
	}
	return 0;
}

/* The sparse-schedule strategy of a candidate. */
struct sparse {
	const struct cand *c;
	unsigned next_pre;
	struct occ_tab *occ;
};

static int sparse_begin(void *st, uint8_t *wl, size_t cap)
{
	struct sparse *s = st;
	const struct cand *c = s->c;

	s->next_pre = 0;
	memset(s->occ, 0, sizeof(*s->occ));
	if (!c->nr_ops)
		return 0;
	if (1 + 2 * (size_t)c->nr_ops > cap)
		return -1;
	wl[0] = (uint8_t)c->nr_ops;
	for (unsigned k = 0; k < c->nr_ops; k++) {
		wl[1 + 2 * k] = c->wl[k].t_op;
		wl[2 + 2 * k] = c->wl[k].arg;
	}
	return 1 + 2 * (int)c->nr_ops;
}

static int sparse_pick(void *st, const struct weft_decision *d)
{
	struct sparse *s = st;
	const struct cand *c = s->c;

	uint8_t cur = d->cur < 0 ? 0xff : (uint8_t)d->cur;
	uint32_t site = d->site ? d->site->id : 0;
	uint32_t k = occ_next(s->occ, cur, site);

	if (!k)
		return d->dflt;
	for (unsigned i = 0; i < c->nr_pre; i++)
		if (c->pre[i].occ == k && c->pre[i].site == site && c->pre[i].cur == cur) {
			unsigned t = c->pre[i].t;
			if (t < WEFT_EXEC_MAX_THREADS && (d->runnable >> t & 1))
				return (int)t;
			break;
		}
	return d->dflt;
}

static uint32_t sparse_value(void *st, uint32_t index, uint32_t n)
{
	struct sparse *s = st;

	return idx_val_at(s->c->cho, s->c->nr_cho, index) % n;
}

static uint32_t sparse_delay(void *st, uint32_t index, uint32_t ncodes)
{
	struct sparse *s = st;

	return idx_val_at(s->c->dly, s->c->nr_dly, index) % ncodes;
}

static const struct weft_strategy_ops sparse_ops = {
	.name = "minimize",
	.begin = sparse_begin,
	.pick_next = sparse_pick,
	.pick_value = sparse_value,
	.pick_delay = sparse_delay,
};

struct mctx {
	const struct weft_scenario *sc;
	struct weft_run_opts o;
	enum weft_kind kind;
	uint32_t site;
	uint64_t execs;
	struct cand *cur, *a, *b;     /* current, two scratch candidates */
	struct weft_min_measure m;
	unsigned args;                /* sum of cur's op arguments */
	bool by_args;                 /* args is the last key (the final pass) */
	struct weft_dfs *dfs;         /* &fixed->d */
	struct dfs_fixed *fixed;
	struct weft_exec_result last;
	struct occ_tab *occ;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t site_of(const struct weft_exec_result *r)
{
	return r->report.here.valid && r->report.here.site ? r->report.here.site->id : 0;
}

static uint32_t threads_used(const struct weft_scenario *sc, const struct cand *c)
{
	uint32_t mask = 0;
	unsigned nt = sc->nr_threads ? sc->nr_threads : 1;

	for (unsigned k = 0; k < c->nr_ops; k++)
		mask |= 1u << ((c->wl[k].t_op >> 4) % nt);
	return (uint32_t)__builtin_popcount(mask);
}

static void measure(const struct mctx *x, const struct cand *c, const struct weft_exec_result *r,
		    struct weft_min_measure *m)
{
	m->preemptions = r->preemptions;
	m->ops = c->nr_ops;
	m->steps = r->steps;
	m->bytes = 1 + 2 * c->nr_ops + 3 * (c->nr_pre + c->nr_cho) + 2 * c->nr_dly;
	if (!c->nr_ops && !c->nr_pre && !c->nr_cho && !c->nr_dly)
		m->bytes = 0;
	m->threads = threads_used(x->sc, c);
}

/* Run c; true (and *m) if it gives the target verdict. */
static bool run(struct mctx *x, const struct cand *c, struct weft_min_measure *m)
{
	struct sparse s = { c, 0, x->occ };

	x->execs++;
	if (weft_execute(&x->o, &sparse_ops, &s, &x->last) < 0)
		return false;
	if (x->last.kind != x->kind || site_of(&x->last) != x->site)
		return false;
	measure(x, c, &x->last, m);
	return true;
}

static unsigned arg_sum(const struct cand *c)
{
	unsigned s = 0;

	for (unsigned k = 0; k < c->nr_ops; k++)
		s += c->wl[k].arg;
	return s;
}

/* (preemptions, ops, steps, bytes), then in the final pass the argument
 * sum, lexicographically. (The arguments are a key of the last pass only:
 * as a key of every pass they steer the greedy passes into other local
 * minima, e.g. z1b from random seed 1: 5 preemptions instead of 2.) */
static bool smaller(bool by_args, const struct weft_min_measure *a, unsigned a_args,
		    const struct weft_min_measure *b, unsigned b_args)
{
	if (a->preemptions != b->preemptions)
		return a->preemptions < b->preemptions;
	if (a->ops != b->ops)
		return a->ops < b->ops;
	if (a->steps != b->steps)
		return a->steps < b->steps;
	if (a->bytes != b->bytes || !by_args)
		return a->bytes < b->bytes;
	return a_args < b_args;
}

/* The schedule of the last execution: only the decisions that were not
 * the default, and only non-zero choices. false if it does not fit. */
static bool from_last(const struct mctx *x, struct cand *c)
{
	struct occ_tab *occ = x->occ;
	size_t nd, nc;
	const struct weft_decision_rec *d = weft_last_decisions(&nd);
	const uint32_t *v = weft_last_choices(&nc);
	unsigned np = 0, ncho = 0;
	unsigned nt = x->sc->nr_threads ? x->sc->nr_threads : 1;
	unsigned nop = x->sc->nr_opcodes ? x->sc->nr_opcodes : 1;

	memset(occ, 0, sizeof(*occ));
	for (size_t i = 0; i < nd; i++) {
		uint32_t k = occ_next(occ, d[i].cur, d[i].site_id);
		if (d[i].chosen == d[i].dflt)
			continue;
		if (np == MIN_MAX_PRE || !k)
			return false;
		c->pre[np].occ = k;
		c->pre[np].site = d[i].site_id;
		c->pre[np].cur = d[i].cur;
		c->pre[np].t = d[i].chosen;
		np++;
	}
	for (size_t i = 0; i < nc; i++)
		if (v[i] && !idx_val_add(c->cho, &ncho, MIN_MAX_CHO, i, v[i]))
			return false;
	c->nr_pre = np;
	c->nr_cho = ncho;
	size_t ny;
	const uint8_t *y = weft_last_delays(&ny);
	unsigned ndly = 0;
	for (size_t i = 0; i < ny; i++)
		if (y[i] && !idx_val_add(c->dly, &ndly, MIN_MAX_DLY, i, y[i]))
			return false;
	c->nr_dly = ndly;
	for (unsigned k = 0; k < c->nr_ops; k++) {
		uint8_t t = c->wl[k].t_op;
		c->wl[k].t_op = (uint8_t)(((unsigned)(t >> 4) % nt) << 4 | (t & 15u) % nop);
	}
	return true;
}

/* Workload ops of the last execution's workload bytes. */
static void ops_from_bytes(struct cand *c, const uint8_t *wl, size_t n)
{
	c->nr_ops = 0;
	if (!n)
		return;
	for (unsigned k = 0; k < wl[0] && 1 + 2 * (size_t)k + 2 <= n; k++) {
		c->wl[k].t_op = wl[1 + 2 * k];
		c->wl[k].arg = wl[2 + 2 * k];
		c->nr_ops = k + 1;
	}
}

/* Try candidate c (scratch): adopt it (or its canonical form) if it
 * reproduces and is smaller. */
/* x->a, a copy of the current candidate to change and try */
static struct cand *copy_of_cur(struct mctx *x)
{
	memcpy(x->a, x->cur, sizeof(*x->a));
	return x->a;
}

/* c, measured m, becomes the current candidate */
static void make_current(struct mctx *x, const struct cand *c, const struct weft_min_measure *m)
{
	memcpy(x->cur, c, sizeof(*x->cur));
	x->m = *m;
	x->args = arg_sum(x->cur);
}

static bool try_adopt(struct mctx *x, struct cand *c)
{
	struct weft_min_measure m, mc;

	if (x->execs >= MIN_MAX_EXECS || !run(x, c, &m))
		return false;
	struct cand *canon = c == x->a ? x->b : x->a;
	memcpy(canon, c, sizeof(*canon));
	if (from_last(x, canon) && run(x, canon, &mc) &&
	    !smaller(x->by_args, &m, arg_sum(c), &mc, arg_sum(canon))) {
		c = canon;
		m = mc;
	}
	if (!smaller(x->by_args, &m, arg_sum(c), &x->m, x->args))
		return false;
	make_current(x, c, &m);
	return true;
}

/* The current candidate with op k's argument v instead, adopted if smaller */
static bool try_arg(struct mctx *x, unsigned k, uint8_t v)
{
	struct cand *c = copy_of_cur(x);

	c->wl[k].arg = v;
	return try_adopt(x, c);
}

/* c, the current candidate with its workload changed, adopted as a serial
 * run (no preemptions: the default schedule runs the threads one after
 * another), else with the current schedule (c's, as a failed try leaves c
 * as it was) */
static bool try_serial_first(struct mctx *x, struct cand *c)
{
	c->nr_pre = 0;
	if (try_adopt(x, c))
		return true;
	c->nr_pre = x->cur->nr_pre;
	return try_adopt(x, c);
}

static void drop(struct cand *c, int what, unsigned from, unsigned n)
{
	if (what == 0) {
		memmove(&c->pre[from], &c->pre[from + n], (c->nr_pre - from - n) * sizeof(c->pre[0]));
		c->nr_pre -= n;
	} else if (what == 1) {
		memmove(&c->wl[from], &c->wl[from + n], (c->nr_ops - from - n) * sizeof(c->wl[0]));
		c->nr_ops -= n;
	} else if (what == 2) {
		memmove(&c->cho[from], &c->cho[from + n], (c->nr_cho - from - n) * sizeof(c->cho[0]));
		c->nr_cho -= n;
	} else {
		memmove(&c->dly[from], &c->dly[from + n], (c->nr_dly - from - n) * sizeof(c->dly[0]));
		c->nr_dly -= n;
	}
}

static unsigned count(const struct cand *c, int what)
{
	return what == 0 ? c->nr_pre : what == 1 ? c->nr_ops : what == 2 ? c->nr_cho : c->nr_dly;
}

/* ddmin-style complement removal: preemptions (0), ops (1), choices (2),
 * store delays (3). */
static bool ddmin(struct mctx *x, int what)
{
	bool any = false;
	unsigned chunk = count(x->cur, what);

	if (!chunk)
		return false;
	while (x->execs < MIN_MAX_EXECS) {
		unsigned n = count(x->cur, what);
		bool progress = false;
		for (unsigned from = 0; from < n && x->execs < MIN_MAX_EXECS;) {
			unsigned len = chunk < n - from ? chunk : n - from;
			drop(copy_of_cur(x), what, from, len);
			if (try_adopt(x, x->a)) {
				progress = any = true;
				n = count(x->cur, what);
			} else {
				from += len;
			}
		}
		if (!progress) {
			if (chunk == 1)
				break;
			chunk /= 2;
		}
	}
	return any;
}

/* Weak memory: dfs over the schedules, each store given the delay code the
 * candidate gives it (by store index), which dfs alone would have to
 * enumerate within its delay bound, each code a frame (a bug with one
 * long-delayed store and one preemption is beyond the per-bound cap). */
struct dfs_fixed {
	struct weft_dfs d;   /* first: to dfs's hooks a struct dfs_fixed is its dfs */
	const struct cand *c;
};

static uint32_t fixed_delay(void *st, uint32_t index, uint32_t ncodes)
{
	const struct cand *c = ((struct dfs_fixed *)st)->c;

	return idx_val_at(c->dly, c->nr_dly, index) % ncodes;
}

/* weft_strategy_dfs with fixed_delay (set by dfs_fewer()) */
static struct weft_strategy_ops dfs_fixed_ops;

static bool dfs_fewer(struct mctx *x)
{
	uint8_t wl[WEFT_INPUT_MAX];
	struct sparse s = { x->cur, 0, x->occ };
	int wl_len;

	if (!x->m.preemptions || x->cur->nr_ops > MIN_DFS_OPS)
		return false;
	wl_len = sparse_begin(&s, wl, sizeof(wl));
	if (wl_len < 0)
		return false;
	/* the candidate's delays kept (weak memory) first, then dfs's own */
	static struct cand fixed_c;
	memcpy(&fixed_c, x->cur, sizeof(fixed_c));
	x->fixed->c = &fixed_c;
	dfs_fixed_ops = weft_strategy_dfs;
	dfs_fixed_ops.name = "minimize-dfs";
	dfs_fixed_ops.pick_delay = fixed_delay;
	/* passes: the candidate's delays; then dfs's own with one delayed
	 * store (a weak bug mostly needs one, and a bound's search with
	 * more can outgrow MIN_DFS_EXECS before it reaches it); then dfs's
	 * own delay bound (under sc the last pass only) */
	for (unsigned pass = fixed_c.nr_dly ? 0 : 2; pass < 3; pass++)
	for (unsigned b = 0; b < x->m.preemptions && b <= MIN_DFS_BOUND; b++) {
		struct weft_exec_result r;
		weft_dfs_init(x->dfs, x->sc, b, wl, (size_t)wl_len);
		if (pass == 0)
			x->dfs->delay_bound = 0;
		else if (pass == 1 && x->dfs->delay_bound > 1)
			x->dfs->delay_bound = 1;
		/* one delayed store multiplies a bound's schedules by the
		 * stores that may be delayed: z14 needs 107,581 at bound 1 */
		unsigned cap = pass == 1 ? 8 * MIN_DFS_EXECS : MIN_DFS_EXECS;
		for (unsigned it = 0; it < cap && x->execs < MIN_MAX_EXECS; it++) {
			if (weft_execute(&x->o, pass ? &weft_strategy_dfs : &dfs_fixed_ops,
					 pass ? (void *)x->dfs : (void *)x->fixed, &r) < 0)
				break;
			x->execs++;
			if (r.kind != x->kind || site_of(&r) != x->site)
				continue;
			if (from_last(x, copy_of_cur(x)) && try_adopt(x, x->a))
				return true;
		}
	}
	return false;
}

/*
 * Drop op k (k == nr_ops: every op) and look for a schedule of the smaller
 * workload with no more preemptions than now: the old schedule names
 * program points by occurrence, and removing an op moves them, so ddmin
 * alone can keep an op the bug does not need (issue 15: 1 op and 7 steps
 * where 0 ops and 4 steps reproduce).
 */
static bool schedule_search(struct mctx *x, unsigned budget);

static bool drop_ops_search(struct mctx *x, unsigned k, unsigned j, unsigned budget)
{
	memcpy(x->b, x->cur, sizeof(*x->b));
	if (k < x->b->nr_ops) {
		/* j > k first, so that k's index still names its op */
		if (j < x->b->nr_ops && j > k)
			drop(x->b, 1, j, 1);
		drop(x->b, 1, k, 1);
	} else {
		x->b->nr_ops = 0;
	}
	return schedule_search(x, budget);
}

/* A schedule for x->b's workload with no more preemptions than now, by a
 * bounded search (bounds upwards); adopted when smaller. */
static bool schedule_search(struct mctx *x, unsigned budget)
{
	uint8_t wl[WEFT_INPUT_MAX];
	struct sparse s = { x->b, 0, x->occ };
	int wl_len;

	x->b->nr_pre = 0;
	x->b->nr_cho = 0;
	wl_len = sparse_begin(&s, wl, sizeof(wl));
	if (wl_len < 0)
		return false;
	for (unsigned b = 0; b <= x->m.preemptions && b <= MIN_DFS_BOUND; b++) {
		struct weft_exec_result r;
		weft_dfs_init(x->dfs, x->sc, b, wl, (size_t)wl_len);
		for (unsigned it = 0; it < budget && x->execs < MIN_MAX_EXECS; it++) {
			if (weft_execute(&x->o, &weft_strategy_dfs, x->dfs, &r) < 0)
				break;
			x->execs++;
			if (r.kind != x->kind || site_of(&r) != x->site)
				continue;
			/* the smaller workload (in wl) and this execution's schedule */
			ops_from_bytes(x->a, wl, (size_t)wl_len);
			if (from_last(x, x->a) && try_adopt(x, x->a))
				return true;
		}
	}
	return false;
}

static bool drop_op_search(struct mctx *x, unsigned k)
{
	return drop_ops_search(x, k, UINT32_MAX, MIN_DROP_EXECS);
}

static bool drop_ops(struct mctx *x)
{
	bool any = false;

	if (!x->cur->nr_ops)
		return false;
	/* all at once first: a bug that needs no op is found at once */
	if (drop_op_search(x, x->cur->nr_ops))
		return true;
	for (unsigned k = 0; k < x->cur->nr_ops && x->execs < MIN_MAX_EXECS;) {
		if (drop_op_search(x, k))
			any = true;   /* op k is gone: the next one moved to k */
		else
			k++;
	}
	return any;
}

/*
 * Ops in another order: when no single op can go, any two together (with
 * a schedule search each). Removing ops one at a time, from the front,
 * stops where each single removal breaks the bug but a pair does not (two
 * toggles of one state, a get and its put): issue 19, 5 ops where 3
 * reproduce. ddmin's chunks only ever remove neighbours.
 */
static bool drop_op_pairs(struct mctx *x)
{
	unsigned n = x->cur->nr_ops;

	if (n < 2 || n > MIN_PAIR_OPS)
		return false;
	for (unsigned k = 0; k < n && x->execs < MIN_MAX_EXECS; k++)
		for (unsigned j = k + 1; j < n && x->execs < MIN_MAX_EXECS; j++)
			if (drop_ops_search(x, k, j, MIN_PAIR_EXECS))
				return true;
	return false;
}

/* ------------------------------------------------------- canonical form */

/* Ops in thread order (each thread's own order kept): where the list puts
 * one thread's ops among another's does not change the execution. */
static void sort_ops(struct cand *c, unsigned nt)
{
	for (unsigned i = 1; i < c->nr_ops; i++) {
		unsigned k = i;
		while (k > 0 && (c->wl[k - 1].t_op >> 4) % nt > (c->wl[k].t_op >> 4) % nt) {
			__typeof__(c->wl[0]) t = c->wl[k];
			c->wl[k] = c->wl[k - 1];
			c->wl[k - 1] = t;
			k--;
		}
	}
}

static int pre_cmp(const void *a, const void *b)
{
	const __typeof__(((struct cand *)0)->pre[0]) *p = a, *q = b;

	if (p->site != q->site)
		return p->site < q->site ? -1 : 1;
	if (p->occ != q->occ)
		return p->occ < q->occ ? -1 : 1;
	if (p->cur != q->cur)
		return p->cur < q->cur ? -1 : 1;
	return (int)p->t - (int)q->t;
}

/* The order of two candidates of equal measure: workload, then schedule
 * entries (as a set), then choices. */
static int cand_cmp(const struct cand *a, const struct cand *b)
{
	if (a->nr_ops != b->nr_ops)
		return a->nr_ops < b->nr_ops ? -1 : 1;
	for (unsigned k = 0; k < a->nr_ops; k++) {
		if (a->wl[k].t_op != b->wl[k].t_op)
			return a->wl[k].t_op < b->wl[k].t_op ? -1 : 1;
		if (a->wl[k].arg != b->wl[k].arg)
			return a->wl[k].arg < b->wl[k].arg ? -1 : 1;
	}
	if (a->nr_pre != b->nr_pre)
		return a->nr_pre < b->nr_pre ? -1 : 1;
	for (unsigned k = 0; k < a->nr_pre; k++) {
		int c = pre_cmp(&a->pre[k], &b->pre[k]);
		if (c)
			return c;
	}
	if (a->nr_cho != b->nr_cho)
		return a->nr_cho < b->nr_cho ? -1 : 1;
	for (unsigned k = 0; k < a->nr_cho; k++)
		if (a->cho[k].idx != b->cho[k].idx || a->cho[k].v != b->cho[k].v)
			return a->cho[k].idx != b->cho[k].idx ? (a->cho[k].idx < b->cho[k].idx ? -1 : 1)
							      : (a->cho[k].v < b->cho[k].v ? -1 : 1);
	return 0;
}

static void normalize(struct cand *c, unsigned nt)
{
	sort_ops(c, nt);
	qsort(c->pre, c->nr_pre, sizeof(c->pre[0]), pre_cmp);
}

/* c with the scenario's threads renamed by perm (ops and schedule). */
static void permute(struct cand *c, const uint8_t *perm, unsigned nt)
{
	for (unsigned k = 0; k < c->nr_ops; k++) {
		unsigned t = (c->wl[k].t_op >> 4) % nt;
		c->wl[k].t_op = (uint8_t)(perm[t] << 4 | (c->wl[k].t_op & 15u));
	}
	for (unsigned k = 0; k < c->nr_pre; k++) {
		if (c->pre[k].cur < nt)
			c->pre[k].cur = perm[c->pre[k].cur];
		if (c->pre[k].t < nt)
			c->pre[k].t = perm[c->pre[k].t];
	}
	normalize(c, nt);
}

/*
 * One race, one file: the same race found with the threads' roles swapped
 * (T0 preempted by T1, or T1 by T0, when the threads run the same code) is
 * the same finding. Among the renamings of the scenario's threads that
 * reproduce the verdict at the same measure (or better), keep the
 * smallest candidate (cand_cmp), so mirror images minimize to one input,
 * one trace and one file name.
 */
static void canonical_threads(struct mctx *x)
{
	unsigned nt = x->sc->nr_threads;
	uint8_t perm[8];

	if (nt < 2 || nt > 8)
		return;
	/* the current candidate in normal form, when that still reproduces
	 * at the same measure (two schedule entries of one program point
	 * could be reordered by the sort, and only the first one counts) */
	struct weft_min_measure mn;
	normalize(copy_of_cur(x), nt);
	if (run(x, x->a, &mn) && !smaller(x->by_args, &x->m, x->args, &mn, arg_sum(x->a)))
		make_current(x, x->a, &mn);
	/* every permutation of up to 4 threads (24), else every swap */
	unsigned nperm = nt <= 4 ? 1 : 0;
	for (unsigned i = 2; i <= nt && nt <= 4; i++)
		nperm *= i;
	if (!nperm)
		nperm = nt * (nt - 1) / 2;
	for (unsigned p = 1; p < nperm + (nt <= 4 ? 0 : 1) && x->execs < MIN_MAX_EXECS; p++) {
		/* the p-th permutation (factorial base), or the p-th swap */
		if (nt <= 4) {
			uint8_t pool[8];
			unsigned r = p;
			for (unsigned i = 0; i < nt; i++)
				pool[i] = (uint8_t)i;
			for (unsigned i = 0, left = nt; i < nt; i++, left--) {
				unsigned f = 1;
				for (unsigned j = 2; j < left; j++)
					f *= j;
				unsigned q = r / f;
				r %= f;
				perm[i] = pool[q];
				memmove(&pool[q], &pool[q + 1], left - q - 1);
			}
		} else {
			unsigned a = 0, b = 1, q = p - 1;
			while (q >= nt - 1 - a) {
				q -= nt - 1 - a;
				a++;
			}
			b = a + 1 + q;
			for (unsigned i = 0; i < nt; i++)
				perm[i] = (uint8_t)i;
			perm[a] = (uint8_t)b;
			perm[b] = (uint8_t)a;
		}
		struct weft_min_measure m, mc;
		permute(copy_of_cur(x), perm, nt);
		if (!run(x, x->a, &m))
			continue;
		/* its own canonical schedule, when no worse */
		memcpy(x->b, x->a, sizeof(*x->b));
		if (from_last(x, x->b) && (normalize(x->b, nt), run(x, x->b, &mc)) &&
		    !smaller(x->by_args, &m, arg_sum(x->a), &mc, arg_sum(x->b))) {
			memcpy(x->a, x->b, sizeof(*x->a));
			m = mc;
		}
		bool better = smaller(x->by_args, &m, arg_sum(x->a), &x->m, x->args);
		bool same = !better && !smaller(x->by_args, &x->m, x->args, &m, arg_sum(x->a));
		if (better || (same && cand_cmp(x->a, x->cur) < 0))
			make_current(x, x->a, &m);
	}
}

static void normalize_args(struct mctx *x)
{
	static const uint8_t tries[] = { 0, 1, 2, 3 };

	/* every op of one argument value at once: two ops on page 3 move to
	 * page 0 together, where moving either alone loses the race */
	for (unsigned k = 0; k < x->cur->nr_ops && x->execs < MIN_MAX_EXECS; k++)
		for (unsigned t = 0; t < sizeof(tries) && x->cur->wl[k].arg > tries[t]; t++) {
			uint8_t v = x->cur->wl[k].arg;
			struct cand *c = copy_of_cur(x);
			for (unsigned j = k; j < c->nr_ops; j++)
				if (c->wl[j].arg == v)
					c->wl[j].arg = tries[t];
			if (try_adopt(x, c))
				break;
			/* another object moves the program points the schedule
			 * names: search for a schedule of its own */
			memcpy(x->b, x->a, sizeof(*x->b));
			if (x->cur->nr_ops <= MIN_DFS_OPS && schedule_search(x, MIN_PAIR_EXECS))
				break;
		}
	for (unsigned k = 0; k < x->cur->nr_ops && x->execs < MIN_MAX_EXECS; k++)
		for (unsigned t = 0; t < sizeof(tries) && x->cur->wl[k].arg > tries[t]; t++)
			if (try_arg(x, k, tries[t]))
				break;
}

static bool fewer_steps(struct mctx *x)
{
	static const uint8_t tries[] = { 0, 1, 2 };
	bool any = false;

	for (unsigned k = 0; k < x->cur->nr_ops; k++)
		for (unsigned t = 0; t < sizeof(tries); t++) {
			if (x->cur->wl[k].arg <= tries[t])
				break;
			if (try_arg(x, k, tries[t])) {
				any = true;
				break;
			}
		}
	for (unsigned k = 0; k < x->cur->nr_pre; k++)
		for (unsigned d = 1; d <= 8 && d < x->cur->pre[k].occ; d *= 2) {
			struct cand *c = copy_of_cur(x);
			c->pre[k].occ -= d;
			if (try_adopt(x, c)) {
				any = true;
				break;
			}
		}
	return any;
}

/* Move an op to another thread or to the front of the workload: a
 * workload whose operations run in the order the bug needs can need fewer
 * preemptions (the default schedule runs threads one after another). */
static bool reorder_ops(struct mctx *x)
{
	bool any = false;
	unsigned nt = x->sc->nr_threads ? x->sc->nr_threads : 1;

	for (unsigned k = 0; k < x->cur->nr_ops && x->execs < MIN_MAX_EXECS; k++) {
		unsigned t0 = (x->cur->wl[k].t_op >> 4) % nt;
		for (unsigned t = 0; t < nt; t++) {
			if (t == t0)
				continue;
			struct cand *c = copy_of_cur(x);
			c->wl[k].t_op = (uint8_t)(t << 4 | (c->wl[k].t_op & 15u));
			if (try_serial_first(x, c)) {
				any = true;
				if ((x->cur->wl[k].t_op >> 4) % nt == t)
					break;
			}
		}
		if (k > 0) {
			struct cand *c = copy_of_cur(x);
			memmove(&c->wl[1], &c->wl[0], k * sizeof(c->wl[0]));
			c->wl[0] = x->cur->wl[k];
			any |= try_serial_first(x, c);
		}
	}
	return any;
}

static bool fewer_threads(struct mctx *x)
{
	bool any = false;
	unsigned nt = x->sc->nr_threads ? x->sc->nr_threads : 1;

	for (unsigned t = 0; t < nt; t++) {
		struct cand *c = copy_of_cur(x);
		unsigned j = 0;
		for (unsigned k = 0; k < c->nr_ops; k++)
			if ((c->wl[k].t_op >> 4) % nt != t)
				c->wl[j++] = c->wl[k];
		if (j == c->nr_ops)
			continue;
		c->nr_ops = j;
		any |= try_adopt(x, c);
	}
	return any;
}

/* The bytes input that reproduces the last execution (0: does not fit). */
static size_t bytes_of_last(const struct weft_scenario *sc, const struct cand *c, uint8_t *out)
{
	size_t nd, nc;
	const struct weft_decision_rec *d = weft_last_decisions(&nd);
	const uint32_t *v = weft_last_choices(&nc);
	struct weft_input in;

	memset(&in, 0, sizeof(in));
	int ne = weft_entries_from_decisions(sc, d, nd, v, nc, in.e, WEFT_MAX_ENTRIES);
	if (ne < 0)
		return 0;
	in.nr_entries = (unsigned)ne;
	in.nr_wl_ops = c->nr_ops;
	for (unsigned k = 0; k < c->nr_ops; k++) {
		in.wl[k].t_op = c->wl[k].t_op;
		in.wl[k].arg = c->wl[k].arg;
	}
	return weft_input_encode(&in, out, WEFT_INPUT_MAX);
}

static int minimize(struct mctx *x, uint8_t *out, size_t *out_len, struct weft_min_result *res,
		    double t0)
{
	struct weft_min_measure m;

	/* start from the canonical form when it is no worse */
	x->args = arg_sum(x->cur);
	if (from_last(x, copy_of_cur(x)) && run(x, x->a, &m) &&
	    !smaller(false, &x->m, x->args, &m, arg_sum(x->a)))
		make_current(x, x->a, &m);
	for (unsigned round = 0; round < 4; round++) {
		bool any = false;
		any |= ddmin(x, 0);
		any |= dfs_fewer(x);
		if (x->m.preemptions && reorder_ops(x))
			any |= true, any |= dfs_fewer(x);
		any |= ddmin(x, 1);
		any |= ddmin(x, 2);
		any |= ddmin(x, 3);
		any |= fewer_steps(x);
		any |= fewer_threads(x);
		/* the costly search for a schedule of a smaller workload when
		 * nothing cheaper helps any more */
		if (!any && x->cur->nr_ops <= MIN_DFS_OPS)
			any |= drop_ops(x);
		if (!any)
			any |= drop_op_pairs(x);
		if (!any || x->execs >= MIN_MAX_EXECS)
			break;
	}
	/* Last: arguments as small as the verdict allows at no cost in the
	 * other keys, so an argument the model ignores is 0 and one trace
	 * gives one input (and one file name). */
	x->by_args = true;
	/* twice: a renaming of the threads can let an argument go down
	 * further, and smaller arguments allow other renamings */
	for (int pass = 0; pass < 2; pass++) {
		normalize_args(x);
		canonical_threads(x);
	}
	/* leave the machine's last execution = the result, recorded */
	struct weft_run_opts ro = x->o;
	struct sparse s = { x->cur, 0, x->occ };
	ro.record = true;
	x->execs++;
	weft_execute(&ro, &sparse_ops, &s, &res->final);
	if (res->final.kind != x->kind || site_of(&res->final) != x->site)
		return WEFT_EDESYNC;   /* a determinism bug */
	*out_len = bytes_of_last(x->sc, x->cur, out);
	/* the bytes encoding has no delays: a weak finding is its replay file */
	if (x->cur->nr_dly)
		*out_len = 0;
	res->encodable = *out_len > 0 ||
			 (!x->cur->nr_ops && !x->cur->nr_pre && !x->cur->nr_cho && !x->cur->nr_dly);
	res->after = x->m;
	res->after.bytes = (uint32_t)*out_len;
	res->executions = x->execs;
	res->seconds = now() - t0;
	return 0;
}

static int setup(struct mctx *x, const struct weft_run_opts *o)
{
	memset(x, 0, sizeof(*x));
	x->sc = o->sc;
	x->o = *o;
	x->o.record = false;
	x->o.feedback = false;
	/* every candidate starts from a fresh lockdep graph, seeded with what
	 * the finding took from earlier executions: candidates of one
	 * minimization never lend each other edges */
	if (o->lockdep_persist) {
		static struct weft_lockdep_fact seed[WEFT_LOCKDEP_MAX_FACTS];
		size_t n;
		const struct weft_lockdep_fact *w = weft_lockdep_last_witness(&n);
		memcpy(seed, w, n * sizeof(*seed));
		x->o.lockdep_persist = false;
		x->o.lockdep_seed = seed;
		x->o.nr_lockdep_seed = n;
	}
	x->cur = calloc(1, sizeof(*x->cur));
	x->a = calloc(1, sizeof(*x->a));
	x->b = calloc(1, sizeof(*x->b));
	x->fixed = malloc(sizeof(*x->fixed));
	x->dfs = x->fixed ? &x->fixed->d : NULL;
	x->occ = malloc(sizeof(*x->occ));
	return x->cur && x->a && x->b && x->fixed && x->occ ? 0 : WEFT_ENOMEM;
}

static void teardown(struct mctx *x)
{
	free(x->cur);
	free(x->a);
	free(x->b);
	free(x->fixed);
	free(x->occ);
}

int weft_minimize(const struct weft_run_opts *o, const uint8_t *in, size_t len, uint8_t *out,
		  size_t *out_len, struct weft_min_result *res)
{
	struct mctx x;
	const struct weft_scenario *sc = o->sc;
	double t0 = now();
	struct weft_bytes *bs = malloc(sizeof(*bs));
	int rc;

	memset(res, 0, sizeof(*res));
	*out_len = 0;
	rc = setup(&x, o);
	if (rc || !bs) {
		free(bs);
		teardown(&x);
		return WEFT_ENOMEM;
	}
	weft_bytes_init(bs, sc, in, len);
	x.execs = 1;
	if (weft_execute(&x.o, &weft_strategy_bytes, bs, &x.last) < 0 ||
	    x.last.kind == WEFT_KIND_NONE) {
		free(bs);
		teardown(&x);
		return WEFT_ENOENT;
	}
	x.kind = x.last.kind;
	x.site = site_of(&x.last);
	x.o.memory = (uint8_t)weft_last_memory();   /* as the input ran it */
	size_t nw;
	const uint8_t *w = weft_last_workload(&nw);
	ops_from_bytes(x.cur, w, nw);
	from_last(&x, x.cur);
	measure(&x, x.cur, &x.last, &x.m);
	x.m.bytes = (uint32_t)len;
	res->kind = x.kind;
	res->site_id = x.site;
	res->before = x.m;
	free(bs);
	rc = minimize(&x, out, out_len, res, t0);
	teardown(&x);
	return rc;
}

int weft_minimize_last(const struct weft_run_opts *o, const struct weft_exec_result *r,
		       uint8_t *out, size_t *out_len, struct weft_min_result *res)
{
	struct mctx x;
	double t0 = now();
	int rc;

	memset(res, 0, sizeof(*res));
	*out_len = 0;
	if (r->kind == WEFT_KIND_NONE)
		return WEFT_ENOENT;
	rc = setup(&x, o);
	if (rc) {
		teardown(&x);
		return rc;
	}
	x.kind = r->kind;
	x.site = site_of(r);
	x.o.memory = (uint8_t)weft_last_memory();
	size_t nw;
	const uint8_t *w = weft_last_workload(&nw);
	ops_from_bytes(x.cur, w, nw);
	if (!from_last(&x, x.cur)) {
		teardown(&x);
		return WEFT_EINVAL;
	}
	measure(&x, x.cur, r, &x.m);
	res->kind = x.kind;
	res->site_id = x.site;
	res->before = x.m;
	/* the start must reproduce under the sparse schedule */
	struct weft_min_measure m;
	if (!run(&x, x.cur, &m)) {
		teardown(&x);
		return WEFT_EDESYNC;
	}
	rc = minimize(&x, out, out_len, res, t0);
	teardown(&x);
	return rc;
}
