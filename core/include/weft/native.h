/*
 * native.h - the native implementation of the primitives (-DWEFT_NATIVE):
 * real C11/GNU atomics, real spinlocks, one pthread per fake CPU. Included
 * by kernel.h only; the runtime lives in core/src/native/native.c.
 *
 * Scheduling points vanish; detectors that are plain checks in model code
 * still run. A report stops every thread of the current iteration (each
 * primitive polls the stop flag) and is kept for `weft stress`.
 */
#ifndef WEFT_NATIVE_H
#define WEFT_NATIVE_H

#include <sched.h>

extern volatile int weft_native_stop;
extern __thread unsigned weft_native_cpu;
extern __thread unsigned weft_native_tid;
extern int weft_native_lock_model;
void weft_native_bail(void) __attribute__((noreturn));
/* In a model thread of the stress loop (not setup or an audit)? */
bool weft_native_in_model(void);
/* The sleeping primitives' wait lists, emptied between iterations
 * (core/src/native/native_sleep.c). */
void weft_native_sleep_reset(void);

static inline void weft_native_poll(void)
{
	if (__builtin_expect(__atomic_load_n(&weft_native_stop, __ATOMIC_RELAXED), 0))
		weft_native_bail();
}

static inline uint64_t weft_native_access(void *addr, unsigned size, unsigned aop, uint64_t a,
					  uint64_t b)
{
	weft_native_poll();
#define __WEFT_NAT(T)                                                                  \
	do {                                                                           \
		T *p = (T *)addr, old;                                                 \
		switch (aop) {                                                         \
		case 0: return (uint64_t)__atomic_load_n(p, __ATOMIC_SEQ_CST);         \
		case 1: __atomic_store_n(p, (T)a, __ATOMIC_SEQ_CST); return 0;         \
		case 2: return (uint64_t)__atomic_fetch_add(p, (T)a, __ATOMIC_SEQ_CST); \
		case 3: return (uint64_t)__atomic_exchange_n(p, (T)a, __ATOMIC_SEQ_CST); \
		case 4: old = (T)a;                                                    \
			__atomic_compare_exchange_n(p, &old, (T)b, 0, __ATOMIC_SEQ_CST,  \
						    __ATOMIC_SEQ_CST);                 \
			return (uint64_t)old;                                          \
		case 5: return (uint64_t)__atomic_fetch_or(p, (T)a, __ATOMIC_SEQ_CST);  \
		case 6: return (uint64_t)__atomic_fetch_and(p, (T)~a, __ATOMIC_SEQ_CST); \
		case 7: old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                    \
			while (old != (T)b &&                                          \
			       !__atomic_compare_exchange_n(p, &old, (T)(old + (T)a), 0, \
							    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) \
				;                                                      \
			return (uint64_t)old;                                          \
		}                                                                      \
		return 0;                                                              \
	} while (0)
	switch (size) {
	case 1: __WEFT_NAT(uint8_t);
	case 2: __WEFT_NAT(uint16_t);
	case 4: __WEFT_NAT(uint32_t);
	default: __WEFT_NAT(uint64_t);
	}
#undef __WEFT_NAT
}

#define WEFT_ACCESS(p, aop, a, b, ev, what) \
	weft_native_access((void *)(p), sizeof(*(p)), (aop), (uint64_t)(a), (uint64_t)(b))
/* The ordering class (WEFT_SITE_RELAXED...) is the controlled build's: the
 * native one runs every access sequentially consistent. */
#define WEFT_ACCESS_F(p, aop, a, b, ev, what, flags) WEFT_ACCESS(p, aop, a, b, ev, what)
/* The controlled build's entry points, for vocabulary written on them. */
static inline uint64_t weft_load_nocheck(const void *addr, unsigned size,
					 const struct weft_site *s)
{
	(void)s;
	return weft_native_access((void *)addr, size, WEFT_A_LOAD, 0, 0);
}
static inline uint64_t weft_access_prev(void *addr, unsigned size, unsigned aop, uint64_t a,
					uint64_t b, const struct weft_site *s,
					struct weft_access *prev)
{
	(void)s;
	prev->valid = false;
	return weft_native_access(addr, size, aop, a, b);
}
static inline uint64_t weft_access(void *addr, unsigned size, unsigned aop, uint64_t a,
				   uint64_t b, const struct weft_site *s)
{
	(void)s;
	return weft_native_access(addr, size, aop, a, b);
}
#define weft_peek(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define weft_peek_ghost(x) weft_peek(x)
#define weft_peek_seen(x) weft_peek(x)
/* Real CPUs: a store may reach other CPUs after later loads of its own. */
static inline bool weft_memory_is_weak(void)
{
	return true;
}

static inline void weft_spin_lock(struct weft_spinlock *l, const struct weft_site *s)
{
	(void)s;
	if (weft_native_lock_model == WEFT_LOCK_TICKET) {
		uint32_t t = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
		unsigned spins = 0;
		while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != t) {
			weft_native_poll();
			if (++spins % 256 == 0)
				sched_yield();
		}
		__atomic_store_n(&l->locked, 1 + weft_native_tid, __ATOMIC_RELAXED);
		return;
	}
	for (unsigned spins = 0;; spins++) {
		uint32_t z = 0;
		if (__atomic_compare_exchange_n(&l->locked, &z, 1 + weft_native_tid, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		weft_native_poll();
		if (spins % 256 == 255)
			sched_yield();
	}
}
static inline bool weft_spin_trylock(struct weft_spinlock *l, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	if (weft_native_lock_model == WEFT_LOCK_TICKET) {
		uint32_t cur = __atomic_load_n(&l->serving, __ATOMIC_RELAXED);
		uint32_t exp = cur;
		if (__atomic_load_n(&l->next, __ATOMIC_RELAXED) != cur)
			return false;
		if (!__atomic_compare_exchange_n(&l->next, &exp, cur + 1, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			return false;
		__atomic_store_n(&l->locked, 1 + weft_native_tid, __ATOMIC_RELAXED);
		return true;
	}
	uint32_t z = 0;
	return __atomic_compare_exchange_n(&l->locked, &z, 1 + weft_native_tid, 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}
static inline void weft_spin_unlock(struct weft_spinlock *l, const struct weft_site *s)
{
	(void)s;
	if (weft_native_lock_model == WEFT_LOCK_TICKET) {
		__atomic_store_n(&l->locked, 0, __ATOMIC_RELAXED);
		__atomic_fetch_add(&l->serving, 1, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
static inline bool weft_spin_is_locked(const struct weft_spinlock *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED) != 0;
}
static inline void weft_spin_lock_init(struct weft_spinlock *l, const struct weft_site *s)
{
	(void)s;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->next, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->serving, 0, __ATOMIC_RELAXED);
}
/* Interrupts and bottom halves are not modelled natively. */
static inline void weft_spin_lock_irq(struct weft_spinlock *l, const struct weft_site *s)
{
	weft_spin_lock(l, s);
}
static inline void weft_spin_unlock_irq(struct weft_spinlock *l, const struct weft_site *s)
{
	weft_spin_unlock(l, s);
}
static inline unsigned long weft_spin_lock_irqsave(struct weft_spinlock *l,
						   const struct weft_site *s)
{
	weft_spin_lock(l, s);
	return 0;
}
static inline void weft_spin_unlock_irqrestore(struct weft_spinlock *l, unsigned long f,
					       const struct weft_site *s)
{
	(void)f;
	weft_spin_unlock(l, s);
}
static inline bool weft_spin_trylock_irqsave(struct weft_spinlock *l, unsigned long *f,
					     const struct weft_site *s)
{
	*f = 0;
	return weft_spin_trylock(l, s);
}
static inline void weft_spin_lock_bh(struct weft_spinlock *l, const struct weft_site *s)
{
	weft_spin_lock(l, s);
}
static inline void weft_spin_unlock_bh(struct weft_spinlock *l, const struct weft_site *s)
{
	weft_spin_unlock(l, s);
}
static inline void weft_yield(const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	sched_yield();
}
static inline void weft_barrier(const struct weft_site *s)
{
	(void)s;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static inline void weft_fence(unsigned kind, const struct weft_site *s)
{
	(void)kind;
	weft_barrier(s);
}
uint32_t weft_choose(uint32_t n, const struct weft_site *s);
static inline unsigned weft_smp_processor_id(void) { return weft_native_cpu; }
static inline unsigned weft_current_tid(void) { return weft_native_tid; }
static inline void weft_note(const struct weft_site *s, uint64_t a, uint64_t b)
{
	(void)s; (void)a; (void)b;
}
static inline void *weft_plain_point(const void *a, unsigned n, const struct weft_site *s)
{
	(void)n; (void)s;
	weft_native_poll();
	return (void *)(uintptr_t)a;
}
static inline void weft_plain_done(const void *a, unsigned n, uint64_t o, uint64_t v,
				   const struct weft_site *s)
{
	(void)a; (void)n; (void)o; (void)v; (void)s;
}
static inline bool weft_in_world(const void *p, size_t n, const struct weft_site *s)
{
	(void)p; (void)n; (void)s;
	return true;
}
/* Poisoning needs the controlled machine's shadow: models keep their own
 * allocated/free state, which the native build still checks. */
static inline void weft_poison(const void *a, size_t n, const struct weft_site *s)
{
	(void)a; (void)n; (void)s;
}
static inline void weft_unpoison(const void *a, size_t n, const struct weft_site *s)
{
	(void)a; (void)n; (void)s;
}
static inline bool weft_is_poisoned(const void *a) { (void)a; return false; }
static inline struct weft_access weft_last_write(const void *a)
{
	struct weft_access x = { 0 };
	(void)a;
	return x;
}
void weft_report(enum weft_kind k, const void *obj, const struct weft_site *s,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void weft_report2(enum weft_kind k, const void *obj, const struct weft_site *s,
		  const struct weft_access *other, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static inline bool weft_in_thread(void) { return true; }
/* one per iteration (native.c): for a kit's per-execution tables */
uint32_t weft_execution_id(void);
#define WEFT_CPU_ANY (~0u)   /* natively: spread by thread number */
int weft_thread_spawn(void (*fn)(void *world, void *arg), void *arg, unsigned cpu,
		      const struct weft_site *s);
void weft_thread_join(int tid, const struct weft_site *s);

#endif
