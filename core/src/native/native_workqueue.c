/*
 * native_workqueue.c - work items and workqueues natively
 * (<weft/workqueue.h>): each queued item runs on a thread of its own (a
 * worker), so items run as concurrently as the kernel's unbound pools let
 * them (an item queued again while it runs is run again by its thread); a
 * workqueue with max_active 1 (an ordered one) runs its items one at a
 * time in queueing order. flush_work() polls until the instances pending
 * or running when it began have run, flush_workqueue() until the items queued
 * on the workqueue before it have ended. A stress test's approximation:
 * the machine's version (workqueue.c) is the one searches rely on.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/native_run.h>

#include "native_tasks.h"

struct workqueue_struct weft_system_highpri_wq = { "events_highpri" },
	weft_system_long_wq = { "events_long" }, weft_system_unbound_wq = { "events_unbound" },
	weft_system_freezable_wq = { "events_freezable" },
	weft_system_power_efficient_wq = { "events_power_efficient" },
	weft_system_freezable_power_efficient_wq = { "events_freezable_pwr_efficient" };

/* the queueings of this iteration, in order (a ring: flushes look at the
 * last NATIVE_ITEMS) */
#define NATIVE_ITEMS 1024
static struct native_item {
	struct work_struct *w;
	const struct workqueue_struct *wq;
	bool serial;      /* its workqueue runs one item at a time */
	int done;
} items[NATIVE_ITEMS];
static unsigned nr_items;

/* the threads running items: an item queued again while its thread runs
 * it is run again by that thread (never twice at once, and no thread per
 * period of a self-rearming item) */
static struct runner {
	struct work_struct *w;   /* NULL: a free slot */
	unsigned seq;            /* the queueing it runs */
	unsigned next;           /* again: the queueing to run next */
	bool again;
} runners[WEFT_MAX_THREADS];

/* the workqueues alloc_workqueue() made in this iteration */
static struct native_wq {
	struct workqueue_struct wq;
	bool serial;
	int destroyed;
} made[WEFT_WQ_ALLOC_MAX];
static unsigned nr_made;
static pthread_mutex_t wq_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct work_struct *current_item;

void weft_native_workqueue_reset(void)
{
	nr_items = 0;
	nr_made = 0;
	memset(runners, 0, sizeof(runners));
}

static struct native_wq *made_of(const struct workqueue_struct *wq)
{
	const struct native_wq *m = (const struct native_wq *)wq;

	return wq && m >= made && m < made + WEFT_WQ_ALLOC_MAX ? (struct native_wq *)m : NULL;
}

static void poll_wait(unsigned spins)
{
	weft_native_poll();
	if (spins % 64 == 63)
		sched_yield();
}

/* the queueings before n on workqueue wq have run */
static bool ended_before(const struct workqueue_struct *wq, unsigned n)
{
	for (unsigned i = n > NATIVE_ITEMS ? n - NATIVE_ITEMS : 0; i < n; i++) {
		const struct native_item *it = &items[i % NATIVE_ITEMS];
		if (it->wq == wq && !__atomic_load_n(&it->done, __ATOMIC_ACQUIRE))
			return false;
	}
	return true;
}

static void native_work_run(void *world, void *arg)
{
	struct runner *r = arg;

	(void)world;
	for (;;) {
		struct native_item *it = &items[r->seq % NATIVE_ITEMS];
		struct work_struct *w = it->w;
		for (unsigned spins = 0; it->serial && !ended_before(it->wq, r->seq); spins++)
			poll_wait(spins);
		/* running before PENDING is taken (a flush never sees neither),
		 * and the run takes PENDING, or a cancel_work() took it first */
		__atomic_store_n(&w->running, weft_native_cpu + 1, __ATOMIC_SEQ_CST);
		if (__atomic_fetch_and(&w->data, ~(1ul << WEFT_WORK_PENDING), __ATOMIC_SEQ_CST) &
		    1ul << WEFT_WORK_PENDING) {
			current_item = w;
			w->func(w);
			current_item = NULL;
			__atomic_fetch_add(&w->seq, 1, __ATOMIC_SEQ_CST);
		}
		pthread_mutex_lock(&wq_lock);
		__atomic_store_n(&it->done, 1, __ATOMIC_RELEASE);
		if (r->again) {
			r->again = false;
			r->seq = r->next;
			pthread_mutex_unlock(&wq_lock);
			continue;
		}
		__atomic_store_n(&w->running, 0, __ATOMIC_SEQ_CST);
		r->w = NULL;
		pthread_mutex_unlock(&wq_lock);
		return;
	}
}

void weft_init_work(struct work_struct *w, work_func_t fn)
{
	w->data = 0;
	w->func = fn;
	w->running = 0;
	w->seq = 0;
}

bool weft_queue_work(struct workqueue_struct *wq, int cpu, struct work_struct *w,
		     const struct weft_site *s)
{
	struct native_wq *m = made_of(wq);

	weft_native_poll();
	if (__atomic_fetch_or(&w->data, 1ul << WEFT_WORK_PENDING, __ATOMIC_SEQ_CST) &
	    1ul << WEFT_WORK_PENDING)
		return false;
	if (m && __atomic_load_n(&m->destroyed, __ATOMIC_ACQUIRE)) {
		weft_report(WEFT_KIND_USE_AFTER_FREE, wq, s,
			    "queueing on workqueue \"%s\" after destroy_workqueue()", wq->name);
		return false;
	}
	pthread_mutex_lock(&wq_lock);
	unsigned seq = nr_items;
	struct native_item *it = &items[seq % NATIVE_ITEMS];
	it->w = w;
	it->wq = wq;
	it->serial = m && m->serial;
	it->done = 0;
	__atomic_store_n(&nr_items, seq + 1, __ATOMIC_RELEASE);
	struct runner *r = NULL, *free_slot = NULL;
	for (unsigned i = 0; i < WEFT_MAX_THREADS && !r; i++) {
		if (runners[i].w == w)
			r = &runners[i];
		else if (!runners[i].w && !free_slot)
			free_slot = &runners[i];
	}
	if (r) {   /* its thread runs it again */
		r->again = true;
		r->next = seq;
		pthread_mutex_unlock(&wq_lock);
		return true;
	}
	if (!free_slot) {
		__atomic_store_n(&it->done, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&wq_lock);
		weft_report(WEFT_KIND_LIMIT, w, s, "more than %d work items running at once",
			    WEFT_MAX_THREADS);
		return false;
	}
	free_slot->w = w;
	free_slot->seq = seq;
	free_slot->again = false;
	pthread_mutex_unlock(&wq_lock);
	return weft_thread_spawn(native_work_run, free_slot,
				 cpu < 0 ? weft_native_cpu : (unsigned)cpu, s) >= 0;
}

bool weft_queue_work_on(unsigned cpu, struct work_struct *w, const struct weft_site *s)
{
	return weft_queue_work(NULL, (int)(cpu & 0x7fffffffu), w, s);
}

bool weft_flush_work(struct work_struct *w, const struct weft_site *s)
{
	bool waited = false;

	(void)s;
	/* the instances pending or running now (workqueue.c, flushing[]).
	 * PENDING read before running: a run marks itself running before it
	 * takes PENDING, so an instance is seen in one or the other (read the
	 * other way round, a run starting in between was seen in neither and
	 * the flush returned at once). The flags read before the count: a run
	 * that ends in between makes this wait for one more instance, or until
	 * the item is idle. */
	unsigned until = !!(__atomic_load_n(&w->data, __ATOMIC_SEQ_CST) & 1ul << WEFT_WORK_PENDING);
	until += !!__atomic_load_n(&w->running, __ATOMIC_SEQ_CST);
	until += __atomic_load_n(&w->seq, __ATOMIC_SEQ_CST);
	for (unsigned spins = 0;; spins++) {
		weft_native_poll();
		if ((!(__atomic_load_n(&w->data, __ATOMIC_SEQ_CST) & 1ul << WEFT_WORK_PENDING) &&
		     !__atomic_load_n(&w->running, __ATOMIC_SEQ_CST)) ||
		    (int)(__atomic_load_n(&w->seq, __ATOMIC_SEQ_CST) - until) >= 0) {
			if (waited)
				weft_native_task_polls(false);
			return waited;
		}
		if (!waited)
			weft_native_task_polls(true);
		waited = true;
		if (spins % 64 == 63)
			sched_yield();
	}
}

/* cancel_work(_sync)(): the pending bit taken, so that a queued item's
 * thread does not run it; sync also polls until no run is in progress (a
 * run that took PENDING just before may not have marked itself running
 * yet: natively this is a stress test's approximation). */
bool weft_cancel_work(struct work_struct *w, bool sync, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	bool was = __atomic_fetch_and(&w->data, ~(1ul << WEFT_WORK_PENDING), __ATOMIC_SEQ_CST) &
		   1ul << WEFT_WORK_PENDING;
	if (sync)
		weft_native_task_polls(true);
	for (unsigned spins = 0; sync && __atomic_load_n(&w->running, __ATOMIC_SEQ_CST); spins++)
		poll_wait(spins);
	if (sync)
		weft_native_task_polls(false);
	return was;
}

struct workqueue_struct *weft_alloc_workqueue(const char *name, unsigned int flags,
					      int max_active, const struct weft_site *s)
{
	pthread_mutex_lock(&wq_lock);
	if (nr_made == WEFT_WQ_ALLOC_MAX) {
		pthread_mutex_unlock(&wq_lock);
		weft_report(WEFT_KIND_LIMIT, NULL, s, "more than %d alloc_workqueue() in one "
			    "iteration (WEFT_WQ_ALLOC_MAX)", WEFT_WQ_ALLOC_MAX);
		return NULL;
	}
	struct native_wq *m = &made[nr_made++];
	m->wq.name = name ? name : "(null)";
	m->serial = (flags & WEFT_WQ_ORDERED) || max_active == 1;
	m->destroyed = 0;
	pthread_mutex_unlock(&wq_lock);
	return &m->wq;
}

void weft_flush_workqueue(struct workqueue_struct *wq, unsigned how, const struct weft_site *s)
{
	unsigned n = __atomic_load_n(&nr_items, __ATOMIC_ACQUIRE);

	(void)s;
	weft_native_task_polls(true);
	for (unsigned spins = 0;; spins++) {
		if (how != WEFT_WQ_FLUSH)
			n = __atomic_load_n(&nr_items, __ATOMIC_ACQUIRE);
		/* a drain: a run requeues before its own record ends, so all
		 * of [0, n) ended with nr_items still n means no chain is left */
		if (ended_before(wq, n) &&
		    (how == WEFT_WQ_FLUSH || __atomic_load_n(&nr_items, __ATOMIC_ACQUIRE) == n))
			break;
		poll_wait(spins);
	}
	weft_native_task_polls(false);
	if (how == WEFT_WQ_DESTROY && made_of(wq))
		__atomic_store_n(&made_of(wq)->destroyed, 1, __ATOMIC_RELEASE);
}

struct work_struct *weft_current_work(void)
{
	return current_item;
}
