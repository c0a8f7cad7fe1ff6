/*
 * native.c - the native runtime: the same model sources compiled with
 * -DWEFT_NATIVE run on real pthreads, one per fake CPU, with real atomics
 * and spinlocks, the scenario looped with a fresh world per iteration: the
 * classic stress test (the seed's doitlots/forklots), Weft's baseline.
 *
 * Iteration protocol (two barriers): the host resets the world and runs
 * setup; all threads start together; each runs the model thread; the host
 * runs the quiescence audits. A report from a model thread sets
 * weft_native_stop; every thread bails out of the model at its next
 * primitive (siglongjmp to its iteration start), so a corrupted model state
 * cannot hang the run.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weft/kernel.h>
#include <weft/native_run.h>
#include <weft/strategy.h>

#include "native_tasks.h"
#include "rcu_native.h"

volatile int weft_native_stop;
__thread unsigned weft_native_cpu;
__thread unsigned weft_native_tid;
int weft_native_lock_model;
static uint32_t native_exec_id;   /* one per iteration */

uint32_t weft_execution_id(void)
{
	return native_exec_id;
}

static __thread sigjmp_buf *bail_jmp;
static __thread struct weft_rng *thread_rng;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct weft_native_report first;
static bool have_report;

bool weft_native_in_model(void)
{
	return bail_jmp != NULL;
}

void weft_native_bail(void)
{
	if (bail_jmp)
		siglongjmp(*bail_jmp, 1);
	abort();
}

static __attribute__((format(printf, 3, 0))) void vreport(enum weft_kind k, const struct weft_site *s, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&report_lock);
	if (!have_report) {
		have_report = true;
		first.kind = k;
		first.site = s;
		first.tid = bail_jmp ? (int)weft_native_tid : -1;
		vsnprintf(first.msg, sizeof(first.msg), fmt, ap);
	}
	pthread_mutex_unlock(&report_lock);
	__atomic_store_n(&weft_native_stop, 1, __ATOMIC_SEQ_CST);
	if (bail_jmp)
		weft_native_bail();
}

void weft_report(enum weft_kind k, const void *obj, const struct weft_site *s, const char *fmt,
		 ...)
{
	va_list ap;

	(void)obj;
	va_start(ap, fmt);
	vreport(k, s, fmt, ap);
	va_end(ap);
}

void weft_report2(enum weft_kind k, const void *obj, const struct weft_site *s,
		  const struct weft_access *other, const char *fmt, ...)
{
	va_list ap;

	(void)obj;
	(void)other;
	va_start(ap, fmt);
	vreport(k, s, fmt, ap);
	va_end(ap);
}

uint32_t weft_choose(uint32_t n, const struct weft_site *s)
{
	(void)s;
	return n > 1 && thread_rng ? weft_rng_below(thread_rng, n) : 0;
}

/* strategies.c asks it in pick_value(); natively no choice is unfair */
uint64_t weft_choice_unfair(void)
{
	return 0;
}

unsigned weft_cpu_of(const struct weft_scenario *sc, unsigned tid)
{
	return sc->cpu_of ? sc->cpu_of[tid] : tid % (sc->nr_cpus ? sc->nr_cpus : 1);
}

struct worker {
	pthread_t th;
	unsigned tid;
	struct stress *S;
};

/*
 * Threads a model thread started (weft_thread_spawn): one pthread each,
 * numbered after the scenario's threads, joined by the host at the end of
 * the iteration whatever the model did. A model's join polls `done` (and
 * the stop flag), so a report elsewhere still ends the iteration.
 */
static const struct weft_scenario *native_sc;   /* the run's scenario */

static struct spawned {
	pthread_t th;
	void (*fn)(void *world, void *arg);
	void *arg;
	void *world;
	unsigned tid, cpu;
	uint64_t seed;
	int done;
} spawned[WEFT_MAX_THREADS];
static unsigned nr_spawned_base, nr_spawned;   /* base: the scenario's threads */
static void *spawn_world;
static uint64_t spawn_seed;
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;

static void *spawned_main(void *arg)
{
	struct spawned *t = arg;
	struct weft_rng rng;
	sigjmp_buf jb;

	weft_native_tid = t->tid;
	weft_native_cpu = t->cpu;
	weft_rng_seed(&rng, t->seed);
	thread_rng = &rng;
	bail_jmp = &jb;
	if (sigsetjmp(jb, 0) == 0) {
		t->fn(t->world, t->arg);
		weft_rcu_native_thread_end();
	}
	bail_jmp = NULL;
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int weft_thread_spawn(void (*fn)(void *world, void *arg), void *arg, unsigned cpu,
		      const struct weft_site *s)
{
	weft_native_poll();
	pthread_mutex_lock(&spawn_lock);
	if (nr_spawned_base + nr_spawned >= WEFT_MAX_THREADS) {
		pthread_mutex_unlock(&spawn_lock);
		weft_report(WEFT_KIND_ASSERT, NULL, s,
			    "weft_thread_spawn: more than %d threads in one execution",
			    WEFT_MAX_THREADS);
		return -1;
	}
	struct spawned *t = &spawned[nr_spawned];
	t->fn = fn;
	t->arg = arg;
	t->world = spawn_world;
	t->tid = nr_spawned_base + nr_spawned;
	/* as the machine takes it: modulo the CPU count; WEFT_CPU_ANY spreads */
	unsigned nr_cpus = native_sc && native_sc->nr_cpus ? native_sc->nr_cpus : 1;
	t->cpu = (cpu == WEFT_CPU_ANY ? t->tid : cpu) % nr_cpus;
	t->seed = spawn_seed * 131 + t->tid;
	t->done = 0;
	if (pthread_create(&t->th, NULL, spawned_main, t)) {
		pthread_mutex_unlock(&spawn_lock);
		weft_report(WEFT_KIND_ASSERT, NULL, s, "weft_thread_spawn: pthread_create failed");
		return -1;
	}
	nr_spawned++;
	pthread_mutex_unlock(&spawn_lock);
	return (int)t->tid;
}

void weft_thread_join(int tid, const struct weft_site *s)
{
	unsigned i = (unsigned)tid - nr_spawned_base;

	if (tid < (int)nr_spawned_base || i >= __atomic_load_n(&nr_spawned, __ATOMIC_ACQUIRE)) {
		weft_report(WEFT_KIND_ASSERT, NULL, s, "join of T%d, which was not spawned", tid);
		return;
	}
	for (unsigned spins = 0; !__atomic_load_n(&spawned[i].done, __ATOMIC_ACQUIRE); spins++) {
		weft_native_poll();
		if (spins % 64 == 63)
			sched_yield();
	}
}

/* Native interrupts: the handler runs at once in the raiser's thread. */
void weft_irq_raise(unsigned irq, const struct weft_site *s)
{
	(void)s;
	weft_native_poll();
	if (native_sc && irq < native_sc->nr_irqs)
		native_sc->irqs[irq].handler(spawn_world, irq);
}

/* An interrupt raised from the start: natively, a thread of its own. */
static void native_irq_thread(void *world, void *arg)
{
	unsigned irq = (unsigned)(uintptr_t)arg;

	native_sc->irqs[irq].handler(world, irq);
}

/* Host, end of an iteration: every spawned thread has ended (or bailed). */
static void reap_spawned(void)
{
	for (unsigned i = 0; i < nr_spawned; i++)
		pthread_join(spawned[i].th, NULL);
	nr_spawned = 0;
	weft_native_workqueue_reset();
}

struct stress {
	const struct weft_native_opts *o;
	void *world;
	pthread_barrier_t start;
	/* end of an iteration: a count under a mutex, so the host can wait
	 * with a timeout (a natively deadlocked iteration never ends) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned done;
	volatile int quit;
	struct worker w[WEFT_MAX_THREADS];
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct stress *S = w->S;
	struct weft_rng rng;
	sigjmp_buf jb;

	weft_native_tid = w->tid;
	weft_native_cpu = weft_cpu_of(S->o->sc, w->tid);
	weft_rng_seed(&rng, S->o->seed * 131 + w->tid);
	thread_rng = &rng;
	for (;;) {
		pthread_barrier_wait(&S->start);
		if (S->quit)
			break;
		bail_jmp = &jb;
		if (sigsetjmp(jb, 0) == 0) {
			S->o->sc->thread(S->world, w->tid);
			weft_rcu_native_thread_end();
		}
		bail_jmp = NULL;
		pthread_mutex_lock(&S->mu);
		S->done++;
		pthread_cond_signal(&S->cv);
		pthread_mutex_unlock(&S->mu);
	}
	return NULL;
}

/*
 * Wait for every thread to finish the iteration. An iteration that takes
 * longer than `limit` seconds is a deadlock or livelock manifestation: it
 * is reported, and the stop flag makes every thread bail out of the model
 * at its next primitive (spinning lock waits poll it too).
 */
static void wait_iteration(struct stress *S, double limit)
{
	struct timespec ts;
	bool reported = false;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)limit;
	ts.tv_nsec += (long)((limit - (double)(time_t)limit) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&S->mu);
	while (S->done < S->o->sc->nr_threads) {
		if (reported) {
			pthread_cond_wait(&S->cv, &S->mu);
			continue;
		}
		if (pthread_cond_timedwait(&S->cv, &S->mu, &ts) != 0 &&
		    S->done < S->o->sc->nr_threads) {
			pthread_mutex_unlock(&S->mu);
			weft_report(WEFT_KIND_LIVELOCK, NULL, NULL,
				    "an iteration did not finish within %.1f s: deadlock or livelock",
				    limit);
			reported = true;
			pthread_mutex_lock(&S->mu);
		}
	}
	pthread_mutex_unlock(&S->mu);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int weft_native_run(const struct weft_native_opts *o, struct weft_native_result *r)
{
	const struct weft_scenario *sc = o->sc;
	struct stress S;
	struct weft_rng rng;
	struct weft_workload wl;
	uint8_t wlb[WEFT_INPUT_MAX];
	unsigned nt = sc->nr_threads;
	double t0, deadline;

	memset(r, 0, sizeof(*r));
	memset(&S, 0, sizeof(S));
	S.o = o;
	S.world = calloc(1, weft_world_extent(sc) ? weft_world_extent(sc) : 1);
	if (!S.world)
		return WEFT_ENOMEM;
	weft_native_lock_model = o->lock;
	weft_rng_seed(&rng, o->seed);
	nr_spawned_base = nt;
	nr_spawned = 0;
	spawn_world = S.world;
	spawn_seed = o->seed;
	native_sc = sc;
	pthread_barrier_init(&S.start, NULL, nt + 1);
	pthread_mutex_init(&S.mu, NULL);
	pthread_cond_init(&S.cv, NULL);
	for (unsigned i = 0; i < nt; i++) {
		S.w[i].tid = i;
		S.w[i].S = &S;
		if (pthread_create(&S.w[i].th, NULL, worker_main, &S.w[i]))
			return WEFT_ENOMEM;
	}
	t0 = now();
	deadline = t0 + o->seconds;
	for (;;) {
		size_t n = o->wl ? o->wl_len : weft_random_workload(sc, &rng, wlb, sizeof(wlb));
		memset(S.world, 0, weft_world_extent(sc));
		have_report = false;
		__atomic_store_n(&weft_native_stop, 0, __ATOMIC_SEQ_CST);
		weft_workload_decode(sc, o->wl ? o->wl : wlb, n, &wl);
		weft_native_sleep_reset();
		native_exec_id++;
		thread_rng = &rng;
		weft_rcu_native_reset(sc);
		if (sc->setup)
			sc->setup(S.world, o->variant, &wl);
		S.done = 0;
		for (unsigned k = 0; k < sc->nr_irqs; k++)
			if (sc->irqs[k].raised)
				weft_thread_spawn(native_irq_thread, (void *)(uintptr_t)k,
						  sc->irqs[k].cpus ? (unsigned)__builtin_ctz(sc->irqs[k].cpus)
								   : 0, NULL);
		pthread_barrier_wait(&S.start);
		wait_iteration(&S, o->hang_seconds > 0 ? o->hang_seconds : 2.0);
		reap_spawned();
		if (!have_report && sc->quiesce)
			sc->quiesce(S.world);
		r->iterations++;
		if (have_report) {
			if (r->manifestations++ == 0) {
				r->first = first;
				r->first_seconds = now() - t0;
				r->first_iteration = r->iterations;
			}
			if (o->stop_first)
				break;
		}
		if (((r->iterations & 63) == 0 || have_report) && now() >= deadline)
			break;
		if (o->max_iterations && r->iterations >= o->max_iterations)
			break;
	}
	r->seconds = now() - t0;
	S.quit = 1;
	pthread_barrier_wait(&S.start);
	for (unsigned i = 0; i < nt; i++)
		pthread_join(S.w[i].th, NULL);
	pthread_barrier_destroy(&S.start);
	pthread_mutex_destroy(&S.mu);
	pthread_cond_destroy(&S.cv);
	free(S.world);
	return 0;
}
