/*
 * pthread_cancel() is not modelled (rt/rt_pthread_np.c): the execution
 * stops with a limit-reached report that names it, no verdict; before, a
 * pthread_t of an execution (a thread number) reached glibc's own
 * pthread_cancel(), which dereferenced it (a crash report).
 */
#include <pthread.h>
#include <sched.h>

static void *spin(void *arg)
{
	(void)arg;
	for (;;)
		sched_yield();
	return NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, spin, NULL);
	pthread_cancel(t);
	pthread_join(t, NULL);
	return 0;
}
