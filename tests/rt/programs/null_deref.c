/*
 * A thread tears down a configuration pointer while main still reads
 * through it: a check-then-use race ends in a NULL dereference (SIGSEGV in
 * a program thread, a crash report). -DFIXED loads the pointer once.
 *
 * weft-expect: bug crash
 * weft-expect-fixed: verified
 */
#include <pthread.h>
#include <stddef.h>

struct config {
	int verbose;
};

static struct config defaults = { 1 };
static struct config *volatile current = &defaults;
int verbose;   /* not static: the compiler keeps the load that feeds it */

static void *teardown(void *arg)
{
	current = NULL;
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, teardown, NULL);
#ifdef FIXED
	struct config *c = current;
	if (c)
		verbose = c->verbose;
#else
	if (current)
		verbose = current->verbose;
#endif
	pthread_join(t, NULL);
	return 0;
}
