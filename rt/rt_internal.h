/*
 * rt_internal.h - Weft's ThreadSanitizer-ABI runtime for instrumented
 * programs (libweft_rt), shared by its files only.
 *
 * A program built by weft-cc (or weft_instrument() in CMake) is compiled
 * with -fsanitize=thread, so the compiler calls __tsan_read4(addr) before
 * every 4-byte load, __tsan_atomic32_fetch_add(...) for every atomic, and
 * so on, and it is linked against this runtime instead of the TSan one,
 * as KCSAN links the kernel against its own __tsan_* functions.
 *
 * The runtime lives in a shared library so that the executable's
 * writable segment holds only the program's globals (and the C runtime's
 * few), never Weft's own state. Under `weft run ./prog` (program mode) the
 * executable's main() becomes the body of a scenario's thread 0, and each
 * execution starts from the program's initial state:
 *
 *   world = [ the executable's writable segment | heap arena | thread stacks ]
 *
 * one mapping-contiguous range of addresses that the machine treats as the
 * world (world offsets, the shadow, DPOR's locations, the trace). Its
 * reset restores .data/.bss from a snapshot taken at main() and zeroes
 * the part of the heap arena the last execution used. Outside program
 * mode (./prog run directly) every hook is a no-op and every interposed
 * libc function forwards to the C library: the program runs natively.
 *
 * An instrumented access is a scheduling point, a trace event, a shadow
 * write and a dependence record (through weft_plain_point/_done and
 * weft_access, the funnel every model primitive uses) exactly when its
 * address is in the world and not on the running thread's own stack.
 */
#ifndef WEFT_RT_INTERNAL_H
#define WEFT_RT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <weft/kernel.h>

#include "sched.h"

/* The program's lowest frame, for await's local state (machine/await.c:
 * the stack from here to the top is hashed): the caller's stack pointer
 * at the call of the function this is written in (frame pointers, which
 * weft-cc keeps). Set by every entry from the program that can end an
 * iteration of a spin: the __tsan_* accesses' slow paths (above their
 * frame and the __tsan_* entry's) and the yields (sched_yield() and the
 * sleeps, rt_libc.c), so that the frames of a call made since (the
 * yield's own, over the dead frame of the last access's callee) are not
 * taken for the program's locals. */
#define RT_USER_SP() ((const char *)__builtin_frame_address(0) + 16)
/* The program's frame pointer at that call: the caller's, which the
 * prologue of the function this is written in saved (the __tsan_* entries
 * in between leave the register alone), for rt_escape.c's search of the
 * frame that holds a handed-over local. */
#define RT_USER_FP() (*(const uintptr_t *)__builtin_frame_address(0))

/* The thread's state outside the world moved (a reading of the virtual
 * clock, a draw of a generator, a store to a __thread variable): for
 * fairness a change by the
 * current thread (as a store that changed a value: its progress, and what
 * its yields compare), and the end of a lone spin's count, so a loop that
 * polls it (up to a deadline, until a draw comes) neither awaits nor
 * spins: tests/rt/deadline_poll.c, spin_deadline.c. */
static inline void rt_state_moved(void)
{
	if (M.cur >= 0) {
		M.fair_wr[M.cur]++;
		M.th[M.cur].progress += 1ull << 32;
		M.lone_yields = 0;
	}
}

/* --------------------------------------------------------------- image */

/* The executable, read from its file: symbols, the DWARF line table, the
 * build id (rt_elf.c, rt_dwarf.c). Addresses are run-time addresses. */
struct rt_sym {
	uintptr_t addr;
	size_t size;
	const char *name;
	bool func;
};

struct rt_line {
	uintptr_t addr;
	uint32_t file;      /* index into rt_img.files */
	uint32_t line;      /* 0: no line (end of a sequence) */
};

struct rt_image {
	char path[4096];
	uintptr_t bias;            /* load bias (0 for a non-PIE executable) */
	uintptr_t lo, hi;          /* every PT_LOAD segment */
	uintptr_t text_lo, text_hi;
	uintptr_t rw_lo, rw_hi;    /* the writable PT_LOAD segment */
	uintptr_t relro_hi;        /* end of PT_GNU_RELRO inside it (or rw_lo) */
	bool has_tls;              /* PT_TLS: __thread variables (shared by fibers) */
	/* the OS thread's block of them and its initial image (PT_TLS:
	 * tls_filesz bytes of tls_init, then zeros to tls_memsz), put back at
	 * every execution's start (rt_world.c world_reset) */
	void *tls_data;
	const void *tls_init;
	size_t tls_filesz, tls_memsz;
	bool cyg_hooks;            /* built with -finstrument-functions */
	uint8_t build_id[WEFT_BUILD_ID_MAX];
	unsigned build_id_len;
	struct rt_sym *syms;
	size_t nr_syms;
	struct rt_line *lines;
	size_t nr_lines;
	char **files;
	size_t nr_files;
};
extern struct rt_image rt_img;

/* Finds the executable's segments (dl_iterate_phdr) and reads its file. */
int rt_image_load(void);
/* libweft_rt's own build id into id (WEFT_BUILD_ID_MAX bytes): its length,
 * 0 if unknown. */
unsigned rt_runtime_build_id(uint8_t *id);
/* rt_dwarf.c: .debug_line of the mapped ELF file into rt_img.lines. */
void rt_dwarf_lines(const uint8_t *line, size_t line_len, const uint8_t *line_str,
		    size_t line_str_len, const char *comp_dir_hint);
/* The symbol containing addr (functions and objects), or NULL. */
const struct rt_sym *rt_sym_at(uintptr_t addr);
/* file:line of pc (0 if unknown). */
bool rt_line_at(uintptr_t pc, const char **file, unsigned *line);
/* The text of a source line, trimmed (NULL if the file is not readable). */
const char *rt_source_line(const char *file, unsigned line);

/* --------------------------------------------------------------- sites */

/* What a site does, beyond its event (rt_site.c makes one site per pc and
 * class). */
enum rt_class {
	RT_READ = 0, RT_WRITE, RT_VREAD, RT_VWRITE, RT_RANGE_READ, RT_RANGE_WRITE,
	RT_ATOMIC,        /* + aop << 4 | order << 8 */
	RT_FENCE,
	RT_CALL,          /* a libc/pthread call: what names it */
};

const struct weft_site *rt_site_slow(uintptr_t pc, unsigned cls, unsigned ev, const char *what);
/* A direct-mapped cache in front of the site table: one compare per
 * instrumented access in a loop. */
#define RT_SITE_CACHE 1024
extern struct rt_site_cache {
	uintptr_t pc;
	unsigned cls;
	const struct weft_site *s;
} rt_site_cache[RT_SITE_CACHE];
static inline const struct weft_site *rt_site(uintptr_t pc, unsigned cls, unsigned ev,
					      const char *what)
{
	struct rt_site_cache *c = &rt_site_cache[(pc ^ cls) & (RT_SITE_CACHE - 1)];

	if (__builtin_expect(c->pc == pc && c->cls == cls, 1))
		return c->s;
	c->s = rt_site_slow(pc, cls, ev, what);
	c->pc = pc;
	c->cls = cls;
	return c->s;
}
/* The site of a call of an interposed function from pc (its return address). */
#define RT_CALL_SITE(pc, ev, name) rt_site((uintptr_t)(pc), RT_CALL | (ev) << 4, (ev), (name))
/* weft_dynamic_sites() lookup. */
const struct weft_site *rt_site_by_id(uint32_t id);

/* --------------------------------------------------------------- world */

struct rt_world {
	uint8_t *base;             /* = page start of the writable segment */
	size_t size;               /* world bytes (the core area follows) */
	uint8_t *snap_lo, *snap_hi;/* restored from snapshot at every execution */
	uint8_t *snapshot;
	uint8_t *heap_lo, *heap_hi;
	uint8_t *stacks_lo, *stacks_hi;
	size_t heap_bytes, stack_bytes;
};
extern struct rt_world rt_w;

/* World bytes while an execution of the program runs, else 0: the hooks'
 * first test (in native mode it is always 0). */
extern size_t rt_lim;

int rt_world_map(void);
extern const struct weft_world_ops rt_world_ops;

/* ----------------------------------------------------------- per thread */

#define RT_STACK_DEPTH 64

struct rt_thread {
	void *(*fn)(void *);
	void *arg;
	void *ret;
	bool detached, joined, exited;
	unsigned atomic_depth;     /* __VERIFIER_atomic_begin nesting */
	unsigned depth;            /* __tsan_func_entry depth */
	uintptr_t stack[RT_STACK_DEPTH];   /* call sites, outermost first */
	void *tls[64];             /* pthread_setspecific values */
	void *c11_pc;              /* in a call made for another interposed
				      function (RT_AS_CALLER): that one's site */
	void *jb[5];               /* pthread_exit: __builtin_setjmp buffer */
};
extern struct rt_thread rt_th[WEFT_EXEC_MAX_THREADS];

/* The C library's function `name`, for native runs and host code: REAL()
 * defines get_name(), which looks it up once (dlsym(RTLD_NEXT)). The file
 * using it includes <dlfcn.h>. */
#define REAL(ret, name, ...)                                                      \
	static ret (*real_##name)(__VA_ARGS__);                                   \
	static ret (*get_##name(void))(__VA_ARGS__)                               \
	{                                                                         \
		if (!real_##name)                                                 \
			real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name); \
		return real_##name;                                               \
	}

/* The program's instruction that made an interposed call: the return
 * address ra of the interposed function, or, when a C11 <threads.h>
 * function (rt_c11threads.c) called it, that function's. */
static inline void *rt_caller_pc(void *ra)
{
	if (M.cur >= 0 && rt_th[M.cur].c11_pc)
		return rt_th[M.cur].c11_pc;
	return ra;
}

/* Run call, an interposed function, with the call site pc standing for
 * call's own (rt_c11threads.c, rt_pthread_np.c); RT_AS_CALLER: the calling
 * function's own call site. An outer override is kept. */
#define RT_AS_CALLER_AT(pc, call)                                                 \
	({                                                                        \
		struct rt_thread *t_ = M.cur >= 0 ? &rt_th[M.cur] : NULL;         \
		void *saved_ = t_ ? t_->c11_pc : NULL;                            \
		if (t_ && !saved_)                                                \
			t_->c11_pc = (pc);                                        \
		__typeof__(call) r_ = (call);                                     \
		if (t_)                                                           \
			t_->c11_pc = saved_;                                      \
		r_;                                                               \
	})
#define RT_AS_CALLER(call) RT_AS_CALLER_AT(__builtin_return_address(0), call)
/* The lowest frame each thread's fiber has had, over all executions of the
 * process: rt_stack_scrub() zeroes from below it. */
extern uintptr_t rt_low_sp[WEFT_EXEC_MAX_THREADS];

/* atexit() handlers one execution may register (glibc guarantees 32) */
#define RT_ATEXIT_MAX 32

/* Per execution (reset by rt_world_ops). */
struct rt_exec {
	/* a plain store the running thread announced and has not completed:
	 * traced (with the value it stored) at its next entry into the
	 * runtime, before anything else can run */
	void *pend_addr;
	unsigned pend_size;
	const struct weft_site *pend_site;
	uintptr_t pend_fp;        /* the storing function's frame (RT_USER_FP) */
	/* per thread, an announced store the next hook, a read's, found not
	 * yet done: the compiler announces an aggregate copy's store before
	 * its load (gcc's tsan pass instruments a statement's lhs first), so
	 * the store comes after that load; completed after the read, by the
	 * same thread (other threads may run at the read's point, and must
	 * see memory without it: rt_tsan.c, read_slow) */
	struct rt_deferred_store {
		void *addr;
		unsigned size;
		const struct weft_site *site;
		uint64_t old;
		uintptr_t fp;
	} deferred[WEFT_EXEC_MAX_THREADS];
	int exit_status;          /* exit(n), main's return */
	bool exited;
	unsigned exit_tid;        /* the thread that ended the process (when exited) */
	bool assumed;             /* ended by __VERIFIER_assume(0): no audit */
	bool in_reach_error;      /* reach_error() reported (rt_tsan.c) */
	uint64_t rand_state;
	unsigned nr_keys;
	void (*key_dtor[64])(void *);
	bool key_used[64];
	/* the handlers atexit() (__cxa_atexit()) registered in this
	 * execution: exit() and main()'s return run them, newest first, in the
	 * thread that ends the process (rt_run_atexit(), rt_libc.c); never
	 * registered with the C library, which would run them at the end of
	 * the process that ran every execution */
	struct rt_atexit {
		void (*fn)(void *);
		void *arg;
	} atexit_fn[RT_ATEXIT_MAX];
	unsigned nr_atexit;
	bool atexit_ran;          /* exit() in a handler runs none again */
};
extern struct rt_exec rt_x;
/* exit()'s and main()'s return's: run this execution's atexit() handlers */
void rt_run_atexit(void);

/* ------------------------------------------------------------ the hooks */

/* The one OS thread that runs executions (program mode): libFuzzer's own
 * threads (its RSS watcher sleeps, locks std::mutex) call the interposed
 * functions too, and must reach the C library. */
extern __thread bool rt_machine_thread __attribute__((tls_model("initial-exec")));

/* In an execution, on a model thread (of the thread that runs them). */
static inline bool rt_active(void)
{
	return rt_lim && M.cur >= 0 && rt_machine_thread;
}

/* Escape marks of the stacks (rt_escape.c): one bit per 8-byte granule of
 * [rt_w.stacks_lo, rt_w.stacks_hi) another thread may reach; every marked
 * granule lies in [rt_esc_lo, rt_esc_lo + rt_esc_len) (len 0: none, the
 * only test an unmarked stack's access pays). Reset at every execution. */
#define RT_ESC_SHIFT 3
extern uint64_t *rt_esc_bits;
extern uintptr_t rt_esc_lo, rt_esc_len;
extern bool rt_esc_armed;
int rt_escape_init(void);
void rt_escape_reset(void);
/* A plain store that may write a pointer is announced (rt_tsan.c): stack
 * accesses check the marks after completing it (rt_escape_settle()), until
 * rt_flush_slow() has handed its value over and disarms. */
void rt_escape_arm(void);
void rt_escape_disarm(void);
void rt_escape_settle(void);
bool rt_escaped_slow(uintptr_t a, size_t size);
/* Another thread's access to a stack (a point): mark what it touched. */
void rt_escape_touch(const void *addr, size_t size);
/* A value stored by a point, or handed to a new thread: if it points into
 * a stack, mark the object it points to (and what that holds) escaped. fp:
 * the frame pointer of the program's function that handed it (RT_USER_FP),
 * where the search for the frame holding the object starts. */
void rt_escape_handoff(uint64_t v, uintptr_t fp);
/* The same for every aligned word of a range stored by a point. */
void rt_escape_range(const void *addr, size_t size, uintptr_t fp);

/* The filter range starts 16 bytes below the first mark: an access of up
 * to 16 bytes that overlaps a marked granule starts inside it. */
#define RT_ESC_FILTER 16
static inline bool rt_escaped(uintptr_t a, size_t size)
{
	if (__builtin_expect(a - rt_esc_lo < rt_esc_len, 0))
		return rt_escaped_slow(a, size);
	return size > RT_ESC_FILTER && rt_esc_len && rt_escaped_slow(a, size);
}

/* Where addr lies for the running model thread: outside the world (or
 * no model thread runs), in the world off its own stack, or on its stack. */
enum rt_place { RT_NOT_SHARED, RT_SHARED, RT_OWN_STACK };
static inline enum rt_place rt_place_of(const void *addr)
{
	uintptr_t off = (uintptr_t)addr - (uintptr_t)rt_w.base;

	if (off >= rt_lim || M.cur < 0)
		return RT_NOT_SHARED;
	const struct weft_fiber *f = &M.th[M.cur].fib;
	if ((uintptr_t)addr - (uintptr_t)f->stack_lo >= f->stack_size)
		return RT_SHARED;
	return RT_OWN_STACK;
}

/* addr is shared memory of the program: in the world and not on the
 * running thread's own stack, unless the granule is escaped there
 * (rt_escape.c: another thread touched it, or was handed its address). A
 * local's access that another thread may race with is a point for both. */
static inline bool rt_shared(const void *addr, size_t size)
{
	enum rt_place p = rt_place_of(addr);

	return p == RT_SHARED || (p == RT_OWN_STACK && rt_escaped((uintptr_t)addr, size));
}

/* rt_shared() for the plain accesses' hooks (at most 16 bytes), whose slow
 * paths check the marks (rt_own_private()): true may also be a granule of
 * the running thread's own stack near a mark. */
static inline bool rt_shared_hint(const void *addr)
{
	enum rt_place p = rt_place_of(addr);

	return p == RT_SHARED ||
	       (p == RT_OWN_STACK &&
		__builtin_expect((uintptr_t)addr - rt_esc_lo < rt_esc_len, 0));
}

/* In a plain access's slow path: addr is the running thread's own stack
 * and not escaped (rt_shared_hint() let it through near a mark). */
static inline bool rt_own_private(const void *addr, size_t size)
{
	const struct weft_fiber *f = &M.th[M.cur].fib;

	return (uintptr_t)addr - (uintptr_t)f->stack_lo < f->stack_size &&
	       !rt_escaped_slow((uintptr_t)addr, size);
}

/* At a point's access to addr: another thread's stack is touched (marked
 * escaped from now on for its owner too). */
static inline void rt_escape_note(const void *addr, size_t size)
{
	uintptr_t a = (uintptr_t)addr;

	if (__builtin_expect(a - (uintptr_t)rt_w.stacks_lo < rt_w.stack_bytes, 0))
		rt_escape_touch(addr, size);
}

/* The start of an atomic section (rt_tsan.c): a scheduling point, then
 * none until it ends. */
void rt_atomic_enter(uintptr_t pc, const char *what);
/* An operation of weft_access() inside a transition: no point, no new step
 * (traced, shadowed, recorded: rt_tsan.c). */
uint64_t rt_section_op(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
		       const struct weft_site *s);

/* The virtual clock (rt_time.c): back to 0 at an execution's start; a
 * sleep moves it forward by ns. */
void rt_time_reset(void);
/* The generators of rt_random.c, as at an execution's start. */
void rt_random_reset(void);
void rt_time_sleep(uint64_t ns);

/* Forget the threads' names of the last execution (rt_pthread_np.c). */
void rt_pthread_np_reset(void);

/* End the execution with a limit-reached report: the call `what` (at pc)
 * is not modelled, for the reason `why` (rt_process.c). */
void rt_not_modelled(void *pc, const char *what, const char *why);

/* Complete the announced plain store (rt_tsan.c). */
void rt_flush_slow(void);
static inline void rt_flush(void)
{
	if (__builtin_expect(rt_x.pend_site != NULL, 0))
		rt_flush_slow();
}

/* A value for the trace: pointers outside the world that would differ
 * between processes (code, libraries, other mappings) become stable tags. */
uint64_t rt_norm_slow(uint64_t v);
static inline uint64_t rt_norm(uint64_t v)
{
	if (v < 0x10000 || v - (uintptr_t)rt_w.base < rt_w.size)
		return v;
	return rt_norm_slow(v);
}

/* A store done by the runtime on the program's behalf inside an operation
 * that took its point already (pthread_create's *thread): traced and
 * shadowed, no point. */
void rt_silent_write(void *addr, unsigned size, uint64_t val, const struct weft_site *s);

/* ---------------------------------------------------------------- heap */

void rt_heap_reset(void);
/* At exit: blocks no pointer reaches any more (rt_heap.c). */
void rt_heap_leak_check(void);
/* Thread tid's __thread block now (NULL: never ran; rt_world.c). */
const uint8_t *rt_tls_copy(unsigned tid, size_t *n);
/* "heap block 3 (malloc in f() at prog.c:12)" for a world offset. */
bool rt_heap_describe(uintptr_t addr, char *buf, size_t n);
/* Is pc in the executable's text (a call from the program itself)? */
static inline bool rt_from_program(const void *pc)
{
	return (uintptr_t)pc - rt_img.text_lo < rt_img.text_hi - rt_img.text_lo;
}

/* ------------------------------------------------------------- threads */

void rt_threads_reset(void);
/* The body of thread 0: the program's main(). */
void rt_main_thread(void *world, unsigned tid);
/* The program ends (exit, return from main) with status st, from pc. */
void rt_program_exit(int st, const void *pc) __attribute__((noreturn));
/* WEFT_ABORT=end: abort() is an assumption that does not hold. */
extern bool rt_abort_ends;
/* The execution cannot go on: no verdict, no audit (name: the note). */
void rt_infeasible(const void *pc, const char *name) __attribute__((noreturn));
/* The thread's end: TLS destructors (rt_pthread.c). */
void rt_thread_exit_hooks(unsigned tid);
/* The scrubbing of a thread's stack below the frames it will use. */
void rt_stack_scrub(unsigned tid);

/* -------------------------------------------------------------- program */

/* main(), the arguments a program-mode run gives it, the scenario. */
extern int (*rt_real_main)(int, char **, char **);
extern int rt_argc;
extern char **rt_argv;
extern struct weft_scenario rt_scenario;
extern struct weft_program rt_program;

/* Real libc functions (dlsym(RTLD_NEXT)); rt_libc.c resolves them once. */
struct rt_real {
	void *(*memcpy)(void *, const void *, size_t);
	void *(*memmove)(void *, const void *, size_t);
	void *(*memset)(void *, int, size_t);
	void (*exit)(int);
	void (*abort)(void);
	void (*assert_fail)(const char *, const char *, unsigned, const char *);
	int (*sched_yield)(void);
	int (*usleep)(unsigned);
	int (*nanosleep)(const void *, void *);
	unsigned (*sleep)(unsigned);
};
extern struct rt_real rt_real;
void rt_resolve_real(void);

/* Signals in program threads become crash reports. */
void rt_signals_install(void);
/* The wall-clock watchdog of executions that stop taking steps (rt_libc.c). */
void rt_watchdog_start(void);

/* Instrumented modules other than the executable (rt_tsan.c): their count,
 * and the first one's path in *first. */
unsigned rt_foreign_modules(const char **first);

/* stdin read alike by every execution (rt_world.c): rewound when it is a
 * file, the program refused when it read a pipe or a terminal. */
void rt_stdin_init(void);

#endif
