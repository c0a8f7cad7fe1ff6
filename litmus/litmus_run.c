/*
 * litmus_run.c - a parsed litmus test as a Weft scenario: process Pn is
 * model thread n on fake CPU n, each shared variable a 16-byte slot of the
 * world (a value, or a spinlock), registers private to their thread; every
 * operation goes through the access funnel (weft_access, weft_fence, the
 * spinlock primitives) with a site naming the test's file, process and
 * primitive, so the memory model, the strategies and the trace treat a
 * litmus test as any model. The final state is read at quiescence, after
 * every buffered store became visible.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "litmus_ast.h"

struct lworld {
	uint64_t slot[WEFT_LITMUS_MAX_VARS][2];
};

/* The test being run (one at a time per process, as the machine). */
static const struct weft_litmus *T;
static struct weft_litmus_result *R;
static int64_t regs[WEFT_LITMUS_MAX_PROCS][WEFT_LITMUS_MAX_REGS];
static uint64_t filtered;
/* Load buffering is on (--memory lkmm): see load_buffering(). */
static bool lb_on;

static void lb_reset(void);

static uint64_t addr_of_var(void *world, unsigned v)
{
	return (uint64_t)(uintptr_t)&((struct lworld *)world)->slot[v][0];
}

/* The variable a value points to, or -1. */
static int var_of(const void *world, uint64_t a)
{
	uint64_t base = (uint64_t)(uintptr_t)world;

	if (a < base || a >= base + sizeof(struct lworld) || (a - base) % 16)
		return -1;
	return (int)((a - base) / 16);
}

static void setup(void *world, unsigned variant, const struct weft_workload *wl)
{
	struct lworld *W = world;

	(void)variant;
	(void)wl;
	lb_reset();
	for (unsigned v = 0; v < T->nr_vars; v++)
		W->slot[v][0] = T->init_addr[v] ? addr_of_var(world, (unsigned)T->init_addr[v] - 1)
						: (uint64_t)T->init[v];
	for (unsigned p = 0; p < T->nr_procs; p++)
		for (unsigned r = 0; r < WEFT_LITMUS_MAX_REGS; r++)
			regs[p][r] = T->reg_init_addr[p][r]
					     ? (int64_t)addr_of_var(world, (unsigned)T->reg_init_addr[p][r] - 1)
					     : T->reg_init[p][r];
}

/* A pointer the test dereferences must name a variable: anything else is
 * the test's bug, reported (never a wild access of the host). */
static void *checked(void *world, int64_t a, const struct lnode *n)
{
	if (var_of(world, (uint64_t)a) < 0) {
		weft_report(WEFT_KIND_BUG_ON, NULL, n->site,
			    "%s:%u: the address %#llx is not a variable of the test", T->file,
			    n->line, (unsigned long long)a);
		return NULL;
	}
	return (void *)(uintptr_t)a;
}

static int64_t eval(void *world, unsigned tid, uint32_t k);

int64_t weft_litmus_binop(int op, int64_t a, int64_t b)
{
	switch (op) {
	case '|' * 256 + '|': return a || b;
	case '&' * 256 + '&': return a && b;
	case '|': return a | b;
	case '^': return a ^ b;
	case '&': return a & b;
	case '=' * 256 + '=': return a == b;
	case '!' * 256 + '=': return a != b;
	case '<' * 256 + '=': return a <= b;
	case '>' * 256 + '=': return a >= b;
	case '<': return a < b;
	case '>': return a > b;
	case '+': return (int64_t)((uint64_t)a + (uint64_t)b);
	case '-': return (int64_t)((uint64_t)a - (uint64_t)b);
	case '*': return (int64_t)((uint64_t)a * (uint64_t)b);
	/* INT64_MIN / -1 wraps (the host's idiv would trap on it); x / 0 and
	 * x % 0 never get here (a constant zero is a parse error, a register
	 * that holds 0 eval()'s report), 0 if they did */
	case '/': return !b ? 0 : b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
	case '%': return !b || b == -1 ? 0 : a % b;
	}
	return 0;
}

static int64_t rmw(void *world, unsigned tid, const struct lnode *n)
{
	void *p = checked(world, eval(world, tid, n->a), n);
	int64_t b = n->b ? eval(world, tid, n->b) : 0, c = n->c ? eval(world, tid, n->c) : 0;
	uint64_t old;

	if (!p)
		return 0;
	switch (n->op) {
	case 0: old = weft_access(p, 8, WEFT_A_ADD, (uint64_t)b, 0, n->site); return (int64_t)old + b;
	case 1: old = weft_access(p, 8, WEFT_A_ADD, (uint64_t)-b, 0, n->site); return (int64_t)old - b;
	case 2: old = weft_access(p, 8, WEFT_A_ADD, 1, 0, n->site); return (int64_t)old + 1;
	case 3: old = weft_access(p, 8, WEFT_A_ADD, (uint64_t)-1, 0, n->site); return (int64_t)old - 1;
	case 4: return (int64_t)weft_access(p, 8, WEFT_A_ADD, (uint64_t)b, 0, n->site);
	case 5: return (int64_t)weft_access(p, 8, WEFT_A_ADD, 1, 0, n->site);
	case 6: return (int64_t)weft_access(p, 8, WEFT_A_ADD_UNLESS, (uint64_t)b, (uint64_t)c, n->site) != c;
	case 7: return weft_access(p, 8, WEFT_A_ADD_UNLESS, 1, 0, n->site) != 0;
	case 8: return (int64_t)weft_access(p, 8, WEFT_A_XCHG, (uint64_t)b, 0, n->site);
	case 9: return (int64_t)weft_access(p, 8, WEFT_A_CMPXCHG, (uint64_t)b, (uint64_t)c, n->site);
	}
	return 0;
}

static int64_t eval(void *world, unsigned tid, uint32_t k)
{
	const struct lnode *n = &T->n[k];
	void *p;

	switch (n->kind) {
	case L_NUM: return n->num;
	case L_REG: return regs[tid][n->a];
	case L_VAR: return (int64_t)addr_of_var(world, n->a);
	case L_DEREF:
	case L_LOAD:
		p = checked(world, eval(world, tid, n->a), n);
		return p ? (int64_t)weft_access(p, 8, WEFT_A_LOAD, 0, 0, n->site) : 0;
	case L_RMW: return rmw(world, tid, n);
	case L_BIN: {
		/* && and || short-circuit, as C */
		int64_t a = eval(world, tid, n->a);
		if (n->op == '&' * 256 + '&' && !a)
			return 0;
		if (n->op == '|' * 256 + '|' && a)
			return 1;
		int64_t b = eval(world, tid, n->b);
		if (!b && (n->op == '/' || n->op == '%')) {
			/* no value: the test's bug, as a dereference of what
			 * is no variable */
			weft_report(WEFT_KIND_BUG_ON, NULL, NULL, "%s:%u: %s by zero (P%u)", T->file,
				    n->line, n->op == '/' ? "division" : "modulo", tid);
			return 0;
		}
		return weft_litmus_binop(n->op, a, b);
	}
	case L_UN: {
		int64_t a = eval(world, tid, n->a);
		return n->op == '!' ? !a : n->op == '~' ? ~a : (int64_t)(0 - (uint64_t)a);
	}
	case L_TRYLOCK:
		p = checked(world, eval(world, tid, n->a), n);
		if (!p)
			return 0;
		return n->op ? weft_spin_is_locked(p) : weft_spin_trylock(p, n->site);
	}
	return 0;
}

/* ------------------------------------------------------ load buffering
 *
 * Under lkmm a store may become visible before an earlier load of its
 * thread when nothing orders the two (the LKMM's ppo from a load to a
 * store is only rwdep, ctrl, a fence, an acquire load, a release store,
 * po-unlock-lock-po, and coherence for one location): load buffering (LB).
 * Compiled C cannot do this on the fake CPUs (its loads are satisfied when
 * they execute), but the runner has the whole program, so it executes such
 * a store early: before statement k runs, the strategy may pick one of the
 * candidate stores after it in the same statement list (a weak choice,
 * weft_weak_choice), which then runs at once and is skipped where it
 * stands.
 *
 * The statements a store passes (its window: k up to the store) are each
 * a register assignment, an expression statement, a store that is neither
 * a release nor rcu_assign_pointer(), or smp_rmb(), whose loads are
 * READ_ONCE(), rcu_dereference(), atomic_read() or plain, at addresses
 * known now; the window holds at least one load. The window ends at
 * anything else: an acquire, a read-modify-write, a lock operation, RCU,
 * any other fence, and an if (a control dependency: a store is never
 * moved into, out of or across an if). A candidate is a store of the
 * same kinds whose address and value read no memory and no register the
 * window assigns (no address or data dependency), to a variable no
 * statement of its window accesses (coherence). Everything else about the
 * store (its buffer, its delay) is the memory model's, as for any store.
 * Every reordering made here is one the LKMM allows; it may allow more
 * (a store after an if whose condition it does not depend on, a store
 * passing smp_wmb() with no store before it): stronger, never weaker.
 */
#define LB_MAX_CANDIDATES 8

static uint8_t hoisted[WEFT_LITMUS_MAX_PROCS][WEFT_LITMUS_MAX_NODES / 8];

static bool any_hoisted;   /* a bit of hoisted[] is set */

static void lb_reset(void)
{
	if (any_hoisted)
		memset(hoisted, 0, sizeof(hoisted));
	any_hoisted = false;
}

static bool is_hoisted(unsigned tid, uint32_t k)
{
	return hoisted[tid][k / 8] >> (k % 8) & 1;
}

struct lb_window {
	uint32_t regs_written;  /* registers the window assigns */
	uint32_t vars;          /* variables it accesses */
	bool loads;             /* it reads memory */
};

/* The registers expression k reads, or -1 if it reads memory or has an
 * effect (a load, a read-modify-write, a lock test). */
static int64_t pure_regs(uint32_t k)
{
	const struct lnode *n = &T->n[k];
	int64_t a, b;

	switch (n->kind) {
	case L_NUM:
	case L_VAR:
		return 0;
	case L_REG:
		return (int64_t)1 << n->a;
	case L_BIN:
		a = pure_regs(n->a);
		b = pure_regs(n->b);
		return a < 0 || b < 0 ? -1 : a | b;
	case L_UN:
		return pure_regs(n->a);
	}
	return -1;
}

/* The variable address expression k names now, or -1 if it reads memory,
 * reads a register the window assigns, or names no variable. */
static int known_var(void *world, unsigned tid, uint32_t k, const struct lb_window *w)
{
	int64_t r = pure_regs(k);

	if (r < 0 || (r & w->regs_written))
		return -1;
	return var_of(world, (uint64_t)eval(world, tid, k));
}

/* Add expression k to the window: false if a store may not pass it. */
static bool lb_pass_expr(void *world, unsigned tid, uint32_t k, struct lb_window *w)
{
	const struct lnode *n = &T->n[k];
	int v;

	switch (n->kind) {
	case L_NUM:
	case L_VAR:
	case L_REG:
		return true;
	case L_BIN:
		return lb_pass_expr(world, tid, n->a, w) && lb_pass_expr(world, tid, n->b, w);
	case L_UN:
		return lb_pass_expr(world, tid, n->a, w);
	case L_DEREF:
	case L_LOAD:
		if (n->kind == L_LOAD && n->op == LD_ACQUIRE)
			return false;
		v = known_var(world, tid, n->a, w);
		if (v < 0)
			return false;
		w->vars |= 1u << v;
		w->loads = true;
		return true;
	}
	return false;   /* a read-modify-write, a lock test */
}

static bool relaxed_store(const struct lnode *n)
{
	return n->kind == L_STORE && (n->op == ST_PLAIN || n->op == ST_ONCE || n->op == ST_ATOMIC);
}

/* Add statement k to the window: false if a store may not pass it. */
static bool lb_pass(void *world, unsigned tid, uint32_t k, struct lb_window *w)
{
	const struct lnode *n = &T->n[k];
	int v;

	switch (n->kind) {
	case L_SETREG:
		if (!lb_pass_expr(world, tid, n->b, w))
			return false;
		w->regs_written |= 1u << n->a;
		return true;
	case L_EXPR:
		return lb_pass_expr(world, tid, n->a, w);
	case L_STORE:
		if (!relaxed_store(n) || !lb_pass_expr(world, tid, n->b, w))
			return false;
		v = known_var(world, tid, n->a, w);
		if (v < 0)
			return false;
		w->vars |= 1u << v;
		return true;
	case L_FENCE:
		return n->op == WEFT_FENCE_RMB;
	}
	return false;
}

/* The stores after statement k (in its list) that may run before it. */
static unsigned lb_candidates(void *world, unsigned tid, uint32_t k, uint32_t *out)
{
	struct lb_window w = { 0, 0, false };
	unsigned nr = 0;

	for (; k && nr < LB_MAX_CANDIDATES; k = T->n[k].next) {
		const struct lnode *n = &T->n[k];
		if (is_hoisted(tid, k))
			continue;
		if (w.loads && relaxed_store(n)) {
			int64_t r = pure_regs(n->b);
			int v = known_var(world, tid, n->a, &w);
			if (r >= 0 && !(r & w.regs_written) && v >= 0 && !(w.vars >> v & 1))
				out[nr++] = k;
		}
		if (!lb_pass(world, tid, k, &w))
			break;
	}
	return nr;
}

static void store_stmt(void *world, unsigned tid, const struct lnode *n)
{
	void *p = checked(world, eval(world, tid, n->a), n);
	int64_t v = eval(world, tid, n->b);

	if (p)
		weft_access(p, 8, WEFT_A_STORE, (uint64_t)v, 0, n->site);
}

/* Before statement k: run the stores the strategy moves before it. */
static void load_buffering(void *world, unsigned tid, uint32_t k)
{
	uint32_t cand[LB_MAX_CANDIDATES];
	unsigned nr;

	while ((nr = lb_candidates(world, tid, k, cand)) > 0) {
		uint32_t code = weft_weak_choice(WEFT_MEM_LKMM, nr + 1);
		if (!code)
			return;
		uint32_t j = cand[code - 1];
		hoisted[tid][j / 8] |= (uint8_t)(1u << (j % 8));
		any_hoisted = true;
		store_stmt(world, tid, &T->n[j]);
	}
}

static void exec(void *world, unsigned tid, uint32_t k)
{
	for (; k; k = T->n[k].next) {
		const struct lnode *n = &T->n[k];
		void *p;
		if (lb_on) {
			if (is_hoisted(tid, k))
				continue;
			load_buffering(world, tid, k);
		}
		switch (n->kind) {
		case L_SETREG:
			regs[tid][n->a] = eval(world, tid, n->b);
			break;
		case L_STORE:
			store_stmt(world, tid, n);
			break;
		case L_FENCE:
			weft_fence((unsigned)n->op, n->site);
			break;
		case L_LOCK:
			p = checked(world, eval(world, tid, n->a), n);
			if (p && n->op)
				weft_spin_unlock(p, n->site);
			else if (p)
				weft_spin_lock(p, n->site);
			break;
		case L_RCU:
			/* the machine's RCU (core/src/rcu.c): a grace period waits
			 * for every reader inside its read-side section */
			if (n->op == 0)
				weft_rcu_read_lock(n->site);
			else if (n->op == 1)
				weft_rcu_read_unlock(n->site);
			else
				weft_synchronize_rcu(n->site);
			break;
		case L_IF:
			if (eval(world, tid, n->a))
				exec(world, tid, n->b);
			else if (n->c)
				exec(world, tid, n->c);
			break;
		case L_BLOCK:
			exec(world, tid, n->a);
			break;
		default:   /* an expression statement (atomic_inc(v);) */
			eval(world, tid, n->kind == L_EXPR ? n->a : k);
			break;
		}
	}
}

static void thread(void *world, unsigned tid)
{
	exec(world, tid, T->procs[tid].body);
}

static int64_t loc_value(const void *world, const struct lloc *l)
{
	if (l->proc >= 0)
		return regs[l->proc][l->idx];
	return (int64_t)((const struct lworld *)world)->slot[l->idx][0];
}

static bool holds(const void *world, uint32_t k)
{
	const struct lnode *n = &T->n[k];

	switch (n->kind) {
	case C_TRUE: return true;
	case C_NOT: return !holds(world, n->a);
	case C_AND: return holds(world, n->a) && holds(world, n->b);
	case C_OR: return holds(world, n->a) || holds(world, n->b);
	case C_EQ: {
		int64_t v = loc_value(world, &T->locs[n->a]);
		return n->b ? var_of(world, (uint64_t)v) == (int)n->num : v == n->num;
	}
	}
	return false;
}

static void quiesce(void *world)
{
	char text[160];
	size_t k = 0;

	if (T->filter && !holds(world, T->filter)) {
		filtered++;
		return;
	}
	for (unsigned i = 0; i < T->nr_locs && k < sizeof(text); i++) {
		const struct lloc *l = &T->locs[i];
		int64_t v = loc_value(world, l);
		int var = var_of(world, (uint64_t)v);
		char val[32];
		if (var >= 0)
			snprintf(val, sizeof(val), "%s", T->vars[var]);
		else
			snprintf(val, sizeof(val), "%lld", (long long)v);
		int w = l->proc >= 0
				? snprintf(text + k, sizeof(text) - k, "%d:%s=%s; ", l->proc,
					   T->procs[l->proc].regs[l->idx], val)
				: snprintf(text + k, sizeof(text) - k, "%s=%s; ", T->vars[l->idx], val);
		k += w > 0 ? (size_t)w : 0;
	}
	if (k && k < sizeof(text))
		text[k - 1] = 0;   /* no trailing blank */
	bool sat = holds(world, T->cond);
	sat ? R->positive++ : R->negative++;
	for (unsigned i = 0; i < R->nr_states; i++)
		if (!strcmp(R->states[i].text, text)) {
			R->states[i].count++;
			return;
		}
	if (R->nr_states == WEFT_LITMUS_MAX_STATES) {
		R->states_capped = true;
		return;
	}
	struct weft_litmus_state *s = &R->states[R->nr_states++];
	snprintf(s->text, sizeof(s->text), "%s", text);
	s->count = 1;
	s->satisfies = sat;
}

static const char *const opnames[] = { "run" };
static const struct weft_variant variants[] = {
	{ "test", NULL, false, "the litmus test", "its file", WEFT_KIND_NONE, 0, 0 },
};

static int cmp_states(const void *a, const void *b)
{
	return strcmp(((const struct weft_litmus_state *)a)->text,
		      ((const struct weft_litmus_state *)b)->text);
}

int weft_litmus_run(const struct weft_litmus *t, const struct weft_litmus_run_opts *o,
		    struct weft_litmus_result *r, char *why, size_t whyn)
{
	struct weft_scenario sc = {
		.name = "litmus", .summary = t->name, .source = t->file, .nr_cpus = t->nr_procs,
		.nr_threads = t->nr_procs, .world_size = sizeof(struct lworld), .nr_opcodes = 1,
		.opnames = opnames, .max_ops = 1, .decision_hint = 64, .setup = setup,
		.thread = thread, .quiesce = quiesce, .variants = variants, .nr_variants = 1,
	};
	union {
		struct weft_random r;
		struct weft_pct p;
		struct weft_dfs d;
	} *st;
	const struct weft_strategy_ops *ops;
	struct timespec t0, t1;

	memset(r, 0, sizeof(*r));
	snprintf(r->quantifier, sizeof(r->quantifier), "%s", t->quant);
	if (t->unsupported[0]) {
		snprintf(why, whyn, "not expressible in this build: %s", t->unsupported);
		return WEFT_EINVAL;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(why, whyn, "out of memory");
		return WEFT_ENOMEM;
	}
	if (!strcmp(o->strategy, "random")) {
		weft_random_init(&st->r, &sc, o->seed, (const uint8_t *)"", 1);
		ops = &weft_strategy_random;
	} else if (!strcmp(o->strategy, "pct")) {
		weft_pct_init(&st->p, &sc, o->seed, o->depth ? o->depth : 2, (const uint8_t *)"", 1);
		ops = &weft_strategy_pct;
	} else if (!strcmp(o->strategy, "dfs")) {
		weft_dfs_init(&st->d, &sc, o->preemption_bound, (const uint8_t *)"", 1);
		st->d.delay_bound = o->delay_bound;
		ops = &weft_strategy_dfs;
	} else {
		free(st);
		snprintf(why, whyn, "unknown strategy '%s' (random, pct, dfs)", o->strategy);
		return WEFT_EINVAL;
	}
	struct weft_run_opts ro = { .sc = &sc, .memory = (uint8_t)o->memory };
	struct weft_exec_result er;
	bool dfs = ops == &weft_strategy_dfs;
	uint64_t cap = o->executions ? o->executions : dfs ? UINT64_MAX : 10000;

	T = t;
	R = r;
	filtered = 0;
	lb_on = o->memory == WEFT_MEM_LKMM;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (r->executions < cap && weft_execute(&ro, ops, st, &er) == 0) {
		r->executions++;
		if (er.kind != WEFT_KIND_NONE && !r->report) {
			r->report = er.kind;
			snprintf(r->report_msg, sizeof(r->report_msg), "%s", er.report.msg);
		}
		if (o->stop_after_witness && r->positive >= o->stop_after_witness)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	r->complete = dfs && st->d.complete;
	r->filtered = filtered;
	r->exists = strcmp(t->quant, "forall") != 0;
	r->observed = !r->positive ? WEFT_LITMUS_NEVER
		      : !r->negative ? WEFT_LITMUS_ALWAYS : WEFT_LITMUS_SOMETIMES;
	qsort(r->states, r->nr_states, sizeof(r->states[0]), cmp_states);
	T = NULL;
	R = NULL;
	free(st);
	return 0;
}
