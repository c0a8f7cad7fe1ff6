/*
 * wait_bit.c - the generic hashed wait queues (<weft/wait_bit.h>;
 * kernel/sched/wait_bit.c, include/linux/wait_bit.h, v6.12):
 * wait_var_event()/wake_up_var() and wait_on_bit()/wake_up_bit().
 *
 * A waiter is on the wait list (waiters.h) of its key's address, flagged
 * WL_HASHED, with the bit it waits for (WEFT_WAIT_VAR_BIT for a var); it
 * sleeps in schedule() (waitqueue.c) like any wait-queue waiter. The
 * kernel's queue is a bucket of bit_wait_table that no model can name, so
 * every step's dependence record names the key's first byte instead: a
 * waiter's queueing and a waker's test of the queue conflict with each
 * other and with every access to the key (more dependence than the
 * kernel's, never less). Nothing is stored in the key: its last writer
 * stays the model's own store, which a lost-wakeup report names.
 *
 * Invariant: a WL_HASHED entry is woken only here (or by wake_up_process(),
 * which leaves it on the list flagged WL_TASK_WOKEN); wake_up() and the
 * page-bit wake-ups of waitqueue.c pass over it, as the kernel's separate
 * queues never meet.
 */
#include <weft/kernel.h>
#include <weft/wait_bit.h>

#include "core_state.h"
#include "families.h"
#include "waiters.h"

/* The bucket count of key: the kernel hashes the address (and bit); the
 * world offset keeps it the same in every execution and build. */
static uint32_t *bucket_of(const void *key)
{
	return &weft_core()->wait_bit_queued[(loc_of(key) >> 3) % WEFT_WAIT_BIT_BUCKETS];
}

/* The count's change by d at site s, its ordering s's (SC: at once). */
static void bucket_add(uint32_t *q, int d, const struct weft_site *s)
{
	uint64_t nv, old;
	bool buffered = false;
	uint32_t loc = loc_of(q);

	if (__builtin_expect(weft_mem_weak, 0))
		old = weft_mem_access(q, loc, 4, WEFT_A_ADD, (uint32_t)d, 0, s, &nv, &buffered);
	else
		old = weft_apply_op(q, 4, WEFT_A_ADD, (uint32_t)d, 0, &nv);
	weft_trace(WEFT_EV_RMW, loc, old, nv, s);
	weft_sched_step(WEFT_DEP_WRITE, loc, 4, 0, s);
}

/* finish_wait() takes the queue's lock only when the entry is still on
 * it: an acquire (lkmm), a locked instruction (tso) */
static struct weft_site finish_dequeue_site = {
	__FILE__, "weft_wait_hashed_finish", "finish_wait() dequeue", __LINE__, WEFT_EV_RMW, 0,
	WEFT_SITE_ACQUIRE
};
/* autoremove_wake_function(), in the waker's wake-up (a full barrier) */
static struct weft_site wake_dequeue_site = {
	__FILE__, "weft_wake_up_hashed", "autoremove_wake_function() dequeue", __LINE__,
	WEFT_EV_RMW, 0, 0
};

/* The scheduling point of a step on key's queue at site s, and the key's
 * location (no use-after-free check: the kernel only hashes the address).
 * False in the host context, where nothing sleeps: the key is only
 * checked to be in the world. */
static bool queue_point(void *key, const struct weft_site *s, uint32_t *loc)
{
	if (M.cur < 0) {
		in_world(key, 1, s);
		return false;
	}
	sched_point_at(s, key, 1, NULL);
	*loc = thread_loc(key, 1, s);
	return true;
}

/* queue_point(), then the calling thread's wait-list entry; NULL in the
 * host context. */
static struct weft_waiter *queue_point_self(void *key, const struct weft_site *s, uint32_t *loc)
{
	return queue_point(key, s, loc) ? weft_wl_entry((unsigned)M.cur) : NULL;
}

/* A queueing or dequeueing step's dependence: the key and the task state. */
static void queue_written(uint32_t loc, unsigned me, const struct weft_site *s)
{
	weft_sched_step(WEFT_DEP_WRITE, loc, 1, 0, s);
	weft_sched_step(WEFT_DEP_WRITE, weft_task_state_loc(me), 1, 0, s);
}

void weft_wait_hashed_prepare(void *key, unsigned bit, bool exclusive, int state,
			      const struct weft_site *s)
{
	unsigned me = (unsigned)M.cur;
	uint32_t loc;
	struct weft_waiter *w = queue_point_self(key, s, &loc);

	if (!w)
		return;
	if (w->chan && (w->chan != key || !(w->flags & WL_HASHED) || w->bit != bit))
		weft_report(WEFT_KIND_ASSERT, key, s,
			    "T%d prepares to wait on a second wait queue: one list at a time is "
			    "modelled", M.cur);
	w->task_state = (uint8_t)state;
	w->flags &= (uint8_t)~WL_TASK_WOKEN;
	if (w->chan != key) {
		weft_wl_add(me, key, (uint8_t)(WL_HASHED | (exclusive ? WL_EXCLUSIVE : 0)));
		w->bit = (uint8_t)bit;
		/* under the queue's lock, then set_current_state(): a full
		 * barrier before the caller tests its condition (s orders
		 * fully) */
		bucket_add(bucket_of(key), 1, s);
	} else {
		/* on the list already: set_current_state() alone */
		if (__builtin_expect(weft_mem_weak, 0))
			weft_mem_fence(WEFT_FENCE_MB);
		weft_trace(WEFT_EV_WRITE, WEFT_NO_LOC, 1, 1, s);
	}
	queue_written(loc, me, s);
}

void weft_wait_hashed_finish(void *key, const struct weft_site *s)
{
	unsigned me = (unsigned)M.cur;
	uint32_t loc;
	struct weft_waiter *w = queue_point_self(key, s, &loc);

	if (!w)
		return;
	w->task_state = TASK_RUNNING;
	if (w->chan == key && (w->flags & WL_HASHED)) {
		weft_wl_del(me);
		bucket_add(bucket_of(key), -1, &finish_dequeue_site);
	} else {
		weft_trace(WEFT_EV_WRITE, WEFT_NO_LOC, 0, 0, s);   /* off the list already */
	}
	queue_written(loc, me, s);
}

/* var_wake_function() and wake_bit_function(): does this wake-up's key
 * wake the waiter? A bit waiter only while its bit is clear. */
static bool key_wakes(const struct weft_waiter *w, const void *key, unsigned bit)
{
	if (w->bit != bit || (w->flags & WL_TASK_WOKEN))
		return false;
	if (bit == WEFT_WAIT_VAR_BIT)
		return true;
	return !((weft_peek(*(const unsigned long *)key) >> bit) & 1ul);
}

void weft_wake_up_hashed(void *key, unsigned bit, const struct weft_site *active,
			 const struct weft_site *wake)
{
	uint64_t mask = 0, after = 0, queued;
	unsigned n = 0;
	uint32_t loc, *q;
	int t;

	/* waitqueue_active(): an unlocked load of the bucket, no barrier */
	if (!queue_point(key, active, &loc))
		return;
	q = bucket_of(key);
	if (__builtin_expect(weft_mem_weak, 0)) {
		bool buffered = false;
		uint64_t newest;
		/* returns what it read; newest: the latest count */
		queued = weft_mem_access(q, loc_of(q), 4, WEFT_A_LOAD, 0, 0, active, &newest,
					 &buffered);
	} else {
		queued = *q;
	}
	weft_trace(WEFT_EV_READ, loc_of(q), queued, queued, active);
	weft_sched_step(WEFT_DEP_READ, loc_of(q), 4, 0, active);
	weft_sched_step(WEFT_DEP_READ, loc, 1, 0, active);
	if (!queued)
		return;
	/* __wake_up(..., nr_exclusive 1, key): under the queue's lock, each
	 * try_to_wake_up() a full barrier (wake's point, memory.c) */
	queue_point(key, wake, &loc);
	weft_tsan_release(key);
	/* the kernel queues plain waiters ahead of exclusive ones: every
	 * plain match, and the oldest exclusive match */
	bool exclusive_woken = false;
	while ((t = weft_wl_next(key, WL_HASHED, WL_HASHED, after)) >= 0) {
		struct weft_waiter *w = weft_wl_entry((unsigned)t);
		after = w->seq;
		if (!key_wakes(w, key, bit))
			continue;
		if (w->flags & WL_EXCLUSIVE) {
			if (exclusive_woken)
				continue;
			exclusive_woken = true;
		}
		weft_wl_del((unsigned)t);   /* autoremove_wake_function() */
		n++;
		if (weft_wl_wake((unsigned)t, key))
			mask |= tbit((unsigned)t);
	}
	weft_wl_trace_wake(key, mask, n, wake);
	if (n)
		bucket_add(q, -(int)n, &wake_dequeue_site);
	weft_wl_step(WEFT_DEP_RELEASE, loc, 1, wake);
}
