/*
 * cmd_import.c - `weft import CRASH --target SCENARIO:VARIANT`: a raw
 * libFuzzer/AFL++ crash input -> a minimized .weft and its race diagram.
 * weft_cli_import() is also what `weft run --out` and `weft fuzz` call on
 * every finding.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "replay_cli.h"

const char weft_help_import[] =
	"usage: weft import CRASH --target SCENARIO:VARIANT|./PROGRAM [options] [-- ARGS]\n\n"
	"Turns a raw fuzzer input (a libFuzzer crash-* or AFL++ crashes/id:* file of a\n"
	"fuzz_<scenario>_<variant> target: the bytes encoding of docs/strategies.md)\n"
	"into a minimized replay file: minimizes it (as weft min), writes\n"
	"<kind>-<scenario>-<variant>-<hash>.weft into --out (never overwriting), replays\n"
	"the written file, and prints before -> after, the race diagram, the artifact\n"
	"path and the command that replays it.\n"
	"  --target S:V      the scenario and variant the input was fuzzed on (required)\n"
	"  --lock tas|ticket lock model (default: the scenario's)\n"
	"  --memory M        the memory model the target fuzzed under (default: the\n"
	"                    scenario's), the weakest the input may ask for\n"
	"  --out DIR         where to write the .weft (default: .)\n"
	"  --strategy NAME   what found it, recorded in the file (default: fuzzer)\n"
	"  --kind K[,K...]   the kinds the fuzzer stopped at (weft fuzz --kind): the\n"
	"                    input re-runs past the warnings of other kinds, as there;\n"
	"                    one that fails with a kind not asked is not reproduced\n"
	"                    (exit 0, naming the kind it got)\n"
	"  --json            one JSON object: reproduced, scenario, variant, lock, memory,\n"
	"                    kind, site, artifact, bytes, existed, before, after,\n"
	"                    executions, seconds, replay (not reproduced: reproduced,\n"
	"                    scenario, variant, lock, memory; of a kind not asked:\n"
	"                    also kind, asked_kind)\n"
	"exit: 1 the crash reproduces (artifact written), 0 it does not fail (or not\n"
	"      with a --kind asked), 2 usage, 3 I/O or format, 4 the written file does\n"
	"      not replay (DESYNC)\n";

#include "race_diagram.h"

int weft_cli_load(const char *path, struct weft_replay *rf, int *exit_code)
{
	char err[256];
	int rc = weft_replay_load(path, rf, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "weft: %s: %s\n", path, err);
		*exit_code = WEFT_EXIT_IO;
	}
	return rc;
}

int cli_parse_load(const char *cmd, int argc, char **argv, const struct cli_flag *flags,
		   const char **file, struct weft_replay *rf)
{
	int ec = cli_parse_args(cmd, argc, argv, flags, "file", file);

	if (!ec)
		weft_cli_load(*file, rf, &ec);
	return ec;
}

void weft_cli_diagram(FILE *f, const struct weft_scenario *sc, unsigned vi,
		      enum weft_lock_model lock, const struct weft_exec_result *r, bool full)
{
	struct weft_trace_view v = { .sc = sc, .variant = vi, .lock = lock, .r = r };

	v.ev = weft_last_events(&v.n);
	weft_trace_view_init(&v);
	weft_race_diagram(f, &v, full);
	weft_trace_view_fini(&v);
}

/* weft_replay_save()'s WEFT_EFORMAT: the execution is beyond the format */
#define too_large_error()                                                                  \
	cli_io_error("not replayable: the execution is too large for a replay file (its "  \
		     "content would exceed %u bytes or the compressed file %u): nothing "  \
		     "stored", WEFT_REPLAY_MAX_CONTENT, WEFT_REPLAY_MAX_FILE)

static void json_measure(FILE *f, const char *name, const struct weft_min_measure *m)
{
	fprintf(f, ", \"%s\": {\"preemptions\": %" PRIu32 ", \"ops\": %" PRIu32
		   ", \"steps\": %" PRIu32 ", \"bytes\": %" PRIu32 ", \"threads\": %" PRIu32 "}",
		name, m->preemptions, m->ops, m->steps, m->bytes, m->threads);
}

/* Print the outcome of a minimization whose result is the machine's last
 * execution (recorded): store it, re-read and replay it, print. */
static int store_and_print(const struct weft_run_opts *ro,
			   const struct weft_min_result *mrp, const uint8_t *min, size_t min_len,
			   const char *outdir, const char *strategy, bool json, FILE *out,
			   char *pathout, size_t pathn)
{
	struct weft_min_result mr = *mrp;
	const struct weft_scenario *sc = ro->sc;
	unsigned vi = ro->variant;
	enum weft_lock_model lock = ro->lock;
	const char *lname = lock == WEFT_LOCK_TICKET ? "ticket" : "tas";
	const char *vname = sc->variants[vi].name;
	int rc;

	/* the minimizer's last execution is the minimized one, recorded (the
	 * file keeps the run's checks and lockdep witness) */
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = lock, .record = true,
				   .checks = ro->checks, .continue_kinds = ro->continue_kinds };
	struct weft_replay rf, back;
	rc = weft_replay_from_last(&rf, &o, &mr.final, strategy, min, min_len);
	if (rc)
		return cli_io_error("cannot build the replay file (%d)", rc);
	char path[4096];
	bool existed = false;
	rc = weft_replay_save(&rf, outdir, path, sizeof(path), &existed);
	weft_replay_free(&rf);
	if (rc == WEFT_EFORMAT)
		return too_large_error();
	if (rc)
		return cli_io_error("cannot write a replay file in '%s': %s", outdir,
				    strerror(errno));
	if (pathout)
		snprintf(pathout, pathn, "%s", path);

	/* round trip: what was written must replay */
	int ec = WEFT_EXIT_BUG;
	if (weft_cli_load(path, &back, &ec))
		return ec;
	const struct weft_scenario *bsc;
	unsigned bvi;
	char err[256] = "";
	struct weft_replay_check c;
	if (weft_replay_bind(&back, &bsc, &bvi, err, sizeof(err)) ||
	    weft_replay_execute(&back, bsc, bvi, &c) || !c.reproduced) {
		fprintf(stderr, "weft: %s does not replay: %s\n", path,
			err[0] ? err : c.why);
		weft_replay_free(&back);
		return WEFT_EXIT_DESYNC;
	}
	long fsize = 0;
	FILE *ff = fopen(path, "rb");
	if (ff) {
		fseek(ff, 0, SEEK_END);
		fsize = ftell(ff);
		fclose(ff);
	}
	const struct weft_site *s = c.r.report.here.site;
	if (json) {
		fprintf(out, "{\"reproduced\": true, \"scenario\": ");
		cli_json_str(out, sc->name);
		fprintf(out, ", \"variant\": ");
		cli_json_str(out, vname);
		fprintf(out, ", \"lock\": \"%s\", \"memory\": \"%s\", \"kind\": \"%s\", "
			     "\"site\": ", lname,
			weft_memory_name((enum weft_memory_model)back.memory),
			weft_kind_name(c.r.kind));
		if (s) {
			char st[256];
			weft_site_where(st, sizeof(st), s, c.r.report.here_caller);
			cli_json_str(out, st);
		} else {
			fprintf(out, "null");
		}
		fprintf(out, ", \"artifact\": ");
		cli_json_str(out, path);
		fprintf(out, ", \"bytes\": %ld, \"existed\": %s", fsize, existed ? "true" : "false");
		json_measure(out, "before", &mr.before);
		json_measure(out, "after", &mr.after);
		fprintf(out, ", \"executions\": %" PRIu64 ", \"seconds\": %.3f, \"replay\": ",
			mr.executions, mr.seconds);
		char cmd[4200];
		snprintf(cmd, sizeof(cmd), "%s replay %s", cli_prog, path);
		cli_json_str(out, cmd);
		fprintf(out, "}\n");
	} else {
		char b1[48];
		fprintf(out, "minimized in %.3f s, %s: preemptions %" PRIu32
			     " -> %" PRIu32 ", operations %" PRIu32 " -> %" PRIu32 ", steps %" PRIu32
			     " -> %" PRIu32 ", bytes %" PRIu32 " -> %" PRIu32 ", threads %" PRIu32
			     " -> %" PRIu32 "\n\n",
			mr.seconds, cli_plural(b1, sizeof(b1), mr.executions, "execution"),
			mr.before.preemptions, mr.after.preemptions,
			mr.before.ops, mr.after.ops, mr.before.steps, mr.after.steps,
			mr.before.bytes, mr.after.bytes, mr.before.threads, mr.after.threads);
		weft_cli_diagram(out, bsc, bvi, (enum weft_lock_model)back.lock, &c.r, false);
		fprintf(out, "\nartifact: %s (%ld bytes%s)\n", path, fsize,
			existed ? ", already stored" : "");
		fprintf(out, "replay:   %s replay %s\n", cli_prog, path);
		fprintf(out, "SUMMARY: weft: %s %s:%s", weft_kind_name(c.r.kind), sc->name, vname);
		if (s && c.r.report.here_caller)
			fprintf(out, " in %s %s:%u", c.r.report.here_caller->func,
				weft_caller_file(c.r.report.here_caller),
				c.r.report.here_caller->line);
		else if (s)
			fprintf(out, " in %s %s:%u", s->func, weft_site_file(s), s->line);
		fprintf(out, "\n");
	}
	weft_replay_free(&back);
	return WEFT_EXIT_BUG;
}

int weft_cli_import(const struct weft_run_opts *o, const uint8_t *in, size_t len,
		    const char *outdir, const char *strategy, bool json, FILE *out, char *pathout,
		    size_t pathn)
{
	uint8_t min[WEFT_INPUT_MAX];
	size_t min_len = 0;
	struct weft_min_result mr;
	const struct weft_scenario *sc = o->sc;
	const char *lname = o->lock == WEFT_LOCK_TICKET ? "ticket" : "tas";
	const char *vname = sc->variants[o->variant].name;
	int rc = weft_minimize(o, in, len, min, &min_len, &mr);

	if (rc == WEFT_ENOENT) {
		if (json) {
			fprintf(out, "{\"reproduced\": false, \"scenario\": ");
			cli_json_str(out, sc->name);
			fprintf(out, ", \"variant\": ");
			cli_json_str(out, vname);
			fprintf(out, ", \"lock\": \"%s\", \"memory\": \"%s\"}\n", lname,
				weft_memory_name((enum weft_memory_model)o->memory));
		} else {
			/* the lock and memory model it ran under: a crash found
			 * under lkmm does not fail under sc (--memory) */
			fprintf(out, "weft: the input does not fail on %s:%s (lock %s, memory %s): "
				     "nothing to store\n", sc->name, vname, lname,
				weft_memory_name((enum weft_memory_model)o->memory));
		}
		return WEFT_EXIT_CLEAN;
	}
	if (rc == WEFT_EDESYNC) {
		fprintf(stderr, "weft: the minimized input stopped failing when re-run: "
				"nondeterministic model?\n");
		return WEFT_EXIT_DESYNC;
	}
	if (rc)
		return cli_io_error("minimizer failed (%d)", rc);
	return store_and_print(o, &mr, min, min_len, outdir, strategy, json, out, pathout, pathn);
}

int weft_cli_import_raw(const struct weft_run_opts *o, const uint8_t *in, size_t len,
			const char *outdir, const char *strategy, bool json)
{
	static uint8_t fresh[WEFT_INPUT_MAX];
	const uint8_t *run = weft_raw_input(o->sc, o->variant, o->memory, in, &len, fresh);

	return weft_cli_import(o, run, len, outdir, strategy, json, stdout, NULL, 0);
}

/* Minimize the machine's last execution (r) and store it; json: one
 * object, as weft_cli_import prints. */
static int store_last(const struct weft_run_opts *o, const struct weft_exec_result *r,
		      const char *strategy, const char *outdir, bool json, FILE *out, char *path,
		      size_t pathn)
{
	uint8_t min[WEFT_INPUT_MAX];
	size_t min_len = 0;
	struct weft_min_result mr;
	int rc = weft_minimize_last(o, r, min, &min_len, &mr);

	if (rc == 0)
		return store_and_print(o, &mr, min, min_len, outdir, strategy, json, out, path,
				       pathn);
	if (rc == WEFT_EDESYNC) {
		fprintf(stderr, "weft: the finding does not reproduce under the minimizer's "
				"schedule: nondeterministic model?\n");
		return WEFT_EXIT_DESYNC;
	}
	if (rc != WEFT_EINVAL)
		return cli_io_error("minimizer failed (%d)", rc);
	/* the schedule is beyond the minimizer: store the execution as it is
	 * (the caller's last execution is its recorded re-run) */
	struct weft_replay rf;
	bool existed;
	rc = weft_replay_from_last(&rf, o, r, strategy, NULL, 0);
	if (rc)
		return cli_io_error("cannot build the replay file (%d)", rc);
	rc = weft_replay_save(&rf, outdir, path, pathn, &existed);
	weft_replay_free(&rf);
	if (rc == WEFT_EFORMAT)
		return too_large_error();
	if (rc)
		return cli_io_error("cannot write a replay file in '%s': %s", outdir,
				    strerror(errno));
	if (json) {
		fprintf(out, "{\"reproduced\": true, \"minimized\": false, \"artifact\": ");
		cli_json_str(out, path);
		fprintf(out, "}\n");
	} else {
		fprintf(out, "the execution could not be minimized: stored as it is\nartifact: %s\n"
			     "replay:   %s replay %s\n", path, cli_prog, path);
	}
	return WEFT_EXIT_BUG;
}

int weft_cli_store_finding(const struct weft_run_opts *o, const struct weft_exec_result *r,
			   const char *strategy, const uint8_t *in, size_t len,
			   const char *outdir, FILE *out, char *path, size_t pathn)
{
	(void)in;
	(void)len;
	return store_last(o, r, strategy, outdir, false, out, path, pathn);
}

int weft_cli_min_execution(const struct weft_run_opts *o, const struct weft_exec_result *r,
			   const char *strategy, const char *outdir, bool json, FILE *out)
{
	return store_last(o, r, strategy, outdir, json, out, NULL, 0);
}

bool cli_model_flag(const char *cmd, const char *a, const char *v, struct cli_model_flags *m,
		    int *rc)
{
	bool is_lock = !strcmp(a, "--lock");
	const char *why = "";

	if (!is_lock && strcmp(a, "--memory"))
		return false;
	*rc = 0;
	if (!v)
		*rc = cli_usage_error("%s: %s needs a value", cmd, a);
	else if (is_lock && !cli_parse_lock(v, &m->lock))
		*rc = cli_usage_error("%s: --lock takes tas or ticket, not '%s'", cmd, v);
	else if (!is_lock && !weft_memory_parse(v, &m->memory, &why))
		*rc = cli_usage_error("%s: --memory '%s': %s", cmd, v, why);
	else if (is_lock)
		m->lock_set = true;
	else
		m->memory_set = true;
	return true;
}

void cli_model_of(const struct cli_model_flags *m, const struct weft_scenario *sc,
		  enum weft_lock_model *lock, enum weft_memory_model *memory)
{
	*lock = m->lock_set ? m->lock : sc->default_lock;
	*memory = WEFT_MEM_SC;
	if (m->memory_set)
		*memory = m->memory;
	else if (sc->memory <= WEFT_MEM_LKMM)
		*memory = (enum weft_memory_model)sc->memory;
}

int cli_target_opts(const char *cmd, const char *spec, const char *lock_s, const char *memory_s,
		    struct weft_run_opts *o)
{
	unsigned vi;
	enum weft_lock_model lock;
	int rc;
	const struct weft_scenario *sc = cli_scenario_lock(cmd, spec, lock_s, &vi, &lock, &rc);
	enum weft_memory_model memory;
	const char *why = "";

	if (!sc)
		return rc;
	memory = (enum weft_memory_model)sc->memory;
	if (memory_s && !weft_memory_parse(memory_s, &memory, &why))
		return cli_usage_error("%s: --memory '%s': %s", cmd, memory_s, why);
	*o = (struct weft_run_opts){ .sc = sc, .variant = vi, .lock = lock,
				     .checks = WEFT_CHECKS_DEFAULT, .memory = (uint8_t)memory };
	return 0;
}

/* --kind: an input that fails with another kind is not the crash asked
 * for (the fuzzer would not have stopped at it): say which kind it got,
 * store nothing, exit 0 as for an input that does not fail. -1: it fails
 * with an asked kind, or not at all (the import says so). */
static int not_the_kind(const struct weft_run_opts *o, const uint8_t *in, size_t len,
			uint64_t want, bool json)
{
	static uint8_t fresh[WEFT_INPUT_MAX];
	const uint8_t *run = weft_raw_input(o->sc, o->variant, o->memory, in, &len, fresh);
	struct weft_bytes *bs = malloc(sizeof(*bs));
	struct weft_exec_result r;

	if (!bs)
		return cli_io_error("out of memory");
	weft_bytes_init(bs, o->sc, run, len);
	int erc = weft_execute(o, &weft_strategy_bytes, bs, &r);
	free(bs);
	if (erc)
		return cli_io_error("import: cannot execute the input (%d)", erc);
	if (r.kind == WEFT_KIND_NONE || (want >> r.kind & 1))
		return -1;
	const char *vname = o->sc->variants[o->variant].name;
	char asked[512] = "";
	for (unsigned k = 1; k < 64; k++)
		if (want >> k & 1 && weft_kind_name((enum weft_kind)k))
			snprintf(asked + strlen(asked), sizeof(asked) - strlen(asked), "%s%s",
				 asked[0] ? "," : "", weft_kind_name((enum weft_kind)k));
	if (json) {
		printf("{\"reproduced\": false, \"scenario\": ");
		cli_json_str(stdout, o->sc->name);
		printf(", \"variant\": ");
		cli_json_str(stdout, vname);
		printf(", \"lock\": \"%s\", \"memory\": \"%s\", \"kind\": ",
		       o->lock == WEFT_LOCK_TICKET ? "ticket" : "tas",
		       weft_memory_name((enum weft_memory_model)o->memory));
		cli_json_str(stdout, weft_kind_name(r.kind));
		printf(", \"asked_kind\": ");
		cli_json_str(stdout, asked);
		printf("}\n");
	} else {
		printf("weft: the input fails on %s:%s with %s, not the asked --kind %s: nothing "
		       "to store\n", o->sc->name, vname, weft_kind_name(r.kind), asked);
	}
	return WEFT_EXIT_CLEAN;
}

int cmd_import(int argc, char **argv)
{
	const char *crash = NULL, *target = NULL, *outdir = ".", *strategy = "fuzzer";
	const char *lock_s = NULL, *memory_s = NULL;
	bool json = false;
	uint64_t want_kinds = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--kind")) {
			char bad[256];
			if (!v)
				return cli_usage_error("import: %s needs a value", a);
			i++;
			if (!cli_parse_kinds(v, &want_kinds, bad, sizeof(bad)))
				return cli_usage_error("import: --kind: no report kind '%s' "
						       "(docs/detectors.md)", bad);
		} else if (!strcmp(a, "--target") || !strcmp(a, "--out") || !strcmp(a, "--lock") ||
			   !strcmp(a, "--strategy") || !strcmp(a, "--memory")) {
			if (!v)
				return cli_usage_error("import: %s needs a value", a);
			i++;
			if (!strcmp(a, "--target"))
				target = v;
			else if (!strcmp(a, "--memory"))
				memory_s = v;
			else if (!strcmp(a, "--out"))
				outdir = v;
			else if (!strcmp(a, "--lock"))
				lock_s = v;
			else
				strategy = v;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("import: unknown flag '%s' (%s help import)", a,
					       cli_prog);
		} else if (!crash) {
			crash = a;
		} else {
			return cli_usage_error("import: unexpected argument '%s'", a);
		}
	}
	if (!crash)
		return cli_usage_error("import: which crash file? (%s help import)", cli_prog);
	if (!target)
		return cli_usage_error("import: --target SCENARIO:VARIANT is required (the "
				       "fuzz target fuzz_<scenario>_<variant> it came from)");
	if (strlen(strategy) > 32 || !*strategy)
		return cli_usage_error("import: --strategy takes a name of 1..32 characters");
	for (const char *p = strategy; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return cli_usage_error("import: --strategy takes [A-Za-z0-9._-]");
	struct weft_run_opts o;
	int rc = cli_target_opts("import", target, lock_s, memory_s, &o);
	if (rc)
		return rc;
	static uint8_t buf[65536];
	long n = cli_read_file(crash, buf, sizeof(buf));
	if (n < 0)
		return cli_io_error("import: cannot read '%s': %s", crash, strerror(errno));
	if (weft_replay_sniff(buf, (size_t)n))
		return cli_usage_error("import: '%s' is already a replay file (use %s min)", crash,
				       cli_prog);
	/* a fuzz target's crash: the target's optional detectors */
	cli_continue_past_warnings(&o, want_kinds);
	if (want_kinds && (rc = not_the_kind(&o, buf, (size_t)n, want_kinds, json)) >= 0)
		return rc;
	return weft_cli_import_raw(&o, buf, (size_t)n, outdir, strategy, json);
}
