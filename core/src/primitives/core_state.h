/*
 * core_state.h - state the primitive families keep per execution outside
 * the model's world (primitives/ only: the machine and the searchers know
 * just its size, weft_core_size, from families.c).
 *
 * struct weft_core_state lives right after the model's world in the same
 * allocation (M.core, at world offset M.core_off, 64-byte aligned), so its
 * fields have world offsets: a family's accesses to it are traced, shadowed
 * (last writer: the other side of a report) and named in dependence
 * records exactly like model state, and weft_thread_pending() can name
 * them. The machine zeroes it before setup whenever the last execution used
 * it (M.core_used), so a family that never runs costs nothing.
 */
#ifndef WEFT_CORE_STATE_H
#define WEFT_CORE_STATE_H

#include <weft/kthread.h>
#include <weft/timer.h>

#include "rcu_core.h"
#include "sched.h"

#define WEFT_WAIT_BIT_BUCKETS 64

struct weft_core_state {
	struct weft_rcu_core rcu;
	/* workqueue.c: a location for each CPU's worklist (which lives in the
	 * machine), named by the dependence records of queueing, taking and
	 * waiting for work; never written */
	uint8_t wq_pool[WEFT_EXEC_MAX_CPUS];
	/* timer.c: a location for each CPU's timer base and one for jiffies
	 * (both the machine's), named by the dependence records of arming,
	 * deleting, firing and reading jiffies; never written. After the
	 * fields above, so that none of their offsets moved. */
	uint8_t timer_base[WEFT_EXEC_MAX_CPUS];
	uint8_t timer_jiffies;
	/* timer.c: the timer of each thread's schedule_timeout() (the first
	 * WEFT_SLEEP_TIMERS threads) */
	struct timer_list sleep_timer[WEFT_SLEEP_TIMERS];
	/* kthread.c: each thread's task (current); its weft_state byte is
	 * the location of the thread's task state (waitqueue.c) */
	struct task_struct task[WEFT_EXEC_MAX_THREADS];
	/* wait_bit.c: the waiters queued on each bucket of the hashed wait
	 * queues (the kernel's bit_wait_table), a word that every queueing
	 * and dequeueing changes through the memory model, so that a waker's
	 * unlocked waitqueue_active() test of it can read an older count
	 * where the memory model allows */
	uint32_t wait_bit_queued[WEFT_WAIT_BIT_BUCKETS];
	/* workqueue.c: the unbound pool's worklist location (as wq_pool[]),
	 * and the workqueues alloc_workqueue() made (a name NULL: unused);
	 * after the fields above, so that none of their offsets moved */
	uint8_t wq_unbound_pool;
	struct weft_wq_made {
		struct workqueue_struct wq;
		unsigned flags;
		int max_active;
	} wq_alloc[WEFT_WQ_ALLOC_MAX];
};

/* The location of thread tid's task state: the dependence record of every
 * step that reads or writes it (no access to the core area: M.core is
 * there whether or not an execution uses it). */
static inline uint32_t weft_task_state_loc(unsigned tid)
{
	return loc_of(&M.core->task[tid].weft_state);
}

#endif
