/*
 * dpor_state.h - the state dfs with partial-order reduction keeps across
 * its four files (core/src/search/): dpor.c, the exploration (frames,
 * sleep sets, the strategy ops and the API); dpor_clocks.c, dependence
 * and vector clocks (the event log built from on_step, races found as
 * events run); dpor_races.c, the race analysis (source sets, wakeup
 * trees); dpor_bound.c, the preemption-bounded search's justification.
 * The algorithms and the machine's quirks are described at the top of
 * dpor.c.
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
 */
#ifndef WEFT_DPOR_STATE_H
#define WEFT_DPOR_STATE_H

#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "internal.h"

#define NT WEFT_MAX_THREADS
#define NIL 0xffffffffu
#define NO_CHOICE 0xffu   /* struct weft_dpor's dch: a decision not asked */

static inline uint32_t bit(unsigned t)
{
	return 1u << t;
}

static inline unsigned lowest(uint32_t m)
{
	return (unsigned)__builtin_ctz(m);
}

/* ------------------------------------------------------------ dependence */

enum { LK_NONE = 0, LK_BLOCKING, LK_TRY, LK_UNLOCK };
enum { FOP_OTHER = 0, FOP_LOCK, FOP_JOIN };

/* What an event touches. */
#define DEP_NX 2
struct dep {
	uint32_t loc, size;
	uint8_t kind;   /* enum weft_dep_kind */
	uint8_t w;      /* writes [loc, loc + size) */
	uint8_t arg;    /* spawn, join, end: the thread */
	uint8_t lk;     /* acquires: LK_BLOCKING (test-and-set spin_lock), LK_TRY;
			   LK_UNLOCK: a release of a test-and-set spin_lock */
	uint8_t y;      /* a yield follows in the same transition: conflicts with
			   every event of another thread */
	/* The other records of the same step (one transition: no scheduling
	 * point between them), e.g. pthread_cond_wait()'s release of the
	 * mutex and its sleep on the condition, a kthread's queue write and
	 * grace-period acquire, a free's store and poison: their ranges, the
	 * transition's dependence being the union. More than fit: two of
	 * them became their hull (xhull: x[k] is no longer the k-th record's
	 * range, but holds it; dpor_clocks.c, dep_add_range()), or, if that
	 * is too wide, xall (the transition conflicts with everything). */
	uint8_t nx, xall, xhull;
	/* fr: the transition holds a free's read of the RCU state (f; rcu.c's
	 * rcu_freed(), shadow.c), kept out of x[]: a step of a release and
	 * two frees (z3-swapoff:fix's thread end) would otherwise make its
	 * hull too wide, xall (66,896 executions at bound 2 for 39,079) */
	uint8_t fr;
	struct xrange {
		uint32_t loc, size;
		uint8_t w;
	} x[DEP_NX], f;
};

/* A block of events, over-approximated: the bytes read and written
 * (world offset mod 256, 256 bits each, in the first SIGW_WORLD words;
 * RCU's reader slots, which every non-preemptible region's entry and
 * exit records, in the next two: mod 128, aliasing no world byte; the
 * RCU state every free reads, in the last two, mod 128), the threads
 * whose end it joins. */
#define SIGW_WORLD 4
#define SIGW 8
struct sig {
	uint64_t r[SIGW], w[SIGW];
	uint16_t joins;
	uint8_t all;    /* depends on everything */
};

/* Range i of a transition: its first record (i = 0), then the others. */
static inline bool dep_range(const struct dep *a, unsigned i, struct xrange *r)
{
	if (i == 0) {
		r->loc = a->loc;
		r->size = a->size;
		r->w = a->w;
		return true;
	}
	if (i > a->nx) {
		if (i > (unsigned)a->nx + 1 || !a->fr)
			return false;
		*r = a->f;
		return true;
	}
	*r = a->x[i - 1];
	return true;
}

static inline bool overlap(const struct dep *a, const struct dep *b)
{
	return a->loc < b->loc + b->size && b->loc < a->loc + a->size;
}

/* Do events (transitions) a and b of different threads conflict? The
 * dependence relation: the clocks (dpor_clocks.c) and the race analysis
 * (dpor_races.c) both ask it. */
static inline bool dep_conflict(const struct dep *a, const struct dep *b)
{
	if (a->kind == WEFT_DEP_YIELD || b->kind == WEFT_DEP_YIELD || a->y || b->y ||
	    a->xall || b->xall)
		return true;
	if (a->kind == WEFT_DEP_END && b->kind == WEFT_DEP_JOIN)
		return a->arg == b->arg;
	if (b->kind == WEFT_DEP_END && a->kind == WEFT_DEP_JOIN)
		return a->arg == b->arg;
	if (!a->nx && !b->nx && !a->fr && !b->fr) {
		if (a->loc == WEFT_NO_LOC || b->loc == WEFT_NO_LOC || !(a->w | b->w))
			return false;
		return overlap(a, b);
	}
	struct xrange ra, rb;
	for (unsigned i = 0; dep_range(a, i, &ra); i++)
		for (unsigned j = 0; dep_range(b, j, &rb); j++)
			if (ra.loc != WEFT_NO_LOC && rb.loc != WEFT_NO_LOC && (ra.w | rb.w) &&
			    ra.loc < rb.loc + rb.size && rb.loc < ra.loc + ra.size)
				return true;
	return false;
}

/* ----------------------------------------------------------------- state */

#define EV_FIRST    1u   /* the first event of the thread chosen at its frame */
#define EV_PHANTOM  2u   /* a stateless blocked attempt: not in the trace */
#define EV_IMPLICIT 4u   /* an end, or a yield, right after its thread's op:
			    part of that op's transition, never scheduled alone */

struct ev {
	struct dep d;
	uint32_t step;    /* the machine's step (records of one step: one event) */
	uint8_t tid, flags;
	uint32_t frame;   /* the last frame at or before it (NIL: none) */
	uint32_t tidx;    /* 1-based among its thread's real events (0: phantom) */
	uint32_t alt;     /* a spin_lock after a release: its clock without the
			     release edge, in aclk (NIL: none) */
	uint32_t rec;     /* the execution's index of its first record */
	uint32_t ul, ur;  /* the undo logs' lengths when it was logged */
};

/* Sleep-set and explored-set entries: a thread and its next event (exact,
 * unbounded search) or its next block (bounded search). */
struct info {
	uint8_t tid, known;
	uint8_t one;      /* bounded: asleep with its next event only (it was the
			     current thread where it was explored), not its block */
	struct dep d;
	struct sig s;
};

struct frame {
	uint16_t runnable, allowed;
	uint16_t unfair;  /* bounded: weft_decision.unfair (choice_cost()) */
	uint16_t bt;      /* backtrack set (source, sleep) */
	uint16_t X, S;    /* explored here; asleep on entry */
	int8_t cur;       /* current thread (-1: none) */
	uint8_t chosen;
	uint8_t nS, nX;
	uint8_t just;     /* bounded: alternatives to the current thread justified */
	uint16_t unk;     /* allowed threads not started whose first op was not
			     known yet when the frame was made */
	uint8_t py;       /* right after a yield: the yielder cannot run here, so
			     reversals that want it fall back to the others, and
			     explored branches put no sibling to sleep */
	uint32_t preempt; /* preemptions before the decision */
	uint32_t dec;     /* the machine's decision index */
	uint32_t first_ev;
	uint32_t pool;
	uint32_t wut;     /* optimal: this state's node */
	uint32_t wchild;  /* optimal: the child being explored */
	uint8_t vblk;     /* a weft_choose() ran in the chosen thread's block: the
			     block is the value's (ci.s depends on everything) */
	uint8_t vfirst;   /* ... before its first event (ci unknown) */
	struct info ci;   /* the chosen thread's event / block, once it ran */
	uint32_t blk_end; /* bounded: the index of the last event of that
			     (natural) block in its thread (NIL: cut short) */
};

/* A weft_choose() of n > 1 values: a branch point of the execution tree
 * between decision frames at - 1 and at, whose alternatives are the
 * values (explored in turn, 0 first, each with the decision frames after
 * it searched completely before the next value). */
struct cframe {
	uint32_t at;        /* decision frames made before it */
	uint32_t first_ev;  /* events logged before it */
	uint32_t n, v;      /* values; the one being explored */
	uint16_t slp;       /* the sleep set where it was made */
	struct info slpi[NT];
};

struct node {
	uint32_t child, sib;
	uint8_t tid, known;
	struct dep d;
};

struct race {
	uint32_t i, j;    /* events, i before j */
	uint32_t alt;     /* clock of j without its release edge (NIL: j's own) */
	bool cpu;         /* i and j share a CPU only (cpu_record()): j's thread
			     goes first at i's frame, not v's initials */
};

/* Per world byte. Its state (lw, la, rdm, held, its rd[]) is valid in its
 * epoch; an older one stands for a byte not accessed in this execution
 * (all 0: loc_at()). A run of bytes [h, h + 1 + run), accessed as one
 * range since they were last accessed apart, keeps lw, rdm and rd[] at its
 * head h only (back 0), whose epoch decides; its other bytes (back: their
 * distance to h) hold stale copies of them. A run's bytes have the same
 * lw, rdm and rd[t] for t in rdm (dpor_clocks.c, run_make()); la and held
 * belong to each byte, run or not. Runs outlive epochs (a run of bytes not
 * accessed yet is still alike): only a partial access splits one. */
struct loc {
	uint32_t epoch;
	uint32_t lw;      /* last write (event + 1) */
	uint32_t la;      /* last acquire */
	uint16_t rdm;     /* threads that read it since the last write (their
			     last reads are in weft_dpor.rd) */
	uint16_t run;     /* a head: the bytes after it in its run */
	uint16_t back;    /* a run's other byte: the distance to its head */
	uint8_t held;     /* a lock: its holder + 1 (0: free) */
	uint32_t remade;  /* a head: the epoch in which its run was last made
			     or split (range_alone()) */
};

/* The per-thread log state before the first event of a frame's chosen
 * thread (dpor_clocks.c, log_record()): an execution that branches at the
 * frame starts from it instead of logging its prefix again (dpor.c,
 * dpor_begin()). Taken once, when the frame is new: its prefix is the same
 * in every execution that replays the frame. */
struct tsnap {
	uint32_t tclk_ev[NT], ntidx[NT], spawn_ev[NT], end_ev[NT], last_ev[NT];
	uint32_t last_yield[NT], absorber[NT], queued[NT], blk_acq[NT], last_step[NT];
	uint32_t alt_hi;
	uint16_t seen, yield_open;
	bool yielded, after_yield, ok;
};

/* Undo logs of loc[] and rd[]: the old value of each entry changed. */
struct uloc {
	uint32_t b;
	struct loc l;
};
struct urd {
	uint32_t i, v;
};

struct vitem {
	uint32_t k;       /* event */
	const uint32_t *c;
	uint32_t tidx;
	uint8_t tid, gone;
	struct dep d;
};

struct weft_dpor {
	/* configuration */
	const struct weft_scenario *sc;
	enum weft_por mode;
	unsigned bound;
	bool bounded;
	enum weft_lock_model lock;
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len;
	uint32_t max_frames, max_events;
	uint64_t max_execs;
	bool count_final;
	bool trace;                /* WEFT_DPOR_TRACE: dump each execution */

	/* the search */
	bool started, done;
	bool ymode;                /* a yield was seen: blocking threads are choices */
	bool restart;              /* start over in ymode at the next begin */
	bool cpu_dep;              /* threads share a CPU: every event writes its
				      CPU's slot (cpu_loc0 + CPU), so any two
				      events on one CPU are dependent; no sleep
				      sets */
	bool cpu_restart;          /* cpu_dep was just set: start over */
	bool capped, nondet, lost, ctx, fair, wide, untracked;
	const char *why;
	struct frame *fr;
	uint32_t nfr, capfr;
	uint32_t replay;
	bool branching;
	uint32_t prefix_events;
	struct info *pool;
	uint32_t npool, cappool;
	struct node *nd;
	uint32_t nnd, capnd, freend;
	struct cframe *cf;         /* value frames, in execution order */
	uint32_t ncf, capcf;
	uint32_t cbranch;          /* the value frame this execution branches
				      at (NIL: a decision frame, or none) */
	bool vbranch;              /* this execution branches at a value frame */

	/* the current execution */
	struct ev *ev;
	uint32_t nev, capev;
	uint32_t *clk;             /* NT per event */
	uint32_t capclk;           /* events it holds */
	struct ev *pev;            /* the previous execution's log (prefix check) */
	uint32_t npev, cappev;
	uint32_t *pclk;            /* and its clocks: a replayed prefix's are the same */
	uint32_t cappclk;
	bool fast;                 /* the event being logged replays pev's */
	/* each decision's choice by its index (NO_CHOICE: not asked), in this
	 * execution and the previous one. A decision before the branch's
	 * replays the previous execution's (dpor_pick()) when nothing its
	 * blocking test reads from past executions changed since that one
	 * began: the first ops learnt (fop_gen). */
	struct choice_log {
		uint8_t *c;
		uint32_t n, cap;
	} dch, pdch;
	uint32_t fop_gen;          /* bumped when a first op is learnt or changes */
	uint32_t fop_gen_begin;    /* fop_gen when this execution began */
	uint32_t branch_dec;       /* the branch frame's decision index */
	bool replay_choices;       /* decisions before branch_dec replay pdch */
	uint32_t replay_lim;       /* branch_dec while they do and the execution
				      is not stale (go_stale()), else 0 */
	struct race *rc;
	uint32_t nrc, caprc;
	uint32_t *aclk;
	uint32_t naclk, capaclk;   /* in clocks */
	struct loc *loc;
	uint32_t *rd;              /* NT per byte: each thread's last read + 1 */
	uint32_t nloc;
	uint32_t epoch;            /* this execution's (jm[]) */
	uint32_t lepoch;           /* loc[]'s: advanced by an execution that logs
				      its prefix again, kept by one that skips it */
	/* Skipping the replayed prefix: an execution that branches at a frame
	 * whose snapshot (snap) is taken starts from the last execution's log
	 * cut at the frame's first event P (ev[], clk[] and aclk[] kept in
	 * place), loc[] and rd[] undone to what they were before P (ul, ur),
	 * and the per-thread state of the snapshot; the prefix's records are
	 * only counted and checked against the log (skipping, rn, nrec) until
	 * the branch's decision. */
	struct uloc *ul;
	uint32_t nul, capul;
	struct urd *ur;
	uint32_t nur, capur;
	bool undo_ok;              /* the undo logs cover the whole log */
	bool skipping;             /* this execution's prefix is being skipped */
	uint32_t skip_floor;       /* the prefix skipped: P (0: none) */
	uint32_t rn;               /* skipping: prefix events seen */
	uint32_t skip_rec;         /* skipping: the records before event P */
	uint32_t nrec;             /* records of this execution */
	uint32_t alt_hi;           /* aclk's end of the events' alt clocks */
	struct tsnap *snap;        /* per frame */
	uint32_t capsnap;
	uint32_t rd_lo, rd_hi;     /* RCU's reader slots (block signatures) */
	uint32_t fr_lo, fr_hi;     /* the RCU state a free reads (block signatures) */
	uint32_t cpu_loc0;         /* the CPU slots: [cpu_loc0, cpu_loc0 +
				      WEFT_MAX_CPUS) = [.., nloc), past the
				      world and the core area */
	uint32_t cpu_last[WEFT_MAX_CPUS];    /* cpu_dep: the last event on each
						CPU + 1 */
	uint32_t cpu_pre[NT];                /* cpu_dep: the clock of the event being
						logged before its records joined any
						(dpor_clocks.c, cpu_record()) */
	uint32_t *cpu_prev;                  /* per event: the event before it on
						its CPU + 1 (capcpu events) */
	uint32_t capcpu;
	uint32_t tclk_ev[NT];                /* each thread's clock: that of the last
						event it was copied from (+ 1; 0: none,
						all zero), thread_clock() */
	uint32_t ntidx[NT];
	uint32_t spawn_ev[NT], end_ev[NT];   /* event + 1 */
	uint32_t last_ev[NT];                /* each thread's last real event + 1 */
	uint32_t last_yield[NT];             /* each thread's last yield + 1 */
	bool yielded;                        /* some last_yield is set */
	uint16_t yield_open;                 /* yielded, nothing else ran since */
	uint32_t absorber[NT];               /* the event that ran after its yield + 1 */
	bool after_yield;                    /* the last event was a yield */
	uint32_t queued[NT];                 /* ticket lock: loc + 1 of the lock a
						thread took a ticket for */
	uint32_t blk_acq[NT];                /* acquire (+ 1) holding the lock a
						thread last found busy */
	uint16_t seen;                       /* threads with an event so far */
	uint32_t last_step[NT];              /* the step of each thread's last record */
	uint32_t exempt;                     /* the event that woke the thread of the
						event being logged (NIL: none) */
	uint32_t cursor_ev;                  /* optimal: the event the cursor's node
						learnt its transition from (NIL) */
	uint16_t pend_known, pend_lockish;   /* a paused thread's next op is known
						(until it runs again), and is a
						test-and-set spin_lock or a join */
	uint8_t pend_kind[NT];               /* then FOP_LOCK or FOP_JOIN */
	uint8_t pend_arg[NT];
	uint32_t pend_loc[NT];
	/* The first operation of each of the scenario's own threads, learnt
	 * from the first execution that ran it (the machine knows a paused
	 * thread's next operation, not an unstarted one's): until it starts,
	 * a thread whose first op is a test-and-set spin_lock of a held lock
	 * or a join of a running thread is no choice either. A thread's
	 * first op follows no visible access of its own, so it is the same
	 * in every execution of a deterministic model (checked). */
	uint16_t fop_known;
	uint8_t fop_kind[NT];                /* FOP_* */
	uint8_t fop_arg[NT];
	uint32_t fop_loc[NT];
	int await_tid;
	uint32_t await_frame;
	uint32_t last_frame;
	uint32_t k;                /* next frame index */
	uint32_t kc;               /* next value frame index */
	uint32_t npre;
	uint32_t new_start, valid_end;
	bool stale, redundant, logging;
	uint16_t slp;
	struct info slpi[NT];
	uint32_t cursor;

	struct vitem *v;
	uint32_t capv;
	struct jmask *jm;          /* bounded: per world byte, for weft_dpor_justify() */
	bool jm_whole;             /* the last weft_dpor_justify() judged every
				      unjustified frame by every event after it
				      in a log neither stale nor cut short */

	uint64_t *fs;
	uint32_t nfs;

	struct weft_dpor_stats st;
};

/* The bounded search's evidence (dpor_bound.c, weft_dpor_justify()): the
 * threads with an event later than the one at hand (of a kind), and each
 * one's earliest such event. A thread's clocks only grow along its events
 * (each starts from its thread's clock, tclk_ev; a spin_lock's clock without
 * its release edge lies between that and its own), so the least clock[p]
 * of a later event of thread r is that of r's earliest one: the least
 * over the threads other than p looks at one event per thread. */
struct later {
	uint16_t has;            /* threads with such an event */
	uint32_t first[NT];      /* each one's earliest (event index) */
};

/* ... per world byte: reads, writes, test-and-set spin_locks and their
 * unlocks (kept apart for unlock_hit()). cut: the epoch in which some
 * range recorded began or ended right before this byte; without one the
 * byte has had the same ranges as the byte before it, so the same
 * evidence. */
enum { JM_R, JM_W, JM_A, JM_U, JM_KINDS };
struct jmask {
	uint32_t epoch, cut;
	struct later k[JM_KINDS];
};

/* ------------------------------------------------------------- utilities */

#define GROW(arr, cap, need) weft_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

static inline uint32_t *clk_of(struct weft_dpor *d, uint32_t k)
{
	return &d->clk[(size_t)k * NT];
}

/* Thread t's clock into out (its next event starts from it): that of its
 * last event logged with one, the last whose clock log_record(),
 * merge_record() or cpu_record() finished; kept as that event's index
 * (tclk_ev), not a copy. */
static inline void thread_clock(struct weft_dpor *d, unsigned t, uint32_t out[NT])
{
	if (d->tclk_ev[t])
		memcpy(out, clk_of(d, d->tclk_ev[t] - 1), NT * sizeof(uint32_t));
	else
		memset(out, 0, NT * sizeof(uint32_t));
}

static inline void join(uint32_t *c, const uint32_t *o)
{
	for (unsigned t = 0; t < NT; t++)
		if (o[t] > c[t])
			c[t] = o[t];
}

/* Does clock c include real event k? */
static inline bool includes(const struct weft_dpor *d, const uint32_t *c, uint32_t k)
{
	return c[d->ev[k].tid] >= d->ev[k].tidx;
}

static inline void set_incomplete(struct weft_dpor *d, bool *flag, const char *why)
{
	*flag = true;
	if (!d->why)
		d->why = why;
}

/* (A byte made current here and not undone stands for the same state as
 * a stale one: all 0.) */
static inline struct loc *loc_at(struct weft_dpor *d, uint32_t b)
{
	struct loc *l = &d->loc[b];

	if (l->epoch != d->lepoch) {
		l->lw = l->la = 0;
		l->rdm = 0;
		l->held = 0;
		l->epoch = d->lepoch;
	}
	return l;
}

bool weft_dpor_undo_grow(struct weft_dpor *d, bool rd);

/* Byte b's state (and thread t's last read of it, t < NT) as it is, onto
 * the undo logs, before a change. */
static inline void undo_loc(struct weft_dpor *d, uint32_t b)
{
	if (__builtin_expect(d->nul >= d->capul, 0) && !weft_dpor_undo_grow(d, false))
		return;
	d->ul[d->nul].b = b;
	d->ul[d->nul].l = d->loc[b];
	d->nul++;
}

static inline void undo_rd(struct weft_dpor *d, uint32_t i)
{
	if (__builtin_expect(d->nur >= d->capur, 0) && !weft_dpor_undo_grow(d, true))
		return;
	d->ur[d->nur].i = i;
	d->ur[d->nur].v = d->rd[i];
	d->nur++;
}

/* Was every access of this execution to a byte of [a, a + s) (s > 1) one
 * to exactly that range? Yes if it is a run that no access of this
 * execution made or split: an access to some of its bytes splits it
 * (dpor_clocks.c, run_whole()), and a run made again after that is
 * remade in this epoch. (The CPU slots are written without runs.) An
 * execution that skipped its prefix keeps the epoch of the one that
 * logged it last: remade in it then says made or split by an access of
 * some execution whose log this one continues, the prefix's (kept, and
 * undone with the rest beyond it), or a no that could be a yes (asks and
 * records every byte: the same evidence). */
static inline bool range_alone(const struct weft_dpor *d, uint32_t a, uint32_t s)
{
	const struct loc *l = &d->loc[a];

	return s > 1 && a + s <= d->cpu_loc0 && !l->back && l->run == s - 1 &&
	       l->remade != d->lepoch;
}

static inline void go_stale(struct weft_dpor *d)
{
	d->stale = true;
	d->replay_lim = 0;
	if (d->valid_end == NIL)
		d->valid_end = d->nev;
}

/* What choosing t at frame f costs against the bound: a switch away from
 * a current thread that could go on, and (fairness) a spinner chosen while
 * a thread it waits for could run, as plain dfs counts them (the machine
 * never makes an unfair thread the current one). */
static inline unsigned choice_cost(const struct frame *f, unsigned t)
{
	return (unsigned)(f->cur >= 0 && (int)t != f->cur) + ((f->unfair >> t) & 1u);
}

/* Every choice the bound leaves out is counted (st.bound_cuts): a search
 * that counted none makes the same decisions under any larger bound,
 * since the bound reaches the search only here, in bound_mask() and in
 * weft_dpor_justify()'s yield rule (which counts its own). */
static inline bool in_bound(struct weft_dpor *d, const struct frame *f, unsigned t)
{
	if (!d->bounded)
		return true;
	if (f->preempt + choice_cost(f, t) <= d->bound)
		return true;
	d->st.bound_cuts++;
	return false;
}

static inline uint32_t bound_mask(struct weft_dpor *d, const struct frame *f, uint32_t m)
{
	if (!d->bounded || (f->preempt + 2 <= d->bound))
		return m;
	uint32_t r = 0;
	for (uint32_t x = m; x; x &= x - 1)
		if (in_bound(d, f, lowest(x)))
			r |= bit(lowest(x));
	return r;
}

static inline uint32_t node_find(const struct weft_dpor *d, uint32_t parent, unsigned tid)
{
	for (uint32_t c = d->nd[parent].child; c != NIL; c = d->nd[c].sib)
		if (d->nd[c].tid == tid)
			return c;
	return NIL;
}

/* dpor.c */
void weft_dpor_skip_diverged(struct weft_dpor *d);
/* dpor_clocks.c */
void weft_dpor_sig_add(const struct weft_dpor *d, struct sig *s, const struct dep *e);
void weft_dpor_step(void *st, const struct weft_step_info *si);
/* dpor_races.c */
uint32_t weft_dpor_node_new(struct weft_dpor *d, unsigned tid, const struct dep *dp);
uint32_t weft_dpor_node_add(struct weft_dpor *d, uint32_t parent, unsigned tid,
			    const struct dep *dp);
void weft_dpor_node_remove_child(struct weft_dpor *d, uint32_t parent, uint32_t c);
void weft_dpor_wut_fix_unrunnable(struct weft_dpor *d, struct frame *f, uint32_t node);
void weft_dpor_analyse(struct weft_dpor *d);
/* dpor_bound.c */
void weft_dpor_justify(struct weft_dpor *d, struct jmask *jm);

#endif
