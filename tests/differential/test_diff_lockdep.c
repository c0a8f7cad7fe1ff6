/*
 * test_diff_lockdep.c - lockdep-lite against a brute-force reference.
 *
 * Random programs of 2-3 threads and 0-2 interrupt handlers (hard and
 * soft) take up to six locks: spinlocks (plain, _irq, _irqsave, _bh forms,
 * trylock, trylock_irqsave), mutexes and rw semaphores (read and write,
 * trylocks), nested and released in and out of order, under interrupt and
 * bottom-half masking (local_irq_disable/enable, save/restore pairs,
 * local_bh_disable/enable); some locks share a class (one init site), some
 * are classed by their instance; some programs release a lock they do not
 * hold or end holding one. Each runs under both lock models with the
 * serial schedule and seeded random ones, and in series that keep the
 * graph across executions (lockdep_persist), as `weft run` does: one
 * until its first report, one that goes on past the warnings
 * (continue_kinds, as `weft run --kind deadlock` does).
 *
 * The reference (written from lockdep.c's header, docs/detectors.md and
 * the kernel's lockdep rules, not from lockdep.c) replays each acquisition
 * attempt in the order the run made it: it keeps the usage bits of each
 * class and the order graph, and after every new fact asks, by brute force
 * over all pairs, whether the graph has a cycle through the new edge
 * (lock-order-inversion: cycles of any length), a class used both in an
 * interrupt and with that interrupt enabled (taken with it on, or held
 * when it comes back on: local_irq_enable(), spin_unlock_irq() ... mark
 * every held lock, as the kernel's mark_held_locks()), or an IRQ-safe
 * class reaching an IRQ-unsafe one through the fact (irq-lock-inversion);
 * each edge and usage bit is checked at its first use in every execution,
 * whether or not an earlier execution added it (docs/detectors.md); it
 * checks releases (bad-unlock) and ends (lock-held-at-exit). Every acquisition Weft lets
 * through must be clean in the reference, and the report Weft ends a run
 * with must be the one the reference gives for that thread's next attempt.
 * A report that relied on an earlier execution's facts must reproduce from
 * its witness alone (what a .weft file stores).
 *
 * WEFT_DIFF_SIZE=large runs more programs; WEFT_DIFF_SEED another
 * sequence; WEFT_DIFF_ONLY=N one program, verbose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "lockstep.h"

#define NT 3            /* threads */
#define NI 2            /* interrupt handlers */
#define NL 6            /* lock instances */
#define MAXOPS 20

enum ltype { T_SPIN, T_MUTEX, T_RWSEM };

/* L_UNLOCK..L_UNLOCK_BH release L_LOCK..L_LOCK_BH, in the same order */
enum opk {
	L_LOCK, L_LOCK_R, L_LOCK_IRQ, L_LOCK_SAVE, L_LOCK_BH,
	L_TRY, L_TRY_R, L_TRY_SAVE,
	L_UNLOCK, L_UNLOCK_R, L_UNLOCK_IRQ, L_UNLOCK_RESTORE, L_UNLOCK_BH, L_UNLOCK_IF,
	L_BAD_UNLOCK,
	C_IRQ_OFF, C_IRQ_ON, C_SAVE, C_RESTORE, C_BH_OFF, C_BH_ON, C_RAISE,
	OP__N
};

static const char *const opname[OP__N] = {
	"lock", "down_read", "spin_lock_irq", "spin_lock_irqsave", "spin_lock_bh",
	"trylock", "down_read_trylock", "spin_trylock_irqsave",
	"unlock", "up_read", "spin_unlock_irq", "spin_unlock_irqrestore", "spin_unlock_bh",
	"unlock_if_got", "unlock_not_held",
	"local_irq_disable", "local_irq_enable", "local_irq_save", "local_irq_restore",
	"local_bh_disable", "local_bh_enable", "raise_irq",
};

struct op {
	uint8_t k, l;
};

struct prog {
	unsigned nt, ni;
	uint8_t type[NL];
	int8_t group[NL];             /* init site 0..2 (one class per site), -1: none */
	uint8_t irq_kind[NI];         /* WEFT_HARDIRQ, WEFT_SOFTIRQ */
	bool irq_raised[NI];
	unsigned n[NT + NI];
	struct op ops[NT + NI][MAXOPS];
};

static struct prog P;

/* ------------------------------------------------------------- the program */

struct world {
	spinlock_t sl[NL];
	struct weft_mutex mx[NL];
	struct weft_rw_semaphore rw[NL];
};

static void init_lock(struct world *W, unsigned i)
{
	/* three init sites per type: locks of one site are one class (a
	 * site is its file, function and text, so the texts differ) */
	spinlock_t *sa = &W->sl[i], *sb = sa, *sc = sa;
	struct weft_mutex *ma = &W->mx[i], *mb = ma, *mc = ma;
	struct weft_rw_semaphore *ra = &W->rw[i], *rb = ra, *rc = ra;

	switch (P.type[i] * 3 + (unsigned)P.group[i]) {
	case 0: spin_lock_init(sa); break;
	case 1: spin_lock_init(sb); break;
	case 2: spin_lock_init(sc); break;
	case 3: mutex_init(ma); break;
	case 4: mutex_init(mb); break;
	case 5: mutex_init(mc); break;
	case 6: init_rwsem(ra); break;
	case 7: init_rwsem(rb); break;
	case 8: init_rwsem(rc); break;
	}
}

static void ld_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	(void)v;
	(void)wl;
	for (unsigned i = 0; i < NL; i++)
		if (P.group[i] >= 0)
			init_lock(w, i);
}

/* per context: what it got from trylocks, the flags it saved */
static struct {
	bool got[NL];
	unsigned long got_flags[NL];
	unsigned long flags[8];
	unsigned nflags;
	unsigned long lock_flags[NL];
} C[NT + NI];

/* Lock l in its type's plain form (read: an rwsem's shared side), or release it. */
static void plain_lock(struct world *W, unsigned l, bool read, bool release)
{
	if (P.type[l] == T_SPIN)
		release ? spin_unlock(&W->sl[l]) : spin_lock(&W->sl[l]);
	else if (P.type[l] == T_MUTEX)
		release ? mutex_unlock(&W->mx[l]) : mutex_lock(&W->mx[l]);
	else if (read)
		release ? up_read(&W->rw[l]) : down_read(&W->rw[l]);
	else
		release ? up_write(&W->rw[l]) : down_write(&W->rw[l]);
}

static bool do_try(struct world *W, unsigned l, bool read)
{
	if (P.type[l] == T_SPIN)
		return spin_trylock(&W->sl[l]);
	if (P.type[l] == T_MUTEX)
		return mutex_trylock(&W->mx[l]);
	return read ? down_read_trylock(&W->rw[l]) : down_write_trylock(&W->rw[l]);
}

/* One lock form and its release: L_LOCK..L_LOCK_BH, in the order
 * L_UNLOCK..L_UNLOCK_BH releases them (enum opk keeps the two in step). */
static void lock_form(struct world *W, unsigned c, unsigned l, unsigned lock_k, bool release)
{
	spinlock_t *sl = &W->sl[l];

	if (lock_k == L_LOCK || lock_k == L_LOCK_R)
		plain_lock(W, l, lock_k == L_LOCK_R, release);
	else if (lock_k == L_LOCK_IRQ)
		release ? spin_unlock_irq(sl) : spin_lock_irq(sl);
	else if (lock_k == L_LOCK_BH)
		release ? spin_unlock_bh(sl) : spin_lock_bh(sl);
	else if (release)
		spin_unlock_irqrestore(sl, C[c].lock_flags[l]);
	else
		spin_lock_irqsave(sl, C[c].lock_flags[l]);
}

static int run_op(struct world *W, unsigned c, const struct op *o)
{
	unsigned l = o->l;
	int v = 0;

	switch (o->k) {
	case L_LOCK:
	case L_LOCK_R:
	case L_LOCK_IRQ:
	case L_LOCK_SAVE:
	case L_LOCK_BH:
		lock_form(W, c, l, o->k, false);
		break;
	case L_TRY:
	case L_TRY_R:
		v = C[c].got[l] = do_try(W, l, o->k == L_TRY_R);
		break;
	case L_TRY_SAVE:
		v = C[c].got[l] = spin_trylock_irqsave(&W->sl[l], C[c].got_flags[l]);
		break;
	case L_UNLOCK:
	case L_UNLOCK_R:
	case L_UNLOCK_IRQ:
	case L_UNLOCK_RESTORE:
	case L_UNLOCK_BH:
		lock_form(W, c, l, L_LOCK + (o->k - L_UNLOCK), true);
		break;
	case L_UNLOCK_IF:
		/* the release that matches the try at hand (the op before it
		 * names the form) */
		if (!C[c].got[l])
			return -1;
		C[c].got[l] = false;
		v = 1;
		for (unsigned i = 0; i < P.n[c]; i++) {
			const struct op *t = &P.ops[c][i];
			if (t == o)
				break;
			if (t->l == l && (t->k == L_TRY || t->k == L_TRY_R || t->k == L_TRY_SAVE))
				v = t->k == L_TRY ? 1 : t->k == L_TRY_R ? 2 : 3;
		}
		if (v == 3)
			spin_unlock_irqrestore(&W->sl[l], C[c].got_flags[l]);
		else
			plain_lock(W, l, v == 2, true);
		break;
	case L_BAD_UNLOCK:
		plain_lock(W, l, P.type[l] == T_RWSEM, true);
		break;
	case C_IRQ_OFF:
		local_irq_disable();
		break;
	case C_IRQ_ON:
		local_irq_enable();
		break;
	case C_SAVE:
		LS_IRQ_SAVE(C[c]);
		break;
	case C_RESTORE:
		LS_IRQ_RESTORE(C[c]);
		break;
	case C_BH_OFF:
		local_bh_disable();
		break;
	case C_BH_ON:
		local_bh_enable();
		break;
	case C_RAISE:
		WEFT_IRQ_RAISE(l);
		break;
	}
	return v;
}

LS_CONTEXT_RUNNERS(ld, run_op)

static struct weft_irq irqs[NI] = {
	{ "irq0", WEFT_HARDIRQ, 0, ld_irq, true },
	{ "irq1", WEFT_SOFTIRQ, 0, ld_irq, true },
};

static struct weft_scenario ldsc = {
	.name = "diff-lockdep", .summary = "differential: lockdep-lite", LS_ONE_PROGRAM,
	.nr_cpus = NT, .nr_threads = 2, .world_size = sizeof(struct world), .setup = ld_setup,
	.thread = ld_thread, .irqs = irqs,
};

/* ------------------------------------------------------------ the reference */

enum { U_IN_HARD, U_HARD_ON, U_IN_SOFT, U_SOFT_ON };
#define NC (3 * 3 + NL)  /* classes: one per (type, init site), one per uninitialised instance */

struct rheld {
	uint8_t l, cls;
};

struct rctx {
	bool active;          /* a thread, or a handler between its entry and exit */
	unsigned pc;
	bool attempted;       /* the current op's acquisition attempt was replayed */
	uint8_t irq_off, bh, in_irq;
	uint8_t flags[8];
	unsigned nflags;
	uint8_t lock_flags[NL], got_flags[NL];
	bool got[NL];
	uint8_t try_read[NL]; /* the try's form, for unlock_if */
	struct rheld held[16];
	unsigned nheld;
};

static struct {
	/* the graph: kept across the executions of a series */
	uint8_t used[NC];
	bool edge[NC][NC];
	/* this execution */
	struct rctx c[NT + NI];
	/* facts checked in this execution: each is checked at its first use
	 * in every execution, whether or not an earlier one added it */
	bool echecked[NC][NC];
	uint8_t uchecked[NC];
	enum weft_kind expect;   /* the report the reference says comes now */
	int expect_tid;
	bool irq_order, setup_classes;
	bool held_reads;         /* WEFT_CHECK_LOCKDEP_HELD_READS */
	bool cont;               /* warnings go on (continue_kinds) */
	uint64_t continued;      /* the warnings gone past */
} R;

/* A report: a warning in a run that goes on past warnings is counted and
 * the execution goes on (NONE); any other report ends it. */
static enum weft_kind note(enum weft_kind k)
{
	if (R.cont && (WEFT_WARNING_KINDS >> k & 1)) {
		R.continued |= 1ull << k;
		return WEFT_KIND_NONE;
	}
	return k;
}

static unsigned class_of(unsigned l)
{
	/* without WEFT_CHECK_LOCKDEP_SETUP_CLASSES a lock initialised in
	 * setup (all of them here) is a class of its own */
	return P.group[l] >= 0 && R.setup_classes ? P.type[l] * 3u + (unsigned)P.group[l]
						  : 9u + l;
}

static bool reach(unsigned from, unsigned to)
{
	if (from == to)
		return true;
	bool seen[NC] = { false };
	unsigned stack[NC], n = 0;

	seen[from] = true;
	stack[n++] = from;
	while (n) {
		unsigned x = stack[--n];
		if (x == to)
			return true;
		for (unsigned y = 0; y < NC; y++)
			if (R.edge[x][y] && !seen[y]) {
				seen[y] = true;
				stack[n++] = y;
			}
	}
	return false;
}

/* An IRQ-safe class (of interrupt kind `in`) that reaches `from` and a
 * different IRQ-unsafe one that `to` reaches: an order from safe to
 * unsafe through the fact being checked (the edge from -> to, or a usage
 * of from = to). */
static bool safe_to_unsafe(unsigned from, unsigned to, unsigned in)
{
	if (!R.irq_order)
		return false;
	for (unsigned s = 0; s < NC; s++)
		if ((R.used[s] >> in & 1) && reach(s, from))
			for (unsigned u = 0; u < NC; u++)
				if (u != s && (R.used[u] >> (in + 1) & 1) && reach(to, u))
					return true;
	return false;
}

/* One usage bit of class c, at its first use in this execution: the
 * report it makes, if any. */
static enum weft_kind use(unsigned c, unsigned u)
{
	if (R.uchecked[c] >> u & 1)
		return WEFT_KIND_NONE;
	R.uchecked[c] |= (uint8_t)(1u << u);
	R.used[c] |= (uint8_t)(1u << u);
	if (R.used[c] >> (u ^ 1u) & 1)
		return note(WEFT_KIND_IRQ_LOCK_INVERSION);   /* inconsistent usage */
	return safe_to_unsafe(c, c, u & ~1u) ? note(WEFT_KIND_IRQ_LOCK_INVERSION) : WEFT_KIND_NONE;
}

/* The acquisition attempt of lock l by context x: usage bits, then an
 * edge from every held class (not for a trylock); the first report. */
static enum weft_kind acquire(struct rctx *x, unsigned l, bool trylock)
{
	unsigned c = class_of(l);
	bool hard = x->in_irq == 1, soft = x->in_irq == 2;
	bool hard_on = !hard && !x->irq_off, soft_on = hard_on && !soft && !x->bh;
	enum weft_kind k;

	if ((hard && (k = use(c, U_IN_HARD))) || (hard_on && (k = use(c, U_HARD_ON))) ||
	    (soft && (k = use(c, U_IN_SOFT))) || (soft_on && (k = use(c, U_SOFT_ON))))
		return k;   /* (a warning gone past is NONE: the next bit is checked) */
	if (!trylock)
		for (unsigned i = 0; i < x->nheld; i++) {
			unsigned a = x->held[i].cls;
			if (a == c || (R.edge[a][c] && R.echecked[a][c]))
				continue;
			/* a cycle through the edge (new, or first used in this
			 * execution); the graph gains it if the run goes on */
			R.echecked[a][c] = true;
			bool inverted = reach(c, a);
			if (inverted && (k = note(WEFT_KIND_LOCK_ORDER)))
				return k;
			R.edge[a][c] = true;
			if (!inverted && (safe_to_unsafe(a, c, U_IN_HARD) || safe_to_unsafe(a, c, U_IN_SOFT)) &&
			    (k = note(WEFT_KIND_IRQ_LOCK_INVERSION)))
				return k;
		}
	if (x->nheld < 16)
		x->held[x->nheld++] = (struct rheld){ (uint8_t)l, (uint8_t)c };
	return WEFT_KIND_NONE;
}

/* Interrupts (or bottom halves) came back on: every lock the context still
 * holds is held with them on from now (the kernel's mark_held_locks()
 * from trace_hardirqs_on() and lockdep_softirqs_on()), each usage checked
 * as an acquisition's is; the first report. */
static enum weft_kind came_on(struct rctx *x)
{
	bool hard_on = x->in_irq != 1 && !x->irq_off, soft_on = hard_on && x->in_irq != 2 && !x->bh;
	enum weft_kind k;

	if (!R.held_reads)
		return WEFT_KIND_NONE;
	for (unsigned i = 0; i < x->nheld; i++) {
		unsigned c = x->held[i].cls;
		if ((hard_on && (k = use(c, U_HARD_ON))) || (soft_on && (k = use(c, U_SOFT_ON))))
			return k;
	}
	return WEFT_KIND_NONE;
}

static enum weft_kind release(struct rctx *x, unsigned l)
{
	for (unsigned i = x->nheld; i-- > 0;)
		if (x->held[i].l == l) {
			memmove(&x->held[i], &x->held[i + 1], (x->nheld - i - 1) * sizeof(x->held[0]));
			x->nheld--;
			return WEFT_KIND_NONE;
		}
	return WEFT_KIND_BAD_UNLOCK;
}

static bool is_acquire(const struct op *o, const struct rctx *x)
{
	(void)x;
	return o->k <= L_LOCK_BH;
}

/* The attempt part of op o (before any spin or sleep). */
static enum weft_kind op_attempt(struct rctx *x, const struct op *o)
{
	switch (o->k) {
	case L_LOCK_IRQ:
		x->irq_off = 1;
		break;
	case L_LOCK_SAVE:
		x->lock_flags[o->l] = x->irq_off;
		x->irq_off = 1;
		break;
	case L_LOCK_BH:
		x->bh++;
		break;
	}
	return acquire(x, o->l, false);
}

/* The rest of op o, which completed with result val: the report it makes,
 * if any. */
static enum weft_kind op_complete(struct rctx *x, const struct op *o, int val)
{
	enum weft_kind k = WEFT_KIND_NONE;

	switch (o->k) {
	case L_TRY:
	case L_TRY_R:
		x->got[o->l] = val;
		x->try_read[o->l] = o->k == L_TRY_R;
		if (val)
			k = acquire(x, o->l, true);
		break;
	case L_TRY_SAVE:
		x->got_flags[o->l] = x->irq_off;
		x->irq_off = 1;
		x->got[o->l] = val;
		x->try_read[o->l] = 2;
		if (val) {
			k = acquire(x, o->l, true);
		} else {
			x->irq_off = x->got_flags[o->l];
			if (!x->irq_off)
				k = came_on(x);
		}
		break;
	case L_UNLOCK:
	case L_UNLOCK_R:
	case L_BAD_UNLOCK:
		k = release(x, o->l);
		break;
	case L_UNLOCK_IRQ:
		k = release(x, o->l);
		x->irq_off = 0;
		if (!k)
			k = came_on(x);
		break;
	case L_UNLOCK_RESTORE:
		k = release(x, o->l);
		x->irq_off = x->lock_flags[o->l];
		if (!k && !x->irq_off)
			k = came_on(x);
		break;
	case L_UNLOCK_BH:
		k = release(x, o->l);
		x->bh--;
		if (!k && !x->bh)
			k = came_on(x);
		break;
	case L_UNLOCK_IF:
		if (!x->got[o->l])
			break;
		x->got[o->l] = false;
		k = release(x, o->l);
		if (x->try_read[o->l] == 2) {
			x->irq_off = x->got_flags[o->l];
			if (!k && !x->irq_off)
				k = came_on(x);
		}
		break;
	case C_IRQ_OFF:
		x->irq_off = 1;
		break;
	case C_IRQ_ON:
		x->irq_off = 0;
		k = came_on(x);
		break;
	case C_SAVE:
		x->flags[x->nflags++] = x->irq_off;
		x->irq_off = 1;
		break;
	case C_RESTORE:
		x->irq_off = x->flags[--x->nflags];
		if (!x->irq_off)
			k = came_on(x);
		break;
	case C_BH_OFF:
		x->bh++;
		break;
	case C_BH_ON:
		x->bh--;
		if (!x->bh)
			k = came_on(x);
		break;
	}
	return k;
}

static void expect_now(enum weft_kind k, int tid)
{
	if ((k = note(k)) == WEFT_KIND_NONE)
		return;
	if (R.expect == WEFT_KIND_NONE) {
		R.expect = k;
		R.expect_tid = tid;
	}
}

static void ref_event(const struct ls_ent *e)
{
	unsigned tid = e->tid;
	unsigned ci = tid < P.nt ? tid : NT + (tid - P.nt);

	if (!ls_ref_event_ok(tid, R.expect, R.expect_tid, P.nt + P.ni))
		return;
	struct rctx *x = &R.c[ci];
	if (e->kind == LS_ENTER) {
		memset(x, 0, sizeof(*x));
		x->active = true;
		x->in_irq = P.irq_kind[tid - P.nt] == WEFT_SOFTIRQ ? 2 : 1;
		x->irq_off = x->in_irq == 1;
		return;
	}
	if (!x->active) {
		ls_fail("context %u acts while the reference has it idle", tid);
		return;
	}
	if (e->kind == LS_EXIT) {
		if (x->nheld)
			expect_now(WEFT_KIND_LOCK_HELD_AT_EXIT, (int)tid);
		x->active = false;
		return;
	}
	if (x->pc >= P.n[ci]) {
		ls_fail("context %u acts past its last op", tid);
		return;
	}
	const struct op *o = &P.ops[ci][x->pc];
	if (is_acquire(o, x) && !x->attempted) {
		x->attempted = true;
		enum weft_kind k = op_attempt(x, o);
		if (k != WEFT_KIND_NONE) {
			ls_fail("T%u op %u (%s of lock %u): Weft goes on, the reference reports %s",
				tid, x->pc, opname[o->k], o->l, weft_kind_name(k));
			return;
		}
	}
	if (e->kind == LS_BLOCKED)
		return;
	if (e->op != x->pc) {
		ls_fail("T%u completes op %u, the reference expects op %u", tid, e->op, x->pc);
		return;
	}
	enum weft_kind k = op_complete(x, o, e->val);
	if (k != WEFT_KIND_NONE) {
		ls_fail("T%u op %u (%s of lock %u): Weft goes on, the reference reports %s", tid,
			x->pc, opname[o->k], o->l, weft_kind_name(k));
		return;
	}
	x->attempted = false;
	if (++x->pc == P.n[ci] && tid < P.nt && x->nheld)
		expect_now(WEFT_KIND_LOCK_HELD_AT_EXIT, (int)tid);
}

static const struct ls_ref ref = { ref_event, NULL };

/* The report context tid makes at its next op, by the reference. */
static enum weft_kind ref_next_report(unsigned tid)
{
	unsigned ci = tid < P.nt ? tid : NT + (tid - P.nt);
	struct rctx *x = &R.c[ci];

	if (!x->active || x->pc >= P.n[ci] || (tid >= P.nt && x->pc == 0 && !x->in_irq))
		return WEFT_KIND_NONE;
	const struct op *o = &P.ops[ci][x->pc];
	if (is_acquire(o, x))
		return x->attempted ? WEFT_KIND_NONE : op_attempt(x, o);
	/* a release, a masking op (interrupts back on mark the held locks)
	 * or a try, whose report means it got the lock (a failed
	 * spin_trylock_irqsave() restores a state its held locks were
	 * marked in already) */
	return op_complete(x, o, 1);
}

static void ref_begin(bool keep_graph, unsigned checks, bool cont)
{
	bool irq_order = (checks & WEFT_CHECK_LOCKDEP_IRQ_ORDER) != 0;

	if (!keep_graph) {
		memset(R.used, 0, sizeof(R.used));
		memset(R.edge, 0, sizeof(R.edge));
	}
	memset(R.c, 0, sizeof(R.c));
	memset(R.echecked, 0, sizeof(R.echecked));
	memset(R.uchecked, 0, sizeof(R.uchecked));
	R.cont = cont;
	R.continued = 0;
	for (unsigned t = 0; t < P.nt; t++)
		R.c[t].active = P.n[t] != 0;
	R.expect = WEFT_KIND_NONE;
	R.expect_tid = -1;
	R.irq_order = irq_order;
	R.setup_classes = (checks & WEFT_CHECK_LOCKDEP_SETUP_CLASSES) != 0;
	R.held_reads = (checks & WEFT_CHECK_LOCKDEP_HELD_READS) != 0;
}

/* ------------------------------------------------------------ generation */

struct gctx {
	unsigned c;             /* context index */
	bool handler, hard;
	bool held[NL];
	unsigned depth_spin;    /* spinlocks held: no sleeping lock inside */
	bool irq_off;           /* masked by a block around */
	unsigned bh;
};

static void put(unsigned c, unsigned k, unsigned l)
{
	if (P.n[c] < MAXOPS)
		P.ops[c][P.n[c]++] = (struct op){ (uint8_t)k, (uint8_t)l };
}

static bool room(unsigned c, unsigned need)
{
	return P.n[c] + need <= MAXOPS;
}

static int free_lock(struct gctx *g, bool sleeping_ok)
{
	for (int tries = 0; tries < 8; tries++) {
		unsigned l = ls_rnd(NL);
		if (g->held[l])
			continue;
		if (P.type[l] != T_SPIN && !sleeping_ok)
			continue;
		return (int)l;
	}
	return -1;
}

static void gen_block(struct gctx *g, unsigned depth);
static void gen_inner(struct gctx *g, unsigned depth);

/* Spinlock l taken in form lock_k (L_LOCK_IRQ, L_LOCK_SAVE or L_LOCK_BH)
 * around a nested body, which runs with what the form masks, and released
 * in the matching form (restoring the mask the body started from). */
static void gen_spin_form(struct gctx *g, unsigned l, unsigned depth, unsigned lock_k)
{
	bool bh = lock_k == L_LOCK_BH, was = g->irq_off;

	put(g->c, lock_k, l);
	g->depth_spin++;
	if (bh)
		g->bh++;
	else
		g->irq_off = true;
	gen_inner(g, depth);
	if (bh)
		g->bh--;
	else
		g->irq_off = was;
	g->depth_spin--;
	put(g->c, L_UNLOCK + (lock_k - L_LOCK), l);
}

static void gen_inner(struct gctx *g, unsigned depth)
{
	unsigned n = ls_rnd(3);

	for (unsigned i = 0; i < n && depth < 4; i++)
		gen_block(g, depth + 1);
}

static void gen_block(struct gctx *g, unsigned depth)
{
	unsigned c = g->c;
	bool sleeping_ok = !g->handler && !g->depth_spin && !g->irq_off && !g->bh;
	unsigned r = ls_rnd(100);

	if (!room(c, 4))
		return;
	if (r < 12 && !g->handler) {
		/* a masking block */
		unsigned m = ls_rnd(3);
		bool was = g->irq_off;
		put(c, m == 0 ? C_IRQ_OFF : m == 1 ? C_SAVE : C_BH_OFF, 0);
		if (m < 2)
			g->irq_off = true;
		else
			g->bh++;
		gen_inner(g, depth);
		if (m < 2)
			g->irq_off = was;
		else
			g->bh--;
		put(c, m == 0 ? C_IRQ_ON : m == 1 ? C_RESTORE : C_BH_ON, 0);
		return;
	}
	if (r < 15 && !g->handler && P.ni) {
		put(c, C_RAISE, ls_rnd(P.ni));
		return;
	}
	int l = free_lock(g, sleeping_ok);
	if (l < 0)
		return;
	g->held[l] = true;
	if (P.type[l] == T_SPIN) {
		unsigned f = ls_rnd(10);
		/* _irq forms only where interrupts are on (spin_unlock_irq
		 * turns them on); never local_irq_enable in a hard handler */
		if (f < 2 && !g->irq_off && !g->handler) {
			gen_spin_form(g, (unsigned)l, depth, L_LOCK_IRQ);
		} else if (f < 4) {
			gen_spin_form(g, (unsigned)l, depth, L_LOCK_SAVE);
		} else if (f < 5 && !(g->handler && g->hard)) {
			gen_spin_form(g, (unsigned)l, depth, L_LOCK_BH);
		} else if (f < 7) {
			put(c, ls_rnd(2) ? L_TRY : L_TRY_SAVE, (unsigned)l);
			g->depth_spin++;
			gen_inner(g, depth);
			g->depth_spin--;
			put(c, L_UNLOCK_IF, (unsigned)l);
		} else {
			put(c, L_LOCK, (unsigned)l);
			g->depth_spin++;
			unsigned at = P.n[c];
			gen_inner(g, depth);
			g->depth_spin--;
			if (ls_rnd(40) == 0 && depth == 0 && !g->handler) {
				/* forgets the unlock: held at exit (and from
				 * here on no sleeping lock: a spinlock is held) */
				g->depth_spin++;
				return;
			} else if (P.n[c] > at && P.ops[c][P.n[c] - 1].k == L_UNLOCK && ls_rnd(3) == 0) {
				/* released out of order: before the inner lock's unlock */
				struct op last = P.ops[c][P.n[c] - 1];
				P.ops[c][P.n[c] - 1] = (struct op){ L_UNLOCK, (uint8_t)l };
				put(c, last.k, last.l);
			} else {
				put(c, L_UNLOCK, (unsigned)l);
			}
		}
	} else {
		bool read = P.type[l] == T_RWSEM && ls_rnd(2);
		if (ls_rnd(4) == 0) {
			put(c, read ? L_TRY_R : L_TRY, (unsigned)l);
			gen_inner(g, depth);
			put(c, L_UNLOCK_IF, (unsigned)l);
		} else {
			put(c, read ? L_LOCK_R : L_LOCK, (unsigned)l);
			gen_inner(g, depth);
			put(c, read ? L_UNLOCK_R : L_UNLOCK, (unsigned)l);
		}
	}
	g->held[l] = false;
	if (ls_rnd(60) == 0 && !g->handler && room(c, 1)) {
		/* a release of a lock this context does not hold */
		int b = free_lock(g, true);
		if (b >= 0 && (P.type[b] == T_SPIN || (!g->depth_spin && !g->irq_off && !g->bh)))
			put(c, L_BAD_UNLOCK, (unsigned)b);
	}
}

static void gen(void)
{
	memset(&P, 0, sizeof(P));
	P.nt = 2 + ls_rnd(2);
	P.ni = ls_rnd(3);
	for (unsigned l = 0; l < NL; l++) {
		unsigned r = ls_rnd(10);
		P.type[l] = r < 6 ? T_SPIN : r < 8 ? T_MUTEX : T_RWSEM;
		P.group[l] = (int8_t)(ls_rnd(3) == 0 ? -1 : (int)ls_rnd(ls_rnd(2) ? 3 : 1));
	}
	for (unsigned i = 0; i < P.ni; i++) {
		P.irq_kind[i] = (uint8_t)(i == 1 || ls_rnd(3) == 0 ? WEFT_SOFTIRQ : WEFT_HARDIRQ);
		P.irq_raised[i] = ls_rnd(4) != 0;
		struct gctx g = { .c = NT + i, .handler = true, .hard = P.irq_kind[i] == WEFT_HARDIRQ,
				  .irq_off = P.irq_kind[i] == WEFT_HARDIRQ };
		unsigned nb = 1 + ls_rnd(2);
		for (unsigned b = 0; b < nb; b++)
			gen_block(&g, 2);
	}
	for (unsigned t = 0; t < P.nt; t++) {
		struct gctx g = { .c = t };
		unsigned nb = 1 + ls_rnd(3);
		for (unsigned b = 0; b < nb; b++)
			gen_block(&g, 0);
	}
}

static void print_prog(FILE *f)
{
	static const char *const tn[] = { "spin", "mutex", "rwsem" };

	fprintf(f, "   locks:");
	for (unsigned l = 0; l < NL; l++)
		fprintf(f, " L%u=%s/%s%d", l, tn[P.type[l]], P.group[l] < 0 ? "instance" : "site",
			P.group[l]);
	fprintf(f, "\n");
	for (unsigned c = 0; c < NT + NI; c++) {
		if ((c < NT && c >= P.nt) || (c >= NT && c - NT >= P.ni))
			continue;
		if (c < NT)
			fprintf(f, "     T%u:", c);
		else
			fprintf(f, "     T%u (%s irq%u%s):", P.nt + c - NT,
				P.irq_kind[c - NT] == WEFT_SOFTIRQ ? "soft" : "hard", c - NT,
				P.irq_raised[c - NT] ? ", raised" : "");
		for (unsigned i = 0; i < P.n[c]; i++)
			fprintf(f, " %s(L%u)", opname[P.ops[c][i].k], P.ops[c][i].l);
		fprintf(f, "\n");
	}
}

/* ------------------------------------------------------------ the checks */

static unsigned failures, nr_runs, nr_witness_checked, nr_went_past, verdicts[WEFT_KIND__COUNT];
static long cur_prog;

static void configure(void)
{
	ldsc.nr_threads = P.nt;
	ldsc.nr_irqs = P.ni;
	for (unsigned i = 0; i < NI; i++) {
		irqs[i].kind = P.irq_kind[i];
		irqs[i].raised = P.irq_raised[i];
	}
}

static bool is_lockdep(enum weft_kind k)
{
	return k == WEFT_KIND_LOCK_ORDER || k == WEFT_KIND_IRQ_LOCK_INVERSION ||
	       k == WEFT_KIND_BAD_UNLOCK || k == WEFT_KIND_LOCK_HELD_AT_EXIT;
}

/* One run in lock step; false on a disagreement. */
static bool run_one(enum weft_lock_model lock, enum ls_mode mode, uint64_t seed, bool persist,
		    bool keep_graph, unsigned checks, bool verbose, struct weft_exec_result *out)
{
	static struct ls_strategy s;
	/* WEFT_CHECK_CONTINUE_WARNINGS: a run that stops only at other kinds
	 * (weft run --kind deadlock) goes on past lockdep-lite's warnings */
	bool cont = (checks & WEFT_CHECK_CONTINUE_WARNINGS) != 0;
	struct weft_run_opts o = { .sc = &ldsc, .lock = lock, .checks = checks,
				   .lockdep_persist = persist, .record = persist,
				   .continue_kinds = cont ? WEFT_WARNING_KINDS : 0 };
	struct weft_exec_result r;
	char why[700];

	configure();
	ref_begin(persist && keep_graph, checks, cont);
	ls_run(&o, &ref, mode, seed, &s, &r);
	nr_runs++;
	verdicts[r.kind]++;
	nr_went_past += r.continued_kinds != 0;
	*out = r;
	snprintf(why, sizeof(why), "%s", ls_why);
	if (!why[0] && r.continued_kinds != R.continued && !(r.kind && R.expect == WEFT_KIND_NONE))
		snprintf(why, sizeof(why), "warnings gone past: Weft %#llx, the reference %#llx "
			 "(1 << kind)", (unsigned long long)r.continued_kinds,
			 (unsigned long long)R.continued);
	if (!why[0]) {
		int rt = r.report.here.tid;
		if (R.expect != WEFT_KIND_NONE) {
			ls_why_expected(why, sizeof(why), &r, R.expect, R.expect_tid);
		} else if (is_lockdep(r.kind)) {
			ls_why_next_op(why, sizeof(why), &r,
				       rt >= 0 && rt < (int)(P.nt + P.ni)
					       ? ref_next_report((unsigned)rt) : WEFT_KIND_NONE);
		} else if (r.kind == WEFT_KIND_NONE) {
			for (unsigned t = 0; t < P.nt && !why[0]; t++)
				if (R.c[t].pc < P.n[t])
					snprintf(why, sizeof(why), "clean, but T%u stopped at op %u", t,
						 R.c[t].pc);
		} else if (r.kind != WEFT_KIND_DEADLOCK &&
			   !(cont && r.kind == WEFT_KIND_LOST_WAKEUP)) {
			/* (past its warnings a run reaches the deadlocks they
			 * warned of: an interrupt spinning on a lock the context
			 * it interrupted holds. A mutex waiter then sleeps on a
			 * free mutex whose woken waiter cannot get its CPU, which
			 * the machine calls a lost wakeup) */
			snprintf(why, sizeof(why), "unexpected verdict %s (%s)", weft_kind_name(r.kind),
				 r.report.msg);
		}
	}
	if (verbose)
		fprintf(stderr, "  %s mode %d seed %llu%s: %s%s%s\n",
			lock == WEFT_LOCK_TICKET ? "ticket" : "tas", (int)mode,
			(unsigned long long)seed, persist ? " persist" : "", weft_kind_name(r.kind),
			why[0] ? ": " : "", why);
	if (!why[0])
		return true;
	CHECK(0, "program %ld: %s", cur_prog, why);
	ls_show_failure(&failures, print_prog, &s, "  lock %s, mode %d, seed %llu%s, checks %#x\n",
			lock == WEFT_LOCK_TICKET ? "ticket" : "tas", (int)mode,
			(unsigned long long)seed, persist ? ", graph kept across the series" : "",
			checks);
	return false;
}

/* A report that relied on facts of earlier executions reproduces from
 * its witness alone, with the same decisions. */
static void check_witness(const struct weft_exec_result *first, enum weft_lock_model lock,
			  unsigned checks)
{
	size_t nw, nd, nc, nwl;
	const struct weft_lockdep_fact *w = weft_lockdep_last_witness(&nw);
	static struct weft_lockdep_fact seed[WEFT_LOCKDEP_MAX_FACTS];
	static struct weft_decision_rec dec[LS_MAX_DEC];
	static uint32_t ch[64];
	static uint8_t wl[WEFT_INPUT_MAX];

	if (!nw)
		return;
	memcpy(seed, w, nw * sizeof(*w));
	const struct weft_decision_rec *d = weft_last_decisions(&nd);
	const uint32_t *c = weft_last_choices(&nc);
	const uint8_t *b = weft_last_workload(&nwl);
	if (nd > LS_MAX_DEC || nc > 64 || nwl > sizeof(wl))
		return;
	memcpy(dec, d, nd * sizeof(*d));
	memcpy(ch, c, nc * sizeof(*c));
	memcpy(wl, b, nwl);
	struct weft_replay_strategy rs;
	weft_replay_strategy_init(&rs, wl, nwl, dec, nd, ch, nc);
	struct weft_run_opts o = { .sc = &ldsc, .lock = lock, .checks = checks,
				   .lockdep_seed = seed, .nr_lockdep_seed = nw };
	struct weft_exec_result r;
	ls_log.n = ls_log.seen = 0;
	CHECK(weft_execute(&o, &weft_strategy_replay, &rs, &r) == 0, "replay");
	nr_witness_checked++;
	CHECK(!rs.desync && r.kind == first->kind, "program %ld: a report (%s) of a kept graph "
	      "does not reproduce from its %zu-fact witness: %s%s", cur_prog,
	      weft_kind_name(first->kind), nw, weft_kind_name(r.kind), rs.desync ? " (desync)" : "");
	weft_lockdep_reset();
}

static void run_prog(unsigned nr, uint64_t seed, bool verbose)
{
	struct weft_exec_result r;

	for (int lk = 0; lk < 2; lk++) {
		enum weft_lock_model lock = lk ? WEFT_LOCK_TICKET : WEFT_LOCK_TAS;
		/* single executions (a fresh graph each) */
		weft_lockdep_reset();
		if (!run_one(lock, LS_SERIAL, 0, false, false, WEFT_CHECKS_DEFAULT, verbose, &r))
			return;
		if (!run_one(lock, LS_SERIAL, 0, false, false, WEFT_CHECK_LOCKDEP, verbose, &r))
			return;
		for (unsigned i = 0; i < nr; i++)
			if (!run_one(lock, i & 1 ? LS_UNIFORM : LS_STICKY, seed * 1000 + i, false,
				     false, WEFT_CHECKS_DEFAULT, verbose, &r))
				return;
		/* a series keeping the graph, until its first report */
		weft_lockdep_reset();
		for (unsigned i = 0; i < nr; i++) {
			if (!run_one(lock, LS_UNIFORM, seed * 1000 + 500 + i, true, i > 0,
				     WEFT_CHECKS_DEFAULT, verbose, &r))
				return;
			if (r.kind != WEFT_KIND_NONE) {
				if (is_lockdep(r.kind))
					check_witness(&r, lock, WEFT_CHECKS_DEFAULT);
				break;
			}
		}
		/* a series that goes on past the warnings (weft run --kind
		 * deadlock): every execution checks each fact at its first use,
		 * so one that repeats an order an earlier one reported reports
		 * it again */
		weft_lockdep_reset();
		for (unsigned i = 0; i < nr; i++)
			if (!run_one(lock, LS_UNIFORM, seed * 1000 + 700 + i, true, i > 0,
				     WEFT_CHECKS_DEFAULT | WEFT_CHECK_CONTINUE_WARNINGS, verbose, &r))
				return;
		weft_lockdep_reset();
	}
}

/* An empty pinned program of nt threads whose locks are all uninitialised
 * (one class each) until the caller groups some. */
static void pinned_begin(unsigned nt)
{
	memset(&P, 0, sizeof(P));
	P.nt = nt;
	for (unsigned l = 0; l < NL; l++)
		P.group[l] = -1;
}

/* Pinned program number id: in lock step against the reference, then its
 * serial execution alone, whose verdict goes to *r (false: it did not run). */
static bool pinned_serial(int id, struct weft_exec_result *r)
{
	cur_prog = -id;
	run_prog(4, (unsigned)id, false);
	weft_lockdep_reset();
	configure();
	return run_one(WEFT_LOCK_TAS, LS_SERIAL, 0, false, false, WEFT_CHECKS_DEFAULT, false, r);
}

/* Programs pinned because a wrong lockdep-lite gave a wrong verdict on them. */
static void pinned(void)
{
	struct weft_exec_result r;

	/* A -> B, B -> C, C -> A in three threads: an inversion in the serial
	 * execution (a cycle of three classes) */
	pinned_begin(3);
	for (unsigned t = 0; t < 3; t++) {
		put(t, L_LOCK, t);
		put(t, L_LOCK, (t + 1) % 3);
		put(t, L_UNLOCK, (t + 1) % 3);
		put(t, L_UNLOCK, t);
	}
	CHECK(pinned_serial(1, &r) && r.kind == WEFT_KIND_LOCK_ORDER && r.report.here.tid == 2,
	      "a three-lock cycle: %s by T%d, want lock-order-inversion by T2",
	      weft_kind_name(r.kind), r.report.here.tid);
	/* the same cycle through a trylock: no edge into a trylocked class,
	 * so clean (a trylock cannot wait) */
	pinned_begin(3);
	for (unsigned t = 0; t < 3; t++) {
		put(t, L_LOCK, t);
		put(t, t == 2 ? L_TRY : L_LOCK, (t + 1) % 3);
		put(t, t == 2 ? L_UNLOCK_IF : L_UNLOCK, (t + 1) % 3);
		put(t, L_UNLOCK, t);
	}
	CHECK(pinned_serial(2, &r) && r.kind == WEFT_KIND_NONE,
	      "a cycle closed by a trylock: %s, want clean", weft_kind_name(r.kind));
	/* two spinlocks of one init site taken in both orders: one class,
	 * no edge, so no inversion (the deadlock detector's case) */
	pinned_begin(2);
	P.group[0] = P.group[1] = 0;
	put(0, L_LOCK, 0);
	put(0, L_LOCK, 1);
	put(0, L_UNLOCK, 1);
	put(0, L_UNLOCK, 0);
	put(1, L_LOCK, 1);
	put(1, L_LOCK, 0);
	put(1, L_UNLOCK, 0);
	put(1, L_UNLOCK, 1);
	CHECK(pinned_serial(3, &r) && r.kind == WEFT_KIND_NONE,
	      "two locks of one class in both orders: %s, want clean", weft_kind_name(r.kind));
}

int main(void)
{
	const struct ls_programs progs = { pinned, gen, print_prog, run_prog, &cur_prog };
	unsigned nprog = ls_large() ? 40000 : 2000;

	ls_run_programs(&progs, nprog, ls_large() ? 12 : 4);
	weft_lockdep_reset();
	printf("%u programs, %u runs in lock step (%s size), %u witnesses replayed: %u clean, %u "
	       "lock-order-inversion, %u irq-lock-inversion, %u bad-unlock, %u lock-held-at-exit, "
	       "%u deadlock, %u lost-wakeup; %u runs went on past warnings\n",
	       nprog, nr_runs, ls_large() ? "large" : "quick", nr_witness_checked,
	       verdicts[WEFT_KIND_NONE], verdicts[WEFT_KIND_LOCK_ORDER],
	       verdicts[WEFT_KIND_IRQ_LOCK_INVERSION], verdicts[WEFT_KIND_BAD_UNLOCK],
	       verdicts[WEFT_KIND_LOCK_HELD_AT_EXIT], verdicts[WEFT_KIND_DEADLOCK],
	       verdicts[WEFT_KIND_LOST_WAKEUP], nr_went_past);
	return check_done();
}
