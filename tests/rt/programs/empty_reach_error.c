/*
 * SV-COMP's older convention: reach_error() is an empty function and its
 * call ("ERROR: reach_error();") is the error location. The runtime knows
 * the call by the function's entry. The reader checks a flag that the
 * worker may already have set; -DFIXED joins the worker first and checks
 * what must hold then.
 *
 * At -O1 the call of an empty function is optimized away; tools/svcomp
 * compiles with -finstrument-functions, which keeps a hook at every
 * function's entry, inlined or not, and so does this test.
 *
 * weft-expect: bug reach-error
 * weft-expect-fixed: verified
 * weft-cflags: -finstrument-functions
 */
#include <pthread.h>

void reach_error(void);
void reach_error(void) {}

int ready;

static void *worker(void *arg)
{
	ready = 1;
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
#ifdef FIXED
	pthread_join(t, NULL);
	if (ready != 1) {
	ERROR:
		reach_error();
	}
#else
	if (ready == 1) {
	ERROR:
		reach_error();
	}
	pthread_join(t, NULL);
#endif
	return 0;
}
