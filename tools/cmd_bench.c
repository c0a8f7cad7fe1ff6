/*
 * cmd_bench.c - `weft bench`: every benchmark of docs/benchmarks.md in one
 * run, on this machine, side by side.
 *
 * The bench drives the other subcommands as child processes of
 * /proc/self/exe (and weft-microbench, weft-stress and the empty libFuzzer
 * target installed beside it) with --json, and parses their last JSON line
 * with a small strict parser. A piece that is missing (no `weft fuzz`, no AFL++
 * build, no `weft min`) becomes a "not measured: <why>" row; nothing is
 * invented. Timed children (everything but the stress test, which needs
 * real threads on real cores) are pinned to one CPU.
 *
 * Medians over seeds treat a seed that did not find the bug within the cap
 * as +infinity (censored): the median is "not found" when half the seeds or
 * more missed. min and max are over the seeds that found it.
 *
 * Length: every section of one benchmark run and the Markdown/JSON writers
 * that must agree on them; the fuzzing and DPOR sections live in
 * bench_fuzz.c and bench_dpor.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_fuzz.h"
#include "cli.h"

const char weft_help_bench[] =
	"usage: weft bench [--quick] [--json] [--out DIR] [--seeds N] [--stress-cap S]\n"
	"                  [--fuzz-cap S] [--budget S] [--only SCENARIO[:VARIANT]]\n"
	"                  [--no-engines] [--all] [--sections LIST] [--markdown FILE]\n\n"
	"Measures, in one run on this machine: the core micro-benchmarks (ns per\n"
	"context switch vs a bare asm switch and swapcontext, scheduling decisions/s,\n"
	"exec/s of a 2-CPU x 50-point scenario), throughput per target (random\n"
	"in-process, libFuzzer, AFL++, the empty libFuzzer loop), time to bug of\n"
	"every buggy variant under libFuzzer with and without interleaving feedback,\n"
	"AFL++, random, pct (d=2,3), dfs (bound 1,2) and the native stress test,\n"
	"silence of every fixed variant, weft min before -> after, and peak RSS.\n"
	"Writes DIR/bench.md and DIR/bench.json (default DIR: weft-bench).\n"
	"  --quick        CI form: fewer seeds, short caps, under 2 minutes\n"
	"  --json         also print the JSON to stdout\n"
	"  --seeds N      seeds per time-to-bug row (default 10; quick 3, and 1 for\n"
	"                 weft fuzz and stress rows)\n"
	"  --stress-cap S seconds per stress run (default 60; quick 1)\n"
	"  --fuzz-cap S   seconds per weft fuzz run (default 20; quick 1)\n"
	"  --budget S     stop starting new measurements after S seconds (quick 90)\n"
	"  --only SPEC    only this scenario (or variant) in the per-variant sections\n"
	"  --no-engines   skip weft fuzz (libFuzzer, AFL++) and weft stress rows\n"
	"  --all          demos too (by default only zoo variants, once there are any)\n"
	"  --sections L   only these, comma-separated: core, throughput, memory, min,\n"
	"                 ttb (time to bug and headline), silence, fuzz (searchers\n"
	"                 side by side to each zoo bug, issue 12's targets; default:\n"
	"                 all of these), fuzz-ablation (the fuzzer's ablation rows)\n"
	"  --markdown F   also write F (docs/benchmarks.md) from this run: a header naming\n"
	"                 the command, the commit of this build's source tree (and whether\n"
	"                 it had uncommitted changes) and the date, the tables, then F's\n"
	"                 hand-written section (after its <!-- hand-written --> line) as it was\n"
	"exit: 0 written, 2 usage, 3 I/O\n";

/* ------------------------------------------------------------- JSON */

/* A strict parser for the one-object lines the subcommands print: RFC 8259
 * values, nesting bounded, no trailing garbage. Strings keep ASCII; other
 * \u escapes become '?'. */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jtype t;
	bool b;
	double num;
	char *str;
	char *key;
	struct jnode *kid, *next;
};

struct jparser {
	const char *p, *end;
	int depth;
	bool err;
};

static void jfree(struct jnode *n)
{
	while (n) {
		struct jnode *next = n->next;
		jfree(n->kid);
		free(n->str);
		free(n->key);
		free(n);
		n = next;
	}
}

static void jws(struct jparser *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static char *jstring(struct jparser *j)
{
	size_t cap = 32, n = 0;
	char *s;

	if (j->p >= j->end || *j->p != '"' || !(s = malloc(cap))) {
		j->err = true;
		return NULL;
	}
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;
		if ((unsigned char)c < 0x20)
			goto bad;
		if (c == '\\') {
			if (j->p >= j->end)
				goto bad;
			c = *j->p++;
			switch (c) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned v = 0;
				for (int k = 0; k < 4; k++) {
					if (j->p >= j->end)
						goto bad;
					char h = *j->p++;
					v <<= 4;
					if (h >= '0' && h <= '9')
						v |= (unsigned)(h - '0');
					else if (h >= 'a' && h <= 'f')
						v |= (unsigned)(h - 'a' + 10);
					else if (h >= 'A' && h <= 'F')
						v |= (unsigned)(h - 'A' + 10);
					else
						goto bad;
				}
				c = v && v < 0x80 ? (char)v : '?';
				break;
			}
			default:
				goto bad;
			}
		}
		if (n + 1 >= cap) {
			char *t = realloc(s, cap *= 2);
			if (!t)
				goto bad;
			s = t;
		}
		s[n++] = c;
	}
	if (j->p >= j->end)
		goto bad;
	j->p++;
	s[n] = 0;
	return s;
bad:
	free(s);
	j->err = true;
	return NULL;
}

static bool jlit(struct jparser *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return false;
	j->p += n;
	return true;
}

static struct jnode *jvalue(struct jparser *j)
{
	struct jnode *n;

	jws(j);
	if (j->p >= j->end || ++j->depth > 16 || !(n = calloc(1, sizeof(*n)))) {
		j->err = true;
		return NULL;
	}
	char c = *j->p;
	if (c == '{' || c == '[') {
		struct jnode **tail = &n->kid;
		char close = c == '{' ? '}' : ']';
		n->t = c == '{' ? J_OBJ : J_ARR;
		j->p++;
		jws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			goto out;
		}
		for (;;) {
			char *key = NULL;
			jws(j);
			if (n->t == J_OBJ) {
				key = jstring(j);
				jws(j);
				if (j->err || j->p >= j->end || *j->p++ != ':') {
					free(key);
					goto bad;
				}
			}
			struct jnode *k = jvalue(j);
			if (!k) {
				free(key);
				goto bad;
			}
			k->key = key;
			*tail = k;
			tail = &k->next;
			jws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == close) {
				j->p++;
				break;
			}
			goto bad;
		}
	} else if (c == '"') {
		n->t = J_STR;
		n->str = jstring(j);
		if (j->err)
			goto bad;
	} else if (jlit(j, "true")) {
		n->t = J_BOOL;
		n->b = true;
	} else if (jlit(j, "false")) {
		n->t = J_BOOL;
	} else if (jlit(j, "null")) {
		n->t = J_NULL;
	} else {
		/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
		const char *s = j->p;
		if (j->p < j->end && *j->p == '-')
			j->p++;
		if (j->p < j->end && *j->p == '0')
			j->p++;
		else if (j->p < j->end && *j->p >= '1' && *j->p <= '9')
			while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
				j->p++;
		else
			goto bad;
		if (j->p < j->end && *j->p == '.') {
			j->p++;
			if (j->p >= j->end || *j->p < '0' || *j->p > '9')
				goto bad;
			while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
				j->p++;
		}
		if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
			j->p++;
			if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
				j->p++;
			if (j->p >= j->end || *j->p < '0' || *j->p > '9')
				goto bad;
			while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
				j->p++;
		}
		char buf[64];
		size_t len = (size_t)(j->p - s);
		if (len >= sizeof(buf))
			goto bad;
		memcpy(buf, s, len);
		buf[len] = 0;
		n->t = J_NUM;
		n->num = strtod(buf, NULL);
	}
out:
	j->depth--;
	return n;
bad:
	j->err = true;
	jfree(n);
	return NULL;
}

static struct jnode *jparse(const char *s, size_t len)
{
	struct jparser j = { s, s + len, 0, false };
	struct jnode *n = jvalue(&j);

	jws(&j);
	if (n && (j.err || j.p != j.end)) {
		jfree(n);
		return NULL;
	}
	return n;
}

static const struct jnode *jget(const struct jnode *o, const char *key)
{
	if (!o || o->t != J_OBJ)
		return NULL;
	for (const struct jnode *k = o->kid; k; k = k->next)
		if (k->key && !strcmp(k->key, key))
			return k;
	return NULL;
}

static double jnum(const struct jnode *o, const char *key, double dflt)
{
	const struct jnode *n = jget(o, key);

	return n && n->t == J_NUM ? n->num : dflt;
}

static const char *jstr(const struct jnode *o, const char *key)
{
	const struct jnode *n = jget(o, key);

	return n && n->t == J_STR ? n->str : NULL;
}

/* -------------------------------------------------------- children */

struct child {
	int status;            /* exit code, or 128 + signal, or -1 not run */
	bool timed_out;
	double seconds;        /* wall */
	long maxrss_kib;
	char *out;             /* stdout */
	size_t out_len;
	char err[512];         /* the last line of stderr that had text */
};

/* fmin/fmax without libm (weft links none) */
static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* strlcpy: copy what fits, always terminated. */
static void copy_trunc(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);

	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = 0;
}

static char bench_self[PATH_MAX], bench_bindir[PATH_MAX];
static int bench_cpu = -1;           /* CPU timed children are pinned to */
static double bench_deadline;        /* 0: none */
static FILE *bench_log;

/* The running child's process group: an interrupted bench takes it along. */
static volatile sig_atomic_t bench_child_pgid;

static void bench_on_signal(int sig)
{
	if (bench_child_pgid > 0)
		kill(-(pid_t)bench_child_pgid, SIGKILL);
	_exit(128 + sig);
}

static double bench_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool budget_spent(void)
{
	return bench_deadline > 0 && bench_clock() > bench_deadline;
}

static void child_free(struct child *c)
{
	free(c->out);
	c->out = NULL;
}

/* Run argv (argv[0] a path), wall-clock bounded by timeout seconds (then
 * SIGKILL to its process group). pin: restrict it to bench_cpu. */
static int run_child(char *const argv[], double timeout, bool pin, struct child *c)
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
static struct jnode *child_json(const struct child *c)
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
			struct jnode *n = jparse(c->out + s, e - s);
			if (n)
				return n;
		}
		end = s ? s - 1 : 0;
	}
	/* a multi-line document (weft list --json) */
	return jparse(c->out, c->out_len);
}

/* Why a child did not give a usable answer. */
static void child_why(const struct child *c, char *buf, size_t n)
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

/* argv builder */
struct argv_buf {
	char *v[40];
	char store[40][PATH_MAX];
	int n;
};

static void av_init(struct argv_buf *a, const char *prog)
{
	a->n = 0;
	copy_trunc(a->store[0], sizeof(a->store[0]), prog);
	a->v[a->n] = a->store[a->n];
	a->n++;
	a->v[a->n] = NULL;
}

static __attribute__((format(printf, 2, 3))) void av_add(struct argv_buf *a, const char *fmt, ...)
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

static bool file_executable(const char *path)
{
	return access(path, X_OK) == 0;
}

/* Why a helper program is missing, and how to get it: weft bench runs the
 * ones beside its own executable (the build tree's bin/, or the install's,
 * where bench/CMakeLists.txt installs them). */
static void missing_program(char *buf, size_t n, const char *prog)
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

/* Does this weft have subcommand `name`? (`weft help name` exits 0) */
static bool have_command(const char *name)
{
	struct argv_buf a;
	struct child c;

	av_init(&a, bench_self);
	av_add(&a, "help");
	av_add(&a, "%s", name);
	if (run_child(a.v, 10, false, &c))
		return false;
	child_free(&c);
	return c.status == 0;
}

/* ----------------------------------------------------------- output */

static FILE *md, *js;        /* markdown and JSON being written */
static bool js_first;        /* first element of the current JSON array */

static void js_sep(void)
{
	fprintf(js, "%s\n    ", js_first ? "" : ",");
	js_first = false;
}

static void js_num(const char *key, double v, bool comma)
{
	if (isfinite(v) && v >= 0)
		fprintf(js, "\"%s\": %.6g%s", key, v, comma ? ", " : "");
	else
		fprintf(js, "\"%s\": null%s", key, comma ? ", " : "");
}

static void js_kstr(const char *key, const char *v, bool comma)
{
	fprintf(js, "\"%s\": ", key);
	if (v)
		cli_json_str(js, v);
	else
		fprintf(js, "null");
	if (comma)
		fprintf(js, ", ");
}

static void js_section(const char *name)
{
	fprintf(js, ",\n  \"%s\": [", name);
	js_first = true;
}

static void js_end_section(void)
{
	fprintf(js, "\n  ]");
}

/* A number for the markdown table: "-" when unknown. */
static const char *fmt_num(char *buf, size_t n, double v, int prec)
{
	if (!isfinite(v) || v < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.*f", prec, v);
	return buf;
}

static const char *fmt_si(char *buf, size_t n, double v)
{
	if (!isfinite(v) || v < 0)
		snprintf(buf, n, "-");
	else if (v >= 1e9)
		snprintf(buf, n, "%.2f G", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, n, "%.2f M", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, n, "%.1f k", v / 1e3);
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

static const char *fmt_secs(char *buf, size_t n, double v)
{
	if (!isfinite(v) || v < 0)
		snprintf(buf, n, "-");
	else if (v < 1e-3)
		snprintf(buf, n, "%.1f µs", v * 1e6);
	else if (v < 1)
		snprintf(buf, n, "%.1f ms", v * 1e3);
	else
		snprintf(buf, n, "%.2f s", v);
	return buf;
}

/* -------------------------------------------------------- variants */

struct bvariant {
	char scenario[64], variant[64], zoo[32];
	bool buggy;
	char kind[32];
};

#define MAX_VARIANTS 256   /* weft list has 100 variants (zoo and demos) */
static struct bvariant vars[MAX_VARIANTS];
static unsigned nr_vars;

static int load_variants(void)
{
	struct argv_buf a;
	struct child c;

	av_init(&a, bench_self);
	av_add(&a, "list");
	av_add(&a, "--json");
	if (run_child(a.v, 30, false, &c))
		return -1;
	struct jnode *n = child_json(&c);
	child_free(&c);
	if (!n || n->t != J_ARR) {
		jfree(n);
		return -1;
	}
	for (const struct jnode *k = n->kid; k && nr_vars < MAX_VARIANTS; k = k->next) {
		const char *s = jstr(k, "scenario"), *v = jstr(k, "variant"),
			   *e = jstr(k, "expect"), *z = jstr(k, "zoo"), *kind = jstr(k, "kind");
		if (!s || !v || !e)
			continue;
		struct bvariant *b = &vars[nr_vars++];
		snprintf(b->scenario, sizeof(b->scenario), "%s", s);
		snprintf(b->variant, sizeof(b->variant), "%s", v);
		snprintf(b->zoo, sizeof(b->zoo), "%s", z ? z : "");
		snprintf(b->kind, sizeof(b->kind), "%s", kind ? kind : "");
		b->buggy = !strcmp(e, "bug");
	}
	jfree(n);
	return 0;
}

static bool have_zoo(void)
{
	for (unsigned i = 0; i < nr_vars; i++)
		if (vars[i].zoo[0])
			return true;
	return false;
}

/* ---------------------------------------------------------- options */

enum skind { S_RUN, S_DFS, S_FUZZ, S_STRESS };

static struct {
	bool quick, json, no_engines, all;
	const char *out;
	unsigned seeds;
	double stress_cap, fuzz_cap, budget;
	uint64_t run_cap;            /* executions per random/pct seed */
	uint64_t silence_iters;
	double silence_secs;
	const char *only;
	const char *sections;         /* NULL: all */
	unsigned slow_seeds;          /* seeds of fuzz and stress rows */
	bool have_fuzz, have_min;
	const char *markdown;         /* --markdown FILE */
	char cmdline[512];
} B;

static const char *skip_row(enum skind k, const char *engine, unsigned param);

/* Why a row of this kind is not run, or NULL. */
static const char *skip_kind(enum skind k)
{
	return skip_row(k, NULL, 0);
}

/* Why this row is not run, or NULL. arg: the fuzz engine. */
static const char *skip_row(enum skind k, const char *engine, unsigned param)
{
	if (B.quick && k == S_FUZZ && param)
		return "--quick runs libFuzzer with feedback only";
	if (B.quick && engine && !strcmp(engine, "afl"))
		return "--quick runs AFL++ for throughput only (its start-up costs seconds)";
	if ((k == S_FUZZ || k == S_STRESS) && B.no_engines)
		return "disabled by --no-engines";
	if (k == S_FUZZ && !B.have_fuzz)
		return "this weft has no `fuzz` subcommand yet";
	return NULL;
}

/* Is section name in --sections (or are all on)? */
static bool section_on(const char *name)
{
	size_t n = strlen(name);

	if (!B.sections)
		return true;
	for (const char *p = B.sections; (p = strstr(p, name)); p += n)
		if ((p == B.sections || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return true;
	return false;
}

/* Is this variant in the per-variant sections? */
static bool selected(const struct bvariant *v)
{
	if (B.only) {
		char spec[140];
		snprintf(spec, sizeof(spec), "%s:%s", v->scenario, v->variant);
		return !strcmp(B.only, v->scenario) || !strcmp(B.only, spec) ||
		       !strcmp(B.only, v->variant);
	}
	/* the zoo once it exists (demos stand in before; --all: both) */
	if (!B.all && have_zoo())
		return v->zoo[0] != 0;
	return true;
}

/* ------------------------------------------------------ the machine */

/* The CPU with the most idle time over 200 ms (/proc/stat), for the timed
 * children: on a shared machine the pinned core should be the quiet one. */
static int idlest_cpu(long cores)
{
	unsigned long long idle[2][64];
	int n = 0;

	if (cores <= 1)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		FILE *f = fopen("/proc/stat", "r");
		char line[512];
		n = 0;
		while (f && fgets(line, sizeof(line), f) && n < 64) {
			unsigned long long v[5];
			int cpu;
			if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
				continue;
			if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
				   &v[3], &v[4]) == 6 && cpu == n)
				idle[pass][n++] = v[3] + v[4];
		}
		if (f)
			fclose(f);
		if (!pass) {
			struct timespec ts = { 0, 200000000 };
			nanosleep(&ts, NULL);
		}
	}
	int best = (int)cores - 1;
	for (int i = 0; i < n; i++)
		if (idle[1][i] - idle[0][i] > idle[1][best < n ? best : 0] - idle[0][best < n ? best : 0])
			best = i;
	return best;
}

static void section_machine(void)
{
	char cpu[128] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				c[strcspn(c, "\n")] = 0;
				snprintf(cpu, sizeof(cpu), "%s", c);
			}
			break;
		}
	}
	if (f)
		fclose(f);
	struct utsname u;
	uname(&u);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char date[64];
	time_t t = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
#if defined(__clang__)
	const char *cc = "clang " __clang_version__;
#elif defined(__GNUC__)
	const char *cc = "gcc " __VERSION__;
#else
	const char *cc = "unknown";
#endif
	fprintf(md, "# weft bench%s — %s\n\n", B.quick ? " --quick" : "", date);
	fprintf(md, "Command: `%s`  \n", B.cmdline);
	fprintf(md, "Machine: %s, %ld cores online, %s %s %s; weft built with %s. "
		    "Timed children pinned to CPU %d (stress uses real threads on all cores).\n\n",
		cpu, cores, u.sysname, u.release, u.machine, cc, bench_cpu);
	fprintf(js, "{\n  \"weft_bench\": 1, \"mode\": \"%s\", \"date\": \"%s\", \"command\": ",
		B.quick ? "quick" : "full", date);
	cli_json_str(js, B.cmdline);
	fprintf(js, ",\n  \"machine\": {\"cpu\": ");
	cli_json_str(js, cpu);
	fprintf(js, ", \"cores\": %ld, \"kernel\": ", cores);
	cli_json_str(js, u.release);
	fprintf(js, ", \"arch\": ");
	cli_json_str(js, u.machine);
	fprintf(js, ", \"compiler\": ");
	cli_json_str(js, cc);
	fprintf(js, ", \"pinned_cpu\": %d}", bench_cpu);
}

/* ------------------------------------------------- core micro-benchmarks */

/* Values the target table needs later. */
static struct {
	double sw_api, sw_bare, sw_uc, dec_per_s, exec_2x50, empty_lf;
	double z1_exec_per_s;
	char z1_target[160];
	double rss_small, rss_big;
	uint64_t rss_small_n, rss_big_n;
} T = { -1, -1, -1, -1, -1, -1, -1, "", -1, -1, 0, 0 };

static void section_core(void)
{
	char path[PATH_MAX + 32], b1[32], b2[32], b3[32];
	struct argv_buf a;
	struct child c;

	fprintf(md, "## Core micro-benchmarks (issue 2)\n\n");
	snprintf(path, sizeof(path), "%s/weft-microbench", bench_bindir);
	fprintf(js, ",\n  \"core\": ");
	if (!file_executable(path) || budget_spent()) {
		char why[PATH_MAX + 200];
		missing_program(why, sizeof(why), "weft-microbench");
		if (budget_spent())
			snprintf(why, sizeof(why), "time budget spent");
		fprintf(md, "not measured: %s\n\n", why);
		fprintf(js, "{\"not_measured\": ");
		cli_json_str(js, why);
		fprintf(js, "}");
		return;
	}
	av_init(&a, path);
	av_add(&a, "core");
	if (B.quick)
		av_add(&a, "--quick");
	run_child(a.v, 300, true, &c);
	struct jnode *n = child_json(&c);
	if (!n || n->t != J_OBJ) {
		char why[600];
		child_why(&c, why, sizeof(why));
		fprintf(md, "not measured: weft-microbench: %s\n\n", why);
		fprintf(js, "{\"not_measured\": ");
		cli_json_str(js, why);
		fprintf(js, "}");
		jfree(n);
		child_free(&c);
		return;
	}
	/* the child's object, verbatim (it parsed strictly) */
	const char *s = strchr(c.out, '{');
	size_t len = strlen(s);
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	fwrite(s, 1, len, js);

	const struct jnode *sw = jget(n, "switch_ns"), *rr = jget(n, "random"),
			   *rd = jget(n, "default");
	T.sw_api = jnum(sw, "weft_fiber_switch", -1);
	T.sw_bare = jnum(sw, "bare_asm", -1);
	T.sw_uc = jnum(sw, "swapcontext", -1);
	double raw = jnum(sw, "weft_ctx_switch", -1);
	T.dec_per_s = jnum(rr, "decisions_per_s", -1);
	T.exec_2x50 = jnum(rr, "exec_per_s", -1);
	fprintf(md, "Context switch, ping-pong between two stacks, median of %g repetitions of "
		    "%g round trips (ns per switch):\n\n",
		jnum(n, "reps", -1), jnum(n, "switch_rounds", -1));
	fprintf(md, "| switch | ns/switch | × bare asm |\n|---|---:|---:|\n");
	struct {
		const char *name;
		double v;
	} rows[] = {
		{ "weft_fiber_switch (Weft's fiber API, what the machine calls)", T.sw_api },
		{ "weft_ctx_switch (Weft's asm routine alone)", raw },
		{ "bare asm switch written in bench/ (reference)", T.sw_bare },
		{ "swapcontext(3) (glibc; one rt_sigprocmask per call)", T.sw_uc },
	};
	for (unsigned i = 0; i < 4; i++)
		fprintf(md, "| %s | %s | %s |\n", rows[i].name, fmt_num(b1, 32, rows[i].v, 2),
			fmt_num(b2, 32, T.sw_bare > 0 && rows[i].v > 0 ? rows[i].v / T.sw_bare : -1,
				2));
	fprintf(md, "\nScenario `%s` (2 fake CPUs × 50 atomic_inc each, defined in "
		    "bench/bench_core.c, not in the registry):\n\n",
		jstr(n, "scenario") ? jstr(n, "scenario") : "?");
	fprintf(md, "| strategy | executions | seconds | exec/s | decisions/s | ns/step | "
		    "switches/exec |\n|---|---:|---:|---:|---:|---:|---:|\n");
	const struct jnode *rs[2] = { rr, rd };
	const char *names[2] = { "random (seeded)", "default only (decisions, no preemption)" };
	for (unsigned i = 0; i < 2; i++) {
		double e = jnum(rs[i], "executions", -1);
		char b4[32], b5[32], b6[32];
		fprintf(md, "| %s | %s | %s | %s | %s | %s | %s |\n", names[i], fmt_si(b1, 32, e),
			fmt_num(b2, 32, jnum(rs[i], "seconds", -1), 3),
			fmt_si(b3, 32, jnum(rs[i], "exec_per_s", -1)),
			fmt_si(b4, 32, jnum(rs[i], "decisions_per_s", -1)),
			fmt_num(b5, 32, jnum(rs[i], "ns_per_step", -1), 1),
			fmt_num(b6, 32, e > 0 ? jnum(rs[i], "switches", -1) / e : -1, 1));
	}
	fprintf(md, "\n");
	jfree(n);
	child_free(&c);
}

static void section_empty_libfuzzer(void)
{
	char path[PATH_MAX + 32], b1[32];
	uint64_t runs = B.quick ? 1000000 : 5000000;
	struct argv_buf a;
	struct child c;

	snprintf(path, sizeof(path), "%s/weft-bench-empty-libfuzzer", bench_bindir);
	fprintf(js, ",\n  \"empty_libfuzzer\": ");
	if (!file_executable(path) || budget_spent()) {
		char why[PATH_MAX + 200];
		missing_program(why, sizeof(why), "weft-bench-empty-libfuzzer");
		if (budget_spent())
			snprintf(why, sizeof(why), "time budget spent");
		fprintf(md, "Empty libFuzzer loop: not measured: %s\n\n", why);
		fprintf(js, "{\"not_measured\": ");
		cli_json_str(js, why);
		fprintf(js, "}");
		return;
	}
	av_init(&a, path);
	av_add(&a, "-runs=%" PRIu64, runs);
	av_add(&a, "-seed=1");
	run_child(a.v, 120, true, &c);
	child_free(&c);
	if (c.status != 0) {
		char why[600];
		child_why(&c, why, sizeof(why));
		fprintf(md, "Empty libFuzzer loop: not measured: %s\n\n", why);
		fprintf(js, "{\"not_measured\": ");
		cli_json_str(js, why);
		fprintf(js, "}");
		return;
	}
	T.empty_lf = (double)runs / c.seconds;
	fprintf(md, "Empty libFuzzer target (bench/bench_empty_fuzzer.c, clang -O2 "
		    "-fsanitize=fuzzer): %" PRIu64 " runs in %.3f s wall including start-up = "
		    "**%s exec/s**, the ceiling of any in-process libFuzzer target here.\n\n",
		runs, c.seconds, fmt_si(b1, 32, T.empty_lf));
	fprintf(js, "{\"runs\": %" PRIu64 ", \"seconds\": %.6f, \"exec_per_s\": %.0f}", runs,
		c.seconds, T.empty_lf);
}

/* ---------------------------------------------------- throughput */

static void throughput_row(const struct bvariant *v, const char *engine, const char *skip)
{
	char b1[32], b2[32], b3[32], b4[32], why[600] = "";
	struct argv_buf a;
	struct child c;
	double execs = -1, secs = -1, decs = -1, steps = -1;

	if (skip) {
		snprintf(why, sizeof(why), "%s", skip);
		goto out;
	}
	if (budget_spent()) {
		snprintf(why, sizeof(why), "time budget spent");
		goto out;
	}
	av_init(&a, bench_self);
	if (!strcmp(engine, "random")) {
		av_add(&a, "run");
		av_add(&a, "%s:%s", v->scenario, v->variant);
		av_add(&a, "--strategy");
		av_add(&a, "random");
		av_add(&a, "--iterations");
		av_add(&a, "%u", B.quick ? 20000u : 100000u);
		av_add(&a, "--quiet");
		av_add(&a, "--json");
	} else {
		if (skip_kind(S_FUZZ)) {
			snprintf(why, sizeof(why), "%s", skip_kind(S_FUZZ));
			goto out;
		}
		av_add(&a, "fuzz");
		av_add(&a, "%s:%s", v->scenario, v->variant);
		av_add(&a, "--engine");
		av_add(&a, "%s", engine);
		av_add(&a, "--time");
		av_add(&a, "%g", B.quick ? 2.0 : 10.0);
		av_add(&a, "--seed");
		av_add(&a, "1");
		av_add(&a, "--out");
		av_add(&a, "%s/fuzz/%s-%s-%s-throughput", B.out, v->scenario, v->variant, engine);
		av_add(&a, "--json");
	}
	run_child(a.v, (B.quick ? 2.0 : 10.0) * 3 + 60, true, &c);
	struct jnode *n = child_json(&c);
	if (n && n->t == J_OBJ && (c.status == 0 || c.status == 1)) {
		execs = jnum(n, "executions", -1);
		secs = jnum(n, "seconds", -1);
		double td = jnum(n, "total_decisions", -1);
		if (td >= 0 && secs > 0)
			decs = td / secs;
		steps = jnum(n, "total_steps", -1);
		if (jstr(n, "verdict") && !strcmp(jstr(n, "verdict"), "bug"))
			snprintf(why, sizeof(why), "stopped at a report (a fixed variant should be clean)");
	} else {
		child_why(&c, why, sizeof(why));
	}
	jfree(n);
	child_free(&c);
out:;
	double rate = execs >= 0 && secs > 0 ? execs / secs : -1;
	if (!strcmp(engine, "random") && !strncmp(v->scenario, "z1-", 3) && rate > T.z1_exec_per_s) {
		T.z1_exec_per_s = rate;
		snprintf(T.z1_target, sizeof(T.z1_target), "%s:%s", v->scenario, v->variant);
	}
	char b5[32], b6[32];
	fprintf(md, "| %s:%s | %s | %s | %s | %s | %s | %s | %s | %s%s |\n", v->scenario, v->variant,
		engine, fmt_si(b1, 32, execs), fmt_num(b2, 32, secs, 2), fmt_si(b3, 32, rate),
		fmt_si(b4, 32, decs), fmt_num(b5, 32, steps > 0 ? steps / execs : -1, 0),
		fmt_num(b6, 32, steps > 0 ? secs * 1e9 / steps : -1, 0),
		why[0] && rate < 0 ? "not measured: " : "", why);
	js_sep();
	fprintf(js, "{");
	js_kstr("scenario", v->scenario, true);
	js_kstr("variant", v->variant, true);
	js_kstr("engine", engine, true);
	js_num("executions", execs, true);
	js_num("seconds", secs, true);
	js_num("exec_per_s", rate, true);
	js_num("decisions_per_s", decs, true);
	js_num("steps_per_execution", steps > 0 ? steps / execs : -1, true);
	js_kstr("note", why[0] ? why : NULL, false);
	fprintf(js, "}");
}

static void section_throughput(void)
{
	static const char *const engines[] = { "random", "libfuzzer", "afl" };
	unsigned nscen = 0;

	fprintf(md, "## Throughput per target (first fixed variant of each scenario)\n\n");
	fprintf(md, "| target | engine | executions | seconds | exec/s | decisions/s | steps/exec "
		    "| ns/step | note |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n");
	js_section("throughput");
	for (unsigned i = 0; i < nr_vars; i++) {
		if (vars[i].buggy || !selected(&vars[i]))
			continue;
		bool first = true;
		for (unsigned k = 0; k < i; k++)
			if (!vars[k].buggy && !strcmp(vars[k].scenario, vars[i].scenario))
				first = false;
		if (!first)
			continue;
		for (unsigned e = 0; e < 3; e++)
			throughput_row(&vars[i], engines[e],
				       B.quick && e && nscen ? "--quick measures the engines on the "
							       "first scenario only" : NULL);
		nscen++;
	}
	js_end_section();
	fprintf(md, "\n");
}

/* ---------------------------------------------------- time to bug */


struct bstrategy {
	const char *name;
	enum skind kind;
	const char *arg;      /* run: strategy; fuzz: engine */
	unsigned param;       /* pct depth, dfs bound, fuzz: 1 = --no-feedback */
};

static const struct bstrategy strategies[] = {
	{ "libfuzzer", S_FUZZ, "libfuzzer", 0 },
	{ "libfuzzer-nofeedback", S_FUZZ, "libfuzzer", 1 },
	{ "afl", S_FUZZ, "afl", 0 },
	{ "random", S_RUN, "random", 0 },
	{ "pct-d2", S_RUN, "pct", 2 },
	{ "pct-d3", S_RUN, "pct", 3 },
	{ "dfs-b1", S_DFS, NULL, 1 },
	{ "dfs-b2", S_DFS, NULL, 2 },
	{ "stress", S_STRESS, NULL, 0 },
};
#define NR_STRATEGIES (sizeof(strategies) / sizeof(strategies[0]))

struct ttb {
	unsigned runs, found;
	double med_s, min_s, max_s, med_e, min_e, max_e;
	double cap;              /* seconds or executions, per run */
	bool cap_is_execs;
	char note[600];
	/* dfs */
	double dfs_total, dfs_secs, dfs_other;
	bool dfs_complete;
	/* reports of other kinds than the variant's: not counted as found */
	unsigned other[WEFT_KIND__COUNT];
};

/* Count a report of kind name that is not the row's kind. */
static void count_other(struct ttb *t, const char *name, unsigned n)
{
	enum weft_kind k = name ? weft_kind_from_name(name) : WEFT_KIND_NONE;

	t->other[k] += n;
}

/* "bad-free ×27, list-corruption ×12" (empty: none). */
static void other_text(const struct ttb *t, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned k = 0; k < WEFT_KIND__COUNT && o < n; k++)
		if (t->other[k])
			o += (size_t)snprintf(buf + o, n - o, "%s%s ×%u", o ? ", " : "",
					      k ? weft_kind_name((enum weft_kind)k) : "unnamed",
					      t->other[k]);
}

/* Per buggy variant and strategy, for the headline and the targets. */
static struct ttb results[MAX_VARIANTS][NR_STRATEGIES];

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Censored median: misses are +inf. */
static double cmedian(double *v, unsigned n)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), cmp_d);
	double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return isfinite(m) ? m : -1;
}

static void ttb_seed_run(const struct bvariant *v, const struct bstrategy *s, unsigned seed,
			 struct ttb *t, double *secs, double *execs)
{
	struct argv_buf a;
	struct child c;
	char spec[140];
	double timeout;

	*secs = *execs = INFINITY;
	snprintf(spec, sizeof(spec), "%s:%s", v->scenario, v->variant);
	av_init(&a, bench_self);
	switch (s->kind) {
	case S_RUN:
		av_add(&a, "run");
		av_add(&a, "%s", spec);
		av_add(&a, "--strategy");
		av_add(&a, "%s", s->arg);
		if (s->param) {
			av_add(&a, "--depth");
			av_add(&a, "%u", s->param);
		}
		av_add(&a, "--seed");
		av_add(&a, "%u", seed);
		av_add(&a, "--iterations");
		av_add(&a, "%" PRIu64, B.run_cap);
		if (v->kind[0]) {
			/* only the variant's bug ends the run: others are counted */
			av_add(&a, "--kind");
			av_add(&a, "%s", v->kind);
		}
		av_add(&a, "--quiet");
		av_add(&a, "--json");
		t->cap = (double)B.run_cap;
		t->cap_is_execs = true;
		timeout = B.quick ? 60 : 600;
		break;
	case S_FUZZ:
		av_add(&a, "fuzz");
		av_add(&a, "%s", spec);
		av_add(&a, "--engine");
		av_add(&a, "%s", s->arg);
		av_add(&a, "--time");
		av_add(&a, "%.0f", B.fuzz_cap);
		av_add(&a, "--seed");
		av_add(&a, "%u", seed);
		if (s->param)
			av_add(&a, "--no-feedback");
		/* a fresh work directory per run: no corpus carried across seeds */
		av_add(&a, "--out");
		av_add(&a, "%s/fuzz/%s-%s-%s-s%u", B.out, v->scenario, v->variant, s->name, seed);
		av_add(&a, "--json");
		t->cap = B.fuzz_cap;
		timeout = B.fuzz_cap * 2 + 60;
		break;
	case S_STRESS:
	default:
		av_add(&a, "stress");
		av_add(&a, "%s", spec);
		av_add(&a, "--time");
		av_add(&a, "%g", B.stress_cap);
		av_add(&a, "--seed");
		av_add(&a, "%u", seed);
		av_add(&a, "--stop-first");
		av_add(&a, "--json");
		t->cap = B.stress_cap;
		timeout = B.stress_cap * 2 + 30;
		break;
	}
	run_child(a.v, timeout, s->kind != S_STRESS, &c);
	struct jnode *n = child_json(&c);
	if (!n || n->t != J_OBJ || (c.status != 0 && c.status != 1)) {
		if (!t->note[0])
			child_why(&c, t->note, sizeof(t->note));
		goto done;
	}
	t->runs++;
	/* a report counts only if it is the variant's kind; another kind is
	 * a miss of this seed, and the row lists it */
	const char *kind = jstr(n, "kind");
	bool ours = !v->kind[0] || (kind && !strcmp(kind, v->kind));
	if (s->kind == S_STRESS) {
		if (jnum(n, "manifestations", 0) > 0 && ours) {
			*secs = jnum(n, "first_seconds", INFINITY);
			*execs = jnum(n, "first_iteration", INFINITY);
			t->found++;
		} else if (jnum(n, "manifestations", 0) > 0) {
			count_other(t, kind, 1);
		}
	} else {
		const char *verdict = jstr(n, "verdict");
		if (verdict && !strcmp(verdict, "bug") && ours) {
			*secs = jnum(n, "seconds", INFINITY);
			*execs = jnum(n, "executions", INFINITY);
			t->found++;
		} else if (verdict && !strcmp(verdict, "bug")) {
			count_other(t, kind, 1);
		}
		/* weft run --kind skipped these on its way */
		for (const struct jnode *k = jget(n, "other_kinds") ? jget(n, "other_kinds")->kid
								  : NULL; k; k = k->next)
			if (k->t == J_NUM)
				count_other(t, k->key, (unsigned)k->num);
	}
done:
	jfree(n);
	child_free(&c);
}

static void ttb_dfs(const struct bvariant *v, const struct bstrategy *s, struct ttb *t)
{
	char path[PATH_MAX + 32];
	struct argv_buf a;
	struct child c;

	snprintf(path, sizeof(path), "%s/weft-microbench", bench_bindir);
	if (!file_executable(path)) {
		missing_program(t->note, sizeof(t->note), "weft-microbench");
		return;
	}
	av_init(&a, path);
	av_add(&a, "dfs");
	av_add(&a, "%s:%s", v->scenario, v->variant);
	av_add(&a, "--bound");
	av_add(&a, "%u", s->param);
	av_add(&a, "--max");
	av_add(&a, "%u", B.quick ? 200000u : 5000000u);
	if (v->kind[0]) {
		av_add(&a, "--kind");
		av_add(&a, "%s", v->kind);
	}
	run_child(a.v, B.quick ? 30 : 300, true, &c);
	struct jnode *n = child_json(&c);
	t->cap = B.quick ? 200000 : 5000000;
	t->cap_is_execs = true;
	if (!n || n->t != J_OBJ) {
		child_why(&c, t->note, sizeof(t->note));
	} else {
		t->runs = 1;
		t->dfs_total = jnum(n, "executions", -1);
		t->dfs_secs = jnum(n, "seconds", -1);
		const struct jnode *comp = jget(n, "complete");
		t->dfs_complete = comp && comp->t == J_BOOL && comp->b;
		t->dfs_other = jnum(n, "other_bugs", 0);
		double fe = jnum(n, "first_bug_execution", -1);
		if (fe > 0) {
			t->found = 1;
			t->med_e = t->min_e = t->max_e = fe;
			t->med_s = t->min_s = t->max_s = jnum(n, "first_bug_seconds", -1);
		}
		if (jnum(n, "workload_bytes", 0) == 0)
			snprintf(t->note, sizeof(t->note),
				 "no trigger workload in the registry: searches the empty workload");
	}
	jfree(n);
	child_free(&c);
}

static void ttb_row(unsigned vi, unsigned si)
{
	const struct bvariant *v = &vars[vi];
	const struct bstrategy *s = &strategies[si];
	struct ttb *t = &results[vi][si];
	double secs[64], execs[64];
	unsigned n = 0;

	memset(t, 0, sizeof(*t));
	t->med_s = t->min_s = t->max_s = t->med_e = t->min_e = t->max_e = -1;
	t->dfs_total = t->dfs_secs = -1;
	if (skip_row(s->kind, s->arg, s->param)) {
		snprintf(t->note, sizeof(t->note), "%s", skip_row(s->kind, s->arg, s->param));
	} else if (budget_spent()) {
		snprintf(t->note, sizeof(t->note), "time budget spent");
	} else if (s->kind == S_DFS) {
		ttb_dfs(v, s, t);
	} else {
		unsigned misses = 0;
		unsigned seeds = s->kind == S_RUN ? B.seeds : B.slow_seeds;
		for (unsigned seed = 1; seed <= seeds && n < 64; seed++) {
			if (budget_spent())
				break;
			ttb_seed_run(v, s, seed, t, &secs[n], &execs[n]);
			if (t->runs <= n)
				break;   /* the tool failed: the note says why */
			misses = isfinite(secs[n]) ? 0 : misses + 1;
			n++;
			/* Two misses in a row end the row (each miss costs the
			 * whole cap); the row says how many seeds ran and its
			 * median counts only those. */
			if (misses >= 2 && seed < seeds) {
				char capb[32];
				if (s->kind == S_RUN)
					fmt_si(capb, sizeof(capb), (double)B.run_cap);
				snprintf(t->note, sizeof(t->note),
					 "stopped after %u seeds: two in a row found nothing in %s%s",
					 n, s->kind == S_RUN ? capb : fmt_secs(capb, sizeof(capb),
					 s->kind == S_STRESS ? B.stress_cap : B.fuzz_cap),
					 s->kind == S_RUN ? " executions" : "");
				break;
			}
		}
		if (n) {
			t->min_s = t->min_e = INFINITY;
			t->max_s = t->max_e = 0;
			for (unsigned k = 0; k < n; k++) {
				if (!isfinite(secs[k]))
					continue;
				t->min_s = dmin(t->min_s, secs[k]);
				t->max_s = dmax(t->max_s, secs[k]);
				t->min_e = dmin(t->min_e, execs[k]);
				t->max_e = dmax(t->max_e, execs[k]);
			}
			if (!t->found)
				t->min_s = t->max_s = t->min_e = t->max_e = -1;
			t->med_s = cmedian(secs, n);
			t->med_e = cmedian(execs, n);
		}
	}

	char b[8][32], found[48], capb[32];
	if (s->kind == S_DFS)
		snprintf(found, sizeof(found), "%s", t->runs ? (t->found ? "yes" : "no") : "-");
	else
		snprintf(found, sizeof(found), "%u/%u", t->found, t->runs);
	if (t->cap_is_execs)
		fmt_si(capb, 32, t->cap);
	else
		fmt_secs(capb, 32, t->cap);
	/* the note: what dfs covered, why a row is short, what else was
	 * reported (and not counted) */
	char note[1200] = "", others[300];
	size_t o = 0;
	other_text(t, others, sizeof(others));
	if (s->kind == S_DFS && t->runs)
		o += (size_t)snprintf(note + o, sizeof(note) - o, "%s executions, %s, %s",
				      fmt_si(b[6], 32, t->dfs_total),
				      t->dfs_complete ? "complete" : "NOT complete",
				      fmt_secs(b[7], 32, t->dfs_secs));
	if (t->note[0])
		o += (size_t)snprintf(note + o, sizeof(note) - o, "%s%s%s", o ? "; " : "",
				      t->runs ? "" : "not measured: ", t->note);
	else if (s->kind != S_DFS && t->runs && !t->found)
		o += (size_t)snprintf(note + o, sizeof(note) - o, "%snot found in %u × %s",
				      o ? "; " : "", t->runs, capb);
	if (others[0] && o < sizeof(note))
		o += (size_t)snprintf(note + o, sizeof(note) - o,
				      "%sother kinds, not counted: %s", o ? "; " : "", others);
	if (t->dfs_other > 0 && o < sizeof(note))
		snprintf(note + o, sizeof(note) - o, "%s%.0f executions ended in other kinds, not "
			 "counted", o ? "; " : "", t->dfs_other);
	fprintf(md, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		v->zoo[0] ? v->zoo : "-", v->variant, s->name, v->kind[0] ? v->kind : "any",
		found, t->runs && t->found && t->med_s < 0 ? "not found" :
		fmt_secs(b[0], 32, t->med_s), fmt_secs(b[1], 32, t->min_s), fmt_secs(b[2], 32, t->max_s),
		fmt_si(b[3], 32, t->med_e), fmt_si(b[4], 32, t->min_e), fmt_si(b[5], 32, t->max_e),
		t->cap > 0 ? capb : "-", note);

	js_sep();
	fprintf(js, "{");
	js_kstr("scenario", v->scenario, true);
	js_kstr("variant", v->variant, true);
	js_kstr("zoo", v->zoo[0] ? v->zoo : NULL, true);
	js_kstr("strategy", s->name, true);
	js_kstr("kind", v->kind[0] ? v->kind : NULL, true);
	fprintf(js, "\"seeds\": %u, \"found\": %u, \"other_kinds\": {", t->runs, t->found);
	for (unsigned k = 0, first = 1; k < WEFT_KIND__COUNT; k++)
		if (t->other[k]) {
			fprintf(js, "%s\"%s\": %u", first ? "" : ", ",
				k ? weft_kind_name((enum weft_kind)k) : "unnamed", t->other[k]);
			first = 0;
		}
	fprintf(js, "}, ");
	js_num("median_seconds", t->med_s, true);
	js_num("min_seconds", t->min_s, true);
	js_num("max_seconds", t->max_s, true);
	js_num("median_executions", t->med_e, true);
	js_num("min_executions", t->min_e, true);
	js_num("max_executions", t->max_e, true);
	fprintf(js, "\"cap\": %.6g, \"cap_unit\": \"%s\", ", t->cap,
		t->cap_is_execs ? "executions" : "seconds");
	if (s->kind == S_DFS) {
		js_num("executions_to_completion", t->dfs_complete ? t->dfs_total : -1, true);
		js_num("executions_run", t->dfs_total, true);
		fprintf(js, "\"complete\": %s, ", t->dfs_complete ? "true" : "false");
		js_num("other_kind_executions", t->dfs_other, true);
	}
	js_kstr(t->runs ? "note" : "not_measured", t->note[0] ? t->note : NULL, false);
	fprintf(js, "}");
	fflush(md);
}

static void section_ttb(void)
{
	fprintf(md, "## Time to bug (%u seeds per row; %s)\n\n", B.seeds,
		"medians count a miss as +∞, min/max are over the seeds that found it");
	fprintf(md, "A seed counts as found only when the report is the variant's own kind "
		    "(`weft list`, column kind); `weft run` rows search on past other kinds "
		    "(`--kind`), engine and stress rows stop at the first report, so another kind "
		    "is a miss there. The note lists the other kinds seen.\n\n");
	fprintf(md, "| zoo | variant | strategy | kind | found | median | min | max | median exec | "
		    "min exec | max exec | cap/run | note |\n"
		    "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
	js_section("time_to_bug");
	for (unsigned i = 0; i < nr_vars; i++) {
		if (!vars[i].buggy || !selected(&vars[i]))
			continue;
		for (unsigned s = 0; s < NR_STRATEGIES; s++)
			ttb_row(i, s);
	}
	js_end_section();
	fprintf(md, "\ndfs rows: executions to the first bug in the median column; the note "
		    "gives the executions to complete the bounded space (the search goes on past "
		    "the bug) and whether it was covered completely.\n\n");
}

static int strategy_index(const char *name)
{
	for (unsigned s = 0; s < NR_STRATEGIES; s++)
		if (!strcmp(strategies[s].name, name))
			return (int)s;
	return -1;
}

/* The headline: stress time to bug / Weft's, for Weft's default (weft
 * fuzz, libFuzzer, feedback) and for in-process random. A stress row that
 * never found the bug gives a lower bound (its cap / Weft's median). */
static void ratio_cell(char *buf, size_t n, const struct ttb *w, const struct ttb *s,
		       double *ratio, double *lower)
{
	*ratio = *lower = -1;
	if (w->med_s > 0 && s->med_s > 0) {
		*ratio = s->med_s / w->med_s;
		snprintf(buf, n, *ratio >= 10 ? "**%.0f×**" : "**%.2f×**", *ratio);
	} else if (w->med_s > 0 && s->runs && !s->found) {
		*lower = s->cap / w->med_s;
		snprintf(buf, n, "> %.0f× (not found in %u × %g s)", *lower, s->runs, s->cap);
	} else {
		snprintf(buf, n, "-");
	}
}

static void section_headline(void)
{
	int st = strategy_index("stress"), lf = strategy_index("libfuzzer"),
	    rnd = strategy_index("random");
	char b1[32], b2[32], b3[32], c1[96], c2[96];

	fprintf(md, "## Headline: stress test time to bug / Weft's (medians)\n\n");
	fprintf(md, "| zoo | variant | stress median | stress found | weft fuzz (libFuzzer) median "
		    "| stress / weft fuzz | random median | stress / random |\n"
		    "|---|---|---:|---|---:|---:|---:|---:|\n");
	js_section("headline");
	for (unsigned i = 0; i < nr_vars; i++) {
		if (!vars[i].buggy || !selected(&vars[i]))
			continue;
		const struct ttb *w = &results[i][lf], *r = &results[i][rnd], *s = &results[i][st];
		double rw, lw, rr, lr;
		ratio_cell(c1, sizeof(c1), w, s, &rw, &lw);
		ratio_cell(c2, sizeof(c2), r, s, &rr, &lr);
		fprintf(md, "| %s | %s | %s | %u/%u | %s | %s | %s | %s |\n",
			vars[i].zoo[0] ? vars[i].zoo : "-", vars[i].variant,
			fmt_secs(b1, 32, s->med_s), s->found, s->runs, fmt_secs(b2, 32, w->med_s), c1,
			fmt_secs(b3, 32, r->med_s), c2);
		js_sep();
		fprintf(js, "{");
		js_kstr("scenario", vars[i].scenario, true);
		js_kstr("variant", vars[i].variant, true);
		js_kstr("zoo", vars[i].zoo[0] ? vars[i].zoo : NULL, true);
		js_num("stress_median_seconds", s->med_s, true);
		fprintf(js, "\"stress_found\": %u, \"stress_seeds\": %u, ", s->found, s->runs);
		js_num("stress_cap_seconds", s->cap, true);
		js_num("weft_fuzz_median_seconds", w->med_s, true);
		js_num("random_median_seconds", r->med_s, true);
		js_num("ratio_stress_fuzz", rw, true);
		js_num("ratio_stress_fuzz_lower_bound", lw, true);
		js_num("ratio_stress_random", rr, true);
		js_num("ratio_stress_random_lower_bound", lr, false);
		fprintf(js, "}");
	}
	js_end_section();
	fprintf(md, "\n");
}

/* -------------------------------------------------------- silence */

/*
 * A silence row says what it covered: the workload (dfs: the fixed one it
 * searched, which must not be empty; random and pct: a generated one per
 * execution; the engines: the fuzzer's; stress: a random one per
 * iteration). An empty workload certifies nothing and is refused.
 */
static void silence_row(const struct bvariant *v, const struct bstrategy *s)
{
	struct argv_buf a;
	struct child c;
	char why[600] = "", budget[64] = "", workload[160] = "-";
	double reports = -1, execs = -1;

	if (skip_row(s->kind, s->arg, s->param)) {
		snprintf(why, sizeof(why), "%s", skip_row(s->kind, s->arg, s->param));
		goto out;
	}
	if (budget_spent()) {
		snprintf(why, sizeof(why), "time budget spent");
		goto out;
	}
	av_init(&a, bench_self);
	if (s->kind == S_DFS || s->kind == S_RUN) {
		av_add(&a, "run");
		av_add(&a, "%s:%s", v->scenario, v->variant);
		av_add(&a, "--strategy");
		av_add(&a, "%s", s->kind == S_DFS ? "dfs" : s->arg);
		if (s->param) {
			av_add(&a, "%s", s->kind == S_DFS ? "--bound" : "--depth");
			av_add(&a, "%u", s->param);
		}
		av_add(&a, "--iterations");
		av_add(&a, "%" PRIu64, B.silence_iters);
		av_add(&a, "--quiet");
		av_add(&a, "--json");
		snprintf(budget, sizeof(budget), "%" PRIu64 " exec", B.silence_iters);
		if (s->kind == S_RUN)
			snprintf(workload, sizeof(workload), "generated per execution");
	} else if (s->kind == S_FUZZ) {
		av_add(&a, "fuzz");
		av_add(&a, "%s:%s", v->scenario, v->variant);
		av_add(&a, "--engine");
		av_add(&a, "%s", s->arg);
		/* weft fuzz takes whole seconds, at least 1 */
		double fsecs = B.silence_secs < 1 ? 1 : (double)(long)B.silence_secs;
		av_add(&a, "--time");
		av_add(&a, "%.0f", fsecs);
		av_add(&a, "--seed");
		av_add(&a, "1");
		if (s->param)
			av_add(&a, "--no-feedback");
		av_add(&a, "--out");
		av_add(&a, "%s/fuzz/%s-%s-%s-silence", B.out, v->scenario, v->variant, s->name);
		av_add(&a, "--json");
		snprintf(budget, sizeof(budget), "%.0f s", fsecs);
		snprintf(workload, sizeof(workload), "chosen by the fuzzer (from its corpus)");
	} else {
		av_add(&a, "stress");
		av_add(&a, "%s:%s", v->scenario, v->variant);
		av_add(&a, "--time");
		av_add(&a, "%g", B.silence_secs);
		av_add(&a, "--json");
		snprintf(budget, sizeof(budget), "%g s", B.silence_secs);
		snprintf(workload, sizeof(workload), "random per iteration");
	}
	run_child(a.v, B.silence_secs * 3 + 120, s->kind != S_STRESS, &c);
	struct jnode *n = child_json(&c);
	if (!n || n->t != J_OBJ || (c.status != 0 && c.status != 1)) {
		child_why(&c, why, sizeof(why));
	} else if (s->kind == S_STRESS) {
		reports = jnum(n, "manifestations", -1);
		execs = jnum(n, "iterations", -1);
	} else {
		const char *verdict = jstr(n, "verdict"), *wl = jstr(n, "workload");
		reports = verdict && !strcmp(verdict, "bug") ? 1 : 0;
		execs = jnum(n, "executions", -1);
		if (s->kind == S_DFS) {
			const struct jnode *comp = jget(n, "complete");
			snprintf(workload, sizeof(workload), "%s (%.0f ops)",
				 wl && *wl ? wl : "empty", jnum(n, "workload_ops", 0));
			if (!wl || !*wl || jnum(n, "workload_ops", 0) == 0) {
				/* a certificate of nothing is no row */
				reports = -1;
				snprintf(why, sizeof(why), "refused: dfs would search the empty "
					 "workload (the scenario declares no trigger), which "
					 "certifies nothing");
			} else if (comp && comp->t == J_BOOL && comp->b) {
				snprintf(why, sizeof(why), "bounded space covered completely");
			} else if (reports == 0) {
				snprintf(why, sizeof(why), "bounded space NOT covered: the budget "
					 "cut the search");
			}
		}
	}
	jfree(n);
	child_free(&c);
out:;
	char b1[32];
	fprintf(md, "| %s:%s | %s | %s | %s | %s | %s | %s%s |\n", v->scenario, v->variant,
		s->name, workload, reports < 0 ? "-" : budget, fmt_si(b1, 32, execs),
		reports < 0 ? "-" : reports == 0 ? "0" : "**REPORTED**",
		why[0] && reports < 0 ? "not measured: " : "", why);
	js_sep();
	fprintf(js, "{");
	js_kstr("scenario", v->scenario, true);
	js_kstr("variant", v->variant, true);
	js_kstr("strategy", s->name, true);
	js_kstr("workload", workload, true);
	js_num("executions", execs, true);
	fprintf(js, "\"reports\": ");
	if (reports >= 0)
		fprintf(js, "%.0f, ", reports);
	else
		fprintf(js, "null, ");
	js_kstr(reports < 0 ? "not_measured" : "note", why[0] ? why : NULL, false);
	fprintf(js, "}");
	fflush(md);
}

static void section_silence(void)
{
	fprintf(md, "## Silence: fixed variants (reports must be 0)\n\n");
	fprintf(md, "Each row names the workload it covered; dfs searches a fixed one (the "
		    "variant's trigger, or the one that breaks a buggy variant of its scenario) "
		    "and refuses the empty workload.\n\n");
	fprintf(md, "| target | strategy | workload | budget | executions | reports | note |\n"
		    "|---|---|---|---|---:|---:|---|\n");
	js_section("silence");
	for (unsigned i = 0; i < nr_vars; i++) {
		if (vars[i].buggy || !selected(&vars[i]))
			continue;
		for (unsigned s = 0; s < NR_STRATEGIES; s++) {
			/* one dfs bound (2) and one fuzz form per engine is enough */
			if (!strcmp(strategies[s].name, "dfs-b1") ||
			    !strcmp(strategies[s].name, "libfuzzer-nofeedback"))
				continue;
			silence_row(&vars[i], &strategies[s]);
		}
	}
	js_end_section();
	fprintf(md, "\n");
}

/* --------------------------------------------------- minimization */

/*
 * An input to minimize: the first finding, over random then pct d=3 then
 * pct d=2 and seeds 1..5, that has a bytes reproducer (`weft run` prints an
 * empty "input" when the schedule needs more than WEFT_MAX_ENTRIES entries,
 * as random's many preemptions often do). src names where it came from.
 */
static bool finding_input(const struct bvariant *v, char *hex, size_t n, char *src, size_t sn)
{
	static const struct {
		const char *strategy;
		unsigned depth;
	} from[] = { { "random", 0 }, { "pct", 3 }, { "pct", 2 } };
	bool ok = false;

	for (unsigned k = 0; k < 3 && !ok; k++) {
		for (unsigned seed = 1; seed <= 5 && !ok && !budget_spent(); seed++) {
			struct argv_buf a;
			struct child c;
			av_init(&a, bench_self);
			av_add(&a, "run");
			av_add(&a, "%s:%s", v->scenario, v->variant);
			av_add(&a, "--strategy");
			av_add(&a, "%s", from[k].strategy);
			if (from[k].depth) {
				av_add(&a, "--depth");
				av_add(&a, "%u", from[k].depth);
			}
			av_add(&a, "--seed");
			av_add(&a, "%u", seed);
			av_add(&a, "--iterations");
			av_add(&a, "%u", B.quick ? 2000u : 20000u);
			if (v->kind[0]) {
				av_add(&a, "--kind");
				av_add(&a, "%s", v->kind);
			}
			av_add(&a, "--quiet");
			av_add(&a, "--json");
			run_child(a.v, 120, true, &c);
			struct jnode *j = child_json(&c);
			/* a clean run reports its last execution's input too */
			const char *in = jstr(j, "input"), *verdict = jstr(j, "verdict");
			if (in && *in && strlen(in) < n && verdict && !strcmp(verdict, "bug")) {
				snprintf(hex, n, "%s", in);
				if (from[k].depth)
					snprintf(src, sn, "pct-d%u seed %u", from[k].depth, seed);
				else
					snprintf(src, sn, "random seed %u", seed);
				ok = true;
			}
			jfree(j);
			child_free(&c);
		}
	}
	return ok;
}

static void min_field(const struct jnode *o, const char *key, char *buf, size_t n)
{
	const struct jnode *k = jget(o, key);

	if (k && k->t == J_NUM)
		snprintf(buf, n, "%.0f", k->num);
	else
		snprintf(buf, n, "-");
}

static void section_min(void)
{
	/* weft min --json (tools/cmd_import.c): before/after {preemptions, ops,
	 * steps, bytes, threads}, executions, seconds */
	static const char *const fields[] = { "preemptions", "ops", "steps", "bytes" };

	fprintf(md, "## Minimization (weft min on a finding of random or pct)\n\n");
	fprintf(md, "| variant | input from | preemptions | operations | steps | bytes | executions "
		    "| seconds | note |\n|---|---|---|---|---|---|---:|---:|---|\n");
	js_section("minimization");
	for (unsigned i = 0; i < nr_vars; i++) {
		const struct bvariant *v = &vars[i];
		char why[600] = "", hex[2048], path[PATH_MAX + 64], src[48] = "";
		struct jnode *n = NULL;
		struct child c = { .status = -1 };

		if (!v->buggy || !selected(v))
			continue;
		if (!B.have_min) {
			snprintf(why, sizeof(why), "this weft has no `min` subcommand yet");
		} else if (budget_spent()) {
			snprintf(why, sizeof(why), "time budget spent");
		} else if (!finding_input(v, hex, sizeof(hex), src, sizeof(src))) {
			snprintf(why, sizeof(why), "no finding with a bytes reproducer from random, "
				 "pct d=3, pct d=2 (seeds 1..5, %u executions each)",
				 B.quick ? 2000u : 20000u);
		} else {
			/* the raw bytes input, as a fuzzer would have saved it */
			uint8_t raw[1024];
			long len = cli_hex_decode(hex, raw, sizeof(raw));
			snprintf(path, sizeof(path), "%s/min-%s-%s.input", B.out, v->scenario,
				 v->variant);
			FILE *f = len >= 0 ? fopen(path, "wb") : NULL;
			if (!f || fwrite(raw, 1, (size_t)len, f) != (size_t)len) {
				snprintf(why, sizeof(why), "cannot write the input file: %s",
					 strerror(errno));
			} else {
				struct argv_buf a;
				fclose(f);
				f = NULL;
				av_init(&a, bench_self);
				av_add(&a, "min");
				av_add(&a, "%s", path);
				av_add(&a, "--target");
				av_add(&a, "%s:%s", v->scenario, v->variant);
				av_add(&a, "--out");
				av_add(&a, "%s/min", B.out);
				av_add(&a, "--json");
				run_child(a.v, B.quick ? 30 : 300, true, &c);
				n = child_json(&c);
				if (!n || n->t != J_OBJ || c.status > 1)
					child_why(&c, why, sizeof(why));
			}
			if (f)
				fclose(f);
		}
		const struct jnode *before = jget(n, "before"), *after = jget(n, "after");
		char cell[4][64];
		for (unsigned k = 0; k < 4; k++) {
			char x[24], y[24];
			min_field(before, fields[k], x, sizeof(x));
			min_field(after, fields[k], y, sizeof(y));
			snprintf(cell[k], sizeof(cell[k]), "%s → %s", x, y);
		}
		double secs = n ? jnum(n, "seconds", c.seconds) : -1;
		char b1[32], b2[32];
		double mexecs = jnum(n, "executions", -1);
		fprintf(md, "| %s:%s | %s | %s | %s | %s | %s | %s | %s | %s%s |\n", v->scenario,
			v->variant, src[0] ? src : "-", cell[0], cell[1], cell[2], cell[3],
			fmt_si(b2, 32, mexecs),
			fmt_num(b1, 32, n ? secs : -1, 3), why[0] ? "not measured: " : "", why);
		js_sep();
		fprintf(js, "{");
		js_kstr("scenario", v->scenario, true);
		js_kstr("variant", v->variant, true);
		js_kstr("zoo", v->zoo[0] ? v->zoo : NULL, true);
		js_kstr("input_from", src[0] ? src : NULL, true);
		for (unsigned k = 0; k < 4; k++) {
			char kb[32], ka[32];
			snprintf(kb, sizeof(kb), "%s_before", fields[k]);
			snprintf(ka, sizeof(ka), "%s_after", fields[k]);
			js_num(kb, jnum(before, fields[k], -1), true);
			js_num(ka, jnum(after, fields[k], -1), true);
		}
		js_num("executions", mexecs, true);
		js_num("seconds", n ? secs : -1, true);
		js_kstr("not_measured", why[0] ? why : NULL, false);
		fprintf(js, "}");
		jfree(n);
		child_free(&c);
	}
	js_end_section();
	fprintf(md, "\n");
}

/* --------------------------------------------------------- memory */

static void section_memory(void)
{
	uint64_t big = B.quick ? 1000000 : 10000000, small = big / 10;
	const char *target = "demo-counter:atomic";

	fprintf(md, "## Memory: peak RSS of `weft run %s --strategy random` (wait4 ru_maxrss)\n\n",
		target);
	fprintf(md, "| executions | seconds | peak RSS |\n|---:|---:|---:|\n");
	js_section("memory");
	uint64_t ns[2] = { small, big };
	for (unsigned i = 0; i < 2; i++) {
		struct argv_buf a;
		struct child c;
		char why[600] = "", b1[32];
		if (budget_spent()) {
			snprintf(why, sizeof(why), "time budget spent");
			c.status = -1;
			c.seconds = -1;
			c.maxrss_kib = -1;
			c.out = NULL;
		} else {
			av_init(&a, bench_self);
			av_add(&a, "run");
			av_add(&a, "%s", target);
			av_add(&a, "--iterations");
			av_add(&a, "%" PRIu64, ns[i]);
			av_add(&a, "--quiet");
			av_add(&a, "--json");
			run_child(a.v, 900, true, &c);
			if (c.status != 0) {
				child_why(&c, why, sizeof(why));
				c.maxrss_kib = -1;
			}
		}
		child_free(&c);
		if (i == 0) {
			T.rss_small = (double)c.maxrss_kib;
			T.rss_small_n = ns[i];
		} else {
			T.rss_big = (double)c.maxrss_kib;
			T.rss_big_n = ns[i];
		}
		char b2[32];
		if (why[0])
			fprintf(md, "| %s | - | not measured: %s |\n", fmt_si(b1, 32, (double)ns[i]),
				why);
		else
			fprintf(md, "| %s | %s | %ld KiB |\n", fmt_si(b1, 32, (double)ns[i]),
				fmt_num(b2, 32, c.seconds, 2), c.maxrss_kib);
		js_sep();
		fprintf(js, "{\"target\": \"%s\", \"executions\": %" PRIu64 ", ", target, ns[i]);
		js_num("seconds", why[0] ? -1 : c.seconds, true);
		js_num("maxrss_kib", (double)c.maxrss_kib, true);
		js_kstr("not_measured", why[0] ? why : NULL, false);
		fprintf(js, "}");
	}
	js_end_section();
	fprintf(md, "\n");
}

/* -------------------------------------------------------- targets */

static void target_row(const char *name, const char *measured, int ok, const char *note)
{
	fprintf(md, "| %s | %s | %s | %s |\n", name, measured,
		ok < 0 ? "not measured" : ok ? "met" : "**missed**", note ? note : "");
	js_sep();
	fprintf(js, "{");
	js_kstr("target", name, true);
	js_kstr("measured", measured, true);
	js_kstr("status", ok < 0 ? "not measured" : ok ? "met" : "missed", true);
	js_kstr("note", note, false);
	fprintf(js, "}");
}

static void section_targets(void)
{
	char m[256], note[256];
	int lf = strategy_index("libfuzzer"), st = strategy_index("stress"),
	    p2 = strategy_index("pct-d2"), p3 = strategy_index("pct-d3");

	fprintf(md, "## Targets\n\n| target | measured | status | note |\n|---|---|---|---|\n");
	js_section("targets");

	snprintf(m, sizeof(m), "%.2f ns", T.sw_api);
	target_row("context switch <= 15 ns (x86-64)", T.sw_api > 0 ? m : "-",
		   T.sw_api > 0 ? T.sw_api <= 15 : -1, NULL);
	snprintf(m, sizeof(m), "%.2f× (%.2f / %.2f ns)", T.sw_api / T.sw_bare, T.sw_api, T.sw_bare);
	target_row("switch <= 1.5× a bare asm switch", T.sw_bare > 0 ? m : "-",
		   T.sw_bare > 0 ? T.sw_api <= 1.5 * T.sw_bare : -1, NULL);
	snprintf(m, sizeof(m), "%.1f M/s (%.0f ns per decision, all costs included)",
		 T.dec_per_s / 1e6, 1e9 / T.dec_per_s);
	target_row(">= 10 M scheduling decisions/s", T.dec_per_s > 0 ? m : "-",
		   T.dec_per_s > 0 ? T.dec_per_s >= 1e7 : -1,
		   "Shuttle: ~0.4 µs per scheduling event, measured elsewhere");
	snprintf(m, sizeof(m), "%.0f k exec/s (%s, random, in-process)", T.z1_exec_per_s / 1e3,
		 T.z1_target);
	target_row(">= 200 k exec/s on the Z1 target", T.z1_exec_per_s > 0 ? m : "-",
		   T.z1_exec_per_s > 0 ? T.z1_exec_per_s >= 2e5 : -1,
		   T.z1_exec_per_s > 0 ? NULL : "no z1 scenario in this build");

	/* every buggy zoo variant: median time to bug <= 1 s, default weft fuzz */
	unsigned nz = 0, okz = 0, unk = 0;
	double worst = 0;
	char worst_v[64] = "";
	for (unsigned i = 0; i < nr_vars; i++) {
		if (!vars[i].buggy || !vars[i].zoo[0] || !selected(&vars[i]))
			continue;
		nz++;
		const struct ttb *t = &results[i][lf];
		if (!t->runs) {
			unk++;
			continue;
		}
		double v = t->med_s > 0 ? t->med_s : INFINITY;
		okz += v <= 1.0;
		if (v > worst) {
			worst = v;
			snprintf(worst_v, sizeof(worst_v), "%s", vars[i].variant);
		}
	}
	if (nz && !unk) {
		snprintf(m, sizeof(m), "%u/%u variants; slowest %s: %s", okz, nz, worst_v,
			 isfinite(worst) ? "" : "not found");
		if (isfinite(worst))
			snprintf(m + strlen(m), sizeof(m) - strlen(m), "%.3f s", worst);
	} else {
		snprintf(m, sizeof(m), "-");
	}
	target_row("buggy zoo variants: median time to bug <= 1 s (weft fuzz, libFuzzer, 1 core)",
		   m, nz && !unk ? okz == nz : -1,
		   !nz ? "no zoo variant in this build" : unk ? "weft fuzz not measured" : NULL);

	/* >= 1000x faster than stress on Z1a/Z1b */
	for (unsigned i = 0; i < nr_vars; i++) {
		if (!vars[i].buggy || !selected(&vars[i]) ||
		    (strcasecmp(vars[i].zoo, "Z1a") && strcasecmp(vars[i].zoo, "Z1b")))
			continue;
		const struct ttb *w = &results[i][lf], *s = &results[i][st];
		char name[96];
		snprintf(name, sizeof(name), ">= 1000× faster than stress on %s", vars[i].zoo);
		if (w->med_s > 0 && s->med_s > 0) {
			snprintf(m, sizeof(m), "%.0f×", s->med_s / w->med_s);
			target_row(name, m, s->med_s / w->med_s >= 1000, NULL);
		} else if (w->med_s > 0 && s->runs) {
			/* stress missed in half the runs or more: cap / weft is a
			 * lower bound of the ratio */
			double lower = s->cap / w->med_s;
			snprintf(m, sizeof(m), "> %.0f× (stress found it in %u/%u runs of %g s)",
				 lower, s->found, s->runs, s->cap);
			target_row(name, m, lower >= 1000 ? 1 : -1,
				   lower >= 1000 ? "lower bound" :
				   "only a lower bound below 1000×: a longer stress cap would tell");
		} else {
			target_row(name, "-", -1, "weft fuzz or stress not measured");
		}
	}

	/* feedback fuzzer: >= 2x fewer executions than pct, median over the zoo */
	double ratios[2][MAX_VARIANTS];
	unsigned nr[2] = { 0, 0 };
	for (unsigned i = 0; i < nr_vars; i++) {
		if (!vars[i].buggy || !vars[i].zoo[0] || !selected(&vars[i]))
			continue;
		const struct ttb *w = &results[i][lf];
		if (w->med_e <= 0)
			continue;
		int ps[2] = { p2, p3 };
		for (unsigned k = 0; k < 2; k++) {
			const struct ttb *p = &results[i][ps[k]];
			if (p->runs)
				ratios[k][nr[k]++] = p->med_e > 0 ? p->med_e / w->med_e : INFINITY;
		}
	}
	if (nr[0] && nr[1]) {
		double r2 = cmedian(ratios[0], nr[0]), r3 = cmedian(ratios[1], nr[1]);
		snprintf(m, sizeof(m), "pct d=2 / libfuzzer: %.2f×, pct d=3 / libfuzzer: %.2f×", r2,
			 r3);
		snprintf(note, sizeof(note), "median over %u zoo variants of the ratio of median "
					     "executions", nr[0]);
		target_row("fuzzer with feedback: >= 2× fewer executions than pct", m,
			   r2 >= 2 && r3 >= 2, note);
	} else {
		target_row("fuzzer with feedback: >= 2× fewer executions than pct", "-", -1,
			   "weft fuzz or zoo variants not measured");
	}

	if (T.rss_small > 0 && T.rss_big > 0) {
		snprintf(m, sizeof(m), "%.0f KiB at %" PRIu64 " vs %.0f KiB at %" PRIu64
			 " executions (%+.0f KiB)",
			 T.rss_small, T.rss_small_n, T.rss_big, T.rss_big_n, T.rss_big - T.rss_small);
		/* flat: within 5% or 512 KiB (allocator and page-cache noise) */
		bool flat = T.rss_big - T.rss_small <= dmax(512, 0.05 * T.rss_small);
		target_row("RSS flat over 10 M executions", m, flat,
			   B.quick ? "--quick: 1 M vs 100 k" : NULL);
	} else {
		target_row("RSS flat over 10 M executions", "-", -1, NULL);
	}
	js_end_section();
	fprintf(md, "\n");
}

/* ------------------------------------------------ docs/benchmarks.md */

/* the source tree this program was built from (fuzz/CMakeLists.txt, as
 * `weft fuzz` finds it; a weak symbol: empty when not recorded) */
extern const char weft_program_source_dir[] __attribute__((weak));
#define WEFT_SOURCE_DIR (weft_program_source_dir ? weft_program_source_dir : "")

#define HAND_MARK "<!-- hand-written: weft bench --markdown keeps everything below this line -->"

/* The first line of `git -C dir ARGS` (empty on failure). */
static void git_line(const char *dir, const char *args, char *buf, size_t n)
{
	char cmd[PATH_MAX + 200];
	FILE *p;

	buf[0] = 0;
	if (!*dir)
		return;
	snprintf(cmd, sizeof(cmd), "git -C '%s' %s 2>/dev/null", dir, args);
	p = popen(cmd, "r");
	if (!p)
		return;
	if (!fgets(buf, (int)n, p))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	pclose(p);
}

/* The hand-written tail of an existing page (from HAND_MARK on), or NULL. */
static char *hand_written(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *mark, *out = NULL;
	size_t cap = 0, len = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *t = realloc(buf, cap = cap * 2 + 8192);
			if (!t)
				break;
			buf = t;
		}
		size_t r = fread(buf + len, 1, 4096, f);
		len += r;
		if (!r)
			break;
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[len] = 0;
	mark = strstr(buf, HAND_MARK);
	if (mark)
		out = strdup(mark);
	free(buf);
	return out;
}

/*
 * docs/benchmarks.md from this run: nothing in it is typed by hand but the
 * section after HAND_MARK, which the generator keeps. The header names the
 * commit of this build's source tree (WEFT_SOURCE_DIR) and says whether it
 * had uncommitted changes, so every number traces to one run of one tree.
 */
static int write_markdown(const char *path, const char *tables, size_t len)
{
	char sha[64], subject[256], dirty[8], date[64], tmp[PATH_MAX + 16];
	char *hand = hand_written(path);
	time_t t = time(NULL);
	FILE *f;

	git_line(WEFT_SOURCE_DIR, "rev-parse HEAD", sha, sizeof(sha));
	git_line(WEFT_SOURCE_DIR, "log -1 --format=%s", subject, sizeof(subject));
	if (strlen(subject) > 100)
		strcpy(subject + 97, "...");
	git_line(WEFT_SOURCE_DIR, "status --porcelain --untracked-files=no", dirty,
		 sizeof(dirty));
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		free(hand);
		return cli_io_error("bench: cannot write %s: %s", tmp, strerror(errno));
	}
	fprintf(f, "# Benchmarks\n\n<!-- generated by `weft bench --markdown` (tools/cmd_bench.c) "
		   "from one run: regenerate, do not edit above the hand-written section -->\n\n");
	fprintf(f, "Every number above the hand-written section comes from one run of `%s`, "
		   "finished %s, ", B.cmdline, date);
	if (sha[0])
		fprintf(f, "on a build of commit `%s` (\"%s\")%s.\n\n", sha, subject,
			dirty[0] ? " **with uncommitted changes** in the source tree" : "");
	else
		fprintf(f, "on a build whose commit is unknown (no git checkout at `%s`).\n\n",
			*WEFT_SOURCE_DIR ? WEFT_SOURCE_DIR : "(not recorded)");
	fprintf(f, "Regenerate (about 40 minutes on 2 cores; `--quick` for a smoke run) from a "
		   "fresh build of the commit to describe:\n\n```\ncmake --build build && "
		   "build/bin/weft bench --out /tmp/wb --markdown docs/benchmarks.md\n```\n\n");
	/* the run's own page, one heading level down */
	const char *p = tables;
	if (!strncmp(p, "# ", 2)) {
		const char *nl = memchr(p, '\n', len);
		fprintf(f, "## Run: %.*s\n", nl ? (int)(nl - p - 2) : 0, p + 2);
		p = nl ? nl + 1 : p + len;
	}
	for (const char *e = tables + len; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);
		if (*p == '#')
			fputc('#', f);
		fwrite(p, 1, l, f);
		p += l;
	}
	fprintf(f, "\n%s", hand ? hand : HAND_MARK "\n");
	free(hand);
	if (fclose(f) || rename(tmp, path))
		return cli_io_error("bench: cannot write %s: %s", path, strerror(errno));
	fprintf(stderr, "weft bench: wrote %s (commit %s%s)\n", path, sha[0] ? sha : "unknown",
		dirty[0] ? ", uncommitted changes" : "");
	return 0;
}

/* ---------------------------------------------------------- main */

int cmd_bench(int argc, char **argv)
{
	bool seeds_set = false, stress_set = false, fuzz_set = false, budget_set = false;
	uint64_t u;
	double d;

	memset(&B, 0, sizeof(B));
	B.out = "weft-bench";
	size_t cl = (size_t)snprintf(B.cmdline, sizeof(B.cmdline), "weft");
	for (int i = 0; i < argc && cl < sizeof(B.cmdline); i++)
		cl += (size_t)snprintf(B.cmdline + cl, sizeof(B.cmdline) - cl, " %s", argv[i]);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--quick")) {
			B.quick = true;
		} else if (!strcmp(a, "--json")) {
			B.json = true;
		} else if (!strcmp(a, "--no-engines")) {
			B.no_engines = true;
		} else if (!strcmp(a, "--all")) {
			B.all = true;
		} else if (!strcmp(a, "--out") && v) {
			B.out = v;
			i++;
		} else if (!strcmp(a, "--sections") && v) {
			static const char *const known[] = { "core", "throughput", "memory", "min",
							     "ttb", "silence", "fuzz",
							     "fuzz-ablation" };
			char buf[128];
			copy_trunc(buf, sizeof(buf), v);
			for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
				bool ok = false;
				for (unsigned k = 0; k < 8; k++)
					ok |= !strcmp(tok, known[k]);
				if (!ok)
					return cli_usage_error("bench: unknown section '%s' (core, "
							       "throughput, memory, min, ttb, silence)",
							       tok);
			}
			B.sections = v;
			i++;
		} else if (!strcmp(a, "--markdown") && v) {
			B.markdown = v;
			i++;
		} else if (!strcmp(a, "--only") && v) {
			B.only = v;
			i++;
		} else if (!strcmp(a, "--seeds") && v) {
			if (!cli_parse_u64(v, &u) || !u || u > 64)
				return cli_usage_error("bench: --seeds takes 1..64");
			B.seeds = (unsigned)u;
			seeds_set = true;
			i++;
		} else if ((!strcmp(a, "--stress-cap") || !strcmp(a, "--fuzz-cap") ||
			    !strcmp(a, "--budget")) && v) {
			if (!cli_parse_double(v, &d) || d <= 0)
				return cli_usage_error("bench: %s takes positive seconds", a);
			if (!strcmp(a, "--stress-cap")) {
				B.stress_cap = d;
				stress_set = true;
			} else if (!strcmp(a, "--fuzz-cap")) {
				B.fuzz_cap = d;
				fuzz_set = true;
			} else {
				B.budget = d;
				budget_set = true;
			}
			i++;
		} else {
			return cli_usage_error("bench: unknown flag or missing value '%s' "
					       "(weft help bench)", a);
		}
	}
	if (!seeds_set)
		B.seeds = B.quick ? 3 : 10;
	if (!stress_set)
		B.stress_cap = B.quick ? 1 : 60;
	if (!fuzz_set)
		B.fuzz_cap = B.quick ? 1 : 20;
	if (!budget_set)
		B.budget = B.quick ? 90 : 0;
	/* weft fuzz --time takes whole seconds */
	B.fuzz_cap = B.fuzz_cap < 1 ? 1 : (double)(long)(B.fuzz_cap + 0.5);
	B.run_cap = B.quick ? 20000 : 200000;
	B.silence_iters = B.quick ? 2000 : 50000;
	B.silence_secs = B.quick ? 0.5 : 5;
	/* engines and stress cost seconds per run: --quick runs one seed */
	B.slow_seeds = B.quick ? 1 : B.seeds;

	ssize_t n = readlink("/proc/self/exe", bench_self, sizeof(bench_self) - 1);
	if (n <= 0)
		return cli_io_error("bench: cannot find my own path");
	bench_self[n] = 0;
	snprintf(bench_bindir, sizeof(bench_bindir), "%s", bench_self);
	char *slash = strrchr(bench_bindir, '/');
	if (slash)
		*slash = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	bench_cpu = idlest_cpu(cores);

	if (mkdir(B.out, 0777) && errno != EEXIST)
		return cli_io_error("bench: cannot create %s: %s", B.out, strerror(errno));
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/bench.log", B.out);
	bench_log = fopen(path, "w");
	if (!bench_log)
		return cli_io_error("bench: cannot write %s", path);

	signal(SIGINT, bench_on_signal);
	signal(SIGTERM, bench_on_signal);
	signal(SIGHUP, bench_on_signal);
	double t0 = bench_clock();
	if (B.budget > 0)
		bench_deadline = t0 + B.budget;
	char *md_buf = NULL, *js_buf = NULL;
	size_t md_len = 0, js_len = 0;
	md = open_memstream(&md_buf, &md_len);
	js = open_memstream(&js_buf, &js_len);
	if (!md || !js)
		return cli_io_error("bench: out of memory");
	if (load_variants())
		return cli_io_error("bench: `weft list --json` did not give a variant list");
	B.have_fuzz = have_command("fuzz");
	B.have_min = have_command("min");

	fprintf(stderr, "weft bench: writing %s/bench.md and %s/bench.json (log: %s)\n", B.out,
		B.out, path);
	section_machine();
	if (section_on("core")) {
		section_core();
		section_empty_libfuzzer();
	}
	/* cheap sections first: a --budget cut falls on the long tail of
	 * time-to-bug seeds and on silence, never on a whole section */
	if (section_on("throughput"))
		section_throughput();
	if (section_on("memory"))
		section_memory();
	if (section_on("min"))
		section_min();
	if (section_on("ttb")) {
		section_ttb();
		section_headline();
	}
	if (section_on("silence"))
		section_silence();
	if (section_on("fuzz") || (B.sections && section_on("fuzz-ablation"))) {
		/* tools/bench_fuzz.c: searchers side by side, issue 12's targets */
		struct bench_fuzz_opts fo = {
			.quick = B.quick, .no_engines = B.no_engines || !B.have_fuzz,
			.ablation = B.sections && section_on("fuzz-ablation"),
			.searchers = section_on("fuzz"), .seeds = B.seeds,
			.fuzz_cap = B.fuzz_cap, .run_cap = B.run_cap, .out = B.out,
			.only = B.only, .self = bench_self, .deadline = bench_deadline,
		};
		js_section("fuzz");
		bench_fuzz_section(md, js, &fo);
		js_end_section();
	}
	section_targets();
	double total = bench_clock() - t0;
	fprintf(md, "Whole bench: %.1f s%s.\n", total,
		budget_spent() ? " (time budget spent: rows marked \"time budget spent\" were "
				 "not run)" : "");
	fprintf(js, ",\n  \"seconds\": %.3f\n}\n", total);
	fclose(md);
	fclose(js);

	int rc = WEFT_EXIT_CLEAN;
	const struct {
		const char *name;
		const char *buf;
		size_t len;
	} files[2] = { { "bench.md", md_buf, md_len }, { "bench.json", js_buf, js_len } };
	for (unsigned i = 0; i < 2; i++) {
		char tmp[PATH_MAX + 16];
		snprintf(path, sizeof(path), "%s/%s", B.out, files[i].name);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		FILE *f = fopen(tmp, "w");
		if (!f || fwrite(files[i].buf, 1, files[i].len, f) != files[i].len ||
		    fclose(f) || rename(tmp, path)) {
			rc = cli_io_error("bench: cannot write %s", path);
			f = NULL;
		}
	}
	if (B.markdown && !rc && write_markdown(B.markdown, md_buf, md_len))
		rc = WEFT_EXIT_IO;
	/* the JSON must parse with our own strict parser */
	struct jnode *self_check = jparse(js_buf, js_len);
	if (!self_check)
		rc = cli_io_error("bench: internal error: bench.json does not parse");
	jfree(self_check);
	if (B.json)
		fwrite(js_buf, 1, js_len, stdout);
	else
		fwrite(md_buf, 1, md_len, stdout);
	fclose(bench_log);
	free(md_buf);
	free(js_buf);
	return rc;
}
