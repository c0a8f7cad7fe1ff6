/*
 * long_run.c - a correct program whose executions are long: two threads
 * each take a mutex argv[1] times (default 50000) and add to a counter
 * under it, then main() checks the sum; with argv[2] ("racy") the adds
 * skip the mutex and the check fails. 50000 rounds take about 500000
 * steps and 560000 scheduling decisions (random), more than a replay held
 * before it recorded 2^20 (the default step budget, 10^6 steps, fits):
 * such an execution is replayed, and its bug stored and minimized; one
 * longer than 2^20 decisions (--steps) can be neither re-run nor stored:
 * weft run must say so, not call the program nondeterministic (ctests
 * rt_long_run_*). With argv[2] "draws" each round also draws a value
 * (__VERIFIER_nondet_int, not used): past the 4096 a replay records the
 * execution is "not replayable" too (rt_long_run_draws).
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

extern int __VERIFIER_nondet_int(void);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long rounds = 50000;
static int racy, draws;

static void *adder(void *arg)
{
	(void)arg;
	for (long i = 0; i < rounds; i++) {
		if (!racy)
			pthread_mutex_lock(&m);
		counter++;
		if (draws)
			(void)__VERIFIER_nondet_int();
		if (!racy)
			pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc > 1)
		rounds = atol(argv[1]);
	racy = argc > 2 && strcmp(argv[2], "racy") == 0;
	draws = argc > 2 && strcmp(argv[2], "draws") == 0;
	pthread_create(&a, NULL, adder, NULL);
	pthread_create(&b, NULL, adder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 2 * rounds);
	return 0;
}
