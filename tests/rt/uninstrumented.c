/*
 * uninstrumented.c - a pthread program built WITHOUT weft-cc: no
 * libweft_rt, so nothing in it reads WEFT_PROGRAM_CLI. Run natively it
 * races and exits 0 whatever happened; `weft run` must refuse it instead
 * of handing its exit status back as a verdict (exit 0 read as "clean").
 */
#include <pthread.h>
#include <stdio.h>

static int hits;

static void *bump(void *arg)
{
	(void)arg;
	hits++;
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, bump, NULL);
	hits++;
	pthread_join(t, NULL);
	printf("hits %d\n", hits);
	return 0;
}
