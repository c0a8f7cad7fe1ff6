/*
 * The C library's generators draw the same numbers in every execution
 * (rt/rt_random.c): the drand48 family glibc's own sequence from its start
 * state and after srand48(42) (the values below are glibc 2.36's), two
 * getrandom() reads that differ from each other but not between
 * executions (the bytes go into the trace, so dfs's determinism check
 * would see them change). Their state carried over from one execution to the next
 * before, and a recorded bug did not replay. The bug is a lost update of
 * the drawn total by two workers; -DFIXED takes a mutex.
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;
static unsigned char drawn[16];   /* traced, byte by byte: a value that
				     changed between executions would be a
				     NONDETERMINISM (the trace hash differs) */

static void *worker(void *arg)
{
	long v = (long)arg;

#ifdef FIXED
	pthread_mutex_lock(&m);
#endif
	long seen = total;
	total = seen + v;
#ifdef FIXED
	pthread_mutex_unlock(&m);
#endif
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	unsigned short x[3] = { 1, 2, 3 };
	unsigned char a[16], b[16];
	static const unsigned char zero[16];

	assert(lrand48() == 0 && drand48() > 0.000985394 && drand48() < 1.0);
	srand48(42);
	assert(lrand48() == 1598855263 && mrand48() == 1471891643);
	assert(nrand48(x) == 949179875 && jrand48(x) == 1130126687);
	assert(getrandom(a, sizeof(a), 0) == sizeof(a) && getrandom(b, sizeof(b), 0) == sizeof(b));
	assert(memcmp(a, b, sizeof(a)) != 0 && memcmp(a, zero, sizeof(a)) != 0);
	for (unsigned i = 0; i < sizeof(a); i++)
		drawn[i] = a[i];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(total == 3);
	return 0;
}
