/*
 * A readers-writer lock taken in atomic sections that assume it is free
 * (SV-COMP's __VERIFIER_assume: an execution where it is not cannot go
 * on), and readers that give it back with a plain read-modify-write: two
 * releases can lose one, the count drops to 0 while a reader still holds
 * the lock, and the writer changes the value under that reader.
 *
 * The execution that shows it needs the writer's attempt to come after a
 * reader's release, an event that had not run when an earlier execution
 * ended at the writer's failed assumption: partial-order reduction never
 * saw that race (it verified this program once), so dfs explores every
 * thread at every state (sleep sets alone) for a program whose executions
 * end so. -DFIXED releases in an atomic section. The functions are atomic
 * when called, and clang -O1 inlines them: -finstrument-functions keeps a
 * hook in the inlined copies.
 *
 * pct does not find it: the writer must get its turn after the readers'
 * first steps and before the second reader's, and a change of priority
 * only ever lowers a thread below every initial one, so each pct schedule
 * that gives the writer an earlier turn ends at its failed assumption.
 *
 * weft-expect: bug reach-error
 * weft-expect-fixed: verified
 * weft-cflags: -finstrument-functions
 * weft-found-by: dfs random
 */
#include <pthread.h>

void __VERIFIER_assume(int cond);
void __VERIFIER_error(void);

static int writing, readers;
static volatile int value;

void __VERIFIER_atomic_take_write(void);
void __VERIFIER_atomic_take_write(void)
{
	__VERIFIER_assume(writing == 0 && readers == 0);
	writing = 1;
}

void __VERIFIER_atomic_take_read(void);
void __VERIFIER_atomic_take_read(void)
{
	__VERIFIER_assume(writing == 0);
	readers = readers + 1;
}

void __VERIFIER_atomic_release_read(void);
void __VERIFIER_atomic_release_read(void)
{
	readers = readers - 1;
}

static void *writer(void *arg)
{
	__VERIFIER_atomic_take_write();
	value = 3;
	writing = 0;
	return arg;
}

static void *reader(void *arg)
{
	__VERIFIER_atomic_take_read();
	int seen = value;
	if (seen != value)
		__VERIFIER_error();
#ifdef FIXED
	__VERIFIER_atomic_release_read();
#else
	int left = readers - 1;
	readers = left;
#endif
	return arg;
}

int main(void)
{
	pthread_t w, r1, r2;

	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r1, NULL, reader, NULL);
	pthread_create(&r2, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r1, NULL);
	pthread_join(r2, NULL);
	return 0;
}
