/*
 * weft.h - the public interface of libweft: scenarios, the deterministic
 * machine that runs them, strategies, reports and traces.
 *
 * Model code normally includes <weft/kernel.h> (kernel-shaped primitives),
 * which includes this file.
 *
 * Length: the scenario interface, the machine's entry points, the strategy
 * ops, the report and the trace are one contract that every model, front
 * end and strategy builds on; each section is marked with a rule.
 *
 * Invariants every caller may rely on:
 *  - An execution is a pure function of (scenario, variant, lock model,
 *    workload bytes, decisions). No host thread, clock, address or
 *    environment value reaches it.
 *  - A trace hash is computed from events only: site ids (hashes of the
 *    site's file basename, function and operation text, never of a line
 *    number or an address), world offsets and values.
 *  - Each execution starts from a zeroed world; the hot path allocates
 *    nothing.
 */
#ifndef WEFT_WEFT_H
#define WEFT_WEFT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_VERSION_STRING "0.1.0"

/*
 * WEFT_MAX_THREADS: threads a scenario declares (nr_threads), and the size
 * of the per-thread arrays of models and the kit (the workload addresses
 * threads with 4 bits). WEFT_EXEC_MAX_THREADS: threads one execution may
 * have, the declared ones, the interrupt pseudo-threads and the spawned
 * ones (pthread_create, kthreads, the RCU callback kthread, kworkers).
 * Threads numbered WEFT_MAX_THREADS and up have no slot in those arrays:
 * RCU read-side sections and rwsem read holds in them are reported
 * (assertion), the kit's per-thread statistics fold them onto the first.
 * WEFT_MAX_CPUS: the size of per-CPU arrays in models and the kit
 * (WEFT_PER_CPU, the LRU batches); WEFT_EXEC_MAX_CPUS: the CPUs a scenario
 * may declare. A per-CPU array indexed by a CPU it has no entry for is
 * reported (assertion), never read past its end. A thread spawned when
 * every CPU has a thread shares one.
 */
#define WEFT_MAX_THREADS 16
#define WEFT_EXEC_MAX_THREADS 64
#define WEFT_MAX_CPUS 16
#define WEFT_EXEC_MAX_CPUS 64
#define WEFT_MAX_OPS 32          /* workload operations per thread */
#define WEFT_MAX_ENTRIES 64      /* schedule entries in a bytes input */
#define WEFT_TRACE_RING 64       /* last events kept for reports */

/* Error codes: functions return 0 or a negative WEFT_E*. */
#define WEFT_EINVAL   (-1)
#define WEFT_ENOENT   (-2)
#define WEFT_EIO      (-3)
#define WEFT_EFORMAT  (-4)
#define WEFT_ENOMEM   (-5)
#define WEFT_ESTALE   (-6)
#define WEFT_EDESYNC  (-7)

/* Exit codes of the weft command (documented in docs/cli.md). */
#define WEFT_EXIT_CLEAN   0   /* no report */
#define WEFT_EXIT_BUG     1   /* a detector reported a bug */
#define WEFT_EXIT_USAGE   2   /* bad flag or argument */
#define WEFT_EXIT_IO      3   /* I/O, format or corrupt-input error */
#define WEFT_EXIT_DESYNC  4   /* a replay diverged from its recording */
#define WEFT_EXIT_STALE   5   /* a replay file was made by another model */

enum weft_kind {
	WEFT_KIND_NONE = 0,
#define X(e, s, d) WEFT_KIND_##e,
#include <weft/kinds.def>
#undef X
	WEFT_KIND__COUNT
};

const char *weft_kind_name(enum weft_kind k);
const char *weft_kind_meaning(enum weft_kind k);
/* Returns WEFT_KIND_NONE for an unknown name. */
enum weft_kind weft_kind_from_name(const char *name);

/* ---------------------------------------------------------------- sites */

enum weft_ev {
	WEFT_EV_READ = 1,
	WEFT_EV_WRITE,
	WEFT_EV_RMW,
	WEFT_EV_LOCK,
	WEFT_EV_TRYLOCK,
	WEFT_EV_UNLOCK,
	WEFT_EV_BLOCK,
	WEFT_EV_YIELD,
	WEFT_EV_BARRIER,
	WEFT_EV_CHOICE,
	WEFT_EV_FREE,
	WEFT_EV_ALLOC,
	WEFT_EV_NOTE,
	WEFT_EV_OP,       /* a workload operation begins (arg = op index) */
	WEFT_EV_SPAWN,    /* a thread started another (val = its number) */
	WEFT_EV_JOIN,     /* a thread waited for another's end (val = its number) */
	WEFT_EV_WAIT,     /* a sleeping primitive put its caller to sleep */
	WEFT_EV_WAKE,     /* a sleeping primitive woke sleepers (val = how many,
			     or WEFT_WAKE_HELD_AGAIN) */
	WEFT_EV_END,      /* a spawned thread ended */
	WEFT_EV_IRQ_ENTER,/* an interrupt handler starts on its CPU (val = CPU) */
	WEFT_EV_IRQ_EXIT, /* and returns */
	WEFT_EV_CTX,      /* a context change (preempt/irq/bh masking) */
	WEFT_EV_FLUSH,    /* a buffered store becomes visible to the other CPUs
			     (weak memory: tid/cpu/site/loc/val are the store's,
			     old the value it replaces in memory) */
};

/* WEFT_EV_WAKE's val when a lock's wake-up, a step after its release,
 * found it taken again: its waiters sleep on (an rw_semaphore's rwsem_wake()) */
#define WEFT_WAKE_HELD_AGAIN 0xffffffffu

/*
 * A site is one place in a model that performs a visible operation.
 * Sites live in the "weft_sites" section (one pointer each) so the machine
 * can enumerate them at start: it computes every id once, and a model's
 * fingerprint is the hash of its sites' ids.
 */
struct weft_site {
	const char *file;
	const char *func;
	const char *what;     /* "atomic_dec_and_test(&page->count)" */
	unsigned line;        /* for humans only: never hashed */
	unsigned ev;          /* enum weft_ev */
	uint32_t id;          /* hash(basename(file), func, what); set at init */
	unsigned flags;       /* WEFT_SITE_*; never hashed */
};
/* The machine's own kernel vocabulary (libweft's workqueue, xarray,
 * percpu_ref...): its accesses stand for code the kernel orders with
 * locks of its own, so they are sequentially consistent under every
 * memory model (they drain their CPU's store buffer and go to memory). */
#define WEFT_SITE_SC 1u
/*
 * The ordering class of a site's access under a weak memory model (bits
 * 1-3; docs/memory-model.md), as the kernel's primitive it stands for:
 *  - default: a marked load or store (READ_ONCE, WRITE_ONCE, atomic_read,
 *    atomic_set) orders nothing; a read-modify-write is fully ordered (the
 *    value-returning atomics, xchg, cmpxchg, test_and_set_bit);
 *  - RELAXED: a read-modify-write that orders nothing (the non-returning
 *    atomics, set_bit, clear_bit, the _relaxed forms);
 *  - ACQUIRE: later accesses of its CPU stay after it (smp_load_acquire,
 *    the _acquire forms, a lock's acquisition);
 *  - RELEASE: earlier accesses of its CPU stay before it
 *    (smp_store_release, the _release forms, spin_unlock: a release store
 *    that leaves the CPU's store buffer alone, where other unlocks drain);
 *  - RELEASE_ACQUIRE_ZERO: a read-modify-write that is a release, and an
 *    acquire too when the value it writes is 0 (refcount_dec_and_test(),
 *    refcount_sub_and_test(): a release, then smp_acquire__after_ctrl_dep()
 *    on the path that returns true).
 * A failed cmpxchg or add_unless orders nothing in any class (LKMM).
 */
#define WEFT_SITE_ORD_SHIFT 1
#define WEFT_SITE_ORD_MASK (7u << WEFT_SITE_ORD_SHIFT)
#define WEFT_SITE_RELAXED (1u << WEFT_SITE_ORD_SHIFT)
#define WEFT_SITE_ACQUIRE (2u << WEFT_SITE_ORD_SHIFT)
#define WEFT_SITE_RELEASE (3u << WEFT_SITE_ORD_SHIFT)
#define WEFT_SITE_RELEASE_ACQUIRE_ZERO (4u << WEFT_SITE_ORD_SHIFT)
#ifndef WEFT_SITE_FLAGS_DEFAULT
#define WEFT_SITE_FLAGS_DEFAULT 0u
#endif

/* A site with ordering flags (WEFT_SITE_RELAXED...). */
#define WEFT_SITE_F(ev_, what_, flags_)                                        \
	({                                                                     \
		static struct weft_site __weft_site = {                        \
			__FILE__, __func__, (what_), __LINE__, (ev_), 0,       \
			WEFT_SITE_FLAGS_DEFAULT | (flags_) };                  \
		static struct weft_site *const __weft_site_ptr                 \
			__attribute__((section("weft_sites"), used)) =         \
				&__weft_site;                                  \
		(void)__weft_site_ptr;                                         \
		&__weft_site;                                                  \
	})
#define WEFT_SITE(ev_, what_) WEFT_SITE_F(ev_, what_, 0u)

const char *weft_site_basename(const struct weft_site *s);
/* The file as reports and diagrams name it: the basename, except for a
 * kernel tree's file that weft-kextract wrote (under a directory
 * WEFT_KTREE_DIR), named by its path in the tree ("mm/swapfile.c"). For
 * humans only: ids hash the basename. */
#define WEFT_KTREE_DIR "/weft-ktree/"
const char *weft_site_file(const struct weft_site *s);

/*
 * Where model code called a helper whose events are traced at the helper's
 * own sites (the list helpers of <weft/kernel.h>: their site ids hash
 * kernel.h, so stored replays keep their trace hashes). For humans only:
 * never hashed, never in a model's fingerprint, never in a replay file.
 */
struct weft_caller {
	const char *file;
	const char *func;
	const char *what;     /* "list_del(&p->lru)" */
	unsigned line;
	unsigned flags;       /* WEFT_CALLER_KIT */
};
/* The model's call of a library operation (an mm kit function,
 * WEFT_KIT_CALL_*): named where its events happened and by reports, but
 * its events are not folded into one row, and a list helper it calls
 * names its own call while it runs. */
#define WEFT_CALLER_KIT 1u

const char *weft_caller_basename(const struct weft_caller *c);
const char *weft_caller_file(const struct weft_caller *c);   /* as weft_site_file() */

/* How reports and diagrams print a traced value: by the type of the field
 * that holds it, as far as the operation and the field's name tell it (a
 * value of an atomic_long_t is a signed long, a PTE or a flag word is hex,
 * a world pointer names its object). */
enum weft_value_form {
	WEFT_VALUE_POINTER,     /* (1 << 63) | world offset: "&page 0" */
	WEFT_VALUE_HEX,         /* flag words, masks, PTEs, swap entries */
	WEFT_VALUE_SIGNED32,    /* an int count: 0xffffffff is -1 */
	WEFT_VALUE_SIGNED64,    /* a long or s64: 0xffffffffffffffff is -1 */
	WEFT_VALUE_UNSIGNED,
};
enum weft_value_form weft_value_form(uint64_t x, const char *field, const char *what);
/* A site's label as a model author wrote it: the kit's internal spellings
 * undone ("test_bit(WEFT_PG_lru, &(p)->flags)" is "test_bit(PG_lru,
 * &p->flags)"). Display only: the site's id hashes the text as it is. */
void weft_site_label(const char *what, char *buf, size_t n);
/* "func() at file:line" of the model's call c of a helper when c is set,
 * else of site s ("" if neither): where a report points a reader. */
void weft_site_where(char *buf, size_t n, const struct weft_site *s,
		     const struct weft_caller *c);

/* ------------------------------------------------------------ scenarios */

struct weft_op {
	uint8_t code;   /* < scenario->nr_opcodes */
	uint8_t arg;    /* model takes it modulo its own bound */
};

/* The decoded workload: which operations each thread runs, in order. */
struct weft_workload {
	unsigned nr_ops[WEFT_MAX_THREADS];
	struct weft_op ops[WEFT_MAX_THREADS][WEFT_MAX_OPS];
};

/* setup() helper: the model's own copy of the workload, in its world
 * (read-only afterwards): the first nr_threads threads, at most max_ops
 * ops each, ops laid out as nr_threads rows of max_ops (a world's
 * `struct weft_op ops[THREADS][MAX_OPS]`). */
void weft_workload_copy(const struct weft_workload *wl, unsigned nr_threads, unsigned max_ops,
			unsigned *nr_ops, struct weft_op *ops);
/* thread() helper: the statement that follows runs once for each op of
 * ops[0..nr_ops) in order, as op, after the op's trace note (WEFT_EV_OP,
 * what; the op's index and code << 8 | arg). break and continue in it both
 * go on to the next op.
 * A macro and not a function: the note's site id hashes the function it
 * stands in, so the note stays the thread function's, as if written out
 * there (a helper would give every model's notes one id). */
#define WEFT_FOR_EACH_OP(op, ops, nr_ops, what)                                    \
	for (unsigned __weft_i = 0; __weft_i < (nr_ops); __weft_i++)               \
		for (const struct weft_op *op = &(ops)[__weft_i], *__weft_once = op; \
		     __weft_once && (weft_note(WEFT_SITE(WEFT_EV_OP, (what)), __weft_i,  \
					       (uint64_t)op->code << 8 | op->arg), true); \
		     __weft_once = NULL)
/* The same for a thread whose ops each call one handler:
 * handlers[code % nr_handlers](W, tid, arg). Every code below nr_handlers
 * needs a handler (a NULL one is not skipped). */
#define WEFT_RUN_OPS(W, tid, ops, nr_ops, what, handlers, nr_handlers)            \
	WEFT_FOR_EACH_OP(__weft_op, ops, nr_ops, what)                             \
		(handlers)[__weft_op->code % (nr_handlers)]((W), (tid), __weft_op->arg)
/* stats() helper: rows of a model's per-thread counters (stat: nr_threads
 * rows of nr, `unsigned long stat[THREADS][NR]`, no sharing and no
 * scheduling point), each named stat_names[i] with the sum over threads.
 * Returns the rows written (at most max). */
unsigned weft_stat_rows(const char *const *stat_names, unsigned nr, const unsigned long *stat,
			unsigned nr_threads, const char **names, uint64_t *vals, unsigned max);
/* One counter s of such a table, summed over the threads. */
unsigned long weft_stat_sum(const unsigned long *stat, unsigned nr, unsigned nr_threads,
			    unsigned s);

struct weft_variant {
	const char *name;       /* stable: goes into replay files */
	const char *zoo;        /* ZOO.md id, or NULL */
	bool buggy;             /* expect "bug" (true) or "clean" */
	const char *summary;    /* one line */
	const char *source;     /* kernel version, function, thread or commit */
	enum weft_kind expect_kind;     /* for buggy variants */
	unsigned min_preemptions;       /* known minimum (ZOO.md), buggy only */
	unsigned id;            /* model-private variant number */
};

enum weft_lock_model {
	WEFT_LOCK_TAS = 0,      /* unfair test-and-set: waiters race on release */
	WEFT_LOCK_TICKET = 1,   /* FIFO ticket lock: handed to the oldest waiter */
};

/*
 * The memory model of the fake CPUs (docs/memory-model.md), chosen per run
 * and recorded in replay files. Ordered by strength: a weaker model allows
 * every behaviour of a stronger one.
 */
enum weft_memory_model {
	WEFT_MEM_SC = 0,        /* sequential consistency: a store is visible to
				   every CPU when it executes (the default) */
	WEFT_MEM_TSO = 1,       /* x86-TSO: a FIFO store buffer per CPU with
				   store-to-load forwarding; when a buffered
				   store becomes visible is a strategy's choice */
	WEFT_MEM_LKMM = 2,      /* the Linux-kernel memory model, its
				   multicopy-atomic part: stores to different
				   locations visible out of order, loads of
				   older versions coherence allows, both bounded
				   by the kernel's barriers and ordering classes */
	WEFT_MEM__COUNT
};
const char *weft_memory_name(enum weft_memory_model m);
/* "sc", "tso", "lkmm"; false (and *why set) for anything else. */
bool weft_memory_parse(const char *s, enum weft_memory_model *out, const char **why);

/*
 * Weak choices (weak memory), one stream per execution that the strategy
 * answers with ops->pick_delay and a replay file records:
 *  - each store a thread makes asks for a delay code in [0,
 *    WEFT_DELAY_CODES). Code 0: the store is visible at once (as under sc)
 *    unless an older buffered store of its CPU must become visible first;
 *    code c > 0: it stays in its CPU's store buffer for
 *    weft_delay_steps(c) more steps of the machine, or until a fence, an
 *    atomic read-modify-write or a lock operation of its CPU drains the
 *    buffer, or the execution ends;
 *  - under lkmm, a load that may read n > 1 versions of its location asks
 *    for a code in [0, n): 0 the newest, k the k-th older one.
 */
#define WEFT_DELAY_CODES 16u
static inline uint32_t weft_delay_steps(uint32_t code)
{
	return code <= 8 ? code : 8u << (code - 8);   /* 0..8, 16, 32, ... 1024 */
}

/* A world field's name, at its exact offset (struct weft_scenario.fields):
 * WEFT_FIELD(struct my_world, lock, "lock A"). */
struct weft_field {
	uint32_t off;
	const char *name;
};
#define WEFT_FIELD(type, member, name_) { (uint32_t)offsetof(type, member), (name_) }

struct weft_scenario {
	const char *name;        /* stable */
	const char *summary;
	const char *source;
	unsigned nr_cpus;        /* 1..WEFT_EXEC_MAX_CPUS */
	unsigned nr_threads;     /* 1..WEFT_MAX_THREADS; thread t runs on cpu_of[t] */
	const uint8_t *cpu_of;   /* NULL: thread t on CPU t % nr_cpus */
	size_t world_size;       /* the zeroed model state */
	/* 1..16; 0 with opnames NULL: the model takes no workload (every
	 * decoded workload is empty: weft_scenario_takes_workload()) */
	unsigned nr_opcodes;
	const char *const *opnames;
	unsigned max_ops;        /* per thread, <= WEFT_MAX_OPS */
	unsigned decision_hint;  /* bytes entries' positions are taken mod this */
	uint64_t step_budget;    /* livelock bound; 0 = default */
	enum weft_lock_model default_lock;
	unsigned model_version;  /* bump for a semantic change with equal sites */
	const char *const *files;/* basenames whose sites form the fingerprint */

	/* Builds the initial world from the workload (main context: the
	 * primitives act immediately, without scheduling points). Optional:
	 * without it every execution starts from the zeroed world. */
	void (*setup)(void *world, unsigned variant, const struct weft_workload *wl);
	/* The body of model thread tid (a fiber pinned to its CPU). */
	void (*thread)(void *world, unsigned tid);
	/* Audits at quiescence, after every thread ended (main context). */
	void (*quiesce)(void *world);
	/* Optional: name the object at a world offset ("page 3 ->count"). */
	void (*describe)(const void *world, uint32_t off, char *buf, size_t n);
	/* Optional: model counters ("name value" lines), for --stats. */
	unsigned (*stats)(const void *world, const char **names, uint64_t *vals, unsigned max);
	/* Optional: a bucket of abstract state for interleaving feedback,
	 * called after each write to a world offset. */
	uint32_t (*state_bucket)(const void *world, uint32_t off);

	const struct weft_variant *variants;
	unsigned nr_variants;
	/* A small hand-written input (bytes encoding) that triggers the bug of
	 * each buggy variant (same order as variants; NULL where none). */
	const uint8_t *const *triggers;
	const size_t *trigger_lens;

	/* Optional: interrupt handlers that may hit the fake CPUs
	 * (<weft/context.h>). Each is delivered at a strategy-chosen point,
	 * like a preemption, on a CPU whose interrupts (or bottom halves) are
	 * enabled, and runs to completion there. */
	const struct weft_irq *irqs;
	unsigned nr_irqs;
	/* Optional: threads (bit t = thread t) that may migrate between CPUs,
	 * as user tasks do; others are bound to their CPU like per-CPU
	 * kthreads. smp_processor_id() and __this_cpu_*() in preemptible code
	 * of a migratable thread are reports (CONFIG_DEBUG_PREEMPT). A
	 * migratable thread may move at its preemption points
	 * (<weft/context.h>). */
	uint32_t migratable;
	/* Optional detectors (WEFT_CHECK_*) this scenario opts out of, e.g. a
	 * demo of the deadlock detector that lockdep would pre-empt. */
	unsigned checks_off;
	/* Optional: the world is memory the scenario owns (an instrumented
	 * program's data, heap and thread stacks: rt/) rather than a zeroed
	 * allocation of world_size bytes. */
	const struct weft_world_ops *world_ops;
	/* Optional: names of the world's fields by exact offset, for reports
	 * ("lock A"), when describe() is absent or names nothing; ended by
	 * { 0, NULL }. */
	const struct weft_field *fields;
	/* Optional: the memory model (enum weft_memory_model) its buggy
	 * variants need (weak memory only) and its fixes stay silent under:
	 * weft run, fuzz, import and bench, the fuzz targets and CI search the
	 * scenario under it unless --memory says otherwise; sc (0) for the
	 * rest. */
	unsigned memory;
	/* Optional: the bytes of the heap kmalloc() and kmem_cache_alloc()
	 * take from (<weft/slab.h>), after the world in the same zeroed
	 * allocation (weft_world_extent()); 0: no heap; at most
	 * WEFT_HEAP_MAX. */
	size_t heap_size;
};

#define WEFT_HEAP_MAX (1u << 20)

/* Where the heap starts (world offset) and the bytes an execution's world
 * spans: the model's world, then its heap. */
static inline size_t weft_heap_offset(const struct weft_scenario *sc)
{
	return (sc->world_size + 15) & ~(size_t)15;
}

static inline size_t weft_world_extent(const struct weft_scenario *sc)
{
	return sc->heap_size ? weft_heap_offset(sc) + sc->heap_size : sc->world_size;
}

/*
 * A world the scenario maps itself. world_size bytes from base() are the
 * world; the machine's core area (weft_core_area_size() bytes) goes at
 * the world offset core_offset() returns (64-byte aligned, memory of the
 * scenario's that nothing else uses) or, without that hook, right after
 * the world (world_size rounded up to 64), where room must be mapped.
 * base() returns the same address at every execution. reset() (host
 * context, before setup) puts the world in its initial state instead of
 * zeroing it; done() (optional) runs after the execution's audits and any
 * report.
 */
struct weft_world_ops {
	uint8_t *(*base)(void);
	size_t (*core_offset)(void);
	void (*reset)(uint8_t *world, size_t size);
	void (*done)(uint8_t *world, size_t size);
	/* Optional: thread tid runs again (its first run, or after a switch
	 * to another thread), before any of its code: a world with state
	 * private to each thread outside the world (an instrumented
	 * program's __thread variables) puts tid's in place. */
	void (*resume)(unsigned tid);
};
size_t weft_core_area_size(void);

/* The registry of every scenario in this build (core/registry/). */
extern const struct weft_scenario *const weft_scenarios[];
extern const unsigned weft_nr_scenarios;
/* "name" or "name:variant"; on success sets *vi (first variant if none). */
const struct weft_scenario *weft_scenario_find(const char *spec, unsigned *vi);
/* The same lookup in any table (libweft; weft_scenario_find uses it). */
const struct weft_scenario *weft_scenario_lookup(const struct weft_scenario *const *tab,
						 unsigned n, const char *spec, unsigned *vi);
/* Whether the machine can run sc as declared: 0, or WEFT_EINVAL with why
 * (a sentence naming the field and the limit: "nr_threads is 64; Weft runs
 * 1 to 16 threads"). weft_execute() refuses such a scenario with
 * WEFT_EINVAL before running anything; the command line checks first and
 * says why (exit 2). */
int weft_scenario_check(const struct weft_scenario *sc, char *why, size_t n);
/* An out-of-tree model's registry in one line (docs/writing-a-model.md):
 *   WEFT_DEFINE_REGISTRY(&my_scenario, &my_other_scenario);
 * defines weft_scenarios[], weft_nr_scenarios and weft_scenario_find(). */
#define WEFT_DEFINE_REGISTRY(...)                                              \
	const struct weft_scenario *const weft_scenarios[] = { __VA_ARGS__ };  \
	const unsigned weft_nr_scenarios =                                     \
		sizeof(weft_scenarios) / sizeof(weft_scenarios[0]);            \
	const struct weft_scenario *weft_scenario_find(const char *spec, unsigned *vi) \
	{                                                                      \
		return weft_scenario_lookup(weft_scenarios, weft_nr_scenarios, spec, vi); \
	}

/* --------------------------------------------------------------- reports */

struct weft_access {
	bool valid;
	int tid;
	int cpu;
	uint32_t step;
	const struct weft_site *site;
};

struct weft_report {
	enum weft_kind kind;
	struct weft_access here;       /* the access that failed */
	struct weft_access other;      /* the last conflicting access */
	uint32_t loc;                  /* world offset of the object */
	char object[64];               /* "page 3" */
	char msg[192];
	/* The model's calls of the helpers whose sites here and other are
	 * (a list helper of kernel.h), or NULL; display only. other_caller
	 * is known while the trace ring still holds that access's event. */
	const struct weft_caller *here_caller;
	const struct weft_caller *other_caller;
	/* The step here's thread was at when the failing state began: for a
	 * lost wake-up, the step its sleeper fell asleep (here.step is when
	 * no thread was left to wake it); else here.step. Display only. */
	uint32_t here_since;
	/* The failing thread's callers, innermost first ("g() at a.c:9 <- main()
	 * at a.c:20"): instrumented programs (weft_report_stack_source()), ""
	 * otherwise. Display only. */
	char stack[256];
};

/* ---------------------------------------------------------------- traces */

struct weft_event {
	uint32_t step;
	uint8_t tid;
	uint8_t cpu;
	uint8_t ev;            /* enum weft_ev */
	uint8_t flags;         /* WEFT_EVF_* */
	uint32_t loc;          /* world offset, or WEFT_NO_LOC */
	const struct weft_site *site;
	uint64_t old;
	uint64_t val;
	/* The helper call this event is part of (a list helper of kernel.h
	 * called by the model), or NULL; display only, never hashed. */
	const struct weft_caller *caller;
};
#define WEFT_NO_LOC 0xffffffffu
#define WEFT_EVF_PREEMPTED  1u  /* this step ran right after a preemption */
#define WEFT_EVF_SWITCHED   2u  /* a free switch (block, yield, end) led here */
#define WEFT_EVF_FAILED     4u  /* a trylock that failed, a blocked lock */
/* The context the event ran in (<weft/context.h>); never hashed. */
#define WEFT_EVF_IRQOFF     8u  /* interrupts masked on its CPU */
#define WEFT_EVF_NOPREEMPT 16u  /* preemption disabled (a spinlock held...) */
#define WEFT_EVF_HARDIRQ   32u  /* in a hard interrupt handler */
#define WEFT_EVF_SOFTIRQ   64u  /* in a softirq handler or BH disabled */
/* The first event of a helper call (caller set): consecutive calls from
 * one call site are told apart by it. Never hashed. */
#define WEFT_EVF_CALL     128u

/* One scheduling decision (>= 2 runnable threads). */
struct weft_decision_rec {
	uint32_t step;
	uint64_t runnable;     /* mask of runnable threads */
	uint8_t cur;           /* thread that may continue (0xff: none: start,
				  block, end or yield) */
	uint8_t dflt;          /* the default choice */
	uint8_t chosen;
	uint32_t site_id;      /* site of the point (0 at start / after block) */
};

/* ------------------------------------------------------------ strategies */

struct weft_decision {
	uint32_t index;        /* decision number in this execution */
	uint32_t step;
	int cur;               /* current thread if still runnable, else -1 */
	uint64_t runnable;     /* mask: bit t for thread t */
	int dflt;              /* the non-preemptive default choice */
	const struct weft_site *site;
	/* Fair scheduling (WEFT_CHECK_FAIR): runnable threads that spin without
	 * progress while another can run (docs/strategies.md, "Fairness").
	 * Never cur or dflt. Choosing one is unfair: dfs counts it as a
	 * preemption, pct passes it over while a fair one is runnable. */
	uint64_t unfair;
	/* Threads of unfair whose choice would only repeat an iteration of
	 * their spin: they yielded twice with nothing changed in between
	 * (docs/strategies.md, "Fairness"). Under the good-samaritan
	 * assumption (a spin iteration has no effect but the retry) nothing
	 * lies behind such a choice that the other choices do not reach, but
	 * a thread's locals are not seen (a bounded poll's counter): dfs's
	 * fairness bound prunes it, counts it apart (JSON
	 * spin_retries_pruned) and the search is then not complete. */
	uint64_t spin_retry;
};

struct weft_exec_result;

/*
 * What one operation touched, for strategies that reason about dependence
 * (partial-order reduction): two operations of different threads are
 * dependent when they touch overlapping [loc, loc+size) and one of them is
 * not a READ, or when one spawns or joins the other's thread.
 */
enum weft_dep_kind {
	WEFT_DEP_NONE = 0,    /* thread-local: a note, a barrier, a choice */
	WEFT_DEP_READ,        /* a load, a failed trylock, a test */
	WEFT_DEP_WRITE,       /* a store or a read-modify-write (any RMW) */
	WEFT_DEP_ACQUIRE,     /* took the lock or channel at loc */
	WEFT_DEP_RELEASE,     /* released it (may wake waiters) */
	WEFT_DEP_BLOCKED,     /* found loc busy and went to sleep on it */
	WEFT_DEP_SPAWN,       /* arg: the thread it started */
	WEFT_DEP_JOIN,        /* arg: the thread whose end it waited for */
	WEFT_DEP_END,         /* the thread ended */
	WEFT_DEP_YIELD,       /* cpu_relax()/cond_resched(): offers the CPU */
};

struct weft_step_info {
	uint32_t step;
	uint8_t tid;
	uint8_t kind;          /* enum weft_dep_kind */
	uint8_t flags;         /* WEFT_STEP_* */
	uint32_t size;
	uint32_t loc;          /* world offset, or WEFT_NO_LOC */
	uint32_t arg;
	const struct weft_site *site;
};

/*
 * A strategy answers the machine's questions. In the spirit of Shuttle's
 * Scheduler trait: begin an execution, pick the next thread, pick a value,
 * end the execution. All hooks but pick_next are optional.
 */
struct weft_rng;   /* <weft/strategy.h> */

struct weft_strategy_ops {
	const char *name;
	/* Fill the workload bytes for the next execution; return how many.
	 * Returns < 0 when the strategy has nothing more to run (dfs done). */
	int (*begin)(void *st, uint8_t *wl, size_t cap);
	int (*pick_next)(void *st, const struct weft_decision *d);
	uint32_t (*pick_value)(void *st, uint32_t index, uint32_t n);
	void (*end)(void *st, const struct weft_exec_result *r);
	/* Optional: told after every visible operation what it touched. */
	void (*on_step)(void *st, const struct weft_step_info *si);
	/* Optional (weak memory): the delay code, in [0, ncodes), of the
	 * index-th store of the execution (WEFT_DELAY_CODES). NULL: 0 always,
	 * every store visible at once. */
	uint32_t (*pick_delay)(void *st, uint32_t index, uint32_t ncodes);
	/* Optional: the memory model the input asks for (a genome's), or < 0.
	 * The run's model is the stronger of it and weft_run_opts.memory, so
	 * an input never makes a run weaker than its options allow. Called
	 * after begin. */
	int (*memory)(void *st);
	/* Optional: pick_next() reads nothing of the decision but runnable,
	 * and returns the thread a uniform draw of the returned generator
	 * names: the weft_rng_below(r, number of runnable threads)-th of
	 * them, lowest first. The machine then makes that draw itself, at
	 * the cost of neither the call nor the struct weft_decision. Asked
	 * once per execution, after begin. */
	struct weft_rng *(*uniform)(void *st);
};

/* ------------------------------------------------------------- the input */

/*
 * The bytes encoding of one execution (docs/strategies.md):
 *   byte 0        n = number of workload operations
 *   2n bytes      ops: [thread<<4 | opcode][arg]   (thread, opcode taken mod)
 *   3 bytes each  schedule entries: [pos lo][pos hi][b]
 *                 b < 0x80: preemption at decision pos % hint: run
 *                           others[b % |others|] instead of the default
 *                 b >= 0x80: choice override: the pos-th weft_choose()
 *                           returns (b & 0x7f) % n
 * Missing bytes mean "nothing": the empty input is a serial run of an empty
 * workload; a truncated entry is ignored. Entries apply in position order.
 */
struct weft_entry {
	uint16_t pos;
	uint8_t b;
};

/* One workload op as both encodings hold it (the bytes above and a
 * genome's workload section): thread << 4 | opcode, and the argument. */
struct weft_wl_op {
	uint8_t t_op, arg;
};

struct weft_input {
	unsigned nr_wl_ops;
	struct weft_wl_op wl[255];
	unsigned nr_entries;
	struct weft_entry e[WEFT_MAX_ENTRIES];
};

/* Decode raw bytes (never fails: every input decodes to something). A
 * genome (below), which the bytes strategy runs as one, decodes to its
 * workload and no entries. */
void weft_input_decode(struct weft_input *in, const uint8_t *buf, size_t len);
/* Encode back; returns bytes written (cap must be >= 1 + 510 + 3*64). */
size_t weft_input_encode(const struct weft_input *in, uint8_t *buf, size_t cap);
/* The workload section of in (byte 0 the op count, then 2 bytes an op),
 * as weft_run_opts.workload and dfs take it; its length, or 0 if it does
 * not fit cap (1 + 510 always does). */
size_t weft_input_workload(const struct weft_input *in, uint8_t *wl, size_t cap);
/* The inverse: in's workload ops from a workload section w of nw bytes
 * (ops past its end are dropped). */
void weft_input_set_workload(struct weft_input *in, const uint8_t *w, size_t nw);
/* The workload section of variant vi's trigger input (struct
 * weft_scenario.triggers); 0 if the variant has none or it does not fit. */
size_t weft_trigger_workload(const struct weft_scenario *sc, unsigned vi, uint8_t *wl,
			     size_t cap);
/* dfs's default workload: variant vi's own trigger, else the first trigger
 * the scenario declares (a fixed variant is certified on the workload that
 * breaks its buggy sibling), else none: 0. *from (if not NULL): the
 * variant whose trigger it is, or -1. */
size_t weft_dfs_workload(const struct weft_scenario *sc, unsigned vi, uint8_t *wl, size_t cap,
			 int *from);
/* Whether the scenario declares workload operations (nr_opcodes or
 * opnames). One that declares none is given no ops whatever the input's
 * workload section holds, so its empty workload is its only one and a dfs
 * certificate over it covers every input. */
bool weft_scenario_takes_workload(const struct weft_scenario *sc);
#define WEFT_INPUT_MAX (1 + 2 * 255 + 3 * WEFT_MAX_ENTRIES)

/*
 * The schedule genome (docs/strategies.md, "genome"): the version-1 input
 * encoding of the fuzz targets. It starts with the two bytes FF C1, which a
 * legacy input would read as "255 ops, the first 0xC1": every other byte
 * string keeps its legacy meaning, so old corpora and the raw input of old
 * .weft files decode and replay as before.
 *   FF C1        magic, genome version 1
 *   mode         mode % 4: WEFT_MODE_SERIAL, _WALK, _PCT, _POS
 *   param        walk: 0 uniform over runnable, p > 0: preempt with
 *                probability p/256; pct: depth 1 + (param & 7), expected
 *                length k = 2^(param >> 3) steps; serial, pos: unused
 *   seed         u32 little-endian: the mode's random stream
 *   n, 2n bytes  workload ops [thread<<4 | opcode][arg], as legacy inputs
 *   3 bytes each overrides [key lo][key hi][b]:
 *     b <  0x80  key = tid << 12 | k: at the first decision at which thread
 *                tid is running (or has just blocked or ended) after its
 *                k-th operation, run others[b % |others|] (others: the
 *                runnable threads but the one the mode picks)
 *     b >= 0x80  key = i: the i-th weft_choose() returns (b & 0x7f) % n
 * Missing bytes are zero (a two-byte input is a serial run of an empty
 * workload); overrides past WEFT_MAX_ENTRIES are ignored. Overrides are
 * keyed by a thread's own operation count, so inserting or deleting an op
 * of another thread does not move them.
 *
 * Version 2 (weak memory) starts FF C2 and has one more header byte, mem,
 * before n:
 *   mem          bits 0-1: the memory model the input asks for (enum
 *                weft_memory_model; a value this build lacks asks for its
 *                weakest; a run never goes weaker than its options allow);
 *                bits 2-7: r, in every mode but serial each store is
 *                delayed with probability r/64 (code uniform in 1..15)
 *   overrides    as version 1, and b >= 0x80 with key bit 15 set: the
 *                (key & 0x7fff)-th store gets delay code b & 15
 * A legacy input starting FF C2 (255 ops, the first 0xC2) is read as a
 * version-2 genome. A raw fuzzer input of 0 or 1 bytes is, to the fuzz
 * targets and `weft import`, a genome: dfs's first execution or a fresh
 * walk genome (weft_raw_input(), strategy.h); to weft_bytes_init() it keeps
 * its legacy meaning.
 */
#define WEFT_GENOME_MAGIC0 0xffu
#define WEFT_GENOME_MAGIC1 0xc1u
#define WEFT_GENOME_MAGIC2 0xc2u  /* version 2 */
#define WEFT_GENOME_HEADER 9      /* magic, mode, param, seed, n */
#define WEFT_GENOME_HEADER2 10    /* magic, mode, param, seed, mem, n */
#define WEFT_OV_DELAY 0x8000u     /* v2: a delay override's key bit */
enum weft_genome_mode {
	WEFT_MODE_SERIAL = 0,     /* the non-preemptive default */
	WEFT_MODE_WALK,           /* seeded random walk */
	WEFT_MODE_PCT,            /* seeded PCT (Burckhardt et al., ASPLOS 2010) */
	WEFT_MODE_POS,            /* seeded POS (Yuan et al., CAV 2018) */
	WEFT_MODE__COUNT
};
struct weft_override {
	uint16_t key;
	uint8_t b;
};
struct weft_genome {
	uint8_t mode, param;
	uint32_t seed;
	uint8_t version;    /* 1 or 2 */
	uint8_t mem;        /* version 2: the mem byte */
	unsigned nr_ops;
	struct weft_wl_op wl[255];
	unsigned nr_ov;
	struct weft_override ov[WEFT_MAX_ENTRIES];
};
/* An override's key: a scenario thread (4 bits: a scenario has at most
 * WEFT_MAX_THREADS = 16 threads, checked where keys are decoded, genome.c)
 * and its operation count. Threads spawned during the execution (numbers
 * 16..63) are never steered by an override: the fuzzer reaches them only
 * through the genome's mode. */
#define WEFT_OV_KEY(tid, k) ((uint16_t)(((tid) & 15u) << 12 | ((k) & 0xfffu)))
#define WEFT_OV_TID(key) ((unsigned)(key) >> 12)
#define WEFT_OV_K(key) ((unsigned)(key) & 0xfffu)
/* True iff buf is a genome (starts FF C1 or FF C2). */
bool weft_input_is_genome(const uint8_t *buf, size_t len);
/* Decode (never fails) and encode (returns bytes, 0 if cap is too small;
 * an input longer than WEFT_INPUT_MAX loses its last overrides). */
void weft_genome_decode(struct weft_genome *g, const uint8_t *buf, size_t len);
size_t weft_genome_encode(const struct weft_genome *g, uint8_t *buf, size_t cap);
void weft_workload_decode(const struct weft_scenario *sc, const uint8_t *wlbytes,
			  size_t len, struct weft_workload *out);

/* ------------------------------------------------------------------ runs */

/* Optional detectors of a run (weft_run_opts.checks). */
#define WEFT_CHECK_LOCKDEP 1u        /* lockdep-lite (core/src/primitives/lockdep.c) */
/* lockdep-lite's IRQ-safe -> IRQ-unsafe order rule (needs WEFT_CHECK_LOCKDEP);
 * its own bit so that replay files recorded before it keep their verdicts */
#define WEFT_CHECK_LOCKDEP_IRQ_ORDER 2u
/* The run went on past warnings of kinds it did not ask for (--kind): a
 * report of a kind in WEFT_WARNING_KINDS other than the file's verdict is
 * counted and the execution goes on (weft_continue_kinds). Recorded so a
 * replay continues where the run did; files without it stop at every
 * report, as they were recorded. */
#define WEFT_CHECK_CONTINUE_WARNINGS 4u
/* Fair scheduling of spin loops (docs/strategies.md, "Fairness"): a thread
 * that spins without progress is not offered to the strategy again until
 * the threads that could run when it spun have run. Scheduling, not a
 * detector, but a bit of the same word so that files recorded before it
 * replay without it. */
#define WEFT_CHECK_FAIR 8u
/* weft_thread_spawn(.., WEFT_CPU_ANY, ..) (weft_pthread_create) puts the
 * thread on a CPU no unfinished thread is on; files recorded before it put
 * it on the CPU after its creator's, and replay so. */
#define WEFT_CHECK_SPAWN_CPU 16u
/* lockdep-lite classes a lock initialised in setup by its init site too, as
 * the docs say (before this bit, setup's init sites were forgotten and such
 * locks were classed by their offset); its own bit so that replay files
 * recorded before it keep their verdicts */
#define WEFT_CHECK_LOCKDEP_SETUP_CLASSES 32u
/* The trace hash folds each event in with two independent 64x64->128-bit
 * multiplies and one chained multiply (docs/replay-format.md, "Trace hash")
 * instead of four chained 64-bit finalisers: a different value, about a
 * fifth of the hash's instructions and a much shorter dependency chain per
 * step. Not a detector, but a bit of the same word so that replay files
 * recorded before it verify with the hash they were recorded with. */
#define WEFT_CHECK_TRACE_HASH2 64u
/* Fair scheduling judges a write's progress by what it changed: a store
 * that puts back the value its thread replaced earlier cancels that one
 * (a flag set and cleared in each iteration of a retry loop is no
 * progress, so the loop is seen spinning); before this bit every change
 * of a value was progress, and files recorded so replay so. Under
 * sequential consistency a thread seen spinning also blocks until another
 * thread changes what it read (machine/await.c). Programs only (no replay
 * in corpus/ has it): a program's file recorded with this bit before
 * spins blocked (Weft of 2026-12-04 and earlier) replays differently. */
#define WEFT_CHECK_FAIR_STATE 128u
/* lockdep-lite's rules of 96a7ec3's successor: a lock held when interrupts
 * or bottom halves come back on has the HARDIRQ-ON (SOFTIRQ-ON) usage
 * (mark_held_locks()); an rwlock's read_lock() has lockdep's read usages;
 * a nested down_read(), or a nested read_lock() outside interrupt
 * context, is recursive locking (deadlock). Its own bit so that replay
 * files recorded before it keep their verdicts. */
#define WEFT_CHECK_LOCKDEP_HELD_READS 256u
/* The scheduling rules `weft run` adds for an instrumented program (rt/):
 * models keep WEFT_CHECKS_SCHED, whose traces their corpora pin. */
#define WEFT_CHECKS_PROGRAM WEFT_CHECK_FAIR_STATE
/* The scheduling rules above and the trace hash, which every run has
 * whatever its detectors. */
#define WEFT_CHECKS_SCHED (WEFT_CHECK_FAIR | WEFT_CHECK_SPAWN_CPU | WEFT_CHECK_TRACE_HASH2)
#define WEFT_CHECKS_DEFAULT (WEFT_CHECK_LOCKDEP | WEFT_CHECK_LOCKDEP_IRQ_ORDER | WEFT_CHECKS_SCHED | \
			     WEFT_CHECK_LOCKDEP_SETUP_CLASSES | WEFT_CHECK_LOCKDEP_HELD_READS)   /* what the front ends use */

/*
 * Warnings: reports after which the kernel goes on (lockdep prints its
 * splat and the system runs), so a run that did not ask for their kind can
 * go on past them (weft_run_opts.continue_kinds) instead of leaving the
 * rest of the execution unexplored. Every other kind ends its execution.
 */
#define WEFT_WARNING_KINDS                                                  \
	((1ull << WEFT_KIND_LOCK_ORDER) | (1ull << WEFT_KIND_IRQ_LOCK_INVERSION) | \
	 (1ull << WEFT_KIND_LOCK_HELD_AT_EXIT))
/* The kinds a run with these checks continues past when it stops only at
 * kinds in want (0: every kind). A replay passes its verdict's kind. */
uint64_t weft_continue_kinds(unsigned checks, uint64_t want);

/*
 * A fact lockdep-lite established in an earlier execution of a run and a
 * report of a later one relied on (a lock-order edge a -> b, or a class's
 * interrupt usage). A replay seeds them so the report reproduces alone.
 * Classes are keys: 1 << 32 | init site id, or 2 << 32 | world offset.
 */
#define WEFT_LOCKDEP_FACT_EDGE 1
#define WEFT_LOCKDEP_FACT_USE 2
#define WEFT_LOCKDEP_MAX_FACTS 16
struct weft_lockdep_fact {
	uint8_t type;          /* WEFT_LOCKDEP_FACT_* */
	uint8_t use;           /* USE: 0 in hardirq, 1 hardirq-on, 2 in softirq, 3 softirq-on;
				  + 4: a read acquisition's */
	uint8_t tid_a, tid_b;
	uint64_t a, b;         /* class keys (b: EDGE only) */
	uint32_t loc_a, loc_b; /* an instance of each, for names */
	uint32_t site_a, site_b;
	uint32_t step_a, step_b;
};

struct weft_run_opts {
	const struct weft_scenario *sc;
	unsigned variant;
	enum weft_lock_model lock;
	uint64_t step_budget;        /* 0: the scenario's */
	bool record;                 /* keep every event and decision */
	bool feedback;               /* feed interleaving features */
	bool no_trace_hash;          /* searching: keep no trace (the result's
					hash is 0, weft_last_ring() gives no
					events, a report names no callers);
					re-run a report with record to get
					it (weft_check_determinism_rerun) */
	unsigned checks;             /* WEFT_CHECK_*: optional detectors (0: none;
					front ends use WEFT_CHECKS_DEFAULT) */
	bool lockdep_persist;        /* keep lockdep's graph across executions
					(a search; never a fuzz target) */
	uint8_t memory;              /* enum weft_memory_model (0: sc) */
	const struct weft_lockdep_fact *lockdep_seed;   /* a replay's witness */
	size_t nr_lockdep_seed;
	/* Reports of these kinds (only WEFT_WARNING_KINDS can go on) are
	 * counted in the result (continued_kinds) and leave no trace event:
	 * the execution goes on as if they had not fired. */
	uint64_t continue_kinds;
	/* A fuzz target's genome execution (set by the fuzz driver, nothing
	 * else): a model thread's weft_access() takes the lean scheduling
	 * point and trace and keeps the strategy's on_step and the
	 * interleaving feedback, when the execution is lean but for those
	 * two (no trace hash version 1, weak memory, recording or audit
	 * hook). The same execution, trace hash and features as without it;
	 * a strategy whose on_step or decisions need the full path (dfs's
	 * DPOR records, the audits' points) must run without it. */
	bool genome_lean;
};

struct weft_exec_result {
	enum weft_kind kind;         /* NONE: clean */
	struct weft_report report;
	uint32_t steps;
	uint32_t decisions;
	uint32_t switches;
	uint32_t preemptions;
	uint64_t trace_hash;
	uint32_t nr_wl_bytes;        /* workload bytes consumed */
	uint32_t nr_choices;
	/* The execution ended at its report while some thread could still
	 * run (every report but a deadlock, a lost wake-up or an audit at
	 * quiescence): what would have followed was never explored. */
	bool cut_short;
	/* Clean, but ended by weft_sched_infeasible() (an instrumented
	 * program's __VERIFIER_assume(0)) while another thread was not done. */
	bool infeasible;
	uint64_t continued_kinds;    /* 1 << kind of each warning gone past */
};

/* The machine: one per process (fibers and stacks are created once). */
int weft_machine_init(void);
/* Runs one execution with the given strategy state. Returns 0, or < 0 if
 * the strategy had nothing to run (its begin returned < 0). */
int weft_execute(const struct weft_run_opts *o, const struct weft_strategy_ops *ops,
		 void *st, struct weft_exec_result *r);

/* The recorded events and decisions of the last execution (o->record). */
const struct weft_event *weft_last_events(size_t *n);
const struct weft_decision_rec *weft_last_decisions(size_t *n);
/* Workload bytes and choice values of the last execution. */
const uint8_t *weft_last_workload(size_t *n);
/* Periodic state hashes (every WEFT_STATE_HASH_EVERY steps). */
#define WEFT_STATE_HASH_EVERY 64
const uint64_t *weft_last_state_hashes(size_t *n);
/* The facts of earlier executions the last report relied on (lockdep-lite
 * with lockdep_persist): store them with the report (replay files do). */
const struct weft_lockdep_fact *weft_lockdep_last_witness(size_t *n);
/* Forget lockdep's graph (a new run). */
void weft_lockdep_reset(void);

/* Threads of the last execution: the scenario's, then its interrupt
 * handlers' pseudo-threads (sc->nr_irqs), then the threads it spawned. */
unsigned weft_last_nr_threads(void);
/* The scenario interrupt thread tid delivered in the last execution, or -1
 * for an ordinary thread. */
int weft_last_thread_irq(unsigned tid);
/* Whether the context machinery is active in the current (or last)
 * execution: interrupts declared, migration, or two threads sharing a CPU
 * (then a thread may be excluded by another context holding its CPU,
 * which no dependence record shows: partial-order reduction makes every
 * two events on one CPU dependent, weft_thread_cpu(), bounded or not,
 * and does not certify interrupts or migration). */
bool weft_contexts_active(void);
/* Whether the current (or last) execution has an interrupt pseudo-thread:
 * a declared handler's (sc->nr_irqs) or one the machine made on demand (a
 * CPU's timer softirq, <weft/timer.h>). Partial-order reduction does not
 * certify such an execution: a handler runs on top of the thread it
 * interrupts, an order no dependence record shows. */
bool weft_interrupts_active(void);
/* The CPU thread tid of the current execution is on now (for a strategy's
 * ops->on_step; without migration, its CPU for the whole execution). */
unsigned weft_thread_cpu(unsigned tid);
/* Whether fair scheduling withheld a spinning thread at some decision of
 * the current (or last) execution (WEFT_CHECK_FAIR; docs/strategies.md). */
bool weft_fair_restricted(void);
/* Inside a pick_value() call: the values of this weft_choose() (bit v for
 * value v) whose choice is unfair, as weft_decision.unfair's threads are,
 * and only repeats an iteration of a wait loop (weft_decision.spin_retry):
 * a spurious wake-up of a condition variable's waiter woken spuriously
 * before with nothing changed by another thread since. Never value 0; 0
 * for every other choice. dfs charges such a value as it charges an unfair
 * thread (a preemption, and one against --fair-bound), pct passes it over,
 * random may draw it. */
uint64_t weft_choice_unfair(void);
/* Whether the current (or last) execution had a weft_choose() with an
 * unfair value (weft_choice_unfair()): partial-order reduction takes
 * value 0 there and cannot certify, bounded or not. */
bool weft_unfair_values(void);
/* Why the last execution did something partial-order reduction cannot
 * reason about (an observation of another thread's state that no
 * dependence record shows: pthread_tryjoin_np() finding it running), or
 * NULL; dfs with reduction then cannot certify, and `weft run` searches
 * with plain dfs. weft_sched_untracked() says so, in an execution. */
const char *weft_untracked_why(void);
void weft_sched_untracked(const char *why);
/* Whether thread tid spun (docs/strategies.md, "Fairness") at the current
 * step: for a strategy's ops->on_step, which fair scheduling has already
 * judged (a yield is judged after its record). */
bool weft_fair_spun_now(unsigned tid);
/* weft_choose() calls of more than one value in the current (or last)
 * execution: model-internal decisions that partial-order reduction does
 * not enumerate (plain dfs does), so it does not certify. */
uint32_t weft_free_choices(void);
/* The model's world after the last execution (for stats and audits). */
const void *weft_last_world(void);
/* Choice values (weft_choose) and decoded workload of the last execution. */
const uint32_t *weft_last_choices(size_t *n);
/* Weak memory: the memory model the last execution ran under, and the
 * delay code each of its stores got (weft_run_opts.memory); nr: stores
 * asked, which may exceed the WEFT_MAX_DELAYS kept. */
#define WEFT_MAX_DELAYS 4096
enum weft_memory_model weft_last_memory(void);
const uint8_t *weft_last_delays(size_t *n);
const struct weft_workload *weft_last_workload_ops(void);
/* The name the machine gave thread tid of the last execution when it made
 * the thread itself ("kworker/1", "rcuc"), or NULL (the scenario's threads,
 * interrupt pseudo-threads, threads the model spawned). */
const char *weft_last_thread_label(unsigned tid);
/* How many events the last execution had traced when thread tid ended
 * (its end lies before that index of weft_last_events()), or UINT32_MAX
 * if it did not end (an interrupt pseudo-thread, a thread still asleep, an
 * execution a report cut short). The scenario's threads end without an
 * event of their own (their traces predate spawned threads): this says
 * when, for display. */
uint32_t weft_last_thread_end(unsigned tid);
/*
 * For strategies, during an execution (from pick_next): the operation
 * thread tid is paused before, as a dependence record (kind from its site:
 * READ for a load or test, ACQUIRE for a lock, JOIN (arg: the thread),
 * YIELD for a thread paused in a yield, whose next operation is not known
 * yet, else WRITE; loc/size what it will touch). False if tid has not started (its first operation is not
 * known before it runs), has ended, or is blocked. *would_block (may be
 * NULL) says whether the operation would put it to sleep now (a held lock,
 * an unfinished thread to join).
 */
bool weft_thread_pending(unsigned tid, struct weft_step_info *out, bool *would_block);
/* Of the threads in the mask among (bit tid), those weft_thread_pending()
 * answers for now (started, runnable, paused before an operation): one
 * call where a strategy would ask about each. */
uint64_t weft_threads_paused(uint64_t among);
/* weft_step_info.flags: a record of spin_lock() (ACQUIRE, BLOCKED) or
 * spin_unlock() (RELEASE): a spin wait, which under the test-and-set
 * model changes nothing when it finds the lock held, unlike a sleeping
 * lock's blocked attempt, which queues its waiter. weft_thread_pending()
 * sets it for a thread paused before a spin wait. */
#define WEFT_STEP_SPIN 1u
/* weft_step_info.flags: the record's step follows the first point of a
 * new thread, which the machine passes without a decision (the decision
 * that switched the thread in stands for it): with the thread's records
 * before that point (an allocation's, which has no point of its own) it
 * is one transition. */
#define WEFT_STEP_PASSED 2u
/* weft_step_info.flags: a record that a non-preemptible region's entry or
 * exit adds to the step of the operation that changed the context (a
 * lock, an unlock, preempt_disable() ...): the thread's RCU reader slot,
 * which a grace period reads (rcu.c). It is no operation of its own: a
 * strategy that counts operations or reads a lock's release from the
 * records (the genome's overrides and POS, a test's lock step) skips it. */
#define WEFT_STEP_CTX 4u
/*
 * For strategies, during an execution: the last time thread tid was made
 * runnable after blocking (a wake-up), by which thread (0xff: the host) at
 * which step (the waker's step, whose dependence records name what woke
 * it). False if tid was never woken in this execution.
 */
bool weft_thread_woken(unsigned tid, unsigned *waker, uint32_t *step);
/* The fake CPU thread tid of sc runs on. */
unsigned weft_cpu_of(const struct weft_scenario *sc, unsigned tid);
/* Interleaving feedback: the machine increments map[hash(feature) & (size-1)]
 * for context-switch site pairs, reads-from pairs and state buckets while
 * attached (size a power of two; NULL detaches). */
void weft_feedback_attach(uint8_t *map, size_t size);
/* Feature families, and where each goes: those in in_map to map, the
 * others to aux (NULL: not collected). Both maps have size bytes. */
#define WEFT_FB_SWITCH      1u   /* context-switch site pairs */
#define WEFT_FB_READS_FROM  2u   /* last writer's site x reader's site */
#define WEFT_FB_STATE       4u   /* the scenario's state buckets x site */
#define WEFT_FB_LOCK        8u   /* lock and trylock outcomes x site */
#define WEFT_FB_ALL         15u
void weft_feedback_route(uint8_t *map, uint8_t *aux, size_t size, unsigned in_map);

/*
 * Instrumented programs (rt/, docs/testing-c-programs.md). Their sites are
 * made at run time, one per instruction that performs a visible
 * operation, so they are not in the weft_sites section: a lookup by id
 * finds them (display only: the replay file stores ids). A program's
 * identity is what a replay file records so that it replays only on the
 * build that made it.
 */
void weft_dynamic_sites(const struct weft_site *(*by_id)(uint32_t id));
/* The site of that id made at run time, or NULL. */
const struct weft_site *weft_dynamic_site(uint32_t id);

#define WEFT_BUILD_ID_MAX 32
#define WEFT_PROGRAM_MAX_ARGS 64
struct weft_program {
	const char *path;              /* absolute path of the executable */
	uint8_t build_id[WEFT_BUILD_ID_MAX];
	unsigned build_id_len;         /* 1..WEFT_BUILD_ID_MAX */
	unsigned argc;                 /* main's arguments after argv[0] */
	char *const *argv;
	const char *options;           /* run options that change executions
					  ("" for none), e.g. "heap=4M" */
	/* the build id of the runtime (libweft_rt, a shared library: the
	 * program keeps its own build id when only the runtime changes);
	 * 0 bytes: unknown */
	uint8_t runtime_id[WEFT_BUILD_ID_MAX];
	unsigned runtime_id_len;
};
/* Who fills a report's stack: called when a report is made, with the
 * thread the report is about (-1: the host). */
void weft_report_stack_source(void (*fn)(int tid, char *buf, size_t n));
void weft_report_stack_of(int tid, char *buf, size_t n);
/* The program this process runs (NULL in a model's program). */
const struct weft_program *weft_program_self(void);
void weft_program_set(const struct weft_program *p);

/* Stable fingerprint of a scenario's model (its sites and version). */
uint64_t weft_scenario_fingerprint(const struct weft_scenario *sc);

/* Print a report in the documented format: an ERROR: line, both sides,
 * the last events, and (if sc is given) the object names. */
void weft_report_print(FILE *f, const struct weft_run_opts *o,
		       const struct weft_exec_result *r);
/* Describe world offset off of the last execution ("page 3 ->count"). */
void weft_describe_loc(const struct weft_scenario *sc, uint32_t off, char *buf, size_t n);
/* What a world pointer to off points at: describe() names the innermost
 * field at an offset, but an object and its first field share it, so a
 * pointer names the largest thing that starts there ("page 0 ->lru" for a
 * pointer to "page 0 ->lru.next"). */
void weft_describe_pointer(const struct weft_scenario *sc, uint32_t off, char *buf, size_t n);
/* The length of a name's first path component, its object ("page 0" of
 * "page 0 ->lru.next"): up to " ->", "->" or ".". */
size_t weft_name_object_len(const char *name);
/* "read", "rmw", "lock", ... */
const char *weft_ev_name(unsigned ev);
/* The last WEFT_TRACE_RING events of the last execution, oldest first. */
size_t weft_last_ring(struct weft_event *out, size_t cap);

/* Fences of weft_fence(): the kernel's barriers (memory-barriers.txt). */
enum weft_fence_kind {
	WEFT_FENCE_MB = 0,            /* smp_mb(): full */
	WEFT_FENCE_RMB,               /* smp_rmb(): loads before it, loads after */
	WEFT_FENCE_WMB,               /* smp_wmb(): stores before it, stores after */
	WEFT_FENCE_BEFORE_ATOMIC,     /* smp_mb__before_atomic() */
	WEFT_FENCE_AFTER_ATOMIC,      /* smp_mb__after_atomic() */
	WEFT_FENCE_AFTER_SPINLOCK,    /* smp_mb__after_spinlock() */
	WEFT_FENCE_RELEASE,           /* C11's release fence: smp_wmb(), and what
					 its CPU saw before precedes its later
					 stores for every CPU (A-cumulative) */
};

struct weft_spinlock {
	uint32_t locked;   /* 1 + owner thread, 0 if free */
	uint32_t next;     /* ticket dispenser */
	uint32_t serving;  /* ticket being served */
};

#ifndef WEFT_NATIVE
/* The spinlock of the controlled build, for <weft/kernel.h> and
 * <weft/linux/kernel_compat.h> (the native build's are <weft/native.h>'s
 * inlines): every form disables preemption while it is held. */
void weft_spin_lock(struct weft_spinlock *l, const struct weft_site *s);
bool weft_spin_trylock(struct weft_spinlock *l, const struct weft_site *s);
void weft_spin_unlock(struct weft_spinlock *l, const struct weft_site *s);
bool weft_spin_is_locked(const struct weft_spinlock *l);
/* spin_lock_init(): a free lock whose lockdep class is this init site */
void weft_spin_lock_init(struct weft_spinlock *l, const struct weft_site *s);
void weft_spin_lock_irq(struct weft_spinlock *l, const struct weft_site *s);
void weft_spin_unlock_irq(struct weft_spinlock *l, const struct weft_site *s);
unsigned long weft_spin_lock_irqsave(struct weft_spinlock *l, const struct weft_site *s);
void weft_spin_unlock_irqrestore(struct weft_spinlock *l, unsigned long flags,
				 const struct weft_site *s);
bool weft_spin_trylock_irqsave(struct weft_spinlock *l, unsigned long *flags,
			       const struct weft_site *s);
void weft_spin_lock_bh(struct weft_spinlock *l, const struct weft_site *s);
void weft_spin_unlock_bh(struct weft_spinlock *l, const struct weft_site *s);
#endif

#ifdef __cplusplus
}
#endif
#endif
