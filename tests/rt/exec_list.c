/*
 * exec_list.c - the variadic exec calls (rt/rt_process.c). argv[1] picks
 * the call: "execl", "execlp" or "execle". Under `weft run` each ends the
 * execution with a limit-reached report naming it (before, the search
 * process was replaced by the other program, and its exit status read as
 * the verdict). Run directly (outside executions) each is the C
 * library's: its arguments, and execle's environment, reach the program.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static int shared;

static void *writer(void *arg)
{
	(void)arg;
	shared = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *call = argc > 1 ? argv[1] : "execl";
	pthread_t t;

	pthread_create(&t, NULL, writer, NULL);
	if (strcmp(call, "execlp") == 0) {
		execlp("echo", "echo", "execlp", "reached", "echo", (char *)NULL);
	} else if (strcmp(call, "execle") == 0) {
		char *const envp[] = {"WEFT_EXECLE_ENV=passed", NULL};
		execle("/usr/bin/env", "env", (char *)NULL, envp);
	} else {
		execl("/bin/echo", "echo", "execl", "reached", "echo", (char *)NULL);
	}
	pthread_join(t, NULL);
	return shared == 1 ? 2 : 3;   /* the exec failed */
}
