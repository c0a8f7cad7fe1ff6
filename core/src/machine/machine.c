/*
 * machine.c - the deterministic machine: model threads as fibers on fake
 * CPUs, decisions, blocking and waking, spawned threads, reports, and one
 * execution from a zeroed world to its audits. The primitives live in
 * files of their own (access.c, spinlock.c, shadow.c, ...) on the
 * scheduler interface of sched.h.
 *
 * Length (~1,500 lines): the sections below (sites, overflow, init,
 * tracing, scheduling, blocking and waking, threads, reports, execution)
 * all drive one thread-state machine (weft_machine_state, sched.h) through
 * one execution; reports (~330 lines) is the seam to cut next (issue 24).
 *
 * One machine per process (fibers and stacks are made once, in
 * weft_machine_init). Invariants:
 *  - Exactly one model thread runs at a time (M.cur), or the host context
 *    (M.cur == -1) during setup and audits.
 *  - runnable holds exactly the threads in T_RUNNABLE.
 *  - A decision is taken only at a scheduling point with >= 2 runnable
 *    threads; its default is the current thread if it can go on, else the
 *    lowest runnable one; a yield offers only the other runnable threads.
 *  - A fiber switched to for the first time performs its first operation
 *    without another decision (it was chosen to run it): the decision
 *    sequence and the interleaving of operations are in bijection.
 *  - Shadow entries are valid only when their epoch equals M.epoch, so the
 *    reset between executions touches only the world itself.
 *
 * Length: the scheduler core only (decisions, blocking and waking, spawned
 * threads, reports, one execution); every primitive family has its own file.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "sched.h"

struct weft_machine weft_machine_state;

/* ---------------------------------------------------------------- sites */

extern struct weft_site *const __start_weft_sites[] __attribute__((weak));
extern struct weft_site *const __stop_weft_sites[] __attribute__((weak));

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ull;
	}
	h ^= 0xff; /* separator */
	h *= 0x100000001b3ull;
	return h;
}

uint32_t weft_site_hash(const struct weft_site *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv1a(h, weft_site_basename(s));
	h = fnv1a(h, s->func);
	h = fnv1a(h, s->what);
	h ^= s->ev;
	h *= 0x100000001b3ull;
	uint32_t id = (uint32_t)(h ^ (h >> 32));
	return id ? id : 1;
}

void weft_sites_init(void)
{
	if (!__start_weft_sites)
		return;
	for (struct weft_site *const *p = __start_weft_sites; p < __stop_weft_sites; p++)
		if (*p && !(*p)->id)
			(*p)->id = weft_site_hash(*p);
}

uint64_t weft_scenario_fingerprint(const struct weft_scenario *sc)
{
	/* XOR of mixed site ids: independent of link order. */
	uint64_t acc = 0;

	weft_sites_init();
	if (__start_weft_sites && sc->files) {
		for (struct weft_site *const *p = __start_weft_sites; p < __stop_weft_sites; p++) {
			const char *b = weft_site_basename(*p);
			for (const char *const *f = sc->files; *f; f++)
				if (!strcmp(*f, b)) {
					acc ^= weft_mix64((*p)->id * 0x9e3779b97f4a7c15ull);
					break;
				}
		}
	}
	uint64_t h = fnv1a(0xcbf29ce484222325ull, sc->name);
	h ^= acc;
	h = weft_mix64(h ^ sc->model_version);
	h = weft_mix64(h ^ ((uint64_t)sc->nr_threads << 8 | sc->nr_opcodes << 16 |
			     (uint64_t)sc->decision_hint << 32 | sc->max_ops));
	return h;
}

/* ------------------------------------------------------------ overflow */

static struct sigaction old_segv, old_bus;
static char *altstack;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	if (M.in_exec && M.cur >= 0 && weft_fiber_guard_hit(si->si_addr, NULL)) {
		M.stack_overflow = true;
#ifdef WEFT_TSAN
		/* TSan cannot follow a longjmp from one fiber to another: stop
		 * with the diagnosis instead of recovering. */
		static const char msg[] = "weft: stack-overflow: a model thread overflowed its "
					  "fiber stack (raise WEFT_STACK_KIB)\n";
		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(WEFT_EXIT_BUG);
		_exit(WEFT_EXIT_BUG);
#endif
		siglongjmp(M.overflow_jmp, 1);
	}
	weft_chain_signal(sig == SIGBUS ? &old_bus : &old_segv, sig, si, uc);
}

void weft_chain_signal(const struct sigaction *old, int sig, siginfo_t *si, void *uc)
{
	if (old->sa_flags & SA_SIGINFO && old->sa_sigaction) {
		old->sa_sigaction(sig, si, uc);
		return;
	}
	if (old->sa_handler != SIG_IGN && old->sa_handler != SIG_DFL && old->sa_handler) {
		old->sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_overflow_handler(void)
{
	stack_t ss;
	struct sigaction sa;
	size_t sz = 64 * 1024;

	altstack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (altstack == MAP_FAILED)
		return;
	ss.ss_sp = altstack;
	ss.ss_size = sz;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) != 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	/* SA_NODEFER: the handler leaves by siglongjmp without restoring the
	 * mask (sigsetjmp(.., 0) saves no mask: no syscall per execution), so
	 * SIGSEGV must not stay blocked for the next overflow. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
}

/* ---------------------------------------------------------------- init */

/* The families' hooks by event (sched.h, struct weft_family): the
 * machine's only way into primitives/. hooks_gather() keeps the non-null
 * ones of each event in families.def order, once, so that an event costs
 * one indirect call per family that hooks it and no walk of the table
 * (thread_exit, every thread's end, has one of four). */
#define FAMILY_HOOKS(X) X(begin) X(spawned) X(resumed) X(deliver_irq) X(left_cpu) \
	X(thread_exit) X(thread_end) X(freed) X(switched) X(exec_end) X(sleeping)
#define HOOKS_MAX 16
static struct {
#define X(hook) __typeof__(((struct weft_family *)0)->hook) hook[HOOKS_MAX]; unsigned nr_##hook;
	FAMILY_HOOKS(X)
#undef X
} hooks;

static void hooks_gather(void)
{
	if (weft_nr_families > HOOKS_MAX) {
		fprintf(stderr, "weft: families.def lists %u families, the machine holds %u\n",
			weft_nr_families, HOOKS_MAX);
		abort();
	}
	for (unsigned i = 0; i < weft_nr_families; i++) {
#define X(hook)                                                                 \
		if (weft_families[i]->hook)                                     \
			hooks.hook[hooks.nr_##hook++] = weft_families[i]->hook;
		FAMILY_HOOKS(X)
#undef X
	}
}

#define FAMILIES_CALL(hook, ...)                                                \
	do {                                                                    \
		for (unsigned fi_ = 0; fi_ < hooks.nr_##hook; fi_++)            \
			hooks.hook[fi_](__VA_ARGS__);                           \
	} while (0)

int weft_machine_init(void)
{
	if (M.inited)
		return 0;
	weft_sites_init();
	weft_fiber_init_main(&M.main);
	const char *env = getenv("WEFT_STACK_KIB");
	M.stack_size = WEFT_FIBER_STACK;
	if (env && atoi(env) >= 16)
		M.stack_size = (size_t)atoi(env) * 1024;
	install_overflow_handler();
	hooks_gather();
	weft_dep_audit_init();
	weft_swap_audit_init();
	env = getenv("WEFT_EPOCH_WRAP_EVERY");
	if (env && *env)
		weft_epoch_wrap_every = (uint32_t)strtoul(env, NULL, 10);
	M.cur = -1;
	M.inited = true;
	return 0;
}

/* The world (ours, or the scenario's: external) and a fresh shadow of cap
 * entries replace the last ones. */
static void world_install(uint8_t *w, bool external, struct shadow *sh, size_t cap)
{
	if (!M.world_external)
		free(M.world);
	free(M.shadow);
	M.world = w;
	M.world_external = external;
	M.shadow = sh;
	M.world_cap = cap;
	/* M.epoch goes on: the new shadow's entries (epoch 0) are stale, and
	 * so must be every other family's epoch-stamped state (wait-list
	 * entries, bit-lock holders). Restarting it at 0 made the next
	 * execution's epoch equal an earlier one's, whose leftovers (a
	 * sleeper's TASK_UNINTERRUPTIBLE of a lost wake-up) it then saw. */
	M.core_zero_off = ~0u;
}

/* Room for a world of size bytes and the core area after it. */
static int world_reserve(size_t size)
{
	size = ((size + 63) & ~(size_t)63) + weft_core_size;
	if (size <= M.world_cap)
		return 0;
	size_t cap = (size + 4095) & ~(size_t)4095;
	uint8_t *w = aligned_alloc(64, cap);
	struct shadow *sh = calloc(cap, sizeof(*sh));
	if (!w || !sh) {
		free(w);
		free(sh);
		return WEFT_ENOMEM;
	}
	world_install(w, false, sh, cap);
	return 0;
}

size_t weft_core_area_size(void)
{
	return weft_core_size;
}

/* A world the scenario maps (weft_world_ops): a shadow for it and its core
 * area; the memory stays the scenario's. */
static int world_attach(const struct weft_scenario *sc)
{
	uint8_t *base = sc->world_ops->base();
	size_t cap = ((sc->world_size + 63) & ~(size_t)63) + weft_core_size;

	if (!base)
		return WEFT_ENOMEM;
	if (base == M.world && M.world_external && cap <= M.world_cap)
		return 0;
	struct shadow *sh = calloc(cap, sizeof(*sh));
	if (!sh)
		return WEFT_ENOMEM;
	world_install(base, true, sh, cap);
	return 0;
}

/* The families' core area of this execution: after the world (or where a
 * scenario's own world keeps room for it), all zero. */
static inline void core_reset(const struct weft_scenario *sc, size_t world_size)
{
	const struct weft_world_ops *wo = sc->world_ops;

	M.core_off = (uint32_t)(wo && wo->core_offset ? wo->core_offset()
						       : (world_size + 63) & ~(size_t)63);
	M.core = (struct weft_core_state *)(void *)(M.world + M.core_off);
	M.loc_limit = M.core_off + weft_core_size;
	if (M.loc_limit < world_size)
		M.loc_limit = (uint32_t)world_size;
	if (M.core_used || M.core_zero_off != M.core_off) {
		memset(M.core, 0, weft_core_size);
		M.core_zero_off = M.core_off;
	}
	M.core_used = false;
	M.freed_watch = NULL;
}

/* Called by weft_poison() (shadow.c) for every freed range. */
void weft_families_freed(uint32_t loc, uint32_t len, const struct weft_site *s)
{
	FAMILIES_CALL(freed, loc, len, s);
}

void weft_feedback_attach(uint8_t *map, size_t size)
{
	weft_feedback_route(map, NULL, size, WEFT_FB_ALL);
}

void weft_feedback_route(uint8_t *map, uint8_t *aux, size_t size, unsigned in_map)
{
	/* size must be a power of two */
	M.fb_sw = in_map & WEFT_FB_SWITCH ? map : aux;
	M.fb_rf = in_map & WEFT_FB_READS_FROM ? map : aux;
	M.fb_st = in_map & WEFT_FB_STATE ? map : aux;
	M.fb_lk = in_map & WEFT_FB_LOCK ? map : aux;
	M.fb = M.fb_sw ? M.fb_sw : M.fb_rf ? M.fb_rf : M.fb_st ? M.fb_st : M.fb_lk;
	M.fb_mask = size ? (uint32_t)(size - 1) : 0;
}

/* -------------------------------------------------------------- tracing */

/* A full record array a of *cap elements of size bytes, reallocated to
 * twice as many (first when empty), at most max; NULL when that is over
 * max or there is no memory (a and *cap stay as they were). */
static void *record_grown(void *a, size_t *cap, size_t first, size_t max, size_t size)
{
	size_t c = *cap ? *cap * 2 : first;
	void *n = c > max ? NULL : realloc(a, c * size);

	if (n)
		*cap = c;
	return n;
}

void weft_record_event(const struct weft_event *e)
{
	if (M.nr_ev == M.cap_ev) {
		struct weft_event *n = record_grown(M.ev, &M.cap_ev, 4096, WEFT_MAX_RECORD_EVENTS,
						    sizeof(*n));
		if (!n)
			goto state_hash;
		M.ev = n;
	}
	M.ev[M.nr_ev++] = *e;
state_hash:
	if (M.evseq % WEFT_STATE_HASH_EVERY == 0 && M.nr_sh < M.cap_sh)
		M.state_hashes[M.nr_sh++] = M.hash;
}

/* The context a helper call belongs to: M.cur + 1 (0: the host). */
const struct weft_caller *weft_caller_enter(const struct weft_caller *c)
{
	int k = M.cur + 1;
	const struct weft_caller *prev = M.callers[k].c;

	/* the outermost call is the model's; inside a library operation,
	 * a helper it calls names its own call */
	if (!prev || (prev->flags & WEFT_CALLER_KIT)) {
		M.callers[k].c = c;
		M.callers[k].fresh = true;
	}
	return prev;
}

void weft_caller_exit(const struct weft_caller *prev)
{
	M.callers[M.cur + 1].c = prev;
}

const struct weft_caller *weft_kit_enter(const struct weft_caller *c)
{
	int k = M.cur + 1;
	const struct weft_caller *prev = M.kit_callers[k];

	if (!prev) {   /* the outermost call is the model's */
		M.kit_callers[k] = c;
		if (!M.callers[k].c) {
			M.callers[k].c = c;
			M.callers[k].fresh = false;   /* not folded: no call mark */
		}
	}
	return prev;
}

void weft_kit_exit(const struct weft_caller *prev)
{
	int k = M.cur + 1;

	if (!prev) {
		if (M.callers[k].c == M.kit_callers[k])
			M.callers[k].c = NULL;
		M.kit_callers[k] = NULL;
	}
}

/* ---------------------------------------------------------- scheduling */

static void thread_main(void *arg);

/* TSan: every thread start is ordered after the host's setup and every
 * thread end before the host's audits and the next world reset, as
 * pthread_create/pthread_join order them. Accesses between the threads of
 * one execution stay unordered unless the model orders them. */
static int tsan_start_sync, tsan_done_sync;

/* The record of the decision at the current step (kept for reproducers,
 * always), filled before the strategy picks, from fields still in
 * registers, and counted (M.nr_dec) only once the choice is in; NULL when
 * the records are full. */
static inline __attribute__((always_inline)) struct weft_decision_rec *
decision_slot(uint64_t offer, int cur, int dflt, const struct weft_site *s)
{
	if (__builtin_expect(M.nr_dec == M.cap_dec, 0)) {
		struct weft_decision_rec *n = record_grown(M.dec, &M.cap_dec, 1024,
							   WEFT_MAX_RECORD_DECISIONS, sizeof(*n));
		if (!n)
			return NULL;
		M.dec = n;
	}
	struct weft_decision_rec *r = &M.dec[M.nr_dec];
	r->step = M.step;
	r->runnable = offer;
	r->cur = cur < 0 ? 0xff : (uint8_t)cur;
	r->dflt = (uint8_t)dflt;
	r->site_id = s ? site_id(s) : 0;
	return r;
}

/* weft_sched_decide() in general: the strategy's pick_next() asked with a
 * struct weft_decision. not_dflt: threads the default is not, unless
 * every fair thread is one (a yielder offered as a fair alternative);
 * retry: threads whose unfair choice only repeats a spin iteration
 * (weft_decision.spin_retry). */
static __attribute__((noinline)) unsigned decide_asked(uint64_t offer, int cur_ok,
							uint64_t not_dflt, uint64_t retry,
							const struct weft_site *s)
{
	uint32_t index = M.decisions++;
	uint64_t unfair = unfair_of(offer);
	int cur = cur_ok && !(unfair >> M.cur & 1) ? M.cur : -1;
	/* the default after a switch is the lowest fair thread; a pending
	 * interrupt only when nothing else can run */
	uint64_t fair = offer & ~unfair;
	if (fair & ~not_dflt)
		fair &= ~not_dflt;
	uint64_t threads = fair & ~M.irq_threads;
	int dflt = cur >= 0 ? cur : (int)lowest(threads ? threads : fair);
	struct weft_decision_rec *r = decision_slot(offer, cur, dflt, s);
	struct weft_decision d = { .index = index, .step = M.step, .cur = cur, .runnable = offer,
				   .dflt = dflt, .site = s, .unfair = unfair,
				   .spin_retry = retry & unfair };
	int c = M.pick_rng ? (int)weft_uniform_pick(M.pick_rng, offer) : M.ops->pick_next(M.st, &d);
	if (c < 0 || c >= WEFT_EXEC_MAX_THREADS || !(offer & tbit((unsigned)c)))
		c = dflt;
	return decision_done(r, cur, c);
}

/* Ask the strategy; returns the chosen runnable thread. cur_ok: the current
 * thread may continue (a preemption point). A strategy whose pick is a
 * uniform draw (ops->uniform: random) is drawn here, on the same
 * generator, without the call and the struct weft_decision, on a path
 * that calls nothing and so saves no register (decide_drawn_ok(),
 * sched.h); anything else is decide_asked()'s (a tail call). */
unsigned weft_sched_decide(uint64_t offer, int cur_ok, const struct weft_site *s)
{
	if (!decide_drawn_ok(s))
		return decide_asked(offer, cur_ok, 0, 0, s);
	return decide_drawn(offer, cur_ok, 0, s);
}

unsigned weft_sched_decide_yield(uint64_t offer, unsigned yielder, bool fair, uint64_t retry,
				 const struct weft_site *s)
{
	/* fair: the yielder is neither the default nor unfair, and going on
	 * is no preemption (cur_ok 0); else it spun (weft_fair_spun()), and
	 * the decision is any preemption point's */
	uint64_t not_dflt = fair ? tbit(yielder) : 0;

	if (!decide_drawn_ok(s))
		return decide_asked(offer, !fair, not_dflt, retry, s);
	return decide_drawn(offer, !fair, not_dflt, s);
}

/* weft_sched_switch_to() with anything to do besides the switch itself */
static __attribute__((noinline)) void switch_full(unsigned next, bool leaving)
{
	int prev = M.cur;
	struct wthread *n = &M.th[next];

	M.switches++;
	fair_switch(prev, n);
	/* last_site is NULL for a thread that ends before its first primitive */
	if (M.fb_sw && prev >= 0)
		fb_hit_to(M.fb_sw, 0x5100000000000000ull ^
		       (uint64_t)(M.th[prev].last_site ? site_id(M.th[prev].last_site) : 0) << 24 ^
		       (n->last_site ? site_id(n->last_site) : 0));
	M.cur = (int)next;
	if (__builtin_expect(M.switch_watch, 0))
		FAMILIES_CALL(switched, next);
	if (__builtin_expect(weft_mem_switch_due, 0))
		weft_mem_switch_in(next);
	if (!n->started) {
		n->started = true;
		M.started |= tbit(next);
		n->pass = true;
		n->pass_step = UINT32_MAX;
		n->last_site = NULL;
		weft_fiber_reset(&n->fib, thread_main, (void *)(uintptr_t)next);
	} else {
		/* n resumes inside its own call of this function (every started
		 * thread that runs again was paused here; the other switches
		 * out of a thread, to the host, leave it for good): what that
		 * call does once n runs again is done here, before entering n,
		 * with M.cur already n and nothing between. So nothing is live
		 * across the switch below, which is a tail call and the
		 * function saves no register. A preempted migratable task picks
		 * the CPU it resumes on. */
		if (__builtin_expect(n->may_migrate, 0))
			FAMILIES_CALL(resumed, next);
		if (__builtin_expect(M.world_resume != NULL, 0))
			M.world_resume(next);
	}
#ifdef WEFT_TSAN
	weft_fiber_switch(prev < 0 ? &M.main : &M.th[prev].fib, &n->fib, leaving);
	if (__builtin_expect(M.draining, 0)) {
		/* an aborted execution's paused fiber, resumed only to hand its
		 * accesses over to the host context (see drain_for_tsan) */
		weft_tsan_release(&tsan_done_sync);
		weft_fiber_switch(&M.th[prev].fib, &M.main, true);
	}
#else
	weft_fiber_switch(prev < 0 ? &M.main : &M.th[prev].fib, &n->fib, leaving);
#endif
}

/* The common switch, to a started thread with nobody to tell, calls
 * nothing but the fiber switch (a tail call): no register saved. */
void weft_sched_switch_to(unsigned next, bool leaving)
{
	int prev = M.cur;

	if ((int)next == prev)
		return;
#ifndef WEFT_TSAN
	struct wthread *n = &M.th[next];
	if (__builtin_expect(n->started && !n->may_migrate && !M.fb_sw && !M.switch_watch &&
			     !weft_mem_switch_due && !M.world_resume, 1)) {
		M.switches++;
		fair_switch(prev, n);
		M.cur = (int)next;
		weft_fiber_switch(prev < 0 ? &M.main : &M.th[prev].fib, &n->fib, leaving);
		return;
	}
#endif
	switch_full(next, leaving);
}

/* Thread tid, migratable, goes on at a preemption point (s) where others
 * could run instead: unless it holds its CPU, the kernel could move it now
 * as well as after a preemption (the stopper of its CPU preempts it and
 * pushes it away: a lone task too). The resumed hook (context.c) moves it
 * only where the move can change what may happen, as a model choice; a
 * thread moved is as good as preempted there: who runs next is decided
 * again, as its old CPU's contexts may now run beside it. */
void weft_sched_stay_migratable(unsigned tid, const struct weft_site *s)
{
	struct wthread *t = &M.th[tid];
	unsigned from = M.cpu_of[tid];

	if (M.sc->nr_cpus < 2 || thread_holds_cpu(t))
		return;
	t->may_migrate = WEFT_MIGRATE_STAYS;
	FAMILIES_CALL(resumed, tid);
	t->may_migrate = 0;
	if (M.cpu_of[tid] == from)
		return;
	/* the move is a step of its own (the decision after it is not the one
	 * before it: pct's change point may fall on either) */
	if (__builtin_expect(++M.step > M.step_budget, 0))
		weft_sched_livelock("step budget exhausted");
	uint64_t e = eligible();
	if (e & (e - 1)) {
		unsigned next = weft_sched_decide(e, 1, s);
		if (next != tid)
			weft_sched_switch_to(next, false);
	}
}

static void stuck_report(void) __attribute__((noreturn));

/* The current thread can no longer run (blocked or done): pick another or
 * return to the host context. Never returns for a finished thread. */
void weft_sched_reschedule(bool leaving)
{
	uint64_t e = eligible();

	if (!e) {
		bool blocked = M.runnable != 0;   /* runnable, but their CPU is held */
		for (unsigned i = 0; i < M.nr_threads; i++)
			blocked |= M.th[i].state == T_BLOCKED && !M.th[i].wait_class->idle;
		if (blocked)
			stuck_report();   /* does not return */
		int prev = M.cur;
		M.th[prev].quiet_len = M.run_len;   /* its stretch goes on if woken */
		M.th[prev].quiet_id = M.run_id;
		M.cur = -1;
		weft_fiber_switch(&M.th[prev].fib, &M.main, true);
#ifdef WEFT_TSAN
		/* only a daemon left asleep here at the end (an idle worker,
		 * the RCU callback kthread) is resumed, by drain_for_tsan: hand
		 * its accesses over and go back without running model code, or
		 * a TSan build would take steps the others do not */
		if (M.draining) {
			weft_tsan_release(&tsan_done_sync);
			weft_fiber_switch(&M.th[prev].fib, &M.main, true);
		}
#endif
		return;
	}
	unsigned next = e & (e - 1) ? weft_sched_decide(e, 0, NULL) : lowest(e);
	M.next_flags |= WEFT_EVF_SWITCHED;
	weft_sched_switch_to(next, leaving);
}

void weft_sched_livelock(const char *why)
{
	char spin[160] = "";

	if (M.fair)
		weft_fair_describe(spin, sizeof(spin));
	weft_report(WEFT_KIND_LIVELOCK, NULL, M.cur >= 0 ? M.th[M.cur].last_site : NULL,
		    "%s%s%s", why, spin[0] ? ": " : "", spin);
	__builtin_trap();   /* reports from a thread never return */
}

/* ------------------------------------------------------ blocking, waking */

void weft_sched_block(const void *chan, const struct weft_wait_class *wc,
		      const struct weft_site *s)
{
	struct wthread *t;

	if (M.cur < 0)
		return;
	if (wc && wc->sleeps && !wc->idle)
		FAMILIES_CALL(sleeping, (unsigned)M.cur, true, s);
	t = &M.th[M.cur];
	t->state = T_BLOCKED;
	t->wait_chan = chan;
	t->wait_class = wc;
	t->wait_site = s;
	t->wait_step = M.step;
	M.nr_blocked++;
	M.runnable &= ~tbit((unsigned)M.cur);
	weft_sched_reschedule(false);
	/* woken from a sleep: the wake-up's barriers (try_to_wake_up()) */
	if (__builtin_expect(weft_mem_weak, 0) && wc && wc->sleeps)
		weft_mem_resumed();
}

static inline void wake(unsigned i)
{
	struct wthread *w = &M.th[i];

	if (w->wait_class && w->wait_class->sleeps && !w->wait_class->idle)
		FAMILIES_CALL(sleeping, i, false, w->wait_site);
	M.nr_blocked--;
	w->state = T_RUNNABLE;
	w->wait_chan = NULL;
	w->wait_class = NULL;
	w->wake_step1 = M.step + 1;
	w->waker = (uint8_t)(M.cur < 0 ? 0xff : M.cur);
	M.runnable |= tbit(i);
}

unsigned weft_sched_wake_scan(const void *chan, unsigned n)
{
	unsigned woken = 0;

	for (unsigned i = 0; i < M.nr_threads && woken < n; i++) {
		if (M.th[i].state == T_BLOCKED && M.th[i].wait_chan == chan) {
			wake(i);
			woken++;
		}
	}
	return woken;
}

bool weft_sched_wake_thread(unsigned tid)
{
	if (tid >= M.nr_threads || M.th[tid].state != T_BLOCKED)
		return false;
	wake(tid);
	return true;
}

/* -------------------------------------------------------------- threads */

/* Where a spawned thread's end is traced (not in the weft_sites section:
 * its id is computed on first use, from the same basename/function/text
 * hash as every site). */
static struct weft_site end_site = { __FILE__, "thread_main", "thread end", __LINE__,
				     WEFT_EV_END, 0, WEFT_SITE_SC };

static void thread_main(void *arg)
{
	unsigned tid = (unsigned)(uintptr_t)arg;
	struct wthread *t = &M.th[tid];

	weft_fiber_started(&t->fib, &M.main);
	weft_tsan_acquire(&tsan_start_sync);
	if (thread_irq(t) >= 0) {
		/* an interrupt pseudo-thread: one delivery, then idle (or
		 * pending again if it was raised while it ran) */
		for (;;) {
			FAMILIES_CALL(deliver_irq, tid);
			weft_tsan_release(&tsan_done_sync);
			t->started = false;
			if (t->irq_again) {
				t->irq_again = false;
			} else {
				t->state = T_IDLE;
				M.runnable &= ~tbit(tid);
			}
			FAMILIES_CALL(left_cpu, tid);
			weft_sched_reschedule(true);
			/* Pending again and chosen at once: the switch to
			 * itself did nothing, so deliver again on this fiber,
			 * as a fresh switch-in would (no decision at its first
			 * point). */
			if (t->state != T_RUNNABLE || M.cur != (int)tid)
				__builtin_trap();
			t->started = true;
			t->pass = true;
			t->pass_step = UINT32_MAX;
			t->last_site = NULL;
			weft_tsan_acquire(&tsan_start_sync);
		}
	}
	if (__builtin_expect(M.world_resume != NULL, 0))
		M.world_resume(tid);
	if (t->fn)
		t->fn(M.world, t->arg);
	else
		M.sc->thread(M.world, tid);
	FAMILIES_CALL(thread_exit, tid);
	if (M.core_used)
		FAMILIES_CALL(thread_end, tid);
	weft_tsan_release(&tsan_done_sync);
	t->state = T_DONE;
	t->end_ev = M.evseq;
	M.runnable &= ~tbit(tid);
	if (t->on_cpu_stack)
		FAMILIES_CALL(left_cpu, tid);   /* it ended holding its CPU */
	/* The scenario's own threads end silently (their traces predate
	 * spawned threads and must not change); a spawned thread's end is an
	 * event its joiners depend on. */
	if (t->fn)
		weft_trace(WEFT_EV_END, WEFT_NO_LOC, 0, tid, &end_site);
	weft_sched_step(WEFT_DEP_END, WEFT_NO_LOC, 0, tid, &end_site);
	weft_sched_wake_all(t);
	weft_sched_reschedule(true);
	__builtin_trap();
}

static int join_owner(const void *chan)
{
	return (int)((const struct wthread *)chan - M.th);
}

static bool join_busy(const void *chan, unsigned tid)
{
	(void)tid;
	return ((const struct wthread *)chan)->state != T_DONE;
}

static const struct weft_wait_class join_class = {
	.name = "thread end",
	.sleeps = true,
	.owner = join_owner,
	.busy = join_busy,
};

/* Fibers are made on first use (a TSan fiber is costly to make) and kept
 * for the life of the process; threads 0 .. n-1 get one. */
static int fibers_ensure(unsigned n)
{
	for (; M.nr_fibers < n; M.nr_fibers++)
		if (weft_fiber_create(&M.th[M.nr_fibers].fib, M.stack_size))
			return WEFT_ENOMEM;
	return 0;
}

static struct weft_site shared_cpu_site = { __FILE__, "weft_sched_spawn",
	"a new thread shares a CPU: every CPU has a thread", __LINE__, WEFT_EV_NOTE, 0,
	WEFT_SITE_SC };

/* WEFT_CPU_ANY: the lowest CPU no unfinished thread is on; else the one
 * with the fewest (lowest first), said with a note in the trace. */
static unsigned spawn_cpu(unsigned n)
{
	unsigned nr_cpus = M.sc->nr_cpus ? M.sc->nr_cpus : 1, load[WEFT_EXEC_MAX_CPUS] = { 0 };

	for (unsigned i = 0; i < M.nr_threads; i++)
		if (i != n && M.th[i].state != T_DONE && thread_irq(&M.th[i]) < 0 &&
		    M.cpu_of[i] < WEFT_EXEC_MAX_CPUS)
			load[M.cpu_of[i]]++;
	unsigned best = 0;
	for (unsigned c = 1; c < nr_cpus && c < WEFT_EXEC_MAX_CPUS; c++)
		if (load[c] < load[best])
			best = c;
	if (load[best])
		weft_trace(WEFT_EV_NOTE, WEFT_NO_LOC, best, n, &shared_cpu_site);
	return best;
}

/* A thread slot as a new thread finds it: not started, waiting on nothing,
 * holding no ticket, no event yet.  Scenario threads and interrupt
 * pseudo-threads take their body from the scenario (fn NULL); spawned
 * threads carry their own. */
static void thread_slot_clear(struct wthread *t, void (*fn)(void *world, void *arg), void *arg,
			      const char *label)
{
	t->fn = fn;
	t->arg = arg;
	t->label = label;
	t->end_ev = UINT32_MAX;
	t->started = t->has_ticket = false;
	t->wait_chan = NULL;
	t->wait_class = NULL;
	t->last_site = NULL;
	t->wake_step1 = 0;
}

int weft_sched_spawn(void (*fn)(void *world, void *arg), void *arg, unsigned cpu,
		     const char *label, const struct weft_site *s)
{
	if (M.nr_threads >= WEFT_EXEC_MAX_THREADS) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "weft_thread_spawn: more than %d threads in one execution (the "
			    "limit of an execution, WEFT_EXEC_MAX_THREADS)", WEFT_EXEC_MAX_THREADS);
		return -1;
	}
	if (fibers_ensure(M.nr_threads + 1)) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "weft_thread_spawn: no memory for the fiber of thread %u", M.nr_threads);
		return -1;
	}
	unsigned n = M.nr_threads++;
	struct wthread *t = &M.th[n];
	unsigned nr_cpus = M.sc->nr_cpus ? M.sc->nr_cpus : 1;

	t->state = T_RUNNABLE;
	thread_slot_clear(t, fn, arg, label);
	M.started &= ~tbit(n);
	weft_fair_thread_reset(t);
	M.callers[n + 1].c = NULL;
	M.callers[n + 1].fresh = false;
	M.kit_callers[n + 1] = NULL;
	if (cpu == WEFT_CPU_ANY && !(M.o->checks & WEFT_CHECK_SPAWN_CPU))
		cpu = (M.cur >= 0 ? M.cpu_of[M.cur] : 0) + 1u;   /* as recorded before it */
	M.cpu_of[n] = (uint8_t)(cpu == WEFT_CPU_ANY ? spawn_cpu(n) : cpu % nr_cpus);
	M.runnable |= tbit(n);
	FAMILIES_CALL(spawned, n);
	weft_trace(WEFT_EV_SPAWN, WEFT_NO_LOC, M.cpu_of[n], n, s);
	weft_sched_step(WEFT_DEP_SPAWN, WEFT_NO_LOC, 0, n, s);
	return (int)n;
}

int weft_thread_spawn(void (*fn)(void *world, void *arg), void *arg, unsigned cpu,
		      const struct weft_site *s)
{
	if (M.cur < 0) {
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "weft_thread_spawn from setup or an audit: declare the thread "
			    "in the scenario (nr_threads) instead");
		return -1;
	}
	sched_point(s);
	return weft_sched_spawn(fn, arg, cpu, NULL, s);
}

void weft_thread_join(int tid, const struct weft_site *s)
{
	weft_thread_join_asleep(tid, s, NULL);
}

void weft_thread_join_asleep(int tid, const struct weft_site *s,
			     void (*asleep)(const struct weft_site *s))
{
	if (M.cur < 0)
		return;
	if (tid < 0 || (unsigned)tid >= M.nr_threads) {
		sched_point(s);
		weft_report(WEFT_KIND_ASSERT, NULL, s, "join of T%d, which does not exist", tid);
		return;
	}
	struct wthread *t = &M.th[tid];
	sched_point_at(s, t, 0, &join_class);
	if (tid == M.cur)
		weft_report(WEFT_KIND_DEADLOCK, NULL, s, "T%d joins itself", tid);
	while (t->state != T_DONE) {
		if (asleep)
			asleep(s);
		weft_trace(WEFT_EV_BLOCK, WEFT_NO_LOC, 0, (uint64_t)tid, s);
		weft_sched_step(WEFT_DEP_BLOCKED, WEFT_NO_LOC, 0, (uint32_t)tid, s);
		weft_sched_block(t, &join_class, s);
		M.step++;
	}
	weft_trace(WEFT_EV_JOIN, WEFT_NO_LOC, 0, (uint64_t)tid, s);
	weft_sched_step(WEFT_DEP_JOIN, WEFT_NO_LOC, 0, (uint32_t)tid, s);
}

bool weft_thread_pending(unsigned tid, struct weft_step_info *out, bool *would_block)
{
	const struct wthread *t;

	if (tid >= M.nr_threads)
		return false;
	t = &M.th[tid];
	if (!t->started || t->state != T_RUNNABLE || !t->last_site)
		return false;
	switch (t->last_site->ev) {
	case WEFT_EV_READ: out->kind = WEFT_DEP_READ; break;
	case WEFT_EV_LOCK: out->kind = WEFT_DEP_ACQUIRE; break;
	case WEFT_EV_JOIN: out->kind = WEFT_DEP_JOIN; break;
	case WEFT_EV_SPAWN: out->kind = WEFT_DEP_SPAWN; break;
	case WEFT_EV_YIELD: out->kind = WEFT_DEP_YIELD; break;
	case WEFT_EV_BARRIER: case WEFT_EV_NOTE: case WEFT_EV_CHOICE: case WEFT_EV_OP:
		out->kind = WEFT_DEP_NONE; break;
	default: out->kind = WEFT_DEP_WRITE; break;
	}
	out->step = M.step;
	out->tid = (uint8_t)tid;
	out->loc = t->pend_addr ? loc_of(t->pend_addr) : WEFT_NO_LOC;
	out->size = t->pend_size;
	out->arg = t->pend_class == &join_class
			   ? (uint32_t)((const struct wthread *)t->pend_addr - M.th) : 0;
	out->site = t->last_site;
	out->flags = t->pend_class && !t->pend_class->sleeps ? WEFT_STEP_SPIN : 0;
	/* an operation on an object outside the world will report, not block
	 * (its busy() must not read the host's memory); a join's channel is
	 * the machine's own thread */
	if (would_block)
		*would_block = t->pend_class && t->pend_class->busy &&
			       (out->loc != WEFT_NO_LOC || t->pend_class == &join_class) &&
			       t->pend_class->busy(t->pend_addr, tid);
	return true;
}

uint64_t weft_threads_paused(uint64_t among)
{
	uint64_t r = 0;

	/* runnable, and started once in this execution, from the masks (no
	 * thread of either is past nr_threads): most threads a search asks
	 * about are not started */
	for (among &= M.started & M.runnable; among; among &= among - 1) {
		const struct wthread *t = &M.th[__builtin_ctzll(among)];
		if (t->started && t->last_site)
			r |= among & -among;
	}
	return r;
}

bool weft_thread_woken(unsigned tid, unsigned *waker, uint32_t *step)
{
	if (tid >= M.nr_threads || !M.th[tid].wake_step1)
		return false;
	*waker = M.th[tid].waker;
	*step = M.th[tid].wake_step1 - 1;
	return true;
}

unsigned weft_cpu_of(const struct weft_scenario *sc, unsigned tid)
{
	return sc->cpu_of ? sc->cpu_of[tid] : tid % (sc->nr_cpus ? sc->nr_cpus : 1);
}

unsigned weft_current_tid(void)
{
	return M.cur < 0 ? 0 : (unsigned)M.cur;
}

uint32_t weft_epoch_wrap_every;

uint32_t weft_execution_id(void)
{
	return M.epoch;   /* monotonic: a bigger world does not restart it */
}

bool weft_in_thread(void)
{
	return M.in_exec && M.cur >= 0;
}

/* -------------------------------------------------------------- reports */

/* The caller of the traced event of access a, while the ring holds it. */
static const struct weft_caller *ring_caller(const struct weft_access *a)
{
	uint32_t n = !M.keep_ring ? 0 : M.evseq < WEFT_TRACE_RING ? M.evseq : WEFT_TRACE_RING;

	for (uint32_t k = 1; k <= n; k++) {
		const struct weft_event *e = &M.ring[(M.evseq - k) % WEFT_TRACE_RING];
		if (e->step < a->step)
			break;
		if (e->step == a->step && e->site == a->site &&
		    e->tid == (a->tid < 0 ? 0xff : (uint8_t)a->tid))
			return e->caller;
	}
	return NULL;
}

/* here_tid: the thread the report is about (normally M.cur; a stuck
 * sleeper for a lost wakeup, reported from whichever thread ran last). */
static __attribute__((format(printf, 8, 0))) void
vreport(enum weft_kind k, const void *obj, const char *objname, const struct weft_site *s,
	const struct weft_access *other, int here_tid, uint32_t since, const char *fmt,
	va_list ap)
{
	struct weft_report *r = &M.res->report;

	if (M.res->kind != WEFT_KIND_NONE)
		goto out;   /* the first report of an execution wins */
	M.res->kind = k;
	r->kind = k;
	r->here.valid = true;
	r->here.tid = here_tid;
	r->here.cpu = here_tid < 0 ? -1 : (int)M.cpu_of[here_tid];
	r->here.step = M.step;
	r->here.site = s;
	r->here_since = since;
	r->loc = obj ? loc_of(obj) : WEFT_NO_LOC;
	r->here_caller = M.kit_callers[here_tid + 1] ? M.kit_callers[here_tid + 1]
						      : M.callers[here_tid + 1].c;
	if (other)
		r->other = *other;
	else if (obj)
		r->other = weft_last_write(obj);
	r->other_caller = r->other.valid ? ring_caller(&r->other) : NULL;
	if (objname)
		snprintf(r->object, sizeof(r->object), "%s", objname);
	else if (r->loc != WEFT_NO_LOC)
		weft_describe_loc(M.sc, r->loc, r->object, sizeof(r->object));
	else
		r->object[0] = 0;
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	weft_report_stack_of(here_tid, r->stack, sizeof(r->stack));
	/* the failing access as the last traced event */
	if (s) {
		M.next_flags |= WEFT_EVF_FAILED;
		weft_trace(WEFT_EV_NOTE, r->loc, k, 0, s);
	}
out:
	/* End the execution: abandon every fiber, back to the host. */
	weft_sched_exit();
}

void weft_sched_infeasible(void)
{
	if (!M.in_exec || M.cur < 0)
		return;
	for (unsigned t = 0; t < M.nr_threads; t++)
		if ((int)t != M.cur && M.th[t].state != T_DONE)
			M.infeasible = true;
	weft_sched_exit();
}

void weft_sched_exit(void)
{
	int prev = M.cur;

	if (!M.in_exec || prev < 0)
		return;
	M.aborted = true;
	M.abort_tid = prev;
	M.cur = -1;
	weft_tsan_release(&tsan_done_sync);
	weft_fiber_switch(&M.th[prev].fib, &M.main, true);
	__builtin_trap();
}

void weft_report(enum weft_kind k, const void *obj, const struct weft_site *s,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(k, obj, NULL, s, NULL, M.cur, M.step, fmt, ap);
	va_end(ap);
}

void weft_report2(enum weft_kind k, const void *obj, const struct weft_site *s,
		  const struct weft_access *other, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(k, obj, NULL, s, other, M.cur, M.step, fmt, ap);
	va_end(ap);
}

static void report_obj(enum weft_kind k, const char *objname, const struct weft_site *s,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void report_obj(enum weft_kind k, const char *objname, const struct weft_site *s,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(k, NULL, objname, s, NULL, M.cur, M.step, fmt, ap);
	va_end(ap);
}

/* Outside the world no offset names a place; near it (a negative index, an
 * index one past the end) the distance from the world's start does, and it
 * is the same in every run. Farther away, the distance depends on where
 * the host put the world: not printed. */
#define WORLD_NEAR ((uintptr_t)1 << 16)

/* The executable's data and bss (the linker's symbols, weak: absent, no
 * match): where a model's file-scope `static spinlock_t lock;` lies. */
extern char __data_start[] __attribute__((weak));
extern char _end[] __attribute__((weak));

static bool in_program_statics(uintptr_t a)
{
	return __data_start && _end && a >= (uintptr_t)__data_start && a < (uintptr_t)_end;
}

static void outside_name(const void *p, size_t size, char *where, size_t n, char *why,
			 size_t nw)
{
	uintptr_t a = (uintptr_t)p, w = (uintptr_t)M.world;

	if (a < 65536) {
		snprintf(where, n, "NULL+0x%lx", (unsigned long)a);
		snprintf(why, nw, "a NULL pointer");
	} else if (a < w && w - a <= WORLD_NEAR) {
		snprintf(where, n, "world-0x%lx", (unsigned long)(w - a));
		snprintf(why, nw, "%lu bytes before the world", (unsigned long)(w - a));
	} else if (a >= w && a - w < M.world_size) {
		snprintf(where, n, "world+0x%lx", (unsigned long)(a - w));
		snprintf(why, nw, "across the world's end at world+0x%zx", M.world_size);
	} else if (a >= w && a - w < M.world_size + WORLD_NEAR) {
		snprintf(where, n, "world+0x%lx", (unsigned long)(a - w));
		snprintf(why, nw, "%lu bytes past the world's end at world+0x%zx",
			 (unsigned long)(a - w - M.world_size), M.world_size);
	} else if (in_program_statics(a)) {
		snprintf(where, n, "a static variable of the program");
		snprintf(why, nw, "a model keeps all it shares, locks too, in its world struct");
	} else {
		snprintf(where, n, "an address far from the world");
		snprintf(why, nw, "a host variable or a wild pointer");
	}
	(void)size;
}

bool weft_out_of_world(const void *p, size_t size, const struct weft_site *s)
{
	char where[48], why[96];

	if (!M.running) {
		/* a primitive called with no execution under way: a bug of the
		 * program around the model, not of the model */
		fprintf(stderr, "weft: %s called outside an execution (no world to act on)\n",
			s ? s->what : "a primitive");
		abort();
	}
	outside_name(p, size, where, sizeof(where), why, sizeof(why));
	report_obj(WEFT_KIND_OUT_OF_WORLD, where, s,
		   "%s touches %zu byte%s at %s (%s): not performed (a bad index or pointer "
		   "in the model)", s ? s->what : "an access", size, size == 1 ? "" : "s", where,
		   why);
	return false;
}

bool weft_warn2(enum weft_kind k, const void *obj, const struct weft_site *s,
		const struct weft_access *other, const char *fmt, ...)
{
	va_list ap;

	/* gone past: no event and no verdict, so the trace is the one a run
	 * that never checked would have */
	if (M.o->continue_kinds >> k & 1 && WEFT_WARNING_KINDS >> k & 1) {
		M.res->continued_kinds |= 1ull << k;
		return true;
	}
	va_start(ap, fmt);
	vreport(k, obj, NULL, s, other, M.cur, M.step, fmt, ap);
	va_end(ap);
	return false;
}

static void report_as(enum weft_kind k, const void *obj, const struct weft_site *s,
		      const struct weft_access *other, int here_tid, uint32_t since,
		      const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void report_as(enum weft_kind k, const void *obj, const struct weft_site *s,
		      const struct weft_access *other, int here_tid, uint32_t since,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(k, obj, NULL, s, other, here_tid, since, fmt, ap);
	va_end(ap);
}

/* "T3", or "T3 (irq dev_irq)" for an interrupt pseudo-thread. */
static const char *thread_name(int tid, char *buf, size_t n)
{
	if (tid >= 0 && (unsigned)tid < M.nr_threads && thread_irq(&M.th[tid]) >= 0)
		snprintf(buf, n, "T%d (irq %s)", tid,
			 M.th[tid].irq1 == WEFT_IRQ1_DYNAMIC ? M.th[tid].label
							     : M.sc->irqs[thread_irq(&M.th[tid])].name);
	else if (tid >= 0 && (unsigned)tid < M.nr_threads && M.th[tid].label)
		snprintf(buf, n, "T%d (%s)", tid, M.th[tid].label);
	else
		snprintf(buf, n, "T%d", tid);
	return buf;
}

static int wait_owner(const struct wthread *t)
{
	if (t->wait_class && t->wait_class->waiter_owner)
		return t->wait_class->waiter_owner(t->wait_chan, (unsigned)(t - M.th));
	return t->wait_class && t->wait_class->owner ? t->wait_class->owner(t->wait_chan) : -1;
}

/*
 * Every unfinished thread is blocked. A sleeper whose channel has no owner
 * has nobody left to wake it: a lost wakeup, reported on the sleeper with
 * the last write to its channel as the other side (the waker that missed
 * it, or the store that erased the sign that someone waits). Otherwise the
 * waiters wait for owners that are blocked themselves (a cycle) or ended
 * holding what they wait for: a deadlock. Spinlock waits keep the message
 * format of the first landing (stored replays name it).
 */
static void stuck_report(void)
{
	char buf[192];
	size_t n = 0;
	const void *first = NULL;

	for (unsigned i = 0; i < M.nr_threads; i++) {
		struct wthread *t = &M.th[i];
		if (t->state != T_BLOCKED || wait_owner(t) >= 0 || !t->wait_class ||
		    !t->wait_class->sleeps || t->wait_class->idle)
			continue;
		char obj[48];
		struct weft_access other = weft_last_write(t->wait_chan);
		if (t->wait_chan)
			weft_describe_loc(M.sc, loc_of(t->wait_chan), obj, sizeof(obj));
		else
			snprintf(obj, sizeof(obj), "nothing");
		report_as(WEFT_KIND_LOST_WAKEUP, t->wait_chan, t->wait_site,
			  other.valid ? &other : NULL, (int)i, t->wait_step,
			  "T%u sleeps on %s (%s) and no thread is left that can wake it", i,
			  obj, t->wait_class->name);
		__builtin_trap();   /* reports from a thread never return */
	}
	for (unsigned i = 0; i < M.nr_threads; i++) {
		if (!weft_await_is(&M.th[i]))
			continue;
		/* a thread spins on values nobody is left to change (await.c):
		 * a hang of the program, which CHESS calls a livelock */
		weft_await_describe(buf, sizeof(buf));
		M.await_hang = true;   /* no thread could run on: not cut short */
		weft_report(WEFT_KIND_LIVELOCK, NULL, M.th[i].spin_site,
			    "every thread left waits, and a spin loop waits for values that no "
			    "thread can change: %s", buf);
		__builtin_trap();   /* reports from a thread never return */
	}
	buf[0] = 0;
	for (unsigned i = 0; i < M.nr_threads && n < sizeof(buf) - 40; i++) {
		struct wthread *t = &M.th[i];
		if (t->state == T_RUNNABLE && (M.excluded >> i & 1)) {
			/* runnable, but another context holds its CPU */
			unsigned c = M.cpu_of[i];
			int top = M.cpu_depth[c] ? M.cpu_stack[c][M.cpu_depth[c] - 1] : -1;
			char a[64], b[64];
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s waits for CPU%u (%s %s)",
					      n ? "; " : "", thread_name((int)i, a, sizeof(a)), c,
					      top >= 0 && thread_irq(&M.th[top]) >= 0 ? "interrupted by"
									     : "held by",
					      thread_name(top, b, sizeof(b)));
			if (n >= sizeof(buf))
				n = sizeof(buf) - 1;
			continue;
		}
		if (t->state != T_BLOCKED || t->wait_class->idle)
			continue;
		char obj[48];
		int owner = wait_owner(t);
		weft_describe_loc(M.sc, loc_of(t->wait_chan), obj, sizeof(obj));
		char who[64];
		if (thread_irq(t) >= 0 || t->label)
			thread_name((int)i, who, sizeof(who));
		else
			snprintf(who, sizeof(who), "T%u", i);   /* the first landing's form */
		char by[16];
		if (owner == WEFT_OWNER_HOST)
			snprintf(by, sizeof(by), "setup");
		else if (owner < 0)
			snprintf(by, sizeof(by), "nobody known");
		else
			snprintf(by, sizeof(by), "T%d", owner);
		if (t->wait_class && !strcmp(t->wait_class->name, "spinlock"))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "%s%s waits for %s (held by %s)", n ? "; " : "",
					      who, obj, by);
		else
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "%sT%u waits for %s (%s of %s%s)", n ? "; " : "", i,
					      obj, t->wait_class ? t->wait_class->name : "?", by,
					      owner >= 0 && M.th[owner].state == T_DONE ? ", which ended"
											: "");
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		if (!first)
			first = t->wait_chan;
	}
	weft_report(WEFT_KIND_DEADLOCK, first, M.cur >= 0 ? M.th[M.cur].last_site : NULL, "%s",
		    buf);
	__builtin_trap();   /* reports from a thread never return */
}

void weft_describe_loc(const struct weft_scenario *sc, uint32_t off, char *buf, size_t n)
{
	if (off == WEFT_NO_LOC) {
		snprintf(buf, n, "(outside the world)");
		return;
	}
	if (M.world && off >= M.core_off && off < M.core_off + weft_core_size) {
		for (unsigned i = 0; i < weft_nr_families; i++)
			if (weft_families[i]->describe && weft_families[i]->describe(off, buf, n))
				return;
		snprintf(buf, n, "core+0x%x", off - M.core_off);
		return;
	}
	if (M.world && sc && sc->heap_size && off >= weft_heap_offset(sc) &&
	    off < weft_world_extent(sc)) {
		for (unsigned i = 0; i < weft_nr_families; i++)
			if (weft_families[i]->describe && weft_families[i]->describe(off, buf, n))
				return;
	}
	if (sc && sc->describe && M.world) {
		buf[0] = 0;
		sc->describe(M.world, off, buf, n);
		if (buf[0])
			return;
	}
	for (const struct weft_field *f = sc ? sc->fields : NULL; f && f->name; f++)
		if (f->off == off) {
			snprintf(buf, n, "%s", f->name);
			return;
		}
	snprintf(buf, n, "world+0x%x", off);
}

/* ------------------------------------------------------------ execution */

/* TSan only: resume each paused fiber of an aborted execution once, so it
 * releases its accesses to the host before it is scrubbed (switch_to sees
 * M.draining and comes straight back). */
static void drain_for_tsan(void)
{
#ifdef WEFT_TSAN
	M.draining = true;
	for (unsigned i = 0; i < M.nr_threads; i++) {
		struct wthread *t = &M.th[i];
		if (!t->started || t->state == T_DONE || M.stack_overflow ||
		    (int)i == M.abort_tid)
			continue;
		M.cur = (int)i;
		weft_fiber_switch(&M.main, &t->fib, false);
	}
	M.cur = -1;
	M.draining = false;
#endif
}

int weft_execute(const struct weft_run_opts *o, const struct weft_strategy_ops *ops, void *st,
		 struct weft_exec_result *r)
{
	if (!M.inited && weft_machine_init())
		return WEFT_ENOMEM;
	if (__builtin_expect(weft_swap_audit_pairs != 0, 0))
		return weft_swap_audit_execute(o, ops, st, r);
	return weft_execute_one(o, ops, st, r);
}

int weft_execute_one(const struct weft_run_opts *o, const struct weft_strategy_ops *ops, void *st,
		     struct weft_exec_result *r)
{
	const struct weft_scenario *sc = o->sc;
	int n;

	/* the machine is initialised (weft_execute()) */
	char why[160];
	if (weft_scenario_check(sc, why, sizeof(why)))
		return WEFT_EINVAL;
	if (fibers_ensure(sc->nr_threads + sc->nr_irqs))
		return WEFT_ENOMEM;
	memset(r, 0, sizeof(*r));
	n = ops->begin ? ops->begin(st, M.wl_bytes, sizeof(M.wl_bytes)) : 0;
	if (n < 0)
		return n;
	weft_tsan_host_ignore(true);
	M.wl_len = (size_t)n;
	{
		/* the run's memory model, never weakened by the input's */
		int m = o->memory < WEFT_MEM__COUNT ? o->memory : WEFT_MEM_SC;
		int asked = ops->memory ? ops->memory(st) : -1;
		weft_mem_reset((enum weft_memory_model)(asked >= 0 && asked < m ? asked : m));
	}
	if (sc->world_ops ? world_attach(sc)
			  : world_reserve(weft_world_extent(sc) ? weft_world_extent(sc) : 1)) {
		weft_tsan_host_ignore(false);
		return WEFT_ENOMEM;
	}

	M.o = o;
	M.sc = sc;
	M.ops = ops;
	M.st = st;
	M.pick_rng = ops->uniform ? ops->uniform(st) : NULL;
	M.res = r;
	M.world_size = weft_world_extent(sc);   /* the heap too: zeroed, in the world */
	/* weft_peek_ptr()'s one comparison; a world under 16 bytes (never
	 * seen, but legal) always takes the slow path */
	weft_world_bounds.base = M.world_size >= 16 ? (uintptr_t)M.world : UINTPTR_MAX / 2;
	weft_world_bounds.end16 = M.world_size >= 16 ? M.world_size - 16 : 0;
	M.world_resume = sc->world_ops ? sc->world_ops->resume : NULL;
	if (sc->world_ops)
		sc->world_ops->reset(M.world, M.world_size);
	else
		memset(M.world, 0, M.world_size);
	core_reset(sc, M.world_size);
	if (weft_epoch_advance(&M.epoch))
		memset(M.shadow, 0, M.world_cap * sizeof(*M.shadow));
	M.step_budget = o->step_budget ? o->step_budget
			: sc->step_budget ? sc->step_budget : WEFT_DEFAULT_STEP_BUDGET;
	M.hashing = o->no_trace_hash ? 0 : (o->checks & WEFT_CHECK_TRACE_HASH2) ? WEFT_HASH2 : WEFT_HASH1;
	M.keep_ring = M.hashing || o->record;
	M.on_step = ops->on_step;
	if (__builtin_expect(weft_point_hook != NULL, 0))
		weft_dep_audit_wrap();
	M.nr_threads = sc->nr_threads;
	for (unsigned i = 0; i < M.nr_threads; i++)
		M.cpu_of[i] = (uint8_t)weft_cpu_of(sc, i);
	M.cur = -1;
	M.step = M.decisions = M.switches = M.preemptions = M.choices = 0;
	M.free_choices = 0;
	M.choice_unfair = 0;
	M.lone_yields = 0;
	M.evseq = 0;
	M.hash = 0x5745465400000001ull; /* "WEFT" */
	M.next_flags = 0;
	M.aborted = false;
	M.infeasible = false;
	M.abort_tid = -1;
	M.stack_overflow = false;
	M.nr_ev = M.nr_dec = M.nr_sh = 0;
	if (o->record && !M.state_hashes) {
		M.cap_sh = 1u << 14;
		M.state_hashes = malloc(M.cap_sh * sizeof(*M.state_hashes));
		if (!M.state_hashes)
			M.cap_sh = 0;
	}
	/* M.ring is not cleared: its readers (ring_caller, weft_last_ring)
	 * read only the M.evseq events this execution wrote */
	/* a report may leave a call open: the host's and the scenario's
	 * threads' (a spawned thread's at its spawn) */
	memset(M.callers, 0, (sc->nr_threads + sc->nr_irqs + 1) * sizeof(M.callers[0]));
	memset(M.kit_callers, 0, (sc->nr_threads + sc->nr_irqs + 1) * sizeof(M.kit_callers[0]));

	weft_workload_decode(sc, M.wl_bytes, M.wl_len, &M.wl);
	M.running = true;
	M.word_written = NULL;
	M.host_quiet = !M.on_step && !M.fb && !o->record;
	if (sc->setup)
		sc->setup(M.world, o->variant, &M.wl);

	if (r->kind == WEFT_KIND_NONE) {
		M.runnable = 0;
		M.started = 0;
		M.nr_blocked = 0;
		for (unsigned i = 0; i < M.nr_threads; i++) {
			M.th[i].state = T_RUNNABLE;
			thread_slot_clear(&M.th[i], NULL, NULL, NULL);
			M.runnable |= tbit(i);
		}
		/* interrupt pseudo-threads after the scenario's threads */
		for (unsigned k = 0; k < sc->nr_irqs; k++) {
			struct wthread *t = &M.th[M.nr_threads + k];
			uint32_t cpus = sc->irqs[k].cpus;
			thread_slot_clear(t, NULL, NULL, NULL);
			M.cpu_of[M.nr_threads + k] = (uint8_t)(cpus ? __builtin_ctz(cpus) : 0);
		}
		M.nr_threads += sc->nr_irqs;
		weft_fair_reset();   /* the machine's own, before the families' */
		FAMILIES_CALL(begin);   /* contexts, lockdep, workqueues */
		M.lean = (M.hashing == WEFT_HASH2 || !M.hashing) && !M.on_step && !M.fb &&
			 !weft_mem_weak && !o->record;
		/* only when the run asks (the fuzz targets' genomes): never
		 * for DPOR's or an audit's on_step (the lean point skips
		 * weft_mem_point(), the audits' hook) */
		M.lean_fb = o->genome_lean && !M.lean && (M.hashing == WEFT_HASH2 || !M.hashing) &&
			    !weft_mem_weak && !o->record && !weft_point_hook;
		if (__builtin_expect(weft_point_hook != NULL, 0))
			weft_dep_audit_begin();
		M.in_exec = true;
		/* savemask 0: saving the mask is an rt_sigprocmask syscall per
		 * execution (a third of a small scenario's time, measured by
		 * bench/); the rare overflow path unblocks the signal itself. */
		weft_tsan_release(&tsan_start_sync);
		if (sigsetjmp(M.overflow_jmp, 0) == 0) {
			uint64_t e = eligible();
			weft_sched_switch_to(e & (e - 1) ? weft_sched_decide(e, 0, NULL) : lowest(e), false);
		} else {
			/* SIGSEGV on a guard page: we are back on the host stack,
			 * with SIGSEGV still blocked by the handler's entry */
			sigset_t segv;
			sigemptyset(&segv);
			sigaddset(&segv, SIGSEGV);
			sigaddset(&segv, SIGBUS);
			sigprocmask(SIG_UNBLOCK, &segv, NULL);
			int t = M.cur;
			M.cur = -1;
			M.aborted = true;
			if (r->kind == WEFT_KIND_NONE) {
				r->kind = WEFT_KIND_STACK_OVERFLOW;
				r->report.kind = WEFT_KIND_STACK_OVERFLOW;
				r->report.here.valid = true;
				r->report.here.tid = t;
				r->report.here.cpu = t < 0 ? -1 : (int)weft_cpu_of(sc, (unsigned)t);
				r->report.here.step = M.step;
				r->report.here_since = M.step;
				r->report.here.site = t >= 0 ? M.th[t].last_site : NULL;
				r->report.loc = WEFT_NO_LOC;
				snprintf(r->report.msg, sizeof(r->report.msg),
					 "model thread T%d overflowed its %zu KiB fiber stack "
					 "(raise WEFT_STACK_KIB)", t,
					 M.th[0].fib.stack_size / 1024);
			}
		}
		M.in_exec = false;
		M.lean = false;
		M.lean_fb = false;
		M.cur = -1;
		if (__builtin_expect(weft_point_hook != NULL, 0))
			weft_dep_audit_end(!M.aborted && r->kind == WEFT_KIND_NONE);
		/* weak memory: every store is visible before the audits */
		if (__builtin_expect(weft_mem_weak, 0) && !M.aborted && r->kind == WEFT_KIND_NONE)
			weft_mem_drain_all();
		/* an aborted execution's paused threads, and at a normal end the
		 * daemons left asleep (idle workers) */
		bool paused = M.aborted;
		for (unsigned i = 0; i < M.nr_threads && !paused; i++)
			paused = M.th[i].started && M.th[i].state != T_DONE;
		if (paused) {
			drain_for_tsan();
			for (unsigned i = 0; i < M.nr_threads; i++)
				if (M.th[i].started && M.th[i].state != T_DONE)
					weft_fiber_scrub(&M.th[i].fib);
		}
		weft_tsan_acquire(&tsan_done_sync);
		if (r->kind == WEFT_KIND_NONE && sc->quiesce)
			sc->quiesce(M.world);
		if (r->kind == WEFT_KIND_NONE && !M.aborted)
			FAMILIES_CALL(exec_end);
	}

	if (sc->world_ops && sc->world_ops->done)
		sc->world_ops->done(M.world, M.world_size);
	M.running = false;
	M.host_quiet = false;
	weft_tsan_host_ignore(false);
	r->steps = M.step;
	r->decisions = M.decisions;
	r->switches = M.switches;
	r->preemptions = M.preemptions;
	r->trace_hash = M.hashing ? M.hash ^ (uint64_t)r->kind << 56 : 0;
	r->infeasible = M.infeasible && r->kind == WEFT_KIND_NONE;
	r->cut_short = M.aborted && r->kind != WEFT_KIND_DEADLOCK &&
		       r->kind != WEFT_KIND_LOST_WAKEUP && !M.await_hang;
	r->nr_wl_bytes = (uint32_t)M.wl_len;
	r->nr_choices = M.choices;
	if (ops->end)
		ops->end(st, r);
	return 0;
}

const struct weft_event *weft_last_events(size_t *n)
{
	*n = M.nr_ev;
	return M.ev;
}

const struct weft_decision_rec *weft_last_decisions(size_t *n)
{
	*n = M.nr_dec;
	return M.dec;
}

const uint8_t *weft_last_workload(size_t *n)
{
	*n = M.wl_len;
	return M.wl_bytes;
}

const uint32_t *weft_last_choices(size_t *n)
{
	*n = M.choices < WEFT_MAX_CHOICES ? M.choices : WEFT_MAX_CHOICES;
	return M.choice_vals;
}

const uint64_t *weft_last_state_hashes(size_t *n)
{
	*n = M.nr_sh;
	return M.state_hashes;
}

unsigned weft_last_nr_threads(void)
{
	return M.nr_threads;
}

int weft_last_thread_irq(unsigned tid)
{
	return tid < M.nr_threads ? thread_irq(&M.th[tid]) : -1;
}

uint32_t weft_free_choices(void)
{
	return M.free_choices;
}

bool weft_contexts_active(void)
{
	return M.ctx_active;
}

bool weft_interrupts_active(void)
{
	return M.ctx_active && (M.sc->nr_irqs || M.irq_threads);
}

unsigned weft_thread_cpu(unsigned tid)
{
	return tid < WEFT_EXEC_MAX_THREADS ? M.cpu_of[tid] : 0;
}

bool weft_fair_restricted(void)
{
	return M.fair_restricted;
}

uint64_t weft_choice_unfair(void)
{
	return M.choice_unfair;
}

bool weft_unfair_values(void)
{
	return M.unfair_values;
}

void weft_sched_untracked(const char *why)
{
	if (M.cur >= 0 && !M.untracked)
		M.untracked = why;
}

const char *weft_untracked_why(void)
{
	return M.untracked;
}

bool weft_fair_spun_now(unsigned tid)
{
	return tid < M.nr_threads && M.fair && M.th[tid].spun_step == M.step + 1;
}

const void *weft_last_world(void)
{
	return M.world;
}

const struct weft_workload *weft_last_workload_ops(void)
{
	return &M.wl;
}

const char *weft_last_thread_label(unsigned tid)
{
	return tid < M.nr_threads ? M.th[tid].label : NULL;
}

uint32_t weft_last_thread_end(unsigned tid)
{
	return tid < M.nr_threads ? M.th[tid].end_ev : UINT32_MAX;
}

size_t weft_last_ring(struct weft_event *out, size_t cap)
{
	size_t n = 0;
	uint32_t first = M.evseq > WEFT_TRACE_RING ? M.evseq - WEFT_TRACE_RING : 0;

	if (!M.keep_ring)
		return 0;   /* a search's execution (o->no_trace_hash) */
	for (uint32_t i = first; i < M.evseq && n < cap; i++)
		out[n++] = M.ring[i % WEFT_TRACE_RING];
	return n;
}
