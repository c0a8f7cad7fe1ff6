/*
 * <weft/linux/kernel_compat.h> - Weft's kernel compatibility headers, for
 * functions taken unmodified from a kernel tree (docs/kernel-text.md).
 * Written by this project; follows the names and semantics of Linux 6.12's
 * include/linux (compiler.h, bug.h, atomic, bitops, spinlock, list).
 *
 * How the kernel's text meets the scheduler: the extracted text and its
 * harness are compiled as an instrumented program (weft_instrument(),
 * -fsanitize=thread against libweft_rt), so every plain load and store of
 * the kernel's own text is a scheduling point, a trace event and a
 * use-after-free check, exactly where the compiler leaves it (the way
 * KCSAN sees the kernel). These headers therefore map the kernel's
 * primitives onto what that runtime already models:
 *   READ_ONCE/WRITE_ONCE   volatile accesses (marked [volatile] in traces)
 *   atomics, bitops        the compiler's __atomic builtins (sequentially
 *                          consistent accesses of the runtime)
 *   spinlock_t             Weft's spinlock: preemption off while held, an
 *                          acquire and a release under weak memory,
 *                          deadlock and lockdep-lite checks
 *   gfp_t, GFP_*           <weft/gfp.h>: the kernel's flag values, accepted
 *   BUG_ON, VM_BUG_ON*     a bug-on report; WARN_ON* a warn-on report
 * A call of something these headers do not model is a stub that says so
 * (weft_linux_stub(): a limit-reached report naming it), never a silent
 * no-op that would make a search look clean.
 */
#ifndef WEFT_LINUX_KERNEL_COMPAT_H
#define WEFT_LINUX_KERNEL_COMPAT_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <weft/gfp.h>
#include <weft/weft.h>

/* ------------------------------------------------------------- types */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned long pgoff_t;
typedef u64 sector_t;

#define BITS_PER_LONG 64
#define PAGE_SHIFT 12
#define PAGE_SIZE (1ul << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))

/* ---------------------------------------------------------- compiler.h */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
/* a volatile access: instrumented as such (tsan-distinguish-volatile) */
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) do { *(volatile __typeof__(x) *)&(x) = (v); } while (0)
/* data_race(): the access happens and is a scheduling point like any
 * other; KCSAN only stops reporting it */
#define data_race(expr) (expr)
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __maybe_unused __attribute__((unused))
#define noinline __attribute__((noinline))
#define __must_check
#define __read_mostly
#define __init
#define __exit
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define IS_ENABLED(c) 0
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define round_down(x, y) ((x) & ~((__typeof__(x))((y) - 1)))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))
#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) ((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }

/* The sites these headers name (WEFT_SITE(): locks, fences, work items,
 * reports) live in the program's own "weft_sites" section, which the
 * machine in libweft_rt does not enumerate: their ids are computed here,
 * before main(), as weft_sites_init() computes the library's. */
uint32_t weft_site_hash(const struct weft_site *s);
extern struct weft_site *const __start_weft_sites[] __attribute__((weak));
extern struct weft_site *const __stop_weft_sites[] __attribute__((weak));
__attribute__((constructor)) static void weft_linux_sites_init(void)
{
	if (!__start_weft_sites)
		return;
	for (struct weft_site *const *p = __start_weft_sites; p < __stop_weft_sites; p++)
		if (*p && !(*p)->id)
			(*p)->id = weft_site_hash(*p);
}

/* --------------------------------------------------------------- bug.h */
/* libweft_rt's report (<weft/kernel.h> declares the same; that header's
 * kernel names are a model's, not these) */
void weft_report(enum weft_kind k, const void *obj, const struct weft_site *s,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define __WEFT_LINUX_REPORT(kind, name, c)                                      \
	weft_report((kind), NULL, WEFT_SITE(WEFT_EV_NOTE, name "(" #c ")"), name "(%s)", #c)
#define BUG() __WEFT_LINUX_REPORT(WEFT_KIND_BUG_ON, "BUG", )
#define BUG_ON(c) do { if (unlikely(c)) __WEFT_LINUX_REPORT(WEFT_KIND_BUG_ON, "BUG_ON", c); } while (0)
#define VM_BUG_ON(c) do { if (unlikely(c)) __WEFT_LINUX_REPORT(WEFT_KIND_BUG_ON, "VM_BUG_ON", c); } while (0)
#define VM_BUG_ON_FOLIO(c, f) VM_BUG_ON(c)
#define VM_BUG_ON_PAGE(c, p) VM_BUG_ON(c)
#define VM_WARN_ON(c) ((void)WARN_ON(c))
#define WARN_ON(c)                                                              \
	({                                                                      \
		bool __weft_c = !!(c);                                          \
		if (unlikely(__weft_c))                                         \
			__WEFT_LINUX_REPORT(WEFT_KIND_WARN_ON, "WARN_ON", c);   \
		__weft_c;                                                       \
	})
#define WARN_ON_ONCE(c) WARN_ON(c)
#define pr_err(...) ((void)0)
#define pr_err_ratelimited(...) ((void)0)
#define pr_warn(...) ((void)0)
#define lockdep_assert_held(l) ((void)(l))

/* A detector's read of x (a harness's oracle or audit): the newest value,
 * whichever CPU's store buffer holds it under a weak memory model; no
 * scheduling point, not traced. */
uint64_t weft_peek_newest(const void *addr, unsigned size);
#define weft_linux_peek(x) ((__typeof__(x))(uintptr_t)weft_peek_newest(&(x), sizeof(x)))

/* Something the headers do not model was called: the execution stops with
 * a limit-reached report naming it (no verdict about the code). */
#define weft_linux_stub(what)                                                   \
	weft_report(WEFT_KIND_LIMIT, NULL, WEFT_SITE(WEFT_EV_NOTE, "stub: " what),  \
		    "%s is out of scope of Weft's kernel headers (a stub)", what)

/* --------------------------------------------------- barriers, atomics */
/* The barriers are the kit's fences (weft_fence()): under --memory
 * lkmm|tso they order the CPU's store buffer as the kernel's do
 * (docs/memory-model.md); an atomic or a lock drains it too. */
void weft_fence(unsigned kind, const struct weft_site *s);
#define __WEFT_LINUX_FENCE(k, what) \
	weft_fence((k), (weft_rt_enter(), WEFT_SITE(WEFT_EV_BARRIER, what)))
#define smp_mb() __WEFT_LINUX_FENCE(WEFT_FENCE_MB, "smp_mb()")
#define smp_rmb() __WEFT_LINUX_FENCE(WEFT_FENCE_RMB, "smp_rmb()")
#define smp_wmb() __WEFT_LINUX_FENCE(WEFT_FENCE_WMB, "smp_wmb()")
#define smp_mb__before_atomic() __WEFT_LINUX_FENCE(WEFT_FENCE_BEFORE_ATOMIC, "smp_mb__before_atomic()")
#define smp_mb__after_atomic() __WEFT_LINUX_FENCE(WEFT_FENCE_AFTER_ATOMIC, "smp_mb__after_atomic()")
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* atomic_read()/atomic_set() are READ_ONCE()/WRITE_ONCE() in the kernel
 * (include/linux/atomic/atomic-arch-fallback.h, arch_atomic_read()):
 * unordered, so not atomics here either (an atomic would drain the store
 * buffer); the read-modify-writes are atomics */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
#define ATOMIC_INIT(i) { (i) }
#define ATOMIC_LONG_INIT(i) { (i) }
#define atomic_read(v) READ_ONCE((v)->counter)
#define atomic_set(v, i) WRITE_ONCE((v)->counter, (i))
#define atomic_add(i, v) ((void)__atomic_fetch_add(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_sub(i, v) ((void)__atomic_fetch_sub(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_inc(v) atomic_add(1, v)
#define atomic_dec(v) atomic_sub(1, v)
#define atomic_add_return(i, v) __atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_sub_return(i, v) __atomic_sub_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_inc_return(v) atomic_add_return(1, v)
#define atomic_dec_return(v) atomic_sub_return(1, v)
#define atomic_dec_and_test(v) (atomic_sub_return(1, v) == 0)
#define atomic_sub_and_test(i, v) (atomic_sub_return(i, v) == 0)
#define atomic_long_read(v) atomic_read(v)
#define atomic_long_set(v, i) atomic_set(v, i)
#define atomic_long_add(i, v) atomic_add(i, v)
#define atomic_long_sub(i, v) atomic_sub(i, v)

/* xchg() and cmpxchg() (include/linux/atomic/atomic-instrumented.h): the
 * value-returning forms are fully ordered, _acquire/_release/_relaxed as
 * named; a failed cmpxchg orders nothing (atomic_t.txt). Each is one
 * read-modify-write of the runtime, with the C11 order that names it. */
#define __weft_linux_xchg(p, v, mo) __atomic_exchange_n((p), (v), (mo))
#define __weft_linux_cmpxchg(p, o, n, mo, fail_mo)                              \
	({                                                                      \
		__typeof__(*(p)) __weft_old = (o);                              \
		__atomic_compare_exchange_n((p), &__weft_old, (n), 0, (mo), (fail_mo)); \
		__weft_old;                                                     \
	})
#define __weft_linux_try_cmpxchg(p, po, n, mo, fail_mo) \
	__atomic_compare_exchange_n((p), (po), (n), 0, (mo), (fail_mo))
#define xchg(p, v) __weft_linux_xchg(p, v, __ATOMIC_SEQ_CST)
#define xchg_acquire(p, v) __weft_linux_xchg(p, v, __ATOMIC_ACQUIRE)
#define xchg_release(p, v) __weft_linux_xchg(p, v, __ATOMIC_RELEASE)
#define xchg_relaxed(p, v) __weft_linux_xchg(p, v, __ATOMIC_RELAXED)
#define cmpxchg(p, o, n) __weft_linux_cmpxchg(p, o, n, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)
#define cmpxchg_acquire(p, o, n) __weft_linux_cmpxchg(p, o, n, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)
#define cmpxchg_release(p, o, n) __weft_linux_cmpxchg(p, o, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define cmpxchg_relaxed(p, o, n) __weft_linux_cmpxchg(p, o, n, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#define try_cmpxchg(p, po, n) __weft_linux_try_cmpxchg(p, po, n, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)
#define try_cmpxchg_acquire(p, po, n) __weft_linux_try_cmpxchg(p, po, n, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)
#define try_cmpxchg_release(p, po, n) __weft_linux_try_cmpxchg(p, po, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define try_cmpxchg_relaxed(p, po, n) __weft_linux_try_cmpxchg(p, po, n, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#define smp_store_mb(var, v) do { WRITE_ONCE(var, v); smp_mb(); } while (0)

/* the rest of atomic_t's API over the same operations; atomic_long_t's
 * forms are the same macros (they name ->counter only) */
#define atomic_read_acquire(v) smp_load_acquire(&(v)->counter)
#define atomic_set_release(v, i) smp_store_release(&(v)->counter, (i))
#define atomic_xchg(v, i) xchg(&(v)->counter, (i))
#define atomic_cmpxchg(v, o, n) cmpxchg(&(v)->counter, (o), (n))
#define atomic_try_cmpxchg(v, po, n) try_cmpxchg(&(v)->counter, (po), (n))
#define atomic_try_cmpxchg_acquire(v, po, n) try_cmpxchg_acquire(&(v)->counter, (po), (n))
#define atomic_try_cmpxchg_release(v, po, n) try_cmpxchg_release(&(v)->counter, (po), (n))
#define atomic_try_cmpxchg_relaxed(v, po, n) try_cmpxchg_relaxed(&(v)->counter, (po), (n))
#define atomic_fetch_add(i, v) __atomic_fetch_add(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_fetch_sub(i, v) __atomic_fetch_sub(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_fetch_and(i, v) __atomic_fetch_and(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_fetch_or(i, v) __atomic_fetch_or(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_fetch_xor(i, v) __atomic_fetch_xor(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_fetch_inc(v) atomic_fetch_add(1, v)
#define atomic_fetch_dec(v) atomic_fetch_sub(1, v)
#define atomic_and(i, v) ((void)__atomic_fetch_and(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_or(i, v) ((void)__atomic_fetch_or(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_xor(i, v) ((void)__atomic_fetch_xor(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_inc_and_test(v) (atomic_add_return(1, v) == 0)
#define atomic_add_negative(i, v) (atomic_add_return(i, v) < 0)
/* atomic_fetch_add_unless(): the generic loop (atomic-arch-fallback.h):
 * a read, then try_cmpxchg until the value is u or the exchange holds */
#define atomic_fetch_add_unless(v, a, u)                                        \
	({                                                                      \
		__typeof__((v)->counter) __weft_c = atomic_read(v);             \
		do {                                                            \
			if (__weft_c == (u))                                    \
				break;                                          \
		} while (!atomic_try_cmpxchg((v), &__weft_c, __weft_c + (a)));  \
		__weft_c;                                                       \
	})
#define atomic_add_unless(v, a, u) (atomic_fetch_add_unless((v), (a), (u)) != (u))
#define atomic_inc_not_zero(v) atomic_add_unless((v), 1, 0)
#define atomic_long_inc(v) atomic_inc(v)
#define atomic_long_dec(v) atomic_dec(v)
#define atomic_long_add_return(i, v) atomic_add_return(i, v)
#define atomic_long_sub_return(i, v) atomic_sub_return(i, v)
#define atomic_long_inc_return(v) atomic_inc_return(v)
#define atomic_long_dec_return(v) atomic_dec_return(v)
#define atomic_long_dec_and_test(v) atomic_dec_and_test(v)
#define atomic_long_xchg(v, i) atomic_xchg(v, i)
#define atomic_long_cmpxchg(v, o, n) atomic_cmpxchg(v, o, n)
#define atomic_long_try_cmpxchg(v, po, n) atomic_try_cmpxchg(v, po, n)
#define atomic_long_fetch_add(i, v) atomic_fetch_add(i, v)
#define atomic_long_inc_not_zero(v) atomic_inc_not_zero(v)
#define atomic_long_add_unless(v, a, u) atomic_add_unless(v, a, u)

/* ------------------------------------------------------------- bitops */
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define BIT_MASK(nr) (1ul << ((nr) % BITS_PER_LONG))
#define DECLARE_BITMAP(name, bits) unsigned long name[((bits) + BITS_PER_LONG - 1) / BITS_PER_LONG]
static inline void set_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_RELAXED);
}
static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and((unsigned long *)addr + BIT_WORD(nr), ~BIT_MASK(nr), __ATOMIC_RELAXED);
}
static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	return (__atomic_fetch_and((unsigned long *)addr + BIT_WORD(nr), ~BIT_MASK(nr),
				   __ATOMIC_SEQ_CST) & BIT_MASK(nr)) != 0;
}
/* test_bit() reads the word once, unordered (generic_test_bit()) */
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (addr[BIT_WORD(nr)] & BIT_MASK(nr)) != 0;
}
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	return (__atomic_fetch_or((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr),
				  __ATOMIC_SEQ_CST) & BIT_MASK(nr)) != 0;
}
static inline bool test_and_set_bit_lock(long nr, volatile unsigned long *addr)
{
	return test_and_set_bit(nr, addr);
}
static inline void clear_bit_unlock(long nr, volatile unsigned long *addr) { clear_bit(nr, addr); }
/* the non-atomic forms: a load and a store, two points */
static inline void __set_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}
static inline void __clear_bit(long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}
static inline void bitmap_set(unsigned long *map, unsigned start, unsigned nr)
{
	for (unsigned i = start; i < start + nr; i++)
		__set_bit(i, map);
}
static inline void bitmap_clear(unsigned long *map, unsigned start, unsigned nr)
{
	for (unsigned i = start; i < start + nr; i++)
		__clear_bit(i, map);
}
static inline bool bitmap_empty(const unsigned long *map, unsigned bits)
{
	for (unsigned i = 0; i < bits; i++)
		if (map[BIT_WORD(i)] & BIT_MASK(i))
			return false;
	return true;
}
/* find_next_bit() as lib/find_bit.c defines it: size if no bit from
 * offset on is set. */
static inline unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
					  unsigned long offset)
{
	for (; offset < size; offset++)
		if (addr[BIT_WORD(offset)] & BIT_MASK(offset))
			return offset;
	return size;
}
#define find_first_bit(addr, size) find_next_bit((addr), (size), 0)
/* A for statement of its own (no trailing if), so an `else` after the
 * loop body cannot bind inside the macro. */
#define for_each_set_bit(bit, addr, size)                                       \
	for ((bit) = find_next_bit((addr), (size), 0); (bit) < (size);          \
	     (bit) = find_next_bit((addr), (size), (bit) + 1))

/* ----------------------------------------------------------- spinlock */
/* The kit's spinlock (<weft/kernel.h>): every form disables preemption
 * while it is held (its CPU runs nothing else), a lock is an acquire and
 * an unlock a release under a weak --memory; deadlocks, bad unlocks and
 * lockdep-lite's order checks are the kit's. */
void weft_rt_enter(void);
/* weft_spin_*(): <weft/weft.h> */
typedef struct weft_spinlock spinlock_t;
#define __SPIN_LOCK_UNLOCKED(name) { 0, 0, 0 }
#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED(name)
#define __WEFT_LINUX_LOCK(ev, what, ord) (weft_rt_enter(), WEFT_SITE_F(ev, what, ord))
#define spin_lock_init(l) (*(l) = (spinlock_t)__SPIN_LOCK_UNLOCKED(l))
#define spin_lock(l) weft_spin_lock((l), __WEFT_LINUX_LOCK(WEFT_EV_LOCK, "spin_lock(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_trylock(l) weft_spin_trylock((l), __WEFT_LINUX_LOCK(WEFT_EV_TRYLOCK, "spin_trylock(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_unlock(l) weft_spin_unlock((l), __WEFT_LINUX_LOCK(WEFT_EV_UNLOCK, "spin_unlock(" #l ")", WEFT_SITE_RELEASE))
#define spin_lock_irq(l) weft_spin_lock_irq((l), __WEFT_LINUX_LOCK(WEFT_EV_LOCK, "spin_lock_irq(" #l ")", WEFT_SITE_ACQUIRE))
#define spin_unlock_irq(l) weft_spin_unlock_irq((l), __WEFT_LINUX_LOCK(WEFT_EV_UNLOCK, "spin_unlock_irq(" #l ")", WEFT_SITE_RELEASE))
#define spin_lock_irqsave(l, f) ((f) = weft_spin_lock_irqsave((l), __WEFT_LINUX_LOCK(WEFT_EV_LOCK, "spin_lock_irqsave(" #l ")", WEFT_SITE_ACQUIRE)))
#define spin_unlock_irqrestore(l, f) weft_spin_unlock_irqrestore((l), (f), __WEFT_LINUX_LOCK(WEFT_EV_UNLOCK, "spin_unlock_irqrestore(" #l ")", WEFT_SITE_RELEASE))

/* --------------------------------------------------------------- list */
struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(name) { &(name), &(name) }
static inline void INIT_LIST_HEAD(struct list_head *h) { WRITE_ONCE(h->next, h); h->prev = h; }
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	WRITE_ONCE(prev->next, n);
}
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}
static inline void list_del(struct list_head *e) { __list_del(e->prev, e->next); }
static inline void list_del_init(struct list_head *e) { __list_del(e->prev, e->next); INIT_LIST_HEAD(e); }
static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	__list_del(e->prev, e->next);
	list_add_tail(e, h);
}
static inline int list_empty(const struct list_head *h) { return READ_ONCE(h->next) == h; }
static inline void list_move(struct list_head *e, struct list_head *h)
{
	__list_del(e->prev, e->next);
	list_add(e, h);
}
static inline int list_is_last(const struct list_head *e, const struct list_head *h) { return e->next == h; }
#define list_entry(p, type, member) container_of(p, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_last_entry(h, type, member) list_entry((h)->prev, type, member)
#define list_first_entry_or_null(h, type, member)                               \
	({                                                                      \
		struct list_head *__weft_h = (h), *__weft_n = READ_ONCE(__weft_h->next); \
		__weft_n != __weft_h ? list_entry(__weft_n, type, member) : NULL; \
	})
#define list_next_entry(p, member) list_entry((p)->member.next, __typeof__(*(p)), member)
#define list_for_each(p, h) for ((p) = (h)->next; (p) != (h); (p) = (p)->next)
#define list_for_each_safe(p, n, h) \
	for ((p) = (h)->next, (n) = (p)->next; (p) != (h); (p) = (n), (n) = (p)->next)
#define list_for_each_entry(p, h, member)                                       \
	for ((p) = list_first_entry(h, __typeof__(*(p)), member); &(p)->member != (h); \
	     (p) = list_next_entry(p, member))
#define list_for_each_entry_safe(p, n, h, member)                               \
	for ((p) = list_first_entry(h, __typeof__(*(p)), member), (n) = list_next_entry(p, member); \
	     &(p)->member != (h); (p) = (n), (n) = list_next_entry(n, member))

/* ------------------------------------------------------------- mutex */
struct mutex { pthread_mutex_t m; };
#define __MUTEX_INITIALIZER(name) { PTHREAD_MUTEX_INITIALIZER }
#define DEFINE_MUTEX(name) struct mutex name = __MUTEX_INITIALIZER(name)
#define mutex_init(l) pthread_mutex_init(&(l)->m, NULL)
#define mutex_lock(l) pthread_mutex_lock(&(l)->m)
#define mutex_unlock(l) pthread_mutex_unlock(&(l)->m)
#define mutex_trylock(l) (pthread_mutex_trylock(&(l)->m) == 0)

/* ------------------------------------------- CPUs, preemption, per-CPU */
/* A program's threads each have a fake CPU of their own (main CPU0, the
 * n-th pthread_create()d thread CPU n); per-CPU kworkers share their
 * CPU. The kernel's per-CPU data, preemption and local_lock (!PREEMPT_RT)
 * are the machine's (<weft/context.h>): a thread with preemption off holds
 * its CPU. Calls into libweft complete the thread's open plain access
 * first (weft_rt_enter()). */
void weft_preempt_disable(const struct weft_site *s);
void weft_preempt_enable(const struct weft_site *s);
unsigned long weft_local_irq_save(const struct weft_site *s);
void weft_local_irq_restore(unsigned long flags, const struct weft_site *s);
unsigned weft_raw_smp_processor_id(void);

#define CONFIG_SMP 1
#ifndef WEFT_LINUX_NR_CPUS
#define WEFT_LINUX_NR_CPUS 4      /* CPUs online: 0 .. WEFT_LINUX_NR_CPUS - 1 */
#endif
#define NR_CPUS WEFT_LINUX_NR_CPUS
#define nr_cpu_ids ((unsigned)WEFT_LINUX_NR_CPUS)
#define __WEFT_LINUX_CTX(what) (weft_rt_enter(), WEFT_SITE(WEFT_EV_CTX, what))
#define preempt_disable() weft_preempt_disable(__WEFT_LINUX_CTX("preempt_disable()"))
#define preempt_enable() weft_preempt_enable(__WEFT_LINUX_CTX("preempt_enable()"))
static inline unsigned weft_linux_cpu(void)
{
	unsigned cpu = weft_raw_smp_processor_id();

	if (cpu >= nr_cpu_ids)
		weft_report(WEFT_KIND_LIMIT, NULL, WEFT_SITE(WEFT_EV_NOTE, "smp_processor_id()"),
			    "CPU%u is not online: WEFT_LINUX_NR_CPUS is %u (define it before "
			    "including <weft/linux/kernel_compat.h>)", cpu, nr_cpu_ids);
	return cpu;
}
#define raw_smp_processor_id() weft_linux_cpu()
#define smp_processor_id() weft_linux_cpu()

/* local_lock_t (include/linux/local_lock.h, !PREEMPT_RT): preemption off
 * (interrupts too for the _irq forms: no interrupt reaches a program) */
typedef struct { u8 unused; } local_lock_t;
#define INIT_LOCAL_LOCK(name) { 0 }
#define local_lock(l) ((void)(l), preempt_disable())
#define local_unlock(l) ((void)(l), preempt_enable())
#define local_lock_irqsave(l, flags)                                            \
	((void)(l), (flags) = weft_local_irq_save(__WEFT_LINUX_CTX("local_lock_irqsave()")))
#define local_unlock_irqrestore(l, flags)                                       \
	((void)(l), weft_local_irq_restore((flags), __WEFT_LINUX_CTX("local_unlock_irqrestore()")))

/* Per-CPU variables (include/linux/percpu-defs.h): DEFINE_PER_CPU() puts
 * the variable, as its initial value, in the section weft_linux_percpu;
 * weft_linux_percpu_setup() copies that section into each CPU's area (as
 * setup_per_cpu_areas() does), and per_cpu_ptr() of an address in the
 * section is the same offset in that CPU's area. The harness calls
 * weft_linux_percpu_setup() before its threads start. */
#define WEFT_LINUX_PERCPU_SIZE 8192
#define __percpu
#define DEFINE_PER_CPU(type, name)                                              \
	__attribute__((section("weft_linux_percpu"), aligned(64))) __typeof__(type) name
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name
extern char __start_weft_linux_percpu[] __attribute__((weak));
extern char __stop_weft_linux_percpu[] __attribute__((weak));
static char weft_linux_percpu_area[WEFT_LINUX_NR_CPUS][WEFT_LINUX_PERCPU_SIZE]
	__attribute__((aligned(64)));
static inline void weft_linux_percpu_setup(void)
{
	size_t n = (size_t)(__stop_weft_linux_percpu - __start_weft_linux_percpu);

	if (n > WEFT_LINUX_PERCPU_SIZE) {
		weft_report(WEFT_KIND_LIMIT, NULL, WEFT_SITE(WEFT_EV_NOTE, "weft_linux_percpu_setup"),
			    "per-CPU variables of %zu bytes: more than WEFT_LINUX_PERCPU_SIZE", n);
		return;
	}
	for (unsigned c = 0; c < nr_cpu_ids; c++)
		memcpy(weft_linux_percpu_area[c], __start_weft_linux_percpu, n);
}
#define per_cpu_ptr(ptr, cpu)                                                   \
	((__typeof__(ptr))((uintptr_t)(ptr) - (uintptr_t)__start_weft_linux_percpu + \
			   (uintptr_t)weft_linux_percpu_area[(cpu) % WEFT_LINUX_NR_CPUS]))
#define this_cpu_ptr(ptr) per_cpu_ptr((ptr), raw_smp_processor_id())
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), (cpu)))

/* struct cpumask (include/linux/cpumask.h): every CPU is online */
struct cpumask { DECLARE_BITMAP(bits, WEFT_LINUX_NR_CPUS); };
typedef struct cpumask cpumask_t;
#define cpumask_bits(m) ((m)->bits)
static inline void cpumask_clear(struct cpumask *m) { bitmap_clear(m->bits, 0, nr_cpu_ids); }
static inline void __cpumask_set_cpu(unsigned cpu, struct cpumask *m) { __set_bit(cpu, m->bits); }
static inline bool cpumask_test_cpu(unsigned cpu, const struct cpumask *m)
{
	return test_bit(cpu, m->bits);
}
#define cpu_online(cpu) ((unsigned)(cpu) < nr_cpu_ids)
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#define for_each_cpu(cpu, mask)                                                 \
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)                            \
		if (!cpumask_test_cpu((cpu), (mask))) {} else

/* --------------------------------------------------------- workqueues */
/* Work items are the kit's (<weft/workqueue.h>): each CPU's kworker, a
 * thread on that CPU the machine starts on the first queue_work_on() to
 * it, runs them in order; flush_work() sleeps until the item is done;
 * cancel_work_sync() takes it off its worklist and waits for its run.
 * schedule_work() (the swap device's discard and reclaim work) is out of
 * scope: a call is a stub report. */
#include <weft/workqueue.h>
#undef INIT_WORK
#undef queue_work_on
#undef schedule_work_on
#undef schedule_work
#undef flush_work
#define INIT_WORK(w, fn) (weft_rt_enter(), weft_init_work((w), (fn)))
#define queue_work_on(cpu, wq, w)                                               \
	((void)(wq), weft_rt_enter(),                                           \
	 weft_queue_work_on((cpu), (w), WEFT_SITE(WEFT_EV_RMW, "queue_work_on(" #w ")")))
#define flush_work(w)                                                           \
	(weft_rt_enter(), weft_flush_work((w), WEFT_SITE(WEFT_EV_WAIT, "flush_work(" #w ")")))
#define schedule_work(w) (weft_linux_stub("schedule_work()"), false)
#undef queue_work
#undef cancel_work
#undef cancel_work_sync
#define queue_work(wq, w)                                                       \
	((void)(wq), weft_rt_enter(),                                           \
	 weft_queue_work_on(weft_linux_cpu(), (w), WEFT_SITE(WEFT_EV_RMW, "queue_work(" #w ")")))
#define cancel_work(w)                                                          \
	(weft_rt_enter(), weft_cancel_work((w), false, WEFT_SITE(WEFT_EV_RMW, "cancel_work(" #w ")")))
#define cancel_work_sync(w)                                                     \
	(weft_rt_enter(),                                                       \
	 weft_cancel_work((w), true, WEFT_SITE(WEFT_EV_WAIT, "cancel_work_sync(" #w ")")))
static struct workqueue_struct weft_linux_mm_percpu_wq = { "mm_percpu_wq" };
static struct workqueue_struct *mm_percpu_wq __maybe_unused = &weft_linux_mm_percpu_wq;

/* --------------------------------------------------------------- misc */
#define sort(base, num, size, cmp, swap) qsort((base), (num), (size), (cmp))

#endif
