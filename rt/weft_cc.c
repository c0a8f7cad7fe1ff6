/*
 * weft_cc.c - `weft-cc`: a C compiler driver that builds programs for
 * Weft (docs/testing-c-programs.md). It runs the real compiler ($WEFT_CC,
 * else cc: gcc or clang) with
 *   compiling  -fsanitize=thread (the __tsan_* calls, never the TSan
 *              runtime), volatile accesses told apart, clang's reads
 *              before writes kept, -g, frame pointers
 *   linking    -Wl,--wrap=main, libweft_rt_start.a and libweft_rt.so
 *              (with its directory as rpath)
 * A command that compiles and links at once is run as one compile per
 * source and one link, because gcc links its TSan runtime whenever
 * -fsanitize=thread is on a link line.
 *
 *   weft-cc prog.c -o prog          weft-cc -c a.c; weft-cc a.o -o prog
 *   weft-cc --cflags | --ldflags    the flags, for a Makefile
 *   weft-cc --print-libdir          where libweft_rt is
 *
 * The one flag that matters for correctness: clang 14 drops the
 * instrumentation of a read that a write to the same address follows in
 * the same basic block (the write "covers" it for race detection), which
 * hides the read of every lost update; -mllvm
 * -tsan-instrument-read-before-write=1 keeps it (gcc 12 keeps it anyway).
 * tests/rt checks both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef WEFT_CC_LIBDIR_REL
#define WEFT_CC_LIBDIR_REL "../lib"
#endif

static const char *const common_cflags[] = {
	"-fsanitize=thread", "-g", "-fno-omit-frame-pointer",
	/* a call per basic block: the runtime bounds loops that never reach
	 * a scheduling point (rt_start.c) */
	"-fsanitize-coverage=trace-pc", NULL,
};
static const char *const clang_cflags[] = {
	"-mllvm", "-tsan-distinguish-volatile=1",
	"-mllvm", "-tsan-instrument-read-before-write=1", NULL,
};
static const char *const gcc_cflags[] = {
	"--param", "tsan-distinguish-volatile=1",
	"-Wno-tsan",   /* atomic_thread_fence "not supported": it is, here */
	NULL,
};

static char libdir[PATH_MAX];

static void find_libdir(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *env = getenv("WEFT_RT_LIBDIR");

	if (env && *env) {
		snprintf(libdir, sizeof(libdir), "%s", env);
		return;
	}
	if (n <= 0) {
		snprintf(libdir, sizeof(libdir), "%s", WEFT_CC_LIBDIR_REL);
		return;
	}
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	const char *tries[] = { WEFT_CC_LIBDIR_REL, "../lib" };
	for (unsigned i = 0; i < 2; i++) {
		char cand[PATH_MAX * 2], probe[PATH_MAX * 2 + 32];
		snprintf(cand, sizeof(cand), "%s/%s", self, tries[i]);
		snprintf(probe, sizeof(probe), "%s/libweft_rt.so", cand);
		struct stat st;
		if (stat(probe, &st) == 0 && realpath(cand, libdir))
			return;
	}
	snprintf(libdir, sizeof(libdir), "%.3000s/%s", self, WEFT_CC_LIBDIR_REL);
}

static const char *compiler(void)
{
	const char *cc = getenv("WEFT_CC");
	return cc && *cc ? cc : "cc";
}

/* clang or gcc? From `CC --version` (cc is usually gcc, but not always). */
static bool is_clang(void)
{
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "'%s' --version 2>/dev/null", compiler());
	FILE *p = popen(cmd, "r");
	bool clang = false;
	char line[256];
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p))
		clang |= strstr(line, "clang") != NULL;
	pclose(p);
	return clang;
}

struct argv {
	char **v;
	int n, cap;
};

static void push(struct argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = realloc(a->v, (size_t)a->cap * sizeof(char *));
		if (!a->v) {
			perror("weft-cc");
			exit(1);
		}
	}
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

static int run(struct argv *a)
{
	if (getenv("WEFT_CC_VERBOSE")) {
		for (int i = 0; i < a->n; i++)
			fprintf(stderr, "%s%s", i ? " " : "", a->v[i]);
		fputc('\n', stderr);
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("weft-cc: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(a->v[0], a->v);
		fprintf(stderr, "weft-cc: cannot run %s: %s\n", a->v[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void add_cflags(struct argv *a, bool clang)
{
	for (const char *const *f = common_cflags; *f; f++)
		push(a, *f);
	for (const char *const *f = clang ? clang_cflags : gcc_cflags; *f; f++)
		push(a, *f);
}

static void add_ldflags(struct argv *a)
{
	static char L[PATH_MAX + 4], rpath[PATH_MAX + 16];
	snprintf(L, sizeof(L), "-L%s", libdir);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", libdir);
	push(a, "-Wl,--wrap=main");
	push(a, L);
	push(a, rpath);
	push(a, "-lweft_rt_start");
	push(a, "-lweft_rt");
}

static bool is_source(const char *s)
{
	const char *dot = strrchr(s, '.');
	return s[0] != '-' && dot &&
	       (!strcmp(dot, ".c") || !strcmp(dot, ".i") || !strcmp(dot, ".cc") ||
		!strcmp(dot, ".cpp") || !strcmp(dot, ".cxx") || !strcmp(dot, ".C"));
}

/* flags that take the next argument as their value */
static bool takes_value(const char *s)
{
	static const char *const with[] = { "-o", "-I", "-D", "-U", "-include", "-isystem",
					    "-x", "-MF", "-MT", "-MQ", "-L", "-l", "-Xlinker",
					    "-idirafter", "-iquote", "-imacros", "--param",
					    "-mllvm", NULL };
	for (const char *const *w = with; *w; w++)
		if (!strcmp(s, *w))
			return true;
	return false;
}

static bool link_only(const char *s)
{
	return !strncmp(s, "-l", 2) || !strncmp(s, "-L", 2) || !strncmp(s, "-Wl,", 4) ||
	       !strcmp(s, "-Xlinker") || !strcmp(s, "-static") || !strcmp(s, "-shared") ||
	       !strcmp(s, "-rdynamic") || !strcmp(s, "-pie") || !strcmp(s, "-no-pie");
}

int main(int argc, char **argv)
{
	find_libdir();
	if (argc == 2 && !strcmp(argv[1], "--print-libdir")) {
		printf("%s\n", libdir);
		return 0;
	}
	bool clang = is_clang();
	if (argc == 2 && (!strcmp(argv[1], "--cflags") || !strcmp(argv[1], "--ldflags"))) {
		struct argv a = { 0 };
		if (!strcmp(argv[1], "--cflags"))
			add_cflags(&a, clang);
		else
			add_ldflags(&a);
		for (int i = 0; i < a.n; i++)
			printf("%s%s", i ? " " : "", a.v[i]);
		printf("\n");
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: weft-cc [compiler arguments]   (compiler: $WEFT_CC, else cc)\n"
		       "       weft-cc --cflags | --ldflags | --print-libdir\n"
		       "Builds a program for `weft run ./prog`: -fsanitize=thread against Weft's\n"
		       "runtime (libweft_rt), never the TSan one. docs/testing-c-programs.md.\n");
		return 0;
	}

	bool compile_only = false;
	int nsrc = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-DNDEBUG") ||
		    (!strcmp(argv[i], "-D") && i + 1 < argc && !strcmp(argv[i + 1], "NDEBUG")))
			fprintf(stderr, "weft-cc: warning: -DNDEBUG compiles assert() out: a bug only "
					"an assertion checks is not reported under weft run\n");
		if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "-S") || !strcmp(argv[i], "-E") ||
		    !strcmp(argv[i], "-M") || !strcmp(argv[i], "-MM"))
			compile_only = true;
		else if (takes_value(argv[i]))
			i++;
		else if (is_source(argv[i]))
			nsrc++;
	}

	if (compile_only || (nsrc == 0 && argc == 1)) {
		struct argv a = { 0 };
		push(&a, compiler());
		add_cflags(&a, clang);
		for (int i = 1; i < argc; i++)
			push(&a, argv[i]);
		return run(&a);
	}

	/* compile each source on its own, then link */
	char tmp[] = "/tmp/weft-cc-XXXXXX";
	struct argv link = { 0 };
	push(&link, compiler());
	if (nsrc && !mkdtemp(tmp)) {
		perror("weft-cc: mkdtemp");
		return 1;
	}
	int rc = 0, k = 0;
	char **objs = calloc((size_t)argc, sizeof(char *));
	for (int i = 1; i < argc && !rc; i++) {
		if (takes_value(argv[i]) && i + 1 < argc) {
			push(&link, argv[i]);
			push(&link, argv[++i]);
			continue;
		}
		if (!is_source(argv[i])) {
			/* -fsanitize=thread on a link line links the TSan runtime */
			if (strcmp(argv[i], "-fsanitize=thread"))
				push(&link, argv[i]);
			continue;
		}
		struct argv c = { 0 };
		push(&c, compiler());
		add_cflags(&c, clang);
		for (int j = 1; j < argc; j++) {
			if (j == i)
				continue;
			if (takes_value(argv[j]) && j + 1 < argc) {
				if (strcmp(argv[j], "-o") && strcmp(argv[j], "-L") &&
				    strcmp(argv[j], "-l") && strcmp(argv[j], "-Xlinker")) {
					push(&c, argv[j]);
					push(&c, argv[j + 1]);
				}
				j++;
				continue;
			}
			if (is_source(argv[j]) || link_only(argv[j]))
				continue;
			push(&c, argv[j]);
		}
		char *obj = malloc(strlen(tmp) + 32);
		sprintf(obj, "%s/%d.o", tmp, k++);
		objs[k - 1] = obj;
		push(&c, "-c");
		push(&c, argv[i]);
		push(&c, "-o");
		push(&c, obj);
		rc = run(&c);
		push(&link, obj);
	}
	if (!rc) {
		add_ldflags(&link);
		rc = run(&link);
	}
	for (int i = 0; i < k; i++)
		unlink(objs[i]);
	if (nsrc)
		rmdir(tmp);
	return rc;
}
