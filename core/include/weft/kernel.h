/*
 * kernel.h - kernel-shaped primitives for Weft models.
 *
 * Every primitive here is, at once, a scheduling point, a trace event and a
 * detector hook (the way include/linux/page_ref.h funnels every refcount
 * change through one place). A model touches shared state only through
 * these; a raw `p->count++` on shared state is a defect in the model.
 *
 * Two implementations of one interface:
 *  - controlled (default): the machine in core/src runs threads as fibers on
 *    fake CPUs and a strategy picks the interleaving;
 *  - native (-DWEFT_NATIVE): real C11 atomics and spinlocks, one pthread per
 *    fake CPU: the classic stress test and a ThreadSanitizer target.
 *
 * Memory model: sequential consistency by default; a run may choose a
 * weak one (weft_run_opts.memory, `--memory`; docs/memory-model.md), under
 * which the fences below order what they order in the kernel.
 * Shared pointers must point into the world (or be NULL or a poison
 * constant): the trace stores them as world offsets, never as addresses.
 *
 * Length (~1,100 lines): the one header a model includes for the kernel's
 * core vocabulary (atomics, bit operations, barriers, spinlocks, lists),
 * each name a macro of its own in both builds (controlled, native) with
 * its site's `what` text, which trace hashes include; the families with
 * headers of their own (sleep.h, rcu.h, xarray.h, ...) are already out.
 */
#ifndef WEFT_KERNEL_H
#define WEFT_KERNEL_H

#include <weft/weft.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Access operations of weft_access(). */
enum weft_aop {
	WEFT_A_LOAD = 0,
	WEFT_A_STORE,      /* a: value */
	WEFT_A_ADD,        /* a: addend; returns the old value */
	WEFT_A_XCHG,       /* a: new; returns old */
	WEFT_A_CMPXCHG,    /* a: expected, b: new; returns old */
	WEFT_A_OR,         /* a: mask; returns old */
	WEFT_A_ANDNOT,     /* a: mask; returns old */
	WEFT_A_ADD_UNLESS, /* a: addend, b: unless; returns old (no store if old == b) */
	WEFT_A_XOR,        /* a: mask; returns old (C11 atomic_fetch_xor) */
	WEFT_A_NAND,       /* a: mask; returns old, stores ~(old & a) (__atomic_fetch_nand) */
};

/* enum weft_fence_kind and struct weft_spinlock: <weft/weft.h> (the kernel
 * compatibility headers use them without this header's kernel names) */

struct weft_list_head {
	struct weft_list_head *next, *prev;
};

struct weft_atomic {
	int counter;
};
struct weft_atomic_long {
	long counter;
};
struct weft_atomic64 {
	int64_t counter;
};

/* poison values of list_del, as in include/linux/poison.h (offsets only) */
#define WEFT_LIST_POISON1 ((struct weft_list_head *)(uintptr_t)0x100)
#define WEFT_LIST_POISON2 ((struct weft_list_head *)(uintptr_t)0x122)

#ifndef WEFT_NATIVE
/* ------------------------------------------------------------ controlled */

uint64_t weft_access(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
		     const struct weft_site *s);
/* The same, also returning the access that last wrote addr before this
 * one (the other side of a report about the value it found). */
uint64_t weft_access_prev(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
			  const struct weft_site *s, struct weft_access *prev);
/* A load of memory that may be freed, on purpose (READ_ONCE_NOCHECK):
 * traced as a load, no use-after-free report. */
uint64_t weft_load_nocheck(const void *addr, unsigned size, const struct weft_site *s);
/* A plain (non-atomic) access: the point and the trace are here; the C
 * access itself is done by the caller's code, so a TSan build of the model
 * sees it, through the pointer weft_plain_point() returns (addr, or a
 * scratch word when addr is outside the world and the access was reported
 * from setup or an audit). */
void *weft_plain_point(const void *addr, unsigned size, const struct weft_site *s);
void weft_plain_done(const void *addr, unsigned size, uint64_t old, uint64_t val,
		     const struct weft_site *s);
/* the spinlock's functions: <weft/weft.h>, beside struct weft_spinlock */
void weft_yield(const struct weft_site *s);
/* A fence (enum weft_fence_kind): an event in the trace, and under a weak
 * memory model the ordering it gives. weft_barrier() is a full one. */
void weft_fence(unsigned kind, const struct weft_site *s);
void weft_barrier(const struct weft_site *s);
uint32_t weft_choose(uint32_t n, const struct weft_site *s);
unsigned weft_smp_processor_id(void);
unsigned weft_current_tid(void);
void weft_note(const struct weft_site *s, uint64_t a, uint64_t b);
/* Mark [addr, addr+len) freed (any later primitive on it is a
 * use-after-free) or allocated again. */
void weft_poison(const void *addr, size_t len, const struct weft_site *s);
void weft_unpoison(const void *addr, size_t len, const struct weft_site *s);
bool weft_is_poisoned(const void *addr);
/* A helper that touches memory without a primitive (an init, a kit's own
 * bookkeeping) checks it first: true if [p, p + size) lies in the world;
 * otherwise an out-of-world report at s, which ends a model thread's
 * execution, and false (from setup or an audit: skip the access). */
bool weft_in_world(const void *p, size_t size, const struct weft_site *s);
/* The access that last wrote (or freed) addr in this execution. */
struct weft_access weft_last_write(const void *addr);
/* Read without a scheduling point (for checks and audits only). Like a
 * primitive's, the read must lie in the world: outside it (a stale
 * pointer, a bad index) it is an out-of-world report naming the peek, and
 * the host's memory is not read (from setup or an audit it reads 0). Under
 * a weak memory model a check in a model thread sees what its CPU sees:
 * its own buffered stores too (the checks of the kernel's debug options
 * run under the locks that keep everyone else's stores visible). */
const void *weft_peek_at(const void *p, size_t size, const struct weft_caller *c);
/* The world of the execution under way, as weft_peek() checks it inline
 * (the machine keeps it; read it, never write it): [base, base + end16 +
 * 16) for a world of 16 bytes or more, so that one comparison checks a
 * read of up to 16 bytes; a smaller world takes the slow path. */
struct weft_world_bounds {
	uintptr_t base;
	size_t end16;
};
extern struct weft_world_bounds weft_world_bounds;
static inline const void *weft_peek_ptr(const void *p, size_t size, const struct weft_caller *c)
{
	uintptr_t off = (uintptr_t)p - weft_world_bounds.base;

	if (__builtin_expect(size <= 16 && off <= weft_world_bounds.end16 + (16 - size), 1))
		return p;
	return weft_peek_at(p, size, c);
}
extern bool weft_mem_weak;
/* Whether a store of the execution under way may become visible to other
 * CPUs after later accesses of its own (--memory tso or lkmm; always in a
 * native run, on real CPUs): for an oracle whose "before" is the machine's
 * order under sc only. */
static inline bool weft_memory_is_weak(void)
{
	return weft_mem_weak;
}
/* The peeks' one shape: under a weak memory model weak_read(addr, size)
 * reads x, else a relaxed load; what_ names the peek in an out-of-world
 * report. */
#define __weft_peek_by(weak_read, what_, x)                                     \
	(__builtin_expect(weft_mem_weak, 0)                                     \
		 ? (__typeof__(x))(uintptr_t)weak_read(                         \
			   weft_peek_ptr(&(x), sizeof(x), WEFT_CALLER(what_)), sizeof(x)) \
		 : __atomic_load_n((__typeof__(&(x)))weft_peek_ptr(&(x), sizeof(x), \
							   WEFT_CALLER(what_)), \
				   __ATOMIC_RELAXED))
uint64_t weft_peek_weak(const void *addr, unsigned size);
#define weft_peek(x) __weft_peek_by(weft_peek_weak, "weft_peek(" #x ")", x)

/* weft_peek() of what has surely reached the current CPU: under lkmm the
 * oldest value a load of its may still read (a strong fence passes on
 * what had reached its CPU, not every newer store: an oracle asking what a
 * fence made visible reads this, not memory); under tso and sc the same as
 * weft_peek(). */
uint64_t weft_peek_visible(const void *addr, unsigned size);
#define weft_peek_seen(x) __weft_peek_by(weft_peek_visible, "weft_peek_seen(" #x ")", x)

/* Weak memory for a model that interprets a program of its own and so can
 * execute it out of order (the litmus runner's load buffering): one more
 * weak choice of the execution, a code in [0, ncodes) that the strategy
 * picks (pick_delay) and a replay file records, asked only while the
 * execution runs under memory model m; under any other model 0 without
 * asking (a run under sc asks nothing: its trace is unchanged). Compiled
 * C cannot use it: a load of C code is satisfied when it executes. */
uint32_t weft_weak_choice(enum weft_memory_model m, uint32_t ncodes);

/* weft_peek() for a detector's ghost state (the kit's page allocator
 * state): the newest value of x, whichever CPU's buffer holds it under a
 * weak memory model; the same as weft_peek() under sc. */
uint64_t weft_peek_newest(const void *addr, unsigned size);
#define weft_peek_ghost(x) __weft_peek_by(weft_peek_newest, "weft_peek(" #x ")", x)

/* Report a bug: ends the execution (from a model thread) or records it
 * (from setup/quiesce). obj: the object's address in the world, or NULL. */
void weft_report(enum weft_kind k, const void *obj, const struct weft_site *s,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Same, naming the other side explicitly. */
void weft_report2(enum weft_kind k, const void *obj, const struct weft_site *s,
		  const struct weft_access *other, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
bool weft_in_thread(void);
/* Distinct for every execution of the process (setup to audits) among
 * the last 2^32 (a 32-bit counter that wraps, never to 0): for a kit's
 * own per-execution tables, whose entries are overwritten sooner. */
uint32_t weft_execution_id(void);
/* Threads that come and go (kthread_run()/pthread_create() style): start
 * fn(world, arg) as a new model thread on fake CPU cpu (taken modulo the
 * scenario's CPU count; WEFT_CPU_ANY: a CPU no unfinished thread is on,
 * the lowest, else the one with the fewest, and the trace says it is
 * shared); returns its thread number. At most WEFT_EXEC_MAX_THREADS
 * threads exist in one execution, the scenario's own included (more is an
 * assertion report). Starting a thread is a scheduling point; the new
 * thread is runnable at once. */
#define WEFT_CPU_ANY (~0u)
int weft_thread_spawn(void (*fn)(void *world, void *arg), void *arg, unsigned cpu,
		      const struct weft_site *s);
/* Sleep until thread tid has ended (a join of a thread that never ends is
 * a deadlock or lost-wakeup report). */
void weft_thread_join(int tid, const struct weft_site *s);

/* A helper's events carry the model's call of it (struct weft_caller,
 * display only): enter returns the caller already in effect (the
 * outermost call wins) for exit to restore. */
const struct weft_caller *weft_caller_enter(const struct weft_caller *c);
void weft_caller_exit(const struct weft_caller *prev);
#define WEFT_CALLER(what_)                                                      \
	({                                                                     \
		static const struct weft_caller __weft_caller = {              \
			__FILE__, __func__, (what_), __LINE__, 0 };            \
		&__weft_caller;                                                \
	})
#define WEFT_CALL_VOID(what_, call)                                             \
	({                                                                     \
		const struct weft_caller *__weft_cprev =                       \
			weft_caller_enter(WEFT_CALLER(what_));                 \
		call;                                                          \
		weft_caller_exit(__weft_cprev);                                \
	})
#define WEFT_CALL_VAL(T, what_, call)                                           \
	({                                                                     \
		const struct weft_caller *__weft_cprev =                       \
			weft_caller_enter(WEFT_CALLER(what_));                 \
		T __weft_cret = (call);                                        \
		weft_caller_exit(__weft_cprev);                                \
		__weft_cret;                                                   \
	})

/* A library operation (an mm kit function) records the model's call of it
 * the same way, in a slot of its own: reports and the failing and
 * conflicting sides of a diagram name that call ("[get_page(mm, p)] in
 * my_fault() at model.c:42"), not a line inside the library, while the
 * rows keep the library's own operations (they are not folded). */
const struct weft_caller *weft_kit_enter(const struct weft_caller *c);
void weft_kit_exit(const struct weft_caller *prev);
#define WEFT_KIT_CALLER(what_)                                                  \
	({                                                                     \
		static const struct weft_caller __weft_kcaller = {             \
			__FILE__, __func__, (what_), __LINE__, WEFT_CALLER_KIT }; \
		&__weft_kcaller;                                               \
	})
/* (__COUNTER__ names the saved caller: calls nest in one another's
 * arguments) */
#define WEFT_KIT_CALL_VOID(what_, call) __WEFT_KIT_CALL_VOID(what_, call, __COUNTER__)
#define WEFT_KIT_CALL_VAL(T, what_, call) __WEFT_KIT_CALL_VAL(T, what_, call, __COUNTER__)
#define __WEFT_KIT_CALL_VOID(w, c, n) ___WEFT_KIT_CALL_VOID(w, c, n)
#define __WEFT_KIT_CALL_VAL(T, w, c, n) ___WEFT_KIT_CALL_VAL(T, w, c, n)
#define ___WEFT_KIT_CALL_VOID(what_, call, n)                                   \
	({                                                                     \
		const struct weft_caller *__weft_kprev##n =                    \
			weft_kit_enter(WEFT_KIT_CALLER(what_));                    \
		call;                                                          \
		weft_kit_exit(__weft_kprev##n);                                \
	})
#define ___WEFT_KIT_CALL_VAL(T, what_, call, n)                                 \
	({                                                                     \
		const struct weft_caller *__weft_kprev##n =                    \
			weft_kit_enter(WEFT_KIT_CALLER(what_));                    \
		T __weft_kret##n = (call);                                     \
		weft_kit_exit(__weft_kprev##n);                                \
		__weft_kret##n;                                                \
	})

#define WEFT_ACCESS(p, aop, a, b, ev, what)                                   \
	weft_access((void *)(p), sizeof(*(p)), (aop), (uint64_t)(a), (uint64_t)(b), \
		    WEFT_SITE((ev), (what)))
/* With an ordering class (WEFT_SITE_RELAXED, _ACQUIRE, _RELEASE). */
#define WEFT_ACCESS_F(p, aop, a, b, ev, what, flags)                           \
	weft_access((void *)(p), sizeof(*(p)), (aop), (uint64_t)(a), (uint64_t)(b), \
		    WEFT_SITE_F((ev), (what), (flags)))

#else /* WEFT_NATIVE */
/* ---------------------------------------------------------------- native */
#include <weft/native.h>
#define WEFT_CALL_VOID(what_, call) ((void)(call))
#define WEFT_CALL_VAL(T, what_, call) (call)
#define WEFT_KIT_CALL_VOID(what_, call) ((void)(call))
#define WEFT_KIT_CALL_VAL(T, what_, call) (call)
#endif

/* An init's check of the object it is given, before its plain stores
 * (weft_in_world()): true if *p lies in the world. Its site is not listed
 * in the weft_sites section, so adding the check to a helper changes no
 * scenario's fingerprint (stored replay files keep replaying). */
#define WEFT_CHECK_WORLD(p, what)                                               \
	({                                                                     \
		static struct weft_site __weft_cws = {                         \
			__FILE__, __func__, (what), __LINE__, WEFT_EV_WRITE, 0, \
			WEFT_SITE_FLAGS_DEFAULT };                             \
		weft_in_world((p), sizeof(*(p)), &__weft_cws);                 \
	})

/* Plain (racy-by-design) accesses: a scheduling point and a trace event,
 * with the C access itself in the model's translation unit so a TSan build
 * reports unsynchronized ones as data races between fake CPUs. */
#define PLAIN_READ(x)                                                           \
	({                                                                      \
		const struct weft_site *__weft_ps =                             \
			WEFT_SITE(WEFT_EV_READ, "PLAIN_READ(" #x ")");           \
		__typeof__(x) __weft_pv =                                       \
			*(__typeof__(&(x)))weft_plain_point(&(x), sizeof(x), __weft_ps); \
		weft_plain_done(&(x), sizeof(x), (uint64_t)(uintptr_t)__weft_pv, \
				(uint64_t)(uintptr_t)__weft_pv, __weft_ps);     \
		__weft_pv;                                                      \
	})
#define PLAIN_WRITE(x, v)                                                       \
	do {                                                                    \
		const struct weft_site *__weft_pws =                             \
			WEFT_SITE(WEFT_EV_WRITE, "PLAIN_WRITE(" #x ")");         \
		__typeof__(&(x)) __weft_pwp =                                    \
			(__typeof__(&(x)))weft_plain_point(&(x), sizeof(x), __weft_pws); \
		__typeof__(x) __weft_pwv = (v);                                  \
		*__weft_pwp = __weft_pwv;                                        \
		weft_plain_done(&(x), sizeof(x), 0, (uint64_t)(uintptr_t)__weft_pwv, \
				__weft_pws);                                     \
	} while (0)

/* ------------------------------------------------------- kernel names */

#define READ_ONCE(x)                                                            \
	((__typeof__(x))(uintptr_t)WEFT_ACCESS(&(x), WEFT_A_LOAD, 0, 0, WEFT_EV_READ, \
					       "READ_ONCE(" #x ")"))
#define WRITE_ONCE(x, v)                                                        \
	((void)WEFT_ACCESS(&(x), WEFT_A_STORE, (uintptr_t)(v), 0, WEFT_EV_WRITE,  \
			   "WRITE_ONCE(" #x ")"))
/* A marked load the use-after-free detector lets through (the kernel's
 * KASAN-exempt read): for type-stable memory read speculatively, such as a
 * free struct page's compound_head. */
#define READ_ONCE_NOCHECK(x)                                                    \
	((__typeof__(x))(uintptr_t)weft_load_nocheck(&(x), sizeof(x),             \
						     WEFT_SITE(WEFT_EV_READ,          \
							       "READ_ONCE_NOCHECK(" #x ")")))

/* The value of a read-modify-write macro, in a statement expression so that
 * a caller may drop it as it drops a kernel function's (atomic_inc_return()
 * for its ordering alone) without -Wunused-value. */
#define __weft_value(...) (__extension__({ __VA_ARGS__; }))

#define atomic_t struct weft_atomic
#define ATOMIC_INIT(i) { (i) }
#define atomic_read(v) ((int)WEFT_ACCESS(&(v)->counter, WEFT_A_LOAD, 0, 0, WEFT_EV_READ, "atomic_read(" #v ")"))
#define atomic_set(v, i) ((void)WEFT_ACCESS(&(v)->counter, WEFT_A_STORE, (unsigned)(i), 0, WEFT_EV_WRITE, "atomic_set(" #v ")"))
#define __weft_atomic_add_ret_f(v, i, what, f) \
	((int)WEFT_ACCESS_F(&(v)->counter, WEFT_A_ADD, (unsigned)(i), 0, WEFT_EV_RMW, what, f) + (int)(i))
#define __weft_atomic_add_ret(v, i, what) __weft_atomic_add_ret_f(v, i, what, 0u)
/* the non-returning atomics order nothing (atomic_t.txt) */
#define atomic_inc(v) ((void)__weft_atomic_add_ret_f(v, 1, "atomic_inc(" #v ")", WEFT_SITE_RELAXED))
#define atomic_dec(v) ((void)__weft_atomic_add_ret_f(v, -1, "atomic_dec(" #v ")", WEFT_SITE_RELAXED))
#define atomic_add(i, v) ((void)__weft_atomic_add_ret_f(v, i, "atomic_add(" #v ")", WEFT_SITE_RELAXED))
#define atomic_sub(i, v) ((void)__weft_atomic_add_ret_f(v, -(i), "atomic_sub(" #v ")", WEFT_SITE_RELAXED))
#define atomic_add_return(i, v) \
	__weft_value(__weft_atomic_add_ret(v, i, "atomic_add_return(" #v ")"))
#define atomic_sub_return(i, v) \
	__weft_value(__weft_atomic_add_ret(v, -(i), "atomic_sub_return(" #v ")"))
#define atomic_inc_return(v) __weft_value(__weft_atomic_add_ret(v, 1, "atomic_inc_return(" #v ")"))
#define atomic_dec_return(v) __weft_value(__weft_atomic_add_ret(v, -1, "atomic_dec_return(" #v ")"))
/* the ordering forms of atomic_t.txt */
#define atomic_add_return_relaxed(i, v) \
	__weft_value(__weft_atomic_add_ret_f(v, i, "atomic_add_return_relaxed(" #v ")", WEFT_SITE_RELAXED))
#define atomic_add_return_acquire(i, v) \
	__weft_value(__weft_atomic_add_ret_f(v, i, "atomic_add_return_acquire(" #v ")", WEFT_SITE_ACQUIRE))
#define atomic_add_return_release(i, v) \
	__weft_value(__weft_atomic_add_ret_f(v, i, "atomic_add_return_release(" #v ")", WEFT_SITE_RELEASE))
#define atomic_inc_return_relaxed(v) \
	__weft_value(__weft_atomic_add_ret_f(v, 1, "atomic_inc_return_relaxed(" #v ")", WEFT_SITE_RELAXED))
#define atomic_inc_return_acquire(v) \
	__weft_value(__weft_atomic_add_ret_f(v, 1, "atomic_inc_return_acquire(" #v ")", WEFT_SITE_ACQUIRE))
#define atomic_inc_return_release(v) \
	__weft_value(__weft_atomic_add_ret_f(v, 1, "atomic_inc_return_release(" #v ")", WEFT_SITE_RELEASE))
#define atomic_dec_return_relaxed(v) \
	__weft_value(__weft_atomic_add_ret_f(v, -1, "atomic_dec_return_relaxed(" #v ")", WEFT_SITE_RELAXED))
#define atomic_dec_return_acquire(v) \
	__weft_value(__weft_atomic_add_ret_f(v, -1, "atomic_dec_return_acquire(" #v ")", WEFT_SITE_ACQUIRE))
#define atomic_dec_return_release(v) \
	__weft_value(__weft_atomic_add_ret_f(v, -1, "atomic_dec_return_release(" #v ")", WEFT_SITE_RELEASE))
#define atomic_fetch_add(i, v) \
	__weft_value(((int)WEFT_ACCESS(&(v)->counter, WEFT_A_ADD, (unsigned)(i), 0, WEFT_EV_RMW, "atomic_fetch_add(" #v ")")))
#define atomic_fetch_add_relaxed(i, v) \
	__weft_value(((int)WEFT_ACCESS_F(&(v)->counter, WEFT_A_ADD, (unsigned)(i), 0, WEFT_EV_RMW, "atomic_fetch_add_relaxed(" #v ")", WEFT_SITE_RELAXED)))
#define atomic_fetch_add_acquire(i, v) \
	__weft_value(((int)WEFT_ACCESS_F(&(v)->counter, WEFT_A_ADD, (unsigned)(i), 0, WEFT_EV_RMW, "atomic_fetch_add_acquire(" #v ")", WEFT_SITE_ACQUIRE)))
#define atomic_fetch_add_release(i, v) \
	__weft_value(((int)WEFT_ACCESS_F(&(v)->counter, WEFT_A_ADD, (unsigned)(i), 0, WEFT_EV_RMW, "atomic_fetch_add_release(" #v ")", WEFT_SITE_RELEASE)))
#define atomic_read_acquire(v) ((int)WEFT_ACCESS_F(&(v)->counter, WEFT_A_LOAD, 0, 0, WEFT_EV_READ, "atomic_read_acquire(" #v ")", WEFT_SITE_ACQUIRE))
#define atomic_set_release(v, i) ((void)WEFT_ACCESS_F(&(v)->counter, WEFT_A_STORE, (unsigned)(i), 0, WEFT_EV_WRITE, "atomic_set_release(" #v ")", WEFT_SITE_RELEASE))
#define atomic_dec_and_test(v) \
	__weft_value((__weft_atomic_add_ret(v, -1, "atomic_dec_and_test(" #v ")") == 0))
#define atomic_inc_and_test(v) \
	__weft_value((__weft_atomic_add_ret(v, 1, "atomic_inc_and_test(" #v ")") == 0))
#define atomic_sub_and_test(i, v) \
	__weft_value((__weft_atomic_add_ret(v, -(i), "atomic_sub_and_test(" #v ")") == 0))
#define atomic_add_negative(i, v) \
	__weft_value((__weft_atomic_add_ret(v, i, "atomic_add_negative(" #v ")") < 0))
/* returns true if the add happened (old != u) */
#define atomic_add_unless(v, i, u) \
	__weft_value(((int)WEFT_ACCESS(&(v)->counter, WEFT_A_ADD_UNLESS, (unsigned)(i), (unsigned)(u), \
	WEFT_EV_RMW, "atomic_add_unless(" #v ")") != (int)(u)))
/* returns the old value; adds unless it was u (fully ordered when it adds) */
#define atomic_fetch_add_unless(v, i, u) \
	__weft_value(((int)WEFT_ACCESS(&(v)->counter, WEFT_A_ADD_UNLESS, (unsigned)(i), (unsigned)(u), \
	WEFT_EV_RMW, "atomic_fetch_add_unless(" #v ")")))
#define atomic_inc_not_zero(v) \
	__weft_value(((int)WEFT_ACCESS(&(v)->counter, WEFT_A_ADD_UNLESS, 1u, 0u, WEFT_EV_RMW, \
	"atomic_inc_not_zero(" #v ")") != 0))
#define atomic_cmpxchg(v, o, n) \
	__weft_value(((int)WEFT_ACCESS(&(v)->counter, WEFT_A_CMPXCHG, (unsigned)(o), (unsigned)(n), \
	WEFT_EV_RMW, "atomic_cmpxchg(" #v ")")))
#define atomic_cmpxchg_relaxed(v, o, n) \
	__weft_value(((int)WEFT_ACCESS_F(&(v)->counter, WEFT_A_CMPXCHG, (unsigned)(o), (unsigned)(n), \
	WEFT_EV_RMW, "atomic_cmpxchg_relaxed(" #v ")", WEFT_SITE_RELAXED)))
#define atomic_cmpxchg_acquire(v, o, n) \
	__weft_value(((int)WEFT_ACCESS_F(&(v)->counter, WEFT_A_CMPXCHG, (unsigned)(o), (unsigned)(n), \
	WEFT_EV_RMW, "atomic_cmpxchg_acquire(" #v ")", WEFT_SITE_ACQUIRE)))
#define atomic_cmpxchg_release(v, o, n) \
	__weft_value(((int)WEFT_ACCESS_F(&(v)->counter, WEFT_A_CMPXCHG, (unsigned)(o), (unsigned)(n), \
	WEFT_EV_RMW, "atomic_cmpxchg_release(" #v ")", WEFT_SITE_RELEASE)))
#define atomic_xchg(v, n) \
	__weft_value(((int)WEFT_ACCESS(&(v)->counter, WEFT_A_XCHG, (unsigned)(n), 0, WEFT_EV_RMW, \
	"atomic_xchg(" #v ")")))
#define cmpxchg(p, o, n) \
	__weft_value(((__typeof__(*(p)))WEFT_ACCESS((p), WEFT_A_CMPXCHG, (uintptr_t)(o), (uintptr_t)(n), \
	WEFT_EV_RMW, "cmpxchg(" #p ")")))

/* atomic_long_t and atomic64_t: the atomic_t set on a long and an s64.
 * Each operation is written once for a counter of type T; what is the
 * model's call as its site names it (stringized by the kernel name's own
 * macro: handed on, the argument would be macro-expanded first). */
#define __weft_atomic_ret_tf(T, v, i, what, f) \
	((T)WEFT_ACCESS_F(&(v)->counter, WEFT_A_ADD, (uint64_t)(T)(i), 0, WEFT_EV_RMW, what, f) + (T)(i))
#define __weft_atomic_ret_t(T, v, i, what) __weft_atomic_ret_tf(T, v, i, what, 0u)
#define __weft_atomic_unless_t(T, v, i, u, what) \
	((T)WEFT_ACCESS(&(v)->counter, WEFT_A_ADD_UNLESS, (uint64_t)(T)(i), (uint64_t)(T)(u), \
			WEFT_EV_RMW, what) != (T)(u))
#define __weft_atomic_t_read(T, v, what) ((T)WEFT_ACCESS(&(v)->counter, WEFT_A_LOAD, 0, 0, WEFT_EV_READ, what))
#define __weft_atomic_t_set(T, v, i, what) \
	((void)WEFT_ACCESS(&(v)->counter, WEFT_A_STORE, (uint64_t)(T)(i), 0, WEFT_EV_WRITE, what))
/* add, sub, inc, dec: relaxed, no value */
#define __weft_atomic_t_add(T, v, i, what) ((void)__weft_atomic_ret_tf(T, v, i, what, WEFT_SITE_RELAXED))
#define __weft_atomic_t_add_return(T, v, i, what) __weft_value(__weft_atomic_ret_t(T, v, i, what))
#define __weft_atomic_t_add_and_test(T, v, i, what) __weft_value((__weft_atomic_ret_t(T, v, i, what) == 0))
#define __weft_atomic_t_add_negative(T, v, i, what) __weft_value((__weft_atomic_ret_t(T, v, i, what) < 0))
#define __weft_atomic_t_add_unless(T, v, i, u, what) __weft_value(__weft_atomic_unless_t(T, v, i, u, what))
#define __weft_atomic_t_cmpxchg(T, v, o, n, what)                                                \
	__weft_value(((T)WEFT_ACCESS(&(v)->counter, WEFT_A_CMPXCHG, (uint64_t)(T)(o), (uint64_t)(T)(n), \
				     WEFT_EV_RMW, what)))
#define __weft_atomic_t_xchg(T, v, n, what) \
	__weft_value(((T)WEFT_ACCESS(&(v)->counter, WEFT_A_XCHG, (uint64_t)(T)(n), 0, WEFT_EV_RMW, what)))

/* Each group of kernel names below can be left to the model: a model
 * that has its own atomic_long_t (or atomic64_t, nr_cpu_ids) defines
 * WEFT_OWN_ATOMIC_LONG (WEFT_OWN_ATOMIC64, WEFT_OWN_CPUMASK) before
 * including any Weft header (CHANGELOG.md; <weft/sleep.h> and <weft/rcu.h>
 * have the same switches). */
#ifndef WEFT_OWN_ATOMIC_LONG
#define atomic_long_t struct weft_atomic_long
#define ATOMIC_LONG_INIT(i) { (i) }
#define atomic_long_read(v) __weft_atomic_t_read(long, v, "atomic_long_read(" #v ")")
#define atomic_long_set(v, i) __weft_atomic_t_set(long, v, i, "atomic_long_set(" #v ")")
#define atomic_long_inc(v) __weft_atomic_t_add(long, v, 1, "atomic_long_inc(" #v ")")
#define atomic_long_dec(v) __weft_atomic_t_add(long, v, -1, "atomic_long_dec(" #v ")")
#define atomic_long_add(i, v) __weft_atomic_t_add(long, v, i, "atomic_long_add(" #v ")")
#define atomic_long_sub(i, v) __weft_atomic_t_add(long, v, -(long)(i), "atomic_long_sub(" #v ")")
#define atomic_long_add_return(i, v) \
	__weft_atomic_t_add_return(long, v, i, "atomic_long_add_return(" #v ")")
#define atomic_long_sub_return(i, v) \
	__weft_atomic_t_add_return(long, v, -(long)(i), "atomic_long_sub_return(" #v ")")
#define atomic_long_inc_return(v) \
	__weft_atomic_t_add_return(long, v, 1, "atomic_long_inc_return(" #v ")")
#define atomic_long_dec_return(v) \
	__weft_atomic_t_add_return(long, v, -1, "atomic_long_dec_return(" #v ")")
#define atomic_long_dec_and_test(v) \
	__weft_atomic_t_add_and_test(long, v, -1, "atomic_long_dec_and_test(" #v ")")
#define atomic_long_inc_and_test(v) \
	__weft_atomic_t_add_and_test(long, v, 1, "atomic_long_inc_and_test(" #v ")")
#define atomic_long_sub_and_test(i, v) \
	__weft_atomic_t_add_and_test(long, v, -(long)(i), "atomic_long_sub_and_test(" #v ")")
#define atomic_long_add_negative(i, v) \
	__weft_atomic_t_add_negative(long, v, i, "atomic_long_add_negative(" #v ")")
#define atomic_long_add_unless(v, i, u) \
	__weft_atomic_t_add_unless(long, v, i, u, "atomic_long_add_unless(" #v ")")
#define atomic_long_inc_not_zero(v) \
	__weft_atomic_t_add_unless(long, v, 1, 0, "atomic_long_inc_not_zero(" #v ")")
#define atomic_long_cmpxchg(v, o, n) \
	__weft_atomic_t_cmpxchg(long, v, o, n, "atomic_long_cmpxchg(" #v ")")
#define atomic_long_xchg(v, n) __weft_atomic_t_xchg(long, v, n, "atomic_long_xchg(" #v ")")
#endif /* WEFT_OWN_ATOMIC_LONG */

#ifndef WEFT_OWN_ATOMIC64
#define atomic64_t struct weft_atomic64
#define ATOMIC64_INIT(i) { (i) }
#define atomic64_read(v) __weft_atomic_t_read(int64_t, v, "atomic64_read(" #v ")")
#define atomic64_set(v, i) __weft_atomic_t_set(int64_t, v, i, "atomic64_set(" #v ")")
#define atomic64_inc(v) __weft_atomic_t_add(int64_t, v, 1, "atomic64_inc(" #v ")")
#define atomic64_dec(v) __weft_atomic_t_add(int64_t, v, -1, "atomic64_dec(" #v ")")
#define atomic64_add(i, v) __weft_atomic_t_add(int64_t, v, i, "atomic64_add(" #v ")")
#define atomic64_sub(i, v) __weft_atomic_t_add(int64_t, v, -(int64_t)(i), "atomic64_sub(" #v ")")
#define atomic64_add_return(i, v) \
	__weft_atomic_t_add_return(int64_t, v, i, "atomic64_add_return(" #v ")")
#define atomic64_sub_return(i, v) \
	__weft_atomic_t_add_return(int64_t, v, -(int64_t)(i), "atomic64_sub_return(" #v ")")
#define atomic64_inc_return(v) \
	__weft_atomic_t_add_return(int64_t, v, 1, "atomic64_inc_return(" #v ")")
#define atomic64_dec_return(v) \
	__weft_atomic_t_add_return(int64_t, v, -1, "atomic64_dec_return(" #v ")")
#define atomic64_dec_and_test(v) \
	__weft_atomic_t_add_and_test(int64_t, v, -1, "atomic64_dec_and_test(" #v ")")
#define atomic64_inc_and_test(v) \
	__weft_atomic_t_add_and_test(int64_t, v, 1, "atomic64_inc_and_test(" #v ")")
#define atomic64_sub_and_test(i, v) \
	__weft_atomic_t_add_and_test(int64_t, v, -(int64_t)(i), "atomic64_sub_and_test(" #v ")")
#define atomic64_add_negative(i, v) \
	__weft_atomic_t_add_negative(int64_t, v, i, "atomic64_add_negative(" #v ")")
#define atomic64_add_unless(v, i, u) \
	__weft_atomic_t_add_unless(int64_t, v, i, u, "atomic64_add_unless(" #v ")")
#define atomic64_inc_not_zero(v) \
	__weft_atomic_t_add_unless(int64_t, v, 1, 0, "atomic64_inc_not_zero(" #v ")")
#define atomic64_cmpxchg(v, o, n) \
	__weft_atomic_t_cmpxchg(int64_t, v, o, n, "atomic64_cmpxchg(" #v ")")
#define atomic64_xchg(v, n) __weft_atomic_t_xchg(int64_t, v, n, "atomic64_xchg(" #v ")")
#endif /* WEFT_OWN_ATOMIC64 */

#define xchg(p, n) \
	__weft_value(((__typeof__(*(p)))WEFT_ACCESS((p), WEFT_A_XCHG, (uintptr_t)(n), 0, WEFT_EV_RMW, \
	"xchg(" #p ")")))

#ifndef WEFT_OWN_ATOMIC_EXTRA
/* The rest of atomic_t.txt's operations: the bitwise ones, the fetch_
 * forms, try_cmpxchg() and the ordering forms of cmpxchg() and xchg(). As
 * above, the non-returning forms order nothing, the value-returning ones
 * are fully ordered and _relaxed/_acquire/_release say so; a failed
 * cmpxchg orders nothing. A model that has its own of any of these names
 * defines WEFT_OWN_ATOMIC_EXTRA before including any Weft header. */
#define __weft_fetch_op_tf(T, v, aop, i, what, f) \
	((T)WEFT_ACCESS_F(&(v)->counter, aop, (uint64_t)(T)(i), 0, WEFT_EV_RMW, what, f))
#define atomic_fetch_sub(i, v) \
	__weft_value(__weft_fetch_op_tf(int, v, WEFT_A_ADD, -(i), "atomic_fetch_sub(" #v ")", 0u))
#define atomic_fetch_inc(v) \
	__weft_value(__weft_fetch_op_tf(int, v, WEFT_A_ADD, 1, "atomic_fetch_inc(" #v ")", 0u))
#define atomic_fetch_dec(v) \
	__weft_value(__weft_fetch_op_tf(int, v, WEFT_A_ADD, -1, "atomic_fetch_dec(" #v ")", 0u))
#define atomic_fetch_or(i, v) \
	__weft_value(__weft_fetch_op_tf(int, v, WEFT_A_OR, i, "atomic_fetch_or(" #v ")", 0u))
#define atomic_fetch_and(i, v) \
	__weft_value(__weft_fetch_op_tf(int, v, WEFT_A_ANDNOT, ~(i), "atomic_fetch_and(" #v ")", 0u))
#define atomic_fetch_andnot(i, v) \
	__weft_value(__weft_fetch_op_tf(int, v, WEFT_A_ANDNOT, i, "atomic_fetch_andnot(" #v ")", 0u))
#define atomic_fetch_xor(i, v) \
	__weft_value(__weft_fetch_op_tf(int, v, WEFT_A_XOR, i, "atomic_fetch_xor(" #v ")", 0u))
#define atomic_or(i, v) \
	((void)__weft_fetch_op_tf(int, v, WEFT_A_OR, i, "atomic_or(" #v ")", WEFT_SITE_RELAXED))
#define atomic_and(i, v) \
	((void)__weft_fetch_op_tf(int, v, WEFT_A_ANDNOT, ~(i), "atomic_and(" #v ")", WEFT_SITE_RELAXED))
#define atomic_andnot(i, v) \
	((void)__weft_fetch_op_tf(int, v, WEFT_A_ANDNOT, i, "atomic_andnot(" #v ")", WEFT_SITE_RELAXED))
#define atomic_xor(i, v) \
	((void)__weft_fetch_op_tf(int, v, WEFT_A_XOR, i, "atomic_xor(" #v ")", WEFT_SITE_RELAXED))
/* try_cmpxchg(): true if *p was *po and is now n; else *po (the caller's
 * own variable, no shared memory) gets the value found */
#define __weft_try_cmpxchg_f(p, po, n, what, f)                                 \
	__weft_value(({                                                         \
		__typeof__(*(p)) *__weft_po = (po);                             \
		__typeof__(*(p)) __weft_o = *__weft_po;                         \
		__typeof__(*(p)) __weft_r = (__typeof__(*(p)))WEFT_ACCESS_F(    \
			(p), WEFT_A_CMPXCHG, (uintptr_t)__weft_o, (uintptr_t)(n), \
			WEFT_EV_RMW, what, f);                                  \
		if (__weft_r != __weft_o)                                       \
			*__weft_po = __weft_r;                                  \
		__weft_r == __weft_o;                                           \
	}))
#define try_cmpxchg(p, po, n) __weft_try_cmpxchg_f(p, po, n, "try_cmpxchg(" #p ")", 0u)
#define try_cmpxchg_relaxed(p, po, n) \
	__weft_try_cmpxchg_f(p, po, n, "try_cmpxchg_relaxed(" #p ")", WEFT_SITE_RELAXED)
#define try_cmpxchg_acquire(p, po, n) \
	__weft_try_cmpxchg_f(p, po, n, "try_cmpxchg_acquire(" #p ")", WEFT_SITE_ACQUIRE)
#define try_cmpxchg_release(p, po, n) \
	__weft_try_cmpxchg_f(p, po, n, "try_cmpxchg_release(" #p ")", WEFT_SITE_RELEASE)
#define atomic_try_cmpxchg(v, po, n) \
	__weft_try_cmpxchg_f(&(v)->counter, po, n, "atomic_try_cmpxchg(" #v ")", 0u)
#define atomic_try_cmpxchg_relaxed(v, po, n) \
	__weft_try_cmpxchg_f(&(v)->counter, po, n, "atomic_try_cmpxchg_relaxed(" #v ")", WEFT_SITE_RELAXED)
#define atomic_try_cmpxchg_acquire(v, po, n) \
	__weft_try_cmpxchg_f(&(v)->counter, po, n, "atomic_try_cmpxchg_acquire(" #v ")", WEFT_SITE_ACQUIRE)
#define atomic_try_cmpxchg_release(v, po, n) \
	__weft_try_cmpxchg_f(&(v)->counter, po, n, "atomic_try_cmpxchg_release(" #v ")", WEFT_SITE_RELEASE)
#define __weft_cmpxchg_f(p, o, n, what, f) \
	__weft_value(((__typeof__(*(p)))WEFT_ACCESS_F((p), WEFT_A_CMPXCHG, (uintptr_t)(o), \
	(uintptr_t)(n), WEFT_EV_RMW, what, f)))
#define cmpxchg_relaxed(p, o, n) __weft_cmpxchg_f(p, o, n, "cmpxchg_relaxed(" #p ")", WEFT_SITE_RELAXED)
#define cmpxchg_acquire(p, o, n) __weft_cmpxchg_f(p, o, n, "cmpxchg_acquire(" #p ")", WEFT_SITE_ACQUIRE)
#define cmpxchg_release(p, o, n) __weft_cmpxchg_f(p, o, n, "cmpxchg_release(" #p ")", WEFT_SITE_RELEASE)
#define __weft_xchg_f(p, n, what, f) \
	__weft_value(((__typeof__(*(p)))WEFT_ACCESS_F((p), WEFT_A_XCHG, (uintptr_t)(n), 0, \
	WEFT_EV_RMW, what, f)))
#define xchg_relaxed(p, n) __weft_xchg_f(p, n, "xchg_relaxed(" #p ")", WEFT_SITE_RELAXED)
#define xchg_acquire(p, n) __weft_xchg_f(p, n, "xchg_acquire(" #p ")", WEFT_SITE_ACQUIRE)
#define xchg_release(p, n) __weft_xchg_f(p, n, "xchg_release(" #p ")", WEFT_SITE_RELEASE)
/* atomic_dec_if_positive(): the old value - 1, stored only if that is not
 * negative; the kernel's generic form, a try_cmpxchg() loop (each try a
 * step of its own) */
#define atomic_dec_if_positive(v)                                               \
	__weft_value(({                                                         \
		__typeof__(&(v)->counter) __weft_ctr = &(v)->counter;           \
		int __weft_c = (int)WEFT_ACCESS(__weft_ctr, WEFT_A_LOAD, 0, 0,  \
						WEFT_EV_READ,                   \
						"atomic_dec_if_positive(" #v ") read"); \
		int __weft_d;                                                   \
		do {                                                            \
			__weft_d = __weft_c - 1;                                \
			if (__weft_d < 0)                                       \
				break;                                          \
		} while (!__weft_try_cmpxchg_f(__weft_ctr, &__weft_c, __weft_d, \
					       "atomic_dec_if_positive(" #v ")", 0u)); \
		__weft_d;                                                       \
	}))
#ifndef WEFT_OWN_ATOMIC_LONG
#define atomic_long_fetch_add(i, v) \
	__weft_value(__weft_fetch_op_tf(long, v, WEFT_A_ADD, i, "atomic_long_fetch_add(" #v ")", 0u))
#define atomic_long_fetch_sub(i, v) \
	__weft_value(__weft_fetch_op_tf(long, v, WEFT_A_ADD, -(long)(i), "atomic_long_fetch_sub(" #v ")", 0u))
#define atomic_long_fetch_or(i, v) \
	__weft_value(__weft_fetch_op_tf(long, v, WEFT_A_OR, i, "atomic_long_fetch_or(" #v ")", 0u))
#define atomic_long_fetch_andnot(i, v) \
	__weft_value(__weft_fetch_op_tf(long, v, WEFT_A_ANDNOT, i, "atomic_long_fetch_andnot(" #v ")", 0u))
#define atomic_long_or(i, v) \
	((void)__weft_fetch_op_tf(long, v, WEFT_A_OR, i, "atomic_long_or(" #v ")", WEFT_SITE_RELAXED))
#define atomic_long_and(i, v) \
	((void)__weft_fetch_op_tf(long, v, WEFT_A_ANDNOT, ~(long)(i), "atomic_long_and(" #v ")", WEFT_SITE_RELAXED))
#define atomic_long_andnot(i, v) \
	((void)__weft_fetch_op_tf(long, v, WEFT_A_ANDNOT, i, "atomic_long_andnot(" #v ")", WEFT_SITE_RELAXED))
#define atomic_long_try_cmpxchg(v, po, n) \
	__weft_try_cmpxchg_f(&(v)->counter, po, n, "atomic_long_try_cmpxchg(" #v ")", 0u)
#endif /* WEFT_OWN_ATOMIC_LONG */
#ifndef WEFT_OWN_ATOMIC64
#define atomic64_fetch_add(i, v) \
	__weft_value(__weft_fetch_op_tf(int64_t, v, WEFT_A_ADD, i, "atomic64_fetch_add(" #v ")", 0u))
#define atomic64_fetch_sub(i, v) \
	__weft_value(__weft_fetch_op_tf(int64_t, v, WEFT_A_ADD, -(int64_t)(i), "atomic64_fetch_sub(" #v ")", 0u))
#define atomic64_fetch_or(i, v) \
	__weft_value(__weft_fetch_op_tf(int64_t, v, WEFT_A_OR, i, "atomic64_fetch_or(" #v ")", 0u))
#define atomic64_or(i, v) \
	((void)__weft_fetch_op_tf(int64_t, v, WEFT_A_OR, i, "atomic64_or(" #v ")", WEFT_SITE_RELAXED))
#define atomic64_andnot(i, v) \
	((void)__weft_fetch_op_tf(int64_t, v, WEFT_A_ANDNOT, i, "atomic64_andnot(" #v ")", WEFT_SITE_RELAXED))
#define atomic64_try_cmpxchg(v, po, n) \
	__weft_try_cmpxchg_f(&(v)->counter, po, n, "atomic64_try_cmpxchg(" #v ")", 0u)
#endif /* WEFT_OWN_ATOMIC64 */
#endif /* WEFT_OWN_ATOMIC_EXTRA */

/* Page-flag style bit operations on an unsigned long word. The atomic ones
 * are one read-modify-write; the __ forms are a separate load and store,
 * two scheduling points, because real bugs live in that gap. */
#define __WEFT_BIT(nr) (1ul << (nr))
#define test_bit(nr, addr) \
	((WEFT_ACCESS((addr), WEFT_A_LOAD, 0, 0, WEFT_EV_READ, "test_bit(" #nr ", " #addr ")") & __WEFT_BIT(nr)) != 0)
/* set_bit() and clear_bit() order nothing; the test_and_ forms are fully
 * ordered (atomic_bitops.txt) */
#define set_bit(nr, addr) \
	((void)WEFT_ACCESS_F((addr), WEFT_A_OR, __WEFT_BIT(nr), 0, WEFT_EV_RMW, "set_bit(" #nr ", " #addr ")", WEFT_SITE_RELAXED))
#define clear_bit(nr, addr) \
	((void)WEFT_ACCESS_F((addr), WEFT_A_ANDNOT, __WEFT_BIT(nr), 0, WEFT_EV_RMW, "clear_bit(" #nr ", " #addr ")", WEFT_SITE_RELAXED))
#define test_and_set_bit(nr, addr) \
	__weft_value(((WEFT_ACCESS((addr), WEFT_A_OR, __WEFT_BIT(nr), 0, WEFT_EV_RMW, "test_and_set_bit(" #nr ", " #addr ")") & __WEFT_BIT(nr)) != 0))
#define test_and_clear_bit(nr, addr) \
	__weft_value(((WEFT_ACCESS((addr), WEFT_A_ANDNOT, __WEFT_BIT(nr), 0, WEFT_EV_RMW, "test_and_clear_bit(" #nr ", " #addr ")") & __WEFT_BIT(nr)) != 0))
#ifndef WEFT_OWN_ATOMIC_EXTRA
/* change_bit() orders nothing, test_and_change_bit() is fully ordered */
#define change_bit(nr, addr) \
	((void)WEFT_ACCESS_F((addr), WEFT_A_XOR, __WEFT_BIT(nr), 0, WEFT_EV_RMW, "change_bit(" #nr ", " #addr ")", WEFT_SITE_RELAXED))
#define test_and_change_bit(nr, addr) \
	__weft_value(((WEFT_ACCESS((addr), WEFT_A_XOR, __WEFT_BIT(nr), 0, WEFT_EV_RMW, "test_and_change_bit(" #nr ", " #addr ")") & __WEFT_BIT(nr)) != 0))
/* the non-atomic test-and forms: a load and a store, as __set_bit() */
#define __test_and_set_bit(nr, addr)                                            \
	__weft_value(({                                                         \
		unsigned long __weft_w = WEFT_ACCESS((addr), WEFT_A_LOAD, 0, 0, WEFT_EV_READ, \
			"__test_and_set_bit(" #nr ", " #addr ") load");         \
		WEFT_ACCESS((addr), WEFT_A_STORE, __weft_w | __WEFT_BIT(nr), 0, WEFT_EV_WRITE, \
			    "__test_and_set_bit(" #nr ", " #addr ") store");    \
		(__weft_w & __WEFT_BIT(nr)) != 0;                               \
	}))
#define __test_and_clear_bit(nr, addr)                                          \
	__weft_value(({                                                         \
		unsigned long __weft_w = WEFT_ACCESS((addr), WEFT_A_LOAD, 0, 0, WEFT_EV_READ, \
			"__test_and_clear_bit(" #nr ", " #addr ") load");       \
		WEFT_ACCESS((addr), WEFT_A_STORE, __weft_w & ~__WEFT_BIT(nr), 0, WEFT_EV_WRITE, \
			    "__test_and_clear_bit(" #nr ", " #addr ") store");  \
		(__weft_w & __WEFT_BIT(nr)) != 0;                               \
	}))
#endif /* WEFT_OWN_ATOMIC_EXTRA */
#define __set_bit(nr, addr)                                                     \
	((void)WEFT_ACCESS((addr), WEFT_A_STORE,                                  \
			   WEFT_ACCESS((addr), WEFT_A_LOAD, 0, 0, WEFT_EV_READ,   \
				       "__set_bit(" #nr ", " #addr ") load") | __WEFT_BIT(nr), \
			   0, WEFT_EV_WRITE, "__set_bit(" #nr ", " #addr ") store"))
#define __clear_bit(nr, addr)                                                   \
	((void)WEFT_ACCESS((addr), WEFT_A_STORE,                                  \
			   WEFT_ACCESS((addr), WEFT_A_LOAD, 0, 0, WEFT_EV_READ,   \
				       "__clear_bit(" #nr ", " #addr ") load") & ~__WEFT_BIT(nr), \
			   0, WEFT_EV_WRITE, "__clear_bit(" #nr ", " #addr ") store"))

/* Bit locks (include/asm-generic/bitops/lock.h): test_and_set_bit_lock()
 * and clear_bit_unlock() are in <weft/sleep.h> (they track the holder for
 * the bit waits); __clear_bit_unlock() is the non-atomic release store of
 * the whole word (a load and a store: a concurrent atomic change of another
 * bit in between is lost, as in the kernel, which allows it only when no
 * other bit of the word can change). */
#define __clear_bit_unlock(nr, addr)                                            \
	((void)WEFT_ACCESS((addr), WEFT_A_STORE,                                  \
			   WEFT_ACCESS((addr), WEFT_A_LOAD, 0, 0, WEFT_EV_READ,   \
				       "__clear_bit_unlock(" #nr ", " #addr ") load") & ~__WEFT_BIT(nr), \
			   0, WEFT_EV_WRITE, "__clear_bit_unlock(" #nr ", " #addr ") store"))

#define spinlock_t struct weft_spinlock
#define spin_lock(l) weft_spin_lock((l), WEFT_SITE_F(WEFT_EV_LOCK, "spin_lock(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_trylock(l) weft_spin_trylock((l), WEFT_SITE_F(WEFT_EV_TRYLOCK, "spin_trylock(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_unlock(l) weft_spin_unlock((l), WEFT_SITE_F(WEFT_EV_UNLOCK, "spin_unlock(" #l ")", WEFT_SITE_RELEASE))
/* Every form disables preemption while the lock is held (its CPU runs
 * nothing else: <weft/context.h>); the _irq forms also mask interrupts and
 * the _bh forms bottom halves, as include/linux/spinlock.h does. The
 * masking itself is not an event: a lock site traces as it always did. */
#define spin_lock_irq(l) weft_spin_lock_irq((l), WEFT_SITE_F(WEFT_EV_LOCK, "spin_lock_irq(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_unlock_irq(l) weft_spin_unlock_irq((l), WEFT_SITE_F(WEFT_EV_UNLOCK, "spin_unlock_irq(" #l ")", WEFT_SITE_RELEASE))
#define spin_lock_irqsave(l, f) ((f) = weft_spin_lock_irqsave((l), WEFT_SITE_F(WEFT_EV_LOCK, "spin_lock_irqsave(" #l ")", WEFT_SITE_ACQUIRE)))
#define spin_unlock_irqrestore(l, f) weft_spin_unlock_irqrestore((l), (f), WEFT_SITE_F(WEFT_EV_UNLOCK, "spin_unlock_irqrestore(" #l ")", WEFT_SITE_RELEASE))
#define spin_lock_bh(l) weft_spin_lock_bh((l), WEFT_SITE_F(WEFT_EV_LOCK, "spin_lock_bh(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_unlock_bh(l) weft_spin_unlock_bh((l), WEFT_SITE_F(WEFT_EV_UNLOCK, "spin_unlock_bh(" #l ")", WEFT_SITE_RELEASE))
#define spin_trylock_irqsave(l, f)                                              \
	weft_spin_trylock_irqsave((l), &(f), WEFT_SITE_F(WEFT_EV_TRYLOCK, "spin_trylock_irqsave(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_is_locked(l) weft_spin_is_locked(l)
#define spin_lock_init(l) weft_spin_lock_init((l), WEFT_SITE(WEFT_EV_NOTE, "spin_lock_init(" #l ")"))

/* raw_spinlock_t is spinlock_t here (they differ only under PREEMPT_RT),
 * with its own names in reports; the _nested forms take a lockdep
 * subclass, which lockdep-lite does not need (it leaves one class taken
 * twice to the deadlock detector). Switch: WEFT_OWN_RAW_SPINLOCK. */
#ifndef WEFT_OWN_RAW_SPINLOCK
#define raw_spinlock_t struct weft_spinlock
#define raw_spin_lock_init(l) weft_spin_lock_init((l), WEFT_SITE(WEFT_EV_NOTE, "raw_spin_lock_init(" #l ")"))
#define raw_spin_lock(l) weft_spin_lock((l), WEFT_SITE_F(WEFT_EV_LOCK, "raw_spin_lock(" #l ")", WEFT_SITE_ACQUIRE))
#define raw_spin_trylock(l) weft_spin_trylock((l), WEFT_SITE_F(WEFT_EV_TRYLOCK, "raw_spin_trylock(" #l ")", WEFT_SITE_ACQUIRE))
#define raw_spin_unlock(l) weft_spin_unlock((l), WEFT_SITE_F(WEFT_EV_UNLOCK, "raw_spin_unlock(" #l ")", WEFT_SITE_RELEASE))
#define raw_spin_lock_irq(l) weft_spin_lock_irq((l), WEFT_SITE_F(WEFT_EV_LOCK, "raw_spin_lock_irq(" #l ")", WEFT_SITE_ACQUIRE))
#define raw_spin_unlock_irq(l) weft_spin_unlock_irq((l), WEFT_SITE_F(WEFT_EV_UNLOCK, "raw_spin_unlock_irq(" #l ")", WEFT_SITE_RELEASE))
#define raw_spin_lock_irqsave(l, f) ((f) = weft_spin_lock_irqsave((l), WEFT_SITE_F(WEFT_EV_LOCK, "raw_spin_lock_irqsave(" #l ")", WEFT_SITE_ACQUIRE)))
#define raw_spin_unlock_irqrestore(l, f) weft_spin_unlock_irqrestore((l), (f), WEFT_SITE_F(WEFT_EV_UNLOCK, "raw_spin_unlock_irqrestore(" #l ")", WEFT_SITE_RELEASE))
#define raw_spin_is_locked(l) weft_spin_is_locked(l)
#define spin_lock_nested(l, subclass) weft_spin_lock((l), WEFT_SITE_F(WEFT_EV_LOCK, "spin_lock_nested(" #l ")", WEFT_SITE_ACQUIRE))
#define raw_spin_lock_nested(l, subclass) weft_spin_lock((l), WEFT_SITE_F(WEFT_EV_LOCK, "raw_spin_lock_nested(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_lock_irqsave_nested(l, f, subclass) ((f) = weft_spin_lock_irqsave((l), WEFT_SITE_F(WEFT_EV_LOCK, "spin_lock_irqsave_nested(" #l ")", WEFT_SITE_ACQUIRE)))
#define SINGLE_DEPTH_NESTING 1
#endif /* WEFT_OWN_RAW_SPINLOCK */

#define smp_mb() weft_fence(WEFT_FENCE_MB, WEFT_SITE(WEFT_EV_BARRIER, "smp_mb()"))
#define smp_rmb() weft_fence(WEFT_FENCE_RMB, WEFT_SITE(WEFT_EV_BARRIER, "smp_rmb()"))
#define smp_wmb() weft_fence(WEFT_FENCE_WMB, WEFT_SITE(WEFT_EV_BARRIER, "smp_wmb()"))
#define smp_mb__before_atomic() \
	weft_fence(WEFT_FENCE_BEFORE_ATOMIC, WEFT_SITE(WEFT_EV_BARRIER, "smp_mb__before_atomic()"))
#define smp_mb__after_atomic() \
	weft_fence(WEFT_FENCE_AFTER_ATOMIC, WEFT_SITE(WEFT_EV_BARRIER, "smp_mb__after_atomic()"))
#define smp_mb__after_spinlock() \
	weft_fence(WEFT_FENCE_AFTER_SPINLOCK, WEFT_SITE(WEFT_EV_BARRIER, "smp_mb__after_spinlock()"))
/* Release stores and acquire loads (asm-generic/barrier.h). Under sc and
 * tso they are a marked store and load: tso orders them already. */
#define smp_store_release(p, v)                                                 \
	((void)WEFT_ACCESS_F((p), WEFT_A_STORE, (uintptr_t)(v), 0, WEFT_EV_WRITE, \
			     "smp_store_release(" #p ")", WEFT_SITE_RELEASE))
#define smp_load_acquire(p)                                                     \
	((__typeof__(*(p)))(uintptr_t)WEFT_ACCESS_F((p), WEFT_A_LOAD, 0, 0, WEFT_EV_READ, \
						    "smp_load_acquire(" #p ")", WEFT_SITE_ACQUIRE))

/* smp_cond_load_relaxed()/_acquire() (asm-generic/barrier.h): spin
 * (cpu_relax()) until cond_expr, which names the value read VAL, holds;
 * the acquire form reads with smp_load_acquire() (the kernel's: the last
 * read relaxed, then smp_acquire__after_ctrl_dep(); as strong for what
 * follows). Switch: WEFT_OWN_COND_LOAD. */
#ifndef WEFT_OWN_COND_LOAD
#define __weft_cond_load(ptr, cond_expr, load)                                  \
	({                                                                      \
		__typeof__(*(ptr)) VAL;                                         \
		for (;;) {                                                      \
			VAL = load;                                             \
			if (cond_expr)                                          \
				break;                                          \
			cpu_relax();                                            \
		}                                                               \
		VAL;                                                            \
	})
#define smp_cond_load_relaxed(ptr, cond_expr) __weft_cond_load(ptr, cond_expr, READ_ONCE(*(ptr)))
#define smp_cond_load_acquire(ptr, cond_expr) __weft_cond_load(ptr, cond_expr, smp_load_acquire(ptr))
#define atomic_cond_read_relaxed(v, c) smp_cond_load_relaxed(&(v)->counter, (c))
#define atomic_cond_read_acquire(v, c) smp_cond_load_acquire(&(v)->counter, (c))
#endif /* WEFT_OWN_COND_LOAD */

#define smp_processor_id() weft_smp_processor_id()
/* The scenario's fake CPU count (core/src/primitives/rcu.c, rcu_native.c). */
unsigned weft_nr_cpu_ids(void);
#ifndef WEFT_OWN_CPUMASK
#define nr_cpu_ids weft_nr_cpu_ids()
#endif
/* A yield that may sleep: might_sleep()'s check first (sleep-in-atomic
 * in atomic context or an RCU reader; nothing natively), at the yield's
 * own site (no new site: a scenario's fingerprint stays). cond_resched()
 * calls __might_resched() (include/linux/sched.h), and the delay.h sleeps
 * end in schedule(). */
#ifndef WEFT_NATIVE
void weft_might_sleep(const struct weft_site *s);
#define WEFT_SLEEPING_YIELD(what)                                              \
	({                                                                     \
		const struct weft_site *weft_sy_ = WEFT_SITE(WEFT_EV_YIELD, what); \
		weft_might_sleep(weft_sy_);                                    \
		weft_yield(weft_sy_);                                          \
	})
#else
#define WEFT_SLEEPING_YIELD(what) weft_yield(WEFT_SITE(WEFT_EV_YIELD, what))
#endif
#define cond_resched() WEFT_SLEEPING_YIELD("cond_resched()")
#define cpu_relax() weft_yield(WEFT_SITE(WEFT_EV_YIELD, "cpu_relax()"))
#ifndef WEFT_OWN_DELAY
/* linux/delay.h's sleeps: a yield (the others run; time is not modelled,
 * so a loop that polls with them waits for what it polls, as a spin with
 * cond_resched() does) */
#define msleep(ms) ((void)(ms), WEFT_SLEEPING_YIELD("msleep(" #ms ")"))
#define msleep_interruptible(ms) \
	((void)(ms), WEFT_SLEEPING_YIELD("msleep_interruptible(" #ms ")"), 0ul)
#define ssleep(s) ((void)(s), WEFT_SLEEPING_YIELD("ssleep(" #s ")"))
#define usleep_range(lo, hi) \
	((void)(lo), (void)(hi), WEFT_SLEEPING_YIELD("usleep_range(" #lo ", " #hi ")"))
#endif /* WEFT_OWN_DELAY */

/* Per-CPU data: an array indexed by fake CPU inside the world. */
#define WEFT_PER_CPU(type, name) type name[WEFT_MAX_CPUS]
#define per_cpu(name, cpu) ((name)[weft_percpu_slot((cpu), WEFT_PCPU_N(name))])
#define this_cpu_ptr(name) (&(name)[weft_percpu_slot(smp_processor_id(), WEFT_PCPU_N(name))])

#define WEFT_THREAD_SPAWN(fn, arg, cpu)                                         \
	weft_thread_spawn((fn), (arg), (cpu), WEFT_SITE(WEFT_EV_SPAWN, "spawn(" #fn ")"))
#define WEFT_THREAD_JOIN(tid) weft_thread_join((tid), WEFT_SITE(WEFT_EV_JOIN, "join(" #tid ")"))

/* Model-level nondeterminism: the strategy picks a value in [0, n). */
#define WEFT_CHOOSE(n, what) weft_choose((n), WEFT_SITE(WEFT_EV_CHOICE, what))

#define BUG_ON(c)                                                               \
	do {                                                                    \
		if (__builtin_expect(!!(c), 0))                                 \
			weft_report(WEFT_KIND_BUG_ON, NULL,                     \
				    WEFT_SITE(WEFT_EV_NOTE, "BUG_ON(" #c ")"),     \
				    "BUG_ON(%s)", #c);                          \
	} while (0)
#define VM_BUG_ON(c)                                                            \
	do {                                                                    \
		if (__builtin_expect(!!(c), 0))                                 \
			weft_report(WEFT_KIND_BUG_ON, NULL,                     \
				    WEFT_SITE(WEFT_EV_NOTE, "VM_BUG_ON(" #c ")"),  \
				    "VM_BUG_ON(%s)", #c);                       \
	} while (0)
#define VM_BUG_ON_OBJ(c, obj)                                                   \
	do {                                                                    \
		if (__builtin_expect(!!(c), 0))                                 \
			weft_report(WEFT_KIND_BUG_ON, (obj),                    \
				    WEFT_SITE(WEFT_EV_NOTE, "VM_BUG_ON(" #c ")"),  \
				    "VM_BUG_ON(%s)", #c);                       \
	} while (0)
#define WARN_ON(c)                                                              \
	({                                                                      \
		bool __weft_c = !!(c);                                          \
		if (__builtin_expect(__weft_c, 0))                              \
			weft_report(WEFT_KIND_WARN_ON, NULL,                    \
				    WEFT_SITE(WEFT_EV_NOTE, "WARN_ON(" #c ")"),    \
				    "WARN_ON(%s)", #c);                         \
		__weft_c;                                                       \
	})

#ifndef WEFT_OWN_KERNEL_BASICS
/* The everyday names of linux/container_of.h, compiler.h, minmax.h,
 * array_size.h, bits.h and bug.h, so kernel code compiles as written
 * (where <weft/linux/kernel_compat.h> has a name too, the same text:
 * both may be included). */
#ifndef container_of
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#ifndef min
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef min_t
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#endif
#ifndef BIT
#define BIT(nr) (1ul << (nr))
#define BIT_ULL(nr) (1ull << (nr))
#endif
/* every report ends the execution: once is what a model sees anyway */
#define WARN_ON_ONCE(c) WARN_ON(c)
#define VM_WARN_ON(c) ((void)WARN_ON(c))
#define VM_WARN_ON_ONCE(c) WARN_ON(c)
#ifndef barrier
#define barrier() __asm__ __volatile__("" ::: "memory")   /* the compiler's only */
#endif
#ifndef VM_BUG_ON_PAGE
#define VM_BUG_ON_PAGE(c, page) VM_BUG_ON_OBJ(c, page)
#define VM_BUG_ON_FOLIO(c, folio) VM_BUG_ON_OBJ(c, folio)
#define VM_WARN_ON_FOLIO(c, folio) VM_WARN_ON(c)
#define VM_WARN_ON_ONCE_PAGE(c, page) WARN_ON(c)
#define VM_WARN_ON_ONCE_FOLIO(c, folio) WARN_ON(c)
#endif
#ifndef assert_spin_locked
#define assert_spin_locked(l) BUG_ON(!spin_is_locked(l))
#endif
#endif /* WEFT_OWN_KERNEL_BASICS */

/* ---------------------------------------------------------------- lists */
/*
 * include/linux/list.h, with each pointer load and store a separate
 * primitive, and CONFIG_DEBUG_LIST's checks (lib/list_debug.c) done
 * without scheduling points.
 */
#define WEFT_LIST_HEAD_INIT(name) { &(name), &(name) }

static inline void weft_list_init(struct weft_list_head *h)
{
	WRITE_ONCE(h->next, h);
	WRITE_ONCE(h->prev, h);
}

static inline bool weft_list_empty(struct weft_list_head *h)
{
	return READ_ONCE(h->next) == h;
}

/* __list_add_valid() and __list_del_entry_valid() (lib/list_debug.c), as
 * macros so that the report's site is the caller's (list_add(),
 * list_add_rcu(); list_del(), list_del_init(), list_del_rcu()). The
 * second loads e's neighbours into next and prev and is true if e is
 * linked between them. */
#define __weft_list_add_valid(n, prev, next)                                    \
	do {                                                                    \
		if (weft_peek((next)->prev) != (prev) || weft_peek((prev)->next) != (next) || \
		    (n) == (prev) || (n) == (next))                             \
			weft_report(WEFT_KIND_LIST_CORRUPTION, (n),             \
				    WEFT_SITE(WEFT_EV_NOTE, "__list_add_valid()"), \
				    "list_add corruption: prev->next=%p next->prev=%p", \
				    (void *)weft_peek((prev)->next),            \
				    (void *)weft_peek((next)->prev));           \
	} while (0)
#define __weft_list_del_valid(e, next, prev)                                    \
	({                                                                      \
		(next) = READ_ONCE(e->next);                                    \
		(prev) = READ_ONCE(e->prev);                                    \
		bool __weft_ok = !((next) == WEFT_LIST_POISON1 || (prev) == WEFT_LIST_POISON2 || \
				   (next) == NULL || (prev) == NULL ||          \
				   weft_peek((prev)->next) != (e) || weft_peek((next)->prev) != (e)); \
		if (!__weft_ok)                                                 \
			weft_report(WEFT_KIND_LIST_CORRUPTION, (e),             \
				    WEFT_SITE(WEFT_EV_NOTE, "__list_del_entry_valid()"), \
				    "list_del corruption: entry not linked (next=%p prev=%p)", \
				    (void *)(next), (void *)(prev));            \
		__weft_ok;                                                      \
	})

/* __list_del_entry(): e off its list, its neighbours joined (e's own
 * pointers left as they were); false, with nothing written, where
 * __weft_list_del_valid() reports a corrupt list. A macro too, so that
 * the sites stay the caller's; next and prev unparenthesised on purpose:
 * WRITE_ONCE() names its site after the text of its target. */
#define __weft_list_del_entry(e, next, prev)                                    \
	({                                                                      \
		bool __weft_linked = __weft_list_del_valid(e, next, prev);       \
		if (__weft_linked) {                                            \
			WRITE_ONCE(next->prev, prev);                           \
			WRITE_ONCE(prev->next, next);                           \
		}                                                               \
		__weft_linked;                                                  \
	})

static inline void __weft_list_add(struct weft_list_head *n, struct weft_list_head *prev,
				   struct weft_list_head *next)
{
	__weft_list_add_valid(n, prev, next);
	WRITE_ONCE(next->prev, n);
	WRITE_ONCE(n->next, next);
	WRITE_ONCE(n->prev, prev);
	WRITE_ONCE(prev->next, n);
}

static inline void weft_list_add(struct weft_list_head *n, struct weft_list_head *head)
{
	__weft_list_add(n, head, READ_ONCE(head->next));
}

static inline void weft_list_add_tail(struct weft_list_head *n, struct weft_list_head *head)
{
	__weft_list_add(n, READ_ONCE(head->prev), head);
}

static inline void weft_list_del(struct weft_list_head *e)
{
	struct weft_list_head *next, *prev;

	if (!__weft_list_del_entry(e, next, prev))
		return;
	WRITE_ONCE(e->next, WEFT_LIST_POISON1);
	WRITE_ONCE(e->prev, WEFT_LIST_POISON2);
}

/* Is e linked into some list (its neighbours point back at it)? */
static inline bool weft_list_linked(struct weft_list_head *e)
{
	struct weft_list_head *n = weft_peek(e->next), *p = weft_peek(e->prev);

	return n && p && n != WEFT_LIST_POISON1 && p != WEFT_LIST_POISON2 &&
	       weft_peek(n->prev) == e && weft_peek(p->next) == e;
}

/*
 * The model calls the helpers above through these macros: each helper's
 * events keep the helper's own sites (in kernel.h: the site ids, and so
 * every trace hash, are what they always were) and carry the model's call
 * as their caller, which reports and diagrams show ("list_del(&p->lru) in
 * shrink_cache() at z1_lru.c:120"). Calls inside the helpers are direct.
 */
#define weft_list_init(h) WEFT_CALL_VOID("INIT_LIST_HEAD(" #h ")", (weft_list_init)(h))
#define weft_list_empty(h) WEFT_CALL_VAL(bool, "list_empty(" #h ")", (weft_list_empty)(h))
#define __weft_list_add(n, p, x)                                                \
	WEFT_CALL_VOID("__list_add(" #n ", " #p ", " #x ")", (__weft_list_add)((n), (p), (x)))
#define weft_list_add(n, h) WEFT_CALL_VOID("list_add(" #n ", " #h ")", (weft_list_add)((n), (h)))
#define weft_list_add_tail(n, h)                                                \
	WEFT_CALL_VOID("list_add_tail(" #n ", " #h ")", (weft_list_add_tail)((n), (h)))
#define weft_list_del(e) WEFT_CALL_VOID("list_del(" #e ")", (weft_list_del)(e))

#define weft_list_entry(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#include <weft/sleep.h>

#ifdef __cplusplus
}
#endif

#include <weft/context.h>
#include <weft/workqueue.h>
#include <weft/rcu.h>

#ifndef WEFT_OWN_LOCKDEP_ASSERT
/* smp_store_mb(): a store, then a full barrier (asm-generic/barrier.h) */
#define smp_store_mb(var, value)                                                \
	do {                                                                    \
		WRITE_ONCE(var, value);                                         \
		smp_mb();                                                       \
	} while (0)
/* lockdep_assert_held(): a warn-on unless the current thread holds the
 * lock: a spinlock, a mutex, or an rw semaphore in either mode (a peek:
 * no scheduling point, as lockdep's check takes none) */
#ifndef __cplusplus
static inline bool __weft_spin_held(struct weft_spinlock *l)
{
	return weft_peek(l->locked) == weft_current_tid() + 1u;
}
static inline bool __weft_mutex_held(struct weft_mutex *m)
{
	return weft_peek(m->owner) == weft_current_tid() + 1u;
}
static inline bool __weft_rwsem_held(struct weft_rw_semaphore *r)
{
	unsigned t = weft_current_tid();

	return weft_peek(r->writer) == t + 1u || (t < 16 && (weft_peek(r->held) >> (2 * t) & 3u));
}
/* the kernel-named wrappers, where the model has not taken the names */
#ifndef WEFT_OWN_MUTEX
static inline bool __weft_kmutex_held(struct mutex *m) { return __weft_mutex_held(&m->weft); }
#define __weft_held_kmutex struct mutex * : __weft_kmutex_held,
#endif
#ifndef WEFT_OWN_RWSEM
static inline bool __weft_krwsem_held(struct rw_semaphore *r) { return __weft_rwsem_held(&r->weft); }
#define __weft_held_krwsem struct rw_semaphore * : __weft_krwsem_held,
#endif
#ifndef __weft_held_kmutex
#define __weft_held_kmutex
#endif
#ifndef __weft_held_krwsem
#define __weft_held_krwsem
#endif
#define __weft_lock_held(l)                                                     \
	_Generic((l), __weft_held_kmutex __weft_held_krwsem                     \
		 struct weft_mutex * : __weft_mutex_held,                       \
		 struct weft_rw_semaphore * : __weft_rwsem_held,                \
		 default : __weft_spin_held)(l)
#else
#define __weft_lock_held(l) lockdep_is_held(l)
#endif
#define lockdep_assert_held(l) ((void)WARN_ON(!__weft_lock_held(l)))
#endif /* WEFT_OWN_LOCKDEP_ASSERT */

/* A kit operation's wrapper on one line (the mm kit's headers):
 *   #define weft_folio_put(...) WEFT_KIT_VOID(folio_put, #__VA_ARGS__, __VA_ARGS__)
 * is WEFT_KIT_CALL_VOID("folio_put(" #__VA_ARGS__ ")", (weft_folio_put)(__VA_ARGS__)).
 * The wrapper stringizes its own arguments: handed on, they would be
 * macro-expanded before the string is made. */
#define WEFT_KIT_VOID(op, args, ...) WEFT_KIT_CALL_VOID(#op "(" args ")", (weft_##op)(__VA_ARGS__))
#define WEFT_KIT_VAL(T, op, args, ...) \
	WEFT_KIT_CALL_VAL(T, #op "(" args ")", (weft_##op)(__VA_ARGS__))
/* The same for an operation whose call is named as a model's
 * (WEFT_CALL_*, no kit slot): args is the text the name shows. */
#define WEFT_CALL_OP_VOID(op, args, ...) WEFT_CALL_VOID(#op "(" args ")", (weft_##op)(__VA_ARGS__))
#define WEFT_CALL_OP_VAL(T, op, args, ...) WEFT_CALL_VAL(T, #op "(" args ")", (weft_##op)(__VA_ARGS__))
#endif
