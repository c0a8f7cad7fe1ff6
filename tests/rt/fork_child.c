/*
 * fork_child.c - a program that forks while a second thread runs. Weft
 * runs a program's executions in one process and does not model fork():
 * the forked child used to go on running executions (and fork again)
 * while the parent waited for it, a chain of processes that grew until
 * the run was killed. Under Weft the call ends the execution with a
 * limit-reached report naming fork() (rt/rt_process.c).
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static int shared;

static void *writer(void *arg)
{
	(void)arg;
	shared = 1;
	return NULL;
}

int main(void)
{
	pthread_t t;
	int status = 0;

	pthread_create(&t, NULL, writer, NULL);
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	if (child > 0)
		waitpid(child, &status, 0);
	pthread_join(t, NULL);
	return shared == 1 ? 0 : 1;
}
