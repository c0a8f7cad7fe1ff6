/*
 * fuzz_build.c - `weft fuzz`: the fuzz target of a scenario variant, found
 * in this build or configured and built on demand for the engine asked for
 * (see cmd_fuzz.c for where things are), and the process and file helpers
 * the command's files share.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <weft/replay.h>
#include <weft/strategy.h>

#include "cli.h"
#include "fuzz_cmd.h"

double fuzz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool fuzz_is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool fuzz_is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int fuzz_mkdirs(const char *path)
{
	return weft_replay_mkdirs(path);
}

const char *fuzz_env_or(const char *name, const char *dflt)
{
	const char *e = getenv(name);

	return e && *e ? e : dflt;
}

/* Spawn argv in its own process group with stdout/stderr to fd_out (or
 * inherited if < 0) and extra environment entries. Returns the pid. */
pid_t fuzz_spawn(char *const argv[], int fd_out, char *const envs[])
{
	fflush(NULL);
	pid_t pid = fork();

	if (pid != 0) {
		/* both sides, so a signal to the group cannot race the child */
		if (pid > 0)
			setpgid(pid, pid);
		return pid;
	}
	setpgid(0, 0);
	/* the parent waits with SIGCHLD, SIGINT and SIGTERM blocked */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (fd_out >= 0) {
		dup2(fd_out, 1);
		dup2(fd_out, 2);
		close(fd_out);
	}
	for (size_t i = 0; envs && envs[i]; i++)
		putenv(envs[i]);
	execvp(argv[0], argv);
	fprintf(stderr, "weft: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int fuzz_wait_exit(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void fuzz_print_log_tail(const char *path, unsigned lines)
{
	FILE *f = fopen(path, "r");
	static char ring[64][512];
	unsigned n = 0;

	if (!f)
		return;
	if (lines > 64)
		lines = 64;
	while (fgets(ring[n % lines], sizeof(ring[0]), f))
		n++;
	fclose(f);
	for (unsigned i = n > lines ? n - lines : 0; i < n; i++)
		fputs(ring[i % lines], stderr);
}


/* ------------------------------------------------------- the target */

static int run_logged(char *const argv[], const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0666);

	if (fd < 0)
		return -1;
	pid_t pid = fuzz_spawn(argv, fd, NULL);
	close(fd);
	return pid < 0 ? -1 : fuzz_wait_exit(pid);
}

/* A weft_add_model() build writes a target's spec, fuzz-spec/TARGET.c, for
 * each variant its VARIANTS lists (cmake/WeftModel.cmake): a variant not
 * listed has no target to build, and the user is told which ones have one
 * rather than shown ninja's "unknown target". True where there is no such
 * folder (this tree's own build). */
static bool have_spec(const char *build, const struct fuzz_opts *o)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], list[1024] = "";
	DIR *d;
	struct dirent *e;
	size_t used = 0;

	snprintf(dir, sizeof(dir), "%s/fuzz-spec", build);
	snprintf(path, sizeof(path), "%s/%s.c", dir, o->target);
	if (!(d = opendir(dir)) || fuzz_is_file(path)) {
		if (d)
			closedir(d);
		return true;
	}
	while ((e = readdir(d)) && used + 2 < sizeof(list)) {
		size_t n = strlen(e->d_name);
		if (n < 3 || strcmp(e->d_name + n - 2, ".c"))
			continue;
		int w = snprintf(list + used, sizeof(list) - used, "%s%.*s", used ? ", " : "",
				 (int)(n - 2), e->d_name);
		if (w < 0 || (size_t)w >= sizeof(list) - used)
			break;
		used += (size_t)w;
	}
	closedir(d);
	cli_usage_error("fuzz: %s:%s has no fuzz target in this build (%s): weft_add_model()'s "
			"VARIANTS lists the variants that get one (targets here: %s)", o->sc->name,
			o->sc->variants[o->vi].name, o->target, used ? list : "none");
	return false;
}

/* Finds the engine build, configures it if needed, and builds the target
 * (an up-to-date build is a no-op). */
int fuzz_ensure_target(struct fuzz_opts *o)
{
	const char *build = fuzz_env_or("WEFT_BUILD_DIR", prog_str(weft_program_build_dir));
	const char *srcdir = fuzz_env_or("WEFT_SOURCE_DIR", prog_str(weft_program_source_dir));
	const char *sub = prog_str(weft_program_target_subdir);
	char dir[PATH_MAX], cache[PATH_MAX + 20], log[PATH_MAX + 40];
	bool same = !strcmp(o->engine, prog_str(weft_program_engine));

	o->mutator[0] = 0;
	if (weft_program_self() && !o->target_bin) {
		/* an instrumented program is its own target (rt/rt_main.c) */
		if (strcmp(o->engine, "libfuzzer"))
			return cli_usage_error("fuzz: an instrumented program is fuzzed with "
					       "libFuzzer (its runtime carries it); --engine %s is "
					       "for models", o->engine);
		snprintf(o->bin, sizeof(o->bin), "%s", weft_program_self()->path);
		return 0;
	}
	if (o->target_bin) {
		snprintf(o->bin, sizeof(o->bin), "%s", o->target_bin);
		if (access(o->bin, X_OK))
			return cli_io_error("fuzz: --target-bin %s is not an executable", o->bin);
		return 0;
	}
	if (o->build_dir)
		snprintf(dir, sizeof(dir), "%s", o->build_dir);
	else if (!*build)
		return cli_usage_error("fuzz: this program does not know its build tree (build it "
				    "with weft_add_model(), docs/fuzzing.md): use --target-bin with "
				    "a prebuilt target, or --build-dir");
	else if (same)
		snprintf(dir, sizeof(dir), "%s", build);
	else
		snprintf(dir, sizeof(dir), "%s/fuzz-%s", build, o->engine);
	snprintf(o->bin, sizeof(o->bin), "%s%s%s/%s", dir, *sub ? "/" : "", sub, o->target);
	if (*build && !o->build_dir && !have_spec(build, o))
		return WEFT_EXIT_USAGE;
	snprintf(cache, sizeof(cache), "%s/CMakeCache.txt", dir);
	snprintf(log, sizeof(log), "%s/weft-fuzz-build.log", dir);

	if (!fuzz_is_file(cache)) {
		if (!*srcdir)
			return cli_io_error("fuzz: no build in %s and no source tree to configure "
					    "one from (set WEFT_SOURCE_DIR)", dir);
		if (fuzz_mkdirs(dir))
			return cli_io_error("fuzz: cannot create %s: %s", dir, strerror(errno));
		char cc[64], eng[64], gen[256], srcarg[PATH_MAX + 4], binarg[PATH_MAX + 4];
		static char extra[8][PATH_MAX + 64];
		char *argv[24];
		unsigned n = 0;
		snprintf(cc, sizeof(cc), "-DCMAKE_C_COMPILER=%s",
			 !strcmp(o->engine, "afl") ? "afl-clang-fast" : "clang");
		snprintf(eng, sizeof(eng), "-DWEFT_FUZZ_ENGINE=%s", o->engine);
		snprintf(gen, sizeof(gen), "%s", *prog_str(weft_program_generator)
							 ? weft_program_generator : "Unix Makefiles");
		snprintf(srcarg, sizeof(srcarg), "-S%s", srcdir);
		snprintf(binarg, sizeof(binarg), "-B%s", dir);
		argv[n++] = "cmake";
		argv[n++] = srcarg;
		argv[n++] = binarg;
		argv[n++] = "-G";
		argv[n++] = gen;
		argv[n++] = cc;
		argv[n++] = eng;
		argv[n++] = "-DWEFT_BUILD_TESTS=OFF";
		argv[n++] = "-DCMAKE_BUILD_TYPE=Release";
		/* the program's own extra arguments, space-separated */
		char args[PATH_MAX + 64];
		snprintf(args, sizeof(args), "%s", prog_str(weft_program_cmake_args));
		unsigned ne = 0;
		for (char *t = strtok(args, " "); t && ne < 8; t = strtok(NULL, " "))
			argv[n++] = strcpy(extra[ne++], t);
		argv[n] = NULL;
		if (!o->json)
			fprintf(stderr, "weft: configuring the %s build in %s\n", o->engine, dir);
		if (run_logged(argv, log) != 0) {
			fuzz_print_log_tail(log, 20);
			return cli_io_error("fuzz: configuring %s failed (log: %s)", dir, log);
		}
	}
	/* An up-to-date Ninja build is checked by ninja itself (~40 ms; the
	 * cmake --build driver around it costs ~200 ms more per call). */
	char ninja_file[PATH_MAX + 20];
	snprintf(ninja_file, sizeof(ninja_file), "%s/build.ninja", dir);
	char *nargv[] = { "ninja", "-C", dir, o->target, NULL };
	char *argv[] = { "cmake", "--build", dir, "--target", o->target, "-j2", NULL };
	if (run_logged(fuzz_is_file(ninja_file) ? nargv : argv, log) != 0) {
		fuzz_print_log_tail(log, 20);
		return cli_io_error("fuzz: building %s failed (log: %s)", o->target, log);
	}
	if (access(o->bin, X_OK))
		return cli_io_error("fuzz: %s was not built", o->bin);
	/* AFL++ gets the genome mutator from this tree's (regression) build:
	 * it is loaded into afl-fuzz, so it is built uninstrumented */
	if (!strcmp(o->engine, "afl") && *build && !strcmp(sub, "fuzz") &&
	    !strcmp(prog_str(weft_program_engine), "regression")) {
		char mlog[PATH_MAX + 40], mninja[PATH_MAX + 20];
		snprintf(mninja, sizeof(mninja), "%s/build.ninja", build);
		snprintf(mlog, sizeof(mlog), "%s/weft-fuzz-build.log", build);
		char *mn[] = { "ninja", "-C", (char *)build, "weft_afl_mutator", NULL };
		char *mc[] = { "cmake", "--build", (char *)build, "--target", "weft_afl_mutator", NULL };
		snprintf(o->mutator, sizeof(o->mutator), "%s/fuzz/libweft_afl_mutator.so", build);
		if (run_logged(fuzz_is_file(mninja) ? mn : mc, mlog) != 0 || !fuzz_is_file(o->mutator)) {
			if (!o->json)
				fprintf(stderr, "weft: no genome mutator library (%s): AFL++ runs "
						"its own mutators\n", o->mutator);
			o->mutator[0] = 0;
		}
	}
	return 0;
}

