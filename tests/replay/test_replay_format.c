/*
 * test_replay_format.c - .weft round trips (write -> read -> replay) for
 * the demos and every buggy zoo variant, hostile-byte robustness of the
 * reader (every truncation, every single-bit flip of the content, every
 * value of each range-checked byte field), DESYNC on a tampered decision
 * and a tampered verdict, stale detection, the never-overwrite writer, and
 * the size limits (WEFT_REPLAY_MAX_DECISIONS decisions of a long execution
 * are written and read back; the writer refuses content or a file a reader
 * would refuse).
 *
 * usage: test_replay_format SCRATCH_DIR
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weft/replay.h>

#include "check.h"

static const char *scratch;
static unsigned state_tampers;   /* state hashes changed, over all cases */

/* Find the variant's bug by preemption-bounded DFS on its trigger
 * workload; leaves the recorded execution as the machine's last. */
static bool find_bug(const struct weft_scenario *sc, unsigned vi, enum weft_lock_model lock,
		     struct weft_run_opts *o, struct weft_exec_result *r)
{
	static struct weft_dfs dfs;
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = weft_trigger_workload(sc, vi, wl, sizeof(wl));
	char why[256];

	memset(o, 0, sizeof(*o));
	o->sc = sc;
	o->variant = vi;
	o->lock = lock;
	for (unsigned bound = 0; bound <= 3; bound++) {
		weft_dfs_init(&dfs, sc, bound, wl, wl_len);
		for (unsigned it = 0; it < 200000; it++) {
			if (weft_execute(o, &weft_strategy_dfs, &dfs, r) < 0)
				break;
			if (r->kind != WEFT_KIND_NONE) {
				if (weft_check_determinism(o, r, why, sizeof(why)))
					return false;
				o->record = true;
				return true;
			}
		}
	}
	return false;
}

static bool same_content(const struct weft_replay *a, const struct weft_replay *b)
{
	uint8_t *ca, *cb;
	size_t na, nb;
	bool same;

	if (weft_replay_encode_content(a, &ca, &na) || weft_replay_encode_content(b, &cb, &nb))
		return false;
	same = na == nb && !memcmp(ca, cb, na);
	free(ca);
	free(cb);
	return same;
}

static void robustness(const uint8_t *file, size_t fn, const char *what)
{
	struct weft_replay rf;
	char err[256];
	uint8_t *c, *t;
	size_t cn;
	unsigned bad = 0, ok_flips = 0;

	/* every proper prefix of the file is refused, with a message */
	for (size_t n = 0; n < fn; n++) {
		err[0] = 0;
		if (weft_replay_decode(file, n, &rf, err, sizeof(err)) == 0) {
			weft_replay_free(&rf);
			bad++;
		} else if (!err[0]) {
			bad++;
		}
	}
	CHECK(bad == 0, "%s: %u truncations of the file were accepted or silent", what, bad);

	/* the content: every prefix refused, every bit flip survives */
	CHECK(weft_replay_decode(file, fn, &rf, err, sizeof(err)) == 0, "%s: %s", what, err);
	if (weft_replay_encode_content(&rf, &c, &cn)) {
		CHECK(0, "%s: encode_content", what);
		return;
	}
	weft_replay_free(&rf);
	bad = 0;
	for (size_t n = 0; n < cn; n++)
		if (weft_replay_decode_content(c, n, &rf, err, sizeof(err)) == 0) {
			weft_replay_free(&rf);
			bad++;
		}
	CHECK(bad == 0, "%s: %u truncations of the content were accepted", what, bad);
	t = malloc(cn);
	for (size_t i = 0; t && i < cn; i++)
		for (unsigned b = 0; b < 8; b++) {
			memcpy(t, c, cn);
			t[i] ^= (uint8_t)(1u << b);
			if (weft_replay_decode_content(t, cn, &rf, err, sizeof(err)) == 0) {
				ok_flips++;
				weft_replay_free(&rf);
			}
		}
	printf("  %s: %zu-byte file, %zu-byte content, %u of %zu bit flips still decode\n", what,
	       fn, cn, ok_flips, cn * 8);
	free(t);
	free(c);
}

/* Every range-checked byte field of the meta and checks sections, at
 * every value of its byte: the reader refuses the content naming the field
 * exactly when the value is outside the range docs/replay-format.md gives
 * (CPU and thread counts 1..64; a lockdep fact's type 1 or 2, a usage
 * fact's usage 0..7). A value in range may be refused for another reason
 * (a verdict naming a CPU the file no longer has), never for its field. */
enum field { F_CPUS, F_THREADS, F_FACT_TYPE, F_FACT_USAGE };
static void field_ranges(const struct weft_replay *valid, const char *what)
{
	static const struct {
		enum field f;
		const char *name;   /* what the refusal says */
		unsigned lo, hi;
	} fields[] = {
		{ F_CPUS, "CPU count", 1, 64 },
		{ F_THREADS, "thread count", 1, 64 },
		{ F_FACT_TYPE, "unknown type", 1, 2 },
		{ F_FACT_USAGE, "usage", 0, 7 },
	};
	static struct weft_replay t, rf;
	char err[256];
	unsigned wrong = 0;

	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
		for (unsigned v = 0; v < 256; v++) {
			uint8_t *c;
			size_t cn;

			t = *valid;     /* shallow: encode only reads the arrays */
			if (fields[k].f == F_FACT_TYPE || fields[k].f == F_FACT_USAGE) {
				/* one usage fact of a well-formed class by the host */
				memset(&t.lockdep[0], 0, sizeof(t.lockdep[0]));
				t.lockdep[0].type = WEFT_LOCKDEP_FACT_USE;
				t.lockdep[0].tid_a = 0xff;
				t.lockdep[0].a = 1ull << 32 | 8;
				t.nr_lockdep = 1;
				t.checks |= WEFT_CHECK_LOCKDEP;
			}
			switch (fields[k].f) {
			case F_CPUS: t.nr_cpus = (uint8_t)v; break;
			case F_THREADS: t.nr_threads = (uint8_t)v; break;
			case F_FACT_TYPE: t.lockdep[0].type = (uint8_t)v; break;
			case F_FACT_USAGE: t.lockdep[0].use = (uint8_t)v; break;
			}
			if (weft_replay_encode_content(&t, &c, &cn)) {
				CHECK(0, "%s: encode_content", what);
				return;
			}
			err[0] = 0;
			bool refused = weft_replay_decode_content(c, cn, &rf, err, sizeof(err)) != 0;
			if (!refused)
				weft_replay_free(&rf);
			free(c);
			bool named = refused && strstr(err, fields[k].name);
			bool out = v < fields[k].lo || v > fields[k].hi;
			if (named != out && wrong++ < 8)
				printf("  %s: %s %u: %s (%s)\n", what, fields[k].name, v,
				       refused ? "refused" : "accepted", refused ? err : "no error");
		}
	CHECK(wrong == 0, "%s: %u field values refused or accepted against their range", what,
	      wrong);
}

/* Each field of the recorded verdict (kind, step, site) that the replay
 * does not reproduce is a DESYNC, never a reproduction. */
static void verdict_tampers(struct weft_replay *back, const struct weft_scenario *sc,
			    unsigned vi, const char *what)
{
	struct weft_replay_check c;
	enum weft_kind kind = back->kind;
	uint32_t step = back->here.step, site = back->here.site_id;

	back->kind = WEFT_KIND_NONE;
	CHECK(weft_replay_execute(back, sc, vi, &c) == 0 && c.desync && !c.reproduced,
	      "%s: recorded clean, replayed %s: desync %d (%s)", what, weft_kind_name(kind),
	      c.desync, c.why);
	back->kind = kind;
	back->here.step = step + 1;
	CHECK(weft_replay_execute(back, sc, vi, &c) == 0 && c.desync && !c.reproduced &&
	      strstr(c.why, "verdict differs"), "%s: verdict step %u for %u: desync %d (%s)",
	      what, step + 1, step, c.desync, c.why);
	back->here.step = step;
	back->here.site_id = site ^ 1;
	CHECK(weft_replay_execute(back, sc, vi, &c) == 0 && c.desync && !c.reproduced &&
	      strstr(c.why, "verdict differs"), "%s: verdict site %u for %u: desync %d (%s)",
	      what, site ^ 1, site, c.desync, c.why);
	back->here.site_id = site;
}

/* A recording whose replay runs every decision and ends clean, where the
 * file says it ended in a bug (a model changed since): the DESYNC says the
 * run ended at its last step without the verdict, never "step 0". */
static void ended_without_verdict(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("demo-abba:ordered", &vi);
	static struct weft_dfs dfs;
	uint8_t wl[WEFT_INPUT_MAX];
	size_t wl_len = weft_trigger_workload(sc, vi, wl, sizeof(wl));
	struct weft_run_opts o = { .sc = sc, .variant = vi, .record = true };
	struct weft_exec_result r;
	struct weft_replay rf;
	struct weft_replay_check c;

	weft_dfs_init(&dfs, sc, 0, wl, wl_len);
	CHECK(weft_execute(&o, &weft_strategy_dfs, &dfs, &r) == 0 && r.kind == WEFT_KIND_NONE &&
	      r.steps > 2, "demo-abba:ordered: a clean run (kind %s, %u steps)",
	      weft_kind_name(r.kind), r.steps);
	CHECK(weft_replay_from_last(&rf, &o, &r, "dfs", NULL, 0) == 0, "clean capture");
	CHECK(weft_replay_execute(&rf, sc, vi, &c) == 0 && c.reproduced, "clean replay: %s",
	      c.why);
	rf.kind = WEFT_KIND_LOST_UPDATE;
	rf.here.step = r.steps;
	CHECK(weft_replay_execute(&rf, sc, vi, &c) == 0 && c.desync && !c.reproduced &&
	      c.ended && c.desync_step == r.steps && strstr(c.why, "ended at step") &&
	      strstr(c.why, "without the recorded verdict (lost-update") &&
	      strstr(c.why, "model may have changed"),
	      "a replay that ends clean: desync %d at step %u of %u (%s)", c.desync,
	      c.desync_step, r.steps, c.why);
	printf("  ended without the verdict: DESYNC at step %u: %s\n", c.desync_step, c.why);
	weft_replay_free(&rf);
}

static void round_trip(const char *spec, enum weft_lock_model lock)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find(spec, &vi);
	struct weft_run_opts o;
	struct weft_exec_result r;
	struct weft_replay rf, back;
	char err[256], what[96];
	uint8_t *file;
	size_t fn;

	snprintf(what, sizeof(what), "%s/%s", spec, lock == WEFT_LOCK_TICKET ? "ticket" : "tas");
	CHECK(sc != NULL, "%s: not in the registry", spec);
	if (!sc)
		return;
	CHECK(find_bug(sc, vi, lock, &o, &r), "%s: no bug found", what);
	if (r.kind == WEFT_KIND_NONE)
		return;
	CHECK(weft_replay_from_last(&rf, &o, &r, "dfs", NULL, 0) == 0, "%s: capture", what);
	CHECK(weft_replay_encode(&rf, &file, &fn) == 0, "%s: encode", what);
	CHECK(weft_replay_decode(file, fn, &back, err, sizeof(err)) == 0, "%s: decode: %s", what,
	      err);
	CHECK(!strcmp(back.scenario, sc->name) && !strcmp(back.variant, sc->variants[vi].name),
	      "%s: names", what);
	CHECK(back.fingerprint == weft_scenario_fingerprint(sc), "%s: fingerprint", what);
	CHECK(back.lock == lock && back.nr_cpus == sc->nr_cpus &&
	      back.nr_threads == sc->nr_threads, "%s: machine", what);
	CHECK(back.kind == r.kind && back.trace_hash == r.trace_hash &&
	      back.here.step == r.report.here.step && back.steps == r.steps &&
	      back.preemptions == r.preemptions, "%s: verdict", what);
	CHECK(back.nr_dec == rf.nr_dec && back.nr_choices == rf.nr_choices &&
	      back.nr_state_hashes == rf.nr_state_hashes && back.input_len == rf.input_len &&
	      !memcmp(back.input, rf.input, rf.input_len) &&
	      back.workload_len == rf.workload_len, "%s: sizes", what);
	bool decs = back.nr_dec == rf.nr_dec;
	for (size_t i = 0; decs && i < rf.nr_dec; i++) {
		const struct weft_decision_rec *a = &rf.dec[i], *b = &back.dec[i];
		decs = a->step == b->step && a->runnable == b->runnable && a->cur == b->cur &&
		       a->dflt == b->dflt && a->chosen == b->chosen &&
		       (b->site_id == WEFT_SITE_ANY || b->site_id == a->site_id);
		/* only decisions that let the current thread go on omit their site */
		decs &= b->site_id != WEFT_SITE_ANY || (a->cur == a->dflt && a->dflt == a->chosen);
	}
	CHECK(decs, "%s: decision list differs after the round trip", what);
	CHECK(same_content(&rf, &back), "%s: re-encoding differs", what);

	const struct weft_scenario *bsc;
	unsigned bvi;
	struct weft_replay_check c;
	CHECK(weft_replay_bind(&back, &bsc, &bvi, err, sizeof(err)) == 0, "%s: bind: %s", what, err);
	CHECK(weft_replay_execute(&back, sc, vi, &c) == 0 && c.reproduced && !c.desync,
	      "%s: replay did not reproduce: %s", what, c.why);
	printf("  %s: %s, %u preemptions, %zu decisions, %zu-byte file\n", what,
	       weft_kind_name(r.kind), r.preemptions, rf.nr_dec, fn);

	/* stale: another model fingerprint */
	back.fingerprint ^= 1;
	CHECK(weft_replay_bind(&back, &bsc, &bvi, err, sizeof(err)) == WEFT_ESTALE &&
	      strstr(err, "stale"), "%s: stale file not reported: %s", what, err);
	back.fingerprint ^= 1;

	/* DESYNC: run another thread at a recorded decision. A tampered
	 * replay must either report DESYNC at or after the tampered step, or
	 * (when the other thread does nothing visible, e.g. it ends at once)
	 * produce the very same trace: it never passes with another trace. */
	unsigned tampers = 0, detected = 0, silent = 0;
	for (size_t i = 0; i < back.nr_dec && tampers < 24; i++) {
		struct weft_decision_rec *d = &back.dec[i], saved = *d;
		for (uint32_t m = d->runnable & ~(1u << d->chosen); m; m &= m - 1) {
			d->chosen = (uint8_t)__builtin_ctz(m);
			tampers++;
			if (weft_replay_execute(&back, sc, vi, &c))
				break;
			if (c.desync) {
				detected++;
				CHECK(c.desync_step >= saved.step,
				      "%s: desync step %u before the tampered step %u", what,
				      c.desync_step, saved.step);
			} else if (c.r.trace_hash != back.trace_hash) {
				silent++;
			}
		}
		*d = saved;
	}
	CHECK(silent == 0, "%s: %u tampered replays passed with another trace", what, silent);
	CHECK(detected > 0, "%s: none of %u tampered decisions was detected", what, tampers);

	/* DESYNC by state hash: the same decisions, a recorded state hash
	 * that the replay does not compute (other values between the same
	 * decisions) is reported, at the events it covers */
	for (size_t i = 0; i < back.nr_state_hashes; i += back.nr_state_hashes / 2 + 1) {
		back.state_hashes[i] ^= 1;
		CHECK(weft_replay_execute(&back, sc, vi, &c) == 0 && c.desync && !c.reproduced &&
		      strstr(c.why, "state hash after event"),
		      "%s: state hash %zu of %zu changed: desync %d (%s)", what, i,
		      back.nr_state_hashes, c.desync, c.why);
		back.state_hashes[i] ^= 1;
		state_tampers++;
	}
	verdict_tampers(&back, sc, vi, what);
	field_ranges(&back, what);
	robustness(file, fn, what);
	free(file);
	weft_replay_free(&rf);
	weft_replay_free(&back);
}

static void never_overwrite(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("demo-abba:abba", &vi);
	struct weft_run_opts o;
	struct weft_exec_result r;
	struct weft_replay rf;
	char a[4096], b[4096], dir2[4096], other[4200];
	bool existed;

	CHECK(find_bug(sc, vi, WEFT_LOCK_TAS, &o, &r), "abba: no bug");
	CHECK(weft_replay_from_last(&rf, &o, &r, "dfs", NULL, 0) == 0, "capture");
	CHECK(weft_replay_save(&rf, scratch, a, sizeof(a), &existed) == 0, "save: %s",
	      strerror(errno));
	CHECK(weft_replay_save(&rf, scratch, b, sizeof(b), &existed) == 0 && existed &&
	      !strcmp(a, b), "a second save of the same replay must keep the first (%s, %s)", a, b);
	errno = 0;
	CHECK(weft_replay_write_new(a, (const uint8_t *)"x", 1) != 0 && errno == EEXIST,
	      "write_new over an existing file must fail with EEXIST");
	/* a different file holding the artifact's name: saved beside it */
	snprintf(dir2, sizeof(dir2), "%s/other", scratch);
	mkdir(dir2, 0755);
	snprintf(other, sizeof(other), "%s/%s", dir2, strrchr(a, '/') + 1);
	unlink(other);
	FILE *f = fopen(other, "w");
	if (f) {
		fputs("not this replay", f);
		fclose(f);
	}
	CHECK(weft_replay_save(&rf, dir2, b, sizeof(b), &existed) == 0 && !existed &&
	      strstr(b, "-2.weft"), "collision must go to a -2 name, got %s", b);
	f = fopen(other, "r");
	char buf[32] = "";
	if (f) {
		CHECK(fgets(buf, sizeof(buf), f) != NULL, "read back");
		fclose(f);
	}
	CHECK(!strcmp(buf, "not this replay"), "the existing file was changed");
	unlink(b);
	unlink(other);
	rmdir(dir2);
	/* no temporary file left behind */
	DIR *d = opendir(scratch);
	struct dirent *de;
	unsigned tmps = 0;
	while (d && (de = readdir(d)))
		tmps += strstr(de->d_name, ".tmp") != NULL;
	if (d)
		closedir(d);
	CHECK(tmps == 0, "%u temporary files left in %s", tmps, scratch);
	unlink(a);
	weft_replay_free(&rf);
}

/* The content's decisions section: the offset of its count varint. */
static size_t decisions_at(const uint8_t *c, size_t n)
{
	size_t off = 0;

	while (off < n) {
		uint8_t tag = c[off++];
		uint64_t len = 0;
		for (unsigned sh = 0; off < n; sh += 7) {
			uint8_t b = c[off++];
			len |= (uint64_t)(b & 0x7f) << sh;
			if (!(b & 0x80))
				break;
		}
		if (tag == WEFT_RT_DECISIONS)
			return off;
		off += (size_t)len;
	}
	return SIZE_MAX;
}

/* Decisions as a long execution of 64 threads may take them: mask has
 * bit 63 (a 10-byte varint), step deltas of 4000 (2 bytes); bits: a
 * pseudo-random mask per decision (incompressible). */
static void fill_decisions(struct weft_replay *rf, size_t n, uint32_t site, bool noise)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	free(rf->dec);
	rf->dec = calloc(n, sizeof(*rf->dec));
	rf->nr_dec = rf->dec ? n : 0;
	rf->nr_threads = 64;
	for (size_t i = 0; i < rf->nr_dec; i++) {
		struct weft_decision_rec *d = &rf->dec[i];
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		d->step = (uint32_t)(4000 * (i + 1));
		d->runnable = (noise ? x : 0) | 1ull << 63 | 3;
		d->cur = 0;
		d->dflt = 1;
		d->chosen = 63;
		d->site_id = site;
	}
}

static void size_limits(void)
{
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("demo-abba:abba", &vi);
	struct weft_run_opts o;
	struct weft_exec_result r;
	struct weft_replay rf, back;
	uint8_t *c = NULL, *file = NULL;
	size_t cn = 0, fn = 0;
	char err[256] = "";

	CHECK(find_bug(sc, vi, WEFT_LOCK_TAS, &o, &r), "abba: no bug");
	CHECK(weft_replay_from_last(&rf, &o, &r, "dfs", NULL, 0) == 0, "capture");
	uint32_t site = rf.nr_dec ? rf.dec[0].site_id : 1;
	if (site == WEFT_SITE_ANY || !site)
		site = 1;
	rf.nr_state_hashes = 0;

	/* as many decisions as the format holds, 2 bytes each (a thread going
	 * on): written, read back whole */
	fill_decisions(&rf, WEFT_REPLAY_MAX_DECISIONS, site, false);
	for (size_t i = 0; i < rf.nr_dec; i++) {
		rf.dec[i].step = (uint32_t)(i + 1);
		rf.dec[i].runnable = 3;
		rf.dec[i].dflt = rf.dec[i].chosen = 0;
	}
	CHECK(weft_replay_encode(&rf, &file, &fn) == 0, "%u decisions: encode",
	      WEFT_REPLAY_MAX_DECISIONS);
	CHECK(file && weft_replay_decode(file, fn, &back, err, sizeof(err)) == 0 &&
	      back.nr_dec == WEFT_REPLAY_MAX_DECISIONS, "%u decisions: decode: %s",
	      WEFT_REPLAY_MAX_DECISIONS, err);
	weft_replay_free(&back);
	free(file);
	/* one more: the writer refuses, and so does the reader (by its count) */
	CHECK(weft_replay_encode_content(&rf, &c, &cn) == 0, "encode_content");
	size_t at = c ? decisions_at(c, cn) : SIZE_MAX;
	CHECK(at + 3 <= cn && c[at] == 0x80 && c[at + 1] == 0x80 && c[at + 2] == 0x40,
	      "the decision count 2^20 is the varint 80 80 40");
	if (at + 3 <= cn) {
		c[at] = 0x81;
		err[0] = 0;
		CHECK(weft_replay_decode_content(c, cn, &back, err, sizeof(err)) == WEFT_EFORMAT &&
		      strstr(err, "decision count is 1048577, more than 1048576"),
		      "a count above the cap: '%s'", err);
	}
	free(c);
	c = NULL;
	rf.nr_dec++;
	CHECK(weft_replay_encode_content(&rf, &c, &cn) == WEFT_EINVAL && !c,
	      "more decisions than the format holds must not be written");
	rf.nr_dec--;

	/* 17 bytes each: more content than a reader decompresses */
	fill_decisions(&rf, WEFT_REPLAY_MAX_DECISIONS, site, false);
	CHECK(weft_replay_encode_content(&rf, &c, &cn) == WEFT_EFORMAT && !c,
	      "content over %u bytes must not be written", WEFT_REPLAY_MAX_CONTENT);
	CHECK(weft_replay_encode(&rf, &file, &fn) == WEFT_EFORMAT && !file,
	      "a file of content over %u bytes must not be written", WEFT_REPLAY_MAX_CONTENT);

	/* incompressible masks: content within the cap, the file over 1 MiB */
	fill_decisions(&rf, 200000, site, true);
	CHECK(weft_replay_encode_content(&rf, &c, &cn) == 0 && cn <= WEFT_REPLAY_MAX_CONTENT,
	      "200000 noisy decisions: content");
	free(c);
	CHECK(weft_replay_encode(&rf, &file, &fn) == WEFT_EFORMAT && !file && !fn,
	      "a file over %u bytes must not be written", WEFT_REPLAY_MAX_FILE);
	weft_replay_free(&rf);
}

int main(int argc, char **argv)
{
	scratch = argc > 1 ? argv[1] : "replay-scratch";
	mkdir(scratch, 0755);
	static const struct { const char *spec; enum weft_lock_model lock; } cases[] = {
		{ "demo-counter:racy", WEFT_LOCK_TAS },
		{ "demo-abba:abba", WEFT_LOCK_TAS },
		{ "demo-barging:barging", WEFT_LOCK_TAS },
		{ "demo-barging:barging", WEFT_LOCK_TICKET },
		{ "demo-spin:lost-wakeup", WEFT_LOCK_TAS },
		{ "z1-lru:z1a", WEFT_LOCK_TAS },
		{ "z1-lru:z1b", WEFT_LOCK_TAS },
		{ "z1-lru:z1b", WEFT_LOCK_TICKET },
		{ "z1-lru:z1c", WEFT_LOCK_TAS },
		{ "z2-swap-batch:v2", WEFT_LOCK_TAS },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		round_trip(cases[i].spec, cases[i].lock);
	CHECK(state_tampers >= 4, "only %u recordings had state hashes to change", state_tampers);
	never_overwrite();
	size_limits();
	ended_without_verdict();
	return check_done();
}
