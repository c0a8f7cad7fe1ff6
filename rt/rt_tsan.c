/*
 * rt_tsan.c - the ThreadSanitizer ABI: the functions clang 14 and gcc 12
 * call under -fsanitize=thread (compiler-rt's tsan_interface.h and
 * tsan_interface_atomic.h), as KCSAN defines them for the kernel.
 *
 *   __tsan_{read,write}{1,2,4,8,16}, __tsan_unaligned_*, the volatile
 *   forms (-mllvm -tsan-distinguish-volatile=1, --param
 *   tsan-distinguish-volatile=1), __tsan_{read,write}_range: plain
 *   accesses: weft_plain_point() before, weft_plain_done() with the value
 *   (a store's value is known only after the store, so it is completed at
 *   the thread's next entry into the runtime, before anything else runs);
 *   __tsan_atomic{8,16,32,64}_*: weft_access() with the operation (the
 *   machine performs it, sequentially consistent), the C11 order kept in
 *   the site ("[atomic fetch_add relaxed]");
 *   __tsan_atomic_thread_fence: by its order, seq_cst weft_barrier(),
 *   acquire smp_rmb(), release an A-cumulative smp_wmb(), acq_rel both,
 *   relaxed nothing;
 *   __tsan_func_entry/_exit:
 *   each thread's call stack (and SV-COMP's __VERIFIER_atomic_*
 *   functions, which run without a scheduling point); __tsan_init.
 *
 * Outside an execution (native runs, Weft's own code between executions)
 * every plain hook returns at its first test and every atomic is done on
 * the real memory with sequential consistency.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "memory/memory.h"
#include "rt_internal.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

struct rt_thread rt_th[WEFT_EXEC_MAX_THREADS];
struct rt_exec rt_x;

/* ------------------------------------------------------ trace values */

#define MAX_MODULES 64
static struct {
	uintptr_t lo, hi;
} mods[MAX_MODULES];
static unsigned nr_mods;

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + p->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + p->p_memsz > hi)
			hi = a + p->p_memsz;
	}
	if (hi > lo && nr_mods < MAX_MODULES) {
		mods[nr_mods].lo = lo;
		mods[nr_mods].hi = hi;
		nr_mods++;
	}
	return 0;
}

static void modules_init(void)
{
	if (!nr_mods)
		dl_iterate_phdr(add_module, NULL);
}

/* Pointers into the world stay (the machine traces them as offsets);
 * pointers into the executable or a library become (module, offset),
 * which is the same in every process; other likely pointers keep only
 * their page offset. */
uint64_t rt_norm_slow(uint64_t v)
{
	for (unsigned k = 0; k < nr_mods; k++)
		if (v >= mods[k].lo && v < mods[k].hi)
			return 0xa500000000000000ull | (uint64_t)k << 40 | (v - mods[k].lo);
	if (v >= (1ull << 40) && v < (1ull << 47))
		return 0xa600000000000000ull | (v & 0xfff);
	return v;
}

static inline uint64_t load(const void *addr, unsigned size)
{
	switch (size) {
	case 1: return *(const volatile uint8_t *)addr;
	case 2: { uint16_t v; __builtin_memcpy(&v, addr, 2); return v; }
	case 4: { uint32_t v; __builtin_memcpy(&v, addr, 4); return v; }
	default: { uint64_t v; __builtin_memcpy(&v, addr, 8); return v; }
	}
}

/* ------------------------------------------------------ plain accesses */

/* Inside an atomic section (__VERIFIER_atomic_*) the accesses are parts of
 * the transition that began at the section's point (rt_atomic_enter): no
 * point, no new step; each is traced, shadowed and recorded as another
 * dependence record of that step (partial-order reduction merges them). */
static inline bool in_section(void)
{
	return __builtin_expect(rt_th[M.cur].atomic_depth != 0, 0);
}

static void section_point(const void *addr, unsigned size, const struct weft_site *s)
{
	uint32_t loc = loc_of(addr);
	uint64_t ignored;

	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	M.plain_old = weft_apply_op((void *)addr, size > 8 ? 8 : size, WEFT_A_LOAD, 0, 0, &ignored);
}

uint64_t rt_section_op(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
		       const struct weft_site *s)
{
	uint32_t loc = loc_of(addr);
	uint64_t nv;

	if (loc != WEFT_NO_LOC)
		check_uaf(loc, s);
	uint64_t old = weft_apply_op(addr, size, aop, a, b, &nv);
	unsigned ev = aop == WEFT_A_LOAD ? WEFT_EV_READ : aop == WEFT_A_STORE ? WEFT_EV_WRITE
									       : WEFT_EV_RMW;
	weft_trace(ev, loc, old, nv, s);
	weft_sched_step(aop == WEFT_A_LOAD ? WEFT_DEP_READ : WEFT_DEP_WRITE, loc, size, 0, s);
	if (loc != WEFT_NO_LOC && aop != WEFT_A_LOAD && nv != old)
		shadow_write(loc, s);
	return old;
}

/* Under a weak memory model (--memory tso) a plain access stays open until
 * the thread's next entry into the runtime, reads too: between
 * weft_plain_point() and weft_plain_done() memory holds what this CPU's
 * store buffer forwards, which is what the program's own load must see.
 * Values keep their bits there (the buffer writes them back); under sc
 * they are normalized for the trace (rt_norm). */
/* A store's value handed over: a pointer to a local stored where other
 * threads can reach it (rt_escape.c); fp: the storing function's frame */
static inline void handoff_stored(void *addr, unsigned size, uint64_t v, uintptr_t fp)
{
	if (size == 8)
		rt_escape_handoff(v, fp);
	else if (size > 8)
		rt_escape_range(addr, size, fp);
}

void rt_flush_slow(void)
{
	const struct weft_site *s = rt_x.pend_site;
	void *addr = rt_x.pend_addr;
	unsigned size = rt_x.pend_size;
	uint64_t v = load(addr, size);

	rt_x.pend_site = NULL;
	if (s->ev == WEFT_EV_WRITE)   /* a pointer to a local stored where others see it */
		handoff_stored(addr, size, v, rt_x.pend_fp);
	if (!weft_mem_weak)
		v = rt_norm(v);
	weft_plain_done(addr, size, v, v, s);
	struct rt_deferred_store *d = &rt_x.deferred[M.cur];
	if (d->site) {
		/* the deferred store, after the read that came between (its old
		 * value is the one its announcement saw) */
		s = d->site;
		d->site = NULL;
		v = load(d->addr, d->size);
		handoff_stored(d->addr, d->size, v, d->fp);
		if (!weft_mem_weak)
			v = rt_norm(v);
		M.plain_old = d->old;
		weft_plain_done(d->addr, d->size, v, v, s);
	}
	if (rt_esc_armed)
		rt_escape_disarm();
}

/* At a read's hook: is the announced store still not done? Its memory
 * still holds what it overwrote, so either the compiler announced an
 * aggregate copy's store before the copy's load (the store follows the
 * load), or the store wrote the value that was there; deferring it past
 * the read is right for the first and changes nothing for the second. */
static bool store_not_done(void)
{
	const struct weft_site *s = rt_x.pend_site;

	if (!s || s->ev != WEFT_EV_WRITE)
		return false;
	uint64_t now = load(rt_x.pend_addr, rt_x.pend_size);
	if (!weft_mem_weak)
		now = rt_norm(now);
	return now == M.plain_old;
}

/* An access to a stack while a store that may write a pointer is announced
 * (rt_escape.c): complete the store first. One still not done (an
 * aggregate copy's store, announced before its load, or a store of the
 * value that was there) is completed at the thread's next point, as
 * before; its value is handed over then, and the stack accesses until
 * then take the fast path again. */
void rt_escape_settle(void)
{
	if (rt_x.pend_site && !store_not_done())
		rt_flush_slow();
	else
		rt_escape_disarm();
}

/* The read is done or open: a deferred store under sc, or a read done at
 * once, goes back to being the announced access */
static void reopen_deferred(void)
{
	struct rt_deferred_store *d = &rt_x.deferred[M.cur];

	if (!d->site || rt_x.pend_site)
		return;
	rt_x.pend_addr = d->addr;
	rt_x.pend_fp = d->fp;
	if (d->size >= 8)
		rt_escape_arm();
	rt_x.pend_size = d->size;
	rt_x.pend_site = d->site;
	M.plain_old = d->old;
	d->site = NULL;
}

static inline void open_access(void *addr, unsigned size, const struct weft_site *s,
			       uintptr_t fp)
{
	rt_x.pend_fp = fp;
	rt_x.pend_addr = addr;
	rt_x.pend_size = size;
	rt_x.pend_site = s;
}

static __attribute__((noinline)) void read_slow(const void *addr, unsigned size, unsigned cls,
						uintptr_t pc)
{
	if (rt_own_private(addr, size))
		return;   /* near an escaped local, not one */
	weft_user_sp = RT_USER_SP();
	if (store_not_done()) {
		struct rt_deferred_store *d = &rt_x.deferred[M.cur];
		d->addr = rt_x.pend_addr;
		d->size = rt_x.pend_size;
		d->site = rt_x.pend_site;
		d->old = M.plain_old;
		d->fp = rt_x.pend_fp;
		rt_x.pend_site = NULL;
	}
	rt_flush();
	rt_escape_note(addr, size);
	const struct weft_site *s = rt_site(pc, cls, WEFT_EV_READ, NULL);
	if (in_section()) {
		section_point(addr, size, s);
		uint64_t v = rt_norm(M.plain_old);
		weft_plain_done(addr, size, v, v, s);
		reopen_deferred();
		return;
	}
	if (weft_mem_weak && size > 8)   /* no forwarding of a range: drain */
		weft_mem_drain_cpu(M.cpu_of[M.cur]);
	weft_plain_point(addr, size, s);
	if (size > 8 && loc_of((const uint8_t *)addr + size - 1) != WEFT_NO_LOC)
		check_uaf(loc_of((const uint8_t *)addr + size - 1), s);
	if (weft_mem_weak) {
		open_access((void *)addr, size, s, RT_USER_FP());
		return;
	}
	uint64_t v = rt_norm(load(addr, size));
	weft_plain_done(addr, size, v, v, s);
	reopen_deferred();
}

static __attribute__((noinline)) void write_slow(void *addr, unsigned size, unsigned cls,
						 uintptr_t pc)
{
	if (rt_own_private(addr, size))
		return;   /* near an escaped local, not one */
	weft_user_sp = RT_USER_SP();
	rt_flush();
	rt_escape_note(addr, size);
	const struct weft_site *s = rt_site(pc, cls, WEFT_EV_WRITE, NULL);
	if (in_section())
		section_point(addr, size, s);
	else
		weft_plain_point(addr, size, s);
	if (size > 8 && loc_of((uint8_t *)addr + size - 1) != WEFT_NO_LOC)
		check_uaf(loc_of((uint8_t *)addr + size - 1), s);
	if (!weft_mem_weak)
		M.plain_old = rt_norm(M.plain_old);
	open_access(addr, size, s, RT_USER_FP());
	if (size >= 8)   /* it may store a pointer to a local */
		rt_escape_arm();
}

static inline void rd(const void *addr, unsigned size, unsigned cls, uintptr_t pc)
{
	if (__builtin_expect(rt_shared_hint(addr), 0))
		read_slow(addr, size, cls, pc);
}

static inline void wr(void *addr, unsigned size, unsigned cls, uintptr_t pc)
{
	if (__builtin_expect(rt_shared_hint(addr), 0))
		write_slow(addr, size, cls, pc);
	else if (__builtin_expect((uintptr_t)addr - (uintptr_t)weft_user_tls < weft_user_tls_size, 0))
		rt_state_moved();   /* a __thread variable: the thread's own state moved
				       (a spin that counts its polls there is no pure wait) */
}

void rt_silent_write(void *addr, unsigned size, uint64_t val, const struct weft_site *s)
{
	if (!rt_shared(addr, size))
		return;   /* the caller's own stack, or not the program's memory */
	uint32_t loc = loc_of(addr);
	weft_trace(WEFT_EV_WRITE, loc, 0, rt_norm(val), s);
	weft_sched_step(WEFT_DEP_WRITE, loc, size, 0, s);
	shadow_write(loc, s);
}

/* __tsan_<form>read<n>() and __tsan_<form>write<n>(), a form's pair (the
 * prototypes keep -Wmissing-prototypes quiet: only the compiler calls them) */
#define PLAIN_PAIR(form, n, read_cls, write_cls)                                  \
	void __tsan_##form##read##n(void *a);                                     \
	void __tsan_##form##read##n(void *a) { rd(a, n, read_cls, PC()); }        \
	void __tsan_##form##write##n(void *a);                                    \
	void __tsan_##form##write##n(void *a) { wr(a, n, write_cls, PC()); }

#define PLAIN(n)                                                                  \
	PLAIN_PAIR(, n, RT_READ, RT_WRITE)                                        \
	PLAIN_PAIR(unaligned_, n, RT_READ, RT_WRITE)                              \
	PLAIN_PAIR(volatile_, n, RT_VREAD, RT_VWRITE)                             \
	PLAIN_PAIR(unaligned_volatile_, n, RT_VREAD, RT_VWRITE)

PLAIN(1)
PLAIN(2)
PLAIN(4)
PLAIN(8)
PLAIN(16)

/* The interposed mem* functions (rt_libc.c) as range accesses. */
void rt_range_read(const void *a, size_t n, uintptr_t pc);
void rt_range_write(void *a, size_t n, uintptr_t pc);
void rt_range_read(const void *a, size_t n, uintptr_t pc)
{
	if (n && rt_shared(a, n))
		read_slow(a, (unsigned)(n > UINT32_MAX ? UINT32_MAX : n), RT_RANGE_READ, pc);
}

void rt_range_write(void *a, size_t n, uintptr_t pc)
{
	if (n && rt_shared(a, n))
		write_slow(a, (unsigned)(n > UINT32_MAX ? UINT32_MAX : n), RT_RANGE_WRITE, pc);
}

/* unsigned long is size_t on the targets the runtime builds for (LP64) */
void __tsan_read_range(void *a, unsigned long size);
void __tsan_read_range(void *a, unsigned long size)
{
	rt_range_read(a, size, PC());
}

void __tsan_write_range(void *a, unsigned long size);
void __tsan_write_range(void *a, unsigned long size)
{
	rt_range_write(a, size, PC());
}

/* C++ virtual pointers (the program's, if it is C++) are plain accesses. */
void __tsan_vptr_update(void **vptr, void *val);
void __tsan_vptr_update(void **vptr, void *val)
{
	(void)val;
	wr(vptr, sizeof(void *), RT_WRITE, PC());
}

void __tsan_vptr_read(void **vptr);
void __tsan_vptr_read(void **vptr)
{
	rd(vptr, sizeof(void *), RT_READ, PC());
}

/* ------------------------------------------------------------- atomics */

/* compiler-rt's __tsan_memory_order (gcc passes its MEMMODEL_* numbers,
 * the same six, possibly with flags above bit 15) */
static inline unsigned order(int mo)
{
	unsigned m = (unsigned)mo & 0xffffu;
	return m <= 5 ? m : 5;
}

static __attribute__((noinline)) uint64_t atomic_slow(volatile void *a, unsigned size,
						      unsigned aop, uint64_t x, uint64_t y,
						      int mo, uintptr_t pc)
{
	weft_user_sp = RT_USER_SP();
	rt_flush();
	unsigned ev = aop == WEFT_A_LOAD ? WEFT_EV_READ : aop == WEFT_A_STORE ? WEFT_EV_WRITE
									       : WEFT_EV_RMW;
	const struct weft_site *s = rt_site(pc, RT_ATOMIC | aop << 4 | order(mo) << 8, ev, NULL);
	rt_escape_note((const void *)a, size);
	if (size == 8 && (aop == WEFT_A_STORE || aop == WEFT_A_XCHG || aop == WEFT_A_CMPXCHG))
		rt_escape_handoff(aop == WEFT_A_CMPXCHG ? y : x, RT_USER_FP());   /* a pointer it stores */
	if (in_section())
		return rt_section_op((void *)a, size, aop, x, y, s);
	return weft_access((void *)a, size, aop, x, y, s);
}

#define SEQ __ATOMIC_SEQ_CST

#define ATOMIC(bits, T)                                                            \
	T __tsan_atomic##bits##_load(const volatile T *a, int mo);                 \
	T __tsan_atomic##bits##_load(const volatile T *a, int mo)                  \
	{                                                                          \
		if (!rt_shared((const void *)a, sizeof(T)))                        \
			return __atomic_load_n(a, SEQ);                            \
		return (T)atomic_slow((volatile void *)a, sizeof(T), WEFT_A_LOAD, 0, 0, mo, PC()); \
	}                                                                          \
	void __tsan_atomic##bits##_store(volatile T *a, T v, int mo);              \
	void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)               \
	{                                                                          \
		if (!rt_shared((const void *)a, sizeof(T)))                        \
			__atomic_store_n(a, v, SEQ);                               \
		else                                                               \
			atomic_slow(a, sizeof(T), WEFT_A_STORE, (uint64_t)v, 0, mo, PC()); \
	}                                                                          \
	RMW(bits, T, exchange, WEFT_A_XCHG, __atomic_exchange_n(a, v, SEQ), (uint64_t)v) \
	RMW(bits, T, fetch_add, WEFT_A_ADD, __atomic_fetch_add(a, v, SEQ), (uint64_t)v) \
	RMW(bits, T, fetch_sub, WEFT_A_ADD, __atomic_fetch_sub(a, v, SEQ), -(uint64_t)v) \
	RMW(bits, T, fetch_and, WEFT_A_ANDNOT, __atomic_fetch_and(a, v, SEQ), ~(uint64_t)v) \
	RMW(bits, T, fetch_or, WEFT_A_OR, __atomic_fetch_or(a, v, SEQ), (uint64_t)v) \
	RMW(bits, T, fetch_xor, WEFT_A_XOR, __atomic_fetch_xor(a, v, SEQ), (uint64_t)v) \
	RMW(bits, T, fetch_nand, WEFT_A_NAND, __atomic_fetch_nand(a, v, SEQ), (uint64_t)v) \
	CAS(bits, T, strong, false)                                                \
	CAS(bits, T, weak, true)                                                   \
	T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo); \
	T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) \
	{                                                                          \
		(void)fmo;                                                         \
		if (!rt_shared((const void *)a, sizeof(T))) {                      \
			__atomic_compare_exchange_n(a, &c, v, false, SEQ, SEQ);    \
			return c;                                                  \
		}                                                                  \
		return (T)atomic_slow(a, sizeof(T), WEFT_A_CMPXCHG, (uint64_t)c, (uint64_t)v, mo, PC()); \
	}

/* compare_exchange_{strong,weak}: *c is the expected value, and receives
 * the value found when it differs (weak fails only then, here) */
#define CAS(bits, T, name, weak)                                                   \
	int __tsan_atomic##bits##_compare_exchange_##name(volatile T *a, T *c, T v, int mo, int fmo); \
	int __tsan_atomic##bits##_compare_exchange_##name(volatile T *a, T *c, T v, int mo, int fmo) \
	{                                                                          \
		(void)fmo;                                                         \
		if (!rt_shared((const void *)a, sizeof(T)))                        \
			return __atomic_compare_exchange_n(a, c, v, weak, SEQ, SEQ); \
		T e = *c;                                                          \
		T old = (T)atomic_slow(a, sizeof(T), WEFT_A_CMPXCHG, (uint64_t)e, (uint64_t)v, mo, PC()); \
		if (old == e)                                                      \
			return 1;                                                  \
		*c = old;                                                          \
		return 0;                                                          \
	}

#define RMW(bits, T, name, aop, native, arg)                                       \
	T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo);                \
	T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo)                 \
	{                                                                          \
		if (!rt_shared((const void *)a, sizeof(T)))                        \
			return native;                                             \
		return (T)atomic_slow(a, sizeof(T), aop, arg, 0, mo, PC());        \
	}

/* the ABI's types: char, short, int, long (compiler-rt's __tsan_atomicN) */
ATOMIC(8, char)
ATOMIC(16, short)
ATOMIC(32, int)
ATOMIC(64, long)

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
	if (!rt_active()) {
		__atomic_thread_fence(SEQ);
		return;
	}
	rt_flush();
	/* C11's fences by their order, never stronger than the hardware's:
	 * only seq_cst orders a store before a later load (x86 emits mfence
	 * for it alone: an acq_rel fence between a store and a load lets
	 * store buffering show). acquire orders loads before it with what
	 * follows, release what precedes it with stores after it; a compiled
	 * program gets no load buffering (docs/memory-model.md), so these are
	 * smp_rmb() and an A-cumulative smp_wmb() (WEFT_FENCE_RELEASE: what
	 * the thread saw precedes its later stores, as C11's happens-before
	 * with coherence requires), acq_rel both, relaxed nothing. */
	unsigned o = order(mo);
	if (o == 0)
		return;
	const struct weft_site *s = rt_site(PC(), RT_FENCE | o << 8, WEFT_EV_BARRIER, NULL);
	if (o == 5) {
		weft_barrier(s);
		return;
	}
	if (o != 3)   /* consume, acquire, acq_rel */
		weft_fence(WEFT_FENCE_RMB, s);
	if (o >= 3)   /* release, acq_rel: A-cumulative, unlike smp_wmb() */
		weft_fence(WEFT_FENCE_RELEASE, s);
}

void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
	(void)mo;
	__atomic_signal_fence(SEQ);
}

/* ------------------------------------------------------ loops that spin */

/* A thread that runs rt_spin_blocks basic blocks without a scheduling
 * point loops on its own state (`while (t != 0) {}` on a local, SV-COMP's
 * way to stop a thread): nothing another thread does can end it, and
 * without a point nothing else would ever run. From then on it is a
 * blocked thread that nothing wakes (the others go on; if they wait for
 * it, that is a deadlock report naming it), decided deterministically:
 * blocks are a function of the execution. Counted only in programs built
 * with -fsanitize-coverage=trace-pc (weft-cc, weft_instrument); the bound
 * is WEFT_SPIN_BLOCKS (default 2^30, a few seconds of a loop that does
 * nothing: a long computation on local data is not taken for one). */
uint64_t rt_spin_blocks = 1u << 30;
static uint32_t block_step;
static uint64_t blocks;

static int spin_owner(const void *chan)
{
	return (int)((const struct rt_thread *)chan - rt_th);
}

static const struct weft_wait_class spin_class = {
	.name = "an endless loop on its own state",
	.sleeps = false,
	.owner = spin_owner,
};

void weft_rt_block(void);
void weft_rt_block(void)
{
	if (!rt_lim || M.cur < 0)
		return;
	if (M.step != block_step) {
		block_step = M.step;
		blocks = 0;
		return;
	}
	if (__builtin_expect(++blocks > rt_spin_blocks, 0) && rt_machine_thread) {
		blocks = 0;
		rt_flush();
		const struct weft_site *s = rt_site((uintptr_t)__builtin_return_address(0),
						    RT_CALL | WEFT_EV_BLOCK << 4, WEFT_EV_BLOCK,
						    "an endless loop on the thread's own state");
		weft_trace(WEFT_EV_BLOCK, WEFT_NO_LOC, 0, (uint64_t)M.cur, s);
		weft_sched_step(WEFT_DEP_BLOCKED, WEFT_NO_LOC, 0, 0, s);
		for (;;)
			weft_sched_block(&rt_th[M.cur], &spin_class, s);
	}
}

/* ----------------------------------------------------------- call stacks */

/* [lo, hi) of the __VERIFIER_atomic_* functions: SV-COMP runs them
 * atomically. Known by their entry: by the -finstrument-functions hooks
 * when the program has them (an inlined copy calls them too), else by
 * __tsan_func_entry, which an inlined copy does not call (then -O0 or
 * noinline: docs/testing-c-programs.md). */
#define MAX_ATOMIC_FNS 64
static struct {
	uintptr_t lo, hi;
} atomic_fns[MAX_ATOMIC_FNS];
static unsigned nr_atomic_fns;

/* SV-COMP's error function, when the program defines one: its call is the
 * error location, whatever its body does (often nothing: "void
 * reach_error(){}" with "ERROR: reach_error();" at the call). */
static uintptr_t reach_error_lo, reach_error_hi;

static bool is_atomic_fn(uintptr_t fn)
{
	for (unsigned i = 0; i < nr_atomic_fns; i++)
		if (fn == atomic_fns[i].lo)
			return true;
	return false;
}

static void reach_error_hit(uintptr_t site_pc)
{
	rt_flush();
	rt_x.in_reach_error = true;
	weft_report(WEFT_KIND_REACH_ERROR, NULL,
		    RT_CALL_SITE(site_pc, WEFT_EV_NOTE, "reach_error"), "reach_error() was called");
}

/* -finstrument-functions (tools/svcomp compiles SV-COMP tasks with it):
 * every function's entry, including those the compiler's TSan pass leaves
 * alone (clang skips functions with no access and no call, such as an
 * empty reach_error). */
void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_enter(void *fn, void *call_site)
{
	if (__builtin_expect(reach_error_lo != 0, 0) && (uintptr_t)fn == reach_error_lo &&
	    rt_active())
		reach_error_hit((uintptr_t)call_site);
	if (__builtin_expect(nr_atomic_fns != 0, 0) && is_atomic_fn((uintptr_t)fn) && rt_active())
		rt_atomic_enter((uintptr_t)call_site, "__VERIFIER_atomic_* function");
}

void __cyg_profile_func_exit(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)call_site;
	if (__builtin_expect(nr_atomic_fns != 0, 0) && is_atomic_fn((uintptr_t)fn) &&
	    rt_active() && rt_th[M.cur].atomic_depth)
		rt_th[M.cur].atomic_depth--;
}

static void atomic_fns_init(void)
{
	for (size_t i = 0; i < rt_img.nr_syms && nr_atomic_fns < MAX_ATOMIC_FNS; i++) {
		const struct rt_sym *s = &rt_img.syms[i];
		if (s->func && !strcmp(s->name, "reach_error")) {
			reach_error_lo = s->addr;
			reach_error_hi = s->addr + (s->size ? s->size : 1);
		}
		if (s->func && s->size && !strncmp(s->name, "__VERIFIER_atomic_", 18) &&
		    strcmp(s->name, "__VERIFIER_atomic_begin") && strcmp(s->name, "__VERIFIER_atomic_end")) {
			atomic_fns[nr_atomic_fns].lo = s->addr;
			atomic_fns[nr_atomic_fns].hi = s->addr + s->size;
			nr_atomic_fns++;
		}
	}
}

/* frames of a thread that entered an atomic function: bit d of
 * atomic_frames = frame d began an atomic section */
static uint64_t atomic_frames[WEFT_EXEC_MAX_THREADS];

void __tsan_func_entry(void *call_pc);
void __tsan_func_entry(void *call_pc)
{
	if (!rt_active())
		return;
	struct rt_thread *t = &rt_th[M.cur];
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	if (sp < rt_low_sp[M.cur] || !rt_low_sp[M.cur])
		rt_low_sp[M.cur] = sp;
	if (__builtin_expect(PC() - reach_error_lo < reach_error_hi - reach_error_lo, 0) &&
	    !rt_x.in_reach_error) {
		/* report once per call (the -finstrument-functions hook may
		 * see it first) */
		rt_x.in_reach_error = true;
		reach_error_hit((uintptr_t)call_pc);
	}
	if (t->depth < RT_STACK_DEPTH)
		t->stack[t->depth] = (uintptr_t)call_pc;
	if (__builtin_expect(nr_atomic_fns != 0, 0) && t->depth < 64 && !rt_img.cyg_hooks) {
		uintptr_t self = PC();
		for (unsigned i = 0; i < nr_atomic_fns; i++)
			if (self - atomic_fns[i].lo < atomic_fns[i].hi - atomic_fns[i].lo) {
				atomic_frames[M.cur] |= 1ull << t->depth;
				rt_atomic_enter((uintptr_t)call_pc, "__VERIFIER_atomic_* function");
				break;
			}
	}
	t->depth++;
}

void __tsan_func_exit(void);
void __tsan_func_exit(void)
{
	if (!rt_active())
		return;
	struct rt_thread *t = &rt_th[M.cur];
	if (!t->depth)
		return;
	t->depth--;
	if (__builtin_expect(t->depth < 64 && (atomic_frames[M.cur] >> t->depth & 1), 0)) {
		atomic_frames[M.cur] &= ~(1ull << t->depth);
		if (t->atomic_depth)
			t->atomic_depth--;
	}
}

/* A report's call stack (weft_report_stack_source): the callers of the
 * failing thread's current function, innermost first, from the call sites
 * __tsan_func_entry recorded. */
static void report_stack(int tid, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = 0;
	if (!rt_lim || tid < 0 || tid >= WEFT_EXEC_MAX_THREADS)
		return;
	const struct rt_thread *t = &rt_th[tid];
	unsigned d = t->depth < RT_STACK_DEPTH ? t->depth : RT_STACK_DEPTH;
	for (unsigned i = d; i-- > 0 && k + 8 < n;) {
		if (!rt_from_program((const void *)t->stack[i]))
			break;   /* called by the runtime: a thread's start */
		const struct rt_sym *sym = rt_sym_at(t->stack[i] - 1);
		const char *file;
		unsigned line;
		bool have = rt_line_at(t->stack[i] - 1, &file, &line);
		const char *base = have ? strrchr(file, '/') : NULL;
		int w = snprintf(buf + k, n - k, "%s%s()", k ? " <- " : "",
				 sym && sym->func ? sym->name : "?");
		if (w > 0)
			k += (size_t)w;
		if (have && k < n) {
			w = snprintf(buf + k, n - k, " at %s:%u", base ? base + 1 : file, line);
			if (w > 0)
				k += (size_t)w;
		}
		if (k >= n) {
			buf[n - 1] = 0;
			break;
		}
	}
}

/* An atomic section (SV-COMP: __VERIFIER_atomic_begin/_end and the
 * __VERIFIER_atomic_* functions) is one transition: its scheduling point is
 * taken where it begins (another thread may run just before it), none
 * inside (in_section()). */
void rt_atomic_enter(uintptr_t pc, const char *what)
{
	struct rt_thread *t = &rt_th[M.cur];

	rt_flush();
	if (t->atomic_depth++)
		return;
	const struct weft_site *s = RT_CALL_SITE(pc, WEFT_EV_NOTE, what);
	t->atomic_depth = 0;
	sched_point(s);
	t->atomic_depth = 1;
	weft_trace(WEFT_EV_NOTE, WEFT_NO_LOC, 0, 0, s);
	weft_sched_step(WEFT_DEP_NONE, WEFT_NO_LOC, 0, 0, s);
}

void rt_tsan_thread_reset(unsigned tid);
void rt_tsan_thread_reset(unsigned tid)
{
	atomic_frames[tid] = 0;
}

/* Called by every instrumented translation unit's constructor. */
/* Every instrumented module's constructor calls __tsan_init(). One that is
 * not the executable (an instrumented shared library) has globals outside
 * the world: they keep their values from one execution to the next (a
 * false report, a replay that diverges) and their accesses are no
 * scheduling points (races missed). rt_foreign_modules() names it, and
 * weft refuses the program (rt_main.c). */
static char foreign_name[256];
static unsigned nr_foreign;

void __tsan_init(void);
void __tsan_init(void)
{
	Dl_info di;
	struct link_map *lm = NULL;

	if (!dladdr1((void *)PC(), &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_name ||
	    !lm->l_name[0])
		return;   /* the executable (its link map has no name) */
	if (!nr_foreign++)
		snprintf(foreign_name, sizeof(foreign_name), "%s", lm->l_name);
}

unsigned rt_foreign_modules(const char **first)
{
	*first = foreign_name;
	return nr_foreign;
}

void rt_tsan_init(void);
void rt_tsan_init(void)
{
	modules_init();
	atomic_fns_init();
	weft_report_stack_source(report_stack);
}
