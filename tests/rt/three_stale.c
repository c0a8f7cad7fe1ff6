/*
 * three_stale.c - message passing with relaxed C11 atomics whose failure
 * needs three weak choices: the reader sees the flag and then three
 * stale values (three loads of an older version under --memory lkmm, or
 * three delayed stores). The C11 model and the LKMM both allow it.
 * dfs with the default --delay-bound 2 cannot reach it: a complete search
 * must say "within 2 weak choices per execution", never a bare "covered
 * completely" (ctest rt_dfs_delay_bound_stated); random finds it
 * (rt_three_stale_found).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int a, b, c, flag;

static void *writer(void *arg)
{
	(void)arg;
	atomic_store_explicit(&a, 1, memory_order_relaxed);
	atomic_store_explicit(&b, 1, memory_order_relaxed);
	atomic_store_explicit(&c, 1, memory_order_relaxed);
	atomic_store_explicit(&flag, 1, memory_order_relaxed);
	return 0;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, 0, writer, 0);
	if (atomic_load_explicit(&flag, memory_order_relaxed)) {
		int ra = atomic_load_explicit(&a, memory_order_relaxed);
		int rb = atomic_load_explicit(&b, memory_order_relaxed);
		int rc = atomic_load_explicit(&c, memory_order_relaxed);
		assert(!(ra == 0 && rb == 0 && rc == 0));
	}
	pthread_join(t, 0);
	return 0;
}
