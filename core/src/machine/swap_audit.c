/*
 * swap_audit.c - the commutation audit (WEFT_SWAP_AUDIT=N): a debugging
 * mode that checks the dependence records (weft_sched_step(), sched.h)
 * partial-order reduction trusts by the reductions' own soundness
 * condition, "independent means commuting" (Godefroid 1996; Flanagan and
 * Godefroid, POPL 2005): two adjacent transitions of different threads
 * whose records are independent give the same execution in either order.
 *
 * Why: the dependence audit (dep_audit.c) compares memory around each
 * step, so it sees a change with no write record; a READ with no record
 * changes nothing and is invisible to it (two wrong verdicts were state
 * queries with no READ record). Here an execution E that ended without a
 * report is recorded: the thread of each step (seen at its point, through
 * weft_point_hook), each decision (the step after which it was made, the
 * runnable set, the thread chosen), each thread's choice values, every
 * record. A transition is a segment of E: one thread's steps from a step
 * a decision gave it up to the next decision or the next step of another
 * thread. For up to N pairs of adjacent segments A (T1) then B (T2), T2
 * runnable at the decision before A and the records of A and B
 * independent, E is run again with B first, then A, then E's decisions.
 *
 * The invariant: each step of the swapped region runs the thread the
 * order says (T1 runnable when B is done); every decision outside the
 * region offers E's runnable set and E makes as many after it; each
 * thread makes E's records (sites, kinds, ranges, in E's order) and draws
 * as many choice values; the execution ends as E did (the report kind);
 * and the families' core area with their audit_state digests is E's right
 * after the pair, the whole world and core area ([0, M.loc_limit), as
 * dep_audit.c reads it) at the end. A difference is printed on stderr
 * ("not commuting") naming the two segments: one of them read or wrote
 * what its records do not say, and a reduction may have left the order
 * that shows a bug unexplored and certified the model.
 *
 * Independence is the reductions' rule (dpor_clocks.c's classify() and
 * conflicts(), restated here since the machine does not see the search):
 * two records conflict when their ranges overlap and one is write-class
 * (WRITE, ACQUIRE, RELEASE, a READ at a trylock's site); ranges at or past
 * M.loc_limit (per-CPU slots) are thread-local; an END conflicts with a
 * JOIN only. Only records of kind NONE, READ, WRITE, ACQUIRE, RELEASE and
 * END take part: a segment with a BLOCKED, SPAWN, JOIN or YIELD record,
 * or a record of another thread (a waker's, code a thread runs before its
 * first point), is not paired (the reductions order those by rules of
 * their own: a waker, a spawn, a yield).
 *
 * A difference only at the end and only in bytes of the model's world
 * that no record of E or of the re-run names (the model's own plain C: a
 * model defect, not a family's record; dep_audit.c's "the model's world")
 * is counted apart ("[the model's world]").
 *
 * What it cannot see: a swap that changes nothing in this execution (a
 * read whose value does not matter here: the pair commutes on this
 * state), pairs past the first N of an execution (those taken are spread
 * over it), executions under a weak memory model, with interrupts, with
 * migration, or ending with a report (all skipped), two threads of one
 * CPU (contexts active: dependent, as DPOR takes them), a wrong record the
 * other segment is dependent on anyway, non-adjacent reorderings, and a
 * transition with no point of its own (a thread that runs from its start
 * to its end without one, as is-locked:other's T1, whose spin_is_locked()
 * has no point: two decisions at one step, which are not paired).
 *
 * Off unless WEFT_SWAP_AUDIT is set when the machine starts: then
 * weft_execute() runs each execution through weft_swap_audit_execute();
 * otherwise weft_execute() tests weft_swap_audit_pairs once per execution
 * and nothing runs per step (bench/instr-per-step). The re-runs go
 * through the machine like any execution, after E's strategy has seen
 * E's end, with their own answers. The first is E as it was: an E that
 * does not repeat itself (a model nondeterministic on purpose,
 * tests/verdicts) has no pairs compared ("not reproducible" in the
 * summary). The last is E again, so what the machine keeps of the last
 * execution (its events, decisions) is E's. Lockdep's facts across
 * executions (lockdep_persist) do see the re-runs.
 *
 * Length (~900 lines): recording E, the scripted re-run and its checks,
 * and the pairing share one state and one notion of a segment, and read
 * best together.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

unsigned weft_swap_audit_pairs;

#define SWAP_FINDINGS 256
#define NO_TID 0xff

struct srec {
	const struct weft_site *site;
	uint32_t step, loc, size, arg;
	uint8_t tid, kind;
};

/* a decision: at the point after step x, the thread chosen to run step x + 1 */
struct sdec {
	uint64_t runnable;
	uint32_t x;
	uint8_t chosen;
};

struct schoice {
	uint32_t v;
	uint8_t tid;
};

/* what E or a re-run did: its decisions; per step number (from 1) the
 * thread whose point began it (NO_TID: none seen), the runnable set of a
 * decision at the point after it (0: none), the families' audit_state
 * digest at its point (the core area's bytes: snap_core()) */
struct srun {
	struct sdec *dec;
	uint32_t ndec, capdec;
	uint8_t *tid;
	uint64_t *mask, *digest;
	const struct weft_site **site;   /* of the step's point */
	uint32_t *woken;        /* the waker's step, if woken since its last step */
	uint32_t nstep, captid, capmask, capdigest, capsite, capwoken;
	struct srec *rec;
	uint32_t nrec, caprec;
	struct schoice *ch;
	uint32_t nch, capch;
	uint8_t *end_world;
	uint32_t end_len;
	uint64_t end_digest;
	int kind;               /* the report kind it ended with */
};

static struct {
	const struct weft_strategy_ops *inner;
	void *inner_st;
	void (*chained)(void);  /* the dependence audit's point hook, or NULL */
	bool recording, rerun;
	uint8_t wl[WEFT_INPUT_MAX];
	int wl_len;
	int memory;
	struct srun e, re;
	uint32_t last_step;     /* the step whose point was seen last */
	uint32_t prev_of[256];  /* E: per thread, its step seen last */
	/* the re-run of segments A = [a, b) of T1 and B = [b, c) of T2 in the
	 * order B, A (a == 0: E itself); the re-run's decisions at the point
	 * after step prev_x so far */
	uint32_t a, b, c;
	uint8_t t1, t2;
	uint32_t prev_x, occ;
	uint32_t late;          /* its decisions at or after step c - 1 */
	char why[240];          /* its first difference, "" none yet */
	uint32_t seen[256];     /* per thread: records of it compared so far */
	uint32_t taken[256];    /* per thread: choice values served */
	uint32_t *by_tid;       /* E's records by thread: start[t]... */
	uint32_t start[257];
	uint32_t *chs_by_tid;
	uint32_t chstart[257];
	/* per process */
	uint64_t pairs, differ, world_only, skipped, irreproducible;
	struct { const struct weft_site *a, *b; } found[SWAP_FINDINGS];
	unsigned nr_found;
} S;

static uint64_t states_digest(void)
{
	struct weft_audit_state st[256];
	unsigned n = weft_audit_gather_states(st, 256);
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned i = 0; i < n; i++)
		h = weft_audit_mix(weft_audit_mix(h, st[i].loc), st[i].digest);
	return h;
}

/* The core area's snapshots of E, one per step from 1 (up to a budget:
 * steps before snap_steps have one). */
#define SWAP_SNAP_BUDGET (256u << 20)
static uint8_t *snaps;
static size_t snaps_cap;
static uint32_t snap_steps;

static uint32_t core_len(void)
{
	return M.loc_limit > M.core_off ? M.loc_limit - M.core_off : 0;
}

static void snap_core(uint32_t s)
{
	size_t len = core_len(), need = ((size_t)s + 1) * len;
	if (s < snap_steps || need > SWAP_SNAP_BUDGET)
		return;
	if (need > snaps_cap) {
		size_t c = snaps_cap ? snaps_cap : (size_t)64 * len + 64;
		while (c < need)
			c *= 2;
		uint8_t *n = realloc(snaps, c);
		if (!n)
			return;
		snaps = n;
		snaps_cap = c;
	}
	/* a step no point began (a join's, a wake-up's) is never paired */
	for (; snap_steps <= s; snap_steps++)
		memcpy(snaps + (size_t)snap_steps * len, M.world + M.core_off, len);
}

/* Does the word at off, E's value in e and the re-run's in r, hold the
 * number of a step the swap moved, moved with it (a stamp for reports:
 * rcu_core.h's lock_step)? A's steps [a, b) run as
 * [a + (c - b), c), B's [b, c) as [a, a + (c - b)). */
static bool moved_stamp(const uint8_t *e, const uint8_t *r, uint32_t off, uint32_t len)
{
	uint32_t w = off & ~3u, ve, vr;
	if (!S.a || w + 4 > len)
		return false;
	memcpy(&ve, e + w, 4);
	memcpy(&vr, r + w, 4);
	if (ve >= S.a && ve < S.b)
		return vr == ve + (S.c - S.b);
	if (ve >= S.b && ve < S.c)
		return vr == ve - (S.b - S.a);
	return false;
}

static void note_end(struct srun *x, const struct weft_exec_result *r)
{
	x->kind = r->kind;
	x->end_digest = states_digest();
	uint32_t cap = x->end_len;
	if (weft_grow((void **)&x->end_world, &cap, M.loc_limit, 1))
		memcpy(x->end_world, M.world, M.loc_limit);
	x->end_len = x->end_world && cap >= M.loc_limit ? M.loc_limit : 0;
}

static void reset_run(struct srun *x)
{
	x->ndec = x->nstep = x->nrec = x->nch = 0;
	x->kind = -1;
}

/* step s of run x exists, with no thread, decision or hash yet */
static bool step_slot(struct srun *x, uint32_t s)
{
	if (!weft_grow((void **)&x->tid, &x->captid, s + 1, 1) ||
	    !weft_grow((void **)&x->mask, &x->capmask, s + 1, sizeof(uint64_t)) ||
	    !weft_grow((void **)&x->digest, &x->capdigest, s + 1, sizeof(uint64_t)) ||
	    !weft_grow((void **)&x->site, &x->capsite, s + 1, sizeof(*x->site)) ||
	    !weft_grow((void **)&x->woken, &x->capwoken, s + 1, sizeof(*x->woken)))
		return false;
	for (; x->nstep <= s; x->nstep++) {
		x->tid[x->nstep] = NO_TID;
		x->woken[x->nstep] = 0;
		x->site[x->nstep] = NULL;
		x->mask[x->nstep] = 0;
		x->digest[x->nstep] = 0;
	}
	return true;
}

static void add_rec(struct srun *x, const struct weft_step_info *si)
{
	if (!weft_grow((void **)&x->rec, &x->caprec, x->nrec + 1, sizeof(*x->rec)))
		return;
	x->rec[x->nrec++] = (struct srec){ si->site, si->step, si->loc, si->size ? si->size : 1,
					   si->arg, si->tid, si->kind };
}

static const char *kind_name(unsigned k)
{
	static const char *const names[] = { "none", "read", "write", "acquire", "release",
					     "blocked", "spawn", "join", "end", "yield" };
	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static void differ(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void differ(const char *fmt, ...)
{
	if (S.why[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(S.why, sizeof(S.why), fmt, ap);
	va_end(ap);
}

/* the thread the re-run is to run step s with in the swapped region
 * [a, c): B's first, then A's (NO_TID: elsewhere) */
static unsigned swapped(uint32_t s)
{
	if (!S.a || s < S.a || s >= S.c)
		return NO_TID;
	return s < S.a + (S.c - S.b) ? S.t2 : S.t1;
}

/* The first of n elements (stride bytes apart, from base) whose uint32_t
 * at off is key or more: they are in its order. */
static uint32_t first_from(const void *base, uint32_t n, size_t stride, size_t off, uint32_t key)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2, v;
		memcpy(&v, (const uint8_t *)base + (size_t)mid * stride + off, sizeof(v));
		if (v < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* E's first decision at the point after step x or later */
static uint32_t e_decisions_from(uint32_t x)
{
	return first_from(S.e.dec, S.e.ndec, sizeof(*S.e.dec), offsetof(struct sdec, x), x);
}

/* E's decision at the point after step x, the occ-th there, or NULL */
static const struct sdec *e_decision(uint32_t x, uint32_t occ)
{
	uint32_t i = e_decisions_from(x) + occ;
	return i < S.e.ndec && S.e.dec[i].x == x ? &S.e.dec[i] : NULL;
}

/* At every scheduling point (weft_mem_point(), after the decision and
 * the step count: M.cur runs step M.step) and every switch
 * (weft_mem_switch_in(), M.step not yet counted: seen already). */
static void swap_point(void)
{
	if (S.chained)
		S.chained();
	if (M.cur < 0 || !M.step || M.step == S.last_step || !(S.recording || S.rerun))
		return;
	uint32_t s = M.step;
	S.last_step = s;
	if (S.recording) {
		if (!step_slot(&S.e, s))
			return;
		S.e.tid[s] = (uint8_t)M.cur;
		unsigned wk;
		uint32_t ws;
		if (weft_thread_woken((unsigned)M.cur, &wk, &ws) && wk != (unsigned)M.cur &&
		    ws >= S.prev_of[M.cur])
			S.e.woken[s] = ws;
		S.prev_of[M.cur] = s;
		S.e.digest[s] = states_digest();
		snap_core(s);
		S.e.site[s] = M.th[M.cur].last_site;
		return;
	}
	unsigned want = swapped(s);
	if (want != NO_TID && want != (unsigned)M.cur)
		differ("step %u runs T%d, not T%u", s, M.cur, want);
	if (S.a && s == S.c && s < S.e.nstep && S.e.tid[s] != NO_TID) {
		if (states_digest() != S.e.digest[s])
			differ("a family's state outside the world differs right after the pair");
		uint32_t len = core_len();
		const uint8_t *e = snaps + (size_t)s * len, *r = M.world + M.core_off;
		for (uint32_t i = 0; s < snap_steps && i < len; i++)
			if (e[i] != r[i] && !moved_stamp(e, r, i, len)) {
				char what[96];
				weft_describe_loc(M.sc, M.core_off + i, what, sizeof(what));
				differ("the core area differs right after the pair at world offset %u "
				       "(%s)", M.core_off + i, what);
				break;
			}
	}
}

/* ------------------------------------------------- recording E */

static int rec_begin(void *st, uint8_t *wl, size_t cap)
{
	int n = S.inner->begin ? S.inner->begin(S.inner_st, wl, cap) : 0;
	(void)st;
	S.wl_len = n;
	if (n > 0)
		memcpy(S.wl, wl, (size_t)n < sizeof(S.wl) ? (size_t)n : sizeof(S.wl));
	return n;
}

static int rec_memory(void *st)
{
	(void)st;
	return S.memory = S.inner->memory ? S.inner->memory(S.inner_st) : -1;
}

static int rec_pick_next(void *st, const struct weft_decision *d)
{
	int c = S.inner->pick_next(S.inner_st, d);
	(void)st;
	if (c < 0 || c >= WEFT_EXEC_MAX_THREADS || !(d->runnable >> c & 1))
		c = d->dflt;   /* as weft_sched_decide() takes it */
	if (step_slot(&S.e, d->step))
		S.e.mask[d->step] = d->runnable;
	if (weft_grow((void **)&S.e.dec, &S.e.capdec, S.e.ndec + 1, sizeof(*S.e.dec)))
		S.e.dec[S.e.ndec++] = (struct sdec){ d->runnable, d->step, (uint8_t)c };
	return c;
}

static uint32_t rec_pick_value(void *st, uint32_t index, uint32_t n)
{
	uint32_t v = S.inner->pick_value ? S.inner->pick_value(S.inner_st, index, n) : 0;
	(void)st;
	if (weft_grow((void **)&S.e.ch, &S.e.capch, S.e.nch + 1, sizeof(*S.e.ch)))
		S.e.ch[S.e.nch++] = (struct schoice){ v, (uint8_t)(M.cur < 0 ? NO_TID : M.cur) };
	return v;
}

static uint32_t rec_pick_delay(void *st, uint32_t index, uint32_t ncodes)
{
	(void)st;
	return S.inner->pick_delay(S.inner_st, index, ncodes);
}

static void rec_on_step(void *st, const struct weft_step_info *si)
{
	(void)st;
	add_rec(&S.e, si);
	if (S.inner->on_step)
		S.inner->on_step(S.inner_st, si);
}

static void rec_end(void *st, const struct weft_exec_result *r)
{
	(void)st;
	note_end(&S.e, r);
	S.recording = false;
	if (S.inner->end)
		S.inner->end(S.inner_st, r);
}

/* ------------------------------------------------- a re-run */

static int re_begin(void *st, uint8_t *wl, size_t cap)
{
	(void)st;
	size_t n = (size_t)S.wl_len < cap ? (size_t)S.wl_len : cap;
	memcpy(wl, S.wl, n);
	return (int)n;
}

static int re_memory(void *st)
{
	(void)st;
	return S.memory;
}

/* E's pick, but B's thread for B's steps, then A's for A's; the runnable
 * sets offered E's but inside [a, c) */
static int re_pick_next(void *st, const struct weft_decision *d)
{
	uint32_t x = d->step;
	(void)st;
	S.occ = x == S.prev_x ? S.occ + 1 : 0;
	S.prev_x = x;
	unsigned want = swapped(x + 1);
	bool inside = S.a && x >= S.a && x + 1 < S.c;
	if (S.a && x + 1 >= S.c)
		S.late++;
	if (want == NO_TID) {
		const struct sdec *e = e_decision(x, S.occ);
		if (!e) {
			differ("a decision after step %u E did not make (threads %#llx)", x,
			       (unsigned long long)d->runnable);
			return d->dflt;
		}
		want = e->chosen;
		if (!inside && e->runnable != d->runnable)
			differ("the decision after step %u offers threads %#llx, E's %#llx", x,
			       (unsigned long long)d->runnable, (unsigned long long)e->runnable);
	} else if (x + 1 == S.a && !S.occ) {
		/* E's (only) decision before A; another here is the re-run's
		 * (B's thread chosen came back with no step, as a thread in a
		 * wait does): inside the region */
		const struct sdec *e = e_decision(x, 0);
		if (!e || e->runnable != d->runnable)
			differ("the decision after step %u offers threads %#llx, E's %#llx", x,
			       (unsigned long long)d->runnable,
			       (unsigned long long)(e ? e->runnable : 0));
	}
	if (!(d->runnable >> want & 1)) {
		differ("the decision after step %u: T%u is not runnable (threads %#llx)", x, want,
		       (unsigned long long)d->runnable);
		return d->dflt;
	}
	return (int)want;
}

static uint32_t re_pick_value(void *st, uint32_t index, uint32_t n)
{
	unsigned t = M.cur < 0 ? NO_TID : (unsigned)M.cur;
	(void)st;
	(void)index;
	(void)n;
	uint32_t j = S.taken[t]++;
	if (S.chstart[t] + j >= S.chstart[t + 1]) {
		differ("T%u draws a choice value E's T%u did not", t, t);
		return 0;
	}
	return S.e.ch[S.chs_by_tid[S.chstart[t] + j]].v;
}

static void re_on_step(void *st, const struct weft_step_info *si)
{
	unsigned t = si->tid;
	(void)st;
	add_rec(&S.re, si);
	uint32_t j = S.seen[t]++;
	uint32_t size = si->size ? si->size : 1;
	const char *file = si->site ? si->site->file : "?";
	unsigned line = si->site ? si->site->line : 0;
	if (S.start[t] + j >= S.start[t + 1]) {
		differ("T%u makes more records than in E (%s %u+%u at %s:%u)", t,
		       kind_name(si->kind), si->loc, size, file, line);
		return;
	}
	const struct srec *e = &S.e.rec[S.by_tid[S.start[t] + j]];
	if (e->site != si->site || e->kind != si->kind || e->loc != si->loc || e->size != size ||
	    e->arg != si->arg)
		differ("T%u's record %u is %s %u+%u at %s:%u, in E %s %u+%u at %s:%u", t, j,
		       kind_name(si->kind), si->loc, size, file, line, kind_name(e->kind), e->loc,
		       e->size, e->site ? e->site->file : "?", e->site ? e->site->line : 0);
}

static void re_end(void *st, const struct weft_exec_result *r)
{
	(void)st;
	note_end(&S.re, r);
	S.rerun = false;
}

static const struct weft_strategy_ops re_ops = {
	.name = "swap-audit", .begin = re_begin, .pick_next = re_pick_next,
	.pick_value = re_pick_value, .end = re_end, .on_step = re_on_step,
	.memory = re_memory,
};

/* ------------------------------------------------- pairs */

static bool write_class(const struct srec *r)
{
	switch (r->kind) {
	case WEFT_DEP_WRITE:
	case WEFT_DEP_ACQUIRE:
	case WEFT_DEP_RELEASE:
		return true;
	case WEFT_DEP_READ:
		return r->site && r->site->ev == WEFT_EV_TRYLOCK;
	default:
		return false;
	}
}

/* the kinds a pair may have (END: dependent on a JOIN only, never taken) */
static bool takes_part(const struct srec *r)
{
	return r->kind == WEFT_DEP_READ || r->kind == WEFT_DEP_WRITE ||
	       r->kind == WEFT_DEP_ACQUIRE || r->kind == WEFT_DEP_RELEASE ||
	       r->kind == WEFT_DEP_NONE || r->kind == WEFT_DEP_END;
}

/* E's first record of a step at or after step s (records are in step
 * order) */
static uint32_t recs_from(uint32_t s)
{
	return first_from(S.e.rec, S.e.nrec, sizeof(*S.e.rec), offsetof(struct srec, step), s);
}

/* The end of E's segment from step a: the steps of its thread up to the
 * first with a decision after it or another thread's step next, or the
 * execution's end (0: a step no point began, not taken). */
static uint32_t segment_end(uint32_t a)
{
	if (a >= S.e.nstep || S.e.tid[a] == NO_TID)
		return 0;
	uint32_t x = a;
	while (x + 1 < S.e.nstep && !S.e.mask[x] && S.e.tid[x + 1] == S.e.tid[a])
		x++;
	return x + 1 == S.e.nstep || S.e.tid[x + 1] != NO_TID ? x + 1 : 0;
}

/* Are E's segments A = [a, b) and B = [b, c) (a decision before A offered
 * B's thread) a pair the reductions take for independent, of the kinds
 * taken, each record of its segment's thread? */
static bool independent(uint32_t a, uint32_t *b, uint32_t *c)
{
	if (a < 1 || !S.e.mask[a - 1] || !(*b = segment_end(a)) || !(*c = segment_end(*b)))
		return false;
	unsigned t1 = S.e.tid[a], t2 = S.e.tid[*b];
	if (t1 == t2 || !(S.e.mask[a - 1] >> t2 & 1))
		return false;
	/* threads sharing a CPU (contexts active, no interrupt, no
	 * migration): dependent, as DPOR takes any two events of one CPU
	 * (dpor_clocks.c, cpu_record()) */
	if (weft_contexts_active() && M.cpu_of[t1] == M.cpu_of[t2])
		return false;
	/* B's thread woken by A (dpor_clocks.c: the waker orders the woken
	 * thread's event, and the two cannot be reversed) */
	for (uint32_t y = *b; y < *c; y++)
		if (S.e.woken[y] >= a && S.e.woken[y] < *b)
			return false;
	/* one decision at a point of the region: a second one at a point
	 * (a thread chosen that ended or slept before a step) is E's to repeat */
	for (uint32_t x = a - 1; x < *c; x++)
		if (e_decisions_from(x + 1) - e_decisions_from(x) > 1)
			return false;
	uint32_t a0 = recs_from(a), a1 = recs_from(*b), b0 = a1, b1 = recs_from(*c);
	for (uint32_t x = a0; x < a1; x++)
		if (S.e.rec[x].tid != t1 || !takes_part(&S.e.rec[x]))
			return false;
	for (uint32_t y = b0; y < b1; y++)
		if (S.e.rec[y].tid != t2 || !takes_part(&S.e.rec[y]))
			return false;
	for (uint32_t x = a0; x < a1; x++) {
		const struct srec *p = &S.e.rec[x];
		for (uint32_t y = b0; y < b1; y++) {
			const struct srec *q = &S.e.rec[y];
			if (p->loc == WEFT_NO_LOC || q->loc == WEFT_NO_LOC || p->kind == WEFT_DEP_NONE ||
			    q->kind == WEFT_DEP_NONE || p->kind == WEFT_DEP_END ||
			    q->kind == WEFT_DEP_END || p->loc >= M.loc_limit || q->loc >= M.loc_limit)
				continue;
			if (p->loc < q->loc + q->size && q->loc < p->loc + p->size &&
			    (write_class(p) || write_class(q)))
				return false;
		}
	}
	return true;
}

static void index_by_tid(void)
{
	memset(S.start, 0, sizeof(S.start));
	memset(S.chstart, 0, sizeof(S.chstart));
	for (uint32_t i = 0; i < S.e.nrec; i++)
		S.start[S.e.rec[i].tid + 1]++;
	for (uint32_t i = 0; i < S.e.nch; i++)
		S.chstart[S.e.ch[i].tid + 1]++;
	for (unsigned t = 0; t < 256; t++) {
		S.start[t + 1] += S.start[t];
		S.chstart[t + 1] += S.chstart[t];
	}
	uint32_t at[256], cat[256];
	memcpy(at, S.start, sizeof(at));
	memcpy(cat, S.chstart, sizeof(cat));
	for (uint32_t i = 0; i < S.e.nrec; i++)
		S.by_tid[at[S.e.rec[i].tid]++] = i;
	for (uint32_t i = 0; i < S.e.nch; i++)
		S.chs_by_tid[cat[S.e.ch[i].tid]++] = i;
}

/* Is world byte b named by a record of E or of the re-run? */
static bool recorded(uint32_t b)
{
	const struct srun *runs[2] = { &S.e, &S.re };
	for (unsigned k = 0; k < 2; k++)
		for (uint32_t i = 0; i < runs[k]->nrec; i++) {
			const struct srec *r = &runs[k]->rec[i];
			if (r->loc != WEFT_NO_LOC && b >= r->loc && b - r->loc < r->size)
				return true;
		}
	return false;
}

/* The ends of E and the re-run: 0 the same, 1 a difference only in bytes
 * of the model's world no record names, 2 another. *at: a differing byte
 * (the first recorded one, if any), or UINT32_MAX. */
static int compare_ends(uint32_t *at)
{
	*at = UINT32_MAX;
	if (S.re.kind != S.e.kind) {
		differ("it ends with report kind %d, E with %d", S.re.kind, S.e.kind);
		return 2;
	}
	if (S.re.end_digest != S.e.end_digest) {
		differ("a family's state outside the world differs at the end");
		return 2;
	}
	if (S.re.end_len != S.e.end_len || !S.e.end_len) {
		differ("the world's size differs at the end");
		return 2;
	}
	int worst = 0;
	for (uint32_t b = 0; b < S.e.end_len; b++) {
		if (S.e.end_world[b] == S.re.end_world[b] ||
		    moved_stamp(S.e.end_world, S.re.end_world, b, S.e.end_len))
			continue;
		if (*at == UINT32_MAX)
			*at = b;
		if (b >= M.core_off || recorded(b)) {
			*at = b;
			return 2;
		}
		worst = 1;
	}
	return worst;
}

/* segment [from, to) of E: its thread, first site and records */
static void describe_segment(uint32_t from, uint32_t to, const char *label)
{
	uint32_t a = recs_from(from), b = recs_from(to);
	const struct weft_site *site = S.e.site[from];
	fprintf(stderr, "weft: swap audit:   %s: step %u", label, from);
	if (to > from + 1)
		fprintf(stderr, "-%u", to - 1);
	fprintf(stderr, ", T%u", S.e.tid[from]);
	if (site)
		fprintf(stderr, " at %s:%u %s(): %s", site->file, site->line, site->func,
			site->what);
	fputs(":", stderr);
	if (a == b)
		fputs(" no record", stderr);
	for (uint32_t x = a; x < b && x < a + 6; x++) {
		const struct srec *p = &S.e.rec[x];
		fprintf(stderr, " %s", kind_name(p->kind));
		if (p->loc != WEFT_NO_LOC)
			fprintf(stderr, " %u+%u", p->loc, p->size);
	}
	if (b > a + 6)
		fputs(" ...", stderr);
	fputc('\n', stderr);
}

/* E again, with segments [a, b) and [b, c) swapped (a == 0: as it was) */
static void run_again(const struct weft_run_opts *o, uint32_t a, uint32_t b, uint32_t c,
		      struct weft_exec_result *r)
{
	S.a = a;
	S.b = b;
	S.c = c;
	if (a) {
		S.t1 = S.e.tid[a];
		S.t2 = S.e.tid[b];
	}
	S.why[0] = 0;
	S.prev_x = UINT32_MAX;
	S.occ = 0;
	S.late = 0;
	S.last_step = UINT32_MAX;
	reset_run(&S.re);
	memset(S.seen, 0, sizeof(S.seen));
	memset(S.taken, 0, sizeof(S.taken));
	S.rerun = true;
	if (weft_execute_one(o, &re_ops, NULL, r) < 0)
		differ("the re-run could not start");
	S.rerun = false;
}

/* after compare_ends(): a thread stopped short of its records in E */
static void check_counts(void)
{
	for (unsigned t = 0; t < 256; t++)
		if (S.start[t] + S.seen[t] < S.start[t + 1])
			differ("T%u makes fewer records than in E (%u of %u)", t, S.seen[t],
			       S.start[t + 1] - S.start[t]);
}

static void check_pair(const struct weft_run_opts *o, uint32_t a)
{
	struct weft_exec_result r;
	uint32_t b, c;
	independent(a, &b, &c);
	run_again(o, a, b, c, &r);
	uint32_t at;
	int ends = compare_ends(&at);
	check_counts();
	uint32_t late = 0;
	for (uint32_t i = 0; i < S.e.ndec; i++)
		late += S.e.dec[i].x + 1 >= c;
	if (late != S.late)
		differ("it makes %u decisions after the pair, E %u", S.late, late);
	S.pairs++;
	if (!S.why[0] && ends == 0)
		return;
	bool world = !S.why[0] && ends == 1;
	if (world)
		S.world_only++;
	else
		S.differ++;
	const struct weft_site *sa = S.e.site[a], *sb = S.e.site[b];
	for (unsigned i = 0; i < S.nr_found; i++)
		if (S.found[i].a == sa && S.found[i].b == sb)
			return;   /* printed once per pair of sites */
	if (S.nr_found < SWAP_FINDINGS) {
		S.found[S.nr_found].a = sa;
		S.found[S.nr_found++].b = sb;
	}
	char what[96] = "";
	if (at != UINT32_MAX)
		weft_describe_loc(M.sc, at, what, sizeof(what));
	if (world)
		fprintf(stderr, "weft: swap audit: not commuting: %s: steps from %u and from %u (T%u, then T%u) "
			"[the model's world]: world offset %u (%s) differs at the end, no record "
			"names it\n", M.sc->name, a, b, S.t1, S.t2, at, what);
	else
		fprintf(stderr, "weft: swap audit: not commuting: %s: steps from %u and from %u (T%u, then T%u) "
			"[records]: %s\n", M.sc->name, a, b, S.t1, S.t2,
			S.why[0] ? S.why : "the world differs at the end");
	if (at != UINT32_MAX && !world)
		fprintf(stderr, "weft: swap audit:   the end differs at world offset %u: %s\n", at,
			what);
	describe_segment(a, b, "first");
	describe_segment(b, c, "then");
}

static void summary(void)
{
	fprintf(stderr, "weft: swap audit: %llu pairs checked, %llu not commuting, "
		"%llu differing only in the model's world, %llu executions skipped, "
		"%llu not reproducible\n", (unsigned long long)S.pairs,
		(unsigned long long)S.differ, (unsigned long long)S.world_only,
		(unsigned long long)S.skipped, (unsigned long long)S.irreproducible);
}

void weft_swap_audit_init(void)
{
	const char *e = getenv("WEFT_SWAP_AUDIT");
	if (!e || !*e)
		return;
	unsigned long n = strtoul(e, NULL, 10);
	if (!n)
		return;
	weft_swap_audit_pairs = n > 100000 ? 100000 : (unsigned)n;
	S.chained = weft_point_hook;
	weft_point_hook = swap_point;
	atexit(summary);
}

int weft_swap_audit_execute(const struct weft_run_opts *o, const struct weft_strategy_ops *ops,
			    void *st, struct weft_exec_result *r)
{
	const struct weft_strategy_ops rec = {
		.name = ops->name, .begin = rec_begin, .pick_next = rec_pick_next,
		.pick_value = rec_pick_value, .end = rec_end, .on_step = rec_on_step,
		.pick_delay = ops->pick_delay ? rec_pick_delay : NULL, .memory = rec_memory,
	};
	S.inner = ops;
	S.inner_st = st;
	S.memory = -1;
	S.wl_len = 0;
	S.last_step = UINT32_MAX;
	reset_run(&S.e);
	memset(S.prev_of, 0, sizeof(S.prev_of));
	snap_steps = 1;   /* step 0 has none */
	S.recording = true;
	int rc = weft_execute_one(o, &rec, NULL, r);
	S.recording = false;
	if (rc < 0)
		return rc;
	if (r->kind != WEFT_KIND_NONE || r->infeasible || r->cut_short || weft_mem_weak ||
	    weft_interrupts_active() || (weft_contexts_active() && M.sc->migratable) ||
	    (size_t)S.wl_len > sizeof(S.wl)) {
		S.skipped++;
		return rc;
	}
	uint32_t *pairs = malloc((S.e.nstep + 1) * sizeof(*pairs));
	uint32_t *by = malloc((S.e.nrec + 1) * sizeof(*by));
	uint32_t *cby = malloc((S.e.nch + 1) * sizeof(*cby));
	if (!pairs || !by || !cby) {
		free(pairs);
		free(by);
		free(cby);
		S.skipped++;
		return rc;
	}
	S.by_tid = by;
	S.chs_by_tid = cby;
	index_by_tid();
	uint32_t np = 0;
	for (uint32_t a = 1; a < S.e.nstep; a++) {
		uint32_t b, c;
		if (independent(a, &b, &c))
			pairs[np++] = a;
	}
	struct weft_run_opts ro = *o;
	ro.record = false;
	ro.no_trace_hash = true;
	/* at most N, spread over the execution */
	uint32_t take = np < weft_swap_audit_pairs ? np : weft_swap_audit_pairs;
	if (take) {
		/* E again as it was: a model that does not repeat itself (on
		 * purpose, tests/verdicts) has no pairs to compare */
		struct weft_exec_result again;
		run_again(&ro, 0, 0, 0, &again);
		uint32_t at;
		int ends = compare_ends(&at);
		check_counts();
		if (ends || S.why[0]) {
			S.irreproducible++;
			take = 0;
		}
	}
	for (uint32_t i = 0; i < take; i++)
		check_pair(&ro, pairs[(uint64_t)i * np / take]);
	/* and once more as asked: what the machine keeps of the last
	 * execution (its events, decisions) is E's */
	if (np) {
		struct weft_exec_result again;
		run_again(o, 0, 0, 0, &again);
	}
	free(pairs);
	free(by);
	free(cby);
	S.by_tid = S.chs_by_tid = NULL;
	return rc;
}
