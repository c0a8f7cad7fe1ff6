/*
 * cmd_stress.c - `weft stress`: hands over to weft-stress, the native build
 * of the same models (real pthreads and atomics), installed beside weft.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char weft_help_stress[] =
	"usage: weft stress SCENARIO:VARIANT [--time S] [--threads N] [--seed N]\n"
	"                   [--lock tas|ticket] [--workload HEX] [--iterations N]\n"
	"                   [--stop-first] [--hang S] [--json]\n\n"
	"The classic stress test, Weft's baseline: the model compiled against real C11\n"
	"atomics and spinlocks, one pthread per model thread, looped with a fresh world\n"
	"and a random workload per iteration, the same detectors where they run natively.\n"
	"Reports iterations, manifestations of the bug and the time to the first one.\n"
	"  --time S        seconds to run (default 10)\n"
	"  --threads N     must equal the scenario's thread count (accepted for the\n"
	"                  seed's doitlots/forklots habit; other values are refused)\n"
	"  --stop-first    stop at the first manifestation\n"
	"  --hang S        an iteration longer than S seconds (wall) is reported as a\n"
	"                  deadlock or livelock (default 2; a loaded machine needs more)\n"
	"  --json          one object: scenario, variant, iterations, manifestations,\n"
	"                  seconds, first_seconds (null if none), first_iteration, kind\n"
	"exit: 0 no manifestation, 1 bug manifested, 2 usage\n";

int cmd_stress(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 16];

	if (weft_program_self()) {
		/* `weft stress ./prog`: the program, handed the command line
		 * (cli_program.c), is its own stress test */
		const char *as = getenv("WEFT_PROGRAM_AS");
		fprintf(stderr,
			"weft: stress: %s is a program: run it directly, it runs natively on "
			"real threads; `weft stress` runs the zoo's and the demos' scenarios "
			"(docs/testing-c-programs.md)\n",
			as && *as ? as : weft_program_self()->path);
		return 2;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return cli_io_error("stress: cannot find my own path");
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(path, sizeof(path), "%s/weft-stress", self);
	if (access(path, X_OK) != 0) {
		/* a model's own binary (weft_add_model()): its scenarios have
		 * no native build; weft-stress is the zoo's and the demos' */
		fprintf(stderr,
			"weft: stress: no native build beside %s: `weft stress` runs the zoo's and "
			"the demos' scenarios (weft-stress, installed beside weft); a model of "
			"your own runs under the scheduler only\n",
			self);
		return 2;
	}
	argv[0] = path;
	execv(path, argv);
	return cli_io_error("stress: cannot run %s: %s", path, strerror(errno));
}
