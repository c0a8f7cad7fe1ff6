/*
 * demo_ctx.c - demos of the CPU contexts (<weft/context.h>): an interrupt
 * handler that takes a lock its CPU's interrupted thread holds, per-CPU
 * counters updated non-atomically in preemptible code or under an
 * interrupt, and a thread that sleeps while atomic.
 *
 * demo-irq-lock (1 CPU, T0 + a hard interrupt on CPU0):
 *   T0 takes `lock` with spin_lock() and updates `count`; the handler takes
 *   the same lock. Delivered while T0 holds it, the handler spins on a lock
 *   its own CPU's interrupted thread holds: the CPU deadlocks (one
 *   delivery, counted like a preemption). lockdep-lite reports the class's
 *   inconsistent usage (taken in hard-IRQ context and with interrupts on)
 *   from the serial execution, before any deadlock. spin_lock_irqsave()
 *   masks the interrupt for the critical section (the fix, as in every
 *   driver).
 *
 * demo-percpu (1 CPU, T0 and T1 both on CPU0): each adds 1 to this CPU's
 *   slot of a per-CPU counter; the audit wants 2.
 *   - bound-racy: __this_cpu_inc() (a load and a store) in preemptible code
 *     by two threads bound to one CPU: T1 preempts T0 between its load and
 *     store: a lost update (1 preemption). Bound threads pass the
 *     CONFIG_DEBUG_PREEMPT check, as per-CPU kthreads do in the kernel.
 *   - this-cpu: this_cpu_inc(), one read-modify-write (silent).
 *   - preempt-off: __this_cpu_inc() between preempt_disable() and
 *     preempt_enable(): T1 cannot run on CPU0 in between (silent).
 *
 * demo-percpu-task (1 CPU, T0 migratable): preemptible — __this_cpu_inc()
 *   in preemptible code of a task that may migrate: the CONFIG_DEBUG_PREEMPT
 *   check reports at the first call (no schedule needed); preempt-off is
 *   the fix.
 *
 * demo-percpu-irq (1 CPU, T0 + a hard interrupt on CPU0): T0 and the
 *   handler each add 1 to a per-CPU statistic.
 *   - irq-racy: T0 uses __this_cpu_inc() with preemption disabled but
 *     interrupts on: the interrupt lands between its load and store: a lost
 *     update (1 delivery).
 *   - this-cpu: this_cpu_inc() is safe against interrupts (silent).
 *
 * demo-sleep-atomic (1 CPU, T0): T0 calls a function that may sleep
 *   (might_sleep()) while holding a spinlock: a sleep-in-atomic report on
 *   the first execution (CONFIG_DEBUG_ATOMIC_SLEEP needs no bad luck); the
 *   fix sleeps after the unlock.
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

static const char *const ctx_ops[] = { "nop" };
static const char *const ctx_files[] = { "demo_ctx.c", NULL };

/* What every scenario of this file shares: one CPU, each thread running
 * its one "nop" op once, and a small decision budget. */
#define CTX_DEMO(name, summary, source, threads, world_bytes, setup, thread, variants)         \
	WEFT_SCENARIO_PLAIN(name, summary, source, 1, threads, world_bytes, 1, ctx_ops, 1, 64, \
			    ctx_files, setup, thread, variants)

/* The setup of a world that starts with `unsigned variant` and needs
 * nothing else set (demo-irq-lock, demo-sleep-atomic). */
static void ctx_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	*(unsigned *)w = variant;
	(void)wl;
}

/* ------------------------------------------------------- demo-irq-lock */

struct irqlock_world {
	unsigned variant;
	spinlock_t lock;
	int count;
};

enum { IRQLOCK_UNSAFE, IRQLOCK_SAFE };

static void irqlock_thread(void *w, unsigned tid)
{
	struct irqlock_world *W = w;
	unsigned long flags;

	(void)tid;
	if (W->variant == IRQLOCK_UNSAFE) {
		spin_lock(&W->lock);
		WRITE_ONCE(W->count, READ_ONCE(W->count) + 1);
		spin_unlock(&W->lock);
	} else {
		spin_lock_irqsave(&W->lock, flags);
		WRITE_ONCE(W->count, READ_ONCE(W->count) + 1);
		spin_unlock_irqrestore(&W->lock, flags);
	}
}

static void irqlock_handler(void *w, unsigned irq)
{
	struct irqlock_world *W = w;

	(void)irq;
	spin_lock(&W->lock);
	WRITE_ONCE(W->count, READ_ONCE(W->count) + 1);
	spin_unlock(&W->lock);
}

static void irqlock_quiesce(void *w)
{
	struct irqlock_world *W = w;

	if (weft_peek(W->count) != 2)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->count,
			    WEFT_SITE(WEFT_EV_NOTE, "count == 2"), "count is %d, not 2",
			    weft_peek(W->count));
}

static const struct weft_field irqlock_fields[] = {
	WEFT_FIELD(struct irqlock_world, lock, "lock"),
	WEFT_FIELD(struct irqlock_world, count, "count"),
	{ 0, NULL },
};

static const struct weft_irq irqlock_irqs[] = {
	{ "dev_irq", WEFT_HARDIRQ, 1u << 0, irqlock_handler, true },
};

static const struct weft_variant irqlock_variants[] = {
	{ "irq-unsafe", NULL, true, "T0 takes with spin_lock() a lock its CPU's interrupt handler takes",
	  "textbook IRQ-unsafe lock (Documentation/locking/spinlocks.rst); lockdep reports the "
	  "inconsistent usage at bound 0, the deadlock itself needs 1 delivery (--no-lockdep)",
	  WEFT_KIND_IRQ_LOCK_INVERSION, 0, IRQLOCK_UNSAFE },
	{ "irqsave", NULL, false, "T0 masks the interrupt with spin_lock_irqsave()", "textbook fix",
	  WEFT_KIND_NONE, 0, IRQLOCK_SAFE },
};

const struct weft_scenario weft_scn_demo_irq_lock = {
	CTX_DEMO("demo-irq-lock",
		 "demo: an interrupt handler takes a lock its CPU's thread holds (1 CPU)",
		 "Weft demo; Documentation/locking/spinlocks.rst", 1, sizeof(struct irqlock_world),
		 ctx_setup, irqlock_thread, irqlock_variants),
	.quiesce = irqlock_quiesce,
	.fields = irqlock_fields,
	.irqs = irqlock_irqs,
	.nr_irqs = 1,
};

/* --------------------------------------------------------- demo-percpu */

struct percpu_world {
	unsigned variant;
	WEFT_PER_CPU(int, count);
};

enum { PCPU_BOUND_RACY, PCPU_MIGRATABLE, PCPU_THIS_CPU, PCPU_PREEMPT_OFF };
enum { PIRQ_RACY = 8, PIRQ_THIS_CPU };

/* setup gets the variant's index; these scenarios share thread code and
 * name their behaviour by the variant's id */
static const struct weft_variant percpu_variants[], percpu_task_variants[], pirq_variants[];

static void percpu_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	((struct percpu_world *)w)->variant = percpu_variants[variant].id;
	(void)wl;
}

static void percpu_task_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	((struct percpu_world *)w)->variant = percpu_task_variants[variant].id;
	(void)wl;
}

static void pirq_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	((struct percpu_world *)w)->variant = pirq_variants[variant].id;
	(void)wl;
}

static void percpu_thread(void *w, unsigned tid)
{
	struct percpu_world *W = w;

	(void)tid;
	switch (W->variant) {
	case PCPU_BOUND_RACY:
	case PCPU_MIGRATABLE:
		__this_cpu_inc(W->count);
		break;
	case PCPU_THIS_CPU:
		this_cpu_inc(W->count);
		break;
	case PCPU_PREEMPT_OFF:
		preempt_disable();
		__this_cpu_inc(W->count);
		preempt_enable();
		break;
	}
}

static void percpu_quiesce(void *w)
{
	struct percpu_world *W = w;

	if (weft_peek(W->count[0]) != 2)
		weft_report(WEFT_KIND_LOST_UPDATE, &W->count[0],
			    WEFT_SITE(WEFT_EV_NOTE, "CPU0 count == 2"), "CPU0's count is %d, not 2",
			    weft_peek(W->count[0]));
}

static void percpu_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off >= offsetof(struct percpu_world, count) &&
	    off < offsetof(struct percpu_world, count) + sizeof(int) * WEFT_MAX_CPUS)
		snprintf(buf, n, "count[CPU%u]",
			 (unsigned)((off - offsetof(struct percpu_world, count)) / sizeof(int)));
}

/* The per-CPU counter scenarios' audits of their world. */
#define PERCPU_DEMO .quiesce = percpu_quiesce, .describe = percpu_describe

static const uint8_t percpu_cpu_of[] = { 0, 0 };

static const struct weft_variant percpu_variants[3] = {
	{ "bound-racy", NULL, true, "two threads bound to CPU0 use __this_cpu_inc() preemptibly",
	  "include/linux/percpu-defs.h", WEFT_KIND_LOST_UPDATE, 1, PCPU_BOUND_RACY },
	{ "this-cpu", NULL, false, "this_cpu_inc(): one read-modify-write", "textbook fix",
	  WEFT_KIND_NONE, 0, PCPU_THIS_CPU },
	{ "preempt-off", NULL, false, "__this_cpu_inc() with preemption disabled", "textbook fix",
	  WEFT_KIND_NONE, 0, PCPU_PREEMPT_OFF },
};

const struct weft_scenario weft_scn_demo_percpu = {
	CTX_DEMO("demo-percpu",
		 "demo: a per-CPU counter updated by two threads of one CPU (1 CPU)",
		 "Weft demo; include/linux/percpu-defs.h", 2, sizeof(struct percpu_world),
		 percpu_setup, percpu_thread, percpu_variants),
	.cpu_of = percpu_cpu_of,
	PERCPU_DEMO,
};

/* demo-percpu-task: the same counter, T0 a task that may migrate
 * (struct weft_scenario.migratable is per scenario). */
static const struct weft_variant percpu_task_variants[2] = {
	{ "preemptible", NULL, true, "a migratable task uses __this_cpu_inc() preemptibly",
	  "CONFIG_DEBUG_PREEMPT, lib/smp_processor_id.c", WEFT_KIND_PREEMPTIBLE_PERCPU, 0,
	  PCPU_MIGRATABLE },
	{ "preempt-off", NULL, false, "the task disables preemption around __this_cpu_inc()",
	  "textbook fix", WEFT_KIND_NONE, 0, PCPU_PREEMPT_OFF },
};

const struct weft_scenario weft_scn_demo_percpu_task = {
	CTX_DEMO("demo-percpu-task",
		 "demo: __this_cpu_inc() in preemptible code of a task that may migrate (1 CPU)",
		 "Weft demo; CONFIG_DEBUG_PREEMPT", 2, sizeof(struct percpu_world),
		 percpu_task_setup, percpu_thread, percpu_task_variants),
	.cpu_of = percpu_cpu_of,
	PERCPU_DEMO,
	.migratable = 1u << 0,
};

/* ----------------------------------------------------- demo-percpu-irq */


static void pirq_thread(void *w, unsigned tid)
{
	struct percpu_world *W = w;

	(void)tid;
	if (W->variant == PIRQ_RACY) {
		preempt_disable();
		__this_cpu_inc(W->count);
		preempt_enable();
	} else {
		this_cpu_inc(W->count);
	}
}

static void pirq_handler(void *w, unsigned irq)
{
	struct percpu_world *W = w;

	(void)irq;
	this_cpu_inc(W->count);
}

static const struct weft_irq pirq_irqs[] = {
	{ "stat_irq", WEFT_HARDIRQ, 1u << 0, pirq_handler, true },
};

static const struct weft_variant pirq_variants[2] = {
	{ "irq-racy", NULL, true,
	  "__this_cpu_inc() with preemption but not interrupts disabled, racing a handler",
	  "include/linux/percpu-defs.h", WEFT_KIND_LOST_UPDATE, 1, PIRQ_RACY },
	{ "this-cpu", NULL, false, "this_cpu_inc() is interrupt-safe", "textbook fix",
	  WEFT_KIND_NONE, 0, PIRQ_THIS_CPU },
};

const struct weft_scenario weft_scn_demo_percpu_irq = {
	CTX_DEMO("demo-percpu-irq",
		 "demo: a per-CPU statistic updated by a thread and an interrupt (1 CPU)",
		 "Weft demo; include/linux/percpu-defs.h", 1, sizeof(struct percpu_world),
		 pirq_setup, pirq_thread, pirq_variants),
	PERCPU_DEMO,
	.irqs = pirq_irqs,
	.nr_irqs = 1,
};

/* --------------------------------------------------- demo-sleep-atomic */

struct sa_world {
	unsigned variant;
	spinlock_t lock;
	int x;
};

static void sa_thread(void *w, unsigned tid)
{
	struct sa_world *W = w;

	(void)tid;
	spin_lock(&W->lock);
	WRITE_ONCE(W->x, 1);
	if (W->variant == 0)
		might_sleep();   /* e.g. a GFP_KERNEL allocation under the lock */
	spin_unlock(&W->lock);
	if (W->variant == 1)
		might_sleep();
}

static const struct weft_variant sa_variants[] = {
	{ "under-lock", NULL, true, "may sleep while holding a spinlock",
	  "CONFIG_DEBUG_ATOMIC_SLEEP", WEFT_KIND_SLEEP_IN_ATOMIC, 0, 0 },
	{ "after-unlock", NULL, false, "sleeps after the unlock", "textbook fix", WEFT_KIND_NONE,
	  0, 1 },
};

const struct weft_scenario weft_scn_demo_sleep_atomic = {
	CTX_DEMO("demo-sleep-atomic",
		 "demo: a function that may sleep called under a spinlock (1 CPU)",
		 "Weft demo; CONFIG_DEBUG_ATOMIC_SLEEP", 1, sizeof(struct sa_world),
		 ctx_setup, sa_thread, sa_variants),
};
