/*
 * Each thread keeps a scratch buffer in a __thread variable. A thread's
 * thread-local storage goes away when the thread ends, so a worker that
 * ends without freeing its buffer leaks it; main's buffer is still
 * reachable at exit through main's own thread-local (LeakSanitizer scans
 * the thread-local storage of the threads alive at exit: the fix's run
 * was a false memory-leak until Weft's leak scan did too). -DFIXED frees
 * the worker's buffer before it ends.
 *
 * weft-expect: bug memory-leak
 * weft-expect-fixed: verified
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static __thread char *scratch;
static int finished;

static void *worker(void *arg)
{
	scratch = malloc(16);
	strcpy(scratch, "worker");
	__atomic_fetch_add(&finished, 1, __ATOMIC_SEQ_CST);
#ifdef FIXED
	free(scratch);
	scratch = NULL;
#endif
	return arg;
}

int main(void)
{
	pthread_t t[2];

	scratch = malloc(32);
	strcpy(scratch, "main");
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return finished == 2 ? 0 : 1;
}
