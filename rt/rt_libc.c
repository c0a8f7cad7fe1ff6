/*
 * rt_libc.c - the C library functions an instrumented program's behaviour
 * depends on, during executions; outside them each forwards to the C
 * library.
 *
 *   memcpy, memmove, memset     clang 14's -fsanitize=thread turns the
 *                               program's block copies into calls of these
 *                               (the TSan runtime intercepts them): range
 *                               accesses here
 *   exit, _exit, _Exit, abort,  the end of the program: exit(0) ends the
 *   __assert_fail               execution, abandoning the other threads as
 *                               the process would; exit(n != 0), abort()
 *                               and a failed assert() are reports
 *                               (WEFT_ABORT=end: abort() is an assumption
 *                               that does not hold, as
 *                               __VERIFIER_assume(0))
 *   sched_yield, usleep,        yields (a sleeping thread lets the others
 *   nanosleep, sleep            run); a sleep moves the virtual clock
 *                               (rt_time.c) forward by what it asked
 *   rand, random, srand,        a generator per execution, seeded 1 (the C
 *   srandom                     library's own state would carry over)
 *   SIGSEGV, SIGBUS, SIGFPE,    in a program thread: a crash report naming
 *   SIGILL                      the instruction's file:line
 *   __VERIFIER_*                SV-COMP's calls: error, assume, nondet_*
 *                               (values the strategy or the fuzzer
 *                               chooses), atomic_begin/end
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "rt_internal.h"

#define PC() rt_caller_pc(__builtin_return_address(0))

struct rt_real rt_real;

/* Until dlsym has answered (it may itself copy memory): plain loops. */
static void *copy_fwd(void *d, const void *s, size_t n)
{
	uint8_t *dd = d;
	const uint8_t *ss = s;
	if (dd < ss)
		for (size_t i = 0; i < n; i++)
			dd[i] = ss[i];
	else
		for (size_t i = n; i-- > 0;)
			dd[i] = ss[i];
	return d;
}

static void *set_fwd(void *d, int c, size_t n)
{
	volatile uint8_t *dd = d;
	for (size_t i = 0; i < n; i++)
		dd[i] = (uint8_t)c;
	return d;
}

void rt_resolve_real(void)
{
	if (rt_real.memcpy)
		return;
	rt_real.memcpy = copy_fwd;
	rt_real.memmove = copy_fwd;
	rt_real.memset = set_fwd;
	void *p;
	if ((p = dlsym(RTLD_NEXT, "memmove")))
		rt_real.memmove = (void *(*)(void *, const void *, size_t))p;
	if ((p = dlsym(RTLD_NEXT, "memset")))
		rt_real.memset = (void *(*)(void *, int, size_t))p;
	if ((p = dlsym(RTLD_NEXT, "memcpy")))
		rt_real.memcpy = (void *(*)(void *, const void *, size_t))p;
	rt_real.exit = (void (*)(int))dlsym(RTLD_NEXT, "exit");
	rt_real.abort = (void (*)(void))dlsym(RTLD_NEXT, "abort");
	rt_real.assert_fail = (void (*)(const char *, const char *, unsigned, const char *))
		dlsym(RTLD_NEXT, "__assert_fail");
	rt_real.sched_yield = (int (*)(void))dlsym(RTLD_NEXT, "sched_yield");
	rt_real.usleep = (int (*)(unsigned))dlsym(RTLD_NEXT, "usleep");
	rt_real.nanosleep = (int (*)(const void *, void *))dlsym(RTLD_NEXT, "nanosleep");
	rt_real.sleep = (unsigned (*)(unsigned))dlsym(RTLD_NEXT, "sleep");
}

static __attribute__((constructor)) void resolve_early(void)
{
	rt_resolve_real();
}

/* ---------------------------------------------------------------- mem* */

void rt_range_read(const void *a, size_t n, uintptr_t pc);
void rt_range_write(void *a, size_t n, uintptr_t pc);

void *memcpy(void *d, const void *s, size_t n)
{
	if (__builtin_expect(rt_lim != 0, 0) && rt_from_program(PC())) {
		rt_range_read(s, n, (uintptr_t)PC());
		rt_range_write(d, n, (uintptr_t)PC());
	}
	return (rt_real.memcpy ? rt_real.memcpy : copy_fwd)(d, s, n);
}

void *memmove(void *d, const void *s, size_t n)
{
	if (__builtin_expect(rt_lim != 0, 0) && rt_from_program(PC())) {
		rt_range_read(s, n, (uintptr_t)PC());
		rt_range_write(d, n, (uintptr_t)PC());
	}
	return (rt_real.memmove ? rt_real.memmove : copy_fwd)(d, s, n);
}

void *memset(void *d, int c, size_t n)
{
	if (__builtin_expect(rt_lim != 0, 0) && rt_from_program(PC()))
		rt_range_write(d, n, (uintptr_t)PC());
	return (rt_real.memset ? rt_real.memset : set_fwd)(d, c, n);
}

/* ------------------------------------------------------------ the end */

static void *libc_fn(void **real, const char *name);

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
	static void *real;
	if (!rt_active())
		return ((int (*)(void (*)(void *), void *, void *))libc_fn(&real, "__cxa_atexit"))(
			fn, arg, dso);
	if (rt_x.nr_atexit == RT_ATEXIT_MAX) {
		weft_report(WEFT_KIND_LIMIT, NULL, RT_CALL_SITE(PC(), WEFT_EV_NOTE, "atexit"),
			    "more than %d atexit() handlers in one execution", RT_ATEXIT_MAX);
		return -1;
	}
	rt_x.atexit_fn[rt_x.nr_atexit].fn = fn;
	rt_x.atexit_fn[rt_x.nr_atexit].arg = arg;
	rt_x.nr_atexit++;
	return 0;
}

/* glibc's atexit() is __cxa_atexit() with no argument (in libc_nonshared.a,
 * linked into the program: it calls the one above) */
int atexit(void (*fn)(void))
{
	return __cxa_atexit((void (*)(void *))(void (*)(void))fn, NULL, NULL);
}

void rt_run_atexit(void)
{
	if (rt_x.atexit_ran)
		return;
	rt_x.atexit_ran = true;
	while (rt_x.nr_atexit) {
		struct rt_atexit *h = &rt_x.atexit_fn[--rt_x.nr_atexit];
		h->fn(h->arg);
	}
}

void exit(int st)
{
	if (rt_active()) {
		rt_run_atexit();
		rt_program_exit(st, PC());
	}
	rt_real.exit(st);
	__builtin_unreachable();
}

void _exit(int st)
{
	if (rt_active())
		rt_program_exit(st, PC());
	syscall(SYS_exit_group, st);
	__builtin_unreachable();
}

void _Exit(int st)
{
	if (rt_active())
		rt_program_exit(st, PC());
	syscall(SYS_exit_group, st);
	__builtin_unreachable();
}

bool rt_abort_ends;

void abort(void)
{
	if (rt_active() && rt_abort_ends)
		rt_infeasible(PC(), "abort: an assumption (WEFT_ABORT=end)");
	if (rt_active()) {
		rt_flush();
		const struct weft_site *s = RT_CALL_SITE(PC(), WEFT_EV_NOTE, "abort");
		weft_report(WEFT_KIND_ABORT, NULL, s, "the program called abort()");
	}
	rt_real.abort();
	__builtin_unreachable();
}

/* (<assert.h> declares it only without NDEBUG) */
void __assert_fail(const char *expr, const char *file, unsigned line, const char *fn);
void __assert_fail(const char *expr, const char *file, unsigned line, const char *fn)
{
	if (rt_active()) {
		rt_flush();
		const struct weft_site *s = RT_CALL_SITE(PC(), WEFT_EV_NOTE, "assert");
		/* SV-COMP's reach_error() is assert(0) or __assert_fail(...,
		 * "reach_error") in the program itself */
		if (fn && !strcmp(fn, "reach_error"))
			weft_report(WEFT_KIND_REACH_ERROR, NULL, s, "reach_error() was called");
		weft_report(WEFT_KIND_ASSERT, NULL, s, "%s:%u: %s: assertion '%s' failed",
			    file ? file : "?", line, fn ? fn : "?", expr ? expr : "?");
	}
	rt_real.assert_fail(expr, file, line, fn);
	__builtin_unreachable();
}

/* ---------------------------------------------------------------- yields */

static void yield_at(void *pc, const char *name)
{
	rt_flush();
	weft_yield(RT_CALL_SITE(pc, WEFT_EV_YIELD, name));
}

int sched_yield(void)
{
	if (!rt_active())
		return rt_real.sched_yield();
	weft_user_sp = RT_USER_SP();
	yield_at(PC(), "sched_yield");
	return 0;
}

int usleep(useconds_t us)
{
	if (!rt_active())
		return rt_real.usleep(us);
	weft_user_sp = RT_USER_SP();
	yield_at(PC(), "usleep");
	rt_time_sleep((uint64_t)us * 1000);
	return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (!rt_active())
		return rt_real.nanosleep(req, rem);
	weft_user_sp = RT_USER_SP();
	yield_at(PC(), "nanosleep");
	if (req && req->tv_sec >= 0 && req->tv_nsec >= 0)
		rt_time_sleep((uint64_t)req->tv_sec * 1000000000ull + (uint64_t)req->tv_nsec);
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}

unsigned sleep(unsigned s)
{
	if (!rt_active())
		return rt_real.sleep(s);
	weft_user_sp = RT_USER_SP();
	yield_at(PC(), "sleep");
	rt_time_sleep((uint64_t)s * 1000000000ull);
	return 0;
}

/* ---------------------------------------------------------------- rand */

static unsigned next_rand(void)
{
	/* the 64-bit LCG of Knuth's MMIX, high bits */
	rt_x.rand_state = rt_x.rand_state * 6364136223846793005ull + 1442695040888963407ull;
	rt_state_moved();
	return (unsigned)(rt_x.rand_state >> 33) & 0x7fffffffu;
}

/* The C library's function name, for a call outside an execution: looked
 * up on the first into *real */
static void *libc_fn(void **real, const char *name)
{
	if (!*real)
		*real = dlsym(RTLD_NEXT, name);
	return *real;
}

int rand(void)
{
	static void *real;
	if (!rt_active())
		return ((int (*)(void))libc_fn(&real, "rand"))();
	return (int)next_rand();
}

long random(void)
{
	static void *real;
	if (!rt_active())
		return ((long (*)(void))libc_fn(&real, "random"))();
	return (long)next_rand();
}

/* srand() and srandom(): the one generator of rand() and random() */
static void seed_rand(unsigned seed, void **real, const char *name)
{
	if (!rt_active())
		((void (*)(unsigned))libc_fn(real, name))(seed);
	else
		rt_x.rand_state = seed;
}

void srand(unsigned seed)
{
	static void *real;
	seed_rand(seed, &real, "srand");
}

void srandom(unsigned seed)
{
	static void *real;
	seed_rand(seed, &real, "srandom");
}

/* --------------------------------------------------------------- crashes */

static struct sigaction old_act[32];

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	if (rt_active()) {
		ucontext_t *uc = ucv;
		uintptr_t pc = 0;
#if defined(__x86_64__)
		pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
		pc = (uintptr_t)uc->uc_mcontext.pc;
#endif
		/* the announced store may be the faulting one: drop it */
		rt_x.pend_site = NULL;
		rt_x.deferred[M.cur].site = NULL;
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		const struct weft_site *s = rt_from_program((void *)pc)
			? rt_site(pc + 1, RT_CALL | WEFT_EV_NOTE << 4, WEFT_EV_NOTE, strsignal(sig))
			: M.th[M.cur].last_site;
		weft_report(WEFT_KIND_CRASH, NULL, s, "%s at address %p%s", strsignal(sig),
			    si->si_addr, rt_from_program((void *)pc) ? "" : " (in a library)");
	}
	weft_chain_signal(&old_act[sig], sig, si, ucv);
}

/* ------------------------------------------------------------- watchdog */

/*
 * The last resort against a hang: a loop the compiler left no hook in
 * (clang -O1 turns `while (s) {}` on a local into a jump to itself) never
 * reaches the runtime. A thread of the runtime's own watches the step
 * counter; when an execution has taken no step for WEFT_WATCHDOG_S seconds
 * (default 10, 0: off) it signals the thread running executions, whose
 * handler ends the execution with a limit-reached report: a wall-clock
 * bound, so not a verdict and not replayable, which the report says.
 */
static pthread_t machine_thread;
static unsigned watchdog_s = 10;

static void on_watchdog(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (!rt_active())
		return;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	rt_x.pend_site = NULL;
	rt_x.deferred[M.cur].site = NULL;
	weft_report(WEFT_KIND_LIMIT, NULL, M.th[M.cur].last_site,
		    "limit reached: T%d ran %u s without a visible operation (an endless loop "
		    "that reaches no scheduling point: on the thread's own state, or left "
		    "without a block hook by the optimizer, which -O0 keeps; "
		    "WEFT_WATCHDOG_S); a wall-clock bound, not replayable", M.cur, watchdog_s);
}

static void *watchdog(void *arg)
{
	uint32_t last = 0, seen_epoch = 0;
	unsigned stale = 0;

	(void)arg;
	for (;;) {
		sleep(1);
		uint32_t step = __atomic_load_n(&M.step, __ATOMIC_RELAXED);
		uint32_t epoch = __atomic_load_n(&M.epoch, __ATOMIC_RELAXED);
		bool running = __atomic_load_n(&rt_lim, __ATOMIC_RELAXED) != 0 &&
			       __atomic_load_n(&M.in_exec, __ATOMIC_RELAXED);
		if (!running || step != last || epoch != seen_epoch) {
			last = step;
			seen_epoch = epoch;
			stale = 0;
			continue;
		}
		if (++stale >= watchdog_s) {
			stale = 0;
			pthread_kill(machine_thread, SIGUSR2);
		}
	}
	return NULL;
}

void rt_watchdog_start(void)
{
	const char *e = getenv("WEFT_WATCHDOG_S");
	pthread_t t;

	if (e && *e)
		watchdog_s = (unsigned)strtoul(e, NULL, 10);
	if (!watchdog_s)
		return;
	machine_thread = pthread_self();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_watchdog;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	if (pthread_create(&t, NULL, watchdog, NULL) == 0)
		pthread_detach(t);
}

void rt_signals_install(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, &old_act[sigs[i]]);
}

/* ------------------------------------------------------------- SV-COMP */

/* Who called the __VERIFIER_* function: the program's site. */
#define VSITE(ev, name) RT_CALL_SITE(PC(), (ev), (name))

void __VERIFIER_error(void);
void __VERIFIER_error(void)
{
	if (rt_active()) {
		rt_flush();
		weft_report(WEFT_KIND_REACH_ERROR, NULL, VSITE(WEFT_EV_NOTE, "__VERIFIER_error"),
			    "__VERIFIER_error() was called");
	}
	fprintf(stderr, "__VERIFIER_error() reached\n");
	rt_real.abort();
	__builtin_unreachable();
}

/* No such execution: it ends here, without a verdict. */
void rt_infeasible(const void *pc, const char *name)
{
	rt_flush();
	rt_x.assumed = true;
	weft_note(RT_CALL_SITE(pc, WEFT_EV_NOTE, name), 0, 0);
	weft_sched_infeasible();
	__builtin_unreachable();
}

void __VERIFIER_assume(int cond);
void __VERIFIER_assume(int cond)
{
	if (cond)
		return;
	if (rt_active())
		rt_infeasible(PC(), "__VERIFIER_assume: does not hold");
	/* natively: wait for ever, as SV-COMP's reference implementation does */
	for (;;)
		pause();
}

void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_begin(void)
{
	if (rt_active())
		rt_atomic_enter((uintptr_t)PC(), "__VERIFIER_atomic_begin");
}

void __VERIFIER_atomic_end(void);
void __VERIFIER_atomic_end(void)
{
	if (rt_active() && rt_th[M.cur].atomic_depth)
		rt_th[M.cur].atomic_depth--;
}

/*
 * A value of `bits` bits the strategy chooses: first its magnitude (a
 * small value in [-8, 8), a byte, or anything), then the value, so that a
 * serial run and dfs try 0 first and a random strategy hits the small
 * values loops and indices want as often as the extremes.
 */
static uint64_t nondet(unsigned bits, bool is_signed, void *pc, const char *name)
{
	if (!rt_active()) {
		static uint64_t native = 0x9e3779b97f4a7c15ull;
		native = weft_mix64(native);
		return native;
	}
	rt_flush();
	const struct weft_site *s = RT_CALL_SITE(pc, WEFT_EV_CHOICE, name);
	if (bits == 1)
		return weft_choose(2, s);
	uint32_t cls = weft_choose(3, s);
	if (cls == 0) {
		uint32_t v = weft_choose(16, s);
		return is_signed ? (uint64_t)((int64_t)v - 8) : v;
	}
	if (cls == 1 || bits == 8) {
		uint32_t v = weft_choose(256, s);
		return is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	uint64_t lo = weft_choose(UINT32_MAX, s);
	uint64_t v = bits > 32 ? lo | (uint64_t)weft_choose(UINT32_MAX, s) << 32 : lo;
	return v;
}

#define NONDET(name, T, bits, sgn)                                                 \
	T __VERIFIER_nondet_##name(void);                                          \
	T __VERIFIER_nondet_##name(void)                                           \
	{                                                                          \
		return (T)nondet(bits, sgn, PC(), "__VERIFIER_nondet_" #name);     \
	}

NONDET(bool, _Bool, 1, false)
NONDET(char, char, 8, true)
NONDET(uchar, unsigned char, 8, false)
NONDET(short, short, 16, true)
NONDET(ushort, unsigned short, 16, false)
NONDET(int, int, 32, true)
NONDET(uint, unsigned, 32, false)
NONDET(unsigned, unsigned, 32, false)
NONDET(u32, unsigned, 32, false)
NONDET(long, long, 64, true)
NONDET(ulong, unsigned long, 64, false)
NONDET(longlong, long long, 64, true)
NONDET(ulonglong, unsigned long long, 64, false)
NONDET(size_t, size_t, 64, false)
NONDET(loff_t, long, 64, true)

/* no pointer is a safe arbitrary choice: NULL, as a serial run gives */
void *__VERIFIER_nondet_pointer(void);
void *__VERIFIER_nondet_pointer(void)
{
	return NULL;
}

float __VERIFIER_nondet_float(void);
float __VERIFIER_nondet_float(void)
{
	return (float)(int)nondet(32, true, PC(), "__VERIFIER_nondet_float");
}

double __VERIFIER_nondet_double(void);
double __VERIFIER_nondet_double(void)
{
	return (double)(int)nondet(32, true, PC(), "__VERIFIER_nondet_double");
}
