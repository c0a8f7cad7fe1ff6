/*
 * A spin barrier for three threads on C11 atomics: each thread publishes
 * its slot, counts itself in with fetch_add and spins until the count
 * says everyone arrived, then reads every slot. The spin re-reads a count
 * that only the others change: Weft blocks it until one of them writes,
 * so dfs --bound none ends on the fix and proves it. The bug waits for
 * one thread fewer than there are, so the last thread's slot can be read
 * before it is written.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define N 3
#ifdef FIXED
#define ARRIVED N
#else
#define ARRIVED (N - 1)
#endif

static atomic_int count;
static int slot[N];

static void *worker(void *arg)
{
	int me = (int)(long)arg;

	slot[me] = me + 1;
	atomic_fetch_add(&count, 1);
	while (atomic_load(&count) < ARRIVED)
		;
	for (int i = 0; i < N; i++)
		assert(slot[i] == i + 1);
	return NULL;
}

int main(void)
{
	pthread_t t[N];

	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	return 0;
}
