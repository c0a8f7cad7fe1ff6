/*
 * regression_driver.c - the plain main() of the fuzz targets when no fuzz
 * engine is linked (WEFT_FUZZ_ENGINE=regression, the default): runs
 * LLVMFuzzerTestOneInput over files and folders, so ctest replays every
 * corpus with gcc and no libFuzzer (zstd's tests/fuzz does the same).
 *
 *   fuzz_TARGET [--expect-crash] [-flag=value...] PATH...
 *
 * libFuzzer-style -flag=value arguments are accepted and ignored (e.g.
 * -runs=0, which makes a libFuzzer binary replay a folder and exit).
 * A folder is read non-recursively, in name order (reproducible runs),
 * skipping dot files. Without --expect-crash an input that reports aborts
 * the driver (the test fails, the report is on stderr). With it, each input
 * runs in a child process that must die of SIGABRT after printing the
 * report: a known crash input that stops crashing is a failure.
 * Exit: 0 all as expected, 1 an expectation failed, 2 usage, 3 I/O.
 * The AFL++ driver (afl_driver.c) does the same outside afl-fuzz: it links
 * this file with WEFT_FUZZ_DRIVER_NO_MAIN and calls weft_fuzz_replay_main().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <weft/weft.h>

#include "weft_fuzz_glue.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WEFT_DRIVER_MAX_INPUT (1u << 20)

static uint8_t buf[WEFT_DRIVER_MAX_INPUT];
static bool expect_crash;
static unsigned nr_run, nr_bad;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		fprintf(stderr, "weft: cannot open %s: %s\n", path, strerror(errno));
		return WEFT_EXIT_IO;
	}
	n = fread(buf, 1, sizeof(buf), f);
	if (ferror(f) || (n == sizeof(buf) && fgetc(f) != EOF)) {
		fprintf(stderr, "weft: %s: unreadable or larger than %u bytes\n", path, WEFT_DRIVER_MAX_INPUT);
		fclose(f);
		return WEFT_EXIT_IO;
	}
	fclose(f);
	nr_run++;
	if (!expect_crash) {
		LLVMFuzzerTestOneInput(buf, n);
		return 0;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "weft: fork: %s\n", strerror(errno));
		return WEFT_EXIT_IO;
	}
	if (pid == 0) {
		LLVMFuzzerTestOneInput(buf, n);
		_exit(0);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) {
		printf("crashed as expected: %s\n", path);
	} else {
		fprintf(stderr, "weft: %s: expected a report and SIGABRT, got %s %d\n", path,
			WIFSIGNALED(status) ? "signal" : "exit",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		nr_bad++;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "weft: cannot open %s: %s\n", path, strerror(errno));
		return WEFT_EXIT_IO;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				rc = WEFT_EXIT_IO;
				break;
			}
			names = nn;
		}
		if (asprintf(&names[n], "%s/%s", path, de->d_name) < 0) {
			rc = WEFT_EXIT_IO;
			break;
		}
		n++;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n && !rc; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			rc = run_file(names[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int weft_fuzz_replay_main(int argc, char **argv)
{
	int first = 1, rc = 0;

	if (argc > 1 && !strcmp(argv[1], "--expect-crash")) {
		expect_crash = true;
		first = 2;
	}
	if (first >= argc || (argv[first][0] == '-' && !strchr(argv[first], '='))) {
		fprintf(stderr, "usage: %s [--expect-crash] FILE|DIR...\n", argv[0]);
		return WEFT_EXIT_USAGE;
	}
	weft_fuzz_replaying = true;
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = first; i < argc && !rc; i++) {
		struct stat st;
		/* libFuzzer-style -flag=value: ignored, so one command line
		 * replays a corpus with any engine's binary */
		if (argv[i][0] == '-' && strchr(argv[i], '='))
			continue;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "weft: %s: %s\n", argv[i], strerror(errno));
			return WEFT_EXIT_IO;
		}
		rc = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
	}
	if (rc)
		return rc;
	printf("%u inputs%s\n", nr_run, expect_crash ? " run, each expected to crash" : ": no report");
	if (expect_crash && (nr_bad || !nr_run))
		return 1;
	return 0;
}

#ifndef WEFT_FUZZ_DRIVER_NO_MAIN
int main(int argc, char **argv)
{
	return weft_fuzz_replay_main(argc, argv);
}
#endif
