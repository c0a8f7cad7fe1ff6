/*
 * cmd_fuzz.c - `weft fuzz`: build or find the fuzz target of a scenario
 * variant, run libFuzzer or AFL++ on it from its corpus, report progress,
 * and hand the first crash to `weft import` (minimize, write the .weft,
 * print the race).
 *
 * Where things are (docs/fuzzing.md):
 *  - targets: <build>/fuzz/ when this build's WEFT_FUZZ_ENGINE is the one
 *    asked for, else <build>/fuzz-<engine>/fuzz/, configured and built on
 *    demand with cmake from the source tree recorded at configure time
 *    (WEFT_SOURCE_DIR, WEFT_BUILD_DIR; both can be overridden from the
 *    environment, and --build-dir names the engine build directly);
 *  - seeds, dictionary, options: <source>/corpus/<target>{/,.dict,.options};
 *  - work: OUT/work/<target>-<engine>/ (the growing corpus, raw crashes,
 *    the engine's log, the live counters the target adds to).
 * The engine and everything it forks run in their own process group,
 * which is what gets signalled at the end (never anything else).
 *
 * Length: one pipeline - find or build a target for either engine, run it,
 * report progress, hand the first crash to import - with its error paths.
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

#include <weft/strategy.h>

#include "cli.h"

/*
 * Where this program's trees are: defined by the program itself, in a file
 * its build generates (weft_add_model() for an out-of-tree model,
 * fuzz/CMakeLists.txt for this tree's weft). A program without them (built
 * by hand, a Makefile) fuzzes only a prebuilt target (--target-bin): it
 * never guesses a tree, and so never builds in or writes to another one.
 */
extern const char weft_program_source_dir[] __attribute__((weak));
extern const char weft_program_build_dir[] __attribute__((weak));
extern const char weft_program_corpus_dir[] __attribute__((weak));
extern const char weft_program_engine[] __attribute__((weak));
extern const char weft_program_generator[] __attribute__((weak));
extern const char weft_program_cmake_args[] __attribute__((weak));
extern const char weft_program_target_subdir[] __attribute__((weak));

static const char *prog_str(const char *s)
{
	return s ? s : "";
}

const char weft_help_fuzz[] =
	"usage: weft fuzz SCENARIO:VARIANT [options]\n"
	"       weft fuzz ./PROGRAM [options] [-- ARGS]  (built by weft-cc: its own libFuzzer target)\n\n"
	"Fuzzes the variant's target (interleaving and workload) with libFuzzer or AFL++,\n"
	"printing progress every 2 s. On the first crash it stops and runs\n"
	"`weft import CRASH --target SCENARIO:VARIANT --out DIR`, which minimizes the\n"
	"input, writes the .weft replay file and prints the race.\n"
	"  --engine E        libfuzzer (default) or afl\n"
	"  --time S          stop after S seconds without a crash (default 60)\n"
	"  --jobs N          parallel fuzzers: libFuzzer -fork=N, AFL++ -M + N-1 -S (default 1)\n"
	"  --seed N          engine seed (default 1; 0: libFuzzer picks one)\n"
	"  --out DIR         replay files and work files (default ./weft-out)\n"
	"  --lock tas|ticket lock model (default: the scenario's)\n"
	"  --keep-going      do not stop at the first crash: import every crash at the end\n"
	"  --no-feedback     without interleaving feedback (code coverage only; measurements)\n"
	"  --kind K          stop only at a report of kind K; the target goes on past others\n"
	"                    (measurements: weft bench counts the declared kind only)\n"
	"  --build-dir DIR   the engine's build directory (default: beside this build)\n"
	"  --json            one JSON object: scenario, variant, engine, verdict, kind,\n"
	"                    executions, steps, seconds, seconds_to_crash (from the\n"
	"                    start of this command), exec_per_sec, crash (raw input; a\n"
	"                    systematic-stage crash: its one-execution reproducer),\n"
	"                    artifact (.weft), import (its JSON)\n"
	"  --target-bin PATH a prebuilt target of the engine (nothing is configured or built)\n"
	"Environment: WEFT_SOURCE_DIR, WEFT_BUILD_DIR override the trees this program was\n"
	"built with (a program made by weft_add_model() or this tree knows them).\n"
	"exit: 0 clean, 1 bug, 2 usage, 3 I/O or engine failure, 4 the crash did not reproduce\n";

/* Subcommands compiled into this binary (is `import` there yet?). */
static const char *const known_cmds[] = {
#define X(name, fn, summary) #name,
#include "commands.def"
#undef X
};

struct fuzz_opts {
	const struct weft_scenario *sc;
	unsigned vi;
	const char *engine;
	uint64_t time, jobs, seed;
	const char *out;
	const char *build_dir;
	const char *target_bin;
	enum weft_lock_model lock;
	bool keep_going, no_feedback, json;
	enum weft_kind only_kind;   /* --kind: other reports do not stop it */
	char target[256];
	char src[PATH_MAX];       /* the corpus folder: <src>/<target>, .dict, .options */
	char seeds[PATH_MAX + 400];   /* seed corpus folder ("" none) */
	char dict[PATH_MAX + 400];    /* dictionary ("" none) */
	char bin[PATH_MAX + 300];
	char mutator[PATH_MAX + 300];   /* AFL++: the genome mutator library, or "" */
	char work[PATH_MAX + 300];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool have_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(known_cmds) / sizeof(known_cmds[0]); i++)
		if (!strcmp(known_cmds[i], name))
			return true;
	return false;
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -1;
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(tmp, 0777) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(tmp, 0777) && errno != EEXIST ? -1 : 0;
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *e = getenv(name);

	return e && *e ? e : dflt;
}

/* Spawn argv in its own process group with stdout/stderr to fd_out (or
 * inherited if < 0) and extra environment entries. Returns the pid. */
static pid_t spawn(char *const argv[], int fd_out, char *const envs[])
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

static int wait_exit(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void print_log_tail(const char *path, unsigned lines)
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
	pid_t pid = spawn(argv, fd, NULL);
	close(fd);
	return pid < 0 ? -1 : wait_exit(pid);
}

/* Finds the engine build, configures it if needed, and builds the target
 * (an up-to-date build is a no-op). */
static int ensure_target(struct fuzz_opts *o)
{
	const char *build = env_or("WEFT_BUILD_DIR", prog_str(weft_program_build_dir));
	const char *srcdir = env_or("WEFT_SOURCE_DIR", prog_str(weft_program_source_dir));
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
	snprintf(cache, sizeof(cache), "%s/CMakeCache.txt", dir);
	snprintf(log, sizeof(log), "%s/weft-fuzz-build.log", dir);

	if (!is_file(cache)) {
		if (!*srcdir)
			return cli_io_error("fuzz: no build in %s and no source tree to configure "
					    "one from (set WEFT_SOURCE_DIR)", dir);
		if (mkdirs(dir))
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
			print_log_tail(log, 20);
			return cli_io_error("fuzz: configuring %s failed (log: %s)", dir, log);
		}
	}
	/* An up-to-date Ninja build is checked by ninja itself (~40 ms; the
	 * cmake --build driver around it costs ~200 ms more per call). */
	char ninja_file[PATH_MAX + 20];
	snprintf(ninja_file, sizeof(ninja_file), "%s/build.ninja", dir);
	char *nargv[] = { "ninja", "-C", dir, o->target, NULL };
	char *argv[] = { "cmake", "--build", dir, "--target", o->target, "-j2", NULL };
	if (run_logged(is_file(ninja_file) ? nargv : argv, log) != 0) {
		print_log_tail(log, 20);
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
		if (run_logged(is_file(mninja) ? mn : mc, mlog) != 0 || !is_file(o->mutator)) {
			if (!o->json)
				fprintf(stderr, "weft: no genome mutator library (%s): AFL++ runs "
						"its own mutators\n", o->mutator);
			o->mutator[0] = 0;
		}
	}
	return 0;
}

/* ---------------------------------------------------------- crashes */

#define MAX_CRASHES 64

struct name_set {
	char *names[1024];
	unsigned n;
};

static void set_free(struct name_set *s)
{
	for (unsigned i = 0; i < s->n; i++)
		free(s->names[i]);
	s->n = 0;
}

static bool set_has(const struct name_set *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return true;
	return false;
}

/* Regular files of dir whose names start with prefix (all if ""). */
static void list_files(const char *dir, const char *prefix, const char *suffix,
		       struct name_set *s)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) && s->n < 1024) {
		size_t l = strlen(de->d_name), sl = strlen(suffix);
		char p[PATH_MAX + 300];
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (sl && (l < sl || strcmp(de->d_name + l - sl, suffix)))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (is_file(p) && !set_has(s, p))
			s->names[s->n++] = strdup(p);
	}
	closedir(d);
}

static void crash_files(const struct fuzz_opts *o, struct name_set *s)
{
	char d[PATH_MAX + 400];

	if (!strcmp(o->engine, "libfuzzer")) {
		snprintf(d, sizeof(d), "%s/crashes", o->work);
		list_files(d, "crash-", "", s);
		return;
	}
	for (uint64_t j = 0; j < o->jobs; j++) {
		if (j)
			snprintf(d, sizeof(d), "%s/afl/s%" PRIu64 "/crashes", o->work, j);
		else
			snprintf(d, sizeof(d), "%s/afl/main/crashes", o->work);
		list_files(d, "id:", "", s);
	}
}

/* ---------------------------------------------------------- progress */

struct progress {
	unsigned long cov, ft, corp;
	double stability;
	bool have_cov, have_stab;
};

/* libFuzzer: the last "cov: N ft: N corp: N/..." of the log. */
static void libfuzzer_progress(const char *log, struct progress *p)
{
	FILE *f = fopen(log, "r");
	char line[1024];
	long sz;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, sz > 65536 ? sz - 65536 : 0, SEEK_SET);
	while (fgets(line, sizeof(line), f)) {
		const char *c = strstr(line, " cov: "), *t = strstr(line, " ft: "),
			   *k = strstr(line, " corp: ");
		if (c && t) {
			p->cov = strtoul(c + 6, NULL, 10);
			p->ft = strtoul(t + 5, NULL, 10);
			p->corp = k ? strtoul(k + 7, NULL, 10) : p->corp;
			p->have_cov = true;
		}
	}
	fclose(f);
}

/* AFL++: fuzzer_stats of the main instance. */
static void afl_progress(const struct fuzz_opts *o, struct progress *p)
{
	char path[PATH_MAX + 400], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/afl/main/fuzzer_stats", o->work);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!strncmp(line, "edges_found", 11)) {
			p->cov = strtoul(colon + 1, NULL, 10);
			p->have_cov = true;
		} else if (!strncmp(line, "corpus_count", 12)) {
			p->corp = strtoul(colon + 1, NULL, 10);
		} else if (!strncmp(line, "stability", 9)) {
			p->stability = strtod(colon + 1, NULL);
			p->have_stab = true;
		}
	}
	fclose(f);
}

/* ------------------------------------------------------------ engines */

/* libFuzzer flags from corpus/<target>.options ([libfuzzer] key = value). */
static unsigned read_options(const struct fuzz_opts *o, char flags[][128], unsigned max)
{
	char path[PATH_MAX + 300], line[256];
	bool in_lf = false;
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.options", o->src, o->target);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		char key[64], val[64];
		if (line[0] == '[') {
			in_lf = !strncmp(line, "[libfuzzer]", 11);
			continue;
		}
		if (in_lf && sscanf(line, " %63[A-Za-z_] = %60s", key, val) == 2 &&
		    snprintf(flags[n], sizeof(flags[0]), "-%s=%s", key, val) < (int)sizeof(flags[0]))
			n++;
	}
	fclose(f);
	return n;
}

static pid_t start_libfuzzer(const struct fuzz_opts *o, int logfd, char *const envs[])
{
	static char a_seed[64], a_time[64], a_art[PATH_MAX + 400], a_dict[PATH_MAX + 400],
		a_fork[64], a_corpus[PATH_MAX + 400], a_seeds[PATH_MAX + 400], opt[16][128];
	char *argv[48];
	unsigned n = 0;

	argv[n++] = (char *)o->bin;
	snprintf(a_seed, sizeof(a_seed), "-seed=%" PRIu64, o->seed);
	argv[n++] = a_seed;
	snprintf(a_time, sizeof(a_time), "-max_total_time=%" PRIu64, o->time);
	argv[n++] = a_time;
	snprintf(a_art, sizeof(a_art), "-artifact_prefix=%s/crashes/", o->work);
	argv[n++] = a_art;
	argv[n++] = "-print_final_stats=1";
	if (o->dict[0]) {
		snprintf(a_dict, sizeof(a_dict), "-dict=%s", o->dict);
		argv[n++] = a_dict;
	}
	unsigned no = read_options(o, opt, 16);
	for (unsigned i = 0; i < no; i++)
		argv[n++] = opt[i];
	if (o->jobs > 1 || o->keep_going) {
		snprintf(a_fork, sizeof(a_fork), "-fork=%" PRIu64, o->jobs);
		argv[n++] = a_fork;
		if (o->keep_going)
			argv[n++] = "-ignore_crashes=1";
	}
	snprintf(a_corpus, sizeof(a_corpus), "%s/corpus", o->work);
	argv[n++] = a_corpus;
	if (o->seeds[0]) {
		snprintf(a_seeds, sizeof(a_seeds), "%s", o->seeds);
		argv[n++] = a_seeds;
	}
	argv[n] = NULL;
	return spawn(argv, logfd, envs);
}

/* AFL++ wants non-empty seeds: copy them, the empty one as a single 0
 * byte (an empty workload: the same serial run). */
static int afl_inputs(const struct fuzz_opts *o, char *dir, size_t cap)
{

	struct name_set s = { .n = 0 };
	unsigned written = 0;

	snprintf(dir, cap, "%s/afl-in", o->work);
	if (mkdirs(dir))
		return -1;
	if (o->seeds[0])
		list_files(o->seeds, "", "", &s);
	for (unsigned i = 0; i <= s.n; i++) {
		static uint8_t buf[65536];
		long len = 0;
		if (i < s.n) {
			len = cli_read_file(s.names[i], buf, sizeof(buf));
			if (len < 0)
				continue;
		}
		if (len == 0) {
			buf[0] = 0;
			len = 1;
		}
		char p[PATH_MAX + 400];
		FILE *f = NULL;
		if (snprintf(p, sizeof(p), "%s/seed-%u", dir, i) < (int)sizeof(p))
			f = fopen(p, "wb");
		if (!f || fwrite(buf, 1, (size_t)len, f) != (size_t)len || fclose(f)) {
			set_free(&s);
			return -1;
		}
		written++;
	}
	set_free(&s);
	return written ? 0 : -1;
}

static int start_afl(const struct fuzz_opts *o, int logfd, char *const envs[], pid_t *pids)
{
	char in[PATH_MAX + 400], outd[PATH_MAX + 400], dict[PATH_MAX + 400];
	char seed[32], tm[32], name[32];

	if (afl_inputs(o, in, sizeof(in)))
		return cli_io_error("fuzz: cannot prepare AFL++ inputs in %s/afl-in", o->work);
	snprintf(outd, sizeof(outd), "%s/afl", o->work);
	snprintf(dict, sizeof(dict), "%s", o->dict);
	snprintf(tm, sizeof(tm), "%" PRIu64, o->time);
	for (uint64_t j = 0; j < o->jobs; j++) {
		char *argv[24];
		unsigned n = 0;
		snprintf(seed, sizeof(seed), "%" PRIu64, o->seed + j);
		if (j)
			snprintf(name, sizeof(name), "s%" PRIu64, j);
		else
			snprintf(name, sizeof(name), "main");
		argv[n++] = "afl-fuzz";
		argv[n++] = "-i";
		argv[n++] = in;
		argv[n++] = "-o";
		argv[n++] = outd;
		argv[n++] = j ? "-S" : "-M";
		argv[n++] = name;
		argv[n++] = "-s";
		argv[n++] = seed;
		argv[n++] = "-V";
		argv[n++] = tm;
		if (is_file(dict)) {
			argv[n++] = "-x";
			argv[n++] = dict;
		}
		argv[n++] = "--";
		argv[n++] = (char *)o->bin;
		argv[n] = NULL;
		pids[j] = spawn(argv, logfd, envs);
		if (pids[j] < 0)
			return cli_io_error("fuzz: cannot start afl-fuzz");
	}
	return 0;
}

/* ------------------------------------------------------------ import */

struct import_result {
	int rc;
	char artifact[PATH_MAX];
	char *json;          /* import --json output (malloc), or NULL */
};

/* Newest .weft under out that was not there before. */
static void new_artifact(const char *out, const struct name_set *before, char *buf, size_t n)
{
	struct name_set after = { .n = 0 };
	time_t best = 0;

	buf[0] = 0;
	list_files(out, "", ".weft", &after);
	for (unsigned i = 0; i < after.n; i++) {
		struct stat st;
		if (set_has(before, after.names[i]) || stat(after.names[i], &st))
			continue;
		if (!buf[0] || st.st_mtime >= best) {
			best = st.st_mtime;
			snprintf(buf, n, "%s", after.names[i]);
		}
	}
	set_free(&after);
}

static void import_crash(const struct fuzz_opts *o, const char *crash, struct import_result *ir)
{
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct name_set before = { .n = 0 };
	char *argv[16 + WEFT_PROGRAM_MAX_ARGS];
	unsigned n = 0;
	int pipefd[2] = { -1, -1 };

	memset(ir, 0, sizeof(*ir));
	ir->rc = -1;
	if (l <= 0)
		return;
	self[l] = 0;
	list_files(o->out, "", ".weft", &before);
	argv[n++] = self;
	argv[n++] = "import";
	argv[n++] = (char *)crash;
	argv[n++] = "--target";
	char spec[256];
	if (weft_program_self())
		snprintf(spec, sizeof(spec), "@weft-program");
	else
		snprintf(spec, sizeof(spec), "%s:%s", o->sc->name, o->sc->variants[o->vi].name);
	argv[n++] = spec;
	argv[n++] = "--lock";
	argv[n++] = o->lock == WEFT_LOCK_TICKET ? "ticket" : "tas";
	argv[n++] = "--out";
	argv[n++] = (char *)o->out;
	if (o->only_kind) {   /* re-run past the warnings the target went past */
		argv[n++] = "--kind";
		argv[n++] = (char *)weft_kind_name(o->only_kind);
	}
	if (o->json) {
		argv[n++] = "--json";
		if (pipe(pipefd))
			return;
	}
	argv[n] = NULL;
	n = cli_program_self_argv(argv, n, sizeof(argv) / sizeof(argv[0]) - 1);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		if (o->json) {
			dup2(pipefd[1], 1);
			close(pipefd[0]);
			close(pipefd[1]);
		}
		execv(self, argv);
		_exit(127);
	}
	if (o->json) {
		size_t cap = 1 << 16, len = 0;
		char *buf = malloc(cap + 1);
		char sink[4096];
		close(pipefd[1]);
		for (;;) {
			char *dst = buf && len < cap ? buf + len : sink;
			size_t room = buf && len < cap ? cap - len : sizeof(sink);
			ssize_t r = read(pipefd[0], dst, room);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			if (dst != sink)
				len += (size_t)r;
		}
		close(pipefd[0]);
		if (buf) {
			buf[len] = 0;
			ir->json = buf;
		}
	}
	ir->rc = wait_exit(pid);
	new_artifact(o->out, &before, ir->artifact, sizeof(ir->artifact));
	set_free(&before);
}

/* The raw crash, re-run here (kind for the summary; the fallback report
 * while `weft import` is not in this build). */
static enum weft_kind rerun(const struct fuzz_opts *o, const char *crash, bool print)
{
	static uint8_t buf[65536];
	static struct weft_bytes b;
	struct weft_exec_result r;
	struct weft_run_opts ro = { .sc = o->sc, .variant = o->vi, .lock = o->lock,
				    .checks = WEFT_CHECKS_DEFAULT };
	long len = cli_read_file(crash, buf, sizeof(buf));

	if (o->only_kind)
		cli_continue_past_warnings(&ro, 1ull << o->only_kind);

	if (len < 0)
		return WEFT_KIND_NONE;
	weft_bytes_init(&b, o->sc, buf, (size_t)len);
	if (weft_execute(&ro, &weft_strategy_bytes, &b, &r) < 0)
		return WEFT_KIND_NONE;
	if (print && r.kind != WEFT_KIND_NONE)
		weft_report_print(stdout, &ro, &r);
	return r.kind;
}

/* ------------------------------------------------------------ command */

static int parse(int argc, char **argv, struct fuzz_opts *o)
{
	const char *spec = NULL;
	bool lock_set = false;

	o->engine = "libfuzzer";
	o->time = 60;
	o->jobs = 1;
	o->seed = 1;
	o->out = "weft-out";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV()                                                                    \
	do {                                                                       \
		if (!v)                                                            \
			return cli_usage_error("fuzz: %s needs a value", a);       \
		i++;                                                               \
	} while (0)
		if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--keep-going")) {
			o->keep_going = true;
		} else if (!strcmp(a, "--no-feedback")) {
			o->no_feedback = true;
		} else if (!strcmp(a, "--engine")) {
			NEEDV();
			if (strcmp(v, "libfuzzer") && strcmp(v, "afl"))
				return cli_usage_error("fuzz: --engine takes libfuzzer or afl, not '%s'",
						       v);
			o->engine = v;
		} else if (!strcmp(a, "--time")) {
			NEEDV();
			if (!cli_parse_u64(v, &o->time) || !o->time || o->time > 1000000)
				return cli_usage_error("fuzz: --time takes 1..1000000 seconds");
		} else if (!strcmp(a, "--jobs")) {
			NEEDV();
			if (!cli_parse_u64(v, &o->jobs) || !o->jobs || o->jobs > 64)
				return cli_usage_error("fuzz: --jobs takes 1..64");
		} else if (!strcmp(a, "--seed")) {
			NEEDV();
			if (!cli_parse_u64(v, &o->seed) || o->seed > UINT32_MAX)
				return cli_usage_error("fuzz: --seed takes 0..4294967295");
		} else if (!strcmp(a, "--kind")) {
			NEEDV();
			o->only_kind = weft_kind_from_name(v);
			if (o->only_kind == WEFT_KIND_NONE)
				return cli_usage_error("fuzz: --kind takes a report kind "
						       "(docs/detectors.md), not '%s'", v);
		} else if (!strcmp(a, "--out")) {
			NEEDV();
			o->out = v;
		} else if (!strcmp(a, "--build-dir")) {
			NEEDV();
			o->build_dir = v;
		} else if (!strcmp(a, "--target-bin")) {
			NEEDV();
			o->target_bin = v;
		} else if (!strcmp(a, "--lock")) {
			NEEDV();
			if (!cli_parse_lock(v, &o->lock))
				return cli_usage_error("fuzz: --lock takes tas or ticket, not '%s'", v);
			lock_set = true;
		} else if (a[0] == '-') {
			return cli_usage_error("fuzz: unknown flag '%s' (%s help fuzz)", a, cli_prog);
		} else if (!spec) {
			spec = a;
		} else {
			return cli_usage_error("fuzz: unexpected argument '%s'", a);
		}
#undef NEEDV
	}
	if (!spec)
		return cli_usage_error("fuzz: which SCENARIO:VARIANT? (%s list)", cli_prog);
	o->sc = cli_scenario(spec, &o->vi);
	if (!o->sc)
		return WEFT_EXIT_USAGE;
	if (!lock_set)
		o->lock = o->sc->default_lock;
	if (!strcmp(o->engine, "afl") && o->seed == 0)
		o->seed = 1;
	snprintf(o->target, sizeof(o->target), "fuzz_%s_%s", o->sc->name,
		 o->sc->variants[o->vi].name);
	for (char *p = o->target; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			*p = '_';
	if (*prog_str(weft_program_corpus_dir) && !getenv("WEFT_SOURCE_DIR"))
		snprintf(o->src, sizeof(o->src), "%s", weft_program_corpus_dir);
	else if (getenv("WEFT_SOURCE_DIR"))
		snprintf(o->src, sizeof(o->src), "%s/corpus", getenv("WEFT_SOURCE_DIR"));
	return 0;
}

static volatile sig_atomic_t interrupted;

int cmd_fuzz(int argc, char **argv)
{
	static struct fuzz_opts o;
	int rc;

	double t_start = now();

	memset(&o, 0, sizeof(o));
	if ((rc = parse(argc, argv, &o)))
		return rc;
	if ((rc = ensure_target(&o)))
		return rc;

	/* work files */
	char path[PATH_MAX + 500], log[PATH_MAX + 400], statp[PATH_MAX + 400];
	snprintf(o.work, sizeof(o.work), "%s/work/%s-%s", o.out, o.target, o.engine);
	snprintf(path, sizeof(path), "%s/corpus", o.work);
	if (mkdirs(path))
		return cli_io_error("fuzz: cannot create %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/crashes", o.work);
	if (mkdirs(path))
		return cli_io_error("fuzz: cannot create %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/repro", o.work);
	if (mkdirs(path))
		return cli_io_error("fuzz: cannot create %s: %s", path, strerror(errno));
	/* seeds and dictionary: the program's corpus folder, else generated
	 * by the target itself (WEFT_FUZZ_WRITE_SEEDS, <weft/fuzz.h>) */
	snprintf(o.seeds, sizeof(o.seeds), "%s/%s", o.src, o.target);
	snprintf(o.dict, sizeof(o.dict), "%s/%s.dict", o.src, o.target);
	if (!o.src[0] || !is_dir(o.seeds)) {
		static char e_ws[PATH_MAX + 500], e_wd[PATH_MAX + 500];
		snprintf(o.seeds, sizeof(o.seeds), "%s/seeds", o.work);
		snprintf(o.dict, sizeof(o.dict), "%s/generated.dict", o.work);
		snprintf(e_ws, sizeof(e_ws), "WEFT_FUZZ_WRITE_SEEDS=%s", o.seeds);
		snprintf(e_wd, sizeof(e_wd), "WEFT_FUZZ_WRITE_DICT=%s", o.dict);
		char *genv[8] = { e_ws, e_wd, NULL };
		cli_program_target_env(genv, 2);
		char *gargv[] = { o.bin, NULL };
		pid_t gp = spawn(gargv, -1, genv);
		if (gp < 0 || wait_exit(gp) != 0)
			return cli_io_error("fuzz: %s could not write its seeds to %s", o.bin,
					    o.seeds);
	}
	if (!is_file(o.dict))
		o.dict[0] = 0;
	snprintf(log, sizeof(log), "%s/engine.log", o.work);
	snprintf(statp, sizeof(statp), "%s/stats", o.work);
	int sfd = open(statp, O_RDWR | O_CREAT | O_TRUNC, 0666);
	if (sfd < 0 || ftruncate(sfd, 4096))
		return cli_io_error("fuzz: cannot create %s: %s", statp, strerror(errno));
	/* the layout of struct weft_fuzz_stats (fuzz/weft_fuzz_glue.h) */
	struct weft_fuzz_stats_view {
		uint64_t magic, execs, reports, steps;
	} *stats = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	close(sfd);
	if (stats == MAP_FAILED)
		return cli_io_error("fuzz: cannot map %s", statp);
	int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (logfd < 0)
		return cli_io_error("fuzz: cannot create %s: %s", log, strerror(errno));

	struct name_set old_crashes = { .n = 0 };
	crash_files(&o, &old_crashes);

	static char e_stats[PATH_MAX + 500];
	snprintf(e_stats, sizeof(e_stats), "WEFT_FUZZ_STATS=%s", statp);
	char *envs[32];
	unsigned ne = 0;
	envs[ne++] = e_stats;
	envs[ne++] = o.lock == WEFT_LOCK_TICKET ? "WEFT_FUZZ_LOCK=ticket" : "WEFT_FUZZ_LOCK=tas";
	envs[ne++] = o.no_feedback ? "WEFT_NO_FEEDBACK=1" : "WEFT_NO_FEEDBACK=0";
	static char e_kind[96], e_repro[PATH_MAX + 500];
	if (o.only_kind) {
		snprintf(e_kind, sizeof(e_kind), "WEFT_FUZZ_KIND=%s", weft_kind_name(o.only_kind));
		envs[ne++] = e_kind;
	}
	snprintf(e_repro, sizeof(e_repro), "WEFT_FUZZ_REPRO_DIR=%s/repro", o.work);
	envs[ne++] = e_repro;
	ne = cli_program_target_env(envs, ne);
	/* the target prints the model's report itself; libFuzzer's stack
	 * trace of the abort() costs ~0.5 s of llvm-symbolizer per crash */
	if (!getenv("UBSAN_OPTIONS"))
		envs[ne++] = "UBSAN_OPTIONS=symbolize=0";
	if (!strcmp(o.engine, "afl")) {
		envs[ne++] = "AFL_NO_UI=1";
		envs[ne++] = "AFL_SKIP_CPUFREQ=1";
		envs[ne++] = "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1";
		envs[ne++] = "AFL_NO_AFFINITY=1";
		envs[ne++] = "AFL_AUTORESUME=1";
		if (!o.keep_going)
			envs[ne++] = "AFL_BENCH_UNTIL_CRASH=1";
		static char e_mut[PATH_MAX + 400], e_tgt[300];
		if (o.mutator[0]) {
			snprintf(e_mut, sizeof(e_mut), "AFL_CUSTOM_MUTATOR_LIBRARY=%s", o.mutator);
			envs[ne++] = e_mut;
			envs[ne++] = "AFL_CUSTOM_MUTATOR_ONLY=1";
			snprintf(e_tgt, sizeof(e_tgt), "WEFT_FUZZ_TARGET=%s:%s", o.sc->name,
				 o.sc->variants[o.vi].name);
			envs[ne++] = e_tgt;
		}
	}
	envs[ne] = NULL;

	if (!o.json)
		fprintf(stderr, "weft: fuzzing %s:%s with %s (%s, %" PRIu64 " job%s, seed %" PRIu64
				", %" PRIu64 " s%s)\n",
			o.sc->name, o.sc->variants[o.vi].name, o.engine, o.bin, o.jobs,
			o.jobs > 1 ? "s" : "", o.seed, o.time,
			o.no_feedback ? ", no interleaving feedback" : "");

	/* The engine is waited on, not polled: SIGCHLD (an engine ended: it
	 * stops at its first crash), SIGINT/SIGTERM, or the 2 s progress tick
	 * wake sigtimedwait(). */
	sigset_t wset, old_mask;
	sigemptyset(&wset);
	sigaddset(&wset, SIGCHLD);
	sigaddset(&wset, SIGINT);
	sigaddset(&wset, SIGTERM);
	sigprocmask(SIG_BLOCK, &wset, &old_mask);

	static pid_t pids[64];
	unsigned nr_pids = 0;
	double t0 = now();
	if (!strcmp(o.engine, "libfuzzer")) {
		pids[0] = start_libfuzzer(&o, logfd, envs);
		nr_pids = pids[0] > 0;
	} else {
		if ((rc = start_afl(&o, logfd, envs, pids))) {
			sigprocmask(SIG_SETMASK, &old_mask, NULL);
			return rc;
		}
		nr_pids = (unsigned)o.jobs;
	}
	close(logfd);
	if (!nr_pids) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		return cli_io_error("fuzz: cannot start %s", o.engine);
	}

	struct progress pr = { 0 };
	struct name_set crashes = { .n = 0 };
	double last = t0, deadline = t0 + (double)o.time + 30.0, t_crash = -1;
	unsigned alive = nr_pids;
	int engine_rc = 0;
	bool stopped = false;
	while (alive) {
		double t = now();
		double wake = last + 2.0;
		if (!stopped && deadline < wake)
			wake = deadline;
		if (stopped && deadline + 10.0 < wake)
			wake = deadline + 10.0;
		double dt = wake - t;
		if (dt < 0.001)
			dt = 0.001;
		struct timespec ts = { (time_t)dt, (long)((dt - (double)(time_t)dt) * 1e9) };
		siginfo_t si;
		int sig = sigtimedwait(&wset, &si, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			interrupted = 1;
		bool reaped = false;
		for (unsigned i = 0; i < nr_pids; i++) {
			int st;
			if (pids[i] > 0 && waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				if (!i || code)
					engine_rc = engine_rc ? engine_rc : code;
				pids[i] = 0;
				alive--;
				reaped = true;
			}
		}
		t = now();
		if (reaped || t - last >= 2.0 || interrupted) {
			struct name_set cur = { .n = 0 };
			crash_files(&o, &cur);
			for (unsigned i = 0; i < cur.n && crashes.n < MAX_CRASHES; i++)
				if (!set_has(&old_crashes, cur.names[i]) &&
				    !set_has(&crashes, cur.names[i]))
					crashes.names[crashes.n++] = strdup(cur.names[i]);
			set_free(&cur);
			if (crashes.n && t_crash < 0)
				t_crash = t;
		}
		bool stop = interrupted || t > deadline || (crashes.n && !o.keep_going);
		if (stop && !stopped && alive) {
			/* each engine process leads its own group: stop its workers too */
			for (unsigned i = 0; i < nr_pids; i++)
				if (pids[i] > 0)
					kill(-pids[i], SIGINT);
			stopped = true;
		}
		if (t - last >= 2.0 || !alive) {
			if (!strcmp(o.engine, "libfuzzer"))
				libfuzzer_progress(log, &pr);
			else
				afl_progress(&o, &pr);
			if (t - last >= 2.0) {
				uint64_t ex = __atomic_load_n(&stats->execs, __ATOMIC_RELAXED);
				fprintf(stderr, "weft: %5.0f s  %12" PRIu64 " execs  %9.0f exec/s  ",
					t - t0, ex, (double)ex / (t - t0));
				if (pr.have_cov && !strcmp(o.engine, "libfuzzer"))
					fprintf(stderr, "cov %lu ft %lu corp %lu  ", pr.cov, pr.ft,
						pr.corp);
				else if (pr.have_cov)
					fprintf(stderr, "edges %lu corp %lu  ", pr.cov, pr.corp);
				fprintf(stderr, "crashes %u\n", crashes.n);
				last = t;
			}
		}
		if (stopped && t > deadline + 10.0) {
			for (unsigned i = 0; i < nr_pids; i++)
				if (pids[i] > 0)
					kill(-pids[i], SIGKILL);
		}
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	double secs = now() - t0;
	uint64_t execs = __atomic_load_n(&stats->execs, __ATOMIC_RELAXED);
	uint64_t steps = __atomic_load_n(&stats->steps, __ATOMIC_RELAXED);
	munmap(stats, 4096);
	set_free(&old_crashes);
	/* a crash found by the target's systematic stage: import its
	 * one-execution reproducer, the engine's crash file runs the stage */
	if (crashes.n && !o.keep_going) {
		struct name_set rep = { .n = 0 };
		char rdir[PATH_MAX + 400];
		snprintf(rdir, sizeof(rdir), "%s/repro", o.work);
		list_files(rdir, "repro-", "", &rep);
		if (rep.n) {
			free(crashes.names[0]);
			crashes.names[0] = strdup(rep.names[0]);
		}
		set_free(&rep);
	}

	if (!crashes.n && !interrupted && engine_rc && engine_rc != 128 + SIGINT) {
		print_log_tail(log, 25);
		return cli_io_error("fuzz: %s exited with %d and no crash (log: %s)", o.engine,
				    engine_rc, log);
	}

	/* the crashes: import (minimize, store, print the race) */
	enum weft_kind kind = WEFT_KIND_NONE;
	struct import_result ir = { .rc = -1 };
	const char *first = crashes.n ? crashes.names[0] : NULL;
	bool reproduced = false, can_import = have_cmd("import");
	unsigned nr_imports = o.keep_going ? crashes.n : (crashes.n ? 1 : 0);
	if (!o.json)
		fprintf(stderr, "weft: %s after %" PRIu64 " executions in %.1f s (%.0f exec/s)\n",
			crashes.n ? "crash" : interrupted ? "interrupted" : "no crash", execs, secs,
			secs > 0 ? (double)execs / secs : 0.0);
	for (unsigned i = 0; i < nr_imports; i++) {
		enum weft_kind k = rerun(&o, crashes.names[i], !can_import && !o.json);
		if (k != WEFT_KIND_NONE && kind == WEFT_KIND_NONE) {
			kind = k;
			first = crashes.names[i];
		}
		if (can_import) {
			struct import_result r;
			char tn[256];
			if (!o.json) {
				printf("%s import %s --target %s --lock %s --out %s", cli_prog,
				       crashes.names[i], cli_target_name(o.sc, o.vi, tn, sizeof(tn)),
				       o.lock == WEFT_LOCK_TICKET ? "ticket" : "tas", o.out);
				cli_print_program_args(stdout);
				printf("\n");
			}
			import_crash(&o, crashes.names[i], &r);
			if (r.rc == WEFT_EXIT_BUG)
				reproduced = true;
			if (ir.rc != WEFT_EXIT_BUG) {
				free(ir.json);
				ir = r;
			} else {
				free(r.json);
			}
		} else {
			reproduced |= k != WEFT_KIND_NONE;
			if (!o.json) {
				char tn[256];
				printf("raw crash: %s\nreproduce: %s run %s --lock %s "
				       "--strategy bytes --input %s",
				       crashes.names[i], cli_prog, cli_target_name(o.sc, o.vi, tn, sizeof(tn)),
				       o.lock == WEFT_LOCK_TICKET ? "ticket" : "tas",
				       crashes.names[i]);
				cli_print_program_args(stdout);
				printf("\n");
			}
		}
	}
	if (can_import && nr_imports && !reproduced && !o.json)
		fprintf(stderr, "weft: import did not reproduce the crash (exit %d)\n", ir.rc);

	if (o.json) {
		printf("{\"scenario\": ");
		cli_json_str(stdout, o.sc->name);
		printf(", \"variant\": ");
		cli_json_str(stdout, o.sc->variants[o.vi].name);
		printf(", \"target\": ");
		cli_json_str(stdout, o.target);
		printf(", \"engine\": \"%s\", \"jobs\": %" PRIu64 ", \"seed\": %" PRIu64
		       ", \"feedback\": %s, \"lock\": \"%s\"",
		       o.engine, o.jobs, o.seed, o.no_feedback ? "false" : "true",
		       o.lock == WEFT_LOCK_TICKET ? "ticket" : "tas");
		printf(", \"verdict\": \"%s\", \"kind\": ",
		       crashes.n ? (reproduced ? "bug" : "unreproducible") : "clean");
		if (kind != WEFT_KIND_NONE)
			cli_json_str(stdout, weft_kind_name(kind));
		else
			printf("null");
		printf(", \"executions\": %" PRIu64 ", \"steps\": %" PRIu64
		       ", \"seconds\": %.3f, \"exec_per_sec\": %.0f",
		       execs, steps, secs, secs > 0 ? (double)execs / secs : 0.0);
		if (t_crash >= 0)
			printf(", \"seconds_to_crash\": %.3f", t_crash - t_start);
		printf(", \"crashes\": %u, \"crash\": ", crashes.n);
		if (first)
			cli_json_str(stdout, first);
		else
			printf("null");
		printf(", \"artifact\": ");
		if (ir.artifact[0])
			cli_json_str(stdout, ir.artifact);
		else
			printf("null");
		if (!strcmp(o.engine, "afl") && pr.have_stab)
			printf(", \"stability\": %.2f", pr.stability);
		printf(", \"import\": ");
		char *j = ir.json;
		size_t jl = j ? strlen(j) : 0;
		while (jl && (j[jl - 1] == '\n' || j[jl - 1] == ' '))
			j[--jl] = 0;
		if (j && jl && j[0] == '{' && j[jl - 1] == '}')
			fputs(j, stdout);
		else if (j && jl)
			cli_json_str(stdout, j);
		else
			printf("null");
		printf("}\n");
	} else if (!crashes.n) {
		printf("clean: %" PRIu64 " executions in %.1f s, no report (%s %s)\n", execs, secs,
		       o.engine, o.target);
	}
	free(ir.json);
	set_free(&crashes);
	if (!nr_imports)
		return WEFT_EXIT_CLEAN;
	return reproduced ? WEFT_EXIT_BUG : WEFT_EXIT_DESYNC;
}
