/*
 * rt_bench.c - the runtime's own measurements, for `weft bench`
 * (docs/testing-c-programs.md, "Speed"). WEFT_PROGRAM_ENGINE=bench runs
 * them on the program (bench/bench_program.c is the one weft bench uses)
 * and prints one JSON object:
 *
 *   micro       one serial execution of main("micro", FILE): the program
 *               times its own loops (ns per access) and writes FILE
 *   inprocess   executions per second of main() under the random strategy,
 *               each starting from the program's initial state in this
 *               process (the world's reset: rt_world.c)
 *   fork        the same executions, each in a child forked from this
 *               process after start-up (the alternative the issue names),
 *               the parent waiting for each
 *
 * Every number is measured here; WEFT_BENCH_QUICK=1 runs a tenth.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <weft/strategy.h>

#include "rt_internal.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int rt_bench_main(char *argv0);
int rt_bench_main(char *argv0)
{
	static char *pargv[2], *margv[4];
	static struct weft_random r;
	struct weft_exec_result res;
	struct weft_run_opts o = { .sc = &rt_scenario, .variant = 0 };
	const char *q = getenv("WEFT_BENCH_QUICK");
	unsigned n = q && !strcmp(q, "1") ? 2000 : 20000;
	char path[] = "/tmp/weft-bench-micro-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("weft: bench");
		return WEFT_EXIT_IO;
	}
	close(fd);
	pargv[0] = argv0;
	margv[0] = argv0;
	margv[1] = (char *)"micro";
	margv[2] = path;

	/* micro: one serial execution */
	rt_argc = 3;
	rt_argv = margv;
	weft_random_init(&r, &rt_scenario, 1, NULL, 0);
	if (weft_execute(&o, &weft_strategy_random, &r, &res) < 0 || res.kind != WEFT_KIND_NONE) {
		fprintf(stderr, "weft: bench: the micro execution failed (%s: %s)\n",
			weft_kind_name(res.kind), res.report.msg);
		unlink(path);
		return WEFT_EXIT_IO;
	}
	char micro[1024] = "";
	FILE *f = fopen(path, "r");
	if (!f || !fgets(micro, sizeof(micro), f)) {
		fprintf(stderr, "weft: bench: the program wrote no measurements\n");
		if (f)
			fclose(f);
		unlink(path);
		return WEFT_EXIT_IO;
	}
	fclose(f);
	unlink(path);
	micro[strcspn(micro, "\n")] = 0;

	/* executions of main() in this process */
	rt_argc = 1;
	rt_argv = pargv;
	weft_random_init(&r, &rt_scenario, 1, NULL, 0);
	unsigned bugs = 0;
	double t0 = now();
	for (unsigned i = 0; i < n; i++) {
		weft_execute(&o, &weft_strategy_random, &r, &res);
		bugs += res.kind != WEFT_KIND_NONE;
	}
	double in_s = now() - t0;

	/* the same, one forked child per execution */
	unsigned nf = n / 10 ? n / 10 : 1, fbugs = 0;
	fflush(NULL);
	t0 = now();
	for (unsigned i = 0; i < nf; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("weft: bench: fork");
			return WEFT_EXIT_IO;
		}
		if (pid == 0) {
			weft_execute(&o, &weft_strategy_random, &r, &res);
			_exit(res.kind == WEFT_KIND_NONE ? 0 : 1);
		}
		/* the parent draws the next execution's decisions as the child did */
		weft_random_init(&r, &rt_scenario, (uint64_t)i + 2, NULL, 0);
		int st;
		while (waitpid(pid, &st, 0) < 0)
			;
		fbugs += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	double fork_s = now() - t0;
	double in_rate = n / in_s, fork_rate = nf / fork_s;
	printf("{\"program\": \"%s\", \"micro\": %s, \"inprocess\": {\"executions\": %u, \"seconds\": "
	       "%.4f, \"exec_per_s\": %.1f, \"reports\": %u}, \"fork\": {\"executions\": %u, "
	       "\"seconds\": %.4f, \"exec_per_s\": %.1f, \"reports\": %u}, \"inprocess_over_fork\": "
	       "%.2f}\n",
	       rt_scenario.name, micro, n, in_s, in_rate, bugs, nf, fork_s, fork_rate, fbugs,
	       fork_rate > 0 ? in_rate / fork_rate : 0.0);
	return 0;
}
