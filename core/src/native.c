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

volatile int weft_native_stop;
__thread unsigned weft_native_cpu;
__thread unsigned weft_native_tid;
int weft_native_lock_model;

static __thread sigjmp_buf *bail_jmp;
static __thread struct weft_rng *thread_rng;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct weft_native_report first;
static bool have_report;

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

unsigned weft_cpu_of(const struct weft_scenario *sc, unsigned tid)
{
	return sc->cpu_of ? sc->cpu_of[tid] : tid % (sc->nr_cpus ? sc->nr_cpus : 1);
}

struct worker {
	pthread_t th;
	unsigned tid;
	struct stress *S;
};

struct stress {
	const struct weft_native_opts *o;
	void *world;
	pthread_barrier_t start, end;
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
		if (sigsetjmp(jb, 0) == 0)
			S->o->sc->thread(S->world, w->tid);
		bail_jmp = NULL;
		pthread_barrier_wait(&S->end);
	}
	return NULL;
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
	S.world = calloc(1, sc->world_size ? sc->world_size : 1);
	if (!S.world)
		return WEFT_ENOMEM;
	weft_native_lock_model = o->lock;
	weft_rng_seed(&rng, o->seed);
	pthread_barrier_init(&S.start, NULL, nt + 1);
	pthread_barrier_init(&S.end, NULL, nt + 1);
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
		memset(S.world, 0, sc->world_size);
		have_report = false;
		__atomic_store_n(&weft_native_stop, 0, __ATOMIC_SEQ_CST);
		weft_workload_decode(sc, o->wl ? o->wl : wlb, n, &wl);
		thread_rng = &rng;
		sc->setup(S.world, o->variant, &wl);
		pthread_barrier_wait(&S.start);
		pthread_barrier_wait(&S.end);
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
		if ((r->iterations & 63) == 0 && now() >= deadline)
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
	pthread_barrier_destroy(&S.end);
	free(S.world);
	return 0;
}
