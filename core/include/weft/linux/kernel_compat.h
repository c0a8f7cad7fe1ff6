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
 *   spinlock_t             a pthread mutex, which the runtime maps to
 *                          Weft's mutex (deadlock, bad-unlock detection);
 *                          preemption is not disabled while it is held
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
typedef unsigned int gfp_t;

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

/* Something the headers do not model was called: the execution stops with
 * a limit-reached report naming it (no verdict about the code). */
#define weft_linux_stub(what)                                                   \
	weft_report(WEFT_KIND_LIMIT, NULL, WEFT_SITE(WEFT_EV_NOTE, "stub: " what),  \
		    "%s is out of scope of Weft's kernel headers (a stub)", what)

/* --------------------------------------------------- barriers, atomics */
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
#define ATOMIC_INIT(i) { (i) }
#define ATOMIC_LONG_INIT(i) { (i) }
#define atomic_read(v) __atomic_load_n(&(v)->counter, __ATOMIC_SEQ_CST)
#define atomic_set(v, i) __atomic_store_n(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_add(i, v) ((void)__atomic_fetch_add(&(v)->counter, (i), __ATOMIC_SEQ_CST))
#define atomic_sub(i, v) ((void)__atomic_fetch_sub(&(v)->counter, (i), __ATOMIC_SEQ_CST))
#define atomic_inc(v) atomic_add(1, v)
#define atomic_dec(v) atomic_sub(1, v)
#define atomic_add_return(i, v) __atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_sub_return(i, v) __atomic_sub_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_dec_and_test(v) (atomic_sub_return(1, v) == 0)
#define atomic_long_read(v) atomic_read(v)
#define atomic_long_set(v, i) atomic_set(v, i)
#define atomic_long_add(i, v) atomic_add(i, v)
#define atomic_long_sub(i, v) atomic_sub(i, v)

/* ------------------------------------------------------------- bitops */
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define BIT_MASK(nr) (1ul << ((nr) % BITS_PER_LONG))
#define DECLARE_BITMAP(name, bits) unsigned long name[((bits) + BITS_PER_LONG - 1) / BITS_PER_LONG]
static inline void set_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_SEQ_CST);
}
static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and((unsigned long *)addr + BIT_WORD(nr), ~BIT_MASK(nr), __ATOMIC_SEQ_CST);
}
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (__atomic_load_n((unsigned long *)addr + BIT_WORD(nr), __ATOMIC_SEQ_CST) &
		BIT_MASK(nr)) != 0;
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
#define for_each_set_bit(bit, addr, size)                                       \
	for ((bit) = 0; (bit) < (size); (bit)++)                                \
		if ((addr)[BIT_WORD(bit)] & BIT_MASK(bit))

/* ----------------------------------------------------------- spinlock */
typedef struct { pthread_mutex_t m; } spinlock_t;
#define __SPIN_LOCK_UNLOCKED(name) { PTHREAD_MUTEX_INITIALIZER }
#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED(name)
#define spin_lock_init(l) pthread_mutex_init(&(l)->m, NULL)
#define spin_lock(l) pthread_mutex_lock(&(l)->m)
#define spin_unlock(l) pthread_mutex_unlock(&(l)->m)
#define spin_trylock(l) (pthread_mutex_trylock(&(l)->m) == 0)
#define spin_lock_irq(l) spin_lock(l)
#define spin_unlock_irq(l) spin_unlock(l)

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
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}
static inline void list_del_init(struct list_head *e) { __list_del(e->prev, e->next); INIT_LIST_HEAD(e); }
static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	__list_del(e->prev, e->next);
	list_add_tail(e, h);
}
static inline int list_empty(const struct list_head *h) { return READ_ONCE(h->next) == h; }

/* --------------------------------------------------------------- misc */
struct work_struct { int pending; };
/* workqueues are out of scope: a call is a stub report */
#define schedule_work(w) (weft_linux_stub("schedule_work()"), false)
#define sort(base, num, size, cmp, swap) qsort((base), (num), (size), (cmp))

#endif
