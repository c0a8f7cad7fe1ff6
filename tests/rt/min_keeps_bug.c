/*
 * Two bugs in one program, for `weft min` (docs/replay-format.md,
 * "Minimizing"): a minimized replay is the same bug, its report kind and
 * site, never another bug the smaller input happens to reach.
 *  - an assertion: the reader runs between the writer's two stores (one
 *    preemption) and sees x without y;
 *  - a double free: the reader runs after both stores (the default
 *    schedule, no preemption) and frees its buffer twice.
 * `weft run --kind assertion --out` finds the assertion; the file it writes
 * must replay to the assertion at this file's assert line.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static int x, y;
static char *buffer;

static void *writer(void *arg)
{
	__atomic_store_n(&x, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&y, 1, __ATOMIC_RELAXED);
	return arg;
}

static void *reader(void *arg)
{
	int rx = __atomic_load_n(&x, __ATOMIC_RELAXED);
	int ry = __atomic_load_n(&y, __ATOMIC_RELAXED);

	assert(!(rx && !ry));    /* bug A: x without y */
	free(buffer);
	if (ry)
		free(buffer);    /* bug B: a double free */
	return arg;
}

int main(void)
{
	pthread_t w, r;

	buffer = malloc(8);
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	return 0;
}
