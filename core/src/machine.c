/*
 * machine.c - the deterministic machine: model threads as fibers on fake
 * CPUs, scheduling points, blocking, lock models, the shadow state behind
 * the detectors, the trace and its hash.
 *
 * One machine per process (fibers and stacks are made once, in
 * weft_machine_init). Invariants:
 *  - Exactly one model thread runs at a time (M.cur), or the host context
 *    (M.cur == -1) during setup and audits.
 *  - runnable_mask holds exactly the threads in T_RUNNABLE.
 *  - A decision is taken only at a scheduling point with >= 2 runnable
 *    threads; its default is the current thread if it can go on, else the
 *    lowest runnable one; a yield offers only the other runnable threads.
 *  - A fiber switched to for the first time performs its first operation
 *    without another decision (it was chosen to run it): the decision
 *    sequence and the interleaving of operations are in bijection.
 *  - Shadow entries are valid only when their epoch equals M.epoch, so the
 *    reset between executions touches only the world itself.
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

#include "fiber.h"
#include "internal.h"

enum { T_IDLE = 0, T_RUNNABLE, T_BLOCKED, T_DONE };

struct wthread {
	struct weft_fiber fib;
	uint8_t state;
	bool started;
	bool pass;          /* first point after its first switch-in: no decision */
	bool has_ticket;
	struct weft_spinlock *blocked_on;
	uint32_t ticket;
	const struct weft_site *last_site;   /* where it is paused */
};

struct shadow {
	uint32_t epoch;
	uint32_t step;
	const struct weft_site *site;
	uint8_t tid;
	uint8_t poisoned;
};

#define DEFAULT_STEP_BUDGET 200000u
#define LONE_YIELD_LIMIT 1000u
#define MAX_RECORD_EVENTS (1u << 20)
#define MAX_RECORD_DECISIONS (1u << 18)
#define MAX_CHOICES 4096

static struct {
	bool inited;
	struct weft_fiber main;
	struct wthread th[WEFT_MAX_THREADS];

	/* the current execution */
	const struct weft_run_opts *o;
	const struct weft_scenario *sc;
	const struct weft_strategy_ops *ops;
	void *st;
	struct weft_exec_result *res;
	uint8_t *world;
	size_t world_size, world_cap;
	struct shadow *shadow;
	uint32_t epoch;
	uint64_t step_budget;
	unsigned nr_threads;
	uint8_t cpu_of[WEFT_MAX_THREADS];   /* weft_cpu_of(sc, tid), per execution:
					     * trace() runs at every step */
	int cur;
	uint32_t runnable;
	uint32_t step, decisions, switches, preemptions, choices;
	uint32_t lone_yields;
	uint64_t plain_old;   /* value under the pending PLAIN_WRITE */
	uint32_t evseq;     /* events traced in this execution */
	uint64_t hash;
	uint8_t next_flags;
	bool in_exec, aborted, stack_overflow;
	bool draining;
	int abort_tid;      /* the thread whose report ended the execution */
	struct weft_workload wl;
	uint8_t wl_bytes[WEFT_INPUT_MAX];
	size_t wl_len;

	struct weft_event ring[WEFT_TRACE_RING];

	/* recording (o->record) */
	struct weft_event *ev;
	size_t nr_ev, cap_ev;
	struct weft_decision_rec *dec;
	size_t nr_dec, cap_dec;
	uint32_t choice_vals[MAX_CHOICES];
	uint64_t *state_hashes;
	size_t nr_sh, cap_sh;

	/* interleaving feedback */
	uint8_t *fb;
	uint32_t fb_mask;
	sigjmp_buf overflow_jmp;
} M;

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

static uint32_t site_hash(const struct weft_site *s)
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
			(*p)->id = site_hash(*p);
}

static inline uint32_t site_id(const struct weft_site *s)
{
	/* Sites outside the section (never in this tree) get their id late. */
	if (__builtin_expect(!s->id, 0))
		((struct weft_site *)s)->id = site_hash(s);
	return s->id;
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
	struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
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

int weft_machine_init(void)
{
	if (M.inited)
		return 0;
	weft_sites_init();
	weft_fiber_init_main(&M.main);
	const char *env = getenv("WEFT_STACK_KIB");
	size_t stack = WEFT_FIBER_STACK;
	if (env && atoi(env) >= 16)
		stack = (size_t)atoi(env) * 1024;
	for (unsigned i = 0; i < WEFT_MAX_THREADS; i++)
		if (weft_fiber_create(&M.th[i].fib, stack))
			return WEFT_ENOMEM;
	install_overflow_handler();
	M.cur = -1;
	M.inited = true;
	return 0;
}

static int world_reserve(size_t size)
{
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
	free(M.world);
	free(M.shadow);
	M.world = w;
	M.shadow = sh;
	M.world_cap = cap;
	M.epoch = 0;
	return 0;
}

void weft_feedback_attach(uint8_t *map, size_t size)
{
	/* size must be a power of two */
	M.fb = map;
	M.fb_mask = size ? (uint32_t)(size - 1) : 0;
}

/* -------------------------------------------------------------- tracing */

static inline uint32_t loc_of(const void *p)
{
	uintptr_t a = (uintptr_t)p, w = (uintptr_t)M.world;

	return a - w < M.world_size ? (uint32_t)(a - w) : WEFT_NO_LOC;
}

/* Values that are pointers into the world are traced as offsets. */
static inline uint64_t trace_val(uint64_t v)
{
	uint64_t w = (uintptr_t)M.world;

	return v - w < M.world_size ? (1ull << 63) | (v - w) : v;
}

static inline void fb_hit(uint64_t feature)
{
	M.fb[(uint32_t)weft_mix64(feature) & M.fb_mask]++;
}

static void record_event(const struct weft_event *e)
{
	if (M.nr_ev == M.cap_ev) {
		size_t cap = M.cap_ev ? M.cap_ev * 2 : 4096;
		if (cap > MAX_RECORD_EVENTS)
			return;
		struct weft_event *n = realloc(M.ev, cap * sizeof(*n));
		if (!n)
			return;
		M.ev = n;
		M.cap_ev = cap;
	}
	M.ev[M.nr_ev++] = *e;
}

static void trace(unsigned ev, uint32_t loc, uint64_t old, uint64_t val,
		  const struct weft_site *s)
{
	uint8_t tid = M.cur < 0 ? 0xff : (uint8_t)M.cur;
	uint64_t h = M.hash;
	uint64_t id = site_id(s);

	old = trace_val(old);
	val = trace_val(val);
	h = weft_mix64(h ^ (id << 32 | (uint64_t)tid << 8 | ev));
	h = weft_mix64(h ^ ((uint64_t)loc << 32 | M.step));
	h = weft_mix64(h ^ old);
	h = weft_mix64(h ^ val);
	M.hash = h;

	struct weft_event *e = &M.ring[M.evseq++ % WEFT_TRACE_RING];
	e->step = M.step;
	e->tid = tid;
	e->cpu = M.cur < 0 ? 0xff : M.cpu_of[M.cur];
	e->ev = (uint8_t)ev;
	e->flags = M.next_flags;
	e->loc = loc;
	e->site = s;
	e->old = old;
	e->val = val;
	M.next_flags = 0;
	if (M.o->record) {
		record_event(e);
		if (M.evseq % WEFT_STATE_HASH_EVERY == 0 && M.nr_sh < M.cap_sh)
			M.state_hashes[M.nr_sh++] = M.hash;
	}
}

/* ---------------------------------------------------------- scheduling */

static void thread_main(void *arg);

/* TSan: every thread start is ordered after the host's setup and every
 * thread end before the host's audits and the next world reset, as
 * pthread_create/pthread_join order them. Accesses between the threads of
 * one execution stay unordered unless the model orders them. */
static int tsan_start_sync, tsan_done_sync;

static inline unsigned lowest(uint32_t mask)
{
	return (unsigned)__builtin_ctz(mask);
}

static void record_decision(const struct weft_decision *d, int chosen)
{
	if (M.nr_dec == M.cap_dec) {
		size_t cap = M.cap_dec ? M.cap_dec * 2 : 1024;
		if (cap > MAX_RECORD_DECISIONS)
			return;
		struct weft_decision_rec *n = realloc(M.dec, cap * sizeof(*n));
		if (!n)
			return;
		M.dec = n;
		M.cap_dec = cap;
	}
	struct weft_decision_rec *r = &M.dec[M.nr_dec++];
	r->step = d->step;
	r->runnable = (uint16_t)d->runnable;
	r->cur = d->cur < 0 ? 0xff : (uint8_t)d->cur;
	r->dflt = (uint8_t)d->dflt;
	r->chosen = (uint8_t)chosen;
	r->site_id = d->site ? site_id(d->site) : 0;
}

/* Ask the strategy; returns the chosen runnable thread. cur_ok: the current
 * thread may continue (a preemption point). */
static unsigned decide(int cur_ok, const struct weft_site *s)
{
	struct weft_decision d;

	d.index = M.decisions++;
	d.step = M.step;
	d.cur = cur_ok ? M.cur : -1;
	d.runnable = M.runnable;
	d.site = s;
	d.dflt = d.cur >= 0 ? d.cur : (int)lowest(M.runnable);
	int c = M.ops->pick_next(M.st, &d);
	if (c < 0 || c >= WEFT_MAX_THREADS || !(M.runnable & (1u << c)))
		c = d.dflt;
	record_decision(&d, c);   /* always: cheap, and it makes reproducers */
	if (d.cur >= 0 && c != d.cur) {
		M.preemptions++;
		M.next_flags |= WEFT_EVF_PREEMPTED;
	}
	return (unsigned)c;
}

static void switch_to(unsigned next, bool leaving)
{
	int prev = M.cur;
	struct wthread *n = &M.th[next];

	if ((int)next == prev)
		return;
	M.switches++;
	/* last_site is NULL for a thread that ends before its first primitive */
	if (M.fb && prev >= 0)
		fb_hit(0x5100000000000000ull ^
		       (uint64_t)(M.th[prev].last_site ? site_id(M.th[prev].last_site) : 0) << 24 ^
		       (n->last_site ? site_id(n->last_site) : 0));
	M.cur = (int)next;
	if (!n->started) {
		n->started = true;
		n->pass = true;
		n->last_site = NULL;
		weft_fiber_reset(&n->fib, thread_main, (void *)(uintptr_t)next);
	}
	weft_fiber_switch(prev < 0 ? &M.main : &M.th[prev].fib, &n->fib, leaving);
#ifdef WEFT_TSAN
	if (__builtin_expect(M.draining, 0)) {
		/* an aborted execution's paused fiber, resumed only to hand its
		 * accesses over to the host context (see drain_for_tsan) */
		weft_tsan_release(&tsan_done_sync);
		weft_fiber_switch(&M.th[prev].fib, &M.main, true);
	}
#endif
}

/* The current thread can no longer run (blocked or done): pick another or
 * return to the host context. Never returns for a finished thread. */
static void reschedule(bool leaving)
{
	if (!M.runnable) {
		bool blocked = false;
		for (unsigned i = 0; i < M.nr_threads; i++)
			blocked |= M.th[i].state == T_BLOCKED;
		if (blocked)
			weft_deadlock_report();   /* does not return */
		int prev = M.cur;
		M.cur = -1;
		weft_fiber_switch(&M.th[prev].fib, &M.main, true);
		return;
	}
	unsigned next = M.runnable & (M.runnable - 1) ? decide(0, NULL)
							  : lowest(M.runnable);
	M.next_flags |= WEFT_EVF_SWITCHED;
	switch_to(next, leaving);
}

static void livelock(const char *why)
{
	weft_report(WEFT_KIND_LIVELOCK, NULL, M.cur >= 0 ? M.th[M.cur].last_site : NULL,
		    "%s", why);
}

/* The scheduling point before every visible operation of a model thread. */
static inline void sched_point(const struct weft_site *s)
{
	struct wthread *t = &M.th[M.cur];

	t->last_site = s;
	if (__builtin_expect(t->pass, 0)) {
		t->pass = false;
	} else if (M.runnable & (M.runnable - 1)) {
		unsigned next = decide(1, s);
		if ((int)next != M.cur)
			switch_to(next, false);
	}
	/* the operation after this point runs as step M.step */
	if (__builtin_expect(++M.step > M.step_budget, 0))
		livelock("step budget exhausted");
}

/* -------------------------------------------------------------- threads */

static void thread_main(void *arg)
{
	unsigned tid = (unsigned)(uintptr_t)arg;

	weft_fiber_started(&M.th[tid].fib, &M.main);
	weft_tsan_acquire(&tsan_start_sync);
	M.sc->thread(M.world, tid);
	weft_tsan_release(&tsan_done_sync);
	M.th[tid].state = T_DONE;
	M.runnable &= ~(1u << tid);
	reschedule(true);
	__builtin_trap();
}

unsigned weft_cpu_of(const struct weft_scenario *sc, unsigned tid)
{
	return sc->cpu_of ? sc->cpu_of[tid] : tid % (sc->nr_cpus ? sc->nr_cpus : 1);
}

unsigned weft_smp_processor_id(void)
{
	return M.cur < 0 ? 0 : weft_cpu_of(M.sc, (unsigned)M.cur);
}

unsigned weft_current_tid(void)
{
	return M.cur < 0 ? 0 : (unsigned)M.cur;
}

bool weft_in_thread(void)
{
	return M.in_exec && M.cur >= 0;
}

/* ------------------------------------------------------------- accesses */

static inline void check_uaf(uint32_t loc, const struct weft_site *s)
{
	struct shadow *sh = &M.shadow[loc];

	if (__builtin_expect(sh->epoch == M.epoch && sh->poisoned, 0)) {
		struct weft_access other = { true, sh->tid == 0xff ? -1 : sh->tid,
					     sh->tid == 0xff ? -1 : (int)weft_cpu_of(M.sc, sh->tid),
					     sh->step, sh->site };
		weft_report2(WEFT_KIND_USE_AFTER_FREE, M.world + loc, s, &other,
			     "%s on freed memory", s->what);
	}
}

static inline void shadow_write(uint32_t loc, const struct weft_site *s)
{
	struct shadow *sh = &M.shadow[loc];

	sh->epoch = M.epoch;
	sh->step = M.step;
	sh->site = s;
	sh->tid = M.cur < 0 ? 0xff : (uint8_t)M.cur;
	sh->poisoned = 0;
}

static inline void feedback_read(uint32_t loc, const struct weft_site *s)
{
	struct shadow *sh = &M.shadow[loc];
	uint64_t w = sh->epoch == M.epoch && sh->site ? site_id(sh->site) : 0;

	fb_hit(0x7200000000000000ull ^ w << 24 ^ site_id(s));
}

static inline void feedback_write(uint32_t loc, const struct weft_site *s)
{
	if (M.sc->state_bucket) {
		uint32_t b = M.sc->state_bucket(M.world, loc);
		if (b)
			fb_hit(0x3300000000000000ull ^ (uint64_t)b << 24 ^ site_id(s));
	}
}

static uint64_t do_op(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
		      uint64_t *newv)
{
	uint64_t old = 0, nv;

	switch (size) {
	case 1: old = __atomic_load_n((uint8_t *)addr, __ATOMIC_RELAXED); break;
	case 2: old = __atomic_load_n((uint16_t *)addr, __ATOMIC_RELAXED); break;
	case 4: old = __atomic_load_n((uint32_t *)addr, __ATOMIC_RELAXED); break;
	default: old = __atomic_load_n((uint64_t *)addr, __ATOMIC_RELAXED); break;
	}
	uint64_t mask = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
	switch (aop) {
	case WEFT_A_LOAD: *newv = old; return old;
	case WEFT_A_STORE: nv = a; break;
	case WEFT_A_ADD: nv = old + a; break;
	case WEFT_A_XCHG: nv = a; break;
	case WEFT_A_CMPXCHG: nv = old == (a & mask) ? b : old; break;
	case WEFT_A_OR: nv = old | a; break;
	case WEFT_A_ANDNOT: nv = old & ~a; break;
	case WEFT_A_ADD_UNLESS: nv = old == (b & mask) ? old : old + a; break;
	default: nv = old; break;
	}
	nv &= mask;
	switch (size) {
	case 1: __atomic_store_n((uint8_t *)addr, (uint8_t)nv, __ATOMIC_RELAXED); break;
	case 2: __atomic_store_n((uint16_t *)addr, (uint16_t)nv, __ATOMIC_RELAXED); break;
	case 4: __atomic_store_n((uint32_t *)addr, (uint32_t)nv, __ATOMIC_RELAXED); break;
	default: __atomic_store_n((uint64_t *)addr, nv, __ATOMIC_RELAXED); break;
	}
	*newv = nv;
	return old;
}

uint64_t weft_access(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
		     const struct weft_site *s)
{
	uint64_t nv, old;
	uint32_t loc;

	if (M.cur >= 0)
		sched_point(s);
	loc = loc_of(addr);
	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	old = do_op(addr, size, aop, a, b, &nv);
#ifdef WEFT_TSAN
	if (aop != WEFT_A_STORE)
		weft_tsan_acquire(addr);
	if (aop != WEFT_A_LOAD)
		weft_tsan_release(addr);
#endif
	trace(aop == WEFT_A_LOAD ? WEFT_EV_READ : aop == WEFT_A_STORE ? WEFT_EV_WRITE : WEFT_EV_RMW,
	      loc, old, nv, s);
	if (loc != WEFT_NO_LOC) {
		if (M.fb && aop != WEFT_A_STORE)
			feedback_read(loc, s);
		if (aop != WEFT_A_LOAD && (aop != WEFT_A_CMPXCHG || nv != old)) {
			shadow_write(loc, s);
			if (M.fb)
				feedback_write(loc, s);
		}
	}
	return old;
}

void weft_plain_point(const void *addr, unsigned size, const struct weft_site *s)
{
	uint64_t ignored;

	if (M.cur >= 0)
		sched_point(s);
	uint32_t loc = loc_of(addr);
	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	/* the value a plain store overwrites, for the trace (read here, in
	 * uninstrumented core code, so TSan sees only the model's access) */
	M.plain_old = do_op((void *)addr, size, WEFT_A_LOAD, 0, 0, &ignored);
}

void weft_plain_done(const void *addr, unsigned size, uint64_t old, uint64_t val,
		     const struct weft_site *s)
{
	uint32_t loc = loc_of(addr);

	(void)size;
	if (s->ev == WEFT_EV_WRITE)
		old = M.plain_old;
	trace(s->ev, loc, old, val, s);
	if (loc != WEFT_NO_LOC) {
		if (M.fb && s->ev == WEFT_EV_READ)
			feedback_read(loc, s);
		if (s->ev == WEFT_EV_WRITE) {
			shadow_write(loc, s);
			if (M.fb)
				feedback_write(loc, s);
		}
	}
}

void weft_barrier(const struct weft_site *s)
{
	trace(WEFT_EV_BARRIER, WEFT_NO_LOC, 0, 0, s);
}

void weft_note(const struct weft_site *s, uint64_t a, uint64_t b)
{
	trace(WEFT_EV_NOTE, WEFT_NO_LOC, a, b, s);
}

uint32_t weft_choose(uint32_t n, const struct weft_site *s)
{
	uint32_t v = 0;

	if (n > 1 && M.ops && M.ops->pick_value)
		v = M.ops->pick_value(M.st, M.choices, n) % n;
	if (M.choices < MAX_CHOICES)
		M.choice_vals[M.choices] = v;
	M.choices++;
	trace(WEFT_EV_CHOICE, WEFT_NO_LOC, n, v, s);
	return v;
}

void weft_yield(const struct weft_site *s)
{
	if (M.cur < 0)
		return;
	M.step++;
	M.th[M.cur].last_site = s;
	if (M.step > M.step_budget)
		livelock("step budget exhausted");
	trace(WEFT_EV_YIELD, WEFT_NO_LOC, 0, 0, s);
	/* A yield hands the CPU to another runnable thread whenever there is
	 * one (as CHESS treats yields: a spinning thread is never chosen over
	 * a thread that can make progress). That switch is free, and the
	 * strategy only chooses among the others. */
	uint32_t others = M.runnable & ~(1u << M.cur);
	if (others) {
		M.lone_yields = 0;
		uint32_t saved = M.runnable;
		M.runnable = others;
		unsigned next = others & (others - 1) ? decide(0, s) : lowest(others);
		M.runnable = saved;
		M.next_flags |= WEFT_EVF_SWITCHED;
		switch_to(next, false);
	} else if (++M.lone_yields > LONE_YIELD_LIMIT) {
		livelock("a thread spins alone: nothing else can run to change what it waits for");
	}
}

/* ---------------------------------------------------------------- locks */

void weft_spin_lock(struct weft_spinlock *l, const struct weft_site *s)
{
	uint32_t loc;

	if (M.cur < 0) {
		l->locked = 1;
		return;
	}
	sched_point(s);
	loc = loc_of(l);
	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	struct wthread *t = &M.th[M.cur];
	if (M.o->lock == WEFT_LOCK_TICKET) {
		t->ticket = l->next++;
		t->has_ticket = true;
		while (l->serving != t->ticket || l->locked) {
			trace(WEFT_EV_BLOCK, loc, l->locked, t->ticket, s);
			t->state = T_BLOCKED;
			t->blocked_on = l;
			M.runnable &= ~(1u << M.cur);
			reschedule(false);
			M.step++;
			/* resumed: the lock was handed to us (or not yet) */
			if (l->locked == (uint32_t)M.cur + 1)
				break;
		}
		t->has_ticket = false;
	} else {
		while (l->locked) {
			trace(WEFT_EV_BLOCK, loc, l->locked, 0, s);
			t->state = T_BLOCKED;
			t->blocked_on = l;
			M.runnable &= ~(1u << M.cur);
			reschedule(false);
			M.step++;
		}
	}
	l->locked = (uint32_t)M.cur + 1;
	weft_tsan_acquire(l);
	trace(WEFT_EV_LOCK, loc, 0, l->locked, s);
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
	if (M.fb)
		fb_hit(0x4c00000000000000ull ^ site_id(s));
}

bool weft_spin_trylock(struct weft_spinlock *l, const struct weft_site *s)
{
	uint32_t loc;
	bool ok;

	if (M.cur < 0) {
		ok = !l->locked;
		l->locked = 1;
		return ok;
	}
	sched_point(s);
	loc = loc_of(l);
	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	if (M.o->lock == WEFT_LOCK_TICKET)
		ok = !l->locked && l->next == l->serving;
	else
		ok = !l->locked;
	if (ok) {
		if (M.o->lock == WEFT_LOCK_TICKET)
			l->next++;
		l->locked = (uint32_t)M.cur + 1;
		weft_tsan_acquire(l);
		if (loc != WEFT_NO_LOC)
			shadow_write(loc, s);
	} else {
		M.next_flags |= WEFT_EVF_FAILED;
	}
	trace(WEFT_EV_TRYLOCK, loc, ok, l->locked, s);
	if (M.fb)
		fb_hit(0x5400000000000000ull ^ (uint64_t)ok << 40 ^ site_id(s));
	return ok;
}

void weft_spin_unlock(struct weft_spinlock *l, const struct weft_site *s)
{
	uint32_t loc;

	if (M.cur < 0) {
		l->locked = 0;
		return;
	}
	sched_point(s);
	loc = loc_of(l);
	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	if (l->locked != (uint32_t)M.cur + 1)
		weft_report(WEFT_KIND_ASSERT, l, s, "spin_unlock of a lock this thread does not hold");
	weft_tsan_release(l);
	l->locked = 0;
	if (M.o->lock == WEFT_LOCK_TICKET) {
		l->serving++;
		for (unsigned i = 0; i < M.nr_threads; i++) {
			struct wthread *w = &M.th[i];
			if (w->state == T_BLOCKED && w->blocked_on == l && w->has_ticket &&
			    w->ticket == l->serving) {
				l->locked = i + 1;   /* handed over, FIFO */
				w->state = T_RUNNABLE;
				w->blocked_on = NULL;
				M.runnable |= 1u << i;
			}
		}
	} else {
		for (unsigned i = 0; i < M.nr_threads; i++) {
			struct wthread *w = &M.th[i];
			if (w->state == T_BLOCKED && w->blocked_on == l) {
				w->state = T_RUNNABLE;
				w->blocked_on = NULL;
				M.runnable |= 1u << i;
			}
		}
	}
	trace(WEFT_EV_UNLOCK, loc, (uint32_t)M.cur + 1, l->locked, s);
	if (loc != WEFT_NO_LOC)
		shadow_write(loc, s);
}

bool weft_spin_is_locked(const struct weft_spinlock *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED) != 0;
}

/* ------------------------------------------------------------- shadow */

void weft_poison(const void *addr, size_t len, const struct weft_site *s)
{
	uint32_t loc = loc_of(addr);

	if (loc == WEFT_NO_LOC)
		return;
	if (len > M.world_size - loc)
		len = M.world_size - loc;
	trace(WEFT_EV_FREE, loc, 0, len, s);
	for (size_t i = 0; i < len; i++) {
		shadow_write(loc + (uint32_t)i, s);
		M.shadow[loc + i].poisoned = 1;
	}
}

void weft_unpoison(const void *addr, size_t len, const struct weft_site *s)
{
	uint32_t loc = loc_of(addr);

	if (loc == WEFT_NO_LOC)
		return;
	if (len > M.world_size - loc)
		len = M.world_size - loc;
	trace(WEFT_EV_ALLOC, loc, 0, len, s);
	for (size_t i = 0; i < len; i++)
		shadow_write(loc + (uint32_t)i, s);
}

bool weft_is_poisoned(const void *addr)
{
	uint32_t loc = loc_of(addr);

	return loc != WEFT_NO_LOC && M.shadow[loc].epoch == M.epoch && M.shadow[loc].poisoned;
}

struct weft_access weft_last_write(const void *addr)
{
	struct weft_access a = { 0 };
	uint32_t loc = loc_of(addr);

	if (loc == WEFT_NO_LOC)
		return a;
	struct shadow *sh = &M.shadow[loc];
	if (sh->epoch != M.epoch || !sh->site)
		return a;
	a.valid = true;
	a.tid = sh->tid == 0xff ? -1 : sh->tid;
	a.cpu = sh->tid == 0xff ? -1 : (int)weft_cpu_of(M.sc, sh->tid);
	a.step = sh->step;
	a.site = sh->site;
	return a;
}

/* -------------------------------------------------------------- reports */

static __attribute__((format(printf, 5, 0))) void
vreport(enum weft_kind k, const void *obj, const struct weft_site *s,
	const struct weft_access *other, const char *fmt, va_list ap)
{
	struct weft_report *r = &M.res->report;

	if (M.res->kind != WEFT_KIND_NONE)
		goto out;   /* the first report of an execution wins */
	M.res->kind = k;
	r->kind = k;
	r->here.valid = true;
	r->here.tid = M.cur;
	r->here.cpu = M.cur < 0 ? -1 : (int)weft_cpu_of(M.sc, (unsigned)M.cur);
	r->here.step = M.step;
	r->here.site = s;
	r->loc = obj ? loc_of(obj) : WEFT_NO_LOC;
	if (other)
		r->other = *other;
	else if (obj)
		r->other = weft_last_write(obj);
	if (r->loc != WEFT_NO_LOC)
		weft_describe_loc(M.sc, r->loc, r->object, sizeof(r->object));
	else
		r->object[0] = 0;
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	/* the failing access as the last traced event */
	if (s) {
		M.next_flags |= WEFT_EVF_FAILED;
		trace(WEFT_EV_NOTE, r->loc, k, 0, s);
	}
out:
	if (M.in_exec && M.cur >= 0) {
		/* End the execution: abandon every fiber, back to the host. */
		int prev = M.cur;
		M.aborted = true;
		M.abort_tid = prev;
		M.cur = -1;
		weft_tsan_release(&tsan_done_sync);
		weft_fiber_switch(&M.th[prev].fib, &M.main, true);
		__builtin_trap();
	}
}

void weft_report(enum weft_kind k, const void *obj, const struct weft_site *s,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(k, obj, s, NULL, fmt, ap);
	va_end(ap);
}

void weft_report2(enum weft_kind k, const void *obj, const struct weft_site *s,
		  const struct weft_access *other, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(k, obj, s, other, fmt, ap);
	va_end(ap);
}

void weft_deadlock_report(void)
{
	char buf[160];
	size_t n = 0;
	struct weft_spinlock *l = NULL;

	buf[0] = 0;
	for (unsigned i = 0; i < M.nr_threads && n < sizeof(buf) - 40; i++) {
		if (M.th[i].state != T_BLOCKED)
			continue;
		struct weft_spinlock *b = M.th[i].blocked_on;
		char obj[48];
		weft_describe_loc(M.sc, loc_of(b), obj, sizeof(obj));
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%sT%u waits for %s (held by T%d)",
				      n ? "; " : "", i, obj, b ? (int)b->locked - 1 : -1);
		if (!l)
			l = b;
	}
	weft_report(WEFT_KIND_DEADLOCK, l, M.cur >= 0 ? M.th[M.cur].last_site : NULL, "%s", buf);
	__builtin_trap();   /* reports from a thread never return */
}

void weft_describe_loc(const struct weft_scenario *sc, uint32_t off, char *buf, size_t n)
{
	if (off == WEFT_NO_LOC) {
		snprintf(buf, n, "(outside the world)");
		return;
	}
	if (sc && sc->describe && M.world) {
		buf[0] = 0;
		sc->describe(M.world, off, buf, n);
		if (buf[0])
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
	const struct weft_scenario *sc = o->sc;
	int n;

	if (!M.inited && weft_machine_init())
		return WEFT_ENOMEM;
	if (sc->nr_threads == 0 || sc->nr_threads > WEFT_MAX_THREADS)
		return WEFT_EINVAL;
	memset(r, 0, sizeof(*r));
	n = ops->begin ? ops->begin(st, M.wl_bytes, sizeof(M.wl_bytes)) : 0;
	if (n < 0)
		return n;
	weft_tsan_host_ignore(true);
	M.wl_len = (size_t)n;
	if (world_reserve(sc->world_size ? sc->world_size : 1)) {
		weft_tsan_host_ignore(false);
		return WEFT_ENOMEM;
	}

	M.o = o;
	M.sc = sc;
	M.ops = ops;
	M.st = st;
	M.res = r;
	M.world_size = sc->world_size;
	memset(M.world, 0, M.world_size);
	if (++M.epoch == 0) {
		memset(M.shadow, 0, M.world_cap * sizeof(*M.shadow));
		M.epoch = 1;
	}
	M.step_budget = o->step_budget ? o->step_budget
			: sc->step_budget ? sc->step_budget : DEFAULT_STEP_BUDGET;
	M.nr_threads = sc->nr_threads;
	for (unsigned i = 0; i < M.nr_threads; i++)
		M.cpu_of[i] = (uint8_t)weft_cpu_of(sc, i);
	M.cur = -1;
	M.step = M.decisions = M.switches = M.preemptions = M.choices = 0;
	M.lone_yields = 0;
	M.evseq = 0;
	M.hash = 0x5745465400000001ull; /* "WEFT" */
	M.next_flags = 0;
	M.aborted = false;
	M.abort_tid = -1;
	M.stack_overflow = false;
	M.nr_ev = M.nr_dec = M.nr_sh = 0;
	if (o->record && !M.state_hashes) {
		M.cap_sh = 1u << 14;
		M.state_hashes = malloc(M.cap_sh * sizeof(*M.state_hashes));
		if (!M.state_hashes)
			M.cap_sh = 0;
	}
	memset(M.ring, 0, sizeof(M.ring));

	weft_workload_decode(sc, M.wl_bytes, M.wl_len, &M.wl);
	sc->setup(M.world, o->variant, &M.wl);

	if (r->kind == WEFT_KIND_NONE) {
		M.runnable = 0;
		for (unsigned i = 0; i < M.nr_threads; i++) {
			M.th[i].state = T_RUNNABLE;
			M.th[i].started = false;
			M.th[i].blocked_on = NULL;
			M.th[i].has_ticket = false;
			M.th[i].last_site = NULL;
			M.runnable |= 1u << i;
		}
		M.in_exec = true;
		/* savemask 0: saving the mask is an rt_sigprocmask syscall per
		 * execution (a third of a small scenario's time, measured by
		 * bench/); the rare overflow path unblocks the signal itself. */
		weft_tsan_release(&tsan_start_sync);
		if (sigsetjmp(M.overflow_jmp, 0) == 0) {
			switch_to(M.nr_threads > 1 ? decide(0, NULL) : 0, false);
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
				r->report.here.site = t >= 0 ? M.th[t].last_site : NULL;
				r->report.loc = WEFT_NO_LOC;
				snprintf(r->report.msg, sizeof(r->report.msg),
					 "model thread T%d overflowed its %zu KiB fiber stack "
					 "(raise WEFT_STACK_KIB)", t,
					 M.th[0].fib.stack_size / 1024);
			}
		}
		M.in_exec = false;
		M.cur = -1;
		if (M.aborted) {
			drain_for_tsan();
			for (unsigned i = 0; i < M.nr_threads; i++)
				if (M.th[i].started && M.th[i].state != T_DONE)
					weft_fiber_scrub(&M.th[i].fib);
		}
		weft_tsan_acquire(&tsan_done_sync);
		if (r->kind == WEFT_KIND_NONE && sc->quiesce)
			sc->quiesce(M.world);
	}

	weft_tsan_host_ignore(false);
	r->steps = M.step;
	r->decisions = M.decisions;
	r->switches = M.switches;
	r->preemptions = M.preemptions;
	r->trace_hash = M.hash ^ (uint64_t)r->kind << 56;
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
	*n = M.choices < MAX_CHOICES ? M.choices : MAX_CHOICES;
	return M.choice_vals;
}

const uint64_t *weft_last_state_hashes(size_t *n)
{
	*n = M.nr_sh;
	return M.state_hashes;
}

const void *weft_last_world(void)
{
	return M.world;
}

const struct weft_workload *weft_last_workload_ops(void)
{
	return &M.wl;
}

size_t weft_last_ring(struct weft_event *out, size_t cap)
{
	size_t n = 0;
	uint32_t first = M.evseq > WEFT_TRACE_RING ? M.evseq - WEFT_TRACE_RING : 0;

	for (uint32_t i = first; i < M.evseq && n < cap; i++)
		out[n++] = M.ring[i % WEFT_TRACE_RING];
	return n;
}
