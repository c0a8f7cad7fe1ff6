/*
 * rt_process.c - the C library's process calls, which Weft does not model
 * (docs/testing-c-programs.md, "Not modelled"): during an execution each
 * ends it with a limit-reached report naming the call (no verdict), and
 * returns its failure. Outside executions each is the C library's.
 *
 *   fork, vfork                 a child process would be a copy of the whole
 *                               search: it went on running executions, and
 *                               forked again, while its parent waited for it
 *                               (a growing chain of processes)
 *   execve, execv, execvp,      the search would be replaced by the other
 *   execvpe, fexecve            program
 *   system, popen,              a child process (their own fork)
 *   posix_spawn, posix_spawnp
 *
 *   execl, execlp, execle       as their vector forms (outside executions
 *                               their arguments are gathered into the
 *                               vector that execv, execvp, execve take)
 *
 * pthread_cancel, pthread_kill and pthread_sigqueue (rt_pthread_np.c) end
 * an execution the same way, through rt_not_modelled().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt_internal.h"

#define PC() rt_caller_pc(__builtin_return_address(0))

REAL(pid_t, fork, void)
REAL(int, execve, const char *, char *const[], char *const[])
REAL(int, execv, const char *, char *const[])
REAL(int, execvp, const char *, char *const[])
REAL(int, execvpe, const char *, char *const[], char *const[])
REAL(int, fexecve, int, char *const[], char *const[])
REAL(int, system, const char *)
REAL(FILE *, popen, const char *, const char *)
REAL(int, posix_spawn, pid_t *, const char *, const posix_spawn_file_actions_t *,
     const posix_spawnattr_t *, char *const[], char *const[])
REAL(int, posix_spawnp, pid_t *, const char *, const posix_spawn_file_actions_t *,
     const posix_spawnattr_t *, char *const[], char *const[])

void rt_not_modelled(void *pc, const char *what, const char *why)
{
	rt_flush();   /* the store the thread announced before the call is in the trace */
	weft_report(WEFT_KIND_LIMIT, NULL, RT_CALL_SITE(pc, WEFT_EV_NOTE, what),
		    "limit reached: %s is not modelled under Weft (%s): the execution stops "
		    "here, no verdict", what, why);
}

static void not_modelled(void *pc, const char *what)
{
	rt_not_modelled(pc, what, "a program's executions run in one process");
}

/* name(params) as the C library's outside executions; during one, the
 * report, errno err and the failure value fail. */
#define NOT_MODELLED(ret, name, params, args, fail, err)                        \
	ret name params                                                         \
	{                                                                       \
		if (!rt_active())                                               \
			return get_##name() args;                               \
		not_modelled(PC(), #name "()");                                 \
		errno = (err);                                                  \
		return (fail);                                                  \
	}

NOT_MODELLED(pid_t, fork, (void), (), -1, ENOSYS)
NOT_MODELLED(int, execve, (const char *path, char *const argv[], char *const envp[]),
	     (path, argv, envp), -1, ENOSYS)
NOT_MODELLED(int, execv, (const char *path, char *const argv[]), (path, argv), -1, ENOSYS)
NOT_MODELLED(int, execvp, (const char *file, char *const argv[]), (file, argv), -1, ENOSYS)
NOT_MODELLED(int, execvpe, (const char *file, char *const argv[], char *const envp[]),
	     (file, argv, envp), -1, ENOSYS)
NOT_MODELLED(int, fexecve, (int fd, char *const argv[], char *const envp[]), (fd, argv, envp),
	     -1, ENOSYS)
NOT_MODELLED(int, system, (const char *cmd), (cmd), -1, ENOSYS)
NOT_MODELLED(FILE *, popen, (const char *cmd, const char *mode), (cmd, mode), NULL, ENOSYS)
/* posix_spawn returns its error number */
NOT_MODELLED(int, posix_spawn,
	     (pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
	      const posix_spawnattr_t *attr, char *const argv[], char *const envp[]),
	     (pid, path, fa, attr, argv, envp), ENOSYS, ENOSYS)
NOT_MODELLED(int, posix_spawnp,
	     (pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
	      const posix_spawnattr_t *attr, char *const argv[], char *const envp[]),
	     (pid, file, fa, attr, argv, envp), ENOSYS, ENOSYS)

/* Outside executions a fork: vfork's child may not return from the
 * function that called vfork(), and this wrapper is one. */
pid_t vfork(void)
{
	if (!rt_active())
		return get_fork()();
	not_modelled(PC(), "vfork()");
	errno = ENOSYS;
	return -1;
}

/* The arguments after `first` up to the NULL that ends them, as a vector
 * (malloc'd; NULL with errno ENOMEM); *after_null is the pointer that
 * follows the NULL when want_envp (execle's environment). */
static char **gather_args(const char *first, va_list ap, int want_envp, char *const **after_null)
{
	va_list count;
	size_t n = 0;

	va_copy(count, ap);
	if (first)
		while (va_arg(count, const char *))
			n++;
	va_end(count);
	char **argv = malloc((n + 2) * sizeof *argv);
	if (!argv) {
		errno = ENOMEM;
		return NULL;
	}
	size_t i = 0;
	argv[i++] = (char *)first;
	if (first) {
		for (; i <= n; i++)
			argv[i] = va_arg(ap, char *);
		argv[i] = va_arg(ap, char *);   /* the NULL */
	}
	if (want_envp)
		*after_null = va_arg(ap, char *const *);
	return argv;
}

/* execl-style name(path_or_file, arg, ..., NULL[, envp]): during an
 * execution the report; outside, the vector form with the arguments
 * gathered. */
#define NOT_MODELLED_LIST(name, vector_call, want_envp)                        \
	int name(const char *path, const char *arg, ...)                      \
	{                                                                       \
		if (rt_active()) {                                              \
			not_modelled(PC(), #name "()");                         \
			errno = ENOSYS;                                         \
			return -1;                                              \
		}                                                               \
		char *const *envp = NULL;                                       \
		va_list ap;                                                     \
		va_start(ap, arg);                                              \
		char **argv = gather_args(arg, ap, (want_envp), &envp);         \
		va_end(ap);                                                     \
		if (!argv)                                                      \
			return -1;                                              \
		int rc = vector_call;                                           \
		int saved = errno;                                              \
		free(argv);                                                     \
		errno = saved;                                                  \
		return rc;                                                      \
	}

NOT_MODELLED_LIST(execl, get_execv()(path, argv), 0)
NOT_MODELLED_LIST(execlp, get_execvp()(path, argv), 0)
NOT_MODELLED_LIST(execle, get_execve()(path, argv, envp), 1)
