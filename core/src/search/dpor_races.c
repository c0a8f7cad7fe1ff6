/*
 * dpor_races.c - the race analysis of dfs with partial-order reduction,
 * at the end of each execution: source sets (source-DPOR, JACM 2017
 * Algorithm 1) and wakeup trees (optimal DPOR, Algorithm 2), with the
 * wakeup trees themselves. The search and its references: dpor.c; the
 * shared state: dpor_state.h.
 */
#include <stdio.h>

#include "dpor_state.h"

/* ----------------------------------------------------------- wakeup trees */

uint32_t weft_dpor_node_new(struct weft_dpor *d, unsigned tid, const struct dep *dp)
{
	uint32_t n;

	if (d->freend != NIL) {
		n = d->freend;
		d->freend = d->nd[n].sib;
	} else {
		if (!GROW(d->nd, d->capnd, d->nnd + 1))
			return NIL;
		n = d->nnd++;
	}
	struct node *x = &d->nd[n];
	x->child = x->sib = NIL;
	x->tid = (uint8_t)tid;
	x->known = dp != NULL;
	if (dp)
		x->d = *dp;
	return n;
}

/* Free n and its subtree. */
static void node_free(struct weft_dpor *d, uint32_t n)
{
	while (n != NIL) {
		struct node *x = &d->nd[n];
		if (x->child != NIL) {
			/* unlink the first child and free it first */
			uint32_t c = x->child;
			x->child = d->nd[c].sib;
			d->nd[c].sib = NIL;
			node_free(d, c);
			continue;
		}
		x->sib = d->freend;
		d->freend = n;
		n = NIL;
	}
}

/* Append a child (last in order). */
uint32_t weft_dpor_node_add(struct weft_dpor *d, uint32_t parent, unsigned tid, const struct dep *dp)
{
	uint32_t n = weft_dpor_node_new(d, tid, dp);

	if (n == NIL)
		return NIL;
	uint32_t *link = &d->nd[parent].child;
	while (*link != NIL)
		link = &d->nd[*link].sib;
	*link = n;
	return n;
}

void weft_dpor_node_remove_child(struct weft_dpor *d, uint32_t parent, uint32_t c)
{
	uint32_t *link = &d->nd[parent].child;

	while (*link != NIL && *link != c)
		link = &d->nd[*link].sib;
	if (*link == c) {
		*link = d->nd[c].sib;
		d->nd[c].sib = NIL;
		node_free(d, c);
	}
}

static const struct info *frame_info(const struct weft_dpor *d, const struct frame *f, unsigned t)
{
	for (unsigned i = 0; i < (unsigned)f->nS + f->nX; i++)
		if (d->pool[f->pool + i].tid == t)
			return &d->pool[f->pool + i];
	return NULL;
}

/* Optimal: children of node that cannot run at f are replaced by a leaf
 * for every enabled thread not covered there (the fallback). */
void weft_dpor_wut_fix_unrunnable(struct weft_dpor *d, struct frame *f, uint32_t node)
{
	bool bad = false;
	uint32_t have = 0;

	for (uint32_t c = d->nd[node].child, nx; c != NIL; c = nx) {
		nx = d->nd[c].sib;
		if (!(f->allowed & bit(d->nd[c].tid)) || !in_bound(d, f, d->nd[c].tid)) {
			weft_dpor_node_remove_child(d, node, c);
			bad = true;
		} else {
			have |= bit(d->nd[c].tid);
		}
	}
	if (!bad)
		return;
	d->st.fallbacks++;
	uint32_t add = bound_mask(d, f, f->allowed & ~have & ~f->X & ~f->S);
	if (f->wchild != NIL)
		add &= ~bit(d->nd[f->wchild].tid);
	for (; add; add &= add - 1)
		weft_dpor_node_add(d, node, lowest(add), NULL);
}

/* ---------------------------------------------------------- analysis */

/* Is event x (real, or the race's later event with clock cx) after
 * real event e? */
static inline bool after(const struct ev *e, const uint32_t *cx)
{
	return cx[e->tid] >= e->tidx;
}

/* Build v = notdep(e_i).e_j; returns its length. */
static uint32_t build_v(struct weft_dpor *d, const struct race *r)
{
	const struct ev *ei = &d->ev[r->i];
	uint32_t n = 0;

	if (!GROW(d->v, d->capv, r->j - r->i + 1))
		return 0;
	for (uint32_t k = r->i + 1; k < r->j; k++) {
		const struct ev *x = &d->ev[k];
		if (x->flags & (EV_PHANTOM | EV_IMPLICIT))
			continue;
		const uint32_t *cx = clk_of(d, k);
		if (after(ei, cx))
			continue;
		struct vitem *it = &d->v[n++];
		it->k = k;
		it->c = cx;
		it->tidx = x->tidx;
		it->tid = x->tid;
		it->gone = 0;
		it->d = x->d;
	}
	struct vitem *it = &d->v[n++];
	it->k = r->j;
	it->c = r->alt != NIL ? &d->aclk[r->alt] : clk_of(d, r->j);
	it->tidx = d->ev[r->j].tidx;
	it->tid = d->ev[r->j].tid;
	it->gone = 0;
	it->d = d->ev[r->j].d;
	return n;
}

/* Is item x of v[0..n) (not gone) an initial: no earlier remaining item
 * of another thread happens before it? Only a thread's first remaining
 * item can be one. */
static bool is_initial(const struct weft_dpor *d, uint32_t x, uint32_t n)
{
	const struct vitem *v = d->v;

	(void)n;
	for (uint32_t y = 0; y < x; y++) {
		if (v[y].gone)
			continue;
		if (v[y].tid == v[x].tid)
			return false;
		if (v[y].tidx && v[x].c[v[y].tid] >= v[y].tidx)
			return false;
	}
	return true;
}

/* First remaining item of thread t, or NIL. */
static uint32_t first_of(const struct weft_dpor *d, unsigned t, uint32_t n)
{
	for (uint32_t y = 0; y < n; y++)
		if (!d->v[y].gone && d->v[y].tid == t)
			return y;
	return NIL;
}

/* Weak initial: t can go first in an execution that extends v. */
static bool weak_initial(const struct weft_dpor *d, unsigned t, bool known, const struct dep *dp,
			 uint32_t n)
{
	uint32_t x = first_of(d, t, n);

	if (x != NIL)
		return is_initial(d, x, n);
	if (!known)
		return false;
	for (uint32_t y = 0; y < n; y++)
		if (!d->v[y].gone && dep_conflict(dp, &d->v[y].d))
			return false;
	return true;
}

static void add_all(struct weft_dpor *d, struct frame *f, uint32_t extra_skip, bool fallback)
{
	uint32_t add = bound_mask(d, f, f->allowed & ~f->bt & ~f->X & ~f->S & ~extra_skip);

	for (uint32_t m = add; m; m &= m - 1)
		if (!in_bound(d, f, lowest(m)))
			add &= ~bit(lowest(m));
	if (add) {
		f->bt |= (uint16_t)add;
		d->st.backtracks += (uint64_t)__builtin_popcount(add);
	}
	if (d->trace)
		fprintf(stderr, "  %s at frame %u\n", fallback ? "FALLBACK" : "all", (unsigned)(f - d->fr));
	if (fallback)
		d->st.fallbacks++;
}

static void source_race(struct weft_dpor *d, const struct race *r)
{
	const struct ev *ei = &d->ev[r->i];
	struct frame *f = &d->fr[ei->frame];

	uint32_t covered = (uint32_t)f->bt | f->X | f->S;
	if (r->cpu) {
		unsigned q = d->ev[r->j].tid;
		if (covered & bit(q))
			return;
		if (!(f->allowed & bit(q))) {
			add_all(d, f, 0, true);
		} else {
			f->bt |= (uint16_t)bit(q);
			d->st.backtracks++;
		}
		return;
	}
	uint32_t seen = 0, init = 0;
	uint32_t first_tidx[NT];
	int first_init = -1;

	for (uint32_t k = r->i + 1; k <= r->j; k++) {
		const struct ev *x = &d->ev[k];
		const uint32_t *cx;
		if (k == r->j) {
			cx = r->alt != NIL ? &d->aclk[r->alt] : clk_of(d, k);
		} else {
			if (x->flags & (EV_PHANTOM | EV_IMPLICIT))
				continue;
			cx = clk_of(d, k);
			if (after(ei, cx))
				continue;
		}
		unsigned t = x->tid;
		if (seen & bit(t))
			continue;
		bool ini = true;
		for (uint32_t m = seen; m && ini; m &= m - 1)
			if (cx[lowest(m)] >= first_tidx[lowest(m)])
				ini = false;
		seen |= bit(t);
		first_tidx[t] = x->tidx ? x->tidx : UINT32_MAX;
		if (ini) {
			if (covered & bit(t))
				return;   /* an initial is already explored or asleep here */
			init |= bit(t);
			if (first_init < 0)
				first_init = (int)t;
		}
	}
	if (!init)
		return;
	unsigned q = d->ev[r->j].tid;
	unsigned want = (init & bit(q)) ? q : (unsigned)first_init;
	if (!(f->allowed & bit(want))) {
		add_all(d, f, 0, true);
	} else {
		f->bt |= (uint16_t)bit(want);
		d->st.backtracks++;
	}
}

/* Insert v[0..n) into the wakeup tree below node (JACM 2017, Def. 6.2). */
static void wut_insert(struct weft_dpor *d, uint32_t node, uint32_t n)
{
	uint32_t left = n;

	for (;;) {
		if (d->nd[node].child == NIL)
			return;   /* a leaf: an execution through here is scheduled */
		uint32_t next = NIL;
		for (uint32_t c = d->nd[node].child; c != NIL; c = d->nd[c].sib) {
			const struct node *x = &d->nd[c];
			uint32_t it = first_of(d, x->tid, n);
			if (it != NIL) {
				if (!is_initial(d, it, n))
					continue;
				d->v[it].gone = 1;
				left--;
				next = c;
				break;
			}
			if (x->known && weak_initial(d, x->tid, true, &x->d, n)) {
				next = c;
				break;
			}
		}
		if (next == NIL)
			break;
		if (!left)
			return;   /* v is a prefix of a scheduled sequence */
		node = next;
	}
	d->st.backtracks++;
	for (uint32_t y = 0; y < n; y++) {
		if (d->v[y].gone)
			continue;
		node = weft_dpor_node_add(d, node, d->v[y].tid, &d->v[y].d);
		if (node == NIL) {
			set_incomplete(d, &d->capped, "out of memory");
			return;
		}
	}
}

static void optimal_race(struct weft_dpor *d, const struct race *r)
{
	const struct ev *ei = &d->ev[r->i];
	struct frame *f = &d->fr[ei->frame];
	uint32_t n = build_v(d, r);

	if (!n)
		return;
	/* covered by a thread explored or asleep here? */
	for (uint32_t m = (uint32_t)f->S | f->X; m; m &= m - 1) {
		unsigned q = lowest(m);
		const struct info *in = frame_info(d, f, q);
		if (weak_initial(d, q, in && in->known, in ? &in->d : NULL, n))
			return;
	}
	/* the first thread of v cannot run here (a yield): fall back */
	uint32_t x = 0;
	if (!(f->allowed & bit(d->v[x].tid))) {
		uint32_t have = 0;
		for (uint32_t c = d->nd[f->wut].child; c != NIL; c = d->nd[c].sib)
			have |= bit(d->nd[c].tid);
		uint32_t add = f->allowed & ~have & ~f->X & ~f->S;
		for (; add; add &= add - 1)
			weft_dpor_node_add(d, f->wut, lowest(add), NULL);
		d->st.fallbacks++;
		return;
	}
	wut_insert(d, f->wut, n);
}

void weft_dpor_analyse(struct weft_dpor *d)
{
	if (d->mode == WEFT_POR_SLEEP)
		return;
	for (uint32_t i = 0; i < d->nrc; i++) {
		const struct race *r = &d->rc[i];
		/* past a sleep-set block the run is covered by the sleeper's
		 * earlier one, except where a thread that holds its CPU shut
		 * out a thread that could have run there (cpu_dep): those
		 * races still count */
		if (d->valid_end != NIL && r->j >= d->valid_end && !d->cpu_dep)
			continue;
		struct race rr = *r;
		while (!(d->ev[rr.i].flags & EV_FIRST) && rr.i > 0 &&
		       (d->ev[rr.i].d.kind == WEFT_DEP_YIELD || d->ev[rr.i].d.kind == WEFT_DEP_END) &&
		       d->ev[rr.i - 1].tid == d->ev[rr.i].tid && !(d->ev[rr.i - 1].flags & EV_PHANTOM))
			rr.i--;   /* a yield or an end follows its thread's op: one transition */
		if ((d->ev[rr.j].flags & EV_IMPLICIT) && d->ev[rr.j].d.kind == WEFT_DEP_YIELD) {
			rr.j--;   /* a glued yield: the race is with its transition */
			rr.alt = NIL;
			if (rr.j <= rr.i)
				continue;
		}
		r = &rr;
		const struct ev *ei = &d->ev[r->i];
		if (ei->frame == NIL || ei->frame >= d->nfr)
			continue;
		d->st.races++;
		if (!(ei->flags & EV_FIRST))
			continue;   /* nothing else could run before e_i: irreversible */
		if (d->mode == WEFT_POR_SOURCE)
			source_race(d, r);
		else
			optimal_race(d, r);
	}
}
