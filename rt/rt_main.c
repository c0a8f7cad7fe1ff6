/*
 * rt_main.c - how an instrumented program starts (weft_rt_main, called by
 * the executable's __wrap_main, rt_start.c).
 *
 * Run directly (`./prog args`), the program is itself: main() runs
 * natively on real threads and every hook of the runtime stands aside.
 * Started by the weft command (`weft run ./prog ... -- args`, which sets
 * WEFT_PROGRAM_CLI), it is a weft program whose one scenario is itself:
 *   argv = prog COMMAND [weft options] [-- main()'s arguments]
 * Started by `weft fuzz` as a fuzz target (WEFT_PROGRAM_ENGINE=libfuzzer),
 * it is libFuzzer's target binary: LLVMFuzzerRunDriver() with the target of
 * libweft_fuzz (fuzz/fuzz_target.c) on its scenario, main()'s arguments in
 * WEFT_PROGRAM_ARGS (separated by 0x1f).
 * WEFT_PROGRAM_ENGINE=bench runs the runtime's measurements (rt_bench.c).
 * An argument "@weft-program" stands for the program's scenario (weft put
 * it where the user named the program: cli_program.c). Hints and replay
 * commands it prints say `weft`, which hands files back to the program
 * they name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rt_internal.h"

int rt_program_init(int argc, char **argv, int (*real_main)(int, char **, char **));
int weft_rt_main(int argc, char **argv, char **envp, int (*real_main)(int, char **, char **));

#ifdef WEFT_RT_LIBFUZZER
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *, size_t));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libFuzzer looks these up in a sanitizer runtime; a program has none */
int __sanitizer_acquire_crash_state(void);
int __sanitizer_acquire_crash_state(void)
{
	return 1;
}

void __sanitizer_print_stack_trace(void);
void __sanitizer_print_stack_trace(void)
{
}

void __sanitizer_set_death_callback(void (*cb)(void));
void __sanitizer_set_death_callback(void (*cb)(void))
{
	(void)cb;
}

static int engine_main(int argc, char **argv, int (*real_main)(int, char **, char **))
{
	static char *pargv[WEFT_PROGRAM_MAX_ARGS + 2];
	static char args[8192];
	int pargc = 0;
	const char *e = getenv("WEFT_PROGRAM_ARGS");

	pargv[pargc++] = argv[0];
	if (e && *e) {
		snprintf(args, sizeof(args), "%s", e);
		for (char *a = args, *sep; a && pargc <= WEFT_PROGRAM_MAX_ARGS; a = sep) {
			sep = strchr(a, 0x1f);
			if (sep)
				*sep++ = 0;
			pargv[pargc++] = a;
		}
	}
	if (rt_program_init(pargc, pargv, real_main) != 0)
		return WEFT_EXIT_IO;
	return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
#endif

/* Under weft (any engine or the command line): refuse a program with an
 * instrumented shared library, whose globals are outside the world
 * (rt_tsan.c, __tsan_init()). */
static bool foreign_refused(void)
{
	const char *name;
	unsigned n = rt_foreign_modules(&name);

	if (!n)
		return false;
	fprintf(stderr,
		"weft: %s is an instrumented shared library%s: its globals are outside the "
		"program's world (restored before every execution, the scheduling points), so "
		"they would keep their values from one execution to the next and their races "
		"would not be searched; link its code into the executable, as a static library "
		"(docs/testing-c-programs.md)\n",
		name, n > 1 ? " (and others)" : "");
	return true;
}

int weft_rt_main(int argc, char **argv, char **envp, int (*real_main)(int, char **, char **))
{
	const char *engine = getenv("WEFT_PROGRAM_ENGINE");
	const char *cli = getenv("WEFT_PROGRAM_CLI");
	if (((engine && *engine) || (cli && *cli)) && foreign_refused())
		return WEFT_EXIT_USAGE;
	if (engine && !strcmp(engine, "bench")) {
		int rt_bench_main(char *argv0);
		char *pargv[2] = { argv[0], NULL };
		unsetenv("WEFT_PROGRAM_ENGINE");
		if (rt_program_init(1, pargv, real_main) != 0)
			return WEFT_EXIT_IO;
		return rt_bench_main(argv[0]);
	}
	if (engine && *engine) {
#ifdef WEFT_RT_LIBFUZZER
		if (!strcmp(engine, "libfuzzer"))
			return engine_main(argc, argv, real_main);
#endif
		fprintf(stderr, "weft: this runtime has no %s engine (libweft_rt was built without "
			"it: docs/testing-c-programs.md)\n", engine);
		return WEFT_EXIT_USAGE;
	}
	const char *mode = getenv("WEFT_PROGRAM_CLI");

	if (!mode || !*mode)
		return real_main(argc, argv, envp);
	unsetenv("WEFT_PROGRAM_CLI");

	/* weft's arguments, then main()'s after "--" */
	int cut = argc;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			cut = i;
			break;
		}
	static char *pargv[WEFT_PROGRAM_MAX_ARGS + 2];
	int pargc = 0;
	pargv[pargc++] = argv[0];
	for (int i = cut + 1; i < argc; i++) {
		if (pargc > WEFT_PROGRAM_MAX_ARGS) {
			fprintf(stderr, "weft: at most %d arguments for the program\n",
				WEFT_PROGRAM_MAX_ARGS);
			return WEFT_EXIT_USAGE;
		}
		pargv[pargc++] = argv[i];
	}
	pargv[pargc] = NULL;
	if (rt_program_init(pargc, pargv, real_main) != 0)
		return WEFT_EXIT_IO;

	static char spec[80];
	snprintf(spec, sizeof(spec), "%s:main", rt_scenario.name);
	char **cargv = calloc((size_t)cut + 1, sizeof(char *));
	if (!cargv)
		return WEFT_EXIT_IO;
	int cargc = 0;
	for (int i = 0; i < cut; i++)
		cargv[cargc++] = strcmp(argv[i], "@weft-program") ? argv[i] : spec;
	cargv[cargc] = NULL;
	cli_set_prog("weft");
	return weft_cli_main(cargc, cargv);
}
