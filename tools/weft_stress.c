/*
 * weft_stress.c - the weft-stress program: the native stress loop over the
 * models built with -DWEFT_NATIVE (core/src/native/native.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/native_run.h>
#include <weft/weft.h>

#include "cli.h"

int main(int argc, char **argv)
{
	struct weft_native_opts o = { .seconds = 10, .seed = 1 };
	const char *spec = NULL;
	bool json = false, lock_set = false;
	uint64_t threads = 0;
	static uint8_t wl[WEFT_INPUT_MAX];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--stop-first")) {
			o.stop_first = true;
		} else if (!strcmp(a, "--time") && v) {
			if (!cli_parse_double(v, &o.seconds))
				return cli_usage_error("stress: --time takes seconds");
			i++;
		} else if (!strcmp(a, "--hang") && v) {
			if (!cli_parse_double(v, &o.hang_seconds) || o.hang_seconds <= 0)
				return cli_usage_error("stress: --hang takes positive seconds");
			i++;
		} else if (!strcmp(a, "--seed") && v) {
			if (!cli_parse_u64(v, &o.seed))
				return cli_usage_error("stress: --seed takes a number");
			i++;
		} else if (!strcmp(a, "--iterations") && v) {
			if (!cli_parse_u64(v, &o.max_iterations))
				return cli_usage_error("stress: --iterations takes a number");
			i++;
		} else if (!strcmp(a, "--threads") && v) {
			if (!cli_parse_u64(v, &threads))
				return cli_usage_error("stress: --threads takes a number");
			i++;
		} else if (!strcmp(a, "--lock") && v) {
			if (!cli_parse_lock(v, &o.lock))
				return cli_usage_error("stress: --lock takes tas or ticket");
			lock_set = true;
			i++;
		} else if (!strcmp(a, "--workload") && v) {
			char why[160];
			long n = cli_workload_decode(v, wl, sizeof(wl), why, sizeof(why));
			if (n < 0)
				return cli_usage_error("stress: --workload %s", why);
			o.wl = wl;
			o.wl_len = (size_t)n;
			i++;
		} else if (a[0] == '-') {
			return cli_usage_error("stress: unknown flag or missing value '%s'", a);
		} else if (!spec) {
			spec = a;
		} else {
			return cli_usage_error("stress: unexpected argument '%s'", a);
		}
	}
	if (!spec)
		return cli_usage_error("stress: which scenario? (weft list)");
	o.sc = cli_scenario(spec, &o.variant);
	if (!o.sc)
		return WEFT_EXIT_USAGE;
	if (threads && threads != o.sc->nr_threads)
		return cli_usage_error("stress: %s runs exactly %u threads", o.sc->name,
				       o.sc->nr_threads);
	if (!lock_set)
		o.lock = o.sc->default_lock;

	struct weft_native_result r;
	if (weft_native_run(&o, &r))
		return cli_io_error("stress: cannot start threads");
	const char *vname = o.sc->variants[o.variant].name;
	if (json) {
		printf("{\"scenario\": \"%s\", \"variant\": \"%s\", \"iterations\": %" PRIu64
		       ", \"manifestations\": %" PRIu64 ", \"seconds\": %.3f, \"first_seconds\": ",
		       o.sc->name, vname, r.iterations, r.manifestations, r.seconds);
		if (r.manifestations)
			printf("%.6f, \"first_iteration\": %" PRIu64 ", \"kind\": \"%s\"}\n",
			       r.first_seconds, r.first_iteration, weft_kind_name(r.first.kind));
		else
			printf("null, \"first_iteration\": null, \"kind\": null}\n");
	} else {
		char b1[48], b2[48];
		printf("stress %s:%s: %s in %.1f s (%.0f/s), %s\n", o.sc->name, vname,
		       cli_plural(b1, sizeof(b1), r.iterations, "iteration"), r.seconds,
		       (double)r.iterations / r.seconds,
		       cli_plural(b2, sizeof(b2), r.manifestations, "manifestation"));
		if (r.manifestations) {
			printf("first: iteration %" PRIu64 " after %.3f s: %s: %s", r.first_iteration,
			       r.first_seconds, weft_kind_name(r.first.kind), r.first.msg);
			if (r.first.site)
				printf(" (%s at %s:%u)", r.first.site->func,
				       weft_site_file(r.first.site), r.first.site->line);
			printf("\n");
		}
	}
	return r.manifestations ? WEFT_EXIT_BUG : WEFT_EXIT_CLEAN;
}
