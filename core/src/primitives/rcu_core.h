/*
 * rcu_core.h - the RCU state of one execution (core/src only): readers,
 * grace-period waiters, the callback queue. Lives in the core area
 * (core_state.h), so every field has a world offset.
 *
 * Grace periods as the scheduler sees them: a reader's section generation
 * rd[t].gen counts the outermost rcu_read_unlock()s of thread t. A grace
 * period starting now waits for the snapshot {t: rd[t].nesting > 0} with
 * their generations; it is over once every one of those generations has
 * moved (each reader left the section it was in, whatever it did after).
 */
#ifndef WEFT_RCU_CORE_H
#define WEFT_RCU_CORE_H

#include <weft/kernel.h>

#define WEFT_RCU_MAX_HELD 8     /* pointers remembered per read-side section */
#define WEFT_RCU_MAX_CBS 16     /* callbacks pending at once */

/* A reader: the locations synchronize_rcu() and call_rcu() depend on. */
struct weft_rcu_rd {
	uint32_t nesting;          /* rcu_read_lock() depth */
	uint32_t gen;              /* outermost sections this thread ended */
};

/* The readers a grace period waits for. */
struct weft_rcu_snap {
	uint32_t mask;             /* threads inside a section at its start */
	uint32_t gen[WEFT_MAX_THREADS];
};

/* A pointer an rcu_dereference() returned inside the current section. */
struct weft_rcu_held {
	uint32_t loc;              /* world offset the pointer points at */
	uint32_t step;
	const struct weft_site *site;
};

/* Per-thread bookkeeping: for reports, and the pointers held, which a
 * free by another thread checks (rcu_freed(): rcu-free-in-use). */
struct weft_rcu_book {
	uint32_t lock_step;        /* the outermost rcu_read_lock() of the */
	/* a grace period's snapshot holds this thread (in the padding before
	 * lock_site: the layout, which traces name, stays): the end of its
	 * non-preemptible region moves gen only then, so that a region that
	 * no grace period waits for writes nothing */
	uint32_t watched;
	const struct weft_site *lock_site;          /* current section */
	uint32_t unlock_step;      /* the rcu_read_unlock() that ended the */
	const struct weft_site *unlock_site;        /* last section */
	uint32_t nr_held;          /* rcu_dereference()s in this section */
	uint32_t barrier_target;   /* rcu_barrier(): callbacks queued before */
	struct weft_rcu_held held[WEFT_RCU_MAX_HELD];  /* ring */
};

struct weft_rcu_cb {
	struct weft_rcu_head *head;     /* call_rcu() */
	void (*func)(struct weft_rcu_head *head);
	void *obj;                 /* kfree_rcu(): the object, its size */
	uint32_t size;
	bool active;               /* queued, not yet invoked (debug objects) */
	uint32_t step;             /* where it was queued */
	int tid;
	const struct weft_site *site;
	struct weft_rcu_snap snap; /* the grace period it waits for */
};

struct weft_rcu_core {
	struct weft_rcu_rd rd[WEFT_MAX_THREADS];
	/* the callback queue (a ring): cb_done <= cb_queued */
	uint32_t cb_queued;
	uint32_t cb_done;
	uint32_t kthread;          /* 1 + the callback kthread; 0: none */
	uint32_t nr_readers;       /* threads inside a section */
	struct weft_rcu_snap gpw[WEFT_MAX_THREADS];   /* synchronize_rcu() of T */
	struct weft_rcu_cb cb[WEFT_RCU_MAX_CBS];
	struct weft_rcu_book bk[WEFT_MAX_THREADS];
};

#endif
