/*
 * A worker copies a flag and waits on its own copy, SV-COMP's way to stop a
 * thread for good: `while (s) {}` on a local never reaches a scheduling
 * point. The runtime counts its basic blocks (weft-cc's trace-pc) and,
 * past WEFT_SPIN_BLOCKS of them with no visible operation, makes it a
 * thread that never runs again: main's join of it is a deadlock report
 * naming the endless loop, not a hang. -DFIXED clears the flag before the
 * worker starts.
 *
 * weft-expect: bug deadlock
 * weft-expect-fixed: verified
 * weft-env: WEFT_SPIN_BLOCKS=100000
 * weft-opt: -O0
 *
 * -O0 only: clang -O1 makes the empty loop a jump to itself with no
 * block hook left in it (gcc -O1 keeps one); the runtime's watchdog then
 * ends the execution after WEFT_WATCHDOG_S seconds, a limit, not a verdict.
 */
#include <pthread.h>

int busy = 1;

static void *worker(void *arg)
{
	int s = busy;
	while (s) {
	}
	return arg;
}

int main(void)
{
	pthread_t t;

#ifdef FIXED
	busy = 0;
	pthread_create(&t, NULL, worker, NULL);
#else
	pthread_create(&t, NULL, worker, NULL);
	busy = 0;
#endif
	pthread_join(t, NULL);
	return 0;
}
