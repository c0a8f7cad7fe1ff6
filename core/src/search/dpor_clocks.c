/*
 * dpor_clocks.c - dependence and vector clocks of dfs with partial-order
 * reduction: what the machine reports through ops->on_step becomes an
 * event log with vector clocks; races are found as events run (and
 * analysed at the end of the execution, dpor_races.c), sleepers wake at
 * a dependent event. The search, its references and the machine's
 * quirks: dpor.c; the shared state: dpor_state.h.
 *
 * Length (~1020 lines): the event log's construction (a record's
 * classification, its clock, its races, the per-byte location state with
 * its runs and undo logs, sleepers, the wakeup-tree cursor, the
 * CPU-sharing order, a skipped prefix's records, a step's ranges past
 * DEP_NX) is
 * one pass over each record, kept together since each step reads what
 * the ones before it left in the same event.
 */
#include "dpor_state.h"

static void sig_words(const struct weft_dpor *d, const struct xrange *e, uint64_t out[SIGW])
{
	memset(out, 0, SIGW * sizeof(uint64_t));
	if (e->loc == WEFT_NO_LOC)
		return;
	/* the bytes b of [loc, loc + size) as bits b & 63 of word (b >> 6) %
	 * SIGW_WORLD, a run within one 64-byte word at a time; a byte of RCU's
	 * reader slots as bit (b - rd_lo) & 63 of word SIGW_WORLD + ((b - rd_lo)
	 * >> 6) % 2: a region's record of rd[t] aliased world bytes, and made
	 * blocks of models without RCU conflict (z4-swapin-aba:fix dfs --bound
	 * 1: 558 executions for 552); a byte of the RCU state a free reads
	 * (fr_lo..fr_hi, every free's record: shadow.c) as bit (b - fr_lo) & 63
	 * of word SIGW_WORLD + 2 + ((b - fr_lo) >> 6) % 2, so that a free's
	 * block conflicts with the dereferences and sections that write it, not
	 * with every block (z3-swapoff:fix at bound 2: 66,896 executions for
	 * 39,079 while the free's record aliased every world byte). A world run
	 * of 256 bytes or more sets every world bit. */
	for (uint32_t b = e->loc, end = e->loc + e->size; b < end;) {
		bool rd = b >= d->rd_lo && b < d->rd_hi;
		bool fr = !rd && b >= d->fr_lo && b < d->fr_hi;
		uint32_t lo = rd ? d->rd_lo : fr ? d->fr_lo : 0;
		uint32_t lim = rd ? d->rd_hi : fr ? d->fr_hi : UINT32_MAX;
		if (!rd && !fr) {
			/* up to the next region */
			if (b < d->rd_lo && d->rd_lo < lim)
				lim = d->rd_lo;
			if (b < d->fr_lo && d->fr_lo < lim)
				lim = d->fr_lo;
			uint32_t stop = end < lim ? end : lim;
			if (stop - b >= 64 * SIGW_WORLD) {
				for (int i = 0; i < SIGW_WORLD; i++)
					out[i] = ~0ull;
				b = stop;
				continue;
			}
		}
		uint32_t base = b - lo;
		uint32_t off = base & 63, n = end - b < 64 - off ? end - b : 64 - off;
		if (n > lim - b)
			n = lim - b;
		uint64_t m = (n == 64 ? ~0ull : (1ull << n) - 1) << off;
		if (rd)
			out[SIGW_WORLD + (base >> 6) % 2] |= m;
		else if (fr)
			out[SIGW_WORLD + 2 + (base >> 6) % 2] |= m;
		else
			out[(b >> 6) % SIGW_WORLD] |= m;
		b += n;
	}
}

void weft_dpor_sig_add(const struct weft_dpor *d, struct sig *s, const struct dep *e)
{
	uint64_t m[SIGW];

	if (e->kind == WEFT_DEP_YIELD || e->y || e->xall) {
		s->all = 1;
		return;
	}
	if (e->kind == WEFT_DEP_JOIN) {
		s->joins |= (uint16_t)bit(e->arg);
		return;
	}
	struct xrange r;
	for (unsigned k = 0; dep_range(e, k, &r); k++) {
		sig_words(d, &r, m);
		for (int i = 0; i < SIGW; i++) {
			if (r.w)
				s->w[i] |= m[i];
			else
				s->r[i] |= m[i];
		}
	}
}

/* Does executed event e conflict with anything in block s? */
static bool sig_conflict(const struct weft_dpor *d, const struct dep *e, const struct sig *s)
{
	uint64_t m[SIGW];

	if (s->all || e->kind == WEFT_DEP_YIELD || e->y || e->xall)
		return true;
	if (e->kind == WEFT_DEP_END)
		return (s->joins >> e->arg) & 1;
	struct xrange r;
	for (unsigned k = 0; dep_range(e, k, &r); k++) {
		sig_words(d, &r, m);
		for (int i = 0; i < SIGW; i++)
			if (m[i] & (s->w[i] | (r.w ? s->r[i] : 0)))
				return true;
	}
	return false;
}

/* ---------------------------------------------------------- on_step */

static void record_race(struct weft_dpor *d, uint32_t i, uint32_t j, const uint32_t *alt)
{
	if (d->bounded || d->new_start == NIL || j < d->new_start)
		return;
	if (!GROW(d->rc, d->caprc, d->nrc + 1)) {
		set_incomplete(d, &d->capped, "out of memory");
		return;
	}
	struct race *r = &d->rc[d->nrc++];
	r->i = i;
	r->j = j;
	r->alt = NIL;
	r->cpu = false;
	if (alt && GROW(d->aclk, d->capaclk, d->naclk + NT)) {
		r->alt = d->naclk;
		memcpy(&d->aclk[d->naclk], alt, NT * sizeof(uint32_t));
		d->naclk += NT;
	}
}

/* Byte b after access n. */
static inline void loc_update(struct weft_dpor *d, uint32_t b, const struct dep *r, unsigned tid,
			      uint32_t n)
{
	undo_loc(d, b);
	struct loc *l = loc_at(d, b);

	if (r->w) {
		l->lw = n + 1;
		l->rdm = 0;
	} else {
		undo_rd(d, b * NT + tid);
		d->rd[(size_t)b * NT + tid] = n + 1;
		l->rdm |= (uint16_t)bit(tid);
	}
}

/* The run of byte b: its bytes get their head's state, each then a byte
 * alone (a byte not accessed in this execution gets it with its own la
 * and held cleared, as loc_at() would). */
static void run_split(struct weft_dpor *d, uint32_t b)
{
	uint32_t h = b - d->loc[b].back;
	undo_loc(d, h);
	struct loc *hl = loc_at(d, h);
	const uint32_t *hrd = &d->rd[(size_t)h * NT];

	for (uint32_t i = 1; i <= hl->run; i++) {
		undo_loc(d, h + i);
		struct loc *f = &d->loc[h + i];
		uint32_t *frd = &d->rd[(size_t)(h + i) * NT];
		if (f->epoch != d->lepoch) {
			f->la = 0;
			f->held = 0;
			f->epoch = d->lepoch;
		}
		f->lw = hl->lw;
		f->rdm = hl->rdm;
		f->back = 0;
		for (uint32_t m = hl->rdm; m; m &= m - 1) {
			undo_rd(d, (h + i) * NT + lowest(m));
			frd[lowest(m)] = hrd[lowest(m)];
		}
	}
	hl->run = 0;
	hl->remade = d->lepoch;
}

/* Is [b0, b1) one run (then its state is b0's)? If not, no run overlaps
 * it any more: its bytes are bytes alone, and fresh says whether none of
 * them was accessed in this execution (so all have the same state). */
static inline bool run_whole(struct weft_dpor *d, uint32_t b0, uint32_t b1, bool *fresh)
{
	const struct loc *l = &d->loc[b0];

	if (!l->back && l->run == b1 - b0 - 1)
		return true;
	if (b1 - b0 == 1) {
		run_split(d, b0);
		return true;
	}
	*fresh = true;
	for (uint32_t b = b0; b < b1; b++) {
		l = &d->loc[b];
		if (l->back || l->run)
			run_split(d, b);
		if (l->epoch == d->lepoch && (l->lw || l->rdm))
			*fresh = false;
	}
	return false;
}

/* [b0, b1), bytes alone with the same state (each one's updated for the
 * access), becomes a run. No undo log of its own: each byte's state
 * before the event is already logged, by its loc_update() for this very
 * access (both callers update every byte first), and the undo restores
 * the earliest of a byte's entries last. */
static inline void run_make(struct weft_dpor *d, uint32_t b0, uint32_t b1)
{
	if (b1 - b0 - 1 > UINT16_MAX)
		return;
	d->loc[b0].run = (uint16_t)(b1 - b0 - 1);
	d->loc[b0].remade = d->lepoch;
	for (uint32_t b = b0 + 1; b < b1; b++)
		d->loc[b].back = (uint16_t)(b - b0);
}

/* Races and happens-before of real event n (clock C, being built), for
 * its record r: the first record of its step (first), or another one of
 * the same step (then C is n's clock so far). */
static void conflicts(struct weft_dpor *d, uint32_t n, uint32_t *C, const struct dep *r, bool first)
{
	const struct ev *e = &d->ev[n];
	uint32_t cand[8 * NT], nc = 0;
	bool over = false;
	bool access = r->loc != WEFT_NO_LOC && !(e->flags & EV_PHANTOM);
	uint32_t b0 = access ? r->loc : 0, b1 = access ? r->loc + r->size : 0;
	uint32_t rel = NIL, acq = NIL;

	if (b1 > d->nloc)
		b1 = d->nloc;
	if (d->fast) {
		/* a replayed event: as it was (its races were analysed then;
		 * a spin_lock's clock without its release edge is at the same
		 * place in aclk, which is filled in the same order) */
		if (first) {
			memcpy(C, &d->pclk[(size_t)n * NT], NT * sizeof(uint32_t));
			d->ev[n].alt = d->pev[n].alt;
			if (d->ev[n].alt != NIL && d->ev[n].alt + NT > d->naclk)
				d->naclk = d->ev[n].alt + NT;
			if (d->ev[n].alt != NIL && d->ev[n].alt + NT > d->alt_hi)
				d->alt_hi = d->ev[n].alt + NT;
		}
		bool fresh = false;
		if (b0 < b1 && run_whole(d, b0, b1, &fresh)) {
			loc_update(d, b0, r, e->tid, n);
		} else if (b0 < b1) {
			for (uint32_t b = b0; b < b1; b++)
				loc_update(d, b, r, e->tid, n);
			if (r->w || fresh)
				run_make(d, b0, b1);
		}
		goto locks;
	}
	/* the thread that woke this one: it orders this event, and the two
	 * cannot be reversed (this thread was asleep) */
	if (first && d->exempt != NIL)
		join(C, clk_of(d, d->exempt));
	/* a yield conflicts with every event of another thread (the bounded
	 * search handles yields in weft_dpor_justify() instead) */
	bool yields = first && !d->bounded && (r->kind == WEFT_DEP_YIELD || d->yielded);
	for (unsigned u = 0; u < NT && yields; u++) {
		uint32_t y = r->kind == WEFT_DEP_YIELD ? d->last_ev[u] : d->last_yield[u];
		if (y && u != e->tid)
			cand[nc++] = y - 1;
	}
	uint32_t plw = 0, prdm = 0;
	const uint32_t *prd = NULL;
	/* a run: its bytes after the first add nothing (as below) */
	bool fresh = false, whole = b0 < b1 && run_whole(d, b0, b1, &fresh), same_all = true;
	for (uint32_t b = b0; b < (whole ? b0 + 1 : b1); b++) {
		struct loc *l = loc_at(d, b);
		const uint32_t *rd = &d->rd[(size_t)b * NT];
		uint32_t lw = l->lw, rdm = l->rdm;
		if (b == b0 && l->la)
			acq = l->la - 1;
		loc_update(d, b, r, e->tid, n);   /* this byte only: read as it was above */
		/* a byte like the one before it adds nothing (most accesses
		 * are to fields written and read whole; a write leaves the
		 * previous byte's reads as they were) */
		if (prd && plw == lw && prdm == rdm) {
			bool same = true;
			for (uint32_t m = rdm; m && same; m &= m - 1)
				same = prd[lowest(m)] == rd[lowest(m)];
			if (same)
				continue;
		}
		if (b != b0)
			same_all = false;
		plw = lw;
		prdm = rdm;
		prd = rd;
		if (r->w) {
			for (uint32_t m = rdm & ~bit(e->tid); m; m &= m - 1) {
				uint32_t rr = rd[lowest(m)];
				bool dup = false;
				for (uint32_t i = 0; i < nc; i++)
					dup |= cand[i] == rr - 1;
				if (dup)
					continue;
				if (nc < sizeof(cand) / sizeof(cand[0]))
					cand[nc++] = rr - 1;
				else
					over = true;
			}
		}
		if (lw && d->ev[lw - 1].tid != e->tid) {
			bool dup = false;
			for (uint32_t i = 0; i < nc; i++)
				dup |= cand[i] == lw - 1;
			if (!dup) {
				if (nc < sizeof(cand) / sizeof(cand[0]))
					cand[nc++] = lw - 1;
				else
					over = true;
			}
		}
	}
	/* every byte was like the first: so they are after this access (a
	 * read adds the same reader to each; a write leaves them alike) */
	if (!whole && b0 < b1 && (r->w || same_all))
		run_make(d, b0, b1);
	if (over)
		set_incomplete(d, &d->capped, "too many conflicting accesses to one range");
	/* most recent first */
	for (uint32_t i = 1; i < nc; i++)
		for (uint32_t j = i; j > 0 && cand[j] > cand[j - 1]; j--) {
			uint32_t x = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = x;
		}
	bool lockrace = r->lk == LK_BLOCKING;
	/* ticket lock: a queued waiter's acquire is the hand-over of the
	 * release before it; the queue order is the race (its ticket) */
	bool handed = r->kind == WEFT_DEP_ACQUIRE && access && d->queued[e->tid] == r->loc + 1;
	for (uint32_t i = 0; i < nc; i++) {
		uint32_t c = cand[i];
		if (c == d->exempt || c == n)
			continue;   /* the waker (joined above); the event itself */
		if (handed && d->ev[c].d.kind == WEFT_DEP_RELEASE) {
			join(C, clk_of(d, c));
			continue;
		}
		if (lockrace && rel == NIL && d->ev[c].d.kind == WEFT_DEP_RELEASE) {
			rel = c;   /* orders, but the race is with the acquire before it */
			continue;
		}
		/* cpu_dep: a race joined here must not hide one behind it, which
		 * may be the only feasible reversal (cpu_record()) */
		if (includes(d, d->cpu_dep ? d->cpu_pre : C, c))
			continue;
		record_race(d, c, n, NULL);
		join(C, clk_of(d, c));
	}
	if (lockrace) {
		/* reversing a spin_lock with the release before it is
		 * impossible: reverse it with the previous acquire (unless
		 * this thread found that one busy: that race was taken then) */
		if (acq != NIL && d->ev[acq].tid != e->tid && !(d->ev[acq].flags & EV_PHANTOM) &&
		    d->blk_acq[e->tid] != acq + 1 && !includes(d, C, acq))
			record_race(d, acq, n, C);
		if (rel != NIL && d->bounded && GROW(d->aclk, d->capaclk, d->naclk + NT)) {
			d->ev[n].alt = d->naclk;
			memcpy(&d->aclk[d->naclk], C, NT * sizeof(uint32_t));
			d->naclk += NT;
			d->alt_hi = d->naclk;
		}
		if (rel != NIL)
			join(C, clk_of(d, rel));
	}
locks:
	if (r->w && b0 < b1 && (r->kind == WEFT_DEP_ACQUIRE || r->kind == WEFT_DEP_RELEASE)) {
		undo_loc(d, b0);
		struct loc *l = loc_at(d, b0);
		if (r->kind == WEFT_DEP_ACQUIRE) {
			l->la = n + 1;
			l->held = (uint8_t)(e->tid + 1);
		} else if (r->kind == WEFT_DEP_RELEASE) {
			l->held = 0;
		}
	}
}

static void cursor_step(struct weft_dpor *d, uint32_t n)
{
	const struct ev *e = &d->ev[n];
	uint32_t node = d->cursor, c;
	bool learnt = false;

	if (e->flags & EV_FIRST) {
		c = d->fr[e->frame].wchild;
	} else {
		if (node == NIL)
			return;
		c = node_find(d, node, e->tid);
		if (c == NIL) {
			if (d->nd[node].child != NIL) {
				/* a forced step no pending sequence expected:
				 * those sequences cannot be followed from here */
				set_incomplete(d, &d->lost,
					       "a wakeup sequence could not be followed (yield or "
					       "missing dependence record)");
			}
			c = weft_dpor_node_add(d, node, e->tid, &e->d);
			learnt = true;
		}
	}
	if (c == NIL)
		return;
	d->cursor_ev = learnt ? n : NIL;
	if (!d->nd[c].known) {
		d->nd[c].known = 1;
		d->nd[c].d = e->d;
		d->cursor_ev = n;
	}
	d->cursor = c;
}

/* Inlined in log_record(), once per record: its call, and phantom
 * through memory, were about 630 of its 2,000 instructions per execution
 * of demo-por-locks:one-lock (optimal; docs/benchmark-notes.md). */
static inline __attribute__((always_inline)) void
classify(const struct weft_dpor *d, const struct weft_step_info *si, struct dep *o, bool *phantom)
{
	o->loc = si->loc;
	o->size = si->size ? si->size : 1;
	o->kind = si->kind;
	o->w = 0;
	o->arg = (uint8_t)(si->arg < NT ? si->arg : 0);
	o->lk = LK_NONE;
	o->y = 0;
	o->nx = o->xall = o->xhull = o->fr = 0;
	*phantom = false;
	unsigned sev = si->site ? si->site->ev : 0;
	/* a test-and-set spinlock's lock (the machine flags it: sleeping
	 * locks have LOCK sites too, and their blocked attempts queue) */
	bool spin = (si->flags & WEFT_STEP_SPIN) && d->lock == WEFT_LOCK_TAS && !d->cpu_dep;
	switch (si->kind) {
	case WEFT_DEP_READ:
		/* a failed trylock: a write of the lock whatever its outcome
		 * (the same operation succeeds in another order) */
		o->w = sev == WEFT_EV_TRYLOCK;
		break;
	case WEFT_DEP_ACQUIRE:
		o->w = 1;
		if (sev == WEFT_EV_TRYLOCK)
			o->lk = LK_TRY;
		else if (spin)
			o->lk = LK_BLOCKING;
		break;
	case WEFT_DEP_BLOCKED:
		o->w = 1;
		if (sev == WEFT_EV_JOIN || spin)
			*phantom = true;
		break;
	case WEFT_DEP_RELEASE:
		/* a spin_unlock: a release of a lock that may have spinners */
		if (spin)
			o->lk = LK_UNLOCK;
		o->w = 1;
		break;
	case WEFT_DEP_WRITE:
		o->w = 1;
		break;
	default:
		o->loc = WEFT_NO_LOC;
		break;
	}
	if (o->loc != WEFT_NO_LOC && o->loc >= d->cpu_loc0)
		o->loc = WEFT_NO_LOC;   /* outside the world: thread-local */
}

static void learn_first_op(struct weft_dpor *d, unsigned t, const struct weft_step_info *si,
			   const struct dep *o)
{
	unsigned sev = si->site ? si->site->ev : 0;
	uint8_t kind = FOP_OTHER, arg = 0;
	uint32_t loc = 0;

	if (d->lock == WEFT_LOCK_TAS && !d->cpu_dep && (si->flags & WEFT_STEP_SPIN) &&
	    o->loc != WEFT_NO_LOC &&
	    (si->kind == WEFT_DEP_ACQUIRE || si->kind == WEFT_DEP_BLOCKED)) {
		kind = FOP_LOCK;
		loc = o->loc;
	} else if (si->kind == WEFT_DEP_JOIN ||
		   (si->kind == WEFT_DEP_BLOCKED && sev == WEFT_EV_JOIN)) {
		kind = FOP_JOIN;
		arg = o->arg;
	}
	if (!(d->fop_known & bit(t))) {
		d->fop_gen++;
		d->fop_known |= (uint16_t)bit(t);
		d->fop_kind[t] = kind;
		d->fop_loc[t] = loc;
		d->fop_arg[t] = arg;
	} else if (d->fop_kind[t] != kind || d->fop_loc[t] != loc || d->fop_arg[t] != arg) {
		set_incomplete(d, &d->nondet,
			       "a thread's first operation changed: the model is nondeterministic");
		d->fop_gen++;
		d->fop_kind[t] = kind;
		d->fop_loc[t] = loc;
		d->fop_arg[t] = arg;
	}
}

/* A sleeper wakes at a dependent record of a step beyond its first. */
static void wake_sleepers(struct weft_dpor *d, const struct dep *r)
{
	for (uint32_t q = d->slp; q; q &= q - 1) {
		const struct info *in = &d->slpi[lowest(q)];
		bool w = !in->known || (d->bounded && !in->one ? sig_conflict(d, r, &in->s)
							       : dep_conflict(r, &in->d));
		if (w)
			d->slp &= (uint16_t)~bit(lowest(q));
	}
}

/* Range r joins transition a's other ranges (dep.x). Once they are full,
 * the two of them and r that lie closest become their hull (never the
 * first range, whose kind and lock role the reductions read): the same
 * bytes and those between, written if either was. More dependence, never
 * less, so sound as xall is, which conflicts with everything and is kept
 * for a hull wider than DEP_HULL_MAX. A step of a lock's release, the end
 * of its RCU read-side section (rcu.c's record of the thread's reader
 * slot) and two frees (z3-swapoff:fix's vfree() and kvfree(), adjacent)
 * made xall with DEP_NX others: every frame before it justified
 * (weft_dpor_justify()), 66,901 executions at bound 2 for 39,079. */
#define DEP_HULL_MAX 4096u
static void dep_add_range(struct dep *a, struct xrange r)
{
	if (a->xall)
		return;
	if (a->nx < DEP_NX) {
		a->x[a->nx++] = r;
		return;
	}
	struct xrange c[DEP_NX + 1];
	memcpy(c, a->x, sizeof(a->x));
	c[DEP_NX] = r;
	unsigned bi = 0, bj = 1;
	uint64_t best = UINT64_MAX, blo = 0, bhi = 0;
	for (unsigned i = 0; i < DEP_NX + 1; i++)
		for (unsigned j = i + 1; j < DEP_NX + 1; j++) {
			uint64_t lo = c[i].loc < c[j].loc ? c[i].loc : c[j].loc;
			uint64_t ei = (uint64_t)c[i].loc + c[i].size, ej = (uint64_t)c[j].loc + c[j].size;
			uint64_t hi = ei > ej ? ei : ej;
			if (hi - lo < best) {
				best = hi - lo;
				blo = lo;
				bhi = hi;
				bi = i;
				bj = j;
			}
		}
	if (best > DEP_HULL_MAX) {
		a->xall = 1;
		return;
	}
	unsigned n = 0;
	a->xhull = 1;
	a->x[n++] = (struct xrange){ (uint32_t)blo, (uint32_t)(bhi - blo),
				     (uint8_t)(c[bi].w | c[bj].w) };
	for (unsigned k = 0; k < DEP_NX + 1; k++)
		if (k != bi && k != bj)
			a->x[n++] = c[k];
}

/* Does p, the last execution's event, hold r, the k-th other record of
 * the same event now (k: its nx before r)? Its x[k] is r's range, or some
 * x[] holds it once two became a hull (later records of the step made
 * x[k] wider). Past DEP_NX, unchecked. */
static bool prefix_holds(const struct dep *p, unsigned k, const struct dep *r)
{
	if (k >= DEP_NX)
		return true;
	if (!p->xhull)
		return p->nx > k && p->x[k].loc == r->loc && p->x[k].size == r->size;
	for (unsigned i = 0; i < p->nx && i < DEP_NX; i++)
		if (p->x[i].loc <= r->loc &&
		    (uint64_t)r->loc + r->size <= (uint64_t)p->x[i].loc + p->x[i].size)
			return true;
	return false;
}

/* A record of the step of event m (the last one, of the same thread):
 * the transition's dependence becomes the union (dep.x), and the record's
 * races and order are m's. */
static void merge_record(struct weft_dpor *d, uint32_t m, const struct weft_step_info *si,
			 const struct dep *r)
{
	struct ev *e = &d->ev[m];
	unsigned t = e->tid;
	unsigned k = e->d.nx;

	/* a free's read of the RCU state: a slot of its own (dep.fr) */
	bool fr = !r->w && r->loc == d->fr_lo && r->size == d->fr_hi - d->fr_lo;
	if (fr) {
		e->d.fr = 1;
		e->d.f = (struct xrange){ r->loc, r->size, 0 };
	} else if (r->loc != WEFT_NO_LOC) {
		dep_add_range(&e->d, (struct xrange){ r->loc, r->size, r->w });
	}
	if (r->kind == WEFT_DEP_SPAWN && si->arg < NT)
		d->spawn_ev[si->arg] = m + 1;
	/* the replayed prefix must do what it did */
	if (d->branching && m < d->prefix_events && r->loc != WEFT_NO_LOC) {
		const struct ev *p = m < d->npev ? &d->pev[m] : NULL;
		if (!p || (fr ? !p->d.fr : !prefix_holds(&p->d, k, r))) {
			set_incomplete(d, &d->nondet,
				       "a replayed prefix diverged: the model is nondeterministic");
			d->nfr = d->k ? d->k - 1 : 0;
			go_stale(d);
			d->fast = false;
		}
	}
	uint32_t *C = clk_of(d, m);
	conflicts(d, m, C, r, false);
	d->tclk_ev[t] = m + 1;
	if (d->stale || d->new_start == NIL || m < d->new_start)
		return;
	wake_sleepers(d, r);
	/* the wakeup-tree node that learnt this transition from its first record */
	if (d->mode == WEFT_POR_OPTIMAL && d->cursor != NIL && d->cursor_ev == m)
		d->nd[d->cursor].d = e->d;
}

/* The event that woke thread t since its last record (NIL if none): the
 * waker's last event at or before the step of the wake-up. seen and
 * last_step are t's before the event being logged (d->seen, last_step[t]). */
static uint32_t waker_event(const struct weft_dpor *d, unsigned t, uint32_t n, bool seen,
			    uint32_t last_step)
{
	unsigned wk;
	uint32_t ws;

	if (!seen || !weft_thread_woken(t, &wk, &ws) || wk >= NT || wk == t || ws <= last_step)
		return NIL;
	for (uint32_t i = n; i-- > 0;) {
		const struct ev *x = &d->ev[i];
		if (x->tid == wk && x->step <= ws && !(x->flags & EV_PHANTOM))
			return i;
		if (x->step < last_step)
			break;   /* before the sleeper's last record: not the waker */
	}
	return NIL;
}

/* A per-event array (per words an event: clocks, CPU links) made to hold
 * event n, grown by doubling; false (the execution no longer logged, not
 * certified) when memory runs out. */
static bool grow_per_event(struct weft_dpor *d, uint32_t **a, uint32_t *cap, uint32_t n,
			   unsigned per)
{
	if (n + 1 <= *cap)
		return true;
	uint32_t c = *cap ? *cap : 256;
	while (c < n + 1)
		c *= 2;
	uint32_t *na = realloc(*a, (size_t)c * per * sizeof(uint32_t));
	if (!na) {
		set_incomplete(d, &d->capped, "out of memory");
		go_stale(d);
		d->logging = false;
		return false;
	}
	*a = na;
	*cap = c;
	return true;
}

/* Is record si another record of the last event's step, or the first
 * operation of a new thread after records it made before its first point
 * (passed without a decision): one transition? (Unless it is a phantom.) */
static inline __attribute__((always_inline)) bool
continues_last_event(const struct weft_dpor *d, const struct weft_step_info *si)
{
	if (!d->nev)
		return false;
	const struct ev *p = &d->ev[d->nev - 1];
	return p->tid == si->tid && (p->step == si->step || (si->flags & WEFT_STEP_PASSED)) &&
	       !(p->flags & EV_PHANTOM) && p->d.kind != WEFT_DEP_END &&
	       p->d.kind != WEFT_DEP_YIELD && si->kind != WEFT_DEP_END &&
	       si->kind != WEFT_DEP_YIELD && si->kind != WEFT_DEP_JOIN;
}

/* The per-thread state before event nev, for a frame whose chosen
 * thread's first event it is. */
static __attribute__((noinline)) void snapshot(struct weft_dpor *d, struct tsnap *s)
{
	memcpy(s->tclk_ev, d->tclk_ev, sizeof(s->tclk_ev));
	memcpy(s->ntidx, d->ntidx, sizeof(s->ntidx));
	memcpy(s->spawn_ev, d->spawn_ev, sizeof(s->spawn_ev));
	memcpy(s->end_ev, d->end_ev, sizeof(s->end_ev));
	memcpy(s->last_ev, d->last_ev, sizeof(s->last_ev));
	memcpy(s->last_yield, d->last_yield, sizeof(s->last_yield));
	memcpy(s->absorber, d->absorber, sizeof(s->absorber));
	memcpy(s->queued, d->queued, sizeof(s->queued));
	memcpy(s->blk_acq, d->blk_acq, sizeof(s->blk_acq));
	memcpy(s->last_step, d->last_step, sizeof(s->last_step));
	s->alt_hi = d->alt_hi;
	s->seen = d->seen;
	s->yield_open = d->yield_open;
	s->yielded = d->yielded;
	s->after_yield = d->after_yield;
	s->ok = !d->cpu_dep && d->undo_ok;
}

static void log_record(struct weft_dpor *d, const struct weft_step_info *si)
{
	bool phantom;

	if (continues_last_event(d, si)) {
		struct dep r = { 0 };   /* gcc -O3: x[] read only below nx */
		classify(d, si, &r, &phantom);
		if (!phantom && __builtin_expect(d->nev <= d->skip_floor, 0)) {
			/* the skipped prefix's last event, kept as the last
			 * execution left it, would gain a record: never seen
			 * (a decision separates them) */
			set_incomplete(d, &d->nondet,
				       "a replayed prefix diverged: the model is nondeterministic");
			go_stale(d);
		}
		if (!phantom) {
			merge_record(d, d->nev - 1, si, &r);
			d->last_step[si->tid] = si->step;
			return;
		}
	}
	uint32_t n = d->nev;
	if (n >= d->max_events || !GROW(d->ev, d->capev, n + 1)) {
		set_incomplete(d, &d->capped, "the events-per-execution cap was hit");
		go_stale(d);
		d->logging = false;
		return;
	}
	if (!grow_per_event(d, &d->clk, &d->capclk, n, NT))
		return;
	struct ev *e = &d->ev[n];
	unsigned t = si->tid;
	if ((int)t == d->await_tid && d->await_frame != NIL && !d->snap[d->await_frame].ok)
		snapshot(d, &d->snap[d->await_frame]);
	d->nev = n + 1;
	e->rec = d->nrec - 1;
	e->ul = d->nul;
	e->ur = d->nur;
	classify(d, si, &e->d, &phantom);
	/* a spin (fair scheduling's judgement, made before this record)
	 * conflicts with every other thread's events: its place among them
	 * decides which later choices are unfair, which the bounded search
	 * charges (choice_cost()) */
	if (!phantom && d->bounded && weft_fair_spun_now(t))
		e->d.xall = 1;
	e->tid = (uint8_t)t;
	e->step = si->step;
	/* the waker is looked up below, once the event is known to be new:
	 * as this thread was before this event */
	bool was_seen = d->seen & bit(t);
	uint32_t was_last_step = d->last_step[t];
	d->last_step[t] = si->step;
	d->pend_known &= (uint16_t)~bit(t);
	if (!(d->seen & bit(t))) {
		d->seen |= (uint16_t)bit(t);
		if (t < d->sc->nr_threads)
			learn_first_op(d, t, si, &e->d);
	}
	e->flags = 0;
	e->alt = NIL;
	if ((int)t == d->await_tid) {
		e->frame = d->await_frame;
		if (d->await_frame != NIL) {
			e->flags |= EV_FIRST;
			d->fr[d->await_frame].first_ev = n;
		} else {
			e->frame = d->last_frame;
		}
		d->await_tid = -1;
	} else {
		e->frame = d->last_frame;
	}
	if (e->d.kind == WEFT_DEP_END)
		e->flags |= EV_IMPLICIT;
	if (e->d.kind == WEFT_DEP_YIELD && !d->ymode) {
		/* the first yield: every search so far assumed blocking
		 * threads were no choice; start over without that */
		d->ymode = true;
		d->restart = true;
	}
	if (e->d.kind == WEFT_DEP_YIELD && !(e->flags & EV_FIRST) && n > 0 &&
	    d->ev[n - 1].tid == t && !(d->ev[n - 1].flags & EV_PHANTOM)) {
		/* the yield ends the transition of the op before it */
		e->flags |= EV_IMPLICIT;
		d->ev[n - 1].d.y = 1;
		if (d->cursor != NIL && d->nd[d->cursor].tid == t && d->nd[d->cursor].known)
			d->nd[d->cursor].d.y = 1;
	}

	/* the replayed prefix must do what it did; then its clocks are the
	 * previous execution's (conflicts() copies them) */
	d->fast = false;
	if (d->branching && n < d->prefix_events) {
		const struct ev *p = n < d->npev ? &d->pev[n] : NULL;
		if (!p || p->tid != e->tid || p->d.kind != e->d.kind || p->d.loc != e->d.loc ||
		    p->d.size != e->d.size) {
			set_incomplete(d, &d->nondet,
				       "a replayed prefix diverged: the model is nondeterministic");
			d->nfr = d->k ? d->k - 1 : 0;
			go_stale(d);
		} else {
			d->fast = !d->stale;
		}
	}

	if (phantom)
		d->after_yield = false;
	uint32_t *C = clk_of(d, n);
	/* a replayed real event's clock is the previous execution's
	 * (conflicts() copies it over C): the edges below build nothing */
	bool replayed = d->fast && !phantom;
	/* a spin wait's wake-up is no order: a spinner's acquire races
	 * with the release (the lock rules and aclk handle it); a replayed
	 * event's waker orders nothing (conflicts() copies its clock) */
	uint32_t wkev = phantom || replayed || (si->flags & WEFT_STEP_SPIN)
				? NIL
				: waker_event(d, t, n, was_seen, was_last_step);
	if (!replayed)
		thread_clock(d, t, C);
	if (phantom) {
		/* a blocked attempt that changes nothing: not in the trace;
		 * it races with the acquire that holds the lock */
		e->flags |= EV_PHANTOM;
		/* bounded: the index of the thread's last real event, so that
		 * weft_dpor_justify() measures "its next op" from there */
		e->tidx = d->bounded ? d->ntidx[t] : 0;
		if (e->d.loc != WEFT_NO_LOC) {
			struct loc *l = loc_at(d, e->d.loc);
			uint32_t a = l->la;
			if (a && d->ev[a - 1].tid != t && !includes(d, C, a - 1))
				record_race(d, a - 1, n, NULL);
			d->blk_acq[t] = a;
		}
		if (d->bounded && !d->stale && d->new_start != NIL && n >= d->new_start) {
			/* under a bound a blocked attempt is a free switch: a
			 * sleeper whose block touches the lock wakes (moving that
			 * block first would turn the attempt into an acquire) */
			for (uint32_t m = d->slp; m; m &= m - 1) {
				const struct info *in = &d->slpi[lowest(m)];
				bool joins = e->d.loc == WEFT_NO_LOC && e->d.arg == lowest(m);
				if (!in->known || joins ||
				    (in->one ? dep_conflict(&e->d, &in->d) : sig_conflict(d, &e->d, &in->s)))
					d->slp &= (uint16_t)~bit(lowest(m));
			}
		}
		if (!d->ymode || d->bounded)
			return;
		/* with yields, the attempt is a step that can let a yielder
		 * go on: an event that conflicts with yields (and only them) */
	}
	e->tidx = ++d->ntidx[t];
	C[t] = e->tidx;
	if (phantom) {
		conflicts(d, n, C, &e->d, true);
		d->tclk_ev[t] = n + 1;
		for (uint32_t m = d->yield_open & ~bit(t); m; m &= m - 1)
			d->absorber[lowest(m)] = n + 1;
		d->yield_open = 0;
		d->last_ev[t] = n + 1;
		return;
	}
	if (!replayed && e->tidx == 1 && d->spawn_ev[t])
		join(C, clk_of(d, d->spawn_ev[t] - 1));
	if (!replayed && e->d.kind == WEFT_DEP_JOIN && d->end_ev[e->d.arg])
		join(C, clk_of(d, d->end_ev[e->d.arg] - 1));
	d->exempt = wkev;
	/* the yield rule: a yielder's next event comes after what ran first
	 * after its yield (an order, not a race: it cannot be reversed) */
	if (d->absorber[t] && !d->bounded) {
		if (!replayed)
			join(C, clk_of(d, d->absorber[t] - 1));
		d->absorber[t] = 0;
	}
	conflicts(d, n, C, &e->d, true);
	d->exempt = NIL;
	d->tclk_ev[t] = n + 1;
	for (uint32_t m = d->yield_open & ~bit(t); m; m &= m - 1)
		d->absorber[lowest(m)] = n + 1;
	if (e->d.kind == WEFT_DEP_YIELD) {
		d->last_yield[t] = n + 1;
		d->yielded = true;
		d->yield_open = (uint16_t)bit(t);
	} else {
		d->yield_open = 0;
	}
	d->last_ev[t] = n + 1;
	d->after_yield = e->d.kind == WEFT_DEP_YIELD;
	if (e->d.kind == WEFT_DEP_SPAWN && si->arg < NT)
		d->spawn_ev[si->arg] = n + 1;
	if (e->d.kind == WEFT_DEP_END)
		d->end_ev[t] = n + 1;
	d->blk_acq[t] = 0;
	d->queued[t] = e->d.kind == WEFT_DEP_BLOCKED && e->d.loc != WEFT_NO_LOC ? e->d.loc + 1 : 0;

	if (d->stale || d->new_start == NIL || n < d->new_start)
		return;
	if (d->slp & bit(t)) {
		/* a sleeping thread runs because nothing else can: every
		 * continuation from here is covered (sleep-set blocked) */
		d->redundant = true;
		d->valid_end = n;
		go_stale(d);
		return;
	}
	/* sleep sets: a sleeper wakes at a dependent event; a yield wakes all
	 * (the yield rule may make the sleeper's covering run infeasible) */
	if (d->slp) {
		if (e->d.kind == WEFT_DEP_YIELD) {
			d->slp = 0;
		} else {
			d->slp &= (uint16_t)~bit(t);
			for (uint32_t m = d->slp; m; m &= m - 1) {
				const struct info *in = &d->slpi[lowest(m)];
				bool w = !in->known ||
					 (d->bounded && !in->one ? sig_conflict(d, &e->d, &in->s)
								 : dep_conflict(&e->d, &in->d));
				if (w)
					d->slp &= (uint16_t)~bit(lowest(m));
			}
		}
	}
	if (d->mode == WEFT_POR_OPTIMAL && !(e->flags & EV_IMPLICIT))
		cursor_step(d, n);
}

/*
 * Threads sharing a CPU (cpu_dep). A thread that holds its CPU (preemption
 * or interrupts off, spinning for a lock included) excludes the CPU's other
 * threads until it lets go: an order between events no access shows, and
 * one that only the event which took the CPU can be reversed with (a
 * thread excluded at a state is not enabled there). So every event of a
 * thread on CPU c, but a yield (which conflicts with everything) and an
 * end (one transition with the op before it):
 *  - writes c's slot (cpu_loc0 + c): any two events on c are dependent for
 *    the races and the bounded evidence (dpor_bound.c; the search keeps no
 *    sleep sets then, dpor.c);
 *  - races with every event on c of another thread that its thread had
 *    not seen before it (before: its thread's clock before the event; the
 *    event's own data races join clocks that would hide the rest), not
 *    just the last, which may lie inside that thread's hold where no
 *    reversal is feasible (such a race is no alternative: nothing else ran
 *    there, or every enabled thread is added); the event that took the
 *    CPU is among them. Such a race puts this event's thread first at the
 *    other event's frame (dpor_races.c): the sequence of the textbook
 *    reversal keeps an order the exclusion made (a later thread's access
 *    it could not come before) and would name that thread instead. Then
 *    it comes after the last of each (its thread let go of the CPU
 *    before this event ran).
 * A test-and-set spin_lock's blocked attempt holds the CPU too: under
 * cpu_dep it is a real event (a write of the lock), as under the ticket
 * lock, and a thread that would block on one is enabled.
 */
static void cpu_record(struct weft_dpor *d, uint32_t n)
{
	const uint32_t *before = d->cpu_pre;
	struct ev *e = &d->ev[n];

	if ((e->flags & EV_PHANTOM) || e->d.kind == WEFT_DEP_YIELD || e->d.kind == WEFT_DEP_END)
		return;
	if (!grow_per_event(d, &d->cpu_prev, &d->capcpu, n, 1))
		return;
	unsigned cpu = weft_thread_cpu(e->tid) % WEFT_MAX_CPUS;
	unsigned t = e->tid;
	if (e->d.nx < DEP_NX)
		e->d.x[e->d.nx++] = (struct xrange){ d->cpu_loc0 + cpu, 1, 1 };
	else
		e->d.xall = 1;
	uint32_t *C = clk_of(d, n);
	uint32_t last_of[NT];
	uint16_t done = (uint16_t)bit(t), seen = 0;
	for (uint32_t k = d->cpu_last[cpu]; k; k = d->cpu_prev[k - 1]) {
		const struct ev *x = &d->ev[k - 1];
		if (done & bit(x->tid))
			continue;
		if (!(seen & bit(x->tid))) {
			seen |= (uint16_t)bit(x->tid);
			last_of[x->tid] = k - 1;
		}
		if (includes(d, before, k - 1)) {
			done |= (uint16_t)bit(x->tid);   /* and its earlier events */
			continue;
		}
		if (!d->fast) {
			uint32_t nrc = d->nrc;
			record_race(d, k - 1, n, NULL);
			if (d->nrc > nrc)
				d->rc[nrc].cpu = true;
		}
	}
	for (uint32_t m = seen; m; m &= m - 1)
		join(C, clk_of(d, last_of[lowest(m)]));
	d->tclk_ev[t] = n + 1;
	d->cpu_prev[n] = d->cpu_last[cpu];
	d->cpu_last[cpu] = n + 1;
}

/* A record of a skipped prefix: counted, and checked against the log as
 * a logged prefix is (log_record()): the first record of each event by
 * its thread, kind, location and size (classify()'s: none for a kind
 * without one or past the world), the others by their thread (the
 * record counts place each; event P's is no match, skip_to()). Returns
 * false when it diverges. */
static inline bool skip_record(struct weft_dpor *d, const struct weft_step_info *si, uint32_t r)
{
	uint32_t k = d->rn;

	if (d->ev[k].rec == r) {
		const struct ev *e = &d->ev[k];
		if (e->tid != si->tid || e->d.kind != si->kind)
			return false;
		if (e->d.loc != si->loc) {
			bool keeps = si->kind == WEFT_DEP_READ || si->kind == WEFT_DEP_WRITE ||
				     si->kind == WEFT_DEP_ACQUIRE || si->kind == WEFT_DEP_RELEASE ||
				     si->kind == WEFT_DEP_BLOCKED;
			if (e->d.loc != WEFT_NO_LOC || (keeps && si->loc < d->cpu_loc0))
				return false;
		}
		if (e->d.size != si->size && (si->size || e->d.size != 1))
			return false;
		d->rn = k + 1;
		if ((int)si->tid == d->await_tid)
			d->await_tid = -1;
		return true;
	}
	return k > 0 && d->ev[k - 1].tid == si->tid && r < d->ev[k].rec;
}

/* A record logged (out of line: a skipped record does not pay its frame) */
static __attribute__((noinline)) void step_logged(struct weft_dpor *d,
						  const struct weft_step_info *si)
{
	uint32_t n = d->nev;

	if (d->cpu_dep && !continues_last_event(d, si)) {
		thread_clock(d, si->tid, d->cpu_pre);
		if (!d->ntidx[si->tid] && d->spawn_ev[si->tid])
			join(d->cpu_pre, clk_of(d, d->spawn_ev[si->tid] - 1));   /* after its spawn */
	}
	log_record(d, si);
	if (d->cpu_dep && d->nev == n + 1 && d->logging)
		cpu_record(d, n);
}

void weft_dpor_step(void *st, const struct weft_step_info *si)
{
	struct weft_dpor *d = st;

	if (si->tid >= NT)
		return;
	if (d->skipping) {   /* (logging) */
		if (!skip_record(d, si, d->nrec++))
			weft_dpor_skip_diverged(d);
		return;
	}
	if (!d->logging)
		return;
	d->nrec++;
	step_logged(d, si);
}
