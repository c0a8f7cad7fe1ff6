/*
 * test_diff_ctx.c - the CPU contexts (<weft/context.h>) against a
 * reference model of preempt_count and of who may run where.
 *
 * Random programs: 2-3 threads on 1-2 fake CPUs (threads sharing a CPU)
 * and 0-2 interrupt handlers (hard or soft, bound to a CPU or free to hit
 * any, pending from the start or raised by a thread, raised again while
 * they run); every context nests preempt_disable/enable, local_irq_disable/
 * enable, every local_irq_save/restore pair, local_bh_disable/enable and
 * the spinlock forms (spin_lock, _irq, _irqsave, _bh), reads the context
 * predicates (in_hardirq(), in_softirq(), in_serving_softirq(),
 * in_atomic(), irqs_disabled(), preempt_count()) and calls might_sleep().
 * Some handlers leak or fix what they change (preempt_count, BHs, the
 * interrupt flag, a spinlock); some threads enable what is not disabled.
 *
 * The reference keeps each context's counts and, per CPU, the stack of
 * non-preemptible contexts on it (the innermost may run; a pending
 * interrupt is delivered only where the innermost context has interrupts,
 * and for a softirq bottom halves, on and is not a hard handler), written
 * from context.h and include/linux/preempt.h. In lock step (lockstep.h):
 * at every decision the threads Weft lets run must be the reference's, a
 * handler must enter only where the reference can deliver it, every
 * predicate must read as the reference says, and the run must end with
 * the report the reference gives (a handler that returns with
 * preempt_count changed is a bug-on at its return, not anything later).
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

#define NT 3
#define NI 2
#define NX (NT + NI)     /* contexts */
#define MAXOPS 18

enum opk {
	K_PREEMPT_OFF, K_PREEMPT_ON, K_IRQ_OFF, K_IRQ_ON, K_SAVE, K_RESTORE, K_RESTORE_ON,
	K_BH_OFF, K_BH_ON,
	K_LOCK, K_UNLOCK, K_LOCK_IRQ, K_UNLOCK_IRQ, K_LOCK_SAVE, K_UNLOCK_RESTORE, K_LOCK_BH,
	K_UNLOCK_BH,
	K_READ, K_NOP, K_RAISE, K_MIGHT_SLEEP,
	OP__N
};

static const char *const opname[OP__N] = {
	"preempt_disable", "preempt_enable", "local_irq_disable", "local_irq_enable",
	"local_irq_save", "local_irq_restore", "local_irq_restore(0)",
	"local_bh_disable", "local_bh_enable",
	"spin_lock", "spin_unlock", "spin_lock_irq", "spin_unlock_irq", "spin_lock_irqsave",
	"spin_unlock_irqrestore", "spin_lock_bh", "spin_unlock_bh",
	"read_context", "write", "raise_irq", "might_sleep",
};

struct op {
	uint8_t k, a;    /* a: a lock of the context (0, 1) or an irq */
};

struct prog {
	unsigned nt, ni, ncpu;
	uint8_t cpu_of[NT];
	uint8_t irq_kind[NI];
	uint32_t irq_cpus[NI];
	bool irq_raised[NI];
	unsigned n[NX];
	struct op ops[NX][MAXOPS];
};

static struct prog P;

/* ------------------------------------------------------------- the program */

struct world {
	spinlock_t sl[NX][2];
	int x[NX];
};

static struct {
	unsigned long flags[8];
	unsigned nflags;
	unsigned long lock_flags[2];
} C[NX];

static int read_context(void)
{
	return in_hardirq() | in_softirq() << 1 | in_serving_softirq() << 2 | in_atomic() << 3 |
	       irqs_disabled() << 4 | (int)preempt_count() << 5;
}

static int run_op(struct world *W, unsigned c, const struct op *o)
{
	spinlock_t *l = &W->sl[c][o->a & 1];

	switch (o->k) {
	case K_PREEMPT_OFF: preempt_disable(); break;
	case K_PREEMPT_ON: preempt_enable(); break;
	case K_IRQ_OFF: local_irq_disable(); break;
	case K_IRQ_ON: local_irq_enable(); break;
	case K_SAVE: LS_IRQ_SAVE(C[c]); break;
	case K_RESTORE: LS_IRQ_RESTORE(C[c]); break;
	case K_RESTORE_ON: {
		unsigned long on = 0;
		local_irq_restore(on);
		break;
	}
	case K_BH_OFF: local_bh_disable(); break;
	case K_BH_ON: local_bh_enable(); break;
	case K_LOCK: spin_lock(l); break;
	case K_UNLOCK: spin_unlock(l); break;
	case K_LOCK_IRQ: spin_lock_irq(l); break;
	case K_UNLOCK_IRQ: spin_unlock_irq(l); break;
	case K_LOCK_SAVE: spin_lock_irqsave(l, C[c].lock_flags[o->a & 1]); break;
	case K_UNLOCK_RESTORE: spin_unlock_irqrestore(l, C[c].lock_flags[o->a & 1]); break;
	case K_LOCK_BH: spin_lock_bh(l); break;
	case K_UNLOCK_BH: spin_unlock_bh(l); break;
	case K_READ: return read_context();
	case K_NOP: WRITE_ONCE(W->x[c], W->x[c] + 1); break;
	case K_RAISE: WEFT_IRQ_RAISE(o->a); break;
	case K_MIGHT_SLEEP: might_sleep(); break;
	}
	return 0;
}

LS_CONTEXT_RUNNERS(cx, run_op)

static struct weft_irq irqs[NI] = {
	{ "irq0", WEFT_HARDIRQ, 0, cx_irq, true },
	{ "irq1", WEFT_SOFTIRQ, 0, cx_irq, true },
};

static struct weft_scenario cxsc = {
	.name = "diff-ctx", .summary = "differential: contexts", LS_ONE_PROGRAM, .nr_cpus = 2,
	.nr_threads = 2, .cpu_of = P.cpu_of, .world_size = sizeof(struct world),
	.thread = cx_thread, .irqs = irqs,
};

/* ------------------------------------------------------------ the reference */

enum { X_IDLE, X_PENDING, X_RUN, X_DONE };

struct rctx {
	int st;
	unsigned pc, cpu;
	unsigned preempt, bh;
	uint8_t irq_off, in_irq;
	bool again;               /* raised while it ran */
	bool pre_done;            /* its next op's masking, done before the op's
				     scheduling point, is done */
	uint8_t flags[8];
	unsigned nflags;
	uint8_t lock_flags[2];
};

static struct {
	struct rctx x[NX];
	int stack[NT][NX];        /* per CPU: non-preemptible contexts, innermost last */
	unsigned depth[NT];
	enum weft_kind expect;
	int expect_tid;
} R;

static unsigned tid_of(unsigned ci)
{
	return ci < NT ? ci : P.nt + (ci - NT);
}

static unsigned ci_of(unsigned tid)
{
	return tid < P.nt ? tid : NT + (tid - P.nt);
}

static bool atomic_x(const struct rctx *x)
{
	return x->preempt || x->irq_off || x->bh || x->in_irq;
}

static void stack_del(unsigned cpu, unsigned ci)
{
	for (unsigned i = 0; i < R.depth[cpu]; i++)
		if (R.stack[cpu][i] == (int)ci) {
			memmove(&R.stack[cpu][i], &R.stack[cpu][i + 1],
				(R.depth[cpu] - i - 1) * sizeof(int));
			R.depth[cpu]--;
			return;
		}
}

static bool on_stack(unsigned cpu, unsigned ci)
{
	for (unsigned i = 0; i < R.depth[cpu]; i++)
		if (R.stack[cpu][i] == (int)ci)
			return true;
	return false;
}

/* A context's counts changed: it holds its CPU while it is atomic. */
static void update(unsigned ci)
{
	struct rctx *x = &R.x[ci];
	bool hold = atomic_x(x) && x->st == X_RUN;

	if (hold && !on_stack(x->cpu, ci))
		R.stack[x->cpu][R.depth[x->cpu]++] = (int)ci;
	else if (!hold)
		stack_del(x->cpu, ci);
}

static int top(unsigned cpu)
{
	return R.depth[cpu] ? R.stack[cpu][R.depth[cpu] - 1] : -1;
}

/* The CPUs pending handler k may hit now. */
static uint32_t deliverable(unsigned k)
{
	uint32_t all = (1u << P.ncpu) - 1, mask = P.irq_cpus[k] ? P.irq_cpus[k] & all : all, ok = 0;

	for (unsigned c = 0; c < P.ncpu; c++) {
		if (!(mask >> c & 1))
			continue;
		int t = top(c);
		if (t >= 0) {
			const struct rctx *x = &R.x[t];
			if (x->irq_off || x->in_irq == 1)
				continue;
			if (P.irq_kind[k] == WEFT_SOFTIRQ && (x->bh || x->in_irq))
				continue;
		}
		ok |= 1u << c;
	}
	return ok;
}

static uint32_t ref_eligible(void)
{
	uint32_t m = 0;

	for (unsigned ci = 0; ci < NX; ci++) {
		if ((ci < NT && ci >= P.nt) || (ci >= NT && ci - NT >= P.ni))
			continue;
		const struct rctx *x = &R.x[ci];
		unsigned tid = tid_of(ci);
		bool ok;
		if (ci < NT)
			ok = x->st == X_RUN && (top(x->cpu) < 0 || top(x->cpu) == (int)ci);
		else if (x->st == X_PENDING)
			ok = deliverable(ci - NT) != 0;
		else
			ok = x->st == X_RUN && top(x->cpu) == (int)ci;
		m |= (uint32_t)ok << tid;
	}
	return m;
}

static void expect_now(enum weft_kind k, unsigned tid)
{
	if (R.expect == WEFT_KIND_NONE) {
		R.expect = k;
		R.expect_tid = (int)tid;
	}
}

static void raise_irq(unsigned k)
{
	struct rctx *h = &R.x[NT + k];

	if (h->st == X_IDLE)
		h->st = X_PENDING;
	else if (h->st == X_RUN)
		h->again = true;
}

/* The report op o makes at once in context x, if any. */
static enum weft_kind op_report(const struct rctx *x, const struct op *o)
{
	switch (o->k) {
	case K_PREEMPT_ON:
		return x->preempt ? WEFT_KIND_NONE : WEFT_KIND_BUG_ON;
	case K_BH_ON:
		return x->bh ? WEFT_KIND_NONE : WEFT_KIND_BUG_ON;
	case K_IRQ_ON:
		return x->in_irq == 1 ? WEFT_KIND_WARN_ON : WEFT_KIND_NONE;
	case K_MIGHT_SLEEP:
		return atomic_x(x) ? WEFT_KIND_SLEEP_IN_ATOMIC : WEFT_KIND_NONE;
	default:
		return WEFT_KIND_NONE;
	}
}

static int ref_read(const struct rctx *x)
{
	unsigned pc = x->preempt | (x->bh + (x->in_irq == 2)) << 8 | (unsigned)(x->in_irq == 1) << 16;

	return (x->in_irq == 1) | (x->in_irq == 2 || x->bh) << 1 | (x->in_irq == 2) << 2 |
	       atomic_x(x) << 3 | (x->irq_off || x->in_irq == 1) << 4 | (int)pc << 5;
}

/* What an op does before its scheduling point: spin_lock_irq*() and
 * spin_lock_bh() mask first and then take the lock (whose scheduling
 * point comes between), so a thread paused there has interrupts (BHs) off
 * already. */
static void apply_pre(struct rctx *x, const struct op *o)
{
	unsigned a = o->a & 1;

	switch (o->k) {
	case K_LOCK_IRQ:
		x->irq_off = 1;
		break;
	case K_LOCK_SAVE:
		x->lock_flags[a] = x->irq_off;
		x->irq_off = 1;
		break;
	case K_LOCK_BH:
		x->bh++;
		break;
	}
	x->pre_done = true;
}

/* The rest of op o. */
static void apply(struct rctx *x, const struct op *o)
{
	unsigned a = o->a & 1;

	if (!x->pre_done)
		apply_pre(x, o);
	x->pre_done = false;
	switch (o->k) {
	case K_PREEMPT_OFF: x->preempt++; break;
	case K_PREEMPT_ON: x->preempt--; break;
	case K_IRQ_OFF: x->irq_off = 1; break;
	case K_IRQ_ON: x->irq_off = 0; break;
	case K_SAVE:
		x->flags[x->nflags++] = x->irq_off;
		x->irq_off = 1;
		break;
	case K_RESTORE: x->irq_off = x->flags[--x->nflags]; break;
	case K_RESTORE_ON: x->irq_off = 0; break;
	case K_BH_OFF: x->bh++; break;
	case K_BH_ON: x->bh--; break;
	case K_LOCK:
	case K_LOCK_IRQ:
	case K_LOCK_SAVE:
	case K_LOCK_BH:
		x->preempt++;
		break;
	case K_UNLOCK: x->preempt--; break;
	case K_UNLOCK_IRQ:
		x->preempt--;
		x->irq_off = 0;
		break;
	case K_UNLOCK_RESTORE:
		x->preempt--;
		x->irq_off = x->lock_flags[a];
		break;
	case K_UNLOCK_BH:
		x->preempt--;
		x->bh--;
		break;
	case K_RAISE: raise_irq(o->a); break;
	}
}

static void ref_event(const struct ls_ent *e)
{
	unsigned tid = e->tid;

	if (!ls_ref_event_ok(tid, R.expect, R.expect_tid, P.nt + P.ni))
		return;
	unsigned ci = ci_of(tid);
	struct rctx *x = &R.x[ci];
	if (e->kind == LS_BLOCKED) {
		ls_fail("T%u blocks: nothing here may", tid);
		return;
	}
	if (e->kind == LS_ENTER) {
		unsigned k = ci - NT;
		uint32_t d = x->st == X_PENDING ? deliverable(k) : 0;
		if (!d) {
			ls_fail("irq%u enters where the reference cannot deliver it (%s)", k,
				x->st == X_PENDING ? "no CPU can take it" : "it is not pending");
			return;
		}
		unsigned cpu = (unsigned)__builtin_ctz(d);
		unsigned st = x->st;
		memset(x, 0, sizeof(*x));
		(void)st;
		x->st = X_RUN;
		x->cpu = cpu;
		x->in_irq = P.irq_kind[k] == WEFT_SOFTIRQ ? 2 : 1;
		x->irq_off = x->in_irq == 1;
		update(ci);
		return;
	}
	if (x->st != X_RUN || (ci < NT ? top(x->cpu) >= 0 && top(x->cpu) != (int)ci
				       : top(x->cpu) != (int)ci)) {
		ls_fail("T%u acts while the reference has it %s", tid,
			x->st != X_RUN ? "not running" : "off its CPU");
		return;
	}
	if (e->kind == LS_EXIT) {
		unsigned k = ci - NT;
		bool hard = P.irq_kind[k] == WEFT_HARDIRQ;
		if (x->preempt || x->bh || (hard && x->irq_off != 1) || (!hard && x->irq_off)) {
			expect_now(WEFT_KIND_BUG_ON, tid);
			return;
		}
		stack_del(x->cpu, ci);
		x->st = x->again ? X_PENDING : X_IDLE;
		x->again = false;
		x->in_irq = 0;
		x->irq_off = 0;
		x->pc = 0;
		return;
	}
	if (x->pc >= P.n[ci] || e->op != x->pc) {
		ls_fail("T%u completes op %u, the reference expects op %u", tid, e->op, x->pc);
		return;
	}
	const struct op *o = &P.ops[ci][x->pc];
	if (!x->pre_done)
		apply_pre(x, o);   /* a context's first op: reached as it starts */
	enum weft_kind k = op_report(x, o);
	if (k != WEFT_KIND_NONE) {
		ls_fail("T%u op %u (%s): Weft goes on, the reference reports %s", tid, x->pc,
			opname[o->k], weft_kind_name(k));
		return;
	}
	int want = o->k == K_READ ? ref_read(x) : 0;
	if (e->val != want)
		ls_fail("T%u op %u (%s) reads %#x in Weft, %#x in the reference", tid, x->pc,
			opname[o->k], e->val, want);
	apply(x, o);
	update(ci);
	if (++x->pc == P.n[ci]) {
		if (ci < NT) {
			x->st = X_DONE;
			stack_del(x->cpu, ci);   /* an ended thread holds nothing */
		}
	} else {
		/* on to the next op's scheduling point, masking on the way */
		apply_pre(x, &P.ops[ci][x->pc]);
		update(ci);
	}
}

static const struct ls_ref ref = { ref_event, ref_eligible };

static void ref_reset(void)
{
	memset(&R, 0, sizeof(R));
	R.expect_tid = -1;
	for (unsigned t = 0; t < P.nt; t++) {
		R.x[t].st = P.n[t] ? X_RUN : X_DONE;
		R.x[t].cpu = P.cpu_of[t];
	}
	for (unsigned k = 0; k < P.ni; k++)
		R.x[NT + k].st = P.irq_raised[k] ? X_PENDING : X_IDLE;
}

/* ------------------------------------------------------------ generation */

struct gx {
	unsigned c;
	bool handler, hard;
	bool irq_off;
	unsigned bh, depth;
	bool held[2];
};

static void put(unsigned c, unsigned k, unsigned a)
{
	if (P.n[c] < MAXOPS)
		P.ops[c][P.n[c]++] = (struct op){ (uint8_t)k, (uint8_t)a };
}

static void gen_block(struct gx *g);

static void gen_inner(struct gx *g)
{
	unsigned n = ls_rnd(3);

	g->depth++;
	for (unsigned i = 0; i < n && g->depth < 4; i++)
		gen_block(g);
	g->depth--;
}

/* off, a block generated with interrupts off, then on (which gives back
 * the state before off: plain disable is only generated where they were
 * on). */
static void gen_irqs_off(struct gx *g, unsigned off, unsigned on)
{
	bool was = g->irq_off;

	put(g->c, off, 0);
	g->irq_off = true;
	gen_inner(g);
	g->irq_off = was;
	put(g->c, on, 0);
}

static void gen_block(struct gx *g)
{
	unsigned c = g->c, r = ls_rnd(100);

	if (P.n[c] + 4 > MAXOPS)
		return;
	if (r < 15) {
		put(c, K_READ, 0);
	} else if (r < 22) {
		put(c, K_NOP, 0);
	} else if (r < 26 && !g->handler && P.ni) {
		put(c, K_RAISE, ls_rnd(P.ni));
	} else if (r < 29) {
		if (ls_rnd(3) == 0)
			put(c, K_MIGHT_SLEEP, 0);   /* a report in any atomic context */
	} else if (r < 40) {
		put(c, K_PREEMPT_OFF, 0);
		gen_inner(g);
		put(c, K_PREEMPT_ON, 0);
	} else if (r < 50) {
		/* plain disable/enable only where interrupts are on (enable
		 * turns them on), never in a hard handler */
		if (g->irq_off || g->handler)
			return;
		gen_irqs_off(g, K_IRQ_OFF, K_IRQ_ON);
	} else if (r < 60) {
		gen_irqs_off(g, K_SAVE, K_RESTORE);
	} else if (r < 68) {
		if (g->handler && g->hard)
			return;
		put(c, K_BH_OFF, 0);
		g->bh++;
		gen_inner(g);
		g->bh--;
		put(c, K_BH_ON, 0);
	} else {
		unsigned a = ls_rnd(2);
		if (g->held[a])
			return;
		g->held[a] = true;
		unsigned f = ls_rnd(4);
		if (f == 1 && (g->irq_off || g->handler))
			f = 2;
		if (f == 3 && g->handler && g->hard)
			f = 0;
		static const uint8_t lk[4] = { K_LOCK, K_LOCK_IRQ, K_LOCK_SAVE, K_LOCK_BH };
		static const uint8_t ul[4] = { K_UNLOCK, K_UNLOCK_IRQ, K_UNLOCK_RESTORE, K_UNLOCK_BH };
		bool was = g->irq_off;
		put(c, lk[f], a);
		if (f == 1 || f == 2)
			g->irq_off = true;
		if (f == 3)
			g->bh++;
		gen_inner(g);
		if (f == 3)
			g->bh--;
		g->irq_off = f == 1 ? false : was;
		put(c, ul[f], a);
		g->held[a] = false;
	}
}

/* A misuse, now and then: what the context checks are for. */
static void gen_misuse(struct gx *g)
{
	unsigned c = g->c, r = ls_rnd(6);

	if (g->handler) {
		static const uint8_t leak[6] = { K_PREEMPT_OFF, K_BH_OFF, K_LOCK, K_IRQ_OFF,
						 K_IRQ_ON, K_RESTORE_ON };
		unsigned k = leak[r];
		if (k == K_BH_OFF && g->hard)
			k = K_PREEMPT_OFF;
		if (k == K_IRQ_OFF && g->hard)
			k = K_RESTORE_ON;
		put(c, k, 1);
	} else {
		put(c, r < 3 ? K_PREEMPT_ON : K_BH_ON, 0);   /* an enable of what is on */
	}
}

static void gen(void)
{
	memset(&P, 0, sizeof(P));
	P.ncpu = 1 + ls_rnd(2);
	P.nt = 2 + ls_rnd(2);
	P.ni = ls_rnd(3);
	for (unsigned t = 0; t < P.nt; t++)
		P.cpu_of[t] = (uint8_t)ls_rnd(P.ncpu);
	for (unsigned k = 0; k < P.ni; k++) {
		P.irq_kind[k] = (uint8_t)(ls_rnd(2) ? WEFT_SOFTIRQ : WEFT_HARDIRQ);
		P.irq_cpus[k] = ls_rnd(2) ? 1u << ls_rnd(P.ncpu) : 0;
		P.irq_raised[k] = ls_rnd(3) != 0;
		struct gx g = { .c = NT + k, .handler = true, .hard = P.irq_kind[k] == WEFT_HARDIRQ,
				.irq_off = P.irq_kind[k] == WEFT_HARDIRQ };
		unsigned nb = 1 + ls_rnd(3);
		for (unsigned b = 0; b < nb; b++)
			gen_block(&g);
		if (ls_rnd(8) == 0)
			gen_misuse(&g);
	}
	for (unsigned t = 0; t < P.nt; t++) {
		struct gx g = { .c = t };
		unsigned nb = 1 + ls_rnd(4);
		for (unsigned b = 0; b < nb; b++)
			gen_block(&g);
		if (ls_rnd(20) == 0)
			gen_misuse(&g);
		if (!P.n[t])
			put(t, K_NOP, 0);
	}
}

static void print_prog(FILE *f)
{
	fprintf(f, "   %u CPUs\n", P.ncpu);
	for (unsigned ci = 0; ci < NX; ci++) {
		if ((ci < NT && ci >= P.nt) || (ci >= NT && ci - NT >= P.ni))
			continue;
		if (ci < NT)
			fprintf(f, "     T%u (CPU%u):", ci, P.cpu_of[ci]);
		else
			fprintf(f, "     T%u (%s irq%u, CPUs %#x%s):", tid_of(ci),
				P.irq_kind[ci - NT] == WEFT_SOFTIRQ ? "soft" : "hard", ci - NT,
				P.irq_cpus[ci - NT], P.irq_raised[ci - NT] ? ", raised" : "");
		for (unsigned i = 0; i < P.n[ci]; i++)
			fprintf(f, " %s(%u)", opname[P.ops[ci][i].k], P.ops[ci][i].a);
		fprintf(f, "\n");
	}
}

/* ------------------------------------------------------------ the checks */

static unsigned failures, nr_runs, verdicts[WEFT_KIND__COUNT];
static long cur_prog;

static bool run_one(enum ls_mode mode, uint64_t seed, bool verbose)
{
	static struct ls_strategy s;
	struct weft_run_opts o = { .sc = &cxsc, .lock = WEFT_LOCK_TAS };
	struct weft_exec_result r;
	char why[600];

	cxsc.nr_threads = P.nt;
	cxsc.nr_cpus = P.ncpu;
	cxsc.nr_irqs = P.ni;
	for (unsigned k = 0; k < NI; k++) {
		irqs[k].kind = P.irq_kind[k];
		irqs[k].cpus = P.irq_cpus[k];
		irqs[k].raised = P.irq_raised[k];
	}
	ref_reset();
	ls_run(&o, &ref, mode, seed, &s, &r);
	nr_runs++;
	verdicts[r.kind]++;
	snprintf(why, sizeof(why), "%s", ls_why);
	if (!why[0]) {
		int rt = r.report.here.tid;
		if (R.expect != WEFT_KIND_NONE) {
			ls_why_expected(why, sizeof(why), &r, R.expect, R.expect_tid);
		} else if (r.kind != WEFT_KIND_NONE) {
			enum weft_kind want = WEFT_KIND_NONE;
			if (rt >= 0 && rt < (int)(P.nt + P.ni)) {
				const struct rctx *x = &R.x[ci_of((unsigned)rt)];
				unsigned ci = ci_of((unsigned)rt);
				if (x->st == X_RUN && x->pc < P.n[ci])
					want = op_report(x, &P.ops[ci][x->pc]);
			}
			ls_why_next_op(why, sizeof(why), &r, want);
		} else {
			for (unsigned ci = 0; ci < NX && !why[0]; ci++) {
				if ((ci < NT && ci >= P.nt) || (ci >= NT && ci - NT >= P.ni))
					continue;
				if (ci < NT ? R.x[ci].st != X_DONE : R.x[ci].st != X_IDLE)
					snprintf(why, sizeof(why), "clean, but T%u is %s in the reference",
						 tid_of(ci), R.x[ci].st == X_PENDING ? "pending" : "running");
			}
		}
	}
	if (verbose)
		fprintf(stderr, "  mode %d seed %llu: %s%s%s\n", (int)mode, (unsigned long long)seed,
			weft_kind_name(r.kind), why[0] ? ": " : "", why);
	if (!why[0])
		return true;
	CHECK(0, "program %ld: %s", cur_prog, why);
	ls_show_failure(&failures, print_prog, &s, "  mode %d, seed %llu\n", (int)mode,
			(unsigned long long)seed);
	return false;
}

static void run_prog(unsigned nr, uint64_t seed, bool verbose)
{
	if (!run_one(LS_SERIAL, 0, verbose))
		return;
	for (unsigned i = 0; i < nr; i++)
		if (!run_one(i & 1 ? LS_UNIFORM : LS_STICKY, seed * 1000 + i, verbose))
			return;
}

/* Programs pinned because a wrong context machinery gave a wrong verdict. */
static void pinned(void)
{
	/* a hard handler that leaks a preempt_disable(): bug-on at its
	 * return (not a deadlock of the thread it interrupted) */
	memset(&P, 0, sizeof(P));
	P.ncpu = 1;
	P.nt = 2;
	P.ni = 1;
	P.irq_kind[0] = WEFT_HARDIRQ;
	P.irq_cpus[0] = 1;
	P.irq_raised[0] = true;
	put(0, K_NOP, 0);
	put(0, K_NOP, 0);
	put(1, K_NOP, 0);
	put(NT, K_PREEMPT_OFF, 0);
	cur_prog = -1;
	run_prog(16, 1, false);
	/* the same with a local_bh_disable() in a softirq, a spinlock kept,
	 * and a hard handler that turns interrupts on by restore */
	static const uint8_t leaks[][2] = { { WEFT_SOFTIRQ, K_BH_OFF }, { WEFT_SOFTIRQ, K_LOCK },
					    { WEFT_HARDIRQ, K_RESTORE_ON },
					    { WEFT_SOFTIRQ, K_IRQ_OFF } };
	for (unsigned i = 0; i < sizeof(leaks) / sizeof(leaks[0]); i++) {
		P.irq_kind[0] = leaks[i][0];
		P.ops[NT][0].k = leaks[i][1];
		cur_prog = -2 - (long)i;
		run_prog(16, 2 + i, false);
	}
}

int main(void)
{
	const struct ls_programs progs = { pinned, gen, print_prog, run_prog, &cur_prog };
	unsigned nprog = ls_large() ? 60000 : 3000;

	static const enum weft_kind kinds[] = { WEFT_KIND_BUG_ON, WEFT_KIND_WARN_ON,
						WEFT_KIND_SLEEP_IN_ATOMIC };
	static const char *const labels[] = { "bug-on", "warn-on", "sleep-in-atomic" };

	ls_run_programs(&progs, nprog, ls_large() ? 16 : 6);
	ls_print_verdicts(nprog, nr_runs, verdicts, kinds, labels, 3);
	return check_done();
}
