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

pid_t fork(void)
{
	if (!rt_active())
		return get_fork()();
	not_modelled(PC(), "fork()");
	errno = ENOSYS;
	return -1;
}

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

int execve(const char *path, char *const argv[], char *const envp[])
{
	if (!rt_active())
		return get_execve()(path, argv, envp);
	not_modelled(PC(), "execve()");
	errno = ENOSYS;
	return -1;
}

int execv(const char *path, char *const argv[])
{
	if (!rt_active())
		return get_execv()(path, argv);
	not_modelled(PC(), "execv()");
	errno = ENOSYS;
	return -1;
}

int execvp(const char *file, char *const argv[])
{
	if (!rt_active())
		return get_execvp()(file, argv);
	not_modelled(PC(), "execvp()");
	errno = ENOSYS;
	return -1;
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!rt_active())
		return get_execvpe()(file, argv, envp);
	not_modelled(PC(), "execvpe()");
	errno = ENOSYS;
	return -1;
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (!rt_active())
		return get_fexecve()(fd, argv, envp);
	not_modelled(PC(), "fexecve()");
	errno = ENOSYS;
	return -1;
}

int system(const char *cmd)
{
	if (!rt_active())
		return get_system()(cmd);
	not_modelled(PC(), "system()");
	errno = ENOSYS;
	return -1;
}

FILE *popen(const char *cmd, const char *mode)
{
	if (!rt_active())
		return get_popen()(cmd, mode);
	not_modelled(PC(), "popen()");
	errno = ENOSYS;
	return NULL;
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (!rt_active())
		return get_posix_spawn()(pid, path, fa, attr, argv, envp);
	not_modelled(PC(), "posix_spawn()");
	return ENOSYS;
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (!rt_active())
		return get_posix_spawnp()(pid, file, fa, attr, argv, envp);
	not_modelled(PC(), "posix_spawnp()");
	return ENOSYS;
}
