/*
 * dpor.c - dfs with partial-order reduction: sleep sets, source-DPOR and
 * optimal DPOR with wakeup trees, and the preemption-bounded forms of the
 * first two (weft/strategy.h, docs/strategies.md).
 *
 *  - Godefroid, "Partial-Order Methods for the Verification of Concurrent
 *    Systems", LNCS 1032, 1996 (sleep sets);
 *  - Flanagan, Godefroid, "Dynamic partial-order reduction for model
 *    checking software", POPL 2005;
 *  - Abdulla, Aronis, Jonsson, Sagonas, "Optimal dynamic partial order
 *    reduction", POPL 2014, and "Source sets: a foundation for optimal
 *    dynamic partial order reduction", JACM 64(4), 2017 (Algorithm 1,
 *    source-DPOR; Algorithm 2, optimal DPOR with wakeup trees);
 *  - Coons, Musuvathi, McKinley, "Bounded partial-order reduction",
 *    OOPSLA 2013 (why a preemption bound needs care: the bounded search
 *    here justifies alternatives by a delay argument instead of their
 *    conservative points, see weft_dpor_justify()).
 *
 * Length (~1,330 lines): the frame stack, the ops the machine calls, the
 * per-frame analysis of the log and the API share the search state of
 * dpor_state.h; dependence and clocks (dpor_clocks.c), the source-set and
 * wakeup-tree race analysis (dpor_races.c) and bounding (dpor_bound.c)
 * are files of their own.
 *
 * The search is stateless: each execution replays a prefix of decisions
 * and takes one new one (the branch), as weft_strategy_dfs does. What the
 * machine reports through ops->on_step becomes an event log with vector
 * clocks; races are found as events run and analysed at the end of the
 * execution, for events past the replayed prefix only (the prefix's were
 * analysed when it was new). Most executions do not log their prefix
 * again at all: the last execution's log is kept in place, cut at the
 * branch frame's first event, with the per-byte state undone to that
 * point and the per-thread state from a snapshot taken when the frame
 * was new (dpor_begin(), skip_to()); the prefix's records are only
 * checked against the log, and its decisions replay the last choices.
 *
 * The machine's quirks, and how they map onto the textbook model:
 *  - A decision is taken only with >= 2 runnable threads. A frame (a node
 *    of the search) is made only where >= 2 threads are *enabled*: a
 *    thread that would block on a test-and-set spinlock or a join is not
 *    (such a block changes no state: it is a "phantom" event, kept out of
 *    the trace), and a current thread that would block is made to block
 *    at once (free), since preempting it is never cheaper. Under the
 *    ticket lock model a blocked attempt takes a ticket: it is a real
 *    write of the lock, and the thread is enabled. The machine does not
 *    know what a thread that has not started will do first: that is
 *    learnt from the first execution that runs it (the first op of one
 *    of the scenario's threads follows no visible access of its own, so
 *    it is the same in every execution; a change is reported as
 *    nondeterminism), and frames made before are refined when revisited.
 *  - A spinlock acquire that follows a release races with the previous
 *    acquire, not with the release (reversing release/acquire is
 *    impossible); the release still orders them (happens-before).
 *  - A thread's end and a yield follow its previous operation with no
 *    decision in between; a yield's decision excludes the yielder. Where
 *    a race wants a thread that cannot run at its frame, every enabled
 *    thread is added there instead (a counted fallback); a yield wakes
 *    every sleeper.
 *  - A thread chosen while paused in a yield reaches its next point
 *    before its next operation: that second decision is not a frame.
 *
 * Invariants:
 *  - frames [0, nfr) are the decision stack of the last execution;
 *    frames < replay are replayed, frame replay is the branch point;
 *  - an event's clock holds, per thread, how many of that thread's real
 *    events happen before it (itself included);
 *  - pool entries of frame k (sleep set S, then explored set X) are at
 *    [fr[k].pool, fr[k].pool + nS + nX) and frame k's are the last ones
 *    while k is the deepest frame;
 *  - a wakeup-tree node's children are the sequences still to explore
 *    from the state it stands for; the child being explored is first.
 *
 * The search's files: this one, the exploration (frames, sleep sets,
 * the strategy ops, the API); dpor_clocks.c, dependence and vector
 * clocks; dpor_races.c, source sets and wakeup trees; dpor_bound.c, the
 * bounded search; dpor_state.h, the state they share (and its
 * invariants).
 *
 * Length: the exploration's three ops (begin, pick, end) and the frames
 * and sleep sets they keep are one state machine; the rest of the
 * algorithms are in the files above.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpor_state.h"

#define DEFAULT_MAX_FRAMES (1u << 16)
#define DEFAULT_MAX_EVENTS (1u << 20)
#define FINAL_STATES_CAP (1u << 20)

const char *weft_por_name(enum weft_por p)
{
	switch (p) {
	case WEFT_POR_NONE: return "none";
	case WEFT_POR_SLEEP: return "sleep";
	case WEFT_POR_SOURCE: return "source";
	case WEFT_POR_OPTIMAL: return "optimal";
	}
	return "?";
}

bool weft_por_parse(const char *s, enum weft_por *out)
{
	for (int p = WEFT_POR_NONE; p <= WEFT_POR_OPTIMAL; p++)
		if (!strcmp(s, weft_por_name((enum weft_por)p))) {
			*out = (enum weft_por)p;
			return true;
		}
	return false;
}

bool weft_por_sound(enum weft_por p, unsigned bound)
{
	return bound == WEFT_BOUND_NONE || p != WEFT_POR_OPTIMAL;
}

enum weft_por weft_por_default(unsigned bound)
{
	return bound == WEFT_BOUND_NONE ? WEFT_POR_OPTIMAL : WEFT_POR_SOURCE;
}

/* ------------------------------------------------------------ frames */

/* A thread whose next operation would block without changing any state:
 * a test-and-set spin_lock of a held lock, a join of a running thread.
 * paused: whether weft_thread_pending() answers for t (weft_threads_paused()),
 * unless its next op is known already. */
static bool blocks_stateless(struct weft_dpor *d, unsigned t, bool paused)
{
	struct weft_step_info pi;
	bool wb = false;

	if (d->pend_known & bit(t)) {
		/* known: whether it blocks follows the locks and ends seen */
		if (!(d->pend_lockish & bit(t)))
			return false;
		if (d->pend_kind[t] == FOP_JOIN)
			return !d->end_ev[d->pend_arg[t]];
		return loc_at(d, d->pend_loc[t])->held;
	}
	if (!paused || !weft_thread_pending(t, &pi, &wb)) {
		if ((d->seen & bit(t)) || !(d->fop_known & bit(t)))
			return false;
		/* not started: its first op, learnt before */
		if (d->fop_kind[t] == FOP_JOIN)
			return !d->end_ev[d->fop_arg[t]];
		return d->fop_kind[t] == FOP_LOCK && loc_at(d, d->fop_loc[t])->held;
	}
	bool lockish = pi.kind == WEFT_DEP_JOIN ||
		       (pi.kind == WEFT_DEP_ACQUIRE && (pi.flags & WEFT_STEP_SPIN) &&
			d->lock == WEFT_LOCK_TAS && !d->cpu_dep);
	/* cache it where the log can tell its blocking as well (a lock a host
	 * context took is not in the log: ask the machine then) */
	if (!lockish || (pi.kind == WEFT_DEP_ACQUIRE && pi.loc < d->nloc &&
			 (bool)loc_at(d, pi.loc)->held == wb) ||
	    (pi.kind == WEFT_DEP_JOIN && pi.arg < NT && !d->end_ev[pi.arg] == wb)) {
		d->pend_known |= (uint16_t)bit(t);
		d->pend_kind[t] = pi.kind == WEFT_DEP_JOIN ? FOP_JOIN : FOP_LOCK;
		d->pend_arg[t] = (uint8_t)(pi.arg < NT ? pi.arg : 0);
		d->pend_loc[t] = pi.loc;
		if (lockish)
			d->pend_lockish |= (uint16_t)bit(t);
		else
			d->pend_lockish &= (uint16_t)~bit(t);
	}
	return wb && lockish;
}

/* ------------------------------------------------------------ the ops */

bool weft_dpor_undo_grow(struct weft_dpor *d, bool rd)
{
	if (rd ? GROW(d->ur, d->capur, d->nur + 1) : GROW(d->ul, d->capul, d->nul + 1))
		return true;
	d->undo_ok = false;   /* the next execution logs its prefix again */
	return false;
}

/* The state before event P of the last execution's log: loc[] and rd[]
 * undone to it, the per-thread state of the snapshot of the frame it is
 * the first event of (d->replay), the log cut there. */
static void skip_to(struct weft_dpor *d, uint32_t P)
{
	struct ev *e = &d->ev[P];
	const struct tsnap *s = &d->snap[d->replay];

	while (d->nul > e->ul) {
		d->nul--;
		d->loc[d->ul[d->nul].b] = d->ul[d->nul].l;
	}
	while (d->nur > e->ur) {
		d->nur--;
		d->rd[d->ur[d->nur].i] = d->ur[d->nur].v;
	}
	memcpy(d->tclk_ev, s->tclk_ev, sizeof(d->tclk_ev));
	memcpy(d->ntidx, s->ntidx, sizeof(d->ntidx));
	memcpy(d->spawn_ev, s->spawn_ev, sizeof(d->spawn_ev));
	memcpy(d->end_ev, s->end_ev, sizeof(d->end_ev));
	memcpy(d->last_ev, s->last_ev, sizeof(d->last_ev));
	memcpy(d->last_yield, s->last_yield, sizeof(d->last_yield));
	memcpy(d->absorber, s->absorber, sizeof(d->absorber));
	memcpy(d->queued, s->queued, sizeof(d->queued));
	memcpy(d->blk_acq, s->blk_acq, sizeof(d->blk_acq));
	memcpy(d->last_step, s->last_step, sizeof(d->last_step));
	d->seen = s->seen;
	d->yield_open = s->yield_open;
	d->yielded = s->yielded;
	d->after_yield = s->after_yield;
	d->naclk = d->alt_hi = s->alt_hi;
	d->nev = P;
	d->skip_floor = P;
	d->skipping = true;
	/* the records before P's are the prefix's: P's own is never matched
	 * (skip_record() reads no event past P) */
	d->skip_rec = e->rec;
	e->rec = NIL;
}

/* A skipped prefix did not replay as logged: the execution is no longer
 * logged (its log state is the branch point's), and the search not
 * certified. */
void weft_dpor_skip_diverged(struct weft_dpor *d)
{
	set_incomplete(d, &d->nondet, "a replayed prefix diverged: the model is nondeterministic");
	d->skipping = false;
	d->logging = false;
	d->undo_ok = false;
	d->nfr = d->k ? d->k - 1 : 0;
	go_stale(d);
}

static void exec_reset(struct weft_dpor *d, bool skip)
{
	d->nrc = 0;
	d->nrec = 0;
	d->rn = 0;
	/* the bounded evidence jm[] is valid in the epoch it carries
	 * (weft_epoch_advance()), loc[] in lepoch */
	if (weft_epoch_advance(&d->epoch) && d->jm)
		memset(d->jm, 0, (size_t)d->nloc * sizeof(*d->jm));
	if (skip) {
		skip_to(d, d->prefix_events);
	} else {
		d->nev = d->naclk = d->alt_hi = 0;
		d->skip_floor = 0;
		d->skipping = false;
		if (weft_epoch_advance(&d->lepoch))
			memset(d->loc, 0, (size_t)d->nloc * sizeof(*d->loc));
		d->nul = d->nur = 0;
		d->undo_ok = (uint64_t)d->nloc * NT <= UINT32_MAX;
		memset(d->tclk_ev, 0, sizeof(d->tclk_ev));
		memset(d->ntidx, 0, sizeof(d->ntidx));
		memset(d->spawn_ev, 0, sizeof(d->spawn_ev));
		memset(d->end_ev, 0, sizeof(d->end_ev));
		memset(d->blk_acq, 0, sizeof(d->blk_acq));
		memset(d->queued, 0, sizeof(d->queued));
		memset(d->last_ev, 0, sizeof(d->last_ev));
		memset(d->last_yield, 0, sizeof(d->last_yield));
		memset(d->absorber, 0, sizeof(d->absorber));
		d->seen = 0;
		d->yielded = false;
		d->yield_open = 0;
		d->after_yield = false;
	}
	d->exempt = NIL;
	d->cursor_ev = NIL;
	d->pend_known = d->pend_lockish = 0;
	memset(d->cpu_last, 0, sizeof(d->cpu_last));
	d->await_tid = -1;
	d->await_frame = NIL;
	d->last_frame = NIL;
	d->k = 0;
	d->kc = 0;
	d->npre = 0;
	d->valid_end = NIL;
	d->stale = d->redundant = false;
	d->logging = true;
	d->slp = 0;
	d->cursor = NIL;
}

/* The chosen thread of frame k became explored there. */
static void mark_explored(struct weft_dpor *d, uint32_t k)
{
	struct frame *f = &d->fr[k];

	d->npool = f->pool + f->nS + f->nX;
	if (f->X & bit(f->chosen))
		return;
	f->X |= (uint16_t)bit(f->chosen);
	if (!GROW(d->pool, d->cappool, d->npool + 1)) {
		set_incomplete(d, &d->capped, "out of memory");
		return;
	}
	d->pool[d->npool++] = f->ci;
	d->pool[d->npool - 1].tid = f->chosen;
	d->pool[d->npool - 1].one = f->cur == (int)f->chosen;
	f->nX++;
}

/* Threads in f->unk whose first op is known now: drop those that would
 * have blocked at once at f (the last log holds the run up to f). */
static void refine_allowed(struct weft_dpor *d, struct frame *f)
{
	uint32_t m = f->unk & d->fop_known;

	f->unk &= (uint16_t)~d->fop_known;
	if (!m || f->first_ev == NIL || f->first_ev > d->nev)
		return;
	for (; m; m &= m - 1) {
		unsigned t = lowest(m);
		bool blocks = false;
		if (d->fop_kind[t] == FOP_LOCK) {
			for (uint32_t i = f->first_ev; i-- > 0;) {
				const struct ev *e = &d->ev[i];
				if ((e->flags & EV_PHANTOM) || e->d.loc != d->fop_loc[t])
					continue;
				if (e->d.kind == WEFT_DEP_ACQUIRE || e->d.kind == WEFT_DEP_RELEASE) {
					blocks = e->d.kind == WEFT_DEP_ACQUIRE;
					break;
				}
			}
		} else if (d->fop_kind[t] == FOP_JOIN) {
			blocks = true;
			for (uint32_t i = 0; i < f->first_ev && blocks; i++)
				if (d->ev[i].tid == d->fop_arg[t] && d->ev[i].d.kind == WEFT_DEP_END)
					blocks = false;
		}
		if (blocks)
			f->allowed &= (uint16_t)~bit(t);
	}
}

static int pick_todo(struct weft_dpor *d, struct frame *f)
{
	if (f->unk)
		refine_allowed(d, f);
	if (d->mode == WEFT_POR_OPTIMAL) {
		uint32_t node = f->wut;
		if (d->nd[node].child == NIL)
			return -1;
		f->wchild = NIL;
		weft_dpor_wut_fix_unrunnable(d, f, node);
		uint32_t c = d->nd[node].child;
		if (c == NIL)
			return -1;
		f->wchild = c;
		return d->nd[c].tid;
	}
	uint32_t todo = f->bt & ~f->X & ~f->S & f->allowed;
	for (uint32_t m = todo; m; m &= m - 1)
		if (!in_bound(d, f, lowest(m)))
			todo &= ~bit(lowest(m));
	if (!todo)
		return -1;
	if (f->cur >= 0 && (todo & bit((unsigned)f->cur)))
		return f->cur;
	return (int)lowest(todo);
}

/* The deepest branch point with an alternative left: a decision frame,
 * or a value frame (which sits between decision frames at - 1 and at). */
static bool next_branch(struct weft_dpor *d)
{
	uint32_t j = d->ncf;

	d->cbranch = NIL;
	d->vbranch = false;
	for (uint32_t k = d->nfr + 1; k-- > 0;) {
		/* the value frames after decision frame k - 1, deepest first */
		for (; j > 0 && d->cf[j - 1].at >= k; j--) {
			struct cframe *c = &d->cf[j - 1];
			if (c->v + 1 >= c->n)
				continue;
			c->v++;
			d->ncf = j;
			d->cbranch = j - 1;
			d->vbranch = true;
			d->nfr = c->at < d->nfr ? c->at : d->nfr;
			d->replay = d->nfr;
			d->branching = true;
			/* the event before the choice may gain records of its
			 * step after it: logged afresh (weft_dpor_value) */
			d->prefix_events = c->first_ev ? c->first_ev - 1 : 0;
			d->st.states++;
			return true;
		}
		if (k == 0)
			break;
		struct frame *f = &d->fr[k - 1];
		mark_explored(d, k - 1);
		if (d->mode == WEFT_POR_OPTIMAL && f->wchild != NIL)
			weft_dpor_node_remove_child(d, f->wut, f->wchild);
		f->wchild = NIL;
		int t = pick_todo(d, f);
		if (t >= 0) {
			f->chosen = (uint8_t)t;
			d->nfr = k;
			d->ncf = j;
			d->replay = k - 1;
			d->branching = true;
			d->prefix_events = f->first_ev;
			return true;
		}
	}
	d->nfr = 0;
	d->ncf = 0;
	return false;
}

/* An empty exploration stack: no frame, none replayed, no branch being
 * taken (the first execution of a search). */
static void clear_frames(struct weft_dpor *d)
{
	d->nfr = d->replay = 0;
	d->ncf = 0;
	d->cbranch = NIL;
	d->vbranch = false;
	d->branching = false;
}

static int dpor_begin(void *st, uint8_t *wl, size_t cap)
{
	struct weft_dpor *d = st;

	if (d->done)
		return -1;
	if (d->started && (d->restart || d->cpu_restart)) {
		bool as_source = d->restart;
		if (d->cpu_restart)
			d->fop_known = 0;   /* a spinning attempt is a real event now */
		d->restart = d->cpu_restart = false;
		d->nfr = d->replay = 0;
		d->branching = false;
		d->prefix_events = 0;
		d->npool = 0;
		d->nnd = 0;
		d->freend = NIL;
		d->ncf = 0;
		d->cbranch = NIL;
		d->vbranch = false;
		if (d->ymode)
			d->st.yield_restarts = 1;
		if (d->cpu_dep)
			d->st.cpu_restarts = 1;
		/* wakeup trees do not follow the yield rule's orders (the
		 * random check found traces they miss): with yields, optimal
		 * DPOR continues as source-DPOR, which keeps every trace */
		if ((as_source || d->cpu_dep) && d->mode == WEFT_POR_OPTIMAL)
			d->mode = WEFT_POR_SOURCE;
	} else if (d->started) {
		if (d->max_execs && d->st.executions >= d->max_execs) {
			set_incomplete(d, &d->capped, "the execution cap was hit");
			d->done = true;
			return -1;
		}
		if (!next_branch(d)) {
			d->done = true;
			return -1;
		}
	} else {
		d->started = true;
		clear_frames(d);
		d->prefix_events = 0;
	}
	/* the last execution learnt no first op: the decisions before this
	 * one's branch see what they saw then, and choose as they chose */
	d->replay_choices = d->branching && !d->vbranch && d->fop_gen == d->fop_gen_begin;
	d->branch_dec = d->replay_choices ? d->fr[d->replay].dec : 0;
	d->replay_lim = d->branch_dec;
	d->fop_gen_begin = d->fop_gen;
	/* Its prefix (the events before the branch frame's first, P) need not
	 * be logged again when its decisions are replayed from the choice
	 * log, the log of the last execution still holds P as that frame's
	 * first event, the undo logs cover the log and the frame's snapshot
	 * was taken (not under cpu_dep, whose CPU order is not in it): the
	 * log stays in place, cut at P (skip_to()). */
	uint32_t P = d->prefix_events;
	bool skip = d->replay_choices && d->undo_ok && !d->cpu_dep && !d->nondet &&
		    d->replay < d->nfr && d->snap[d->replay].ok && P < d->nev &&
		    (d->ev[P].flags & EV_FIRST) && d->ev[P].frame == d->replay;
	if (!skip) {
		/* the last log becomes the previous one, for the prefix check */
		struct ev *t = d->pev;
		uint32_t tc = d->cappev;
		d->pev = d->ev;
		d->cappev = d->capev;
		d->npev = d->nev;
		d->ev = t;
		d->capev = tc;
		uint32_t *tk = d->pclk;
		uint32_t tkc = d->cappclk;
		d->pclk = d->clk;
		d->cappclk = d->capclk;
		d->clk = tk;
		d->capclk = tkc;
	}
	struct choice_log last = d->dch;
	d->dch = d->pdch;
	d->pdch = last;
	d->dch.n = 0;
	exec_reset(d, skip);
	d->new_start = d->branching ? NIL : 0;
	return weft_begin_fixed_workload(wl, cap, d->wl, d->wl_len);
}

/* A frame's decision for a new state. Returns the thread, or -1 if every
 * enabled thread is asleep (the execution is covered by others). */
static int choose_new(struct weft_dpor *d, struct frame *f)
{
	uint32_t cand = bound_mask(d, f, f->allowed & ~d->slp);

	if (d->mode == WEFT_POR_OPTIMAL) {
		uint32_t node = d->cursor;
		if (node == NIL)
			node = weft_dpor_node_new(d, 0, NULL);
		if (node == NIL)
			return -1;
		f->wut = node;
		f->wchild = NIL;
		if (d->nd[node].child != NIL)
			weft_dpor_wut_fix_unrunnable(d, f, node);
		uint32_t c = d->nd[node].child;
		if (c == NIL) {
			if (!cand)
				return -1;
			unsigned t = f->cur >= 0 && (cand & bit((unsigned)f->cur)) ? (unsigned)f->cur
										   : lowest(cand);
			c = weft_dpor_node_add(d, node, t, NULL);
			if (c == NIL)
				return -1;
		}
		f->wchild = c;
		d->cursor = c;
		if (d->after_yield) {
			uint32_t have = 0;
			for (uint32_t x = d->nd[node].child; x != NIL; x = d->nd[x].sib)
				have |= bit(d->nd[x].tid);
			for (uint32_t m = cand & ~have; m; m &= m - 1)
				weft_dpor_node_add(d, node, lowest(m), NULL);
		}
		return d->nd[c].tid;
	}
	if (!cand)
		return -1;
	uint32_t fair = cand & ~(uint32_t)f->unfair ? cand & ~(uint32_t)f->unfair : cand;
	unsigned t = f->cur >= 0 && (cand & bit((unsigned)f->cur)) ? (unsigned)f->cur : lowest(fair);
	f->just = 1;
	if (d->mode == WEFT_POR_SLEEP || d->after_yield) {
		/* after a yield, which thread runs first is a choice no race
		 * names: every one is explored */
		f->bt = (uint16_t)cand;
	} else if (d->bounded) {
		/* an alternative needs justifying (weft_dpor_justify()): to a preemption,
		 * or to the default of a free decision; a decision whose
		 * current thread is asleep explores every thread */
		f->bt = (uint16_t)cand;
		if (f->cur < 0 || t == (unsigned)f->cur) {
			f->bt = (uint16_t)bit(t);
			/* one with no alternative in the bound (a preemption
			 * past it) has nothing to justify: its frame is done,
			 * and the search asks no evidence for it (allowed only
			 * shrinks, bt grows by justification only) */
			f->just = !bound_mask(d, f, f->allowed & ~f->bt);
		}
	} else {
		f->bt = (uint16_t)bit(t);
	}
	return (int)t;
}

/* note_choice() for a decision past dch's end: grows it, fills any
 * decision not asked with NO_CHOICE. False: no memory (the next execution
 * replays none). */
static __attribute__((noinline, cold)) bool choices_grow(struct choice_log *l, uint32_t index)
{
	if (index >= l->cap && !GROW(l->c, l->cap, index + 1)) {
		l->n = 0;
		return false;
	}
	if (index > l->n)
		memset(l->c + l->n, NO_CHOICE, index - l->n);
	return true;
}

/* Keeps c as decision index's choice (dch) for the next execution. */
static inline void note_choice(struct weft_dpor *d, uint32_t index, unsigned c)
{
	struct choice_log *l = &d->dch;

	if (index >= l->n) {
		if (__builtin_expect(index != l->n || index >= l->cap, 0) && !choices_grow(l, index))
			return;
		l->n = index + 1;
	}
	l->c[index] = (uint8_t)c;
}

static int decided(struct weft_dpor *d, const struct weft_decision *dec, unsigned c, uint32_t frame)
{
	note_choice(d, dec->index, c);
	if (dec->cur >= 0 && (int)c != dec->cur)
		d->npre++;
	if (d->bounded && (dec->unfair >> c & 1))
		d->npre++;   /* an unfair choice: plain dfs's preemption too */
	d->pend_known &= (uint16_t)~bit(c);   /* it runs: its next op changes */
	d->await_tid = (int)c;
	d->await_frame = frame;
	if (frame != NIL)
		d->last_frame = frame;
	return (int)c;
}

static int default_choice(const struct weft_decision *dec, uint32_t allowed)
{
	if (dec->cur >= 0 && (allowed & bit((unsigned)dec->cur)))
		return dec->cur;
	if (allowed & bit((unsigned)dec->dflt))
		return dec->dflt;
	uint32_t fair = allowed & ~(uint32_t)dec->unfair;
	return fair ? (int)lowest(fair) : allowed ? (int)lowest(allowed) : dec->dflt;
}

static __attribute__((noinline)) int pick_full(struct weft_dpor *d,
					       const struct weft_decision *dec)
{
	int cur = dec->cur;
	uint64_t run = dec->runnable;
	/* the current thread may have run ops that leave no dependence record
	 * (a choice, a note) since its next op was cached, for instance after
	 * a switch the machine made without a decision: ask again */
	if (cur >= 0)
		d->pend_known &= (uint16_t)~bit((unsigned)cur);
	/* chosen while paused in a yield: it now reaches its next operation
	 * (no event of it since it was chosen; a spinner chosen unfairly is
	 * no current thread to the machine, and continuing it is free here,
	 * never dearer than plain dfs's charge) */
	if (d->await_tid >= 0 &&
	    (cur == d->await_tid ||
	     (cur < 0 && d->bounded && (dec->unfair & run) >> d->await_tid & 1))) {
		note_choice(d, dec->index, (unsigned)d->await_tid);
		return d->await_tid;
	}
	/* fair scheduling made a choice unfair (a thread spins). The bounded
	 * search makes it a frame where choosing a spinner costs a preemption
	 * (choice_cost()), as plain dfs does; a spin conflicts with every
	 * other thread's events (weft_dpor_step()), so where spins fall among
	 * the others, and so which choices are unfair, is the same in every
	 * run of a trace. The unbounded search has no cost to charge (an
	 * endless spin would be endless branches): it cannot certify (dpor_end
	 * says why) and from here follows the fair default, never a spinner
	 * while another thread can run. */
	if (__builtin_expect(dec->unfair != 0, 0) && !d->bounded) {
		if (d->skipping)
			weft_dpor_skip_diverged(d);   /* the snapshot's run had none */
		go_stale(d);
		return decided(d, dec, (unsigned)dec->dflt, NIL);
	}
	/* a thread numbered NT or more (its clocks have no slot) */
	if (__builtin_expect(dec->runnable >> NT != 0, 0)) {
		if (d->skipping)
			weft_dpor_skip_diverged(d);
		set_incomplete(d, &d->wide,
			       "an execution has more than 16 threads: partial-order reduction "
			       "follows threads 0..15 only (use --por none)");
		go_stale(d);
		return decided(d, dec, (unsigned)dec->dflt, NIL);
	}
	/* a decision of the replayed prefix: the previous execution's choice
	 * (its blocking test read the same log, pending ops and first ops);
	 * a replayed frame still checks what the machine offers */
	if (d->replay_choices && dec->index >= d->branch_dec && d->skipping) {
		/* the branch's decision ends a skipped prefix: all of it was
		 * seen (a decision that replays none ends it in divergence) */
		if (d->rn != d->skip_floor || d->nrec != d->skip_rec)
			weft_dpor_skip_diverged(d);
		d->skipping = false;
	} else if (d->replay_choices && dec->index < d->branch_dec && !d->stale) {
		uint32_t k = d->k;
		if (k < d->replay && d->fr[k].dec == dec->index) {
			struct frame *f = &d->fr[k];
			if (f->runnable == run && f->cur == cur && f->preempt == d->npre &&
			    (!d->bounded || f->unfair == (uint16_t)dec->unfair)) {
				if (!d->skipping)
					f->first_ev = NIL;   /* logged again */
				d->k = k + 1;
				return decided(d, dec, f->chosen, k);
			}
		} else if (dec->index < d->pdch.n && d->pdch.c[dec->index] < NT &&
			   (run >> d->pdch.c[dec->index] & 1)) {
			return decided(d, dec, d->pdch.c[dec->index], NIL);
		}
		/* a skipped prefix has no log state to decide from */
		if (d->skipping)
			weft_dpor_skip_diverged(d);
	}
	uint32_t allowed = (uint32_t)run;
	/* Not enabled: a thread that would block without changing anything.
	 * That choice only wastes a switch, until yields exist: then a
	 * thread that tries and blocks may be what lets a yielder go on.
	 * Once a yield was seen (ymode), such a thread is a choice (the
	 * bounded search: only right after a yield, since elsewhere removing
	 * the attempt leaves an equivalent run with no more preemptions),
	 * and the current thread is never made to block at once (its
	 * attempt may be needed later, after some yield). */
	bool post_yield = d->after_yield && cur < 0;
	if (!d->ymode || (d->bounded && !post_yield)) {
		/* threads with no record yet are often not started: asked
		 * about at once (a thread with one asks weft_thread_pending()) */
		uint64_t fresh = run & ~(uint64_t)d->pend_known & ~(uint64_t)d->seen;
		uint64_t paused = (run & ~fresh) | (fresh ? weft_threads_paused(fresh) : 0);
		for (uint32_t m = run; m; m &= m - 1)
			if ((!d->ymode || (int)lowest(m) != cur) &&
			    blocks_stateless(d, lowest(m), (paused >> lowest(m)) & 1))
				allowed &= ~bit(lowest(m));
	}
	if (cur >= 0 && !(allowed & bit((unsigned)cur)) && (run & bit((unsigned)cur)))
		return decided(d, dec, (unsigned)cur, NIL);   /* it blocks now, for free */
	if (!allowed)
		return decided(d, dec, (unsigned)dec->dflt, NIL);
	uint32_t k = d->k;
	bool replaying = k < d->nfr && (k < d->replay || (k == d->replay && d->branching));
	/* a replayed frame is this decision by its index: a thread's first
	 * op learnt since may have left it a single choice */
	if (d->stale || (!(allowed & (allowed - 1)) && !(replaying && d->fr[k].dec == dec->index)))
		return decided(d, dec, (unsigned)default_choice(dec, allowed), NIL);

	if (k >= d->max_frames || !GROW(d->fr, d->capfr, k + 1) ||
	    !GROW(d->snap, d->capsnap, k + 1)) {
		set_incomplete(d, &d->capped, "the decision-stack cap was hit");
		go_stale(d);
		return decided(d, dec, (unsigned)default_choice(dec, allowed), NIL);
	}
	struct frame *f = &d->fr[k];
	int c;
	if (replaying) {
		/* allowed may shrink: a thread's first op learnt since */
		if (f->runnable != run || f->cur != cur || (allowed & ~(uint32_t)f->allowed) ||
		    (d->bounded && f->unfair != (uint16_t)dec->unfair) ||
		    f->preempt != d->npre || f->dec != dec->index) {
			set_incomplete(d, &d->nondet,
				       "a replayed prefix diverged: the model is nondeterministic");
			d->nfr = k;
			go_stale(d);
			return decided(d, dec, (unsigned)default_choice(dec, allowed), NIL);
		}
		c = f->chosen;
		if (k == d->replay) {
			/* the branch: sleep set S + X of this frame */
			d->new_start = d->nev;
			d->slp = 0;
			for (unsigned i = 0; i < (unsigned)f->nS + (f->py ? 0u : f->nX); i++) {
				const struct info *in = &d->pool[f->pool + i];
				d->slp |= (uint16_t)bit(in->tid);
				d->slpi[in->tid] = *in;
			}
			d->slp &= (uint16_t)~bit((unsigned)c);
			/* threads sharing a CPU: no sleep sets. A sleeper's
			 * next event (or block) stays independent of what runs
			 * on other CPUs, but the runs its subtree was to cover
			 * also need the CPU's other threads in an order that
			 * subtree's races, led by the CPU's exclusion, need
			 * not reach: the random programs found a trace lost
			 * unbounded (tests/dpor/test_dpor_random.c, program
			 * 1055 of seed 13), z11-lru-drain-all:fix lost final
			 * states at bound 1. Source sets alone (bt, X) keep
			 * every trace. */
			if (d->cpu_dep)
				d->slp = 0;
			d->cursor = f->wchild;
			d->st.states++;
			memset(&f->ci, 0, sizeof(f->ci));
			f->vblk = f->vfirst = 0;
		}
	} else {
		/* a new state */
		f->runnable = (uint16_t)run;
		f->allowed = (uint16_t)allowed;
		f->unfair = d->bounded ? (uint16_t)dec->unfair : 0;
		f->cur = (int8_t)cur;
		f->preempt = d->npre;
		f->dec = dec->index;
		f->unk = (uint16_t)(allowed & ~d->seen & ~(uint32_t)d->fop_known);
		f->bt = f->X = 0;
		f->py = d->after_yield;
		f->S = d->slp;
		f->nS = f->nX = 0;
		f->first_ev = NIL;
		d->snap[k].ok = false;
		f->wut = f->wchild = NIL;
		f->vblk = f->vfirst = 0;
		memset(&f->ci, 0, sizeof(f->ci));
		d->npool = k ? d->fr[k - 1].pool + d->fr[k - 1].nS + d->fr[k - 1].nX : 0;
		f->pool = d->npool;
		if (!GROW(d->pool, d->cappool, d->npool + NT)) {
			set_incomplete(d, &d->capped, "out of memory");
			go_stale(d);
			return decided(d, dec, (unsigned)default_choice(dec, allowed), NIL);
		}
		for (uint32_t m = d->slp; m; m &= m - 1) {
			d->pool[d->npool++] = d->slpi[lowest(m)];
			f->nS++;
		}
		c = choose_new(d, f);
		if (c < 0) {
			/* every enabled thread (in bound) is asleep: covered */
			d->redundant = true;
			go_stale(d);
			return decided(d, dec, (unsigned)default_choice(dec, allowed), NIL);
		}
		f->chosen = (uint8_t)c;
		d->nfr = k + 1;
		d->st.states++;
	}
	f->first_ev = NIL;
	d->k = k + 1;
	if (d->nfr > d->st.max_depth)
		d->st.max_depth = d->nfr;
	return decided(d, dec, (unsigned)c, k);
}

/* A decision: one of the replayed prefix that replays the previous
 * execution's choice (the common case) here, the rest in pick_full(),
 * whose frame that case need not pay. The same answers as pick_full()'s
 * first steps: no thread awaited, no unfair choice unbounded (both
 * handled there first), a replayed frame or the choice log's entry. */
static int dpor_pick(void *st, const struct weft_decision *dec)
{
	struct weft_dpor *d = st;

	if (dec->index < d->replay_lim && d->await_tid < 0 && (!dec->unfair || d->bounded) &&
	    !(dec->runnable >> NT)) {
		uint64_t run = dec->runnable;
		int cur = dec->cur;
		uint32_t k = d->k;
		if (cur >= 0)
			d->pend_known &= (uint16_t)~bit((unsigned)cur);
		if (k < d->replay && d->fr[k].dec == dec->index) {
			struct frame *f = &d->fr[k];
			if (f->runnable == run && f->cur == cur && f->preempt == d->npre &&
			    (!d->bounded || f->unfair == (uint16_t)dec->unfair)) {
				if (!d->skipping)
					f->first_ev = NIL;   /* logged again */
				d->k = k + 1;
				return decided(d, dec, f->chosen, k);
			}
		} else if (dec->index < d->pdch.n && d->pdch.c[dec->index] < NT &&
			   (run >> d->pdch.c[dec->index] & 1)) {
			return decided(d, dec, d->pdch.c[dec->index], NIL);
		}
	}
	return pick_full(d, dec);
}

/* ---------------------------------------------------------- analysis */

/* The chosen thread's event at frame k, and (bounded) its whole block:
 * its events until it blocks, ends, yields or is switched out. The
 * first execution through a frame runs the chosen thread's block without
 * preemption, so this is its natural block. */
static void frame_info_from_log(struct weft_dpor *d, uint32_t k, const struct frame *next)
{
	struct frame *f = &d->fr[k];
	struct info *in = &f->ci;
	uint32_t lim = d->valid_end != NIL && d->valid_end < d->nev ? d->valid_end : d->nev;

	memset(in, 0, sizeof(*in));
	in->tid = f->chosen;
	f->blk_end = NIL;
	uint32_t i = f->first_ev;
	if (i == NIL || i >= lim)
		return;   /* unknown: depends on everything */
	in->known = 1;
	in->d = d->ev[i].d;
	if (!d->bounded)
		return;   /* blocks are for the bounded search */
	bool ended = false;
	for (; i < lim; i++) {
		const struct ev *e = &d->ev[i];
		if (e->tid != f->chosen) {
			ended = true;
			break;
		}
		if (next && i == next->first_ev && next->ci.known) {
			/* the next frame continues this block: its block is
			 * the rest of this one (frames are done last first) */
			for (int w = 0; w < SIGW; w++) {
				in->s.r[w] |= next->ci.s.r[w];
				in->s.w[w] |= next->ci.s.w[w];
			}
			in->s.joins |= next->ci.s.joins;
			in->s.all |= next->ci.s.all;
			f->blk_end = next->blk_end;
			return;
		}
		weft_dpor_sig_add(d, &in->s, &e->d);
		f->blk_end = e->tidx;
		if ((e->flags & EV_PHANTOM) || e->d.kind == WEFT_DEP_END ||
		    e->d.kind == WEFT_DEP_YIELD) {
			ended = true;
			break;
		}
	}
	if (!ended) {
		in->s.all = 1;   /* cut by the end of the log (a report, a cap) */
		f->blk_end = NIL;
	}
}

static bool dep_same(const struct dep *a, const struct dep *b)
{
	if (a->loc != b->loc || a->size != b->size || a->kind != b->kind || a->w != b->w ||
	    a->arg != b->arg || a->lk != b->lk || a->y != b->y || a->nx != b->nx ||
	    a->xall != b->xall || a->xhull != b->xhull || a->fr != b->fr)
		return false;
	for (unsigned i = 0; i < a->nx && i < DEP_NX; i++)
		if (a->x[i].loc != b->x[i].loc || a->x[i].size != b->x[i].size ||
		    a->x[i].w != b->x[i].w)
			return false;
	return true;
}

/* A value branch re-ran decision frame k's block with another value
 * chosen in it (vblk): what frame k explored is each value's block, so
 * its event is known only if every value's is the same, and its block is
 * the union (frames are done last first, as above). */
static void frame_info_merge(struct weft_dpor *d, uint32_t k, const struct frame *next)
{
	struct frame *f = &d->fr[k];
	struct info was = f->ci;
	uint32_t was_end = f->blk_end;

	frame_info_from_log(d, k, next);
	struct info *in = &f->ci;
	if (!was.known || !in->known || !dep_same(&was.d, &in->d)) {
		memset(in, 0, sizeof(*in));
		in->tid = f->chosen;
		f->blk_end = NIL;
		return;
	}
	for (int w = 0; w < SIGW; w++) {
		in->s.r[w] |= was.s.r[w];
		in->s.w[w] |= was.s.w[w];
	}
	in->s.joins |= was.s.joins;
	in->s.all |= was.s.all;
	if (f->blk_end != was_end)
		f->blk_end = NIL;
}

static uint64_t world_hash(const void *w, size_t n)
{
	const uint8_t *p = w;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (; n >= 8; n -= 8, p += 8) {
		uint64_t x;
		memcpy(&x, p, 8);
		h = weft_mix64(h ^ x);
	}
	for (; n; n--, p++)
		h = weft_mix64(h ^ *p);
	return h ? h : 1;
}

static void note_final_state(struct weft_dpor *d)
{
	const void *w = weft_last_world();

	/* a world the scenario maps (an instrumented program's: rt/) has
	 * holes and megabytes of stacks: its final states are not counted */
	if (!w || !d->sc->world_size || d->sc->world_ops)
		return;
	if (!d->fs) {
		d->fs = calloc(FINAL_STATES_CAP, sizeof(*d->fs));
		if (!d->fs)
			return;
	}
	uint64_t h = world_hash(w, weft_world_extent(d->sc));
	uint32_t i = (uint32_t)h & (FINAL_STATES_CAP - 1);
	for (uint32_t probe = 0; probe < 64; probe++, i = (i + 1) & (FINAL_STATES_CAP - 1)) {
		if (d->fs[i] == h)
			return;
		if (!d->fs[i]) {
			if (d->nfs >= FINAL_STATES_CAP / 2) {
				d->st.final_states_capped = true;
				return;
			}
			d->fs[i] = h;
			d->nfs++;
			d->st.final_states = d->nfs;
			return;
		}
	}
	d->st.final_states_capped = true;
}

static void dump(struct weft_dpor *d)
{
	fprintf(stderr, "exec %llu: replay %u%s new_start %d valid_end %d nfr %u\n",
		(unsigned long long)d->st.executions, d->replay, d->branching ? " (branch)" : "",
		(int)d->new_start, (int)d->valid_end, d->nfr);
	for (uint32_t i = 0; i < d->nev; i++) {
		const struct ev *e = &d->ev[i];
		fprintf(stderr, "  e%-3u T%u k%u loc %4d w%u f%-3d%s%s%s clk", i, e->tid, e->d.kind,
			(int)e->d.loc, e->d.w, (int)e->frame, e->flags & EV_FIRST ? " FIRST" : "",
			e->flags & EV_PHANTOM ? " PHANTOM" : "", e->flags & EV_IMPLICIT ? " IMPL" : "");
		for (unsigned t = 0; t < 4; t++)
			fprintf(stderr, " %u", clk_of(d, i)[t]);
		fprintf(stderr, "\n");
	}
	for (uint32_t k = 0; k < d->nfr; k++) {
		const struct frame *f = &d->fr[k];
		fprintf(stderr, "  frame %u: run %x allowed %x cur %d chosen %u bt %x X %x S %x first %d pre %u\n",
			k, f->runnable, f->allowed, f->cur, f->chosen, f->bt, f->X, f->S,
			(int)f->first_ev, f->preempt);
	}
	for (uint32_t i = 0; i < d->nrc; i++)
		fprintf(stderr, "  race e%u e%u%s\n", d->rc[i].i, d->rc[i].j, d->rc[i].alt != NIL ? " alt" : "");
}

static void dpor_end(void *st, const struct weft_exec_result *r)
{
	struct weft_dpor *d = st;

	(void)r;
	if (d->skipping)
		weft_dpor_skip_diverged(d);   /* it never reached its branch */
	if (!d->logging)
		d->undo_ok = false;   /* the undo logs stop where the log did */
	if (d->trace)
		dump(d);
	/* Threads sharing a CPU: one that holds the CPU (preemption or
	 * interrupts off, a spinlock attempt) excludes the others from it, an
	 * order no record shows. From the first execution that shares one,
	 * the search makes any two events on one CPU dependent and reverses
	 * an event with the one that took its CPU (dpor_clocks.c,
	 * cpu_record()), keeps no sleep sets (dpor_pick()), and, bounded,
	 * takes any later event of a CPU's other thread as evidence
	 * (dpor_bound.c); it starts over, as source-DPOR (wakeup trees are
	 * sequences the exclusion may cut). No certificate where an interrupt
	 * handler or a migration changes who holds which CPU in the middle of
	 * another thread's work. (The bounded rule was refused for a while
	 * after weft-workqueue's parallel:unbound was certified wrongly at
	 * bound 1; the cause was a missing worklist record in workqueue.c,
	 * not this rule: tests/dpor/dpor_vs_dfs.py.) */
	if (weft_contexts_active()) {
		if (weft_interrupts_active() || d->sc->migratable)
			set_incomplete(d, &d->ctx,
				       "interrupts or migration: a handler or a move takes or leaves "
				       "a CPU in the middle of another thread's work, which no "
				       "dependence record shows, so partial-order reduction cannot "
				       "certify this (use --por none)");
		else if (!d->cpu_dep)
			d->cpu_dep = d->cpu_restart = true;
	}
	if (weft_untracked_why())
		set_incomplete(d, &d->untracked, weft_untracked_why());
	if (!d->bounded && weft_fair_restricted())
		set_incomplete(d, &d->fair,
			       "fair scheduling passed over a spinning thread at a decision "
			       "(docs/strategies.md, \"Fairness\"): which choice is fair depends "
			       "on the order of earlier events, which partial-order reduction "
			       "does not track, so it cannot certify this (use --por none)");
	d->st.executions++;
	d->st.events += d->nev;
	if (d->redundant)
		d->st.redundant++;
	if (d->count_final && !d->redundant)
		note_final_state(d);
	/* the chosen threads' events (and blocks) of the new frames */
	if (d->new_start != NIL) {
		uint32_t k0 = d->branching ? d->replay : 0;
		uint32_t k1 = d->nfr < d->k ? d->nfr : d->k;
		for (uint32_t k = k1; k-- > k0;)
			frame_info_from_log(d, k, k + 1 < k1 && d->fr[k + 1].chosen == d->fr[k].chosen
							  ? &d->fr[k + 1] : NULL);
		for (uint32_t k = k0; d->vbranch && k-- > 0 && d->fr[k].vblk;)
			frame_info_merge(d, k, k + 1 < k1 && d->fr[k + 1].chosen == d->fr[k].chosen
					       ? &d->fr[k + 1] : NULL);
	}
	if (d->bounded) {
		if (d->mode == WEFT_POR_SOURCE && d->jm)
			weft_dpor_justify(d, d->jm);
	} else if (d->new_start != NIL) {
		weft_dpor_analyse(d);
	}
}

/*
 * A weft_choose() of n > 1 values: a value frame (struct cframe). The
 * value is data the choosing thread keeps to itself, so the reductions
 * treat each value's subtree as a program of its own: every value is
 * explored below the decisions before it, races found under any value
 * add alternatives to those decisions (which are explored after every
 * value, being shallower), and the sleep set where the choice was made
 * holds for each value (a sleeper's next event was explored before this
 * state, from where every value is reachable too). A decision frame whose
 * chosen thread chose in its block describes that block as depending on
 * everything (vblk, vfirst): its explored thread then puts nothing to
 * sleep that a value could wake. Optimal DPOR's wakeup trees are sequences
 * of threads, which a value changes below them: a model that chooses
 * makes the search start over as source-DPOR (as yields do).
 */
static uint32_t dpor_value(void *st, uint32_t index, uint32_t n)
{
	struct weft_dpor *d = st;

	(void)index;
	if (n < 2 || !d->logging)
		return 0;
	if (__builtin_expect(weft_choice_unfair() != 0, 0)) {
		/* a value that only repeats a wait loop's iteration (a
		 * spurious wake-up again, nothing changed since): whether it
		 * is one depends on the order of the others' changes, which
		 * the reduction does not track, and it has no cost to charge;
		 * value 0, no frame, and no certificate */
		set_incomplete(d, &d->fair,
			       "a waiter could be woken spuriously again with nothing changed "
			       "(an unfair choice, docs/strategies.md \"Fairness\"), which "
			       "partial-order reduction does not take: it cannot certify this "
			       "(use --por none)");
		return 0;
	}
	if (d->mode == WEFT_POR_OPTIMAL) {
		d->restart = true;
		return 0;
	}
	if (n > WEFT_DFS_MAX_CHOICE) {
		/* as plain dfs: enumerating a nondet int's 2^32 values is no
		 * search (svcomp_style's dfs --bound 2 ran for hours) */
		set_incomplete(d, &d->wide,
			       "a weft_choose() of more than 16 values: value 0 only, as plain "
			       "dfs");
		return 0;
	}
	uint32_t j = d->kc;
	if (j < d->ncf) {
		struct cframe *c = &d->cf[j];
		if (c->at != d->k || c->n != n || c->first_ev != (d->skipping ? d->rn : d->nev)) {
			if (d->skipping)
				weft_dpor_skip_diverged(d);
			set_incomplete(d, &d->nondet,
				       "a replayed prefix diverged: the model is nondeterministic");
			d->ncf = j;
			go_stale(d);
			return 0;
		}
		d->kc = j + 1;
		if (j == d->cbranch) {
			/* the branch: this value is new, and so is what follows */
			d->cbranch = NIL;
			d->new_start = c->first_ev ? c->first_ev - 1 : 0;
			d->slp = c->slp;
			memcpy(d->slpi, c->slpi, sizeof(d->slpi));
		}
	} else {
		if (d->stale)
			return 0;   /* covered by others, or already incomplete */
		if (d->skipping) {
			weft_dpor_skip_diverged(d);   /* a value frame the prefix had not */
			return 0;
		}
		if (j >= d->max_frames || !GROW(d->cf, d->capcf, j + 1)) {
			set_incomplete(d, &d->capped, "the decision-stack cap was hit");
			go_stale(d);
			return 0;
		}
		struct cframe *c = &d->cf[j];
		c->at = d->k;
		c->first_ev = d->nev;
		c->n = n;
		c->v = 0;
		c->slp = d->slp;
		memcpy(c->slpi, d->slpi, sizeof(c->slpi));
		d->ncf = d->kc = j + 1;
		d->st.value_frames++;
		d->st.states++;
	}
	/* the decision frame whose chosen thread runs (and those its block
	 * continues from) describe a block that depends on the value */
	if (d->last_frame != NIL) {
		uint32_t k = d->last_frame;
		if (d->await_tid >= 0 && d->await_frame == k)
			d->fr[k].vfirst = 1;
		for (;;) {
			d->fr[k].vblk = 1;
			if (k == 0 || d->fr[k - 1].chosen != d->fr[k].chosen)
				break;
			k--;
		}
	}
	return d->cf[j].v;
}

const struct weft_strategy_ops weft_strategy_dpor = {
	.name = "dfs",
	.begin = dpor_begin,
	.pick_next = dpor_pick,
	.pick_value = dpor_value,
	.end = dpor_end,
	.on_step = weft_dpor_step,
};

/* -------------------------------------------------------------- the API */

struct weft_dpor *weft_dpor_new(void)
{
	struct weft_dpor *d = calloc(1, sizeof(*d));

	if (d)
		d->freend = NIL;
	return d;
}

void weft_dpor_free(struct weft_dpor *d)
{
	if (!d)
		return;
	free(d->fr);
	free(d->pool);
	free(d->nd);
	free(d->cf);
	free(d->ev);
	free(d->pev);
	free(d->clk);
	free(d->pclk);
	free(d->dch.c);
	free(d->pdch.c);
	free(d->rc);
	free(d->aclk);
	free(d->loc);
	free(d->rd);
	free(d->v);
	free(d->jm);
	free(d->fs);
	free(d->cpu_prev);
	free(d->ul);
	free(d->ur);
	free(d->snap);
	free(d);
}

int weft_dpor_reset(struct weft_dpor *d, const struct weft_scenario *sc, enum weft_por mode,
		    unsigned bound, enum weft_lock_model lock, const uint8_t *wl, size_t wl_len)
{
	if (mode == WEFT_POR_NONE || mode > WEFT_POR_OPTIMAL || !weft_por_sound(mode, bound) ||
	    wl_len > sizeof(d->wl))
		return WEFT_EINVAL;
	/* the world and the core area after it (primitives/core_state.h: RCU's
	 * readers and callback queue, the worklists), whose records name
	 * offsets there */
	uint32_t core0 = (uint32_t)((weft_world_extent(sc) + 63) & ~(size_t)63);
	uint32_t cpu_loc0 = core0 + weft_core_size;
	uint32_t nloc = cpu_loc0 + WEFT_MAX_CPUS;
	if (nloc > d->nloc) {
		struct loc *l = calloc(nloc, sizeof(*l));
		uint32_t *rd = calloc((size_t)nloc * NT, sizeof(*rd));
		struct jmask *jm = calloc(nloc, sizeof(*jm));
		if (!l || !rd || !jm) {
			free(l);
			free(rd);
			free(jm);
			return WEFT_ENOMEM;
		}
		free(d->loc);
		free(d->rd);
		free(d->jm);
		d->loc = l;
		d->rd = rd;
		d->jm = jm;
		d->nloc = nloc;
		d->epoch = d->lepoch = 0;
	}
	d->nloc = nloc;
	d->cpu_loc0 = cpu_loc0;
	d->rd_lo = core0 + weft_core_rd_off;
	d->rd_hi = d->rd_lo + weft_core_rd_size;
	d->fr_lo = core0 + weft_core_freed_off;
	d->fr_hi = d->fr_lo + weft_core_freed_size;
	d->sc = sc;
	d->mode = mode;
	d->bound = bound;
	d->bounded = bound != WEFT_BOUND_NONE;
	d->lock = lock;
	d->trace = getenv("WEFT_DPOR_TRACE") != NULL;
	if (wl_len)
		memcpy(d->wl, wl, wl_len);
	d->wl_len = wl_len;
	if (!d->max_frames)
		d->max_frames = DEFAULT_MAX_FRAMES;
	if (!d->max_events)
		d->max_events = DEFAULT_MAX_EVENTS;
	d->started = d->done = false;
	d->ymode = d->restart = d->cpu_dep = d->cpu_restart = false;
	d->capped = d->nondet = d->lost = d->ctx = d->fair = d->wide = d->untracked = false;
	d->why = NULL;
	d->fop_known = 0;
	clear_frames(d);
	d->npool = 0;
	d->nnd = 0;
	d->freend = NIL;
	d->nev = d->npev = 0;
	d->undo_ok = false;
	d->skipping = false;
	d->nfs = 0;
	if (d->fs)
		memset(d->fs, 0, FINAL_STATES_CAP * sizeof(*d->fs));
	memset(&d->st, 0, sizeof(d->st));
	return 0;
}

void weft_dpor_set_caps(struct weft_dpor *d, uint32_t max_frames, uint32_t max_events,
			uint64_t max_executions)
{
	if (max_frames)
		d->max_frames = max_frames;
	if (max_events)
		d->max_events = max_events;
	d->max_execs = max_executions;
}

void weft_dpor_count_final_states(struct weft_dpor *d, bool on)
{
	d->count_final = on;
}

bool weft_dpor_done(const struct weft_dpor *d)
{
	return d->done;
}

bool weft_dpor_complete(const struct weft_dpor *d)
{
	return d->done && !d->capped && !d->nondet && !d->lost && !d->ctx &&
	       !d->fair && !d->wide && !d->untracked;
}

const char *weft_dpor_why_incomplete(const struct weft_dpor *d)
{
	if (weft_dpor_complete(d) || !d->done)
		return d->why ? d->why : "";
	return d->why ? d->why : "";
}

void weft_dpor_get_stats(const struct weft_dpor *d, struct weft_dpor_stats *out)
{
	*out = d->st;
}
