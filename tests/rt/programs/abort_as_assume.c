/*
 * SV-COMP's tasks write "assume c" as `if (!c) abort();` inside an atomic
 * section: a lock is taken by an execution where it was free and no other
 * execution goes on. With WEFT_ABORT=end, abort() ends the process
 * without a report (as exit() does), so dfs can still cover every
 * interleaving; by default it would be a report of kind abort.
 * The second worker writes the shared value without the lock; -DFIXED
 * takes it.
 *
 * weft-expect: bug reach-error
 * weft-expect-fixed: verified
 * weft-env: WEFT_ABORT=end
 */
#include <pthread.h>
#include <stdlib.h>

void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
void __VERIFIER_error(void);

static int lock;
static volatile int shared;   /* -O1 would fold the check away */

static void acquire(void)
{
	__VERIFIER_atomic_begin();
	if (lock != 0)
		abort();
	lock = 1;
	__VERIFIER_atomic_end();
}

static void release(void)
{
	lock = 0;
}

static void *checker(void *arg)
{
	acquire();
	shared = 1;
	if (shared != 1)
		__VERIFIER_error();
	release();
	return arg;
}

static void *writer(void *arg)
{
#ifdef FIXED
	acquire();
#endif
	shared = 2;
#ifdef FIXED
	release();
#endif
	return arg;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, checker, NULL);
	pthread_create(&b, NULL, writer, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
