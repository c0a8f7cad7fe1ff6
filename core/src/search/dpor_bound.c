/*
 * dpor_bound.c - the preemption-bounded forms of source-DPOR and sleep
 * sets (dfs --bound with --por source|sleep; dpor.c, dpor_state.h).
 *
 * The bounded search (docs/strategies.md). A preemption of thread p right
 * before its op x can be delayed past x whenever nothing other threads
 * do before x runs conflicts with x: the result is equivalent and has no
 * more preemptions (the delay lemma). If something does (y), moving x
 * first instead gives a bounded run through "p continues" in which y
 * comes after x but before p's next op x2; in every run equivalent to it
 * y sees x and not x2. So alternatives to continuing p at a frame are
 * needed only once some explored run through "p continues" has an event
 * y of another thread that conflicts with x and whose clock has x but
 * not x2 (or p has no x2). The frame's default subtree is explored first
 * (depth first), so that evidence is in before its alternatives are
 * picked.
 *
 * Threads sharing a CPU (cpu_dep, dpor_clocks.c cpu_record()): what p
 * holds after x (preemption or interrupts off, a spinlock held or spun
 * for) shuts the other threads of its CPU out, so moving x (or a free
 * decision's block) to the front can make a run infeasible where no
 * event conflicts with x. A frame of p is therefore justified once any
 * other thread of p's CPU has an event after x in the explored run,
 * whatever it saw; a hold shuts out only its own CPU's threads, so the
 * evidence from other CPUs is as above.
 */
#include "dpor_state.h"

/*
 * Evidence against delaying p's unlock x of a test-and-set lock. In a run
 * through another choice at x's frame, p holds the lock until x, so no
 * other thread acquires or unlocks it before x: only a trylock or a plain
 * access there conflicts with x. What else stops moving x to the front
 * is a blocked attempt of another thread r before x that is not the first
 * thing r does after being chosen (one that is can be dropped, choosing
 * what ran after it instead, at no cost): r ran some real event z after
 * the frame, then tried the lock. Its evidence in a run through "p
 * continues" is r's acquire y of the lock after an event of r that is
 * itself after the frame. Not used once yields are seen: right after a
 * yield, the attempt may be the only way back to the yielder. Only the y
 * from event from on are asked about (weft_dpor_justify(): the earlier
 * ones gave no evidence when last asked).
 */
static bool unlock_hit(const struct weft_dpor *d, uint32_t i, uint32_t lim, uint32_t from)
{
	const struct ev *x = &d->ev[i];
	uint16_t ran = 0;   /* threads with a real event after x */

	for (uint32_t j = i + 1; j < d->nev; j++) {
		const struct ev *y = &d->ev[j];
		if (y->tid == x->tid || (y->flags & EV_PHANTOM))
			continue;
		if (j >= from && y->d.lk == LK_BLOCKING && y->d.loc == x->d.loc &&
		    (ran & bit(y->tid))) {
			const uint32_t *c = y->alt != NIL ? &d->aclk[y->alt] : clk_of((struct weft_dpor *)d, j);
			if (c[x->tid] <= lim)
				return true;
		}
		ran |= (uint16_t)bit(y->tid);
	}
	return false;
}

/* The clock an event's evidence is judged by: a spin_lock's is its clock
 * without the release edge (moving x first would only make it wait). */
static inline const uint32_t *evidence_clock(const struct weft_dpor *d, uint32_t k)
{
	uint32_t alt = d->ev[k].alt;

	return alt != NIL ? &d->aclk[alt] : clk_of((struct weft_dpor *)d, k);
}

/* Has an event in l of another thread than p not seen p's op after its
 * (clock[p] <= lim)? own: l's events are judged by their own clocks,
 * else by evidence_clock(). */
static inline bool later_hit(const struct weft_dpor *d, const struct later *l, unsigned p,
			     uint32_t lim, bool own)
{
	for (uint32_t m = l->has & ~bit(p); m; m &= m - 1) {
		uint32_t k = l->first[lowest(m)];
		const uint32_t *c = own ? clk_of((struct weft_dpor *)d, k) : evidence_clock(d, k);
		if (c[p] <= lim)
			return true;
	}
	return false;
}

static inline void later_add(struct later *l, unsigned p, uint32_t k)
{
	l->has |= (uint16_t)bit(p);
	l->first[p] = k;
}

static bool jm_hit(const struct weft_dpor *d, const struct jmask *m, bool w, unsigned p,
		   uint32_t lim, bool plain_only)
{
	if (later_hit(d, &m->k[JM_W], p, lim, false) || (w && later_hit(d, &m->k[JM_R], p, lim, false)))
		return true;
	if (plain_only)
		return false;
	return later_hit(d, &m->k[JM_A], p, lim, false) || later_hit(d, &m->k[JM_U], p, lim, false);
}

/* A free decision (no current thread) chose its default d. Choosing
 * another thread q instead is needed only if something that runs before
 * d's block conflicts with it: otherwise moving d's whole block to the
 * front gives an equivalent run with no more preemptions (the block-move
 * argument of the bounded sleep sets). Evidence, as for a preemption: a
 * later event of another thread that conflicts with an event of d's
 * natural block and has not seen d's next op after that block. */
struct freeblk {
	uint32_t frame;
	uint32_t t0, t1;             /* d's events t0 .. t1 */
};

static void justify_frame(struct weft_dpor *d, struct frame *f)
{
	f->just = 1;
	uint32_t add = bound_mask(d, f, f->allowed & ~f->bt);
	for (uint32_t m = add; m; m &= m - 1)
		if (in_bound(d, f, lowest(m))) {
			f->bt |= (uint16_t)bit(lowest(m));
			d->st.backtracks++;
		}
}

/* Does a later event recorded in jm (and any, every) conflict with p's
 * event x and not see p's op after it (clock[p] <= lim)? */
static bool jm_evidence(const struct weft_dpor *d, const struct jmask *jm, const struct ev *x,
			unsigned p, uint32_t lim, bool plain_only, const struct later *all,
			const struct later *every)
{
	struct xrange r;

	if (later_hit(d, all, p, lim, true))
		return true;   /* a transition that conflicts with everything */
	if (x->d.xall)
		return later_hit(d, every, p, lim, true);
	for (unsigned k = 0; dep_range(&x->d, k, &r); k++) {
		if (r.loc == WEFT_NO_LOC)
			continue;
		/* a range alone: recorded at its first byte only (below) */
		uint32_t end = range_alone(d, r.loc, r.size) ? r.loc + 1 : r.loc + r.size;
		for (uint32_t b = r.loc; b < end && b < d->nloc; b++) {
			const struct jmask *m = &jm[b];
			if (b > r.loc && m->cut != d->epoch)
				continue;   /* as the byte before it: no hit there */
			if (m->epoch == d->epoch && jm_hit(d, m, r.w, p, lim, plain_only && k == 0))
				return true;
		}
	}
	return false;
}

/* The evidence gathered so far (weft_dpor_justify()): the later yields,
 * events that conflict with everything, and events, with jm[]. */
struct jev {
	struct later yields, all, every;
	struct jmask *jm;
};

/* Event k is p's op x at the frame f that continued p (a preemption
 * decision): needs f an alternative? A later y of another thread with
 * y[p] <= tidx(x), or any later y if p has nothing after x (a yield or the
 * end right after x belong to x's transition: nothing can run between
 * them), that conflicts with x or is a yield (x may have been what ran
 * right after it: moving x first could strand it). mate: a later event of
 * another thread of p's CPU (cpu_dep). from: unlock_hit()'s. p's events
 * after x are those whose index is above x's transition's (tidx: each
 * thread's are numbered in order, ntidx[p] the last). True: no later
 * event of another thread has missed p's op after x (none has missed an
 * earlier op of p either), or there is none. */
static bool judge_first(struct weft_dpor *d, const struct jev *j, uint32_t k, struct frame *f,
			bool mate, uint32_t from)
{
	const struct ev *e = &d->ev[k];
	unsigned p = e->tid;
	uint32_t end = e->tidx;
	bool stops = (e->flags & EV_PHANTOM) != 0;

	for (uint32_t i = k + 1; i < d->nev && d->ev[i].tid == p && (d->ev[i].flags & EV_IMPLICIT);
	     i++) {
		end = d->ev[i].tidx;
		stops = true;   /* x's transition ends p's block */
	}
	uint32_t lim = d->ntidx[p] > end ? end : UINT32_MAX - 1;   /* MAX: no event */
	/* any evidence is a later event of another thread that has not seen
	 * p's op after lim: of each thread the earliest has the least clock
	 * (struct later), and the yields, the events that conflict with
	 * everything and jm[]'s records are later events (judged by their
	 * own clocks, or evidence clocks, no less) */
	bool some = later_hit(d, &j->every, p, lim, false);
	/* stranding a yield takes the yielder running again right after x: a
	 * second preemption unless x's transition ends p's block */
	bool just = (some && (stops || f->preempt + 2 <= d->bound) &&
		     later_hit(d, &j->yields, p, lim, true)) ||
		    mate;
	bool unl = e->d.lk == LK_UNLOCK && !d->ymode;
	if (!just && some && !(e->flags & EV_PHANTOM)) {
		just = jm_evidence(d, j->jm, e, p, lim, unl, &j->all, &j->every);
		/* its y are later blocking attempts at x's lock: jm[]'s
		 * acquires of its first byte (a clock no less than their
		 * thread's earliest's) */
		if (!just && unl &&
		    (e->d.loc >= d->nloc ||
		     (j->jm[e->d.loc].epoch == d->epoch &&
		      later_hit(d, &j->jm[e->d.loc].k[JM_A], p, lim, false))))
			just = unlock_hit(d, k, lim, from);
	}
	if (just)
		justify_frame(d, f);
	else if (some && !stops && f->preempt + 2 > d->bound &&
		 later_hit(d, &j->yields, p, lim, true))
		d->st.bound_cuts++;   /* a larger bound justifies it */
	return !some;
}

/* Event k (real, p's) is in the block of free decision b: needs b's frame
 * an alternative? */
static void judge_block(struct weft_dpor *d, const struct jev *j, uint32_t k,
			const struct freeblk *b, bool mate)
{
	const struct ev *e = &d->ev[k];
	unsigned p = e->tid;
	uint32_t lim = b->t1 != NIL && d->ntidx[p] > b->t1 ? b->t1 : UINT32_MAX - 1;

	if (mate || (later_hit(d, &j->every, p, lim, false) &&
		     (later_hit(d, &j->yields, p, lim, true) ||
		      jm_evidence(d, j->jm, e, p, lim, false, &j->all, &j->every))))
		justify_frame(d, &d->fr[b->frame]);
}

static inline bool in_block(const struct weft_dpor *d, const struct ev *e, const struct freeblk *b)
{
	const struct frame *f = &d->fr[b->frame];

	return !f->just && f->chosen == e->tid && !(e->flags & EV_PHANTOM) && e->tidx >= b->t0 &&
	       (b->t1 == NIL || e->tidx <= b->t1);
}

/* Records real event k as later evidence. */
static void record(struct weft_dpor *d, struct jev *j, uint32_t k)
{
	const struct ev *e = &d->ev[k];
	unsigned p = e->tid;
	struct jmask *jm = j->jm;

	if (e->d.kind == WEFT_DEP_YIELD)
		later_add(&j->yields, p, k);
	later_add(&j->every, p, k);
	if (e->d.xall)
		later_add(&j->all, p, k);
	struct xrange r;
	for (unsigned ri = 0; dep_range(&e->d, ri, &r); ri++) {
		if (r.loc == WEFT_NO_LOC)
			continue;
		unsigned kind = ri == 0 && e->d.lk == LK_BLOCKING ? JM_A
			      : ri == 0 && e->d.lk == LK_UNLOCK  ? JM_U
			      : r.w                              ? JM_W
								 : JM_R;
		if (r.loc < d->nloc)
			jm[r.loc].cut = d->epoch;
		if (r.loc + r.size < d->nloc)
			jm[r.loc + r.size].cut = d->epoch;
		/* a range alone: every range recorded or asked about that has
		 * its bytes is the same range */
		uint32_t end = range_alone(d, r.loc, r.size) ? r.loc + 1 : r.loc + r.size;
		for (uint32_t b = r.loc; b < end && b < d->nloc; b++) {
			struct jmask *m = &jm[b];
			if (m->epoch != d->epoch) {
				m->epoch = d->epoch;
				for (unsigned i = 0; i < JM_KINDS; i++)
					m->k[i].has = 0;
			}
			later_add(&m->k[kind], p, k);
		}
	}
}

void weft_dpor_justify(struct weft_dpor *d, struct jmask *jm)
{
	struct jev j = { .jm = jm };
	struct freeblk fb[64];
	unsigned nfb = 0;
	/* cpu_dep: the other threads of p's CPU, and the threads with an
	 * event after the one at hand (the scan runs backwards); no thread
	 * migrates (dpor.c refuses it), so a thread's CPU is its last one */
	uint16_t mates[NT] = { 0 }, later = 0;

	/* The evidence is gathered from the end back to the first event of a
	 * frame still unjustified: what runs before it is evidence for no
	 * frame. */
	uint32_t kmin = d->nev;

	for (unsigned t = 0; d->cpu_dep && t < NT; t++)
		for (unsigned q = 0; q < NT; q++)
			if (q != t && ((d->seen >> t) & (d->seen >> q) & 1u) &&
			    weft_thread_cpu(t) == weft_thread_cpu(q))
				mates[t] |= (uint16_t)bit(q);
	for (uint32_t k = 0; k < d->nfr && kmin == d->nev; k++) {
		const struct frame *f = &d->fr[k];
		if (!f->just && f->first_ev < d->nev && f->cur >= 0 && f->cur == (int)f->chosen)
			kmin = f->first_ev;
	}
	for (uint32_t k = 0; k < d->nfr && nfb < 64; k++) {
		const struct frame *f = &d->fr[k];
		if (f->just || f->cur >= 0 || f->first_ev >= d->nev)
			continue;
		if (f->first_ev < kmin)
			kmin = f->first_ev;
		const struct ev *x = &d->ev[f->first_ev];
		fb[nfb].frame = k;
		fb[nfb].t0 = (x->flags & EV_PHANTOM) ? x->tidx + 1 : x->tidx;
		fb[nfb].t1 = f->blk_end;
		nfb++;
	}

	/* The events before ns, this execution's replayed prefix, were the
	 * last execution's too, with its frames, and its justification asked
	 * each frame still unjustified about every event after the frame's
	 * first: those of the prefix gave no evidence then, and give none
	 * now. (Whether a prefix event y hits a prefix frame's x does not
	 * depend on what follows the prefix: its clock[p] counts p's events
	 * of the prefix only, so it is <= lim unless y saw p's op after x,
	 * which then is in the prefix, in both executions.) So the new events
	 * are recorded (scanning back from the end, each event judged by
	 * those after it), and then the prefix's frames are judged by them
	 * only. Not after a log cut short or stale (a sleep-set blocked
	 * execution's goes on: it is whole), nor with threads sharing a CPU
	 * (a CPU mate's later event is evidence whatever it saw). */
	uint32_t ns = kmin;
	if (d->jm_whole && !d->cpu_dep && d->new_start != NIL && d->new_start > kmin &&
	    d->new_start <= d->nev)
		ns = d->new_start;
	d->jm_whole = d->logging && (!d->stale || d->redundant) && !d->nondet && !d->capped &&
		      !d->wide && !d->cpu_dep;

	for (uint32_t k = d->nev; k-- > ns;) {
		const struct ev *e = &d->ev[k];
		unsigned p = e->tid;
		if ((e->flags & EV_FIRST) && e->frame < d->nfr) {
			struct frame *f = &d->fr[e->frame];
			if (!f->just && f->cur == (int)p && f->chosen == p)
				judge_first(d, &j, k, f, later & mates[p], k + 1);
		}
		/* events of free decisions' blocks */
		for (unsigned i = 0; i < nfb; i++)
			if (in_block(d, e, &fb[i]))
				judge_block(d, &j, k, &fb[i], later & mates[p]);
		later |= (uint16_t)bit(p);
		if (!(e->flags & EV_PHANTOM))
			record(d, &j, k);
	}
	if (ns == kmin)
		return;
	/* The prefix's frames (no CPU mates here), last first. Any evidence
	 * is a new event of another thread r, whose clock[p] is no less than
	 * r's first new event's (struct later): least, the least of those.
	 * For a frame of p that p's later ops follow, lim (judge_first()) is
	 * x's transition's last index, no more than a later frame's: once
	 * least is above one frame's lim, it is above every earlier frame's
	 * of p (and a frame with no later op of p has no lim: only no new
	 * event of another thread at all is above it). */
	uint16_t done = 0;
	for (uint32_t k = d->nfr; k-- > 0 && done != (uint16_t)d->seen;) {
		struct frame *f = &d->fr[k];
		uint32_t x = f->first_ev;
		if (x >= ns || x < kmin || f->just || f->cur < 0 || f->cur != (int)f->chosen)
			continue;
		const struct ev *e = &d->ev[x];
		unsigned p = e->tid;
		if ((done & bit(p)) || !(e->flags & EV_FIRST) || e->frame != k)
			continue;
		if (judge_first(d, &j, x, f, false, ns))
			done |= (uint16_t)bit(p);
	}
	for (unsigned i = 0; i < nfb; i++) {
		const struct frame *f = &d->fr[fb[i].frame];
		for (uint32_t k = f->first_ev; k < ns && !f->just; k++) {
			const struct ev *e = &d->ev[k];
			if (e->tid != f->chosen || (e->flags & EV_PHANTOM))
				continue;
			if (fb[i].t1 != NIL && e->tidx > fb[i].t1)
				break;   /* past the block */
			if (in_block(d, e, &fb[i]))
				judge_block(d, &j, k, &fb[i], false);
		}
	}
}
