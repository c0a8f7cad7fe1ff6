/*
 * stdin_read.c - two threads add to a counter without a lock as many times
 * as main() read from stdin: with 2 or more, a lost update fails the
 * check. Every execution must read the same input (ctests rt_stdin_*): a
 * file is rewound before each, a pipe read by the program is refused
 * (before, the search saw the 2 in its first execution only, read nothing
 * in the others and called the program verified).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static int n, counter;

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < n; i++)
		counter++;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (scanf("%d", &n) != 1)
		n = 0;
	pthread_create(&a, NULL, adder, NULL);
	pthread_create(&b, NULL, adder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(counter == 2 * n);
	return 0;
}
