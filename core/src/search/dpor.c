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
 *    conservative points, see justify()).
 *
 * The search is stateless: each execution replays a prefix of decisions
 * and takes one new one (the branch), as weft_strategy_dfs does. What the
 * machine reports through ops->on_step becomes an event log with vector
 * clocks; races are found as events run and analysed at the end of the
 * execution, for events past the replayed prefix only (the prefix's were
 * analysed when it was new).
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
 * Length: the four algorithms share one execution model (frames, vector
 * clocks, dependence records, sleep sets, wakeup trees); split, that state
 * would be exposed across files. Sections are marked with rules.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "internal.h"

#define NT WEFT_MAX_THREADS
#define NIL 0xffffffffu

#define DEFAULT_MAX_FRAMES (1u << 16)
#define DEFAULT_MAX_EVENTS (1u << 20)
#define FINAL_STATES_CAP (1u << 20)

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
	 * transition's dependence being the union. xall: more than fit (the
	 * transition conflicts with everything). */
	uint8_t nx, xall;
	struct xrange {
		uint32_t loc, size;
		uint8_t w;
	} x[DEP_NX];
};

/* A block of events, over-approximated: the bytes read and written
 * (world offset mod 256, 256 bits each), the threads whose end it joins. */
#define SIGW 4
struct sig {
	uint64_t r[SIGW], w[SIGW];
	uint16_t joins;
	uint8_t all;    /* depends on everything */
};

static inline bool overlap(const struct dep *a, const struct dep *b)
{
	return a->loc < b->loc + b->size && b->loc < a->loc + a->size;
}

/* Range i of a transition: its first record (i = 0), then the others. */
static inline bool dep_range(const struct dep *a, unsigned i, struct xrange *r)
{
	if (i == 0) {
		r->loc = a->loc;
		r->size = a->size;
		r->w = a->w;
		return true;
	}
	if (i > a->nx)
		return false;
	*r = a->x[i - 1];
	return true;
}

/* Do events (transitions) a and b of different threads conflict? */
static bool dep_conflict(const struct dep *a, const struct dep *b)
{
	if (a->kind == WEFT_DEP_YIELD || b->kind == WEFT_DEP_YIELD || a->y || b->y ||
	    a->xall || b->xall)
		return true;
	if (a->kind == WEFT_DEP_END && b->kind == WEFT_DEP_JOIN)
		return a->arg == b->arg;
	if (b->kind == WEFT_DEP_END && a->kind == WEFT_DEP_JOIN)
		return a->arg == b->arg;
	if (!a->nx && !b->nx) {
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

static void sig_words(const struct xrange *e, uint64_t out[SIGW], bool *all)
{
	memset(out, 0, SIGW * sizeof(uint64_t));
	if (e->loc == WEFT_NO_LOC)
		return;
	if (e->size >= 64 * SIGW) {
		*all = true;
		return;
	}
	for (uint32_t b = e->loc; b < e->loc + e->size; b++)
		out[(b >> 6) % SIGW] |= 1ull << (b & 63);
}

static void sig_add(struct sig *s, const struct dep *e)
{
	uint64_t m[SIGW];
	bool all = false;

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
		sig_words(&r, m, &all);
		if (all)
			s->all = 1;
		for (int i = 0; i < SIGW; i++) {
			if (r.w)
				s->w[i] |= m[i];
			else
				s->r[i] |= m[i];
		}
	}
}

/* Does executed event e conflict with anything in block s? */
static bool sig_conflict(const struct dep *e, const struct sig *s)
{
	uint64_t m[SIGW];
	bool all = false;

	if (s->all || e->kind == WEFT_DEP_YIELD || e->y || e->xall)
		return true;
	if (e->kind == WEFT_DEP_END)
		return (s->joins >> e->arg) & 1;
	struct xrange r;
	for (unsigned k = 0; dep_range(e, k, &r); k++) {
		sig_words(&r, m, &all);
		if (all)
			return true;
		for (int i = 0; i < SIGW; i++)
			if (m[i] & (s->w[i] | (r.w ? s->r[i] : 0)))
				return true;
	}
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
	struct info ci;   /* the chosen thread's event / block, once it ran */
	uint32_t blk_end; /* bounded: the index of the last event of that
			     (natural) block in its thread (NIL: cut short) */
};

struct node {
	uint32_t child, sib;
	uint8_t tid, known;
	struct dep d;
};

struct race {
	uint32_t i, j;    /* events, i before j */
	uint32_t alt;     /* clock of j without its release edge (NIL: j's own) */
};

struct loc {
	uint32_t epoch;
	uint32_t lw;      /* last write (event + 1) */
	uint32_t la;      /* last acquire */
	uint16_t rdm;     /* threads that read it since the last write (their
			     last reads are in weft_dpor.rd) */
	uint8_t held;     /* a lock: its holder + 1 (0: free) */
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
	bool capped, nondet, lost, ctx, choice, fair, wide;
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
	struct race *rc;
	uint32_t nrc, caprc;
	uint32_t *aclk;
	uint32_t naclk, capaclk;   /* in clocks */
	struct loc *loc;
	uint32_t *rd;              /* NT per byte: each thread's last read + 1 */
	uint32_t nloc, epoch;
	uint32_t tclk[NT][NT];
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
	uint32_t npre;
	uint32_t new_start, valid_end;
	bool stale, redundant, logging;
	uint16_t slp;
	struct info slpi[NT];
	uint32_t cursor;

	struct vitem *v;
	uint32_t capv;
	struct jmask *jm;          /* bounded: per world byte, for justify() */

	uint64_t *fs;
	uint32_t nfs;

	struct weft_dpor_stats st;
};

/* ------------------------------------------------------------- utilities */

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	uint32_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *n = realloc(*p, (size_t)c * elem);
	if (!n)
		return false;
	*p = n;
	*cap = c;
	return true;
}

#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

static inline uint32_t *clk_of(struct weft_dpor *d, uint32_t k)
{
	return &d->clk[(size_t)k * NT];
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

static void set_incomplete(struct weft_dpor *d, bool *flag, const char *why)
{
	*flag = true;
	if (!d->why)
		d->why = why;
}

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

/* ----------------------------------------------------------- wakeup trees */

static uint32_t node_new(struct weft_dpor *d, unsigned tid, const struct dep *dp)
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
static uint32_t node_add(struct weft_dpor *d, uint32_t parent, unsigned tid, const struct dep *dp)
{
	uint32_t n = node_new(d, tid, dp);

	if (n == NIL)
		return NIL;
	uint32_t *link = &d->nd[parent].child;
	while (*link != NIL)
		link = &d->nd[*link].sib;
	*link = n;
	return n;
}

static void node_remove_child(struct weft_dpor *d, uint32_t parent, uint32_t c)
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

static uint32_t node_find(const struct weft_dpor *d, uint32_t parent, unsigned tid)
{
	for (uint32_t c = d->nd[parent].child; c != NIL; c = d->nd[c].sib)
		if (d->nd[c].tid == tid)
			return c;
	return NIL;
}

/* ------------------------------------------------------------ frames */

static const struct info *frame_info(const struct weft_dpor *d, const struct frame *f, unsigned t)
{
	for (unsigned i = 0; i < (unsigned)f->nS + f->nX; i++)
		if (d->pool[f->pool + i].tid == t)
			return &d->pool[f->pool + i];
	return NULL;
}

static bool in_bound(const struct weft_dpor *d, const struct frame *f, unsigned t)
{
	if (!d->bounded)
		return true;
	return f->preempt + (f->cur >= 0 && (int)t != f->cur) <= d->bound;
}

static uint32_t bound_mask(const struct weft_dpor *d, const struct frame *f, uint32_t m)
{
	if (!d->bounded || f->cur < 0 || f->preempt < d->bound)
		return m;
	return m & bit((unsigned)f->cur);
}

static inline struct loc *loc_at(struct weft_dpor *d, uint32_t b);

/* A thread whose next operation would block without changing any state:
 * a test-and-set spin_lock of a held lock, a join of a running thread. */
static bool blocks_stateless(struct weft_dpor *d, unsigned t)
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
	if (!weft_thread_pending(t, &pi, &wb)) {
		if ((d->seen & bit(t)) || !(d->fop_known & bit(t)))
			return false;
		/* not started: its first op, learnt before */
		if (d->fop_kind[t] == FOP_JOIN)
			return !d->end_ev[d->fop_arg[t]];
		return d->fop_kind[t] == FOP_LOCK && loc_at(d, d->fop_loc[t])->held;
	}
	bool lockish = pi.kind == WEFT_DEP_JOIN ||
		       (pi.kind == WEFT_DEP_ACQUIRE && (pi.flags & WEFT_STEP_SPIN) &&
			d->lock == WEFT_LOCK_TAS);
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

/* Optimal: children of node that cannot run at f are replaced by a leaf
 * for every enabled thread not covered there (the fallback). */
static void wut_fix_unrunnable(struct weft_dpor *d, struct frame *f, uint32_t node)
{
	bool bad = false;
	uint32_t have = 0;

	for (uint32_t c = d->nd[node].child, nx; c != NIL; c = nx) {
		nx = d->nd[c].sib;
		if (!(f->allowed & bit(d->nd[c].tid)) || !in_bound(d, f, d->nd[c].tid)) {
			node_remove_child(d, node, c);
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
		node_add(d, node, lowest(add), NULL);
}

/* ------------------------------------------------------------ the ops */

static void exec_reset(struct weft_dpor *d)
{
	d->nev = d->nrc = d->naclk = 0;
	if (++d->epoch == 0) {
		memset(d->loc, 0, (size_t)d->nloc * sizeof(*d->loc));
		d->epoch = 1;
	}
	memset(d->tclk, 0, sizeof(d->tclk));
	memset(d->ntidx, 0, sizeof(d->ntidx));
	memset(d->spawn_ev, 0, sizeof(d->spawn_ev));
	memset(d->end_ev, 0, sizeof(d->end_ev));
	memset(d->blk_acq, 0, sizeof(d->blk_acq));
	memset(d->queued, 0, sizeof(d->queued));
	d->seen = 0;
	d->exempt = NIL;
	d->cursor_ev = NIL;
	d->pend_known = d->pend_lockish = 0;
	memset(d->last_ev, 0, sizeof(d->last_ev));
	memset(d->last_yield, 0, sizeof(d->last_yield));
	d->yielded = false;
	memset(d->absorber, 0, sizeof(d->absorber));
	d->yield_open = 0;
	d->after_yield = false;
	d->await_tid = -1;
	d->await_frame = NIL;
	d->last_frame = NIL;
	d->k = 0;
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
		wut_fix_unrunnable(d, f, node);
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

static bool next_branch(struct weft_dpor *d)
{
	for (uint32_t k = d->nfr; k-- > 0;) {
		struct frame *f = &d->fr[k];
		mark_explored(d, k);
		if (d->mode == WEFT_POR_OPTIMAL && f->wchild != NIL)
			node_remove_child(d, f->wut, f->wchild);
		f->wchild = NIL;
		int t = pick_todo(d, f);
		if (t >= 0) {
			f->chosen = (uint8_t)t;
			d->nfr = k + 1;
			d->replay = k;
			d->branching = true;
			d->prefix_events = f->first_ev;
			return true;
		}
	}
	d->nfr = 0;
	return false;
}

static int dpor_begin(void *st, uint8_t *wl, size_t cap)
{
	struct weft_dpor *d = st;

	if (d->done)
		return -1;
	if (d->started && d->restart) {
		d->restart = false;
		d->nfr = d->replay = 0;
		d->branching = false;
		d->prefix_events = 0;
		d->npool = 0;
		d->nnd = 0;
		d->freend = NIL;
		d->st.yield_restarts++;
		/* wakeup trees do not follow the yield rule's orders (the
		 * random check found traces they miss): with yields, optimal
		 * DPOR continues as source-DPOR, which keeps every trace */
		if (d->mode == WEFT_POR_OPTIMAL)
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
		d->nfr = d->replay = 0;
		d->branching = false;
		d->prefix_events = 0;
	}
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
	exec_reset(d);
	d->new_start = d->branching ? NIL : 0;
	if (d->wl_len > cap)
		return -1;
	memcpy(wl, d->wl, d->wl_len);
	return (int)d->wl_len;
}

/* A frame's decision for a new state. Returns the thread, or -1 if every
 * enabled thread is asleep (the execution is covered by others). */
static int choose_new(struct weft_dpor *d, struct frame *f)
{
	uint32_t cand = bound_mask(d, f, f->allowed & ~d->slp);

	if (d->mode == WEFT_POR_OPTIMAL) {
		uint32_t node = d->cursor;
		if (node == NIL)
			node = node_new(d, 0, NULL);
		if (node == NIL)
			return -1;
		f->wut = node;
		f->wchild = NIL;
		if (d->nd[node].child != NIL)
			wut_fix_unrunnable(d, f, node);
		uint32_t c = d->nd[node].child;
		if (c == NIL) {
			if (!cand)
				return -1;
			unsigned t = f->cur >= 0 && (cand & bit((unsigned)f->cur)) ? (unsigned)f->cur
										   : lowest(cand);
			c = node_add(d, node, t, NULL);
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
				node_add(d, node, lowest(m), NULL);
		}
		return d->nd[c].tid;
	}
	if (!cand)
		return -1;
	unsigned t = f->cur >= 0 && (cand & bit((unsigned)f->cur)) ? (unsigned)f->cur : lowest(cand);
	f->just = 1;
	if (d->mode == WEFT_POR_SLEEP || d->after_yield) {
		/* after a yield, which thread runs first is a choice no race
		 * names: every one is explored */
		f->bt = (uint16_t)cand;
	} else if (d->bounded) {
		/* an alternative needs justifying (justify()): to a preemption,
		 * or to the default of a free decision; a decision whose
		 * current thread is asleep explores every thread */
		f->bt = (uint16_t)cand;
		if (f->cur < 0 || t == (unsigned)f->cur) {
			f->bt = (uint16_t)bit(t);
			f->just = 0;
		}
	} else {
		f->bt = (uint16_t)bit(t);
	}
	return (int)t;
}

static int decided(struct weft_dpor *d, const struct weft_decision *dec, unsigned c, uint32_t frame)
{
	if (dec->cur >= 0 && (int)c != dec->cur)
		d->npre++;
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
	return allowed ? (int)lowest(allowed) : dec->dflt;
}

static void go_stale(struct weft_dpor *d)
{
	d->stale = true;
	if (d->valid_end == NIL)
		d->valid_end = d->nev;
}

static int dpor_pick(void *st, const struct weft_decision *dec)
{
	struct weft_dpor *d = st;
	int cur = dec->cur;
	uint64_t run = dec->runnable;

	/* the current thread may have run ops that leave no dependence record
	 * (a choice, a note) since its next op was cached, for instance after
	 * a switch the machine made without a decision: ask again */
	if (cur >= 0)
		d->pend_known &= (uint16_t)~bit((unsigned)cur);
	/* chosen while paused in a yield: it now reaches its next operation */
	if (cur >= 0 && cur == d->await_tid)
		return cur;
	/* fair scheduling made a choice unfair (a thread spins): the search
	 * cannot certify (dpor_end says why) and from here follows the fair
	 * default, never a spinner while another thread can run */
	if (__builtin_expect(dec->unfair != 0, 0)) {
		go_stale(d);
		return decided(d, dec, (unsigned)dec->dflt, NIL);
	}
	/* a thread numbered NT or more (its clocks have no slot) */
	if (__builtin_expect(dec->runnable >> NT != 0, 0)) {
		set_incomplete(d, &d->wide,
			       "an execution has more than 16 threads: partial-order reduction "
			       "follows threads 0..15 only (use --por none)");
		go_stale(d);
		return decided(d, dec, (unsigned)dec->dflt, NIL);
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
	if (!d->ymode || (d->bounded && !post_yield))
		for (uint32_t m = run; m; m &= m - 1)
			if ((!d->ymode || (int)lowest(m) != cur) && blocks_stateless(d, lowest(m)))
				allowed &= ~bit(lowest(m));
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

	if (k >= d->max_frames || !GROW(d->fr, d->capfr, k + 1)) {
		set_incomplete(d, &d->capped, "the decision-stack cap was hit");
		go_stale(d);
		return decided(d, dec, (unsigned)default_choice(dec, allowed), NIL);
	}
	struct frame *f = &d->fr[k];
	int c;
	if (replaying) {
		/* allowed may shrink: a thread's first op learnt since */
		if (f->runnable != run || f->cur != cur || (allowed & ~(uint32_t)f->allowed) ||
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
					d->cursor = f->wchild;
			d->st.states++;
			memset(&f->ci, 0, sizeof(f->ci));
		}
	} else {
		/* a new state */
		f->runnable = (uint16_t)run;
		f->allowed = (uint16_t)allowed;
		f->cur = (int8_t)cur;
		f->preempt = d->npre;
		f->dec = dec->index;
		f->unk = (uint16_t)(allowed & ~d->seen & ~(uint32_t)d->fop_known);
		f->bt = f->X = 0;
		f->py = d->after_yield;
		f->S = d->slp;
		f->nS = f->nX = 0;
		f->first_ev = NIL;
		f->wut = f->wchild = NIL;
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
	if (alt && GROW(d->aclk, d->capaclk, d->naclk + NT)) {
		r->alt = d->naclk;
		memcpy(&d->aclk[d->naclk], alt, NT * sizeof(uint32_t));
		d->naclk += NT;
	}
}

static inline struct loc *loc_at(struct weft_dpor *d, uint32_t b)
{
	struct loc *l = &d->loc[b];

	if (l->epoch != d->epoch) {
		l->lw = l->la = 0;
		l->rdm = 0;
		l->held = 0;
		l->epoch = d->epoch;
	}
	return l;
}

/* Byte b after access n. */
static inline void loc_update(struct weft_dpor *d, uint32_t b, const struct dep *r, unsigned tid,
			      uint32_t n)
{
	struct loc *l = loc_at(d, b);

	if (r->w) {
		l->lw = n + 1;
		l->rdm = 0;
	} else {
		d->rd[(size_t)b * NT + tid] = n + 1;
		l->rdm |= (uint16_t)bit(tid);
	}
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
		}
		for (uint32_t b = b0; b < b1; b++)
			loc_update(d, b, r, e->tid, n);
		goto locks;
	}
	/* the thread that woke this one: it orders this event, and the two
	 * cannot be reversed (this thread was asleep) */
	if (first && d->exempt != NIL)
		join(C, clk_of(d, d->exempt));
	/* a yield conflicts with every event of another thread (the bounded
	 * search handles yields in justify() instead) */
	bool yields = first && !d->bounded && (r->kind == WEFT_DEP_YIELD || d->yielded);
	for (unsigned u = 0; u < NT && yields; u++) {
		uint32_t y = r->kind == WEFT_DEP_YIELD ? d->last_ev[u] : d->last_yield[u];
		if (y && u != e->tid)
			cand[nc++] = y - 1;
	}
	uint32_t plw = 0, prdm = 0;
	const uint32_t *prd = NULL;
	for (uint32_t b = b0; b < b1; b++) {
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
			for (uint32_t m = r->w ? rdm : 0; m && same; m &= m - 1)
				same = prd[lowest(m)] == rd[lowest(m)];
			if (same)
				continue;
		}
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
		if (includes(d, C, c))
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
		}
		if (rel != NIL)
			join(C, clk_of(d, rel));
	}
locks:
	if (r->w && b0 < b1) {
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
			c = node_add(d, node, e->tid, &e->d);
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

static void classify(const struct weft_dpor *d, const struct weft_step_info *si, struct dep *o,
		     bool *phantom)
{
	o->loc = si->loc;
	o->size = si->size ? si->size : 1;
	o->kind = si->kind;
	o->w = 0;
	o->arg = (uint8_t)(si->arg < NT ? si->arg : 0);
	o->lk = LK_NONE;
	o->y = 0;
	o->nx = o->xall = 0;
	*phantom = false;
	unsigned sev = si->site ? si->site->ev : 0;
	/* a test-and-set spinlock's lock (the machine flags it: sleeping
	 * locks have LOCK sites too, and their blocked attempts queue) */
	bool spin = (si->flags & WEFT_STEP_SPIN) && d->lock == WEFT_LOCK_TAS;
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
	if (o->loc != WEFT_NO_LOC && o->loc >= d->nloc)
		o->loc = WEFT_NO_LOC;   /* outside the world: thread-local */
}

static void learn_first_op(struct weft_dpor *d, unsigned t, const struct weft_step_info *si,
			   const struct dep *o)
{
	unsigned sev = si->site ? si->site->ev : 0;
	uint8_t kind = FOP_OTHER, arg = 0;
	uint32_t loc = 0;

	if (d->lock == WEFT_LOCK_TAS && (si->flags & WEFT_STEP_SPIN) && o->loc != WEFT_NO_LOC &&
	    (si->kind == WEFT_DEP_ACQUIRE || si->kind == WEFT_DEP_BLOCKED)) {
		kind = FOP_LOCK;
		loc = o->loc;
	} else if (si->kind == WEFT_DEP_JOIN ||
		   (si->kind == WEFT_DEP_BLOCKED && sev == WEFT_EV_JOIN)) {
		kind = FOP_JOIN;
		arg = o->arg;
	}
	if (!(d->fop_known & bit(t))) {
		d->fop_known |= (uint16_t)bit(t);
		d->fop_kind[t] = kind;
		d->fop_loc[t] = loc;
		d->fop_arg[t] = arg;
	} else if (d->fop_kind[t] != kind || d->fop_loc[t] != loc || d->fop_arg[t] != arg) {
		set_incomplete(d, &d->nondet,
			       "a thread's first operation changed: the model is nondeterministic");
		d->fop_kind[t] = kind;
		d->fop_loc[t] = loc;
		d->fop_arg[t] = arg;
	}
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

	if (r->loc != WEFT_NO_LOC) {
		if (e->d.nx < DEP_NX)
			e->d.x[e->d.nx++] = (struct xrange){ r->loc, r->size, r->w };
		else
			e->d.xall = 1;
	}
	if (r->kind == WEFT_DEP_SPAWN && si->arg < NT)
		d->spawn_ev[si->arg] = m + 1;
	/* the replayed prefix must do what it did */
	if (d->branching && m < d->prefix_events && r->loc != WEFT_NO_LOC) {
		const struct ev *p = m < d->npev ? &d->pev[m] : NULL;
		if (!p || (k < DEP_NX && (p->d.nx <= k || p->d.x[k].loc != r->loc ||
					   p->d.x[k].size != r->size))) {
			set_incomplete(d, &d->nondet,
				       "a replayed prefix diverged: the model is nondeterministic");
			d->nfr = d->k ? d->k - 1 : 0;
			go_stale(d);
			d->fast = false;
		}
	}
	uint32_t *C = clk_of(d, m);
	conflicts(d, m, C, r, false);
	memcpy(d->tclk[t], C, sizeof(d->tclk[t]));
	if (d->stale || d->new_start == NIL || m < d->new_start)
		return;
	/* a sleeper wakes at a dependent record */
	for (uint32_t q = d->slp; q; q &= q - 1) {
		const struct info *in = &d->slpi[lowest(q)];
		bool w = !in->known || (d->bounded && !in->one ? sig_conflict(r, &in->s)
							       : dep_conflict(r, &in->d));
		if (w)
			d->slp &= (uint16_t)~bit(lowest(q));
	}
	/* the wakeup-tree node that learnt this transition from its first record */
	if (d->mode == WEFT_POR_OPTIMAL && d->cursor != NIL && d->cursor_ev == m)
		d->nd[d->cursor].d = e->d;
}

/* The event that woke thread t since its last record (NIL if none): the
 * waker's last event at or before the step of the wake-up. */
static uint32_t waker_event(const struct weft_dpor *d, unsigned t, uint32_t n)
{
	unsigned wk;
	uint32_t ws;

	if (!(d->seen & bit(t)) || !weft_thread_woken(t, &wk, &ws) || wk >= NT || wk == t ||
	    ws <= d->last_step[t])
		return NIL;
	for (uint32_t i = n; i-- > 0;) {
		const struct ev *x = &d->ev[i];
		if (x->tid == wk && x->step <= ws && !(x->flags & EV_PHANTOM))
			return i;
		if (x->step < d->last_step[t])
			break;   /* before the sleeper's last record: not the waker */
	}
	return NIL;
}

static void dpor_step(void *st, const struct weft_step_info *si)
{
	struct weft_dpor *d = st;
	bool phantom;

	if (si->tid >= NT || !d->logging)
		return;
	if (d->nev > 0) {
		/* another record of the last event's step: one transition */
		const struct ev *p = &d->ev[d->nev - 1];
		if (p->tid == si->tid && p->step == si->step && !(p->flags & EV_PHANTOM) &&
		    p->d.kind != WEFT_DEP_END && p->d.kind != WEFT_DEP_YIELD &&
		    si->kind != WEFT_DEP_END && si->kind != WEFT_DEP_YIELD &&
		    si->kind != WEFT_DEP_JOIN) {
			struct dep r;
			classify(d, si, &r, &phantom);
			if (!phantom) {
				merge_record(d, d->nev - 1, si, &r);
				return;
			}
		}
	}
	uint32_t n = d->nev;
	if (n >= d->max_events || !GROW(d->ev, d->capev, n + 1)) {
		set_incomplete(d, &d->capped, "the events-per-execution cap was hit");
		go_stale(d);
		d->logging = false;
		return;
	}
	if (n + 1 > d->capclk) {
		uint32_t c = d->capclk ? d->capclk : 256;
		while (c < n + 1)
			c *= 2;
		uint32_t *nc = realloc(d->clk, (size_t)c * NT * sizeof(uint32_t));
		if (!nc) {
			set_incomplete(d, &d->capped, "out of memory");
			go_stale(d);
			d->logging = false;
			return;
		}
		d->clk = nc;
		d->capclk = c;
	}
	d->nev = n + 1;
	struct ev *e = &d->ev[n];
	unsigned t = si->tid;
	classify(d, si, &e->d, &phantom);
	e->tid = (uint8_t)t;
	e->step = si->step;
	/* a spin wait's wake-up is no order: a spinner's acquire races
	 * with the release (the lock rules and aclk handle it) */
	uint32_t wkev = phantom || (si->flags & WEFT_STEP_SPIN) ? NIL : waker_event(d, t, n);
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
	memcpy(C, d->tclk[t], sizeof(d->tclk[t]));
	if (phantom) {
		/* a blocked attempt that changes nothing: not in the trace;
		 * it races with the acquire that holds the lock */
		e->flags |= EV_PHANTOM;
		/* bounded: the index of the thread's last real event, so that
		 * justify() measures "its next op" from there */
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
				    (in->one ? dep_conflict(&e->d, &in->d) : sig_conflict(&e->d, &in->s)))
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
		memcpy(d->tclk[t], C, sizeof(d->tclk[t]));
		for (uint32_t m = d->yield_open & ~bit(t); m; m &= m - 1)
			d->absorber[lowest(m)] = n + 1;
		d->yield_open = 0;
		d->last_ev[t] = n + 1;
		return;
	}
	if (e->tidx == 1 && d->spawn_ev[t])
		join(C, clk_of(d, d->spawn_ev[t] - 1));
	if (e->d.kind == WEFT_DEP_JOIN && d->end_ev[e->d.arg])
		join(C, clk_of(d, d->end_ev[e->d.arg] - 1));
	d->exempt = wkev;
	/* the yield rule: a yielder's next event comes after what ran first
	 * after its yield (an order, not a race: it cannot be reversed) */
	if (d->absorber[t] && !d->bounded) {
		join(C, clk_of(d, d->absorber[t] - 1));
		d->absorber[t] = 0;
	}
	conflicts(d, n, C, &e->d, true);
	d->exempt = NIL;
	memcpy(d->tclk[t], C, sizeof(d->tclk[t]));
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
					 (d->bounded && !in->one ? sig_conflict(&e->d, &in->s)
								 : dep_conflict(&e->d, &in->d));
				if (w)
					d->slp &= (uint16_t)~bit(lowest(m));
			}
		}
	}
	if (d->mode == WEFT_POR_OPTIMAL && !(e->flags & EV_IMPLICIT))
		cursor_step(d, n);
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
		sig_add(&in->s, &e->d);
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
		node = node_add(d, node, d->v[y].tid, &d->v[y].d);
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
			node_add(d, f->wut, lowest(add), NULL);
		d->st.fallbacks++;
		return;
	}
	wut_insert(d, f->wut, n);
}

static void analyse(struct weft_dpor *d)
{
	if (d->mode == WEFT_POR_SLEEP)
		return;
	for (uint32_t i = 0; i < d->nrc; i++) {
		const struct race *r = &d->rc[i];
		if (d->valid_end != NIL && r->j >= d->valid_end)
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

/*
 * Bounded search (docs/strategies.md). A preemption of thread p right
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
 */
struct jmask {
	uint32_t epoch;
	uint32_t r[NT], w[NT];   /* least clock[p] of a later read / write by
				    another thread than p, per p */
	uint32_t a[NT], u[NT];   /* the same for test-and-set spin_locks and
				    their unlocks, kept apart for unlock_hit() */
};

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
 * yield, the attempt may be the only way back to the yielder.
 */
static bool unlock_hit(const struct weft_dpor *d, uint32_t i, uint32_t lim)
{
	const struct ev *x = &d->ev[i];
	uint16_t ran = 0;   /* threads with a real event after x */

	for (uint32_t j = i + 1; j < d->nev; j++) {
		const struct ev *y = &d->ev[j];
		if (y->tid == x->tid || (y->flags & EV_PHANTOM))
			continue;
		if (y->d.lk == LK_BLOCKING && y->d.loc == x->d.loc && (ran & bit(y->tid))) {
			const uint32_t *c = y->alt != NIL ? &d->aclk[y->alt] : clk_of((struct weft_dpor *)d, j);
			if (c[x->tid] <= lim)
				return true;
		}
		ran |= (uint16_t)bit(y->tid);
	}
	return false;
}

static bool jm_hit(const struct jmask *m, const struct dep *x, unsigned p, uint32_t lim,
		   bool plain_only)
{
	if (m->w[p] <= lim || (x->w && m->r[p] <= lim))
		return true;
	if (plain_only)
		return false;
	return m->a[p] <= lim || m->u[p] <= lim;
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

/* Does a later event recorded in jm (and amin, emin) conflict with p's
 * event x and not see p's op after it (clock[p] <= lim)? */
static bool jm_evidence(const struct weft_dpor *d, const struct jmask *jm, const struct ev *x,
			unsigned p, uint32_t lim, bool plain_only, const uint32_t *amin,
			const uint32_t *emin)
{
	struct xrange r;

	if (amin[p] <= lim)
		return true;   /* a transition that conflicts with everything */
	if (x->d.xall)
		return emin[p] <= lim;
	for (unsigned k = 0; dep_range(&x->d, k, &r); k++) {
		if (r.loc == WEFT_NO_LOC)
			continue;
		struct dep one = x->d;
		one.w = r.w;
		for (uint32_t b = r.loc; b < r.loc + r.size && b < d->nloc; b++) {
			const struct jmask *m = &jm[b];
			if (m->epoch == d->epoch && jm_hit(m, &one, p, lim, plain_only && k == 0))
				return true;
		}
	}
	return false;
}

static void justify(struct weft_dpor *d, struct jmask *jm)
{
	uint32_t last[NT] = { 0 };   /* p's last (highest) event index seen */
	uint32_t ymin[NT];           /* least clock[p] of a later yield of another
					thread than p */
	uint32_t amin[NT], emin[NT]; /* the same of a later event that conflicts
					with everything, of any later event */
	struct freeblk fb[64];
	unsigned nfb = 0;

	for (unsigned t = 0; t < NT; t++)
		ymin[t] = amin[t] = emin[t] = UINT32_MAX;
	for (uint32_t k = 0; k < d->nfr && nfb < 64; k++) {
		const struct frame *f = &d->fr[k];
		if (f->just || f->cur >= 0 || f->first_ev >= d->nev)
			continue;
		const struct ev *x = &d->ev[f->first_ev];
		fb[nfb].frame = k;
		fb[nfb].t0 = (x->flags & EV_PHANTOM) ? x->tidx + 1 : x->tidx;
		fb[nfb].t1 = f->blk_end;
		nfb++;
	}

	for (uint32_t k = d->nev; k-- > 0;) {
		const struct ev *e = &d->ev[k];
		unsigned p = e->tid;
		if ((e->flags & EV_FIRST) && e->frame < d->nfr) {
			struct frame *f = &d->fr[e->frame];
			if (!f->just && f->cur == (int)p && f->chosen == p) {
				/* a later y of another thread with y[p] <= tidx(x),
				 * or any later y if p has nothing after x (a yield or
				 * the end right after x belong to x's transition:
				 * nothing can run between them), that conflicts with
				 * x or is a yield (x may have been what ran right
				 * after it: moving x first could strand it) */
				uint32_t end = e->tidx;
				bool stops = (e->flags & EV_PHANTOM) != 0;
				for (uint32_t j = k + 1; j < d->nev && d->ev[j].tid == p &&
				     (d->ev[j].flags & EV_IMPLICIT); j++) {
					end = d->ev[j].tidx;
					stops = true;   /* x's transition ends p's block */
				}
				uint32_t lim = last[p] > end ? end : UINT32_MAX - 1;   /* MAX: no event */
				/* stranding a yield takes the yielder running again
				 * right after x: a second preemption unless x's
				 * transition ends p's block */
				bool just = ymin[p] <= lim && (stops || f->preempt + 2 <= d->bound);
				bool unl = e->d.lk == LK_UNLOCK && !d->ymode;
				if (!just && !(e->flags & EV_PHANTOM)) {
					just = jm_evidence(d, jm, e, p, lim, unl, amin, emin);
					if (!just && unl)
						just = unlock_hit(d, k, lim);
				}
				if (just)
					justify_frame(d, f);
			}
		}
		/* events of free decisions' blocks */
		for (unsigned i = 0; i < nfb; i++) {
			struct frame *f = &d->fr[fb[i].frame];
			if (f->just || f->chosen != p || (e->flags & EV_PHANTOM) || e->tidx < fb[i].t0 ||
			    (fb[i].t1 != NIL && e->tidx > fb[i].t1))
				continue;
			uint32_t lim = fb[i].t1 != NIL && last[p] > fb[i].t1 ? fb[i].t1 : UINT32_MAX - 1;
			bool just = ymin[p] <= lim;
			if (!just)
				just = jm_evidence(d, jm, e, p, lim, false, amin, emin);
			if (just)
				justify_frame(d, f);
		}
		if (e->flags & EV_PHANTOM)
			continue;
		if (e->d.kind == WEFT_DEP_YIELD) {
			const uint32_t *c = clk_of(d, k);
			for (unsigned q = 0; q < NT; q++)
				if (q != p && c[q] < ymin[q])
					ymin[q] = c[q];
		}
		if (e->tidx > last[p])
			last[p] = e->tidx;
		{
			const uint32_t *c = clk_of(d, k);
			for (unsigned q = 0; q < NT; q++) {
				if (q != p && c[q] < emin[q])
					emin[q] = c[q];
				if (q != p && e->d.xall && c[q] < amin[q])
					amin[q] = c[q];
			}
		}
		/* a spin_lock's evidence is its clock without the release
		 * edge: moving x first would only make it wait */
		const uint32_t *c = e->alt != NIL ? &d->aclk[e->alt] : clk_of(d, k);
		struct xrange r;
		for (unsigned ri = 0; dep_range(&e->d, ri, &r); ri++) {
			if (r.loc == WEFT_NO_LOC)
				continue;
			for (uint32_t b = r.loc; b < r.loc + r.size && b < d->nloc; b++) {
				struct jmask *m = &jm[b];
				if (m->epoch != d->epoch) {
					m->epoch = d->epoch;
					memset(m->r, 0xff, sizeof(m->r));
					memset(m->w, 0xff, sizeof(m->w));
					memset(m->a, 0xff, sizeof(m->a));
					memset(m->u, 0xff, sizeof(m->u));
				}
				uint32_t *mm = ri == 0 && e->d.lk == LK_BLOCKING ? m->a
					     : ri == 0 && e->d.lk == LK_UNLOCK  ? m->u
					     : r.w                              ? m->w
										: m->r;
				for (unsigned q = 0; q < NT; q++)
					if (q != p && c[q] < mm[q])
						mm[q] = c[q];
			}
		}
	}
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
	uint64_t h = world_hash(w, d->sc->world_size);
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
	if (d->trace)
		dump(d);
	if (weft_contexts_active())
		set_incomplete(d, &d->ctx,
			       "interrupts or threads sharing a CPU: a context that holds a CPU "
			       "excludes threads in ways no dependence record shows, so partial-"
			       "order reduction cannot certify this (use --por none)");
	if (weft_fair_restricted())
		set_incomplete(d, &d->fair,
			       "fair scheduling passed over a spinning thread at a decision "
			       "(docs/strategies.md, \"Fairness\"): which choice is fair depends "
			       "on the order of earlier events, which partial-order reduction "
			       "does not track, so it cannot certify this (use --por none)");
	if (weft_free_choices())
		set_incomplete(d, &d->choice,
			       "the model chose values with weft_choose() (e.g. a spurious "
			       "wake-up): partial-order reduction explores value 0 only, so it "
			       "cannot certify this (use --por none, which enumerates them)");
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
	}
	if (d->bounded) {
		if (d->mode == WEFT_POR_SOURCE && d->jm)
			justify(d, d->jm);
	} else if (d->new_start != NIL) {
		analyse(d);
	}
}

const struct weft_strategy_ops weft_strategy_dpor = {
	.name = "dfs",
	.begin = dpor_begin,
	.pick_next = dpor_pick,
	.end = dpor_end,
	.on_step = dpor_step,
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
	free(d->ev);
	free(d->pev);
	free(d->clk);
	free(d->pclk);
	free(d->rc);
	free(d->aclk);
	free(d->loc);
	free(d->rd);
	free(d->v);
	free(d->jm);
	free(d->fs);
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
	uint32_t nloc = (uint32_t)(((sc->world_size + 63) & ~(size_t)63) + weft_core_size);
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
		d->epoch = 0;
	}
	d->nloc = nloc;
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
	d->ymode = d->restart = false;
	d->capped = d->nondet = d->lost = d->ctx = d->choice = d->fair = d->wide = false;
	d->why = NULL;
	d->fop_known = 0;
	d->nfr = d->replay = 0;
	d->branching = false;
	d->npool = 0;
	d->nnd = 0;
	d->freend = NIL;
	d->nev = d->npev = 0;
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
	return d->done && !d->capped && !d->nondet && !d->lost && !d->ctx && !d->choice &&
	       !d->fair && !d->wide;
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
