/*
 * cmd_replay.c - `weft replay FILE`: re-execute a .weft under the replay
 * strategy, check that it reproduces (same decisions, state hashes,
 * verdict and trace hash) or report DESYNC at the first divergent step,
 * and show the race: per-CPU diagram, Chrome trace JSON, HTML.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "replay_cli.h"

const char weft_help_replay[] =
	"usage: weft replay FILE [options]\n\n"
	"Re-executes a replay file (.weft) under the replay strategy and checks that it\n"
	"reproduces: the same scheduling decisions, the same periodic state hashes, the\n"
	"same verdict (kind, site, step) and the same trace hash. Any divergence is\n"
	"reported as DESYNC at the first divergent step, with the recorded and the\n"
	"replayed view. On success prints the race as a per-CPU diagram; a loop that\n"
	"turns three times or more (a livelock's spin) prints one turn and a row saying\n"
	"how many more turns, over which steps. A file made by an instrumented program\n"
	"(weft-cc) is handed to that program, which refuses it if it was rebuilt since\n"
	"(exit 5).\n"
	"  --full             every step in the diagram, not only the ones that matter,\n"
	"                     no loop folded\n"
	"  --json             one JSON object: file, scenario, variant, lock, reproduced,\n"
	"                     verdict (\"bug\"|\"clean\"), kind, site, step, desync_step (null\n"
	"                     if none; the last step if the run ended without the\n"
	"                     recorded verdict), desync_reason, expected_kind,\n"
	"                     expected_step, trace_hash, expected_trace_hash, steps,\n"
	"                     preemptions, stale; with --variant: file, scenario,\n"
	"                     recorded_variant, variant, memory, verdict, kind,\n"
	"                     expected, steps, trace_hash\n"
	"  --trace-json OUT   write a Chrome trace / Perfetto JSON timeline to OUT\n"
	"  --html OUT         write a self-contained HTML timeline to OUT\n"
	"  --force            replay a stale file (recorded with another model fingerprint)\n"
	"  --variant V        instead: run the file's raw fuzzer input (bytes strategy) on\n"
	"                     variant V of the same scenario, e.g. a fixed variant, and\n"
	"                     report its verdict (no DESYNC check: the model differs),\n"
	"                     under the file's lock, memory model and store delays\n"
	"                     (weft info: delayed_stores; the n-th store of the run\n"
	"                     gets the n-th recorded store's delay)\n"
	"  --quiet            no diagram (exit code and errors only)\n"
	"exit: 1 the recorded bug reproduced (with --variant: V has a bug), 0 a clean\n"
	"      recording reproduced (with --variant: V is clean), 2 usage, 3 I/O or\n"
	"      format error, 4 DESYNC, 5 stale file or scenario not in this build\n";

#include "race_diagram.h"
#include "timeline.h"

static int write_timeline(const char *path, const struct weft_trace_view *v, bool html)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return cli_io_error("replay: cannot write '%s'", path);
	if (html)
		weft_timeline_html(f, v);
	else
		weft_timeline_chrome_json(f, v);
	if (fclose(f))
		return cli_io_error("replay: error writing '%s'", path);
	return 0;
}

static void print_dec(FILE *f, const char *label, const struct weft_decision_rec *d)
{
	const struct weft_site *s = weft_site_by_id(d->site_id);

	fprintf(f, "  %s step %" PRIu32 ", runnable {", label, d->step);
	for (unsigned t = 0, first = 1; t < 64; t++)
		if (d->runnable >> t & 1) {
			fprintf(f, "%sT%u", first ? "" : ",", t);
			first = 0;
		}
	fprintf(f, "}, ");
	if (d->cur == 0xff)
		fprintf(f, "no current thread");
	else
		fprintf(f, "current T%u", d->cur);
	fprintf(f, ", default T%u, chose T%u, at ", d->dflt, d->chosen);
	if (!d->site_id)
		fprintf(f, "a free switch\n");
	else if (s)
		fprintf(f, "%s in %s() %s:%u\n", s->what, s->func, weft_site_file(s), s->line);
	else
		fprintf(f, "site %08" PRIx32 " (not in this build)\n", d->site_id);
}

static int replay_variant(const char *file, const struct weft_replay *rf,
			  const struct weft_scenario *sc, const char *variant, bool json,
			  bool full, bool quiet, const char *tj, const char *html)
{
	unsigned vi;
	for (vi = 0; vi < sc->nr_variants; vi++)
		if (!strcmp(sc->variants[vi].name, variant))
			break;
	if (vi == sc->nr_variants)
		return cli_usage_error("replay: %s has no variant '%s'", sc->name, variant);
	struct weft_exec_result r;
	struct weft_run_opts o;
	int erc = weft_replay_run_input(rf, sc, vi, true, &o, &r);
	if (erc == WEFT_EINVAL)
		return cli_io_error("replay: %s holds no raw fuzzer input (its schedule does not "
				    "fit the bytes encoding): --variant cannot run it", file);
	if (erc)
		return cli_io_error("replay: cannot execute %s", file);
	struct weft_trace_view v = { .sc = sc, .variant = vi, .lock = o.lock, .r = &r };
	v.ev = weft_last_events(&v.n);
	weft_trace_view_init(&v);
	if (json) {
		printf("{\"file\": ");
		cli_json_str(stdout, file);
		printf(", \"scenario\": ");
		cli_json_str(stdout, sc->name);
		printf(", \"recorded_variant\": ");
		cli_json_str(stdout, rf->variant);
		printf(", \"variant\": ");
		cli_json_str(stdout, variant);
		printf(", \"memory\": \"%s\"", weft_memory_name(weft_last_memory()));
		printf(", \"verdict\": \"%s\", \"kind\": ", r.kind ? "bug" : "clean");
		if (r.kind)
			cli_json_str(stdout, weft_kind_name(r.kind));
		else
			printf("null");
		printf(", \"expected\": \"%s\", \"steps\": %" PRIu32 ", \"trace_hash\": \"%016" PRIx64
		       "\"}\n", sc->variants[vi].buggy ? "bug" : "clean", r.steps, r.trace_hash);
	} else if (!quiet) {
		printf("%s: raw input of %s:%s run on %s:%s (%s, memory %s", file, rf->scenario,
		       rf->variant, sc->name, variant, sc->variants[vi].buggy ? "buggy" : "fixed",
		       weft_memory_name(weft_last_memory()));
		if (rf->nr_delays)
			printf(" with the recorded store delays");
		printf("): %s\n", r.kind ? weft_kind_name(r.kind) : "clean");
		if (r.kind)
			weft_race_diagram(stdout, &v, full);
	}
	int rc = r.kind ? WEFT_EXIT_BUG : WEFT_EXIT_CLEAN;
	if (tj && write_timeline(tj, &v, false))
		rc = WEFT_EXIT_IO;
	if (html && write_timeline(html, &v, true))
		rc = WEFT_EXIT_IO;
	weft_trace_view_fini(&v);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	const char *file = NULL, *tj = NULL, *html = NULL, *variant = NULL;
	bool full = false, json = false, force = false, quiet = false;

	const struct cli_flag flags[] = {
		{ "--full", NULL, &full, NULL }, { "--json", NULL, &json, NULL },
		{ "--force", NULL, &force, NULL }, { "--quiet", NULL, &quiet, NULL },
		{ "--trace-json", NULL, NULL, &tj }, { "--html", NULL, NULL, &html },
		{ "--variant", NULL, NULL, &variant }, { 0 },
	};
	struct weft_replay rf;
	int ec = cli_parse_load("replay", argc, argv, flags, &file, &rf);

	if (ec)
		return ec;
	const struct weft_scenario *sc;
	unsigned vi;
	char err[300];
	bool stale = false;
	int rc = weft_replay_bind(&rf, &sc, &vi, err, sizeof(err));
	if (rc == WEFT_ENOENT || (rc == WEFT_ESTALE && !force && !variant)) {
		fprintf(stderr, "weft: %s: %s\n", file, err);
		weft_replay_free(&rf);
		return WEFT_EXIT_STALE;
	}
	if (rc == WEFT_ESTALE) {
		stale = true;
		if (!json)
			fprintf(stderr, "weft: warning: %s: %s\n", file, err);
	} else if (rc) {
		fprintf(stderr, "weft: %s: %s\n", file, err);
		weft_replay_free(&rf);
		return WEFT_EXIT_IO;
	}
	if (variant) {
		rc = replay_variant(file, &rf, sc, variant, json, full, quiet, tj, html);
		weft_replay_free(&rf);
		return rc;
	}

	struct weft_replay_check c;
	if (weft_replay_execute(&rf, sc, vi, &c)) {
		weft_replay_free(&rf);
		return cli_io_error("replay: cannot execute %s", file);
	}
	const struct weft_site *s = c.r.report.here.site;
	char site[256] = "";
	if (s)
		weft_site_where(site, sizeof(site), s, c.r.report.here_caller);
	if (json) {
		printf("{\"file\": ");
		cli_json_str(stdout, file);
		printf(", \"scenario\": ");
		cli_json_str(stdout, rf.scenario);
		printf(", \"variant\": ");
		cli_json_str(stdout, rf.variant);
		printf(", \"lock\": \"%s\", \"reproduced\": %s, \"verdict\": \"%s\", \"kind\": ",
		       rf.lock == WEFT_LOCK_TICKET ? "ticket" : "tas", c.reproduced ? "true" : "false",
		       c.r.kind ? "bug" : "clean");
		if (c.r.kind)
			cli_json_str(stdout, weft_kind_name(c.r.kind));
		else
			printf("null");
		printf(", \"site\": ");
		if (site[0])
			cli_json_str(stdout, site);
		else
			printf("null");
		printf(", \"step\": %" PRIu32 ", \"expected_kind\": ", c.r.report.here.step);
		cli_json_str(stdout, rf.kind ? weft_kind_name(rf.kind) : "none");
		printf(", \"expected_step\": %" PRIu32 ", \"desync_step\": ", rf.here.step);
		if (c.desync)
			printf("%" PRIu32 ", \"desync_reason\": ", c.desync_step);
		else
			printf("null, \"desync_reason\": ");
		if (c.desync)
			cli_json_str(stdout, c.why);
		else
			printf("null");
		printf(", \"trace_hash\": \"%016" PRIx64 "\", \"expected_trace_hash\": \"%016" PRIx64
		       "\", \"steps\": %" PRIu32 ", \"preemptions\": %" PRIu32 ", \"stale\": %s}\n",
		       c.r.trace_hash, rf.trace_hash, c.r.steps, c.r.preemptions,
		       stale ? "true" : "false");
	}
	if (c.desync) {
		if (!json) {
			if (c.ended)
				fprintf(stderr, "weft: DESYNC: %s: %s\n", file, c.why);
			else
				fprintf(stderr, "weft: DESYNC: %s: the replay diverged from the "
						"recording at step %" PRIu32 ": %s\n", file,
					c.desync_step, c.why);
			if (c.have_views) {
				fprintf(stderr, "  decision #%" PRIu32 ":\n", c.desync_index);
				print_dec(stderr, "recorded:", &c.expected);
				if (c.got.runnable)
					print_dec(stderr, "replayed:", &c.got);
				else
					fprintf(stderr, "  replayed: the execution ended before it\n");
			}
			fprintf(stderr, "SUMMARY: weft: DESYNC %s:%s at step %" PRIu32 "\n",
				rf.scenario, rf.variant, c.desync_step);
		}
		weft_replay_free(&rf);
		return WEFT_EXIT_DESYNC;
	}
	struct weft_trace_view v = { .sc = sc, .variant = vi,
				     .lock = (enum weft_lock_model)rf.lock, .r = &c.r };
	v.ev = weft_last_events(&v.n);
	weft_trace_view_init(&v);
	if (!json && !quiet) {
		printf("%s: reproduced (%s:%s, recorded by %s, %s)\n\n", file, rf.scenario, rf.variant,
		       rf.strategy, rf.tool);
		weft_race_diagram(stdout, &v, full);
		printf("\ntrace hash %016" PRIx64 " (matches the recording)\n", c.r.trace_hash);
		if (c.r.kind)
			printf("SUMMARY: weft: %s %s:%s%s%s\n", weft_kind_name(c.r.kind), rf.scenario,
			       rf.variant, site[0] ? " in " : "", site);
	}
	rc = c.r.kind ? WEFT_EXIT_BUG : WEFT_EXIT_CLEAN;
	if (tj && write_timeline(tj, &v, false))
		rc = WEFT_EXIT_IO;
	if (html && write_timeline(html, &v, true))
		rc = WEFT_EXIT_IO;
	weft_trace_view_fini(&v);
	weft_replay_free(&rf);
	return rc;
}
