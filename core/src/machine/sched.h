/*
 * sched.h - the scheduler interface inside libweft (core/src only).
 *
 * machine.c owns the execution: fibers, the thread table, decisions,
 * blocking and waking, reports, the trace. Every primitive family lives in
 * a file of its own (machine/access.c and shadow.c, and primitives/: the
 * spinlock, sleeping, RCU and context families...) and reaches the machine
 * only through this header:
 *
 *   sched_point_at()     the scheduling point before a visible operation,
 *                        naming what the operation will touch (for partial-
 *                        order reduction and for "would it block?");
 *   weft_trace()         the trace event (and trace hash) of the operation;
 *   check_uaf(), shadow_write(), feedback_*()
 *                        the shadow state behind the detectors;
 *   weft_sched_block()   the current thread sleeps on a wait channel until
 *   weft_sched_wake_*()  a waker makes it runnable again;
 *   weft_sched_step()    the operation's dependence record for strategies
 *                        that want one (ops->on_step).
 *
 * The machine reaches the families only through their hooks (struct
 * weft_family below; the table is primitives/families.c): it includes no
 * header of primitives/ and calls none of their functions by name.
 *
 * Invariants (see machine.c for the rest):
 *  - Exactly one model thread runs at a time (M.cur), or the host context
 *    (M.cur == -1) during setup and audits; primitives called from the host
 *    take no scheduling point.
 *  - runnable holds exactly the threads in T_RUNNABLE.
 *  - A thread in T_BLOCKED has wait_chan and wait_class set; it becomes
 *    runnable only through weft_sched_wake_*(), and re-checks its condition
 *    when it runs again (a wake-up is a hint, as in the kernel).
 *  - Shadow entries are valid only when their epoch equals M.epoch.
 *
 * The hot path (sched_point_at, weft_trace, the shadow helpers) is inline
 * here so that every primitive file compiles it into its own operations.
 *
 * Length (~850 lines): the machine state (struct weft_machine) and that
 * inline hot path are the interface every family compiles against; the
 * out-of-line parts live in the .c files of machine/.
 */
#ifndef WEFT_SCHED_H
#define WEFT_SCHED_H

#include <setjmp.h>
#include <signal.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "fiber.h"
#include "internal.h"
#include "memory/memory.h"

/* The families' state of one execution (primitives/core_state.h); the
 * machine knows only its size, weft_core_size (internal.h). */
struct weft_core_state;

enum { T_IDLE = 0, T_RUNNABLE, T_BLOCKED, T_DONE };
/* struct wthread.may_migrate: why the resumed hook may move the thread */
enum { WEFT_MIGRATE_RESUMES = 1, WEFT_MIGRATE_STAYS = 2 };

/* The owner word of a lock taken by setup (no thread): a spinlock's
 * locked, a mutex's owner, an rwsem's writer. Owner callbacks return
 * WEFT_OWNER_HOST for it, reports say "setup". */
#define WEFT_HOST_OWNER 0xffffffffu
#define WEFT_OWNER_HOST (-2)

/*
 * What a blocked thread waits on. One class per primitive family: it names
 * the channel's owner (the thread that must act before the waiter can go
 * on; -1 if none) for the deadlock and lost-wakeup reports, and says
 * whether a thread about to operate on the channel would block.
 */
struct weft_wait_class {
	const char *name;               /* "spinlock", "mutex", "completion"... */
	bool sleeps;                    /* a sleeping wait (lost wakeup if nobody
					   can wake it) rather than a spin */
	bool idle;                      /* a daemon waiting for work: never stuck
					   (an execution may end with it asleep) */
	int (*owner)(const void *chan);
	/* optional: the owner a particular waiter waits for, where the
	 * channel alone does not say (a bit wait: the holder of the bit it
	 * waits on, not of another bit of the same word); overrides owner */
	int (*waiter_owner)(const void *chan, unsigned tid);
	bool (*busy)(const void *chan, unsigned tid);   /* optional */
};

#define WEFT_AWAIT_LOCS 16

struct wthread {
	struct weft_fiber fib;
	uint8_t state;
	bool started;
	bool pass;          /* first point after its first switch-in: no decision */
	uint32_t pass_step; /* the step that follows the passed point (records
			       flagged WEFT_STEP_PASSED); UINT32_MAX: none */
	bool has_ticket;
	uint32_t ticket;
	const void *wait_chan;                   /* T_BLOCKED: what it waits on */
	const struct weft_wait_class *wait_class;
	const struct weft_site *wait_site;
	uint32_t wait_step;                      /* when it blocked (reports) */
	const struct weft_site *last_site;       /* where it is paused */
	/* the operation it is paused before (valid while paused at a point) */
	uint32_t pend_loc;
	uint32_t pend_size;
	const void *pend_addr;
	const struct weft_wait_class *pend_class;
	/* threads started by weft_thread_spawn() (NULL: the scenario's body) */
	void (*fn)(void *world, void *arg);
	void *arg;
	const char *label;    /* "kworker/1" for a machine-made thread */
	/* its last wake-up (weft_thread_woken()): the waker's step + 1 (0:
	 * never woken in this execution) and the waker */
	uint32_t wake_step1;
	uint8_t waker;
	uint32_t end_ev;      /* events traced when it ended (UINT32_MAX: not
				 ended); display only */

	/* fair scheduling (M.fair): progress changes with every event of this
	 * thread that changes state (a write that changes a value, a block, a
	 * spawn, a free...), except that a lock's acquisition and its release
	 * cancel (xor of h(lock)): a loop iteration that only takes and drops
	 * a lock and looks leaves it as it was. With WEFT_CHECK_FAIR_STATE
	 * (M.fair_state) a write's change cancels the same way (xor of
	 * h(loc, old) ^ h(loc, new)): stores that put back what was there (a
	 * flag set and cleared, SV-COMP's lock1 = 1 ... lock1 = 0) are no
	 * progress either. obs[] its last observations
	 * (a read, a failed trylock,
	 * an RMW or store that left the value), one slot per site and location,
	 * the least recently stored reused. The same
	 * observation again — same site and location, no other thread's write
	 * to it since, the same progress — is a spin. */
	uint64_t progress;
	struct weft_spin_obs {
		uint32_t site_id, loc, w;
		uint32_t repeats;            /* times seen again unchanged */
		uint64_t run;                /* the quiet stretch (M.run_id) when
						stored: valid in that stretch only */
		uint64_t progress;
		uint32_t stores;             /* nr_stores then (await) */
		uint64_t frames;             /* weft_await_frames() then (await) */
	} obs[4];
	uint8_t obs_next;                    /* the slot to reuse next */
	const struct weft_site *spin_site;   /* its last spin (reports) */
	uint32_t spin_loc;
	uint32_t nr_spins;                   /* spins since an observation changed */
	/* await (M.await_spins, await.c): the locations it read or failed to
	 * change in quiet stretch reads_run (nr_reads > WEFT_AWAIT_LOCS: too
	 * many to await); await_pending: it spun, and blocks at its next point */
	uint64_t reads_run;
	uint32_t reads[WEFT_AWAIT_LOCS];
	uint8_t nr_reads;
	bool await_pending;
	uint32_t nr_stores;   /* its stores and RMWs, changing or not (await) */
	uint32_t spun_step;                  /* M.step + 1 of its last spin (0: none) */
	/* its quiet stretch (fairness.c) while it does not run: M.run_len
	 * and M.run_id saved at a switch away from it, restored at a switch
	 * to it */
	uint32_t quiet_len;
	uint64_t quiet_id;
	/* yields (weft_yield()) and spurious wake-ups (a condition variable's wait):
	 * M.fair_wr[] of this thread at its last yield (none before its
	 * first: its start is a change), that yield's site
	 * and the stack's hash there, M.switches + 1 when it
	 * last went on at a yield (0: never), and the condition variable of
	 * its last spurious wake-up (WEFT_NO_LOC: none) with the other
	 * threads' weft_fair_others() then */
	uint64_t yield_wr, yield_sw;
	const struct weft_site *yield_site;   /* its last yield's site */
	uint64_t yield_frames;               /* weft_await_frames() there */
	uint64_t yield_others;               /* weft_fair_others() there (await) */
	bool await_any;                      /* it awaits any other thread's change */
	uint32_t spur_loc;
	uint64_t spur_wr;

	/* context (context.c): the kernel's preempt_count, split, and what a
	 * machine-made thread is; two words, reset with two stores per
	 * execution */
	union {
		struct {
			uint16_t preempt;   /* preempt_disable() depth, spinlocks included */
			uint8_t irq_off;    /* local interrupts masked */
			uint8_t bh;         /* local_bh_disable() depth */
			uint8_t in_irq;     /* 1: a hardirq handler, 2: a softirq handler */
			uint8_t ctx_flags;  /* WEFT_EVF_* of the above, or-ed into its events */
			bool on_cpu_stack;  /* holds its CPU (non-preemptible) */
			bool irq_again;     /* an interrupt raised again while it ran */
			uint8_t irq1;       /* 1 + the scenario irq it delivers; 0: none */
			bool daemon;        /* an idle wait of it is not a stuck thread */
			/* migratable and preemptible: WEFT_MIGRATE_RESUMES (it was
			 * preempted) or WEFT_MIGRATE_STAYS (it goes on at a
			 * preemption point), for the resumed hook; 0 otherwise */
			uint8_t may_migrate;
		};
		uint64_t ctx_words[2];
	};
};

struct shadow {
	uint32_t epoch;
	uint32_t step;
	const struct weft_site *site;
	uint8_t tid;
	uint8_t poisoned;
};

enum { WEFT_HASH1 = 1, WEFT_HASH2 = 2 };   /* M.hashing: the trace hash's version */

#define WEFT_DEFAULT_STEP_BUDGET 200000u
#define WEFT_LONE_YIELD_LIMIT 1000u
#define WEFT_MAX_RECORD_EVENTS (1u << 20)
#define WEFT_MAX_RECORD_DECISIONS (1u << 20)
#define WEFT_MAX_CHOICES 4096

struct weft_machine {
	bool inited;
	struct weft_fiber main;
	size_t stack_size;        /* of every fiber (WEFT_STACK_KIB) */
	unsigned nr_fibers;       /* th[0 .. nr_fibers-1] have theirs */
	struct wthread th[WEFT_EXEC_MAX_THREADS];

	/* the current execution */
	const struct weft_run_opts *o;
	const struct weft_scenario *sc;
	void (*world_resume)(unsigned tid);   /* sc->world_ops->resume, or NULL */
	const struct weft_strategy_ops *ops;
	void *st;
	/* ops->uniform(st), or NULL: weft_sched_decide() draws the pick */
	struct weft_rng *pick_rng;
	struct weft_exec_result *res;
	uint8_t *world;
	size_t world_size, world_cap;
	bool world_external;      /* the scenario's memory (weft_world_ops) */
	/* the families' state of this execution, after the world (core_state.h) */
	struct weft_core_state *core;
	uint32_t core_off;        /* world offset of core: world_size rounded up, or
				     inside a scenario's own world (core_offset) */
	uint32_t loc_limit;       /* the end of the world or of core, whichever is
				     last: offsets below are locations */
	uint32_t core_zero_off;   /* core is all zero at this offset (or ~0u) */
	bool core_used;           /* a family wrote core in this execution */
	/* a family's freed hook to call while core is unused (a queued work
	 * item: the other families' hooks, run with core, record what a
	 * free reads of them); reset with core */
	void (*freed_watch)(uint32_t loc, uint32_t len, const struct weft_site *s);
	bool switch_watch;        /* call the families' switched hooks */
	struct shadow *shadow;
	uint32_t epoch;
	uint64_t step_budget;
	unsigned nr_threads;      /* threads that exist (the scenario's + spawned) */
	unsigned nr_blocked;      /* threads in T_BLOCKED */
	uint8_t cpu_of[WEFT_EXEC_MAX_THREADS];   /* per execution: trace() runs at every step */
	int cur;
	uint64_t runnable;
	uint64_t started;        /* the threads started in this execution (an
				    interrupt's pseudo-thread stays in it
				    between deliveries, when started is false) */
	uint32_t step, decisions, switches, preemptions, choices;
	uint32_t free_choices;   /* weft_choose() calls of more than one value */
	uint64_t choice_unfair;  /* weft_choice_unfair(): during a pick_value() */
	uint32_t lone_yields;
	/* fair scheduling (docs/strategies.md, "Fairness"; CHESS's fair
	 * scheduler, Musuvathi and Qadeer, PLDI 2008): a thread t in spinners
	 * spun without progress; choosing it is unfair while a thread of
	 * spin_wait[t] (the others that could run when it spun) is eligible
	 * and has not run since. */
	bool fair;               /* o->checks & WEFT_CHECK_FAIR */
	bool fair_state;         /* o->checks & WEFT_CHECK_FAIR_STATE */
	bool await_spins;        /* fair && fair_state: a spin blocks (await.c) */
	unsigned nr_await;       /* threads blocked in await */
	bool await_hang;         /* the execution ended as every thread awaited */
	/* M.cur's quiet stretch (fairness.c): the length of its own run of
	 * events since its last change (fair_quiet_ends()), switches or not,
	 * and the stretch's id; M.th[].quiet_len/quiet_id hold them while
	 * it does not run */
	uint32_t run_len;
	uint64_t run_id;
	uint64_t stretch_seq;    /* the last stretch id handed out: never reused */
	bool fair_restricted;    /* some decision had an unfair choice */
	bool unfair_values;      /* some weft_choose() had an unfair value */
	/* an operation partial-order reduction has no dependence record for
	 * happened (weft_sched_untracked()): why, or NULL */
	const char *untracked;
	uint64_t spinners;
	uint64_t spin_wait[WEFT_EXEC_MAX_THREADS];
	/* per thread, what its events changed for the others (fair_mark()):
	 * equal at two points, nothing changed in between */
	uint64_t fair_wr[WEFT_EXEC_MAX_THREADS];
	uint64_t plain_old;   /* value under the pending PLAIN_WRITE */
	uint32_t evseq;       /* events traced in this execution */
	uint64_t hash;
	uint8_t hashing;      /* 0: o->no_trace_hash, else WEFT_HASH1 or WEFT_HASH2
				 (o->checks & WEFT_CHECK_TRACE_HASH2) */
	/* The execution keeps its trace: the hash, the ring (M.ring: the
	 * last events, which reports name and print) and, with o->record,
	 * the recording. Not kept by a search's executions that ask for no
	 * trace hash and no recording (o->no_trace_hash): their caller
	 * re-runs a report with recording (weft_check_determinism) to get
	 * it, so the ring would only be written, never read. */
	bool keep_ring;
	void (*on_step)(void *st, const struct weft_step_info *si);   /* ops->on_step */
	/* This execution uses none of: trace hash version 1, on_step,
	 * interleaving feedback, weak memory, recording. Decided once per
	 * execution, before its threads run: the primitives' lean paths (a
	 * "lean" argument, constant, for a model thread) leave those checks
	 * out. */
	bool lean;
	/* Not M.lean only for on_step or interleaving feedback, and the run
	 * asked for it (o->genome_lean: the fuzz targets' genome executions,
	 * never inferred from on_step: DPOR's and the audits' executions
	 * need the full path's point): a model thread's weft_access() takes
	 * the lean point and trace and keeps those two (access.c). The
	 * primitives' lean paths still look at M.lean alone. */
	bool lean_fb;
	/* The host context's accesses (setup, audits) need none of: on_step,
	 * interleaving feedback, recording. Decided before setup, cleared at
	 * the end of weft_execute(): access_host_quiet() leaves them out. */
	bool host_quiet;
	uint8_t next_flags;
	bool in_exec, aborted, stack_overflow;
	bool infeasible;      /* weft_sched_infeasible() with a thread left */
	bool running;         /* inside weft_execute(): setup, threads, audits */
	/* A family that follows the values of some words (sleep.c: a bit
	 * lock's holder is known until any store clears its bit, not only
	 * clear_bit_unlock(), so a "held by" never names a thread that let
	 * the bit go) sets this for the execution: the funnel calls it after
	 * every store that changed a word. NULL: nobody follows. */
	void (*word_written)(uint32_t loc, uint64_t word);
	bool draining;
	int abort_tid;        /* the thread whose report ended the execution */
	struct weft_workload wl;
	uint8_t wl_bytes[WEFT_INPUT_MAX];
	size_t wl_len;

	struct weft_event ring[WEFT_TRACE_RING];
	/* The helper call each context is in (index: M.cur + 1, 0 the host),
	 * for the events' display-only caller; fresh until its first event. */
	struct {
		const struct weft_caller *c;
		bool fresh;
	} callers[WEFT_EXEC_MAX_THREADS + 1];
	/* The model's call of the library (kit) operation each context is
	 * in (the outermost): what a report names. The events carry it as
	 * their caller (callers[]) unless a list helper's call is open. */
	const struct weft_caller *kit_callers[WEFT_EXEC_MAX_THREADS + 1];

	/* recording (o->record) */
	struct weft_event *ev;
	size_t nr_ev, cap_ev;
	struct weft_decision_rec *dec;
	size_t nr_dec, cap_dec;
	uint32_t choice_vals[WEFT_MAX_CHOICES];
	uint64_t *state_hashes;
	size_t nr_sh, cap_sh;

	/* contexts (context.c): who may run on each CPU. A CPU's stack holds
	 * the non-preemptible contexts on it, innermost last; only the top
	 * may run there. excluded: threads that may not run now because
	 * another context holds their CPU. Zero unless ctx_active. */
	bool ctx_active;      /* some CPU is shared, or interrupts are declared */
	uint64_t excluded;
	uint64_t irq_threads;                 /* mask of interrupt pseudo-threads */
	uint64_t cpu_threads[WEFT_EXEC_MAX_CPUS];  /* threads bound to each CPU */
	int8_t cpu_stack[WEFT_EXEC_MAX_CPUS][4];
	uint8_t cpu_depth[WEFT_EXEC_MAX_CPUS];

	/* interleaving feedback: fb is non-NULL iff any family is routed;
	 * each family's map (NULL: not collected), all of fb_mask + 1 bytes */
	uint8_t *fb;
	uint8_t *fb_sw, *fb_rf, *fb_st, *fb_lk;
	uint32_t fb_mask;
	sigjmp_buf overflow_jmp;
};

/* The one machine of this process. core/src files call it M. */
extern struct weft_machine weft_machine_state;
#define M weft_machine_state

/* ----------------------------------------------------------- utilities */

uint32_t weft_site_hash(const struct weft_site *s);

static inline uint32_t site_id(const struct weft_site *s)
{
	/* Sites outside the section (never in this tree) get their id late. */
	if (__builtin_expect(!s->id, 0))
		((struct weft_site *)s)->id = weft_site_hash(s);
	return s->id;
}

/* The scenario interrupt a thread delivers, or -1. */
#define thread_irq(t) ((int)(t)->irq1 - 1)
/* irq1 of a softirq pseudo-thread a primitive family made (the timers'
 * timer/N, through the context family): not one of the scenario's irqs[] */
#define WEFT_IRQ1_DYNAMIC 255

/* Thread masks: bit t for thread t (WEFT_EXEC_MAX_THREADS <= 64). */
_Static_assert(WEFT_EXEC_MAX_THREADS <= 64, "thread masks are 64-bit");
static inline uint64_t tbit(unsigned t)
{
	return 1ull << t;
}

static inline unsigned lowest(uint64_t mask)
{
	return (unsigned)__builtin_ctzll(mask);
}

static inline uint32_t loc_of(const void *p)
{
	uintptr_t a = (uintptr_t)p, w = (uintptr_t)M.world;

	return a - w < M.loc_limit ? (uint32_t)(a - w) : WEFT_NO_LOC;
}

/*
 * The public primitives' operands must lie inside the model's world,
 * [M.world, M.world + M.world_size): a racy index or a stale pointer that
 * leaves it (&W->a[-1], a host global, a wild pointer) is an out-of-world
 * report, and the operation is never performed on host memory. The core
 * area after the world (M.core) belongs to the families, which reach it
 * through M.core, never through a public primitive.
 *
 * weft_out_of_world() reports: from a model thread it does not return;
 * from the host context (setup, audits) the report is recorded and it
 * returns false, and the caller must not touch p. Outside an execution
 * there is no world to check against: it returns true (the caller goes on
 * as before).
 */
bool weft_out_of_world(const void *p, size_t size, const struct weft_site *s);

/* The end of a fault handler of the machine's (a fiber's stack overflow)
 * or the runtime's (a crash of the program) for a fault it does not keep:
 * sig passed on to old, the handler installed before it, or, where that
 * was none or SIG_IGN, the default action (sig raised under SIG_DFL). */
void weft_chain_signal(const struct sigaction *old, int sig, siginfo_t *si, void *uc);

static inline bool in_world(const void *p, size_t size, const struct weft_site *s)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)M.world;

	if (__builtin_expect(off < M.world_size && M.world_size - off >= size, 1))
		return true;
	return weft_out_of_world(p, size, s);
}

/* The world offset of a model thread's operand [p, p + size); outside the
 * world the report ends the execution there (model threads only). */
static inline uint32_t thread_loc(const void *p, size_t size, const struct weft_site *s)
{
	in_world(p, size, s);
	return (uint32_t)((uintptr_t)p - (uintptr_t)M.world);
}

/* ------------------------------------------------------- fairness */

void weft_fair_spun(unsigned tid, const struct weft_site *s, uint32_t loc);
uint64_t weft_fair_offer(uint64_t e);
void weft_fair_ran(unsigned tid);
void weft_fair_reset(void);
void weft_fair_thread_reset(struct wthread *t);
/* What the threads but tid changed (M.fair_wr[]), folded: equal at two
 * points, none of them changed anything in between. */
uint64_t weft_fair_others(unsigned tid);
/* The spinners (and the threads that run) for a livelock report. */
size_t weft_fair_describe(char *buf, size_t n);
/* weft_choose() whose values in unfair (bit v: value v, never value 0)
 * only repeat an iteration of a wait loop (weft_choice_unfair()). */
uint32_t weft_choose_unfair(uint32_t n, uint64_t unfair, const struct weft_site *s);

/* The threads of e whose choice is unfair: spinners that must let others
 * run first (0 if every thread of e spins, or none does). */
static inline uint64_t unfair_of(uint64_t e)
{
	return __builtin_expect(!M.spinners, 1) ? 0 : weft_fair_offer(e);
}

/* Spins are looked for only in a quiet stretch of the current thread (its
 * own events since its last change, whatever switches fell between) at
 * least this many events long: a thread that keeps changing things is
 * no spinner, and the bookkeeping stays off the hot path. */
#define WEFT_FAIR_RUN 8
void weft_fair_event(unsigned ev, uint32_t loc, uint64_t old, uint64_t val,
		     const struct weft_site *s);


/* await (await.c): block the current thread, which spun (sched_point_at);
 * wake the waiters on loc after another thread's event ev there (weft_trace) */
void weft_await_block(const struct weft_site *s);
/* At the yield s of the current thread, an iteration that repeats one
 * nothing changed since: block until another thread changes anything. */
void weft_await_any_block(const struct weft_site *s);
void weft_await_event(unsigned ev, uint32_t loc, uint64_t old, uint64_t val);
bool weft_await_note_read(uint32_t loc);
uint64_t weft_await_frames(void);
/* A program's runtime (rt/) sets this at each access to the lowest address
 * of the program's own frames: what is above it, to the stack's top, is
 * the thread's local state, compared across spin iterations (await.c).
 * NULL: not known (models): no await. */
extern const void *weft_user_sp;
/* The program's live __thread block (rt/: the running thread's copy) and
 * its size: part of the thread's local state too (NULL, 0: none). */
extern const void *weft_user_tls;
extern size_t weft_user_tls_size;
bool weft_await_is(const struct wthread *t);
size_t weft_await_describe(char *buf, size_t n);

/* Values that are pointers into the world are traced as offsets. */
static inline uint64_t trace_val(uint64_t v)
{
	uint64_t w = (uintptr_t)M.world;

	return v - w < M.loc_limit ? (1ull << 63) | (v - w) : v;
}

/* What the event the current thread just traced changed for the other
 * threads, folded into M.fair_wr[M.cur]: a store or read-modify-write that
 * changed the value, a free, an allocation, a spawn, a wake-up, an end
 * each add 1; a lock's acquisition and its release (a trylock that took
 * it) xor the same word (the lock's location in the high half, a low
 * half that no run of additions of 1 undoes), so that a loop
 * iteration that takes and drops a lock changes nothing. A read, a failed
 * attempt, a store of the value there, a yield, a barrier, a note, a
 * choice, a sleep, a join change nothing. weft_yield() compares it
 * across a thread's yields, a condition variable's wait the others' across a
 * spurious wake-up. ev is a constant on most paths. */
static inline __attribute__((always_inline)) void fair_mark(unsigned ev, uint32_t loc,
							     uint64_t old, uint64_t val)
{
	uint64_t *w = &M.fair_wr[M.cur];

	switch (ev) {
	case WEFT_EV_WRITE: case WEFT_EV_RMW:
		if (old != val)
			(*w)++;
		break;
	case WEFT_EV_TRYLOCK:
		if (M.next_flags & WEFT_EVF_FAILED)
			break;
		__attribute__((fallthrough));   /* taken */
	case WEFT_EV_LOCK: case WEFT_EV_UNLOCK:
		*w ^= (uint64_t)loc << 32 | 0x10c4;
		break;
	case WEFT_EV_FREE: case WEFT_EV_ALLOC: case WEFT_EV_SPAWN: case WEFT_EV_WAKE:
	case WEFT_EV_END:
		(*w)++;
		break;
	default:
		break;
	}
}

/* A switch from prev (-1: the host) to n: prev's quiet stretch is kept
 * for its next run, n's goes on (fairness.c). */
static inline __attribute__((always_inline)) void fair_switch(int prev, struct wthread *n)
{
	if (__builtin_expect(M.await_spins, 0)) {
		/* under await (programs under sc) a spin blocks rather than
		 * costs an unfair choice: the stretch is still the run, as
		 * before the quiet stretch (fairness.c) */
		M.run_len = 0;
		M.run_id = ++M.stretch_seq;
		return;
	}
	if (prev >= 0) {
		M.th[prev].quiet_len = M.run_len;
		M.th[prev].quiet_id = M.run_id;
	}
	M.run_len = n->quiet_len;
	M.run_id = n->quiet_id;
}

/* The event ev of the current thread ends its quiet stretch: a change
 * weft_fair_event() would count as progress that nothing undoes (a store
 * that changed a value, without M.fair_state; an allocation, a free, a
 * spawn, a wake-up, a block, an end...). A lock's acquisition and release,
 * and under M.fair_state a store's change, may cancel: they stay in the
 * stretch, and its progress follows them. Mirrors weft_fair_event()'s
 * switch; ev is a constant on most paths. */
static inline __attribute__((always_inline)) bool fair_quiet_ends(unsigned ev, uint64_t old,
								  uint64_t val)
{
	switch (ev) {
	case WEFT_EV_READ: case WEFT_EV_TRYLOCK: case WEFT_EV_LOCK: case WEFT_EV_UNLOCK:
	case WEFT_EV_YIELD: case WEFT_EV_NOTE: case WEFT_EV_BARRIER: case WEFT_EV_CHOICE:
		return false;
	case WEFT_EV_RMW: case WEFT_EV_WRITE:
		return old != val && !M.fair_state;
	default:
		return !M.await_spins;   /* under await: progress in the run */
	}
}

/* The fairness bookkeeping of the event the current thread just traced:
 * what it changed (fair_mark()), the end of its quiet stretch, its
 * progress, or an observation that may be a spin (fairness.c). Only the
 * thread's own events decide what is looked at (switches save and restore
 * the stretch), so whether an observation is a spin is a property of the
 * trace, not of where switches fall; a thread alone is looked at too (its
 * spin names no one it starves: weft_fair_spun(); under await it blocks,
 * and the hang is reported at once). old and val are the operation's
 * values, not yet trace_val()'s: converted only when looked at. */
static inline void fair_event(unsigned ev, uint32_t loc, uint64_t old, uint64_t val,
			      const struct weft_site *s)
{
	fair_mark(ev, loc, old, val);
	if (fair_quiet_ends(ev, old, val)) {
		M.run_len = 0;   /* a fresh stretch: no earlier observation compares */
		M.run_id = ++M.stretch_seq;
		return;
	}
	if (__builtin_expect(++M.run_len < WEFT_FAIR_RUN, 1))
		return;
	weft_fair_event(ev, loc, trace_val(old), trace_val(val), s);
}

static inline void fb_hit_to(uint8_t *map, uint64_t feature)
{
	if (map)
		map[(uint32_t)weft_mix64(feature) & M.fb_mask]++;
}

/* lock and trylock outcomes (WEFT_FB_LOCK) */
static inline void fb_hit(uint64_t feature)
{
	fb_hit_to(M.fb_lk, feature);
}

/* ------------------------------------------------------------- tracing */

void weft_record_event(const struct weft_event *e);

/* The trace event of the operation the current thread (or the host) just
 * performed: into the ring, the trace hash, and the recording. */
/* Version 2 of the trace hash (M.hashing == WEFT_HASH2). */
static inline __attribute__((always_inline)) void trace_hash2(uint8_t tid, unsigned ev, uint32_t loc, uint64_t old,
			       uint64_t val, const struct weft_site *s)
{
	uint64_t id = site_id(s);
	uint64_t a = id << 32 | (uint64_t)tid << 8 | ev, b = (uint64_t)loc << 32 | M.step;

	/* WEFT_CHECK_TRACE_HASH2: the event's digest d (two products that
	 * do not depend on the hash so far; a's factor is never 0: bits
	 * 16..31 of a are 0, not of the constant) enters the hash through
	 * a step that is a bijection of the hash for a given d (an odd
	 * multiplier, an xorshift), so no state is lost however long the
	 * trace: only a multiply, an xor and a shift are chained. */
	uint64_t d = weft_mum(a ^ 0xa0761d6478bd642full, b ^ 0xe7037ed1a0b428dbull) ^
		     weft_mum(old ^ 0x8ebc6af09c88c6e3ull, val ^ 0x589965cc75374cc3ull);
	uint64_t h = (M.hash ^ d) * 0x1d8e4e27c47d124full;
	M.hash = h ^ h >> 29;
}

static inline __attribute__((always_inline)) void trace_hash(uint8_t tid, unsigned ev, uint32_t loc, uint64_t old,
			      uint64_t val, const struct weft_site *s)
{
	if (!M.hashing)
		return;
	if (__builtin_expect(M.hashing == WEFT_HASH2, 1)) {
		trace_hash2(tid, ev, loc, old, val, s);
	} else {
		uint64_t id = site_id(s);
		uint64_t a = id << 32 | (uint64_t)tid << 8 | ev, b = (uint64_t)loc << 32 | M.step;
		uint64_t h = M.hash;
		h = weft_mix64(h ^ a);
		h = weft_mix64(h ^ b);
		h = weft_mix64(h ^ old);
		h = weft_mix64(h ^ val);
		M.hash = h;
	}
}

/* always inlined: at -O2 gcc made it a call in every primitive file, and
 * the call's register saves were a sixth of its cost per event */
/* What a primitive's path knows at compile time about the event it traces
 * (weft_trace_f's mode, a constant): nothing; a model thread in a lean
 * execution (M.lean); the host context (M.cur < 0: setup, audits). */
enum { WEFT_TRACE_ANY, WEFT_TRACE_LEAN, WEFT_TRACE_HOST,
       WEFT_TRACE_HOST_QUIET /* the host, and M.host_quiet */,
       /* access_op() only (access.c): a model thread in M.lean_fb; traced
	* as WEFT_TRACE_LEAN */
       WEFT_TRACE_LEAN_FB };

static inline __attribute__((always_inline)) void weft_trace_f(unsigned ev, uint32_t loc,
								uint64_t old, uint64_t val,
								const struct weft_site *s,
								unsigned mode)
{
	const bool lean = mode == WEFT_TRACE_LEAN;
	const bool host = mode == WEFT_TRACE_HOST || mode == WEFT_TRACE_HOST_QUIET;
	const bool unrecorded = lean || mode == WEFT_TRACE_HOST_QUIET;
	/* the current thread (-1: the host), read where it is used */
#define TRACE_CUR (host ? -1 : M.cur)
#define TRACE_HOST (host || (!lean && M.cur < 0))
	uint8_t tid = TRACE_HOST ? 0xff : (uint8_t)TRACE_CUR;

	/* old and val are traced as trace_val() makes them: converted where
	 * they are used, so that a search's execution (no ring) and the
	 * fairness's short runs do not convert them at every event */
	struct weft_event *e = NULL;
	if (!M.keep_ring) {
		M.evseq++;   /* a search's execution: no hash, no ring (M.keep_ring) */
	} else {
		uint64_t told = trace_val(old), tval = trace_val(val);
		if (lean)
			trace_hash2(tid, ev, loc, told, tval, s);
		else
			trace_hash(tid, ev, loc, told, tval, s);
		e = &M.ring[M.evseq++ % WEFT_TRACE_RING];
		e->step = M.step;
		e->tid = tid;
		e->cpu = TRACE_HOST ? 0xff : M.cpu_of[TRACE_CUR];
		e->ev = (uint8_t)ev;
		e->flags = M.next_flags | (TRACE_HOST ? 0 : M.th[TRACE_CUR].ctx_flags);
		e->loc = loc;
		e->site = s;
		e->old = told;
		e->val = tval;
		/* display only (never hashed): the model's call of a helper */
		e->caller = M.callers[TRACE_CUR + 1].c;
		if (__builtin_expect(e->caller != NULL, 0) && M.callers[TRACE_CUR + 1].fresh) {
			e->flags |= WEFT_EVF_CALL;
			M.callers[TRACE_CUR + 1].fresh = false;
		}
	}
	if (M.fair && !TRACE_HOST)
		fair_event(ev, loc, old, val, s);
	if (__builtin_expect(M.nr_await != 0, 0) && ev != WEFT_EV_READ)
		weft_await_event(ev, loc, trace_val(old), trace_val(val));
#undef TRACE_CUR
#undef TRACE_HOST
	M.next_flags = 0;
	if (!unrecorded && M.o->record)
		weft_record_event(e);
}

static inline __attribute__((always_inline)) void weft_trace(unsigned ev, uint32_t loc,
							      uint64_t old, uint64_t val,
							      const struct weft_site *s)
{
	weft_trace_f(ev, loc, old, val, s, WEFT_TRACE_ANY);
}

/* The event of a buffered store of thread tid on cpu becoming visible
 * (memory/): traced under that thread, at the current step, with no
 * context flags or caller and without taking the current thread's
 * pending flags. */
static inline void weft_trace_flush(uint8_t tid, uint8_t cpu, uint32_t loc, uint64_t old,
				    uint64_t val, const struct weft_site *s)
{
	if (!M.keep_ring) {
		M.evseq++;
		return;
	}
	old = trace_val(old);
	val = trace_val(val);
	trace_hash(tid, WEFT_EV_FLUSH, loc, old, val, s);

	struct weft_event *e = &M.ring[M.evseq++ % WEFT_TRACE_RING];
	*e = (struct weft_event){ .step = M.step, .tid = tid, .cpu = cpu, .ev = WEFT_EV_FLUSH,
				  .loc = loc, .site = s, .old = old, .val = val };
	if (M.o->record)
		weft_record_event(e);
}

/* ---------------------------------------------------------- scheduling */

/* Runnable threads that may run now: not excluded by another context
 * holding their CPU (context.c). */
static inline uint64_t eligible(void)
{
	return M.runnable & ~M.excluded;
}

/* Ask the strategy which of the threads in offer runs next (offer has
 * two or more); cur_ok: the current thread is in offer and may go on (a
 * preemption point), unless it spins (fairness: then switching away is
 * free and the default is another thread). */
unsigned weft_sched_decide(uint64_t offer, int cur_ok, const struct weft_site *s);
/* The decision at a yield of yielder (weft_yield()), offer holding it and
 * the others: fair, the yielder may go on at no cost but is not the
 * default; else it spun, and retry (0 or its bit) says that going on
 * would only repeat its spin (weft_decision.spin_retry). */
unsigned weft_sched_decide_yield(uint64_t offer, unsigned yielder, bool fair, uint64_t retry,
				 const struct weft_site *s);
void weft_sched_switch_to(unsigned next, bool leaving);
void weft_sched_stay_migratable(unsigned tid, const struct weft_site *s);
/* weft_thread_join() whose caller sleeps in it (kthread_stop()'s wait for
 * the exit): asleep(s), if any, before each block, sets the sleeper's
 * task state again (a wake-up of it that did not end the wait made it
 * TASK_RUNNING: the kernel's wait loop sets it again before it sleeps),
 * with its WRITE record */
void weft_thread_join_asleep(int tid, const struct weft_site *s,
			     void (*asleep)(const struct weft_site *s));
void weft_sched_reschedule(bool leaving);
void weft_sched_livelock(const char *why) __attribute__((noreturn));

/* Does t hold its CPU (the kernel cannot move it now): on a per-CPU
 * stack, preemption, interrupts or bottom halves off, or an interrupt? */
static inline bool thread_holds_cpu(const struct wthread *t)
{
	return t->on_cpu_stack || t->preempt || t->irq_off || t->bh || t->in_irq;
}

/* The end of a decision once c is chosen (weft_sched_decide()): its
 * record r (NULL: the records are full), and a preemption's bookkeeping. */
static inline __attribute__((always_inline)) unsigned decision_done(struct weft_decision_rec *r,
								     int cur, int c)
{
	if (r) {
		r->chosen = (uint8_t)c;
		M.nr_dec++;
	}
	if (cur >= 0 && c != cur) {
		M.preemptions++;
		M.next_flags |= WEFT_EVF_PREEMPTED;
		/* a task preempted while preemptible may resume elsewhere */
		if (__builtin_expect(M.sc->migratable >> cur & 1, 0) && !thread_holds_cpu(&M.th[cur]))
			M.th[cur].may_migrate = WEFT_MIGRATE_RESUMES;
	}
	return (unsigned)c;
}

/* Whether the decision at site s may be drawn by decide_drawn(): the
 * strategy's pick is a uniform draw (ops->uniform, M.pick_rng), no thread
 * spins (so none is unfair), the record has room and s its id. */
static inline bool decide_drawn_ok(const struct weft_site *s)
{
	return M.pick_rng && !M.spinners && M.nr_dec != M.cap_dec && s && s->id;
}

/* weft_sched_decide() when decide_drawn_ok(s): the record, and the draw
 * that the strategy's pick_next() would make, on the same generator;
 * calls nothing. */
static inline __attribute__((always_inline)) unsigned decide_drawn(uint64_t offer, int cur_ok,
								    uint64_t not_dflt,
								    const struct weft_site *s)
{
	M.decisions++;
	int cur = cur_ok ? M.cur : -1;
	/* the default after a switch: the lowest thread but not_dflt's (a
	 * yielder offered as a fair alternative); a pending interrupt only
	 * when nothing else can run */
	uint64_t pref = offer & ~not_dflt ? offer & ~not_dflt : offer;
	uint64_t threads = pref & ~M.irq_threads;
	int dflt = cur >= 0 ? cur : (int)lowest(threads ? threads : pref);
	struct weft_decision_rec *r = &M.dec[M.nr_dec];
	r->step = M.step;
	r->runnable = offer;
	r->cur = cur < 0 ? 0xff : (uint8_t)cur;
	r->dflt = (uint8_t)dflt;
	r->site_id = s->id;
	return decision_done(r, cur, (int)weft_uniform_pick(M.pick_rng, offer));
}

/*
 * The scheduling point before every visible operation of a model thread:
 * s is the operation's site; addr/size what it will touch (NULL, 0 for
 * none); wc the wait class of the channel at addr when the operation may
 * block there (NULL otherwise). After it returns, the operation runs as
 * step M.step.
 */
static inline __attribute__((always_inline)) void
sched_point_at_f(const struct weft_site *s, const void *addr, unsigned size,
		 const struct weft_wait_class *wc, bool lean)
{
	struct wthread *t = &M.th[M.cur];

	if (__builtin_expect(t->await_pending, 0))
		weft_await_block(s);
	t->last_site = s;
	t->pend_addr = addr;
	t->pend_size = size;
	t->pend_class = wc;
	uint64_t e = eligible();
	if (__builtin_expect(t->pass, 0)) {
		t->pass = false;
		t->pass_step = M.step + 1;
	} else if (e & (e - 1)) {
		/* a lean path draws random's decision in place (no call) */
		unsigned next = lean && decide_drawn_ok(s) ? decide_drawn(e, 1, 0, s)
							   : weft_sched_decide(e, 1, s);
		if ((int)next != M.cur)
			weft_sched_switch_to(next, false);
		else if (__builtin_expect(M.sc->migratable >> next & 1, 0))
			weft_sched_stay_migratable(next, s);
	}
	if (__builtin_expect(M.spinners != 0, 0))
		weft_fair_ran((unsigned)M.cur);
	/* the operation after this point runs as step M.step */
	if (__builtin_expect(++M.step > M.step_budget, 0))
		weft_sched_livelock("step budget exhausted");
	/* weak memory only (weft_mem_due is UINT32_MAX under sc) */
	if (!lean && __builtin_expect(M.step >= weft_mem_due, 0))
		weft_mem_point(s);
}

static inline void sched_point_at(const struct weft_site *s, const void *addr, unsigned size,
				  const struct weft_wait_class *wc)
{
	sched_point_at_f(s, addr, size, wc, false);
}

static inline void sched_point(const struct weft_site *s)
{
	sched_point_at(s, NULL, 0, NULL);
}

/* Block the current thread on chan (class wc) until a waker makes it
 * runnable; returns when it runs again (a free switch each way). The
 * caller re-checks its condition. From the host context it returns at once. */
void weft_sched_block(const void *chan, const struct weft_wait_class *wc,
		      const struct weft_site *s);
/* Start a thread without a scheduling point of its own (the caller's
 * primitive took it); label names machine-made threads in reports. */
int weft_sched_spawn(void (*fn)(void *world, void *arg), void *arg, unsigned cpu,
		     const char *label, const struct weft_site *s);
/* The program ended (exit(), main's return, an assumption that does not
 * hold: rt/): end the execution now, without a report, abandoning the
 * other threads as a report does. From a model thread it does not return;
 * from the host it does nothing. */
void weft_sched_exit(void);
/* The execution cannot go on (an instrumented program's
 * __VERIFIER_assume(0)): it ends here as weft_sched_exit() ends it; with
 * another thread not done, its result says infeasible: what this step read
 * may be changed by events of the others that never ran, so partial-order
 * reduction, which reverses only the races it saw, cannot certify past it
 * (exploring every thread at every state can). */
void weft_sched_infeasible(void);

/* The scan behind weft_sched_wake_n(), with a thread blocked. */
unsigned weft_sched_wake_scan(const void *chan, unsigned n);
/* Make the first n threads blocked on chan runnable, oldest sleeper
 * first by thread number; returns how many. Inline: every release wakes,
 * and usually nobody is blocked (then it is one test, without the call
 * and the scan's register saves). */
static inline unsigned weft_sched_wake_n(const void *chan, unsigned n)
{
	return M.nr_blocked ? weft_sched_wake_scan(chan, n) : 0;
}
/* Make every thread blocked on chan runnable (in thread order); returns
 * how many. */
static inline unsigned weft_sched_wake_all(const void *chan)
{
	return weft_sched_wake_n(chan, ~0u);
}
/* Make thread tid runnable if it is blocked. */
bool weft_sched_wake_thread(unsigned tid);

/* ------------------------------------------------------------ reports */

/* A report of a warning kind (WEFT_WARNING_KINDS): when the run goes on
 * past that kind (o->continue_kinds) it is counted in the result and
 * returns true, leaving no trace; otherwise it is reported as
 * weft_report2() reports (from a thread it does not return). */
bool weft_warn2(enum weft_kind k, const void *obj, const struct weft_site *s,
		const struct weft_access *other, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* access.c: weft_access()'s operation on memory alone (no point, no trace,
 * no shadow): for a transition of several accesses, an instrumented
 * program's atomic section (rt/). Returns the old value, *newv the new. */
uint64_t weft_apply_op(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
		       uint64_t *newv);
/* The value aop (WEFT_A_*) leaves in place of old (a load: old); mask: the
 * access's bytes. The funnel's and the weak memory's one definition. */
static inline __attribute__((always_inline)) uint64_t weft_op_value(unsigned aop, uint64_t old,
								     uint64_t a, uint64_t b,
								     uint64_t mask)
{
	switch (aop) {
	case WEFT_A_STORE: return a;
	case WEFT_A_ADD: return old + a;
	case WEFT_A_XCHG: return a;
	case WEFT_A_CMPXCHG: return old == (a & mask) ? b : old;
	case WEFT_A_OR: return old | a;
	case WEFT_A_ANDNOT: return old & ~a;
	case WEFT_A_ADD_UNLESS: return old == (b & mask) ? old : old + a;
	case WEFT_A_XOR: return old ^ a;
	case WEFT_A_NAND: return ~(old & a);
	default: return old;   /* WEFT_A_LOAD */
	}
}

/* ---------------------------------------------------------- the shadow */

/* weft_access() of a primitive's bookkeeping that the kernel keeps
 * elsewhere, in memory the model may have freed meanwhile (a work item
 * after its function returned): freed, it is a load instead (the same
 * scheduling point, a READ event and record; no report, no store). */
uint64_t weft_access_unless_freed(void *addr, unsigned size, unsigned aop, uint64_t a, uint64_t b,
				  const struct weft_site *s);

static inline void check_uaf(uint32_t loc, const struct weft_site *s)
{
	struct shadow *sh = &M.shadow[loc];

	if (__builtin_expect(sh->epoch == M.epoch && sh->poisoned, 0)) {
		struct weft_access other = { true, sh->tid == 0xff ? -1 : sh->tid,
					     sh->tid == 0xff ? -1 : (int)M.cpu_of[sh->tid],
					     sh->step, sh->site };
		weft_report2(WEFT_KIND_USE_AFTER_FREE, M.world + loc, s, &other,
			     "%s on freed memory", s->what);
	}
}

/* Who writes, when the call site knows (no test of M.cur): whoever runs,
 * a model thread (M.cur >= 0), the host context (M.cur < 0). */
enum { SHADOW_BY_ANY, SHADOW_BY_THREAD, SHADOW_BY_HOST };

static inline __attribute__((always_inline)) void shadow_write_f(uint32_t loc,
								 const struct weft_site *s,
								 unsigned by)
{
	struct shadow *sh = &M.shadow[loc];

	sh->epoch = M.epoch;
	sh->step = M.step;
	sh->site = s;
	sh->tid = by == SHADOW_BY_HOST ? 0xff
		: by == SHADOW_BY_THREAD || M.cur >= 0 ? (uint8_t)M.cur : 0xff;
	sh->poisoned = 0;
}

static inline void shadow_write(uint32_t loc, const struct weft_site *s)
{
	shadow_write_f(loc, s, SHADOW_BY_ANY);
}

/* reads-from pairs (WEFT_FB_READS_FROM): last writer's site x reader's */
static inline void feedback_read(uint32_t loc, const struct weft_site *s)
{
	if (!M.fb_rf)
		return;
	struct shadow *sh = &M.shadow[loc];
	uint64_t w = sh->epoch == M.epoch && sh->site ? site_id(sh->site) : 0;

	fb_hit_to(M.fb_rf, 0x7200000000000000ull ^ w << 24 ^ site_id(s));
}

/* state buckets (WEFT_FB_STATE): the scenario's bucket x writing site */
static inline void feedback_write(uint32_t loc, const struct weft_site *s)
{
	if (M.fb_st && M.sc->state_bucket && loc < M.world_size) {
		uint32_t b = M.sc->state_bucket(M.world, loc);
		if (b)
			fb_hit_to(M.fb_st, 0x3300000000000000ull ^ (uint64_t)b << 24 ^ site_id(s));
	}
}

/* ------------------------------------------------------- families */

/*
 * A primitive family as the machine sees it: hooks at the machine's own
 * events (an execution's start, a thread's spawn, resumption, interrupt
 * delivery and end, a free), for families with per-execution state, checks
 * at a thread's end, or a say in which thread may run (the CPU contexts).
 * primitives/families.def lists them; machine.c and shadow.c call the hooks
 * in that order. Every hook is optional.
 */
struct weft_audit_state;

struct weft_family {
	const char *name;
	/* Execution start: the scenario's threads and the interrupt
	 * pseudo-threads exist, none has run; M.o, M.sc are set. */
	void (*begin)(void);
	/* Thread tid was just spawned (weft_sched_spawn), runnable, not run. */
	void (*spawned)(unsigned tid);
	/* Thread tid, preempted while migratable (t->may_migrate is
	 * WEFT_MIGRATE_RESUMES), runs again: called right after the switch
	 * back to it; or, migratable and preemptible, it goes on at a
	 * preemption point where others could run (WEFT_MIGRATE_STAYS): the
	 * kernel may move it there too (its CPU's stopper preempts it). May
	 * move it to another CPU (M.cpu_of); clears t->may_migrate. */
	void (*resumed)(unsigned tid);
	/* Interrupt pseudo-thread tid (thread_irq() >= 0) delivers its
	 * interrupt, on its own fiber: runs the handler to completion. */
	void (*deliver_irq)(unsigned tid);
	/* Thread tid's context ended outside a family's own operation (an
	 * interrupt pseudo-thread went idle or pending, a thread ended holding
	 * its CPU): recompute who may run. */
	void (*left_cpu)(unsigned tid);
	/* Thread tid's function returned (it is still M.cur), every execution,
	 * before thread_end: may report. */
	void (*thread_exit)(unsigned tid);
	/* Thread tid is about to end (it is still M.cur): may report. Must
	 * not trace anything else (the scenario's threads end silently).
	 * Called only when M.core_used. */
	void (*thread_end)(unsigned tid);
	/* [loc, loc+len) was just poisoned (freed) at site s by M.cur (or the
	 * host): may report. Called only when M.core_used. */
	void (*freed)(uint32_t loc, uint32_t len, const struct weft_site *s);
	/* Name world offset off inside the core area or the heap; false if
	 * not its own. */
	bool (*describe)(uint32_t off, char *buf, size_t n);
	/* The machine switches to thread next (M.cur is next, its fiber not
	 * yet entered): called only while M.switch_watch is set (a family
	 * that waits for a switch sets it, and clears it when done). */
	void (*switched)(unsigned next);
	/* The execution ended with no report, after the scenario's quiesce
	 * audit (threads left asleep keep their stacks): may report. */
	void (*exec_end)(void);
	/* Thread tid goes to sleep (asleep: it is M.cur, in a sleeping wait
	 * that is not a daemon's idle one, at site s, before it blocks) or is
	 * woken from such a sleep (by M.cur, in its step; s: where tid
	 * sleeps). */
	void (*sleeping)(unsigned tid, bool asleep, const struct weft_site *s);
	/* The dependence audit only (dep_audit.c, WEFT_DPOR_AUDIT): the state
	 * the family keeps in the machine, outside the world, behind a
	 * location its records name (a worklist behind its wq_pool[] byte):
	 * up to cap pairs of that location and a digest that changes whenever
	 * that state does. Returns how many. */
	unsigned (*audit_state)(struct weft_audit_state *out, unsigned cap);
};

struct weft_audit_state {
	uint32_t loc;
	uint64_t digest;
};

/* One step of an audit_state digest (0 stays the digest of an empty state
 * only where the family says so: it returns 0 for it itself). */
static inline uint64_t weft_audit_mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
}

/* The core area's parts, for naming an offset by its family
 * (primitives/families.c, from core_state.h): offsets from M.core_off.
 * alias_size > 0: the part is state the family's records name by another
 * range, [alias_off, alias_off + alias_size), which every step that reads
 * the part records (why says so): the dependence audit takes a write
 * record there as covering a change of the part. */
struct weft_core_region {
	const char *name;
	uint32_t off, size;
	uint32_t alias_off, alias_size;
	const char *why;
};
extern const struct weft_core_region weft_core_regions[];
extern const unsigned weft_nr_core_regions;

/* The dependence audit (dep_audit.c; WEFT_DPOR_AUDIT, docs/strategies.md):
 * init at weft_machine_init() sets weft_point_hook when asked; the others
 * run only then: wrap puts the audit in front of M.on_step, begin takes
 * the first copy once the threads exist, end checks the last step (clean:
 * the execution ended without a report). */
void weft_dep_audit_init(void);
void weft_dep_audit_wrap(void);
void weft_dep_audit_begin(void);
void weft_dep_audit_end(bool clean);
/* Every family's audit_state pairs, in families.def order (up to cap). */
unsigned weft_audit_gather_states(struct weft_audit_state *out, unsigned cap);

/* The commutation audit (swap_audit.c; WEFT_SWAP_AUDIT=N, docs/strategies.md):
 * init at weft_machine_init() sets weft_swap_audit_pairs (N) when asked;
 * weft_execute() then runs each execution through weft_swap_audit_execute(),
 * which runs it, and re-runs, by weft_execute_one() (one execution). */
extern unsigned weft_swap_audit_pairs;
void weft_swap_audit_init(void);
int weft_swap_audit_execute(const struct weft_run_opts *o, const struct weft_strategy_ops *ops,
			    void *st, struct weft_exec_result *r);
int weft_execute_one(const struct weft_run_opts *o, const struct weft_strategy_ops *ops, void *st,
		     struct weft_exec_result *r);

/* The families, in families.def order (primitives/families.c). */
extern const struct weft_family *const weft_families[];
extern const unsigned weft_nr_families;

/* weft_poison() tells every family's freed hook (when M.core_used). */
void weft_families_freed(uint32_t loc, uint32_t len, const struct weft_site *s);

/* The core area, marked used: families call this before writing it. */
static inline struct weft_core_state *weft_core(void)
{
	M.core_used = true;
	return M.core;
}

/* ------------------------------------------------------- dependence */

/* Tell a strategy that wants it (ops->on_step) what the operation that
 * just ran touched. kind: WEFT_DEP_*; loc/size in the world (WEFT_NO_LOC
 * for none); arg: a thread number for spawn/join, else 0. */
static inline void weft_sched_step_f(unsigned kind, uint32_t loc, uint32_t size, uint32_t arg,
				     unsigned flags, const struct weft_site *s)
{
	if (__builtin_expect(M.on_step != NULL, 0)) {
		if (M.cur >= 0 && M.th[M.cur].pass_step == M.step)
			flags |= WEFT_STEP_PASSED;
		struct weft_step_info si = {
			.step = M.step, .tid = (uint8_t)(M.cur < 0 ? 0xff : M.cur),
			.kind = (uint8_t)kind, .flags = (uint8_t)flags, .size = size, .loc = loc,
			.arg = arg, .site = s,
		};
		M.on_step(M.st, &si);
	}
}

static inline void weft_sched_step(unsigned kind, uint32_t loc, uint32_t size, uint32_t arg,
				   const struct weft_site *s)
{
	weft_sched_step_f(kind, loc, size, arg, 0, s);
}

#endif
