/*
 * Two threads hand a token back and forth through a volatile word, each
 * spinning until the word holds its own number. In the bug the second
 * thread plays two rounds fewer, so the first waits for a hand-off nobody
 * is left to make: every thread left is blocked (a
 * spin loop waits for another thread's write, docs/testing-c-programs.md,
 * "Spin loops"), which Weft reports as a livelock at once rather than at
 * the step budget. -DFIXED plays the same number of rounds in both.
 *
 * weft-expect: bug livelock
 * weft-expect-fixed: verified
 */
#include <pthread.h>

#define ROUNDS 3

static volatile int token;

static void play(int me, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		while (token != me)
			;
		token = 1 - me;
	}
}

static void *second(void *arg)
{
	(void)arg;
#ifdef FIXED
	play(1, ROUNDS);
#else
	play(1, ROUNDS - 2);
#endif
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, second, NULL);
	play(0, ROUNDS);
	pthread_join(t, NULL);
	return 0;
}
