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
 * The variadic execl, execlp and execle are left to the C library (they
 * cannot forward their arguments); they call execve's system call without
 * going through the symbol, as glibc builds them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
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

static void not_modelled(void *pc, const char *what)
{
	rt_flush();
	weft_report(WEFT_KIND_LIMIT, NULL, RT_CALL_SITE(pc, WEFT_EV_NOTE, what),
		    "limit reached: %s is not modelled under Weft (a program's executions "
		    "run in one process): the execution stops here, no verdict", what);
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
