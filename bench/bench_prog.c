/*
 * bench_prog.c - the instrumented-program rows of `weft bench` (issue 20;
 * docs/testing-c-programs.md, "Speed"): the runtime measures
 * weft-bench-program (bench/bench_program.c) in one process: ns per
 * instrumented access beside a model primitive's, executions per second in
 * process and with one fork per execution (rt/rt_bench.c).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

void bench_section_program(void)
{
	char b1[32], b2[32], b3[32];
	struct argv_buf a;
	struct child c;

	if (!bench_program_section("Instrumented programs (issue 20)", "program",
				   "weft-bench-program", &a))
		return;
	setenv("WEFT_PROGRAM_ENGINE", "bench", 1);
	if (B.quick)
		setenv("WEFT_BENCH_QUICK", "1", 1);
	bench_run_child(a.v, 300, true, &c);
	unsetenv("WEFT_PROGRAM_ENGINE");
	unsetenv("WEFT_BENCH_QUICK");
	struct jnode *n = bench_child_json(&c);
	const struct jnode *mi = n ? bench_jget(n, "micro") : NULL;
	if (!n || n->t != J_OBJ || !mi) {
		bench_child_unmeasured(&c, n, "weft-bench-program");
		return;
	}
	bench_child_copy_object(&c);
	T.p_own = bench_jnum(mi, "own_stack_ns", -1);
	T.p_tls = bench_jnum(mi, "thread_local_ns", -1);
	T.p_plain = bench_jnum(mi, "uninstrumented_ns", -1);
	T.p_shared = bench_jnum(mi, "shared_ns", -1);
	T.p_model = bench_jnum(mi, "model_read_once_ns", -1);
	const struct jnode *in = bench_jget(n, "inprocess"), *fk = bench_jget(n, "fork");
	T.p_in = bench_jnum(in, "exec_per_s", -1);
	T.p_fork = bench_jnum(fk, "exec_per_s", -1);
	fprintf(md, "One loop shape (a load and a store per iteration) on each kind of memory, "
		    "timed by the program itself in one serial execution of "
		    "`bench/bench_program.c` (the best of 7 runs of %s own-stack and %s shared "
		    "iterations); a shared "
		    "access is a scheduling point, traced and shadowed:\n\n",
		bench_fmt_si(b1, 32, bench_jnum(mi, "own_n", -1)),
		bench_fmt_si(b2, 32, bench_jnum(mi, "shared_n", -1)));
	fprintf(md, "| access | ns/access |\n|---|---:|\n");
	const struct bench_figure rows[] = {
		{ "uninstrumented (the same loop, no -fsanitize=thread)", T.p_plain },
		{ "instrumented, the thread's own stack (not a point)", T.p_own },
		{ "instrumented, a __thread variable (not a point)", T.p_tls },
		{ "instrumented, a global (a point)", T.p_shared },
		{ "model READ_ONCE/WRITE_ONCE on the same global", T.p_model },
		{ "model PLAIN_READ/PLAIN_WRITE on the same global",
		  bench_jnum(mi, "model_plain_ns", -1) },
	};
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(md, "| %s | %s |\n", rows[i].name, bench_fmt_num(b1, 32, rows[i].v, 2));
	fprintf(md, "\nExecutions of the program's `main()` (two threads, a mutex), random "
		    "strategy, each from the program's initial state:\n\n"
		    "| how | executions | seconds | exec/s |\n|---|---:|---:|---:|\n");
	fprintf(md, "| in process (the world restored) | %s | %s | %s |\n",
		bench_fmt_si(b1, 32, bench_jnum(in, "executions", -1)),
		bench_fmt_num(b2, 32, bench_jnum(in, "seconds", -1), 3), bench_fmt_si(b3, 32, T.p_in));
	fprintf(md, "| one fork per execution | %s | %s | %s |\n\n",
		bench_fmt_si(b1, 32, bench_jnum(fk, "executions", -1)),
		bench_fmt_num(b2, 32, bench_jnum(fk, "seconds", -1), 3),
		bench_fmt_si(b3, 32, T.p_fork));
	bench_jfree(n);
	bench_child_free(&c);
}
