/*
 * lockstep.h - runs a small generated program under Weft and an
 * independent reference model of the primitives it uses in lock step, and
 * says where they first disagree.
 *
 * The program's threads log each operation as it completes (ls_note(),
 * plain C, no scheduling point: it lands in the log in the order the
 * operations took effect); the strategy below logs every BLOCKED
 * dependence record (a thread that went to sleep, or spins, inside an
 * operation). The reference replays that log: for each entry it checks
 * that the thread could act at all (the reference has it runnable), that
 * the operation's result is the one its model gives, and that a thread
 * went to sleep exactly where its model says it must. At every decision
 * Weft offers, the threads Weft says may run must be the ones the
 * reference says may run: which waiters each wake-up made runnable, who
 * holds a CPU. The strategy then picks one of them (seeded, reproducible).
 *
 * The reference is the test's: event() applies one log entry, eligible()
 * is the set of threads it says may run now. Written from the documented
 * semantics (the headers, the kernel), never from core/src.
 */
#ifndef WEFT_LOCKSTEP_H
#define WEFT_LOCKSTEP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "../model_driver.h"

#define LS_MAX_LOG 8192
#define LS_MAX_DEC 4096

enum ls_kind {
	LS_DONE = 1,     /* thread tid completed operation op with result val */
	LS_BLOCKED,      /* thread tid went to sleep (or spins) inside its current op */
	LS_ENTER,        /* an interrupt handler starts (tid: its pseudo-thread) */
	LS_EXIT,         /* and returns */
	LS_RELEASE,      /* thread tid released a lock inside its current op (a
			    RELEASE record; only if ls_log_releases) */
};

struct ls_ent {
	uint8_t tid, kind;
	uint16_t op;
	int32_t val;
};

static struct {
	struct ls_ent e[LS_MAX_LOG];
	unsigned n, seen;
	bool overflow;
} ls_log;

/* the first disagreement of this execution ("" if none) */
static char ls_why[512];

static inline __attribute__((format(printf, 1, 2))) void ls_fail(const char *fmt, ...)
{
	va_list ap;

	if (ls_why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(ls_why, sizeof(ls_why), fmt, ap);
	va_end(ap);
}

static inline void ls_note(unsigned tid, unsigned kind, unsigned op, int val)
{
	if (ls_log.n == LS_MAX_LOG) {
		ls_log.overflow = true;
		return;
	}
	ls_log.e[ls_log.n++] = (struct ls_ent){ (uint8_t)tid, (uint8_t)kind, (uint16_t)op, val };
}

struct ls_ref {
	void (*event)(const struct ls_ent *e);
	uint32_t (*eligible)(void);      /* optional: NULL compares no decisions */
};

/* A reference that splits unlocks at their release sets this: LS_RELEASE
 * entries are logged. */
static bool ls_log_releases;

enum ls_mode {
	LS_SERIAL = 0,   /* always the default */
	LS_STICKY,       /* the current thread with probability 3/4, else any */
	LS_UNIFORM,      /* any eligible thread */
};

struct ls_strategy {
	const struct ls_ref *ref;
	struct weft_rng rng;
	enum ls_mode mode;
	unsigned nr_dec;
	uint8_t chosen[LS_MAX_DEC];
	uint16_t at_log[LS_MAX_DEC];   /* log entries before each decision */
	uint32_t values[64];     /* weft_choose() answers, in order (0 beyond) */
	unsigned nr_values, next_value;
};

static inline void ls_sync(const struct ls_ref *ref)
{
	while (ls_log.seen < ls_log.n)
		ref->event(&ls_log.e[ls_log.seen++]);
}

static inline int ls_pick(void *st, const struct weft_decision *d)
{
	struct ls_strategy *s = st;
	int c = d->dflt;

	ls_sync(s->ref);
	uint64_t want = s->ref->eligible ? s->ref->eligible() : d->runnable;
	if (want != d->runnable)
		ls_fail("decision %u (step %u): Weft lets threads %#llx run, the reference %#llx",
			d->index, d->step, (unsigned long long)d->runnable,
			(unsigned long long)want);
	if (s->mode == LS_UNIFORM || (s->mode == LS_STICKY && weft_rng_below(&s->rng, 4) == 0)) {
		unsigned k = weft_rng_below(&s->rng, (uint32_t)__builtin_popcountll(d->runnable));
		for (uint64_t m = d->runnable; m; m &= m - 1)
			if (!k--) {
				c = __builtin_ctzll(m);
				break;
			}
	}
	if (s->nr_dec < LS_MAX_DEC) {
		s->at_log[s->nr_dec] = (uint16_t)ls_log.n;
		s->chosen[s->nr_dec++] = (uint8_t)c;
	}
	return c;
}

static inline uint32_t ls_value(void *st, uint32_t index, uint32_t n)
{
	struct ls_strategy *s = st;
	uint32_t v = s->next_value < s->nr_values ? s->values[s->next_value] : 0;

	(void)index;
	s->next_value++;
	return v % n;
}

static inline void ls_step(void *st, const struct weft_step_info *si)
{
	(void)st;
	/* a non-preemptible region's end (RCU's reader slot, WEFT_STEP_CTX)
	 * rides on an operation's step as a RELEASE record: no lock's release
	 * (a release-then-wake's preemption re-enabled after its wake-up
	 * looked like a second release of the lock to the references) */
	if (si->flags & WEFT_STEP_CTX)
		return;
	if (si->kind == WEFT_DEP_BLOCKED)
		ls_note(si->tid, LS_BLOCKED, 0xffff, 0);
	else if (si->kind == WEFT_DEP_RELEASE && ls_log_releases)
		ls_note(si->tid, LS_RELEASE, 0xffff, 0);
}

static const struct weft_strategy_ops ls_ops = {
	.name = "lockstep",
	.pick_next = ls_pick,
	.pick_value = ls_value,
	.on_step = ls_step,
};

/* One execution of o->sc in lock step with ref (reset by the caller
 * before: its model's initial state). Afterwards ls_why says where the two
 * first disagreed during the run ("" if nowhere); the caller compares the
 * verdicts. */
static inline void ls_run(const struct weft_run_opts *o, const struct ls_ref *ref,
			  enum ls_mode mode, uint64_t seed, struct ls_strategy *s,
			  struct weft_exec_result *r)
{
	memset(s, 0, sizeof(*s));
	s->ref = ref;
	s->mode = mode;
	weft_rng_seed(&s->rng, seed);
	ls_log.n = ls_log.seen = 0;
	ls_log.overflow = false;
	ls_why[0] = 0;
	if (weft_execute(o, &ls_ops, s, r) != 0)
		ls_fail("weft_execute refused the run");
	ls_sync(ref);
	if (ls_log.overflow)
		ls_fail("the log overflowed");
}

/* The decisions of the last run, for a failure message. */
static inline void ls_print_schedule(FILE *f, const struct ls_strategy *s)
{
	fprintf(f, "   schedule (thread chosen at each decision @ log entries before it):");
	for (unsigned i = 0; i < s->nr_dec; i++)
		fprintf(f, " %u@%u", s->chosen[i], s->at_log[i]);
	fprintf(f, "\n   log:");
	for (unsigned i = 0; i < ls_log.n && i < 200; i++) {
		const struct ls_ent *e = &ls_log.e[i];
		if (e->kind == LS_DONE)
			fprintf(f, " T%u.%u=%d", e->tid, e->op, e->val);
		else
			fprintf(f, " T%u%s", e->tid, e->kind == LS_BLOCKED ? "/sleep" :
						      e->kind == LS_ENTER ? "/irq" :
						      e->kind == LS_RELEASE ? "/rel" : "/iret");
	}
	fprintf(f, "\n");
}

/* Every differential scenario runs the one generated program its test
 * set up (the workload is unused): one opcode, one variant, and room for
 * LS_MAX_DEC decisions. Its literal names the rest (threads, CPUs, world,
 * hooks) after LS_ONE_PROGRAM. */
static const char *const ls_opnames[] __attribute__((unused)) = { "nop" };
static const struct weft_variant ls_variants[] __attribute__((unused)) = {
	{ "only", NULL, false, "random program", "test", WEFT_KIND_NONE, 0, 0 },
};
#define LS_ONE_PROGRAM                                                          \
	.source = "test", .nr_opcodes = 1, .opnames = ls_opnames, .max_ops = 1,    \
	.decision_hint = LS_MAX_DEC, .variants = ls_variants, .nr_variants = 1

/* fn, the setup of a program whose world_t has one spinlock, l, that its
 * critical sections take: initialises l (the program has no variants and
 * no workload). */
#define LS_ONE_LOCK_SETUP(fn, world_t)                                          \
	static void fn(void *w, unsigned v, const struct weft_workload *wl)      \
	{                                                                        \
		(void)v;                                                         \
		(void)wl;                                                        \
		spin_lock_init(&((world_t *)w)->l);                              \
	}

/* The thread and interrupt handler of a program of per-context op lists
 * (P.n[c], P.ops[c][]) run by run_op(W, c, op), the op's value logged:
 * context c < NT is thread c, c = NT + irq is interrupt irq, logged as
 * tid P.nt + irq between LS_ENTER and LS_EXIT. C[c] is the context's
 * state, zeroed first. A macro so that prefix##_thread and prefix##_irq
 * are the test file's own functions. */
#define LS_CONTEXT_RUNNERS(prefix, run_op)                                     \
	static void prefix##_thread(void *w, unsigned t)                       \
	{                                                                      \
		memset(&C[t], 0, sizeof(C[t]));                                \
		for (unsigned i = 0; i < P.n[t]; i++)                          \
			ls_note(t, LS_DONE, i, run_op(w, t, &P.ops[t][i]));    \
	}                                                                      \
	static void prefix##_irq(void *w, unsigned irq)                        \
	{                                                                      \
		unsigned c = NT + irq, tid = P.nt + irq;                       \
                                                                               \
		memset(&C[c], 0, sizeof(C[c]));                                \
		ls_note(tid, LS_ENTER, 0, 0);                                  \
		for (unsigned i = 0; i < P.n[c]; i++)                          \
			ls_note(tid, LS_DONE, i, run_op(w, c, &P.ops[c][i]));  \
		ls_note(tid, LS_EXIT, 0, 0);                                   \
	}

/* After a run r in lock step that disagreed with its reference: for the
 * first five such runs (*failures counts them all), the line fmt names, the
 * program (print) and the run's schedule s, on stderr. */
static inline __attribute__((format(printf, 4, 5))) void
ls_show_failure(unsigned *failures, void (*print)(FILE *f), const struct ls_strategy *s,
		const char *fmt, ...)
{
	va_list ap;

	if ((*failures)++ >= 5)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	print(stderr);
	ls_print_schedule(stderr, s);
}

/* why[n]: what a run r got wrong where the reference says report expect
 * comes from expect_tid (the same verdict by the same context), or where
 * it says the reporting context's next op reports want (the same verdict);
 * left alone when r agrees. */
static inline void ls_why_expected(char *why, size_t n, const struct weft_exec_result *r,
				   enum weft_kind expect, int expect_tid)
{
	int rt = r->report.here.tid;

	if (r->kind != expect || rt != expect_tid)
		snprintf(why, n, "verdict %s by T%d (%s), the reference %s by T%d",
			 weft_kind_name(r->kind), rt, r->report.msg, weft_kind_name(expect),
			 expect_tid);
}
static inline void ls_why_next_op(char *why, size_t n, const struct weft_exec_result *r,
				  enum weft_kind want)
{
	if (r->kind != want)
		snprintf(why, n, "T%d reports %s (%s), the reference %s at its next op",
			 r->report.here.tid, weft_kind_name(r->kind), r->report.msg,
			 weft_kind_name(want));
}

/* The checks a reference's event handler starts with: nothing acts after
 * a report the reference expects (expect, by expect_tid), and tid is one of
 * the program's nctx contexts. False, with ls_fail(), on either. */
static inline bool ls_ref_event_ok(unsigned tid, enum weft_kind expect, int expect_tid,
				   unsigned nctx)
{
	if (expect != WEFT_KIND_NONE) {
		ls_fail("T%u acts after T%d should have reported %s", tid, expect_tid,
			weft_kind_name(expect));
		return false;
	}
	if (tid >= nctx) {
		ls_fail("a log entry of context %u, which the program does not have", tid);
		return false;
	}
	return true;
}

/* local_irq_save() pushed on, and local_irq_restore() popped off, the
 * context state cs's stack of saved flags (cs.flags[], cs.nflags). Macros,
 * so that the sites stay the caller's. */
#define LS_IRQ_SAVE(cs)                                                        \
	do {                                                                   \
		local_irq_save((cs).flags[(cs).nflags]);                       \
		(cs).nflags++;                                                 \
	} while (0)
#define LS_IRQ_RESTORE(cs)                                                     \
	do {                                                                   \
		(cs).nflags--;                                                 \
		local_irq_restore((cs).flags[(cs).nflags]);                    \
	} while (0)

/* The program-size knob of the differential tests: WEFT_DIFF_SIZE=large
 * (the medium tier) or quick (the short tier's default); N programs of
 * each. */
static inline bool ls_large(void)
{
	const char *e = getenv("WEFT_DIFF_SIZE");

	return e && !strcmp(e, "large");
}

/* A small deterministic generator for programs (independent of weft_rng,
 * so that a program number names the same program in every build). */
static uint64_t ls_gen_state;
static inline unsigned ls_rnd(unsigned n)
{
	ls_gen_state = ls_gen_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((ls_gen_state >> 33) % n);
}


/* The seed of a test's random programs: WEFT_DIFF_SEED, 1 by default.
 * Also starts the program generator (ls_rnd()) from it. */
static inline uint64_t ls_seed(void)
{
	const char *e = getenv("WEFT_DIFF_SEED");
	uint64_t seed = e ? strtoull(e, NULL, 0) : 1;

	ls_gen_state = seed * 0x9e3779b97f4a7c15ull;
	return seed;
}

/* The lock-step tests' main loop: the pinned programs first (unless
 * WEFT_DIFF_ONLY), then nprog generated ones from the sequence
 * WEFT_DIFF_SEED names (default 1), each run under nsched schedules;
 * WEFT_DIFF_ONLY=N runs program N alone, printed and verbose. */
struct ls_programs {
	void (*pinned)(void);
	void (*gen)(void);
	void (*print)(FILE *f);
	void (*run)(unsigned nsched, uint64_t seed, bool verbose);
	long *cur_prog;
};
static inline void ls_run_programs(const struct ls_programs *p, unsigned nprog, unsigned nsched)
{
	const char *e = getenv("WEFT_DIFF_ONLY");
	long only = e ? atol(e) : -1;

	weft_machine_init();
	if (only < 0)
		p->pinned();
	uint64_t seed = ls_seed();
	for (unsigned i = 0; i < nprog; i++) {
		p->gen();
		*p->cur_prog = i;
		if (only >= 0 && (long)i != only)
			continue;
		if (only >= 0)
			p->print(stderr);
		p->run(nsched, seed * 100000 + i, only >= 0);
	}
}

/* A driver's closing line: "N programs, N runs in lock step (quick size): N
 * clean, N <label>, ..., N other", verdicts[] counted by kind over nr_runs
 * runs; kinds[i] is printed as labels[i], WEFT_KIND_NONE as "clean" first. */
static inline void ls_print_verdicts(unsigned nprog, unsigned nr_runs, const unsigned *verdicts,
				     const enum weft_kind *kinds, const char *const *labels,
				     unsigned n)
{
	unsigned other = nr_runs - verdicts[WEFT_KIND_NONE];

	printf("%u programs, %u runs in lock step (%s size): %u clean", nprog, nr_runs,
	       ls_large() ? "large" : "quick", verdicts[WEFT_KIND_NONE]);
	for (unsigned i = 0; i < n; i++) {
		printf(", %u %s", verdicts[kinds[i]], labels[i]);
		other -= verdicts[kinds[i]];
	}
	printf(", %u other\n", other);
}

#endif
