/*
 * rt_program.c - an instrumented program as a Weft scenario: one thread
 * (main()) on fake CPU 0, the threads it creates on CPUs of their own, the
 * world of rt_world.c, and the audits of a process's end.
 *
 *   name      the executable's file name ("prog"), variant "main"
 *   identity  path, build id, main()'s arguments and the options that
 *             change executions (WEFT_HEAP_MIB, WEFT_STACK_KIB,
 *             WEFT_SPURIOUS_WAKEUPS): what a replay file records; the
 *             model fingerprint hashes them, so a replay on another build
 *             is refused as stale (exit 5), never a silent DESYNC
 *   the end   main()'s return or exit() is a scheduling point (the other
 *             threads may run first), then the process ends: threads
 *             still running are abandoned as the kernel would; a non-zero
 *             status is a report (exit-status); pthread_exit() in main
 *             lets the others finish
 *   assume    __VERIFIER_assume(0), and abort() with WEFT_ABORT=end
 *             (SV-COMP's tasks write "assume c" as `if (!c) abort();`):
 *             the execution cannot go on; it ends without a verdict or an
 *             audit (weft_sched_infeasible: dfs then explores every thread
 *             at every state)
 *   audits    at the end, the heap's unreachable blocks (memory-leak),
 *             unless the execution ended in an assumption
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/scenario.h>

#include "rt_internal.h"

int (*rt_real_main)(int, char **, char **);
int rt_argc;
char **rt_argv;
uintptr_t rt_low_sp[WEFT_EXEC_MAX_THREADS];
struct weft_program rt_program;

extern char **environ;

/* --------------------------------------------------------------- stacks */

/* A frame of zeroes right below the caller's: the slots the caller's next
 * call reuses first (its own return address and saved registers aside). */
static __attribute__((noinline)) void zero_below(void)
{
	volatile char pad[1024];

	for (unsigned i = 0; i < sizeof(pad); i++)
		pad[i] = 0;
}

/* Uninitialized locals must read the same in every execution: zero what
 * earlier executions left below this thread's first frame, down to 8 KiB
 * under the deepest frame an instrumented function ever had on it. */
static __attribute__((noinline)) void scrub_range(uint8_t *lo, uint8_t *hi)
{
	if (hi > lo)
		rt_real.memset(lo, 0, (size_t)(hi - lo));
}

void rt_stack_scrub(unsigned tid)
{
	const struct weft_fiber *f = &M.th[tid].fib;
	uint8_t *lo = f->stack_lo, *here = __builtin_frame_address(0);
	uint8_t *low = rt_low_sp[tid] ? (uint8_t *)rt_low_sp[tid] : here;

	if (low - lo > 8192)
		lo = low - 8192;
	scrub_range(lo, here - 2048);
	zero_below();
}

/* ---------------------------------------------------------------- the end */

/* The end of the process is a YIELD for the strategies (dependence: it
 * conflicts with every other thread's next operation, which DPOR
 * records cheaply, unlike a write of the whole world) and a NOTE in the
 * trace. A thread that never ran has no next operation DPOR knows of, so
 * while another thread is not done the end is two points with a YIELD
 * between: after a yield, dfs explores every thread that may go first. */
static struct weft_site main_return = { __FILE__, "main", "return from main()", 0,
					WEFT_EV_YIELD, 0, 0 };

void rt_program_exit(int st, const void *pc)
{
	rt_flush();
	const struct weft_site *s = pc ? RT_CALL_SITE(pc, WEFT_EV_YIELD, "exit") : &main_return;
	/* the end of the process conflicts with everything the other threads
	 * may still do: a point where they may go first */
	sched_point_at(s, NULL, 0, NULL);
	for (unsigned t = 0; t < M.nr_threads; t++)
		if ((int)t != M.cur && M.th[t].state != T_DONE) {
			weft_sched_step(WEFT_DEP_YIELD, WEFT_NO_LOC, 0, 0, s);
			sched_point_at(s, NULL, 0, NULL);
			break;
		}
	rt_x.exited = true;
	rt_x.exit_tid = (unsigned)M.cur;
	rt_x.exit_status = st;
	weft_trace(WEFT_EV_NOTE, WEFT_NO_LOC, 0, (uint64_t)(unsigned)st, s);
	weft_sched_step(WEFT_DEP_YIELD, WEFT_NO_LOC, 0, 0, s);
	if (st != 0)
		weft_report(WEFT_KIND_EXIT_STATUS, NULL, s, "the program exited with status %d", st);
	for (unsigned t = 0; t < M.nr_threads; t++)
		if ((int)t != M.cur && M.th[t].state != T_DONE)
			weft_sched_exit();   /* the others die with the process */
	__builtin_longjmp(rt_th[M.cur].jb, 1);
}

void rt_main_thread(void *world, unsigned tid)
{
	(void)world;
	rt_stack_scrub(tid);
	if (__builtin_setjmp(rt_th[0].jb) == 0) {
		int st = rt_real_main(rt_argc, rt_argv, environ);
		rt_run_atexit();   /* main()'s return is exit() */
		rt_program_exit(st, NULL);
	}
	/* exit(0) with nothing else running, or pthread_exit() in main */
	rt_flush();
	rt_thread_exit_hooks(tid);
}

static void program_setup(void *world, unsigned variant, const struct weft_workload *wl)
{
	(void)world;
	(void)variant;
	(void)wl;
}

static void program_quiesce(void *world)
{
	const char *e = getenv("WEFT_LEAKS");

	(void)world;
	if (rt_x.assumed || (e && !strcmp(e, "0")))
		return;
	rt_heap_leak_check();
}

/* "counter", "table+8", "heap block 2 (prog.c:14)", "T1's stack" */
static void program_describe(const void *world, uint32_t off, char *buf, size_t n)
{
	uintptr_t a = (uintptr_t)world + off;

	if (rt_heap_describe(a, buf, n))
		return;
	if (a >= (uintptr_t)rt_w.stacks_lo && a < (uintptr_t)rt_w.stacks_hi) {
		size_t stride = rt_w.stack_bytes / WEFT_EXEC_MAX_THREADS;
		unsigned t = (unsigned)((a - (uintptr_t)rt_w.stacks_lo) / stride);
		const struct rt_sym *frame = NULL;
		(void)frame;
		snprintf(buf, n, "T%u's stack", t);
		return;
	}
	const struct rt_sym *s = rt_sym_at(a);
	if (s && !s->func) {
		if (a == s->addr)
			snprintf(buf, n, "%s", s->name);
		else
			snprintf(buf, n, "%s+%zu", s->name, (size_t)(a - s->addr));
		return;
	}
	buf[0] = 0;
}

/* ------------------------------------------------------------ scenario */

static const struct weft_variant program_variants[] = {
	{ .name = "main", .summary = "the program's main()", .source = "the program",
	  .buggy = false },
};
static const char *const program_ops[] = { "main" };
static char program_name[65];
static char program_summary[160];

struct weft_scenario rt_scenario = {
	WEFT_SCENARIO_PLAIN(program_name, program_summary,
	                    "an instrumented program (weft-cc)",
	                    WEFT_EXEC_MAX_CPUS, 1, 0, 1, program_ops, 1, 4096,
	                    NULL, program_setup, rt_main_thread, program_variants),
	.quiesce = program_quiesce,
	.describe = program_describe,
	.world_ops = &rt_world_ops,
	/* a lost update in a loop of a few thousand iterations is a program,
	 * not a livelock: more room than a model's */
	.step_budget = 1000000,
};

/* The registry of a program: itself, found by its name, "name:main",
 * "@weft-program" (what weft puts where the user named it) or the path
 * the user gave (the fuzz target's spec, so that its hints name it). */
const struct weft_scenario *const weft_scenarios[] = { &rt_scenario };
const unsigned weft_nr_scenarios = 1;
char weft_fuzz_target_spec[4096];
const char weft_fuzz_program[] = "weft";

const struct weft_scenario *weft_scenario_find(const char *spec, unsigned *vi)
{
	if (!strcmp(spec, "@weft-program") || !strcmp(spec, weft_fuzz_target_spec)) {
		*vi = 0;
		return &rt_scenario;
	}
	return weft_scenario_lookup(weft_scenarios, weft_nr_scenarios, spec, vi);
}

static char options[160];

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return weft_mix64(h ^ n);
}

/* Program mode: the image, the world, the machine, the scenario. argv
 * holds main()'s arguments (argv[0] the program). */
int rt_program_init(int argc, char **argv, int (*real_main)(int, char **, char **));
int rt_program_init(int argc, char **argv, int (*real_main)(int, char **, char **))
{
	void rt_tsan_init(void);

	rt_resolve_real();
	if (rt_image_load() != 0) {
		fprintf(stderr, "weft: cannot read this program's executable\n");
		return -1;
	}
	if (rt_world_map() != 0)
		return -1;
	rt_signals_install();
	if (weft_machine_init() != 0) {
		fprintf(stderr, "weft: cannot create the machine's threads\n");
		return -1;
	}
	rt_tsan_init();
	rt_watchdog_start();
	rt_stdin_init();
	weft_dynamic_sites(rt_site_by_id);
	rt_real_main = real_main;
	rt_argc = argc;
	rt_argv = argv;

	const char *base = strrchr(rt_img.path, '/');
	base = base ? base + 1 : rt_img.path;
	size_t k = 0;
	for (const char *c = base; *c && k < sizeof(program_name) - 1; c++)
		program_name[k++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
						   (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' ||
						   *c == '_' ? *c : '_');
	program_name[k] = 0;
	snprintf(program_summary, sizeof(program_summary), "the program %.60s (%.80s)", base, rt_img.path);
	rt_scenario.world_size = rt_w.size;

	const char *sp = getenv("WEFT_SPURIOUS_WAKEUPS"), *sb = getenv("WEFT_SPIN_BLOCKS");
	const char *ab = getenv("WEFT_ABORT");
	if (ab && *ab && strcmp(ab, "report") && strcmp(ab, "end"))
		fprintf(stderr, "weft: WEFT_ABORT=%s ignored (report or end)\n", ab);
	rt_abort_ends = ab && !strcmp(ab, "end");
	extern uint64_t rt_spin_blocks;
	if (sb && *sb) {
		char *end;
		unsigned long long v = strtoull(sb, &end, 10);
		if (*end || v < 1000)
			fprintf(stderr, "weft: WEFT_SPIN_BLOCKS=%s ignored (a number >= 1000)\n", sb);
		else
			rt_spin_blocks = v;
	}
	snprintf(options, sizeof(options),
		 "WEFT_HEAP_MIB=%zu WEFT_STACK_KIB=%zu WEFT_SPURIOUS_WAKEUPS=%d WEFT_SPIN_BLOCKS=%llu%s",
		 rt_w.heap_bytes >> 20, (rt_w.stack_bytes / WEFT_EXEC_MAX_THREADS - 4096) >> 10,
		 sp && !strcmp(sp, "1"), (unsigned long long)rt_spin_blocks,
		 rt_abort_ends ? " WEFT_ABORT=end" : "");
	rt_program.path = rt_img.path;
	memcpy(rt_program.build_id, rt_img.build_id, rt_img.build_id_len);
	rt_program.build_id_len = rt_img.build_id_len;
	rt_program.runtime_id_len = rt_runtime_build_id(rt_program.runtime_id);
	rt_program.argc = argc > 0 ? (unsigned)argc - 1 : 0;
	rt_program.argv = argc > 0 ? argv + 1 : argv;
	rt_program.options = options;
	uint64_t h = fnv(0xcbf29ce484222325ull, rt_img.build_id, rt_img.build_id_len);
	for (int i = 1; i < argc; i++)
		h = fnv(h, argv[i], strlen(argv[i]));
	h = fnv(h, options, strlen(options));
	rt_scenario.model_version = (unsigned)(h ^ (h >> 32));
	weft_program_set(&rt_program);
	const char *as = getenv("WEFT_PROGRAM_AS");
	snprintf(weft_fuzz_target_spec, sizeof(weft_fuzz_target_spec), "%s",
		 as && *as ? as : rt_img.path);
	return 0;
}
