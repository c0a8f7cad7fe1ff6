/*
 * bench_child.c - the bench's child processes (harness.h, struct child):
 * this weft's subcommands and the helper programs beside it, run with a
 * wall-clock bound in a process group of their own, optionally pinned to
 * the quietest CPU, their output and peak RSS collected and logged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

char bench_self[PATH_MAX], bench_bindir[PATH_MAX];
int bench_cpu = -1;
double bench_deadline;
FILE *bench_log;

/* The running child's process group: an interrupted bench takes it along. */
volatile sig_atomic_t bench_child_pgid;

void bench_on_signal(int sig)
{
	if (bench_child_pgid > 0)
		kill(-(pid_t)bench_child_pgid, SIGKILL);
	_exit(128 + sig);
}

double bench_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool bench_budget_spent(void)
{
	return bench_deadline > 0 && bench_clock() > bench_deadline;
}

void bench_child_free(struct child *c)
{
	free(c->out);
	c->out = NULL;
}

/* Run argv (argv[0] a path), wall-clock bounded by timeout seconds (then
 * SIGKILL to its process group). pin: restrict it to bench_cpu. */
int bench_run_child(char *const argv[], double timeout, bool pin, struct child *c)
{
	int po[2], pe[2];

	memset(c, 0, sizeof(*c));
	c->status = -1;
	if (bench_log) {
		fprintf(bench_log, "$");
		for (int i = 0; argv[i]; i++)
			fprintf(bench_log, " %s", argv[i]);
		fprintf(bench_log, "\n");
		fflush(bench_log);
	}
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		return -1;
	double t0 = bench_clock();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		if (pin && bench_cpu >= 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(bench_cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execv(argv[0], argv);
		fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	bench_child_pgid = pid;
	close(po[1]);
	close(pe[1]);

	size_t cap = 4096;
	char *out = malloc(cap), ebuf[4096];
	size_t elen = 0;
	struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
	int open_fds = 2;
	while (open_fds && out) {
		double left = t0 + timeout - bench_clock();
		if (left <= 0) {
			c->timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		int r = poll(fds, 2, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[4096];
			ssize_t n = read(fds[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 0) {
				if (c->out_len + (size_t)n + 1 > cap && cap < (8u << 20)) {
					char *t = realloc(out, cap = cap * 2 + (size_t)n);
					if (!t)
						break;
					out = t;
				}
				if (c->out_len + (size_t)n + 1 <= cap) {
					memcpy(out + c->out_len, buf, (size_t)n);
					c->out_len += (size_t)n;
				}
			} else {
				for (ssize_t k = 0; k < n; k++) {
					if (elen + 1 >= sizeof(ebuf))
						elen = 0;
					ebuf[elen++] = buf[k];
				}
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	struct rusage ru;
	int st = 0;
	while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	/* a killed fuzzer may leave helpers behind in its group */
	kill(-pid, SIGKILL);
	bench_child_pgid = 0;
	c->seconds = bench_clock() - t0;
	c->maxrss_kib = ru.ru_maxrss;
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (out)
		out[c->out_len] = 0;
	c->out = out;
	/* the last non-empty line of stderr, for "not measured" notes */
	ebuf[elen] = 0;
	while (elen && (ebuf[elen - 1] == '\n' || ebuf[elen - 1] == '\r'))
		ebuf[--elen] = 0;
	char *line = strrchr(ebuf, '\n');
	copy_trunc(c->err, sizeof(c->err), line ? line + 1 : ebuf);
	if (bench_log) {
		fprintf(bench_log, "  exit %d%s, %.3f s, maxrss %ld KiB%s%s\n", c->status,
			c->timed_out ? " (timed out)" : "", c->seconds, c->maxrss_kib,
			c->err[0] ? ", stderr: " : "", c->err);
		if (c->out_len)
			fprintf(bench_log, "  %s%s", c->out, c->out[c->out_len - 1] == '\n' ? "" : "\n");
		fflush(bench_log);
	}
	return 0;
}

/* The last line of the child's stdout that parses as a JSON value. */
struct jnode *bench_child_json(const struct child *c)
{
	if (!c->out)
		return NULL;
	size_t end = c->out_len;
	while (end) {
		size_t s = end;
		while (s && c->out[s - 1] != '\n')
			s--;
		size_t e = end;
		while (e > s && (c->out[e - 1] == '\n' || c->out[e - 1] == '\r'))
			e--;
		if (e > s && (c->out[s] == '{' || c->out[s] == '[')) {
			struct jnode *n = bench_jparse(c->out + s, e - s);
			if (n)
				return n;
		}
		end = s ? s - 1 : 0;
	}
	/* a multi-line document (weft list --json) */
	return bench_jparse(c->out, c->out_len);
}

/* Why a child did not give a usable answer. */
void bench_child_why(const struct child *c, char *buf, size_t n)
{
	if (c->status == -1)
		snprintf(buf, n, "could not start");
	else if (c->timed_out)
		snprintf(buf, n, "timed out after %.0f s", c->seconds);
	else if (c->err[0])
		snprintf(buf, n, "exit %d: %s", c->status, c->err);
	else
		snprintf(buf, n, "exit %d, no JSON output", c->status);
}

void bench_child_unmeasured(struct child *c, struct jnode *n, const char *what)
{
	char why[600];

	bench_child_why(c, why, sizeof(why));
	bench_not_measured("", what, why);
	bench_jfree(n);
	bench_child_free(c);
}

void bench_child_copy_object(const struct child *c)
{
	const char *o = strchr(c->out, '{');
	size_t len = strlen(o);

	while (len && (o[len - 1] == '\n' || o[len - 1] == ' '))
		len--;
	fwrite(o, 1, len, js);
}

void bench_av_init(struct argv_buf *a, const char *prog)
{
	a->n = 0;
	copy_trunc(a->store[0], sizeof(a->store[0]), prog);
	a->v[a->n] = a->store[a->n];
	a->n++;
	a->v[a->n] = NULL;
}

__attribute__((format(printf, 2, 3))) void bench_av_add(struct argv_buf *a, const char *fmt, ...)
{
	va_list ap;

	if (a->n >= 39)
		return;
	va_start(ap, fmt);
	vsnprintf(a->store[a->n], sizeof(a->store[0]), fmt, ap);
	va_end(ap);
	a->v[a->n] = a->store[a->n];
	a->n++;
	a->v[a->n] = NULL;
}

bool bench_file_executable(const char *path)
{
	return access(path, X_OK) == 0;
}

/* Why a helper program is missing, and how to get it: weft bench runs the
 * ones beside its own executable (the build tree's bin/, or the install's,
 * where bench/CMakeLists.txt installs them). */
void bench_missing_program(char *buf, size_t n, const char *prog)
{
	int w;

	if (!strcmp(prog, "weft-bench-empty-libfuzzer"))
		w = snprintf(buf, n, "no %s beside this weft (in %s): it is built with clang "
			     "(-fsanitize=fuzzer) when cmake finds clang, and installed with weft",
			     prog, bench_bindir);
	else
		w = snprintf(buf, n, "no %s beside this weft (in %s): build the bench/ target "
			     "(cmake --build BUILD --target %s) and install it (cmake --install "
			     "BUILD), or run BUILD/bin/weft bench", prog, bench_bindir, prog);
	/* a long bin directory does not fit a table note: say it was cut */
	if (w >= 0 && (size_t)w >= n && n > 4)
		memcpy(buf + n - 4, "...", 4);
}

void bench_not_measured(const char *prefix, const char *what, const char *why)
{
	fprintf(md, "%snot measured: %s%s%s\n\n", prefix, what ? what : "", what ? ": " : "", why);
	fprintf(js, "{\"not_measured\": ");
	cli_json_str(js, why);
	fprintf(js, "}");
}

bool bench_program_ready(char *path, size_t n, const char *prog, const char *prefix)
{
	snprintf(path, n, "%s/%s", bench_bindir, prog);
	if (bench_file_executable(path) && !bench_budget_spent())
		return true;
	char why[PATH_MAX + 200];
	bench_missing_program(why, sizeof(why), prog);
	if (bench_budget_spent())
		snprintf(why, sizeof(why), "time budget spent");
	bench_not_measured(prefix, NULL, why);
	return false;
}

bool bench_program_section(const char *heading, const char *key, const char *prog,
			   struct argv_buf *a)
{
	char path[PATH_MAX + 32];

	fprintf(md, "## %s\n\n", heading);
	fprintf(js, ",\n  \"%s\": ", key);
	if (!bench_program_ready(path, sizeof(path), prog, ""))
		return false;
	bench_av_init(a, path);
	return true;
}

/* Does this weft have subcommand `name`? (`weft help name` exits 0) */
bool bench_have_command(const char *name)
{
	struct argv_buf a;
	struct child c;

	bench_av_init(&a, bench_self);
	bench_av_add(&a, "help");
	bench_av_add(&a, "%s", name);
	if (bench_run_child(a.v, 10, false, &c))
		return false;
	bench_child_free(&c);
	return c.status == 0;
}
