/*
 * A value drawn from __VERIFIER_nondet_int(): plain dfs tries value 0 only
 * (a choice of more than WEFT_DFS_MAX_CHOICE values is not enumerated), so
 * it must never call its search complete; the failing value is 123456.
 */
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

static int x;

static void *draw(void *arg)
{
	(void)arg;
	x = __VERIFIER_nondet_int();
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, draw, NULL);
	pthread_join(t, NULL);
	return x == 123456;
}
