/*
 * A spin loop that counts its iterations in a local and gives up after 50:
 * the thread it waits for never sets the flag, so the 50th iteration calls
 * reach_error(). Its iterations store nothing and read the same flag, but
 * the count changes its stack, so Weft does not take it for a wait that
 * only another thread can end (docs/testing-c-programs.md, "Spin loops")
 * and runs it to the end. Only at -O0, where the count lives on the stack:
 * at -O1 it is in a register, which Weft does not see (the docs' limit).
 * -DFIXED waits without counting, for a flag that is set.
 *
 * weft-expect: bug reach-error
 * weft-expect-fixed: verified
 * weft-opt: -O0
 */
#include <pthread.h>

void reach_error(void);
void reach_error(void)
{
}

static volatile int flag;

static void *setter(void *arg)
{
	(void)arg;
#ifdef FIXED
	flag = 1;
#endif
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, setter, NULL);
#ifdef FIXED
	while (!flag)
		;
#else
	int n = 0;
	while (!flag)
		if (++n == 50) {
			reach_error();
			break;
		}
#endif
	pthread_join(t, NULL);
	return 0;
}
