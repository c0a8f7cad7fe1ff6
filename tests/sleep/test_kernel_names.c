/*
 * test_kernel_names.c - the kernel's type names for the sleeping locks
 * (struct mutex, struct rw_semaphore, struct semaphore, struct completion:
 * <weft/sleep.h>) and lockdep_assert_held(), smp_store_mb() (<weft/kernel.h>),
 * checked on every interleaving of a small model written as kernel code:
 *  - two threads update a count under a struct mutex and a struct
 *    rw_semaphore, asserting each is held; a struct semaphore gates a
 *    third step, a struct completion tells main they are done: every
 *    interleaving is clean, complete, and counts 2 (mutual exclusion
 *    holds: the wrapper types are the kit's locks, not look-alikes);
 *  - lockdep_assert_held() of a mutex, an rw semaphore (either mode) and a
 *    spinlock the thread does not hold is a warn-on in the first execution.
 */
#include "sleep_test.h"
#include "../model_driver.h"

struct kn_world {
	unsigned variant;
	struct mutex m;
	struct rw_semaphore rw;
	struct semaphore sem;
	struct completion done;
	spinlock_t l;
	int count, rcount, flag;
};

enum { KN_OK, KN_MUTEX_NOT_HELD, KN_RWSEM_NOT_HELD, KN_SPIN_NOT_HELD, KN_NR };

static void kn_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	struct kn_world *W = w;

	(void)wl;
	W->variant = v;
	mutex_init(&W->m);
	init_rwsem(&W->rw);
	sema_init(&W->sem, 1);
	init_completion(&W->done);
	spin_lock_init(&W->l);
}

static void kn_thread(void *w, unsigned tid)
{
	struct kn_world *W = w;

	if (tid == 2) {   /* main: polls for the first, waits for both */
		while (!READ_ONCE(W->flag))
			msleep(1);
		wait_for_completion(&W->done);
		wait_for_completion(&W->done);
		if (READ_ONCE(W->count) != 2 || READ_ONCE(W->rcount) != 2)
			weft_report(WEFT_KIND_ASSERT, NULL, WEFT_SITE(WEFT_EV_NOTE, "counts"),
				    "count %d, rcount %d", W->count, W->rcount);
		return;
	}
	mutex_lock(&W->m);
	lockdep_assert_held(&W->m);
	WRITE_ONCE(W->count, READ_ONCE(W->count) + 1);
	mutex_unlock(&W->m);
	down_write(&W->rw);
	lockdep_assert_held(&W->rw);
	WRITE_ONCE(W->rcount, READ_ONCE(W->rcount) + 1);
	downgrade_write(&W->rw);
	lockdep_assert_held(&W->rw);
	up_read(&W->rw);
	usleep_range(10, 20);
	down(&W->sem);
	spin_lock(&W->l);
	lockdep_assert_held(&W->l);
	smp_store_mb(W->flag, (int)tid + 1);
	spin_unlock(&W->l);
	up(&W->sem);
	if (tid == 0) {
		if (W->variant == KN_MUTEX_NOT_HELD)
			lockdep_assert_held(&W->m);
		if (W->variant == KN_RWSEM_NOT_HELD)
			lockdep_assert_held(&W->rw);
		if (W->variant == KN_SPIN_NOT_HELD)
			lockdep_assert_held(&W->l);
	}
	complete(&W->done);
}

static const struct weft_variant kn_variants[] = {
	{ "ok", NULL, false, "", "", WEFT_KIND_NONE, 0, KN_OK },
	{ "mutex-not-held", NULL, true, "", "", WEFT_KIND_WARN_ON, 0, KN_MUTEX_NOT_HELD },
	{ "rwsem-not-held", NULL, true, "", "", WEFT_KIND_WARN_ON, 0, KN_RWSEM_NOT_HELD },
	{ "spin-not-held", NULL, true, "", "", WEFT_KIND_WARN_ON, 0, KN_SPIN_NOT_HELD },
};
static const struct weft_scenario kn_sc =
	WEFT_TEST_UNLISTED("kernel-names", struct kn_world, 3, 3, 256, WEFT_TEST_HOOKS(kn));

int main(void)
{
	weft_machine_init();

	struct st_dfs_out o = st_dfs_run(&kn_sc, KN_OK, 2, WEFT_LOCK_TAS, NULL, 0);
	CHECK(o.complete && o.r.kind == WEFT_KIND_NONE,
	      "kernel names, held locks: dfs bound 2 complete %d, %s after %llu executions",
	      o.complete, weft_kind_name(o.r.kind), (unsigned long long)o.executions);
	CHECK(o.executions > 10, "the threads interleave: %llu executions",
	      (unsigned long long)o.executions);
	for (unsigned v = KN_MUTEX_NOT_HELD; v < KN_NR; v++) {
		o = st_dfs_run(&kn_sc, v, 0, WEFT_LOCK_TAS, NULL, 0);
		CHECK(o.r.kind == WEFT_KIND_WARN_ON && o.executions == 1,
		      "%s: lockdep_assert_held() of a lock not held: %s after %llu executions",
		      kn_variants[v].name, weft_kind_name(o.r.kind),
		      (unsigned long long)o.executions);
	}
	return check_done();
}
