/*
 * test_sleep_native.c - the sleeping primitives on real threads
 * (-DWEFT_NATIVE, core/src/native/native_sleep.c), through the stress loop of
 * weft stress (weft_native_run):
 *
 *  - mutual exclusion and hand-offs hold over thousands of real
 *    contended operations (mutex, rwsem, semaphore, condition variable,
 *    wait_event, completion, page lock): no lost update, no lost item;
 *  - a sleeper nobody wakes shows as a hang the loop reports, and the
 *    sleeper gets out (the run returns);
 *  - a report in another thread ends the iteration at once: a thread
 *    asleep in a primitive polls the stop flag and bails out, long before
 *    the hang detector would fire;
 *  - owner checks work natively (a mutex unlocked by another thread).
 */
#include <time.h>

#include <weft/mm/pagelock.h>
#include <weft/native_run.h>
#include <weft/pthread.h>

#include "check.h"
#include "../model_driver.h"

enum { N_MUTEX, N_RWSEM, N_SEM, N_COND, N_WQ, N_COMPLETION, N_PAGE, N_LOST, N_REPORT_ENDS,
       N_BAD_UNLOCK, N__COUNT };

#define ROUNDS 600

struct nw_world {
	unsigned variant;
	struct weft_mutex m;
	struct weft_rw_semaphore rw;
	struct weft_semaphore sem;
	weft_pthread_cond_t cv;
	wait_queue_head_t wq;
	struct weft_completion a, b, never;
	struct weft_mm mm;
	struct weft_page *page;
	atomic_t in_use, produced_left;
	int count, consumed, x, y, seq;
	unsigned long total;
};

WEFT_TEST_SETUP(nw, struct nw_world)
{
	sema_init(&W->sem, 2);
	weft_mm_init(&W->mm, 1, false);
	W->page = weft_page_alloc(&W->mm);
}

static void nw_thread(void *w, unsigned tid)
{
	struct nw_world *W = w;

	switch (W->variant) {
	case N_MUTEX:
		for (int i = 0; i < ROUNDS; i++) {
			mutex_lock(&W->m);
			PLAIN_WRITE(W->total, PLAIN_READ(W->total) + 1);
			mutex_unlock(&W->m);
		}
		break;
	case N_RWSEM:
		for (int i = 0; i < ROUNDS; i++) {
			if (tid == 0) {
				down_write(&W->rw);
				PLAIN_WRITE(W->x, PLAIN_READ(W->x) + 1);
				PLAIN_WRITE(W->y, PLAIN_READ(W->y) + 1);
				up_write(&W->rw);
			} else {
				down_read(&W->rw);
				if (PLAIN_READ(W->x) != PLAIN_READ(W->y))
					weft_report(WEFT_KIND_ASSERT, &W->x,
						    WEFT_SITE(WEFT_EV_NOTE, "x == y under the read lock"),
						    "a reader saw a half-done write");
				up_read(&W->rw);
			}
		}
		break;
	case N_SEM:
		for (int i = 0; i < ROUNDS; i++) {
			down(&W->sem);
			if (atomic_inc_return(&W->in_use) > 2)
				weft_report(WEFT_KIND_ASSERT, &W->in_use,
					    WEFT_SITE(WEFT_EV_NOTE, "at most 2 in the pool"),
					    "3 threads hold a 2-slot semaphore");
			atomic_dec(&W->in_use);
			up(&W->sem);
		}
		break;
	case N_COND:
		if (tid == 0) {
			for (int i = 0; i < 2 * ROUNDS; i++) {
				weft_pthread_mutex_lock(&W->m);
				PLAIN_WRITE(W->count, PLAIN_READ(W->count) + 1);
				weft_pthread_cond_signal(&W->cv);
				weft_pthread_mutex_unlock(&W->m);
			}
		} else {
			for (int i = 0; i < ROUNDS; i++) {
				weft_pthread_mutex_lock(&W->m);
				while (PLAIN_READ(W->count) == 0)
					weft_pthread_cond_wait(&W->cv, &W->m);
				PLAIN_WRITE(W->count, PLAIN_READ(W->count) - 1);
				PLAIN_WRITE(W->consumed, PLAIN_READ(W->consumed) + 1);
				weft_pthread_mutex_unlock(&W->m);
			}
		}
		break;
	case N_WQ:
		/* ping-pong: T0 moves seq from even to odd, T1 from odd to even */
		if (tid > 1)
			break;
		for (int i = 0; i < ROUNDS; i++) {
			wait_event(W->wq, (READ_ONCE(W->seq) & 1) == (int)tid);
			WRITE_ONCE(W->seq, READ_ONCE(W->seq) + 1);
			wake_up_all(&W->wq);
		}
		break;
	case N_COMPLETION:
		if (tid > 1)
			break;
		for (int i = 0; i < ROUNDS; i++) {
			if (tid == 0) {
				complete(&W->a);
				wait_for_completion(&W->b);
			} else {
				wait_for_completion(&W->a);
				complete(&W->b);
			}
		}
		break;
	case N_PAGE:
		for (int i = 0; i < ROUNDS; i++) {
			if (tid == 2 && (i & 7) == 0)
				wait_on_page_locked(W->page);
			lock_page(W->page);
			PLAIN_WRITE(W->total, PLAIN_READ(W->total) + 1);
			unlock_page(W->page);
		}
		break;
	case N_LOST:
		if (tid == 0)
			wait_for_completion(&W->never);
		break;
	case N_REPORT_ENDS:
		if (tid == 0)
			wait_for_completion(&W->never);
		else if (tid == 1) {
			for (int i = 0; i < 100; i++)
				(void)READ_ONCE(W->x);
			weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "stop"),
				    "a report while T0 sleeps");
		}
		break;
	case N_BAD_UNLOCK:
		if (tid == 0) {
			mutex_lock(&W->m);
			complete(&W->a);
			wait_for_completion(&W->b);
		} else if (tid == 1) {
			wait_for_completion(&W->a);
			mutex_unlock(&W->m);
			complete(&W->b);
		}
		break;
	}
}

static void nw_quiesce(void *w)
{
	struct nw_world *W = w;
	unsigned long want = 0, got = 0;

	switch (W->variant) {
	case N_MUTEX:
	case N_PAGE:
		want = 3 * ROUNDS;
		got = W->total;
		break;
	case N_COND:
		want = 2 * ROUNDS;
		got = (unsigned long)W->consumed;
		break;
	case N_WQ:
		want = 2 * ROUNDS;
		got = (unsigned long)W->seq;
		break;
	}
	if (got != want)
		weft_report(WEFT_KIND_LOST_UPDATE, NULL, WEFT_SITE(WEFT_EV_NOTE, "totals"),
			    "variant %u: %lu, want %lu", W->variant, got, want);
	if (W->variant == N_PAGE && (weft_peek(W->page->flags) & (1ul << WEFT_PG_locked |
								 1ul << WEFT_PG_waiters)))
		weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "page idle"),
			    "page flags %lx at the end", weft_peek(W->page->flags));
}

#define NV(name) { name, NULL, false, name, "test", WEFT_KIND_NONE, 0, 0 }
static const struct weft_variant nw_variants[N__COUNT] = { [0 ... N__COUNT - 1] = NV("v") };
static const struct weft_scenario nw_sc = {
	.name = "sleep-native", .summary = "native sleeping primitives", .source = "test",
	.nr_cpus = 3, .nr_threads = 3, .world_size = sizeof(struct nw_world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, WEFT_TEST_HOOKS(nw),
	.quiesce = nw_quiesce,
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct weft_native_result run(unsigned variant, uint64_t iterations, double hang,
				     enum weft_lock_model lock, double *secs)
{
	struct weft_native_opts o = { .sc = &nw_sc, .variant = variant, .lock = lock,
				      .seconds = 60, .seed = 1, .max_iterations = iterations,
				      .hang_seconds = hang };
	struct weft_native_result r;
	double t0 = now();

	CHECK(weft_native_run(&o, &r) == 0, "native run of variant %u", variant);
	*secs = now() - t0;
	return r;
}

int main(void)
{
	static const char *const names[] = { "mutex", "rwsem", "semaphore", "condvar",
					     "wait_event", "completion", "page lock" };
	double secs;
	struct weft_native_result r;

	for (unsigned v = N_MUTEX; v <= N_PAGE; v++) {
		for (int lock = 0; lock < 2; lock++) {
			r = run(v, 20, 10.0, (enum weft_lock_model)lock, &secs);
			CHECK(r.manifestations == 0 && r.iterations == 20,
			      "%s (%s): %llu manifestations in %llu iterations: %s: %s", names[v],
			      lock ? "ticket" : "tas", (unsigned long long)r.manifestations,
			      (unsigned long long)r.iterations, weft_kind_name(r.first.kind),
			      r.first.msg);
		}
		printf("native %s: 2 x 20 iterations of %d contended rounds clean (%.2f s)\n",
		       names[v], ROUNDS, secs);
	}

	r = run(N_LOST, 1, 0.3, WEFT_LOCK_TAS, &secs);
	CHECK(r.manifestations == 1 && r.first.kind == WEFT_KIND_LIVELOCK && secs < 5.0,
	      "a sleeper nobody wakes: %llu manifestations, %s, %.2f s",
	      (unsigned long long)r.manifestations, weft_kind_name(r.first.kind), secs);

	r = run(N_REPORT_ENDS, 5, 10.0, WEFT_LOCK_TAS, &secs);
	CHECK(r.manifestations == 5 && r.first.kind == WEFT_KIND_ASSERT && secs < 5.0,
	      "a report while a thread sleeps: %llu manifestations, %s, %.2f s for 5 iterations "
	      "(the hang detector would take 10 s each)",
	      (unsigned long long)r.manifestations, weft_kind_name(r.first.kind), secs);

	r = run(N_BAD_UNLOCK, 3, 10.0, WEFT_LOCK_TAS, &secs);
	CHECK(r.manifestations == 3 && r.first.kind == WEFT_KIND_BAD_UNLOCK && secs < 5.0,
	      "a mutex unlocked by another thread: %llu manifestations, %s",
	      (unsigned long long)r.manifestations, weft_kind_name(r.first.kind));
	return check_done();
}
