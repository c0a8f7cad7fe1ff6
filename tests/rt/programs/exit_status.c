/*
 * A worker gives up with exit(1) when it finds the job queue empty, which
 * it can when it runs before main fills it: a non-zero exit is a report
 * (exit-status). -DFIXED fills the queue before starting the worker.
 *
 * weft-expect: bug exit-status
 * weft-expect-fixed: verified
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int jobs;

static void *worker(void *arg)
{
	if (jobs == 0) {
		fprintf(stderr, "no jobs\n");
		exit(1);
	}
	jobs--;
	return arg;
}

int main(void)
{
	pthread_t t;

#ifdef FIXED
	jobs = 1;
	pthread_create(&t, NULL, worker, NULL);
#else
	pthread_create(&t, NULL, worker, NULL);
	jobs = 1;
#endif
	pthread_join(t, NULL);
	return 0;
}
