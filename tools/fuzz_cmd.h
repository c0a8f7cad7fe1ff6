/*
 * fuzz_cmd.h - what the files of `weft fuzz` share (tools/cmd_fuzz.c the
 * command, fuzz_build.c the target and the process helpers, fuzz_engines.c
 * libFuzzer and AFL++, fuzz_crashes.c the crash files and their import).
 * Private to tools/.
 */
#ifndef WEFT_TOOLS_FUZZ_CMD_H
#define WEFT_TOOLS_FUZZ_CMD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <weft/strategy.h>

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

static inline const char *prog_str(const char *s)
{
	return s ? s : "";
}

struct fuzz_opts {
	const struct weft_scenario *sc;
	unsigned vi;
	const char *engine;
	uint64_t time, jobs, seed;
	const char *out;
	const char *build_dir;
	const char *target_bin;
	enum weft_lock_model lock;
	enum weft_memory_model memory;
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

#define MAX_CRASHES 64

struct name_set {
	char *names[1024];
	struct timespec mtime[1024];   /* as fuzz_list_files() found them */
	unsigned n;
};

struct progress {
	unsigned long cov, ft, corp;
	double stability;
	bool have_cov, have_stab;
};

struct import_result {
	int rc;
	char artifact[PATH_MAX];
	char *json;          /* import --json output (malloc), or NULL */
};

/* fuzz_build.c: processes and files */
double fuzz_now(void);
bool fuzz_is_file(const char *p);
bool fuzz_is_dir(const char *p);
int fuzz_mkdirs(const char *path);
const char *fuzz_env_or(const char *name, const char *dflt);
pid_t fuzz_spawn(char *const argv[], int fd_out, char *const envs[]);
int fuzz_wait_exit(pid_t pid);
void fuzz_print_log_tail(const char *path, unsigned lines);
/* fuzz_build.c: find or build the target (o->bin, o->seeds, ...) */
int fuzz_ensure_target(struct fuzz_opts *o);

/* fuzz_crashes.c */
void fuzz_set_free(struct name_set *s);
bool fuzz_set_has(const struct name_set *s, const char *name);
bool fuzz_set_has_unchanged(const struct name_set *s, const char *name);
void fuzz_list_files(const char *dir, const char *prefix, const char *suffix,
		     struct name_set *s);
void fuzz_crash_files(const struct fuzz_opts *o, struct name_set *s);
void fuzz_import_crash(const struct fuzz_opts *o, const char *crash, struct import_result *ir);
enum weft_kind fuzz_rerun(const struct fuzz_opts *o, const char *crash, bool print);

/* fuzz_engines.c */
void fuzz_libfuzzer_progress(const char *log, struct progress *p);
void fuzz_afl_progress(const struct fuzz_opts *o, struct progress *p);
pid_t fuzz_start_libfuzzer(const struct fuzz_opts *o, int logfd, char *const envs[]);
int fuzz_start_afl(const struct fuzz_opts *o, int logfd, char *const envs[], pid_t *pids);

#endif
