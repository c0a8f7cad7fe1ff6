/*
 * minimize.c - shrink a failing bytes input while keeping its verdict
 * (report kind and site), over the decoded structure rather than bytes:
 * schedule entries (Zeller and Hildebrandt's ddmin, "Simplifying and
 * Isolating Failure-Inducing Input", TSE 2002), then a preemption-bounded
 * DFS (Musuvathi and Qadeer, PLDI 2007) below the current preemption count
 * on the current workload, which certifies the minimum for that workload
 * when it covers its bound completely; then workload operations, then
 * steps, then threads.
 *
 * Invariant: the current candidate always reproduces the verdict, and each
 * accepted candidate is strictly smaller in (preemptions, ops, steps,
 * bytes) lexicographically, so the loop terminates.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/replay.h>

#define MIN_MAX_EXECS 400000u
#define MIN_DFS_EXECS 50000u    /* per bound */

struct mctx {
	const struct weft_scenario *sc;
	unsigned vi;
	enum weft_lock_model lock;
	enum weft_kind kind;
	uint32_t site;
	uint64_t execs;
	struct weft_input cur;
	struct weft_min_measure m;
	struct weft_bytes *bs;
	struct weft_dfs *dfs;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t nr_threads_used(const struct weft_scenario *sc, const struct weft_input *in)
{
	uint32_t mask = 0;
	unsigned nt = sc->nr_threads ? sc->nr_threads : 1;

	for (unsigned k = 0; k < in->nr_wl_ops; k++)
		mask |= 1u << ((in->wl[k].t_op >> 4) % nt);
	return (uint32_t)__builtin_popcount(mask);
}

static uint32_t site_of(const struct weft_exec_result *r)
{
	return r->report.here.valid && r->report.here.site ? r->report.here.site->id : 0;
}

/* Run in; true (and *m) if it gives the target verdict. */
static bool run(struct mctx *x, const struct weft_input *in, struct weft_min_measure *m)
{
	uint8_t buf[WEFT_INPUT_MAX];
	size_t len = weft_input_encode(in, buf, sizeof(buf));
	struct weft_run_opts o = { .sc = x->sc, .variant = x->vi, .lock = x->lock };
	struct weft_exec_result r;

	weft_bytes_init(x->bs, x->sc, buf, len);
	x->execs++;
	if (weft_execute(&o, &weft_strategy_bytes, x->bs, &r) < 0)
		return false;
	if (r.kind != x->kind || site_of(&r) != x->site)
		return false;
	m->preemptions = r.preemptions;
	m->ops = in->nr_wl_ops;
	m->steps = r.steps;
	m->bytes = (uint32_t)len;
	m->threads = nr_threads_used(x->sc, in);
	return true;
}

static bool smaller(const struct weft_min_measure *a, const struct weft_min_measure *b)
{
	if (a->preemptions != b->preemptions)
		return a->preemptions < b->preemptions;
	if (a->ops != b->ops)
		return a->ops < b->ops;
	if (a->steps != b->steps)
		return a->steps < b->steps;
	return a->bytes < b->bytes;
}

/* After a reproducing run: the input rebuilt from its decisions keeps only
 * the entries that changed a decision. */
static void canonical(struct mctx *x, struct weft_input *in)
{
	size_t nd, nc;
	const struct weft_decision_rec *d = weft_last_decisions(&nd);
	const uint32_t *c = weft_last_choices(&nc);
	struct weft_entry e[WEFT_MAX_ENTRIES];
	unsigned nt = x->sc->nr_threads ? x->sc->nr_threads : 1;
	unsigned nop = x->sc->nr_opcodes ? x->sc->nr_opcodes : 1;

	int ne = weft_entries_from_decisions(x->sc, d, nd, c, nc, e, WEFT_MAX_ENTRIES);
	if (ne >= 0) {
		memcpy(in->e, e, (size_t)ne * sizeof(e[0]));
		in->nr_entries = (unsigned)ne;
	}
	for (unsigned k = 0; k < in->nr_wl_ops; k++) {
		uint8_t t = in->wl[k].t_op;
		in->wl[k].t_op = (uint8_t)(((unsigned)(t >> 4) % nt) << 4 | (t & 15u) % nop);
	}
}

/* Try a candidate; adopt it if it reproduces and is smaller. */
static bool try_adopt(struct mctx *x, struct weft_input *cand)
{
	struct weft_min_measure m;

	if (x->execs >= MIN_MAX_EXECS || !run(x, cand, &m))
		return false;
	struct weft_input canon = *cand;
	canonical(x, &canon);
	struct weft_min_measure mc;
	if (run(x, &canon, &mc) && !smaller(&m, &mc)) {
		*cand = canon;
		m = mc;
	}
	if (!smaller(&m, &x->m))
		return false;
	x->cur = *cand;
	x->m = m;
	return true;
}

static void drop_entries(struct weft_input *in, unsigned from, unsigned n)
{
	memmove(&in->e[from], &in->e[from + n], (in->nr_entries - from - n) * sizeof(in->e[0]));
	in->nr_entries -= n;
}

static void drop_ops(struct weft_input *in, unsigned from, unsigned n)
{
	memmove(&in->wl[from], &in->wl[from + n], (in->nr_wl_ops - from - n) * sizeof(in->wl[0]));
	in->nr_wl_ops -= n;
}

/* ddmin-style complement removal over entries (ops == false) or ops. */
static bool ddmin(struct mctx *x, bool ops)
{
	bool any = false;
	unsigned chunk = (ops ? x->cur.nr_wl_ops : x->cur.nr_entries) / 2;

	if (!chunk)
		chunk = 1;
	for (;;) {
		unsigned n = ops ? x->cur.nr_wl_ops : x->cur.nr_entries;
		bool progress = false;
		for (unsigned from = 0; from < n; ) {
			unsigned len = chunk < n - from ? chunk : n - from;
			struct weft_input cand = x->cur;
			if (ops)
				drop_ops(&cand, from, len);
			else
				drop_entries(&cand, from, len);
			if (try_adopt(x, &cand)) {
				progress = any = true;
				n = ops ? x->cur.nr_wl_ops : x->cur.nr_entries;
			} else {
				from += len;
			}
		}
		if (!progress) {
			if (chunk == 1)
				break;
			chunk /= 2;
		}
		if (x->execs >= MIN_MAX_EXECS)
			break;
	}
	return any;
}

/* Exhaustive search below the current preemption count on the current
 * workload: the first execution with the target verdict at bound b has the
 * fewest preemptions there is for this workload (bounds tried upwards). */
static bool dfs_fewer(struct mctx *x)
{
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = 0;

	if (!x->m.preemptions)
		return false;
	if (x->cur.nr_wl_ops || x->cur.nr_entries) {
		wl[0] = (uint8_t)x->cur.nr_wl_ops;
		for (unsigned k = 0; k < x->cur.nr_wl_ops; k++) {
			wl[1 + 2 * k] = x->cur.wl[k].t_op;
			wl[2 + 2 * k] = x->cur.wl[k].arg;
		}
		wl_len = 1 + 2 * (size_t)x->cur.nr_wl_ops;
	}
	for (unsigned b = 0; b < x->m.preemptions; b++) {
		struct weft_run_opts o = { .sc = x->sc, .variant = x->vi, .lock = x->lock };
		struct weft_exec_result r;
		weft_dfs_init(x->dfs, x->sc, b, wl, wl_len);
		for (unsigned it = 0; it < MIN_DFS_EXECS; it++) {
			if (weft_execute(&o, &weft_strategy_dfs, x->dfs, &r) < 0)
				break;
			x->execs++;
			if (r.kind != x->kind || site_of(&r) != x->site)
				continue;
			struct weft_input cand = x->cur;
			canonical(x, &cand);
			if (try_adopt(x, &cand))
				return true;
		}
	}
	return false;
}

/* Simpler op arguments and earlier preemptions: fewer steps. */
static bool fewer_steps(struct mctx *x)
{
	bool any = false;

	for (unsigned k = 0; k < x->cur.nr_wl_ops; k++) {
		static const uint8_t tries[] = { 0, 1, 2 };
		for (unsigned t = 0; t < sizeof(tries); t++) {
			if (x->cur.wl[k].arg <= tries[t])
				break;
			struct weft_input cand = x->cur;
			cand.wl[k].arg = tries[t];
			if (try_adopt(x, &cand)) {
				any = true;
				break;
			}
		}
	}
	for (unsigned k = 0; k < x->cur.nr_entries; k++) {
		for (unsigned d = 1; d <= 8 && d <= x->cur.e[k].pos; d *= 2) {
			struct weft_input cand = x->cur;
			cand.e[k].pos = (uint16_t)(cand.e[k].pos - d);
			if (try_adopt(x, &cand)) {
				any = true;
				break;
			}
		}
	}
	return any;
}

static bool fewer_threads(struct mctx *x)
{
	bool any = false;
	unsigned nt = x->sc->nr_threads ? x->sc->nr_threads : 1;

	for (unsigned t = 0; t < nt; t++) {
		struct weft_input cand = x->cur;
		unsigned j = 0;
		for (unsigned k = 0; k < cand.nr_wl_ops; k++)
			if ((cand.wl[k].t_op >> 4) % nt != t)
				cand.wl[j++] = cand.wl[k];
		if (j == cand.nr_wl_ops)
			continue;
		cand.nr_wl_ops = j;
		any |= try_adopt(x, &cand);
	}
	return any;
}

int weft_minimize(const struct weft_scenario *sc, unsigned vi, enum weft_lock_model lock,
		  const uint8_t *in, size_t len, uint8_t *out, size_t *out_len,
		  struct weft_min_result *res)
{
	struct mctx x;
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock };
	struct weft_exec_result r;
	double t0 = now();
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&x, 0, sizeof(x));
	x.sc = sc;
	x.vi = vi;
	x.lock = lock;
	x.bs = malloc(sizeof(*x.bs));
	x.dfs = malloc(sizeof(*x.dfs));
	if (!x.bs || !x.dfs) {
		rc = WEFT_ENOMEM;
		goto out;
	}
	weft_bytes_init(x.bs, sc, in, len);
	x.cur = x.bs->in;
	if (weft_execute(&o, &weft_strategy_bytes, x.bs, &r) < 0 || r.kind == WEFT_KIND_NONE) {
		rc = WEFT_ENOENT;
		goto out;
	}
	x.execs = 1;
	x.kind = r.kind;
	x.site = site_of(&r);
	x.m.preemptions = r.preemptions;
	x.m.ops = x.cur.nr_wl_ops;
	x.m.steps = r.steps;
	x.m.bytes = (uint32_t)len;
	x.m.threads = nr_threads_used(sc, &x.cur);
	res->kind = x.kind;
	res->site_id = x.site;
	res->before = x.m;
	/* The raw input may hold bytes the decoder ignores: start from its
	 * canonical form when that is no worse. */
	{
		struct weft_input canon = x.cur;
		canonical(&x, &canon);
		struct weft_min_measure m;
		if (run(&x, &canon, &m) && !smaller(&x.m, &m)) {
			x.cur = canon;
			x.m = m;
		}
	}

	for (unsigned round = 0; round < 4; round++) {
		bool any = false;
		any |= ddmin(&x, false);
		any |= dfs_fewer(&x);
		any |= ddmin(&x, true);
		any |= fewer_steps(&x);
		any |= fewer_threads(&x);
		if (!any || x.execs >= MIN_MAX_EXECS)
			break;
	}
	*out_len = weft_input_encode(&x.cur, out, WEFT_INPUT_MAX);
	res->after = x.m;
	res->after.bytes = (uint32_t)*out_len;
	/* leave the machine's last execution = the minimized input, recorded */
	{
		struct weft_run_opts ro = o;
		ro.record = true;
		weft_bytes_init(x.bs, sc, out, *out_len);
		weft_execute(&ro, &weft_strategy_bytes, x.bs, &r);
		x.execs++;
		if (r.kind != x.kind || site_of(&r) != x.site)
			rc = WEFT_EDESYNC;   /* would be a determinism bug */
	}
out:
	res->executions = x.execs;
	res->seconds = now() - t0;
	free(x.bs);
	free(x.dfs);
	return rc;
}
