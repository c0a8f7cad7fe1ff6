/*
 * memory_internal.h - the state the files of core/src/memory/ share: the
 * per-CPU store buffers (store_buffer.c), the history of memory and the
 * per-CPU views of it that the kernel's model reads through (history.c),
 * and the models that drive them (memory.c). memory.h is what the rest of
 * libweft sees.
 *
 * Time: mem.now counts the writes to memory of a weak execution (a store
 * that becomes visible, an atomic read-modify-write); a value's version is
 * the time it was written. Under lkmm a load may read any version of its
 * location still current at some time at or after its CPU's floor for it
 * (memory.c explains the floors); under tso the history is not kept and a
 * load reads memory.
 */
#ifndef WEFT_MEMORY_INTERNAL_H
#define WEFT_MEMORY_INTERNAL_H

#include "memory.h"

/* A store buffer holds at most this many entries; one more makes the
 * oldest visible first (real store buffers are finite too: 56 entries on
 * Intel Skylake, tens on Arm cores). */
#define SB_CAP 32

enum { SB_STORE, SB_UNLOCK };

/* A buffered store, or (SB_UNLOCK) the mark of a spin_unlock() whose lock
 * word is already free in memory: the entries before it become visible
 * before another CPU acts on that lock (weft_mem_observe_lock). */
struct sb_entry {
	uint8_t *addr;      /* SB_UNLOCK: the lock */
	uint32_t loc;
	uint8_t size;       /* SB_UNLOCK: 0 */
	uint8_t kind;
	uint8_t tid;
	uint8_t rmw;        /* the write of a read-modify-write (not fully
			       ordered, not a refcount put): no
			       other write to its bytes joins memory first */
	uint8_t ord;        /* enum mem_ord */
	uint32_t due;       /* visible at the first point at or after this step */
	uint32_t step;      /* when the store executed */
	uint32_t seq;       /* its CPU's program order */
	uint32_t after;     /* visible only after every entry of its CPU with a
			       smaller seq (tso, a release, an unlock: its own
			       seq; after smp_wmb(): the wmb's) */
	uint64_t val;
	const struct weft_site *site;
};

/* A CPU's buffer: entries in program order (seq ascending); under lkmm one
 * may leave from the middle. */
struct store_buffer {
	unsigned n;
	uint32_t next_seq;
	uint32_t wmb_seq;   /* entries made after the last smp_wmb() follow
			       every entry with a smaller seq */
	struct sb_entry e[SB_CAP];
};

/* The writes to memory of an lkmm execution, newest last: each names the
 * one before it to the same location, so a location's versions are a
 * chain. A ring: the oldest are forgotten (a load then has fewer versions
 * to choose from, never a wrong one). */
#define HIST_CAP 4096
#define HIST_SLOTS 1024     /* 8-byte word -> its newest write (direct-mapped) */
struct hist_write {
	uint32_t loc;
	uint8_t size;
	uint32_t tau;       /* when it was written */
	uint32_t prev;      /* index of the previous write to loc's 8-byte word
			       (any offset or size in it), or HIST_NONE */
	uint32_t prev_tau;  /* its tau (the ring slot may have been reused);
			       with HIST_NONE: the latest time a write to the
			       word can have been forgotten (0: none was) */
	uint32_t cumul;     /* a CPU that read it and then orders its loads
			       (smp_rmb(), an acquire) reads at or after this
			       time (write_cumul() in store_buffer.c) */
	uint64_t old;       /* the value it replaced */
};
#define HIST_NONE 0xffffffffu

/* What a CPU has seen, under lkmm (history.c). */
#define COH_SLOTS 64
#define DEP_SLOTS 8
struct cpu_view {
	uint32_t epoch;     /* the lkmm execution it was set up in (cpu_view()) */
	uint32_t floor;     /* every load reads a version current at or after it */
	uint32_t maxsat;    /* the latest time a load of this CPU read at */
	uint32_t maxcumul;  /* the latest cumul of a version its loads read:
			       where smp_rmb() puts the floor */
	uint32_t fence;     /* "now" at its last full barrier: its later
			       stores' cumul is at least this (A-cumulative) */
	uint32_t own;       /* when its latest write joined memory */
	bool wmb;           /* it ran an smp_wmb(): its later stores follow its
			       earlier ones for every CPU (cumul >= own) */
	struct { uint32_t loc, tau; } coh[COH_SLOTS];   /* per location: the
			       version last read or written (CoRR, CoWR),
			       or that a strong fence made it see */
	uint64_t coh_used;  /* coh slots that name a location */
	uint64_t coh_new;   /* coh slots moved since its last strong fence
			       (what that fence has to tell every CPU) */
	struct { uint64_t v; uint32_t sat; } dep[DEP_SLOTS];   /* pointers loaded:
			       a load through one reads after that load */
	unsigned dep_next;
};

struct mem_state {
	enum weft_memory_model model;
	unsigned nr_buffered;            /* entries over every CPU */
	unsigned nr_unlocks;             /* SB_UNLOCK entries among them */
	unsigned nr_rmw;                 /* rmw entries among them */
	int16_t last_task[WEFT_EXEC_MAX_CPUS]; /* the task that ran last on a CPU */
	uint32_t nr_delays;              /* weak choices asked (stores, loads) */
	uint8_t delays[WEFT_MAX_DELAYS];
	struct store_buffer sb[WEFT_EXEC_MAX_CPUS];
	/* a plain read's value put in memory (plain_read_begin) */
	uint8_t *patch_addr;
	unsigned patch_size;
	uint64_t patch_saved;
	/* lkmm */
	uint32_t now;
	uint32_t nr_hist;                /* writes logged (ring index: % HIST_CAP) */
	struct hist_write hist[HIST_CAP];
	struct hist_slot {
		uint32_t loc, idx, tau;  /* the word's newest write (loc
					    WEFT_NO_LOC: none) */
		uint32_t lost;           /* the newest write a change of the
					    slot's word forgot (0: none) */
		uint32_t epoch;          /* as cpu_view's (word_slot()) */
	} slot[HIST_SLOTS];
	struct cpu_view view[WEFT_EXEC_MAX_CPUS];
	/* What has reached every CPU: what each strong fence's CPU had seen
	 * when it ran (view_strong_fence()). A time (every write of a time at
	 * or before it) and, per location, a version (it and the writes
	 * coherence puts before it), as a CPU's view; reset per execution. */
	struct everywhere {
		uint32_t floor;
		uint64_t used;           /* coh slots that name a location */
		struct { uint32_t loc, tau; } coh[COH_SLOTS];
	} everywhere;
	uint32_t lkmm_epoch;             /* bumped by hist_reset(): views and
				    slots of an older epoch are stale */
};

extern struct mem_state mem;

/* ------------------------------------------------------- store_buffer.c */

uint64_t mem_read(const void *addr, unsigned size);
void mem_write(void *addr, unsigned size, uint64_t v);
uint64_t size_mask(unsigned size);
/* How a write orders what its CPU did before it, for the CPUs that read it
 * (lkmm: its cumul, write_cumul() in store_buffer.c). */
enum mem_ord {
	MEM_ORD_RELAXED,   /* none (after an smp_wmb(): its CPU's stores) */
	MEM_ORD_RELEASE,   /* everything its CPU did or saw (A-cumulative) */
	MEM_ORD_FULL,      /* a fully ordered write: everything in memory */
};
/* Write a value to memory now, as cpu's store of order ord (lkmm: logged,
 * and the CPU's coherence moves to it). */
void mem_store_now(unsigned cpu, uint8_t *addr, uint32_t loc, unsigned size, uint64_t v,
		   enum mem_ord ord);
void sb_reset(void);
/* Buffer a store (or an unlock mark) of the current thread on cpu; the
 * entry is visible at or after due and after the entries `after` names. */
void sb_push(unsigned cpu, const struct sb_entry *e);
/* Entries cpu must make visible before a store to [addr, addr+size) with
 * ordering `after` could: true if any (the store must be buffered). */
bool sb_constrains(unsigned cpu, const uint8_t *addr, unsigned size, uint32_t after);
/* The newest buffered value of cpu for exactly [addr, addr+size): true and
 * *v; a buffered store overlapping it otherwise is made visible first. */
bool sb_forward(unsigned cpu, const uint8_t *addr, unsigned size, uint64_t *v);
/* Make cpu's stores to [addr, addr+size) visible (a read-modify-write). */
void sb_flush_loc(unsigned cpu, const uint8_t *addr, unsigned size);
/* Make every buffered read-modify-write's store to [addr, addr+size) of a
 * CPU other than cpu visible (with what it follows): a write or a
 * read-modify-write of cpu there comes after it in coherence order. */
void sb_flush_rmw(unsigned cpu, const uint8_t *addr, unsigned size);
/* Make cpu's entries older than seq `after` visible (a store that must
 * follow them is written to memory now: a read-modify-write). */
void sb_flush_before(unsigned cpu, uint32_t after);
void sb_flush_due(void);
bool sb_observe_lock(const void *lock);
/* The store to addr still in any CPU's buffer that executed last (of this
 * size; 0: any size), or NULL. */
const struct sb_entry *sb_newest_store(const void *addr, unsigned size);

/* ------------------------------------------------------------ history.c */

void hist_reset(void);
void cpu_view_init(struct cpu_view *vw);
/* cpu's view, set up on its first use in this lkmm execution: an execution
 * touches the views of its own CPUs only, and clearing all 64 (~42 KB and
 * a 4,096-entry loop) at every reset was most of a weak zoo execution's
 * instructions (z16: 8 steps). */
static inline struct cpu_view *cpu_view(unsigned cpu)
{
	struct cpu_view *vw = &mem.view[cpu];

	if (__builtin_expect(vw->epoch != mem.lkmm_epoch, 0))
		cpu_view_init(vw);
	return vw;
}
static inline uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* What a CPU has seen, as a time: every write of a time it read at, was
 * floored to, or wrote at. A release's cumul and a C11 release fence
 * carry it (A-cumulative). */
static inline uint32_t cpu_saw(const struct cpu_view *vw)
{
	return max_u32(max_u32(vw->floor, vw->maxsat), vw->own);
}

/* Log a write of loc (old: what it replaced) at time ++mem.now. */
void hist_write(uint32_t loc, unsigned size, uint64_t old, uint32_t cumul);
/* The versions of [addr, addr+size) (loc) a load of cpu may read, newest
 * first: values and the time each was written (0: before the history);
 * returns how many (at least 1: the current). */
#define MAX_VERSIONS 8
struct version {
	uint64_t val;
	uint32_t tau;       /* written at */
	uint32_t cumul;     /* its write's cumul (its tau when not known) */
};
unsigned hist_versions(unsigned cpu, const uint8_t *addr, uint32_t loc, unsigned size,
		       uint32_t floor, struct version *v);
/* The floor of a load of cpu at loc (its view, its coherence at loc, the
 * dependencies of addr). */
uint32_t view_floor(unsigned cpu, const uint8_t *addr, uint32_t loc);
/* cpu read version v of loc (satisfied at sat): coherence and the
 * latest read time move; a pointer value is remembered for dependencies. */
void view_read(unsigned cpu, const uint8_t *addr, uint32_t loc, const struct version *v,
	       uint32_t sat);
/* cpu read val at time sat (a load, or a read-modify-write's read): a
 * later load through it, as a pointer into the world, reads at or after
 * sat (an address dependency, the LKMM's addr;[R] in ppo) */
void view_dep(unsigned cpu, uint64_t val, uint32_t sat);
/* The cumul of the newest version of [loc, loc+size) (what a
 * read-modify-write reads). */
uint32_t hist_newest_cumul(uint32_t loc, unsigned size);
/* cpu's own store to loc became visible at tau. */
void view_wrote(unsigned cpu, uint32_t loc, uint32_t tau);
/* A strong fence of cpu (smp_mb() and every full barrier), its buffer
 * drained: what has reached cpu reaches every CPU, and cpu's later loads
 * read at or after what has reached every CPU (history.c). */
void view_strong_fence(unsigned cpu);

#endif
