/*
 * cmd_info.c - `weft info FILE`: the metadata of a .weft without running
 * it (docs/replay-format.md names every field).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "replay_cli.h"

const char weft_help_info[] =
	"usage: weft info FILE [--json]\n\n"
	"Prints a replay file's metadata without executing it: format version,\n"
	"scenario, variant, model fingerprint (and whether this build's model differs:\n"
	"stale), CPUs, threads, lock model, the strategy that found it, the raw fuzzer\n"
	"input (hex), sizes of the decision list, choices and state hashes, the\n"
	"expected verdict (kind, site, step, both sides) and the trace hash.\n"
	"  --json   one JSON object with the same fields: file, format_version,\n"
	"           scenario, variant, fingerprint, current_fingerprint (null if the\n"
	"           scenario is not in this build), stale, cpus, threads, lock,\n"
	"           memory (sc|tso|lkmm), delayed_stores, lockdep, lockdep_facts,\n"
	"           fair, continue_warnings (the checks the run used),\n"
	"           strategy, tool, input (hex), workload (hex), decisions,\n"
	"           preemptions, steps, choices, state_hashes, kind, site, site_id,\n"
	"           step, thread, cpu, object, message, other {site_id, step,\n"
	"           thread, cpu}, trace_hash, file_bytes, fuzz_target (the built\n"
	"           fuzz target of this scenario and variant, or null)\n"
	"exit: 0 (also for a stale file: see \"stale\"), 2 usage, 3 I/O or format error\n";

#ifndef WEFT_BUILD_DIR
#define WEFT_BUILD_DIR ""
#endif

/*
 * The fuzz target of scenario:variant, only if this program has the
 * scenario and the target is built: in the build tree `weft fuzz` uses
 * (WEFT_BUILD_DIR, or the environment's), under fuzz/ or an engine build
 * beside it. A name that does not run is not a hint (issue 11).
 */
/* Stores a weak-memory file's execution kept buffered (delay code > 0). */
static size_t nr_delayed(const struct weft_replay *rf)
{
	size_t n = 0;

	for (size_t i = 0; i < rf->nr_delays; i++)
		n += rf->delays[i] != 0;
	return n;
}

static bool fuzz_target_path(const char *scn, const char *var, char *path, size_t n)
{
	static const char *const sub[] = { "fuzz", "fuzz-libfuzzer/fuzz", "fuzz-afl/fuzz" };
	const char *build = getenv("WEFT_BUILD_DIR");
	char spec[200], t[200];
	unsigned vi;
	size_t k = 0;

	if (!build)
		build = WEFT_BUILD_DIR;
	snprintf(spec, sizeof(spec), "%s:%s", scn, var);
	if (!*build || !weft_scenario_find(spec, &vi))
		return false;
	k = (size_t)snprintf(t, sizeof(t), "fuzz_%s_%s", scn, var);
	for (size_t i = 0; i < k && i < sizeof(t); i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
		      (t[i] >= '0' && t[i] <= '9')))
			t[i] = '_';
	for (unsigned i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, n, "%s/%s/%s", build, sub[i], t);
		if (access(path, X_OK) == 0)
			return true;
	}
	return false;
}

static void side_json(const struct weft_replay_side *s)
{
	printf("\"site_id\": \"%08" PRIx32 "\", \"step\": %" PRIu32 ", \"thread\": ", s->site_id,
	       s->step);
	if (s->tid == 0xff)
		printf("null, \"cpu\": null");
	else
		printf("%u, \"cpu\": %u", s->tid, s->cpu);
}

int cmd_info(int argc, char **argv)
{
	const char *file = NULL;
	bool json = false;

	const struct cli_flag flags[] = { { "--json", NULL, &json, NULL }, { 0 } };
	struct weft_replay rf;
	int ec = cli_parse_load("info", argc, argv, flags, &file, &rf);

	if (ec)
		return ec;
	long fsize = -1;
	FILE *f = fopen(file, "rb");
	if (f) {
		fseek(f, 0, SEEK_END);
		fsize = ftell(f);
		fclose(f);
	}
	const struct weft_scenario *sc;
	unsigned vi;
	char err[300] = "";
	int rc = weft_replay_bind(&rf, &sc, &vi, err, sizeof(err));
	if (rc == WEFT_EFORMAT) {   /* corrupt for its scenario */
		fprintf(stderr, "weft: %s: %s\n", file, err);
		weft_replay_free(&rf);
		return WEFT_EXIT_IO;
	}
	bool known = rc != WEFT_ENOENT;
	uint64_t cur = known && sc ? weft_scenario_fingerprint(sc) : 0;
	unsigned pre = 0;
	for (size_t i = 0; i < rf.nr_dec; i++)
		pre += rf.dec[i].cur != 0xff && rf.dec[i].chosen != rf.dec[i].cur;
	const char *lock = rf.lock == WEFT_LOCK_TICKET ? "ticket" : "tas";
	const char *kind = rf.kind ? weft_kind_name(rf.kind) : "none";
	char target[4200];
	bool have_target = fuzz_target_path(rf.scenario, rf.variant, target, sizeof(target));

	if (json) {
		printf("{\"file\": ");
		cli_json_str(stdout, file);
		printf(", \"format_version\": \"%u.%u\", \"scenario\": ", rf.version_major,
		       rf.version_minor);
		cli_json_str(stdout, rf.scenario);
		printf(", \"variant\": ");
		cli_json_str(stdout, rf.variant);
		printf(", \"fingerprint\": \"%016" PRIx64 "\", \"current_fingerprint\": ",
		       rf.fingerprint);
		if (known)
			printf("\"%016" PRIx64 "\"", cur);
		else
			printf("null");
		printf(", \"stale\": %s, \"cpus\": %u, \"threads\": %u, \"lock\": \"%s\", "
		       "\"memory\": \"%s\", \"delayed_stores\": %zu, "
		       "\"lockdep\": %s, \"lockdep_facts\": %zu, \"fair\": %s, "
		       "\"continue_warnings\": %s, \"strategy\": ",
		       rc ? "true" : "false", rf.nr_cpus, rf.nr_threads, lock,
		       weft_memory_name((enum weft_memory_model)rf.memory), nr_delayed(&rf),
		       rf.checks & WEFT_CHECK_LOCKDEP ? "true" : "false", rf.nr_lockdep,
		       rf.checks & WEFT_CHECK_FAIR ? "true" : "false",
		       rf.checks & WEFT_CHECK_CONTINUE_WARNINGS ? "true" : "false");
		cli_json_str(stdout, rf.strategy);
		printf(", \"tool\": ");
		cli_json_str(stdout, rf.tool);
		printf(", \"input\": \"");
		cli_hex_print(stdout, rf.input, rf.input_len);
		printf("\", \"workload\": \"");
		cli_hex_print(stdout, rf.workload, rf.workload_len);
		printf("\", \"decisions\": %zu, \"preemptions\": %" PRIu32 ", \"steps\": %" PRIu32
		       ", \"choices\": %zu, \"state_hashes\": %zu, \"kind\": ",
		       rf.nr_dec, rf.preemptions, rf.steps, rf.nr_choices, rf.nr_state_hashes);
		cli_json_str(stdout, kind);
		printf(", \"site\": ");
		cli_json_str(stdout, rf.site_text);
		printf(", ");
		side_json(&rf.here);
		printf(", \"object\": ");
		cli_json_str(stdout, rf.object);
		printf(", \"message\": ");
		cli_json_str(stdout, rf.msg);
		printf(", \"other\": {");
		side_json(&rf.other);
		printf("}, \"trace_hash\": \"%016" PRIx64 "\", \"file_bytes\": %ld, \"fuzz_target\": ",
		       rf.trace_hash, fsize);
		if (have_target)
			cli_json_str(stdout, target);
		else
			printf("null");
		printf("}\n");
	} else {
		printf("file:         %s (%ld bytes, format %u.%u)\n", file, fsize, rf.version_major,
		       rf.version_minor);
		printf("target:       %s:%s\n", rf.scenario, rf.variant);
		if (have_target)
			printf("fuzz target:  %s\n", target);
		printf("model:        fingerprint %016" PRIx64, rf.fingerprint);
		if (!known)
			printf("  (scenario not in this build)\n");
		else if (rc)
			printf("  STALE: this build has %016" PRIx64 "\n", cur);
		else
			printf("  (matches this build)\n");
		printf("machine:      %u CPUs, %u threads, lock %s, memory %s", rf.nr_cpus,
		       rf.nr_threads, lock, weft_memory_name((enum weft_memory_model)rf.memory));
		if (rf.memory)
			printf(" (%zu of %zu stores delayed)", nr_delayed(&rf), rf.nr_delays);
		printf("\n");
		printf("found by:     %s (%s)\n", rf.strategy, rf.tool);
		printf("verdict:      %s", kind);
		if (rf.object[0])
			printf(" on %s", rf.object);
		printf(" at step %" PRIu32, rf.here.step);
		if (rf.here.tid != 0xff)
			printf(" (T%u on CPU%u)", rf.here.tid, rf.here.cpu);
		printf("\n");
		if (rf.site_text[0])
			printf("site:         %s\n", rf.site_text);
		if (rf.msg[0])
			printf("message:      %s\n", rf.msg);
		if (rf.other.site_id || rf.other.step) {
			const struct weft_site *s = weft_site_by_id(rf.other.site_id);
			printf("other side:   step %" PRIu32, rf.other.step);
			if (rf.other.tid != 0xff)
				printf(" (T%u on CPU%u)", rf.other.tid, rf.other.cpu);
			if (s)
				printf(", %s in %s() at %s:%u", s->what, s->func,
				       weft_site_file(s), s->line);
			printf("\n");
		}
		char b1[48], b2[48], b3[48], b4[48];
		printf("execution:    %s, %s, %s, %s\n",
		       cli_plural(b1, sizeof(b1), rf.steps, "step"),
		       cli_plural(b2, sizeof(b2), rf.nr_dec, "decision"),
		       cli_plural(b3, sizeof(b3), rf.preemptions, "preemption"),
		       cli_plural(b4, sizeof(b4), rf.nr_choices, "choice"));
		printf("trace hash:   %016" PRIx64 " (version %d, + %zu periodic state hashes)\n",
		       rf.trace_hash, rf.checks & WEFT_CHECK_TRACE_HASH2 ? 2 : 1, rf.nr_state_hashes);
		printf("checks:       %s",
		       !(rf.checks & WEFT_CHECK_LOCKDEP) ? "no lockdep"
		       : rf.checks & WEFT_CHECK_LOCKDEP_IRQ_ORDER ? "lockdep (with the irq-safe -> unsafe order rule)"
								  : "lockdep");
		if ((rf.checks & WEFT_CHECK_LOCKDEP) && !(rf.checks & WEFT_CHECK_LOCKDEP_SETUP_CLASSES))
			printf(" (locks initialised in setup classed by offset: recorded before init-site classes)");
		if (rf.checks & WEFT_CHECK_CONTINUE_WARNINGS)
			printf(", goes on past warnings of other kinds than the verdict's");
		printf(", %s", rf.checks & WEFT_CHECK_FAIR ? "fair scheduling of spin loops"
							   : "no fair scheduling (recorded before it)");
		if (!(rf.checks & WEFT_CHECK_SPAWN_CPU))
			printf(", spawned threads on the CPU after their creator's");
		if (rf.checks & WEFT_CHECK_FAIR_STATE)
			printf(", a program's spin loop waits for another thread's write (stores "
			       "that put a value back are no progress)");
		if (rf.nr_lockdep)
			printf(" (%zu lockdep fact%s from earlier executions of the run seed the "
			       "replay)", rf.nr_lockdep, rf.nr_lockdep == 1 ? "" : "s");
		printf("\n");
		printf("raw input:    %zu bytes: ", rf.input_len);
		cli_hex_print(stdout, rf.input, rf.input_len);
		printf("\n");
		(void)pre;
	}
	weft_replay_free(&rf);
	return WEFT_EXIT_CLEAN;
}
