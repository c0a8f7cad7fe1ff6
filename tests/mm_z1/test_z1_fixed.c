/*
 * test_z1_fixed.c VARIANT [N] - a fixed variant of z1-lru stays silent:
 * dfs bound 2 covers the buggy variants' workloads (and two larger ones)
 * completely without a report, under both lock models; N random
 * executions (default 100000) over generated workloads, and pct, give no
 * report.
 */
#include <stdlib.h>
#include <string.h>

#include "z1_run.h"

/* Three CPUs at work on one page: two holders release it (a heuristic miss
 * leaves an orphan under the seed's scheme), the scan takes it, and a
 * truncate races a lookup on a cached page. */
static const uint8_t wl_three[] = {
	0x05,
	0x01, 0x00,     /* T0 release 0 */
	0x12, 0x00,     /* T1 scan 1 */
	0x21, 0x00,     /* T2 release 0 */
	0x03, 0x01,     /* T0 truncate 1 */
	0x20, 0x01,     /* T2 lookup 1 */
};
/* new page-cache page vs truncate of its slot vs a batched release */
static const uint8_t wl_batch[] = {
	0x04,
	0x04, 0x00,     /* T0 new (slot 8) */
	0x13, 0x08,     /* T1 truncate 8 */
	0x20, 0x08,     /* T2 lookup 8 */
	0x26, 0x00,     /* T2 release-all */
};

struct wl {
	const char *name;
	const uint8_t *b;
	size_t n;
	unsigned bound;
};

static const struct wl wls[] = {
	{ "release+scan (z1a/z1b trigger)", z1_wl_release_scan, sizeof(z1_wl_release_scan), 2 },
	{ "add+release (z1c trigger)", z1_wl_add_release, sizeof(z1_wl_add_release), 2 },
	{ "new+truncate", z1_wl_new_truncate, sizeof(z1_wl_new_truncate), 2 },
	{ "three CPUs on one page", wl_three, sizeof(wl_three), 2 },
	{ "new+truncate+lookup+release-all", wl_batch, sizeof(wl_batch), 2 },
};

int main(int argc, char **argv)
{
	const char *variant = argc > 1 ? argv[1] : "fix-unless-zero";
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
	unsigned vi;
	const struct weft_scenario *sc = z1_scenario(variant, &vi);

	if (weft_machine_init())
		return 2;
	CHECK(!sc->variants[vi].buggy, "%s is not a fixed variant", variant);
	for (size_t i = 0; i < sizeof(wls) / sizeof(wls[0]); i++) {
		for (int l = 0; l < 2; l++) {
			enum weft_lock_model lock = l ? WEFT_LOCK_TICKET : WEFT_LOCK_TAS;
			struct z1_res d = z1_dfs(variant, lock, wls[i].bound, wls[i].b, wls[i].n,
						 NULL, NULL);
			CHECK(!d.bug && d.complete, "%s %s dfs bound %u on '%s': %s at step %u "
			      "(%s), complete %d", variant, l ? "ticket" : "tas", wls[i].bound,
			      wls[i].name, weft_kind_name(d.r.kind), d.r.report.here.step,
			      d.r.report.msg, d.complete);
			printf("%s %s dfs bound %u '%s': %s, %llu executions, complete %d\n",
			       variant, l ? "ticket" : "tas", wls[i].bound, wls[i].name,
			       d.bug ? weft_kind_name(d.r.kind) : "clean",
			       (unsigned long long)d.execs, d.complete);
		}
	}
	struct z1_res r = z1_random(variant, WEFT_LOCK_TAS, 20021, NULL, 0, n);
	CHECK(!r.bug && r.execs == n, "%s random (tas): %s after %llu executions: %s", variant,
	      weft_kind_name(r.r.kind), (unsigned long long)r.execs, r.r.report.msg);
	printf("%s random tas: %llu executions, %s\n", variant, (unsigned long long)r.execs,
	       r.bug ? weft_kind_name(r.r.kind) : "clean");
	r = z1_random(variant, WEFT_LOCK_TICKET, 20022, NULL, 0, n / 10);
	CHECK(!r.bug && r.execs == n / 10, "%s random (ticket): %s after %llu executions: %s",
	      variant, weft_kind_name(r.r.kind), (unsigned long long)r.execs, r.r.report.msg);
	r = z1_pct(variant, WEFT_LOCK_TAS, 20023, 3, NULL, 0, n / 10);
	CHECK(!r.bug && r.execs == n / 10, "%s pct: %s after %llu executions: %s", variant,
	      weft_kind_name(r.r.kind), (unsigned long long)r.execs, r.r.report.msg);
	return check_done();
}
