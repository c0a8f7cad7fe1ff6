/*
 * rcu_native.c - RCU for the native build (-DWEFT_NATIVE, weft stress): a
 * small userspace RCU on real threads, the same interface as rcu.c.
 *
 * Each thread's reader state is one 64-bit word, generation << 32 |
 * nesting, written only by its thread with sequentially consistent stores,
 * so a grace period's snapshot reads nesting and generation together: it
 * waits for every thread that was inside a section until its generation
 * moves (the classic quiescent-state scheme of userspace RCU,
 * M. Desnoyers et al., "User-Level Implementations of Read-Copy Update",
 * IEEE TPDS 2012, with SC atomics standing in for the barriers).
 * synchronize_rcu() and rcu_barrier() poll, calling weft_native_poll() so a
 * report elsewhere still ends the iteration. Callbacks run in FIFO order on
 * a helper thread started (weft_thread_spawn) by a call_rcu() that finds
 * none running; it ends when the queue is empty, so the host joins it
 * before the audits. weft_rcu_native_reset() clears everything at the
 * start of each iteration (a report may leave a thread inside a section).
 *
 * No shadow memory here: rcu-free-in-use and double frees are detected
 * only by the controlled machine; rcu-misuse (unbalanced unlock, ending
 * inside a section, rcu_dereference outside one) and sleeping inside a
 * section (sleep-in-atomic, from synchronize_rcu() and rcu_barrier()) are.
 */
#include <pthread.h>
#include <string.h>

#include <weft/kernel.h>

#include "native_tasks.h"
#include "rcu_native.h"

#define NATIVE_MAX_CBS 64

struct ncb {
	struct rcu_head *head;
	void (*func)(struct rcu_head *head);
	void *obj;
	uint32_t mask;
	uint32_t gen[WEFT_MAX_THREADS];
};

static struct {
	uint64_t rd[WEFT_MAX_THREADS];    /* gen << 32 | nesting; own thread writes */
	unsigned nr_cpus;
	pthread_mutex_t lock;             /* the queue */
	struct ncb cb[NATIVE_MAX_CBS];
	uint32_t queued, done;            /* done: also read by rcu_barrier() */
	int running;
} R = { .lock = PTHREAD_MUTEX_INITIALIZER };

void weft_rcu_native_reset(const struct weft_scenario *sc)
{
	memset(R.rd, 0, sizeof(R.rd));
	R.nr_cpus = sc && sc->nr_cpus ? sc->nr_cpus : 1;
	R.queued = R.done = 0;
	R.running = 0;
}

static inline uint64_t rd_load(unsigned t)
{
	return __atomic_load_n(&R.rd[t], __ATOMIC_SEQ_CST);
}

static inline unsigned me(void)
{
	return weft_native_tid % WEFT_MAX_THREADS;
}

void weft_rcu_read_lock(const struct weft_site *s)
{
	unsigned t = me();
	uint64_t w = rd_load(t);

	(void)s;
	weft_native_poll();
	__atomic_store_n(&R.rd[t], w + 1, __ATOMIC_SEQ_CST);
}

void weft_rcu_read_unlock(const struct weft_site *s)
{
	unsigned t = me();
	uint64_t w = rd_load(t);

	weft_native_poll();
	if (!(uint32_t)w) {
		weft_report(WEFT_KIND_RCU_MISUSE, NULL, s,
			    "rcu_read_unlock() outside an RCU read-side section (T%u)", t);
		return;
	}
	if ((uint32_t)w == 1)
		w = ((w >> 32) + 1) << 32;   /* generation + 1, nesting 0 */
	else
		w--;
	__atomic_store_n(&R.rd[t], w, __ATOMIC_SEQ_CST);
}

bool weft_rcu_read_lock_held(void)
{
	return (uint32_t)rd_load(me()) != 0;
}

uint64_t weft_rcu_deref(const void *addr, unsigned size, unsigned how,
			const struct weft_site *s)
{
	uint64_t v = weft_native_access((void *)addr, size, WEFT_A_LOAD, 0, 0);

	if ((how == WEFT_RCU_DEREF || how == WEFT_RCU_DEREF_PROTECTED_BAD) &&
	    !weft_rcu_read_lock_held())
		weft_report(WEFT_KIND_RCU_MISUSE, NULL, s,
			    "%s outside an RCU read-side section", s->what);
	return v;
}

unsigned weft_rcu_read_depth(unsigned tid)
{
	return (uint32_t)rd_load(tid % WEFT_MAX_THREADS);
}

void weft_rcu_might_sleep(const struct weft_site *s)
{
	if (weft_rcu_read_lock_held())
		weft_report(WEFT_KIND_SLEEP_IN_ATOMIC, NULL, s,
			    "%s may sleep inside an RCU read-side section", s->what);
}

void weft_rcu_native_thread_end(void)
{
	static struct weft_site end_site = { __FILE__, "rcu_thread_end",
					     "thread ends inside an RCU read-side section",
					     __LINE__, WEFT_EV_NOTE, 0, WEFT_SITE_SC };

	if (weft_rcu_read_lock_held())
		weft_report(WEFT_KIND_RCU_MISUSE, NULL, &end_site,
			    "T%u ends inside an RCU read-side section", me());
}

static void snapshot(uint32_t *mask, uint32_t *gen)
{
	*mask = 0;
	for (unsigned t = 0; t < WEFT_MAX_THREADS; t++) {
		uint64_t w = rd_load(t);
		if ((uint32_t)w) {
			*mask |= 1u << t;
			gen[t] = (uint32_t)(w >> 32);
		}
	}
}

static void gp_wait(uint32_t mask, const uint32_t *gen)
{
	for (; mask; mask &= mask - 1) {
		unsigned t = (unsigned)__builtin_ctz(mask);
		for (unsigned spins = 0; (uint32_t)(rd_load(t) >> 32) == gen[t]; spins++) {
			weft_native_poll();
			if (spins % 16 == 15)
				sched_yield();
		}
	}
}

void weft_synchronize_rcu(const struct weft_site *s)
{
	uint32_t mask, gen[WEFT_MAX_THREADS];

	weft_native_poll();
	weft_rcu_might_sleep(s);
	snapshot(&mask, gen);
	weft_native_task_polls(true);
	gp_wait(mask, gen);
	weft_native_task_polls(false);
}

static void invoke(struct ncb *cb)
{
	if (cb->func)
		cb->func(cb->head);
}

static void rcu_cb_thread(void *world, void *arg)
{
	(void)world;
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&R.lock);
		if (R.done == R.queued) {
			R.running = 0;
			pthread_mutex_unlock(&R.lock);
			return;
		}
		struct ncb cb = R.cb[R.done % NATIVE_MAX_CBS];
		pthread_mutex_unlock(&R.lock);
		gp_wait(cb.mask, cb.gen);
		invoke(&cb);
		pthread_mutex_lock(&R.lock);
		__atomic_store_n(&R.done, R.done + 1, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&R.lock);
	}
}

static void queue_cb(struct rcu_head *head, void (*func)(struct rcu_head *), void *obj,
		     const struct weft_site *s)
{
	static struct weft_site spawn_site = { __FILE__, "call_rcu",
					       "spawn(rcu callback kthread)", __LINE__,
					       WEFT_EV_SPAWN, 0, WEFT_SITE_SC };
	bool spawn;

	weft_native_poll();
	pthread_mutex_lock(&R.lock);
	if (R.queued - R.done >= NATIVE_MAX_CBS) {
		pthread_mutex_unlock(&R.lock);
		weft_report(WEFT_KIND_ASSERT, NULL, s, "more than %d RCU callbacks pending",
			    NATIVE_MAX_CBS);
		return;
	}
	struct ncb *cb = &R.cb[R.queued % NATIVE_MAX_CBS];
	cb->head = head;
	cb->func = func;
	cb->obj = obj;
	snapshot(&cb->mask, cb->gen);
	__atomic_store_n(&R.queued, R.queued + 1, __ATOMIC_SEQ_CST);
	spawn = !R.running;
	R.running = 1;
	pthread_mutex_unlock(&R.lock);
	if (spawn)
		weft_thread_spawn(rcu_cb_thread, NULL, weft_native_cpu, &spawn_site);
}

void weft_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head),
		   const struct weft_site *s)
{
	queue_cb(head, func, NULL, s);
}

void weft_kfree_rcu(void *obj, size_t size, struct rcu_head *head, const struct weft_site *s)
{
	(void)size;
	queue_cb(head, NULL, obj, s);
}

void weft_rcu_barrier(const struct weft_site *s)
{
	weft_native_poll();
	weft_rcu_might_sleep(s);
	uint32_t target = __atomic_load_n(&R.queued, __ATOMIC_SEQ_CST);
	weft_native_task_polls(true);
	for (unsigned spins = 0; (int32_t)(__atomic_load_n(&R.done, __ATOMIC_SEQ_CST) - target) < 0;
	     spins++) {
		weft_native_poll();
		if (spins % 16 == 15)
			sched_yield();
	}
	weft_native_task_polls(false);
}

void weft_kfree_sized(void *obj, size_t size, const struct weft_site *s)
{
	(void)obj;
	(void)size;
	(void)s;
}

unsigned weft_nr_cpu_ids(void)
{
	return R.nr_cpus ? R.nr_cpus : 1;
}
