/*
 * Dekker's mutual exclusion for two threads, in plain C on volatile
 * flags (sequential consistency, as SV-COMP's dekker task assumes). Each
 * thread waits in `while (flag[other])` loops that re-read what the
 * other thread has not changed yet: spin loops that Weft blocks until the
 * other thread writes (docs/testing-c-programs.md, "Spin loops"), so
 * dfs --bound none ends on the fix and proves it. The bug raises a
 * thread's flag only after it has looked at the other's, so both can be
 * in the critical section at once. (pct, depth 3, misses it in 20000
 * runs, on main before spin loops blocked too: the switch it needs sits
 * between two adjacent steps of a short execution.)
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
	while (flag[other]) {
		if (turn != me) {
			flag[me] = 0;
			while (turn != me)
				;
			flag[me] = 1;
		}
	}
#else
	while (flag[other])
		;
	flag[me] = 1;
#endif
}

static void leave(int me)
{
	turn = 1 - me;
	flag[me] = 0;
}

static void critical(void)
{
	inside++;
	assert(inside == 1);
	inside--;
}

static void *second(void *arg)
{
	(void)arg;
	enter(1);
	critical();
	leave(1);
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, second, NULL);
	enter(0);
	critical();
	leave(0);
	pthread_join(t, NULL);
	return 0;
}
