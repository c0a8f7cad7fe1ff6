/*
 * fuzz_crashes.c - `weft fuzz`: the raw crash files an engine wrote, and
 * handing each to `weft import` (minimize, write the .weft) or re-running it
 * when this binary has no import.
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
#include "fuzz_cmd.h"

/* ---------------------------------------------------------- crashes */


void fuzz_set_free(struct name_set *s)
{
	for (unsigned i = 0; i < s->n; i++)
		free(s->names[i]);
	s->n = 0;
}

bool fuzz_set_has(const struct name_set *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return true;
	return false;
}

/* name is in s and has not been written since s was listed: an engine
 * that finds an input again (the same seed, a deterministic first input)
 * rewrites the crash file of that name. */
bool fuzz_set_has_unchanged(const struct name_set *s, const char *name)
{
	struct stat st;

	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return !stat(name, &st) && st.st_mtim.tv_sec == s->mtime[i].tv_sec &&
			       st.st_mtim.tv_nsec == s->mtime[i].tv_nsec;
	return false;
}

/* Regular files of dir whose names start with prefix (all if ""). */
void fuzz_list_files(const char *dir, const char *prefix, const char *suffix,
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
		struct stat st;
		if (fuzz_is_file(p) && !fuzz_set_has(s, p) && !stat(p, &st)) {
			s->mtime[s->n] = st.st_mtim;
			s->names[s->n++] = strdup(p);
		}
	}
	closedir(d);
}

void fuzz_crash_files(const struct fuzz_opts *o, struct name_set *s)
{
	char d[PATH_MAX + 400];

	if (o->keep_going) {
		/* the target's kept reports (WEFT_FUZZ_KEEP_GOING, one per kind
		 * and site), then whatever crashed the engine's way */
		snprintf(d, sizeof(d), "%s/keep", o->work);
		fuzz_list_files(d, "", "", s);
	}
	if (!strcmp(o->engine, "libfuzzer")) {
		snprintf(d, sizeof(d), "%s/crashes", o->work);
		fuzz_list_files(d, "crash-", "", s);
		return;
	}
	for (uint64_t j = 0; j < o->jobs; j++) {
		if (j)
			snprintf(d, sizeof(d), "%s/afl/s%" PRIu64 "/crashes", o->work, j);
		else
			snprintf(d, sizeof(d), "%s/afl/main/crashes", o->work);
		fuzz_list_files(d, "id:", "", s);
	}
}

/* ------------------------------------------------------------ import */

/* Newest .weft under out that was not there before. */
static void new_artifact(const char *out, const struct name_set *before, char *buf, size_t n)
{
	struct name_set after = { .n = 0 };
	time_t best = 0;

	buf[0] = 0;
	fuzz_list_files(out, "", ".weft", &after);
	for (unsigned i = 0; i < after.n; i++) {
		struct stat st;
		if (fuzz_set_has(before, after.names[i]) || stat(after.names[i], &st))
			continue;
		if (!buf[0] || st.st_mtime >= best) {
			best = st.st_mtime;
			snprintf(buf, n, "%s", after.names[i]);
		}
	}
	fuzz_set_free(&after);
}

void fuzz_import_crash(const struct fuzz_opts *o, const char *crash, struct import_result *ir)
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
	fuzz_list_files(o->out, "", ".weft", &before);
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
	argv[n++] = "--memory";
	argv[n++] = (char *)weft_memory_name(o->memory);
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
	ir->rc = fuzz_wait_exit(pid);
	new_artifact(o->out, &before, ir->artifact, sizeof(ir->artifact));
	fuzz_set_free(&before);
}

/* The raw crash, re-run here (kind for the summary; the fallback report
 * while `weft import` is not in this build). */
enum weft_kind fuzz_rerun(const struct fuzz_opts *o, const char *crash, bool print)
{
	static uint8_t buf[65536];
	static struct weft_bytes b;
	struct weft_exec_result r;
	struct weft_run_opts ro = { .sc = o->sc, .variant = o->vi, .lock = o->lock,
				    .checks = WEFT_CHECKS_DEFAULT, .memory = (uint8_t)o->memory };
	long len = cli_read_file(crash, buf, sizeof(buf));

	if (o->only_kind)
		cli_continue_past_warnings(&ro, 1ull << o->only_kind);

	if (len < 0)
		return WEFT_KIND_NONE;
	static uint8_t fresh[WEFT_INPUT_MAX];
	size_t run_len = (size_t)len;
	const uint8_t *run = weft_raw_input(o->sc, o->vi, o->memory, buf, &run_len, fresh);
	weft_bytes_init(&b, o->sc, run, run_len);
	if (weft_execute(&ro, &weft_strategy_bytes, &b, &r) < 0)
		return WEFT_KIND_NONE;
	if (print && r.kind != WEFT_KIND_NONE)
		weft_report_print(stdout, &ro, &r);
	return r.kind;
}

