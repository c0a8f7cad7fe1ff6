/*
 * cmd_min.c - `weft min FILE|CRASH`: minimize a .weft file or a raw fuzzer
 * crash while keeping its verdict (kind and site); writes the minimized
 * .weft (weft_cli_import does the work).
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "replay_cli.h"

const char weft_help_min[] =
	"usage: weft min FILE|CRASH [options]\n\n"
	"Minimizes a failing input while keeping the same verdict (report kind and\n"
	"site): fewer preemptions first (delta debugging over the schedule entries, then\n"
	"a preemption-bounded exhaustive search below the current count on the current\n"
	"workload), then fewer workload operations (ddmin over the decoded ops; then each\n"
	"op, and all of them, dropped with a bounded search for a new schedule: down to\n"
	"zero ops), then fewer steps (simpler op arguments, earlier preemptions), then\n"
	"fewer threads (all ops of a thread), then pairs of ops dropped together; last,\n"
	"each argument as small as the verdict allows (an argument the model ignores\n"
	"becomes 0; ops that share an argument change it together) and the threads\n"
	"renamed to the smallest form (the same race with the roles swapped gives the\n"
	"same file). Prints before -> after\n"
	"(preemptions, operations, steps, bytes, threads) and the time taken, writes the\n"
	"minimized .weft, named by its trace hash (one trace, one file; never\n"
	"overwriting), and prints the race diagram and the replay command.\n"
	"  FILE              a .weft replay file (scenario, variant, lock from the file)\n"
	"  CRASH             a raw fuzzer input (needs --target)\n"
	"  --target S:V      scenario and variant of a raw CRASH\n"
	"  --lock tas|ticket lock model of a raw CRASH (default: the scenario's)\n"
	"  --memory M        memory model of a raw CRASH (default: the scenario's)\n"
	"  --out DIR         where to write the .weft (default: .)\n"
	"  --force           minimize a stale .weft anyway\n"
	"  --json            one JSON object (as weft import --json)\n"
	"exit: 1 minimized and written, 0 the input does not fail, 2 usage, 3 I/O or\n"
	"      format, 4 the given .weft or the written file does not replay (DESYNC),\n"
	"      5 stale file\n";

int cmd_min(int argc, char **argv)
{
	const char *file = NULL, *target = NULL, *outdir = ".", *lock_s = NULL, *memory_s = NULL;
	bool json = false, force = false;

	const struct cli_flag flags[] = {
		{ "--json", NULL, &json, NULL }, { "--force", NULL, &force, NULL },
		{ "--target", NULL, NULL, &target }, { "--out", NULL, NULL, &outdir },
		{ "--lock", NULL, NULL, &lock_s },
		{ "--memory", NULL, NULL, &memory_s }, { 0 },
	};
	int ue = cli_parse_args("min", argc, argv, flags, "file", &file);

	if (ue)
		return ue;
	static uint8_t buf[WEFT_REPLAY_MAX_FILE + 1];
	long n = cli_read_file(file, buf, sizeof(buf));
	if (n < 0)
		return cli_io_error("min: cannot read '%s': %s", file, strerror(errno));
	if (!weft_replay_sniff(buf, (size_t)n)) {
		if (!target)
			return cli_usage_error("min: '%s' is a raw input: --target SCENARIO:VARIANT "
					       "is required", file);
		struct weft_run_opts o;
		int rc = cli_target_opts("min", target, lock_s, memory_s, &o);
		if (rc)
			return rc;
		return weft_cli_import_raw(&o, buf, (size_t)n, outdir, "fuzzer", json);
	}
	if (target || lock_s || memory_s)
		return cli_usage_error("min: a .weft file names its own target, lock and memory "
				       "model");
	struct weft_replay rf;
	char err[300];
	int rc = weft_replay_decode(buf, (size_t)n, &rf, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "weft: %s: %s\n", file, err);
		return WEFT_EXIT_IO;
	}
	const struct weft_scenario *sc;
	unsigned vi;
	rc = weft_replay_bind(&rf, &sc, &vi, err, sizeof(err));
	if (rc == WEFT_ENOENT || (rc == WEFT_ESTALE && !force)) {
		fprintf(stderr, "weft: %s: %s\n", file, err);
		weft_replay_free(&rf);
		return WEFT_EXIT_STALE;
	}
	if (rc && rc != WEFT_ESTALE) {   /* corrupt for this scenario */
		fprintf(stderr, "weft: %s: %s\n", file, err);
		weft_replay_free(&rf);
		return WEFT_EXIT_IO;
	}
	bool needs = false;
	for (size_t i = 0; i < rf.nr_dec; i++)
		needs |= rf.dec[i].chosen != rf.dec[i].dflt;
	if (!rf.input_len && needs) {
		weft_replay_free(&rf);
		return cli_io_error("min: %s holds no raw fuzzer input (its schedule does not fit "
				    "the bytes encoding)", file);
	}
	char strategy[40];
	snprintf(strategy, sizeof(strategy), "%s", rf.strategy);
	/* the file's optional detectors and lockdep witness */
	struct weft_run_opts o;
	weft_replay_run_opts(&rf, sc, vi, &o);
	if (rf.nr_delays) {
		/* weak memory: the raw input has no store delays (the bytes
		 * encoding has none), so it would re-run another execution;
		 * the minimizer starts from the file's own, replayed */
		struct weft_replay_check c;
		rc = weft_replay_execute(&rf, sc, vi, &c);
		if (!rc && !c.reproduced) {
			fprintf(stderr, "weft: %s: DESYNC: %s\n", file, c.why);
			weft_replay_free(&rf);
			return WEFT_EXIT_DESYNC;
		}
		if (!rc)
			rc = weft_cli_min_execution(&o, &c.r, strategy, outdir, json, stdout);
		else
			rc = cli_io_error("%s: cannot replay it (%d)", file, rc);
		weft_replay_free(&rf);
		return rc;
	}
	rc = weft_cli_import(&o, rf.input, rf.input_len, outdir, strategy, json, stdout, NULL, 0);
	weft_replay_free(&rf);
	return rc;
}
