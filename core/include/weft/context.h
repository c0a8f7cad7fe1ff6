/*
 * context.h - what a fake CPU is doing: preemption, interrupt and
 * bottom-half masking, interrupt handlers, per-CPU operations, and the
 * checks the kernel's CONFIG_DEBUG_PREEMPT and CONFIG_DEBUG_ATOMIC_SLEEP
 * make. Included by kernel.h.
 *
 * The model (include/linux/preempt.h, irqflags.h, bottom_half.h):
 *  - Several threads may be bound to one CPU. They interleave wherever
 *    they are preemptible. A thread with preemption disabled (a spinlock
 *    held, preempt_disable(), get_cpu(), local_lock()), interrupts masked
 *    or bottom halves disabled holds its CPU: no other thread bound to
 *    that CPU runs until it leaves that state, even while it spins on a
 *    lock.
 *  - A scenario declares interrupt handlers (struct weft_irq: hard IRQ or
 *    softirq, the CPUs it may hit). A raised interrupt is delivered at a
 *    strategy-chosen scheduling point, like a preemption (counted and
 *    minimized like one), on a CPU whose current context has interrupts
 *    (for a softirq: interrupts and bottom halves) enabled; it runs to
 *    completion there, with interrupts masked (a hard IRQ), while the
 *    other CPUs go on. If its CPU's interrupted thread holds a lock the
 *    handler needs, that is the classic IRQ-unsafe-lock deadlock.
 *  - in_interrupt(), in_hardirq(), in_softirq(), in_task(), in_atomic(),
 *    irqs_disabled() and preemptible() tell the truth.
 *  - Threads are bound to their CPU (like per-CPU kthreads) unless the
 *    scenario marks them migratable (struct weft_scenario.migratable):
 *    then smp_processor_id() and __this_cpu_*() in preemptible code are
 *    `preemptible-percpu` reports, as CONFIG_DEBUG_PREEMPT gives them. A
 *    migratable thread may move (a model choice) when it runs again after
 *    a preemption, and at a preemption point where it goes on while its
 *    CPU holds another live thread or a pending interrupt that cannot hit
 *    every CPU (a timer's softirq): alone on its CPU a callback could only
 *    interrupt it, moved it runs beside it.
 *  - might_sleep() (every sleeping primitive calls it) in atomic context
 *    is a `sleep-in-atomic` report.
 * None of this changes an execution that uses none of it: a scenario with
 * one thread per CPU and no interrupts decides and traces exactly as
 * before (the event flags WEFT_EVF_IRQOFF... are not hashed).
 */
#ifndef WEFT_CONTEXT_H
#define WEFT_CONTEXT_H

#include <weft/weft.h>

#ifdef __cplusplus
extern "C" {
#endif

enum weft_irq_kind {
	WEFT_HARDIRQ = 0,
	WEFT_SOFTIRQ = 1,
};

struct weft_irq {
	const char *name;          /* "end_page_writeback" */
	unsigned kind;             /* enum weft_irq_kind */
	uint32_t cpus;             /* CPUs it may hit (bit c = CPU c; 0: any of
				      the first 32: interrupts hit CPUs 0..31) */
	/* Runs to completion on the CPU it hit; irq is its index in the
	 * scenario's irqs[]. May not sleep. */
	void (*handler)(void *world, unsigned irq);
	bool raised;               /* pending from the start; else raised by
				      weft_irq_raise() from model code */
};

#ifndef WEFT_NATIVE
void weft_preempt_disable(const struct weft_site *s);
void weft_preempt_enable(const struct weft_site *s);
void weft_local_irq_disable(const struct weft_site *s);
void weft_local_irq_enable(const struct weft_site *s);
unsigned long weft_local_irq_save(const struct weft_site *s);
void weft_local_irq_restore(unsigned long flags, const struct weft_site *s);
void weft_local_bh_disable(const struct weft_site *s);
void weft_local_bh_enable(const struct weft_site *s);
/* 1 + the context's depth bits, for in_*(): see the macros below. */
bool weft_in_hardirq(void);
bool weft_in_softirq(void);       /* serving a softirq, or BH disabled */
bool weft_in_serving_softirq(void);
bool weft_in_atomic(void);        /* preemption off, irqs off, BH off, or a handler */
bool weft_irqs_disabled(void);
unsigned weft_preempt_count(void);
/* smp_processor_id() without the CONFIG_DEBUG_PREEMPT check */
unsigned weft_raw_smp_processor_id(void);
/* The CONFIG_DEBUG_PREEMPT check of __this_cpu_*() (a report if the
 * current thread is migratable and preemptible). */
void weft_check_percpu(const struct weft_site *s);
/* might_sleep(): a report in atomic context or an RCU read-side section. */
void weft_might_sleep(const struct weft_site *s);
/* lockdep_assert_preemption_disabled() of a model thread: a `warn-on`
 * where preemption and interrupts are on (s->what names the caller). */
void weft_assert_preemption_disabled(const struct weft_site *s);
/* Raise interrupt irq (its index in the scenario's irqs[]): it becomes
 * pending and is delivered at a later scheduling point. A scheduling point
 * itself. Raising a pending interrupt does nothing (they coalesce); raising
 * a running one delivers it once more after it returns. */
void weft_irq_raise(unsigned irq, const struct weft_site *s);

#define WEFT_CTX_SITE(what) WEFT_SITE(WEFT_EV_CTX, what)
#define preempt_disable() weft_preempt_disable(WEFT_CTX_SITE("preempt_disable()"))
#define preempt_enable() weft_preempt_enable(WEFT_CTX_SITE("preempt_enable()"))
#define preempt_enable_no_resched() weft_preempt_enable(WEFT_CTX_SITE("preempt_enable_no_resched()"))
#define local_irq_disable() weft_local_irq_disable(WEFT_CTX_SITE("local_irq_disable()"))
#define local_irq_enable() weft_local_irq_enable(WEFT_CTX_SITE("local_irq_enable()"))
#define local_irq_save(flags) ((flags) = weft_local_irq_save(WEFT_CTX_SITE("local_irq_save(" #flags ")")))
#define local_irq_restore(flags) weft_local_irq_restore((flags), WEFT_CTX_SITE("local_irq_restore(" #flags ")"))
#define local_bh_disable() weft_local_bh_disable(WEFT_CTX_SITE("local_bh_disable()"))
#define local_bh_enable() weft_local_bh_enable(WEFT_CTX_SITE("local_bh_enable()"))
#define might_sleep() weft_might_sleep(WEFT_SITE(WEFT_EV_NOTE, "might_sleep()"))
#define WEFT_IRQ_RAISE(irq) weft_irq_raise((irq), WEFT_SITE(WEFT_EV_CTX, "raise_irq(" #irq ")"))
#else
/* Native: the stress test runs real threads; contexts are not modelled
 * (masking interrupts of a user thread means nothing), so these only keep
 * the model compiling and the counters a model may read. */
static inline void weft_native_ctx_nop(void) {}
#define preempt_disable() weft_native_ctx_nop()
#define preempt_enable() weft_native_ctx_nop()
#define preempt_enable_no_resched() weft_native_ctx_nop()
#define local_irq_disable() weft_native_ctx_nop()
#define local_irq_enable() weft_native_ctx_nop()
#define local_irq_save(flags) ((flags) = 0)
#define local_irq_restore(flags) ((void)(flags))
#define local_bh_disable() weft_native_ctx_nop()
#define local_bh_enable() weft_native_ctx_nop()
#define might_sleep() weft_native_ctx_nop()
static inline bool weft_in_hardirq(void) { return false; }
static inline bool weft_in_softirq(void) { return false; }
static inline bool weft_in_serving_softirq(void) { return false; }
static inline bool weft_in_atomic(void) { return false; }
static inline bool weft_irqs_disabled(void) { return false; }
static inline unsigned weft_preempt_count(void) { return 0; }
static inline unsigned weft_raw_smp_processor_id(void) { return weft_native_cpu; }
static inline void weft_check_percpu(const struct weft_site *s) { (void)s; }
static inline void weft_assert_preemption_disabled(const struct weft_site *s) { (void)s; }
/* Native interrupts: a raised handler runs at once in the raiser's thread
 * (weft stress does not model asynchronous delivery). */
void weft_irq_raise(unsigned irq, const struct weft_site *s);
#define WEFT_IRQ_RAISE(irq) weft_irq_raise((irq), NULL)
#endif

#define in_hardirq() weft_in_hardirq()
#define in_irq() weft_in_hardirq()
#define in_softirq() weft_in_softirq()
#define in_serving_softirq() weft_in_serving_softirq()
#define in_interrupt() (weft_in_hardirq() || weft_in_softirq())
#define in_task() (!weft_in_hardirq() && !weft_in_serving_softirq())
#define in_atomic() weft_in_atomic()
#define irqs_disabled() weft_irqs_disabled()
#define preempt_count() weft_preempt_count()
#define preemptible() (!weft_in_atomic())
#define raw_smp_processor_id() weft_raw_smp_processor_id()

#define get_cpu() (preempt_disable(), raw_smp_processor_id())
#define put_cpu() preempt_enable()

/* local_lock_t (include/linux/local_lock.h, !PREEMPT_RT): a per-CPU lock
 * that is preempt_disable() (and irq masking for the _irq forms). */
typedef struct { uint8_t unused; } local_lock_t;
#define INIT_LOCAL_LOCK(name) { 0 }
#define local_lock(l) ((void)(l), preempt_disable())
#define local_unlock(l) ((void)(l), preempt_enable())
#define local_lock_irq(l) ((void)(l), local_irq_disable())
#define local_unlock_irq(l) ((void)(l), local_irq_enable())
#define local_lock_irqsave(l, flags) ((void)(l), local_irq_save(flags))
#define local_unlock_irqrestore(l, flags) ((void)(l), local_irq_restore(flags))

/*
 * Per-CPU operations on a WEFT_PER_CPU(type, name) array
 * (include/linux/percpu-defs.h): this_cpu_*() are one read-modify-write on
 * this CPU's slot, safe against preemption and interrupts (one primitive,
 * so nothing can come between the read and the write); __this_cpu_*() are
 * a separate load and store (two scheduling points: an interrupt or a
 * thread on the same CPU can come between them) and must be called with
 * preemption disabled.
 */
/* This CPU's slot of the per-CPU array pcp (one past its end is reported:
 * weft_percpu_slot(); a pointer rather than an array is not checked). */
unsigned weft_percpu_slot(unsigned cpu, size_t n);
#define WEFT_PCPU_N(pcp)                                                        \
	(__builtin_types_compatible_p(__typeof__(pcp), __typeof__(&(pcp)[0]))   \
		 ? (size_t)-1 : sizeof(pcp) / sizeof((pcp)[0]))
#define WEFT_PCPU_THIS(pcp) weft_percpu_slot(raw_smp_processor_id(), WEFT_PCPU_N(pcp))
#define this_cpu_read(pcp) READ_ONCE((pcp)[WEFT_PCPU_THIS(pcp)])
#define this_cpu_write(pcp, v) WRITE_ONCE((pcp)[WEFT_PCPU_THIS(pcp)], (v))
#define this_cpu_add(pcp, v)                                                    \
	((void)WEFT_ACCESS(&(pcp)[WEFT_PCPU_THIS(pcp)], WEFT_A_ADD, (v), 0,   \
			   WEFT_EV_RMW, "this_cpu_add(" #pcp ")"))
#define this_cpu_sub(pcp, v) this_cpu_add(pcp, -(v))
#define this_cpu_inc(pcp) this_cpu_add(pcp, 1)
#define this_cpu_dec(pcp) this_cpu_add(pcp, -1)
#define this_cpu_xchg(pcp, n)                                                   \
	((__typeof__((pcp)[0]))WEFT_ACCESS(&(pcp)[WEFT_PCPU_THIS(pcp)], WEFT_A_XCHG, \
					   (n), 0, WEFT_EV_RMW, "this_cpu_xchg(" #pcp ")"))
#define this_cpu_cmpxchg(pcp, o, n)                                             \
	((__typeof__((pcp)[0]))WEFT_ACCESS(&(pcp)[WEFT_PCPU_THIS(pcp)], WEFT_A_CMPXCHG, \
					   (o), (n), WEFT_EV_RMW, "this_cpu_cmpxchg(" #pcp ")"))
#define WEFT_PERCPU_SITE(what) WEFT_SITE(WEFT_EV_NOTE, what)
#define __this_cpu_read(pcp)                                                    \
	(weft_check_percpu(WEFT_PERCPU_SITE("__this_cpu_read(" #pcp ")")),      \
	 READ_ONCE((pcp)[WEFT_PCPU_THIS(pcp)]))
#define __this_cpu_write(pcp, v)                                                \
	(weft_check_percpu(WEFT_PERCPU_SITE("__this_cpu_write(" #pcp ")")),     \
	 WRITE_ONCE((pcp)[WEFT_PCPU_THIS(pcp)], (v)))
#define __this_cpu_add(pcp, v)                                                  \
	do {                                                                    \
		weft_check_percpu(WEFT_PERCPU_SITE("__this_cpu_add(" #pcp ")")); \
		__typeof__((pcp)[0]) *__weft_p = &(pcp)[WEFT_PCPU_THIS(pcp)]; \
		WRITE_ONCE(*__weft_p, READ_ONCE(*__weft_p) + (v));              \
	} while (0)
#define __this_cpu_sub(pcp, v) __this_cpu_add(pcp, -(v))
#define __this_cpu_inc(pcp) __this_cpu_add(pcp, 1)
#define __this_cpu_dec(pcp) __this_cpu_add(pcp, -1)

#ifdef __cplusplus
}
#endif
#endif
