/*
 * fiber.h - stackful fibers for the controlled machine (internal).
 *
 * Stacks come from mmap with a PROT_NONE guard page below them, are created
 * once and reused across executions (gcc's TSan makes fiber creation cost
 * ~2 ms). The switch is hand-written assembly on x86-64 and aarch64
 * (callee-saved registers and the stack pointer only: models do not change
 * the floating-point environment); ucontext is the fallback elsewhere.
 * Switches are annotated for ASan and TSan.
 */
#ifndef WEFT_FIBER_H
#define WEFT_FIBER_H

#include <stddef.h>
#include <stdbool.h>

struct weft_fiber {
	void *sp;              /* saved stack pointer (asm) */
	void *stack_lo;        /* lowest usable byte, just above the guard page */
	size_t stack_size;     /* usable bytes */
	void *map;             /* mmap base (the guard page) */
	size_t map_size;
	void *asan_fake;       /* ASan fake-stack save slot */
	void *tsan;            /* TSan fiber handle */
	void *uctx;            /* ucontext fallback only */
};

#define WEFT_FIBER_STACK (256u * 1024u)

/* Fibers created after this take their stacks (and guard pages) from
 * [base, base + size), a mapping of the caller's, in order, instead of
 * mmap: an instrumented program's stacks inside its world (rt/). */
void weft_fiber_stack_region(void *base, size_t size);
/* Allocate the stack (and the TSan fiber). Returns 0 or WEFT_ENOMEM. */
int weft_fiber_create(struct weft_fiber *f, size_t stack_size);
/* Make the fiber start at fn(arg) on its next switch-in. */
void weft_fiber_reset(struct weft_fiber *f, void (*fn)(void *), void *arg);
/* The fiber was abandoned mid-run: forget sanitizer state of its frames. */
void weft_fiber_scrub(struct weft_fiber *f);
/* Initialise the descriptor of the host thread's own context. */
void weft_fiber_init_main(struct weft_fiber *m);
/* Switch from `from` (current) to `to`. `leaving` says `from` will never be
 * resumed where it stands (it ended or was abandoned). */
void weft_fiber_switch(struct weft_fiber *from, struct weft_fiber *to, bool leaving);
/* First call on a fresh fiber (completes the sanitizer handshake). */
void weft_fiber_started(struct weft_fiber *self, struct weft_fiber *from);
/* Does addr fall in some guard page? Set up by weft_fiber_create. */
bool weft_fiber_guard_hit(const void *addr, int *which);

/* ThreadSanitizer annotations (fiber.c). Without WEFT_TSAN they are empty
 * and inline: every lock and unlock called an empty function. */
#ifdef WEFT_TSAN
void weft_tsan_acquire(const void *addr);
void weft_tsan_release(const void *addr);
void weft_tsan_host_ignore(bool on);
#else
static inline void weft_tsan_acquire(const void *addr)
{
	(void)addr;
}

static inline void weft_tsan_release(const void *addr)
{
	(void)addr;
}

static inline void weft_tsan_host_ignore(bool on)
{
	(void)on;
}
#endif

#endif
