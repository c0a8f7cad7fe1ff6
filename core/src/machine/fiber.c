/*
 * fiber.c - fiber stacks, the portable fallback switch and the sanitizer
 * handshakes (see fiber.h).
 *
 * ASan: __sanitizer_start_switch_fiber() before every switch with the
 * target's stack bounds, __sanitizer_finish_switch_fiber() right after it
 * in the resumed context (compiler-rt's common_interface_defs.h). A fiber
 * that is left for good passes NULL so its fake stack is released.
 * TSan: core/ is never compiled with -fsanitize=thread (its bookkeeping is
 * shared by all fibers on purpose); WEFT_TSAN makes it tell the runtime
 * about fibers: __tsan_create_fiber() once per fiber,
 * __tsan_switch_to_fiber(f, no_sync) so TSan sees each fake CPU as a
 * separate thread and reports unsynchronized model accesses between them.
 */
#include "fiber.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <weft/weft.h>

#if defined(__SANITIZE_ADDRESS__)
#define WEFT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_ASAN 1
#endif
#endif

#ifdef WEFT_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
				     size_t *size_old);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#endif

#ifdef WEFT_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#define WEFT_TSAN_NO_SYNC 1u /* __tsan_switch_to_fiber_no_sync */
#endif

#if defined(__x86_64__) || defined(__aarch64__)
#define WEFT_ASM_SWITCH 1
void weft_ctx_switch(void **save_sp, void *new_sp);
void weft_ctx_entry(void);
#else
#include <ucontext.h>
#endif

/* Guard pages, for the SIGSEGV handler's diagnosis. */
#define WEFT_MAX_GUARDS (WEFT_EXEC_MAX_THREADS + 8)
static struct {
	uintptr_t lo, hi;
} guards[WEFT_MAX_GUARDS];
static int nr_guards;

bool weft_fiber_guard_hit(const void *addr, int *which)
{
	uintptr_t a = (uintptr_t)addr;

	for (int i = 0; i < nr_guards; i++)
		if (a >= guards[i].lo && a < guards[i].hi) {
			if (which)
				*which = i;
			return true;
		}
	return false;
}

static char *region_next, *region_end;

void weft_fiber_stack_region(void *base, size_t size)
{
	region_next = base;
	region_end = (char *)base + size;
}

int weft_fiber_create(struct weft_fiber *f, size_t stack_size)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	size_t size = (stack_size + page - 1) / page * page;

	memset(f, 0, sizeof(*f));
	f->map_size = size + page;
	if (region_next) {
		if ((size_t)(region_end - region_next) < f->map_size)
			return WEFT_ENOMEM;
		f->map = region_next;
		region_next += f->map_size;
	} else {
		f->map = mmap(NULL, f->map_size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		return WEFT_ENOMEM;
	}
	if (mprotect(f->map, page, PROT_NONE) != 0) {
		if (!region_next)
			munmap(f->map, f->map_size);
		f->map = NULL;
		return WEFT_ENOMEM;
	}
	f->stack_lo = (char *)f->map + page;
	f->stack_size = size;
	if (nr_guards < WEFT_MAX_GUARDS) {
		guards[nr_guards].lo = (uintptr_t)f->map;
		guards[nr_guards].hi = (uintptr_t)f->map + page;
		nr_guards++;
	}
#ifdef WEFT_TSAN
	f->tsan = __tsan_create_fiber(0);
#endif
#ifndef WEFT_ASM_SWITCH
	f->uctx = calloc(1, sizeof(ucontext_t));
	if (!f->uctx)
		return WEFT_ENOMEM;
#endif
	return 0;
}

void weft_fiber_init_main(struct weft_fiber *m)
{
	memset(m, 0, sizeof(*m));
#ifdef WEFT_TSAN
	m->tsan = __tsan_get_current_fiber();
#endif
#ifndef WEFT_ASM_SWITCH
	m->uctx = calloc(1, sizeof(ucontext_t));
#endif
}

#ifndef WEFT_ASM_SWITCH
static void uctx_trampoline(unsigned hi, unsigned lo, unsigned ahi, unsigned alo)
{
	void (*fn)(void *) = (void (*)(void *))(((uintptr_t)hi << 32) | lo);
	void *arg = (void *)(((uintptr_t)ahi << 32) | alo);

	fn(arg);
	abort();
}
#endif

void weft_fiber_reset(struct weft_fiber *f, void (*fn)(void *), void *arg)
{
#ifdef WEFT_ASAN
	/* A fiber that ended never returned from its frames (thread_main
	 * switches away for good): their redzones and scope poison are still
	 * in the shadow, and the next fiber on this stack would trip on them. */
	__asan_unpoison_memory_region(f->stack_lo, f->stack_size);
#endif
#ifdef WEFT_ASM_SWITCH
	uintptr_t top = ((uintptr_t)f->stack_lo + f->stack_size) & ~(uintptr_t)15;
#if defined(__x86_64__)
	/* [r15 r14 r13 r12 rbx rbp ret] with ret at top - 8 so that rsp is
	 * 16-byte aligned when weft_ctx_entry executes its call. */
	uintptr_t *sp = (uintptr_t *)(top - 8) - 6;
	sp[0] = 0;                     /* r15 */
	sp[1] = 0;                     /* r14 */
	sp[2] = 0;                     /* r13 */
	sp[3] = (uintptr_t)arg;        /* r12 */
	sp[4] = (uintptr_t)fn;         /* rbx */
	sp[5] = 0;                     /* rbp */
	sp[6] = (uintptr_t)weft_ctx_entry;
	f->sp = sp;
#else
	uintptr_t *sp = (uintptr_t *)(top - 176);
	memset(sp, 0, 176);
	sp[0] = (uintptr_t)arg;        /* x19 */
	sp[1] = (uintptr_t)fn;         /* x20 */
	sp[11] = (uintptr_t)weft_ctx_entry; /* x30 */
	f->sp = sp;
#endif
#else
	ucontext_t *uc = f->uctx;
	getcontext(uc);
	uc->uc_stack.ss_sp = f->stack_lo;
	uc->uc_stack.ss_size = f->stack_size;
	uc->uc_link = NULL;
	makecontext(uc, (void (*)(void))uctx_trampoline, 4, (unsigned)((uintptr_t)fn >> 32),
		    (unsigned)(uintptr_t)fn, (unsigned)((uintptr_t)arg >> 32),
		    (unsigned)(uintptr_t)arg);
#endif
}

void weft_fiber_scrub(struct weft_fiber *f)
{
#ifdef WEFT_ASAN
	__asan_unpoison_memory_region(f->stack_lo, f->stack_size);
#endif
#ifdef WEFT_TSAN
	/* Its TSan shadow stack still holds the abandoned frames. */
	__tsan_destroy_fiber(f->tsan);
	f->tsan = __tsan_create_fiber(0);
#endif
	(void)f;
}

void weft_fiber_switch(struct weft_fiber *from, struct weft_fiber *to, bool leaving)
{
#ifdef WEFT_ASAN
	__sanitizer_start_switch_fiber(leaving ? NULL : &from->asan_fake, to->stack_lo,
				       to->stack_size);
#endif
#ifdef WEFT_TSAN
	__tsan_switch_to_fiber(to->tsan, WEFT_TSAN_NO_SYNC);
#endif
	(void)leaving;
#ifdef WEFT_ASM_SWITCH
	weft_ctx_switch(&from->sp, to->sp);
#else
	swapcontext(from->uctx, to->uctx);
#endif
#ifdef WEFT_ASAN
	{
		const void *b;
		size_t s;
		__sanitizer_finish_switch_fiber(from->asan_fake, &b, &s);
	}
#endif
}

void weft_fiber_started(struct weft_fiber *self, struct weft_fiber *from)
{
#ifdef WEFT_ASAN
	const void *b = NULL;
	size_t s = 0;
	__sanitizer_finish_switch_fiber(NULL, &b, &s);
	/* The first fiber ever started learns the host stack's bounds. */
	if (from && !from->stack_lo && b) {
		from->stack_lo = (void *)b;
		from->stack_size = s;
	}
#endif
	(void)self;
	(void)from;
}

/*
 * TSan's view of the model: marked accesses (atomics, *_ONCE, bit ops,
 * list pointers) are sequentially consistent, so each is an acquire (read)
 * and/or a release (write) on its address; spinlocks acquire on lock and
 * release on unlock; plain accesses (PLAIN_READ/PLAIN_WRITE, plain fields)
 * are left to TSan. The host context's accesses (world reset, setup,
 * audits) happen before/after every thread by construction: ignored.
 */
#ifdef WEFT_TSAN
void weft_tsan_acquire(const void *addr)
{
	__tsan_acquire((void *)addr);
}

void weft_tsan_release(const void *addr)
{
	__tsan_release((void *)addr);
}

void weft_tsan_host_ignore(bool on)
{
	if (on)
		__tsan_ignore_thread_begin();
	else
		__tsan_ignore_thread_end();
}
#endif
