/*
 * Peterson's mutual exclusion for two threads, each entering once, on
 * volatile variables (sequential consistency). The wait
 * `while (flag[other] && turn == other)` spins on values only the other
 * thread changes: Weft blocks it until that thread writes one of them, so
 * dfs --bound none ends on the fix and proves it. The bug gives the turn
 * away before raising its own flag (the classic wrong order): both threads
 * can pass the wait. (pct, depth 3, misses it in 20000 runs: the two
 * switches it needs fall inside a few steps of a 33-step execution.)
 *
 * weft-expect: bug assertion
 * weft-expect-fixed: verified
 * weft-found-by: dfs random
 */
#include <assert.h>
#include <pthread.h>

static volatile int flag[2], turn, inside;

static void enter(int me)
{
	int other = 1 - me;

#ifdef FIXED
	flag[me] = 1;
	turn = other;
#else
	turn = other;
	flag[me] = 1;
#endif
	while (flag[other] && turn == other)
		;
}

static void run(int me)
{
	enter(me);
	inside++;
	assert(inside == 1);
	inside--;
	flag[me] = 0;
}

static void *second(void *arg)
{
	(void)arg;
	run(1);
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, second, NULL);
	run(0);
	pthread_join(t, NULL);
	return 0;
}
