/*
 * C11 <threads.h>: threads, a recursive mutex, a condition variable,
 * call_once() and thread-specific storage, each checked in every
 * interleaving; the bug increments the shared count outside the mutex in
 * one of the two workers (a lost update), -DFIXED inside. glibc implements
 * these over its pthread functions internally: before the runtime
 * interposed them, thrd_create()'s threads ran as real OS threads beside
 * the scheduler.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <stdint.h>
#include <threads.h>

static mtx_t lock;
static cnd_t done_cv;
static once_flag once = ONCE_FLAG_INIT;
static tss_t key;
static int count, inits, finished;

static void init(void)
{
	inits++;
}

static int worker(void *arg)
{
	int id = (int)(intptr_t)arg;

	call_once(&once, init);
	tss_set(key, arg);
#ifndef FIXED
	if (id == 1) {
		int v = count;
		count = v + 1;
	} else
#endif
	{
		mtx_lock(&lock);
		mtx_lock(&lock);        /* recursive */
		count++;
		mtx_unlock(&lock);
		mtx_unlock(&lock);
	}
	mtx_lock(&lock);
	finished++;
	cnd_signal(&done_cv);
	mtx_unlock(&lock);
	assert(tss_get(key) == arg);
	thrd_exit(10 + id);
}

int main(void)
{
	thrd_t t[2];
	int res;

	mtx_init(&lock, mtx_plain | mtx_recursive);
	cnd_init(&done_cv);
	tss_create(&key, NULL);
	for (intptr_t i = 0; i < 2; i++)
		assert(thrd_create(&t[i], worker, (void *)i) == thrd_success);
	mtx_lock(&lock);
	while (finished < 2)
		cnd_wait(&done_cv, &lock);
	mtx_unlock(&lock);
	for (int i = 0; i < 2; i++) {
		assert(thrd_join(t[i], &res) == thrd_success && res == 10 + i);
	}
	assert(inits == 1 && !thrd_equal(t[0], t[1]) && tss_get(key) == NULL);
	assert(count == 2);
	return 0;
}
