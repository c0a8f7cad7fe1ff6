/*
 * gen_malformed.c - writes corpus/malformed/: crafted bad replay files,
 * each with the exit code and error text `weft replay` must give, listed
 * in MANIFEST (file<TAB>exit<TAB>substring of stderr). The base is a
 * replay of the demo-abba deadlock (1 preemption), recorded here, so the
 * corpus can be re-made: gen_malformed OUTDIR.
 *
 * Content edits work on the decompressed sections (docs/replay-format.md)
 * and re-wrap them with weft_replay_wrap().
 *
 * Field by field (field_by_field()): every field of every section that has
 * out-of-range values gets one, written by a section writer of this file
 * (not the library's, which cannot write them), and the reader must refuse
 * it with exit 3 and a message that names the field. Fields where every
 * value is in range are the 64-bit fingerprint (a mismatch is a stale file,
 * exit 5: stale-fingerprint.weft), the site ids of the sites section and of
 * lockdep facts (hashes; an unknown one names nothing), the trace hash and
 * the state hashes (a mismatch is a DESYNC, exit 4: desync-trace-hash.weft).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <weft/replay.h>

static const char *outdir;
static FILE *manifest;
static unsigned nr_files;

static void put(const char *name, const uint8_t *buf, size_t n, int exit_code, const char *msg)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "gen_malformed: cannot write %s: %s\n", path, strerror(errno));
		exit(3);
	}
	fprintf(manifest, "%s\t%d\t%s\n", name, exit_code, msg);
	nr_files++;
}

static void put_wrapped(const char *name, const uint8_t *c, size_t n, unsigned flags, int ec,
			const char *msg)
{
	uint8_t *buf;
	size_t len;
	if (weft_replay_wrap(c, n, flags, &buf, &len)) {
		fprintf(stderr, "gen_malformed: wrap failed\n");
		exit(3);
	}
	put(name, buf, len, ec, msg);
	free(buf);
}

/* Section boundaries of a content buffer: off[i] = start of section i. */
static unsigned sections(const uint8_t *c, size_t n, size_t *off, size_t *body, size_t *blen)
{
	unsigned k = 0;
	size_t i = 0;

	while (i < n && k < 16) {
		off[k] = i;
		i++;   /* tag */
		size_t len = 0;
		unsigned sh = 0;
		uint8_t b;
		do {
			b = c[i++];
			len |= (size_t)(b & 0x7f) << sh;
			sh += 7;
		} while (b & 0x80);
		body[k] = i;
		blen[k] = len;
		i += len;
		k++;
	}
	return k;
}

/* ------------------------------------------------------ field by field */

struct wb {
	uint8_t p[8192];
	size_t n;
};

static void wv(struct wb *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		b->p[b->n++] = (uint8_t)(c | (v ? 0x80 : 0));
	} while (v);
}

static void w8(struct wb *b, unsigned v)
{
	b->p[b->n++] = (uint8_t)v;
}

static void wle(struct wb *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static void wstr(struct wb *b, const char *s)
{
	size_t n = strlen(s);

	wv(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

/* a string of n bytes c */
static void wfill(struct wb *b, char c, size_t n)
{
	wv(b, n);
	memset(b->p + b->n, c, n);
	b->n += n;
}

/* A string field: s, or (too long) n bytes c. */
static void wstr_or_fill(struct wb *b, bool fill, char c, size_t n, const char *s)
{
	if (fill)
		wfill(b, c, n);
	else
		wstr(b, s);
}

static void wsection(struct wb *b, unsigned tag, const struct wb *body)
{
	w8(b, tag);
	wv(b, body->n);
	memcpy(b->p + b->n, body->p, body->n);
	b->n += body->n;
}

enum field {
	F_NONE,
	F_SCENARIO_LONG, F_SCENARIO_EMPTY, F_VARIANT_CHAR, F_VARIANT_LONG, F_STRATEGY_CHAR,
	F_STRATEGY_LONG, F_TOOL_CHAR, F_TOOL_LONG, F_CPUS, F_THREADS,
	F_INPUT_LONG, F_WORKLOAD_LONG,
	F_SITE_COUNT, F_SITES_SHORT,
	F_DEC_FLAGS, F_DEC_SAMERUN0, F_DEC_STEP_DELTA, F_DEC_STEP_OVERFLOW, F_DEC_RUNNABLE,
	F_DEC_CURRENT, F_DEC_SITE_INDEX, F_DEC_NO_SITES,
	F_CHOICE_COUNT, F_CHOICE_VALUE, F_CHOICES_SHORT,
	F_KIND_CHAR, F_KIND_LONG, F_HERE_STEP, F_HERE_THREAD, F_OTHER_THREAD, F_OTHER_CPU,
	F_SITE_TEXT_CHAR, F_SITE_TEXT_LONG, F_OBJECT_CHAR, F_OBJECT_LONG, F_MESSAGE_LONG,
	F_STEPS, F_PREEMPTIONS, F_HASH_COUNT, F_HASHES_SHORT,
	F_CHECKS_VALUE, F_FACT_USAGE, F_FACT_EDGE_USAGE, F_FACT_TID_A, F_FACT_TID_B,
	F_FACT_CLASS_B, F_FACT_USE_B_SIDE, F_FACT_STEP, F_FACT_LOC_A, F_FACT_LOC_B,
	F_FACT_CLASS_A_OFFSET, F_FACT_CLASS_B_OFFSET,
	F__N
};

static const struct {
	const char *name;
	const char *msg;
} fields[F__N] = {
	[F_SCENARIO_LONG] = { "meta-scenario-too-long", "scenario name is 65, more than 64" },
	[F_SCENARIO_EMPTY] = { "meta-scenario-empty", "scenario and variant names must be non-empty" },
	[F_VARIANT_CHAR] = { "meta-variant-space", "variant name contains byte 0x20" },
	[F_VARIANT_LONG] = { "meta-variant-too-long", "variant name is 65, more than 64" },
	[F_STRATEGY_CHAR] = { "meta-strategy-space", "strategy name contains byte 0x20" },
	[F_STRATEGY_LONG] = { "meta-strategy-too-long", "strategy name is 33, more than 32" },
	[F_TOOL_CHAR] = { "meta-tool-control-char", "tool contains byte 0x07" },
	[F_TOOL_LONG] = { "meta-tool-too-long", "tool is 33, more than 32" },
	[F_CPUS] = { "meta-cpus-65", "CPU count 65 is not in 1..64" },
	[F_THREADS] = { "meta-threads-0", "thread count 0 is not in 1..64" },
	[F_INPUT_LONG] = { "input-too-long", "input section: 704 bytes, more than 703" },
	[F_WORKLOAD_LONG] = { "workload-too-long", "workload section: 704 bytes, more than 703" },
	[F_SITE_COUNT] = { "sites-count", "site count is 4097, more than 4096" },
	[F_SITES_SHORT] = { "sites-short", "sites section: truncated" },
	[F_DEC_FLAGS] = { "decision-flags", "decision 0: unknown flag bits 0x10" },
	[F_DEC_SAMERUN0] = { "decision-samerun-first", "decision 0 repeats a previous runnable mask" },
	[F_DEC_STEP_DELTA] = { "decision-step-delta", "step delta is 4294967296, more than 4294967295" },
	[F_DEC_STEP_OVERFLOW] = { "decision-step-overflow", "step overflows 32 bits" },
	[F_DEC_RUNNABLE] = { "decision-runnable-mask", "runnable mask: varint overflows 64 bits" },
	[F_DEC_CURRENT] = { "decision-current-thread", "current thread 5 is not runnable" },
	[F_DEC_SITE_INDEX] = { "decision-site-index", "site index is" },
	[F_DEC_NO_SITES] = { "decision-no-sites", "refers to an empty site table" },
	[F_CHOICE_COUNT] = { "choices-count", "choice count is 4097, more than 4096" },
	[F_CHOICE_VALUE] = { "choices-value", "choice value is 4294967296" },
	[F_CHOICES_SHORT] = { "choices-short", "choices section: truncated" },
	[F_KIND_CHAR] = { "verdict-kind-space", "kind name contains byte 0x20" },
	[F_KIND_LONG] = { "verdict-kind-too-long", "kind name is 33, more than 32" },
	[F_HERE_STEP] = { "verdict-here-step", "verdict section: step is 4294967296" },
	[F_HERE_THREAD] = { "verdict-here-thread", "the failing access names thread 7" },
	[F_OTHER_THREAD] = { "verdict-other-thread", "the other access names thread 7" },
	[F_OTHER_CPU] = { "verdict-other-cpu", "the other access names CPU 9" },
	[F_SITE_TEXT_CHAR] = { "verdict-site-text-newline", "site text contains byte 0x0a" },
	[F_SITE_TEXT_LONG] = { "verdict-site-text-too-long", "site text is 201, more than 200" },
	[F_OBJECT_CHAR] = { "verdict-object-tab", "object contains byte 0x09" },
	[F_OBJECT_LONG] = { "verdict-object-too-long", "object is 65, more than 64" },
	[F_MESSAGE_LONG] = { "verdict-message-too-long", "message is 193, more than 192" },
	[F_STEPS] = { "hashes-steps", "steps is 4294967296" },
	[F_PREEMPTIONS] = { "hashes-preemptions", "preemptions is 4294967296" },
	[F_HASH_COUNT] = { "hashes-count", "state hash count is 65537, more than 65536" },
	[F_HASHES_SHORT] = { "hashes-short", "hashes section: truncated" },
	[F_CHECKS_VALUE] = { "checks-value", "checks is 512, more than 511" },
	[F_FACT_USAGE] = { "checks-fact-usage", "unknown usage 8" },
	[F_FACT_EDGE_USAGE] = { "checks-fact-edge-usage", "usage 2 on a lock-order edge" },
	[F_FACT_TID_A] = { "checks-fact-thread-a", "thread of a 9" },
	[F_FACT_TID_B] = { "checks-fact-thread-b", "thread of b 9" },
	[F_FACT_CLASS_B] = { "checks-fact-class-b", "malformed lock class b" },
	[F_FACT_USE_B_SIDE] = { "checks-fact-usage-b-side", "a usage fact with a b side" },
	[F_FACT_STEP] = { "checks-fact-step", "lockdep fact step is 4294967296" },
	[F_FACT_LOC_A] = { "checks-fact-offset-a", "offset of a is outside" },
	[F_FACT_LOC_B] = { "checks-fact-offset-b", "offset of b is outside" },
	[F_FACT_CLASS_A_OFFSET] = { "checks-fact-class-a-offset", "class a's offset is outside" },
	[F_FACT_CLASS_B_OFFSET] = { "checks-fact-class-b-offset", "class b's offset is outside" },
};

#define TOO_BIG (1ull << 32)   /* one past a u32 field */

static void side(struct wb *b, const struct weft_replay_side *s, bool here, enum field f)
{
	wle(b, s->site_id, 4);
	wv(b, here && f == F_HERE_STEP ? TOO_BIG : s->step);
	w8(b, here && f == F_HERE_THREAD ? 7 : !here && f == F_OTHER_THREAD ? 7 : s->tid);
	w8(b, !here && f == F_OTHER_CPU ? 9 : s->cpu);
}

/* The content of e (a decoded copy of the base file) with field f out of
 * range, written section by section; sites are e's decision sites in order
 * of first use. */
static void content_with(const struct weft_replay *e, enum field f, struct wb *c)
{
	static struct wb b;
	uint32_t sites[64];
	size_t ns = 0;

	for (size_t i = 0; i < e->nr_dec; i++) {
		size_t k;
		if (e->dec[i].site_id == WEFT_SITE_ANY)
			continue;
		for (k = 0; k < ns && sites[k] != e->dec[i].site_id; k++)
			;
		if (k == ns && ns < 64)
			sites[ns++] = e->dec[i].site_id;
	}
	c->n = 0;

	b.n = 0;
	wstr_or_fill(&b, f == F_SCENARIO_LONG, 'a', 65, f == F_SCENARIO_EMPTY ? "" : e->scenario);
	wstr_or_fill(&b, f == F_VARIANT_LONG, 'v', 65, f == F_VARIANT_CHAR ? "ab ba" : e->variant);
	wstr_or_fill(&b, f == F_STRATEGY_LONG, 's', 33,
		     f == F_STRATEGY_CHAR ? "d fs" : e->strategy);
	wstr_or_fill(&b, f == F_TOOL_LONG, 't', 33, f == F_TOOL_CHAR ? "weft\a" : e->tool);
	wle(&b, e->fingerprint, 8);
	w8(&b, f == F_CPUS ? 65 : e->nr_cpus);
	w8(&b, f == F_THREADS ? 0 : e->nr_threads);
	w8(&b, e->lock);
	wsection(c, WEFT_RT_META, &b);

	for (int k = 0; k < 2; k++) {
		b.n = 0;
		if ((k == 0 && f == F_INPUT_LONG) || (k == 1 && f == F_WORKLOAD_LONG)) {
			memset(b.p, 0, 704);
			b.n = 704;
		} else {
			memcpy(b.p, k ? e->workload : e->input, k ? e->workload_len : e->input_len);
			b.n = k ? e->workload_len : e->input_len;
		}
		wsection(c, k ? WEFT_RT_WORKLOAD : WEFT_RT_INPUT, &b);
	}

	b.n = 0;
	if (f == F_SITE_COUNT) {
		wv(&b, 4097);
	} else if (f == F_DEC_NO_SITES) {
		wv(&b, 0);
	} else {
		wv(&b, ns + (f == F_SITES_SHORT));
		for (size_t k = 0; k < ns; k++)
			wle(&b, sites[k], 4);
	}
	wsection(c, WEFT_RT_SITES, &b);

	/* decisions: every field written out (no compression flags but NOSITE) */
	b.n = 0;
	wv(&b, e->nr_dec);
	uint32_t prev = 0;
	for (size_t i = 0; i < e->nr_dec; i++) {
		const struct weft_decision_rec *d = &e->dec[i];
		bool nosite = d->site_id == WEFT_SITE_ANY && f != F_DEC_NO_SITES;
		uint8_t fl = nosite ? WEFT_RD_NOSITE : 0;
		if (i == 0 && f == F_DEC_FLAGS)
			fl |= 0x10;
		if (i == 0 && f == F_DEC_SAMERUN0)
			fl |= WEFT_RD_SAMERUN;
		w8(&b, fl);
		if (f == F_DEC_STEP_DELTA && i == 0)
			wv(&b, TOO_BIG);
		else if (f == F_DEC_STEP_OVERFLOW && i < 2)
			wv(&b, 0xffffffffull);
		else
			wv(&b, d->step - prev);
		if (!(fl & WEFT_RD_SAMERUN)) {
			if (f == F_DEC_RUNNABLE && i == 0) {
				/* a 65-bit mask: ten bytes, the last carrying bit 64 */
				for (int k = 0; k < 9; k++)
					w8(&b, 0xff);
				w8(&b, 0x02);
			} else {
				wv(&b, d->runnable);
			}
		}
		w8(&b, f == F_DEC_CURRENT && i == 0 ? 5 : d->cur);
		w8(&b, d->dflt);
		w8(&b, d->chosen);
		if (!nosite) {
			size_t k;
			for (k = 0; k < ns && sites[k] != d->site_id; k++)
				;
			wv(&b, f == F_DEC_SITE_INDEX && i == 0 ? ns : f == F_DEC_NO_SITES ? 0 : k);
		}
		prev = d->step;
	}
	wsection(c, WEFT_RT_DECISIONS, &b);

	b.n = 0;
	if (f == F_CHOICE_COUNT) {
		wv(&b, 4097);
	} else if (f == F_CHOICE_VALUE) {
		wv(&b, 1);
		wv(&b, TOO_BIG);
	} else if (f == F_CHOICES_SHORT) {
		wv(&b, 5);
	} else {
		wv(&b, e->nr_choices);
		for (size_t i = 0; i < e->nr_choices; i++)
			wv(&b, e->choices[i]);
	}
	wsection(c, WEFT_RT_CHOICES, &b);

	b.n = 0;
	wstr_or_fill(&b, f == F_KIND_LONG, 'k', 33,
		     f == F_KIND_CHAR ? "dead lock" : e->kind ? weft_kind_name(e->kind) : "none");
	side(&b, &e->here, true, f);
	side(&b, &e->other, false, f);
	wstr_or_fill(&b, f == F_SITE_TEXT_LONG, 'x', 201,
		     f == F_SITE_TEXT_CHAR ? "two\nlines" : e->site_text);
	wstr_or_fill(&b, f == F_OBJECT_LONG, 'o', 65, f == F_OBJECT_CHAR ? "page\t0" : e->object);
	wstr_or_fill(&b, f == F_MESSAGE_LONG, 'm', 193, e->msg);
	wsection(c, WEFT_RT_VERDICT, &b);

	b.n = 0;
	wle(&b, e->trace_hash, 8);
	wv(&b, f == F_STEPS ? TOO_BIG : e->steps);
	wv(&b, f == F_PREEMPTIONS ? TOO_BIG : e->preemptions);
	if (f == F_HASH_COUNT) {
		wv(&b, 65537);
	} else {
		wv(&b, e->nr_state_hashes + (f == F_HASHES_SHORT));
		for (size_t i = 0; i < e->nr_state_hashes; i++)
			wle(&b, e->state_hashes[i], 8);
	}
	wsection(c, WEFT_RT_HASHES, &b);

	/* checks: an edge and a usage fact, in range but for the field */
	if (f < F_CHECKS_VALUE)
		return;
	b.n = 0;
	wv(&b, f == F_CHECKS_VALUE ? 512 : 7);
	wv(&b, 2);
	/* the edge: world offsets 0 and 4 of the scenario's world */
	w8(&b, WEFT_LOCKDEP_FACT_EDGE);
	w8(&b, f == F_FACT_EDGE_USAGE ? 2 : 0);
	w8(&b, f == F_FACT_TID_A ? 9 : 0);
	w8(&b, f == F_FACT_TID_B ? 9 : 1);
	wle(&b, 2ull << 32 | (f == F_FACT_CLASS_A_OFFSET ? 0x7fffffff : 0), 8);
	wle(&b, f == F_FACT_CLASS_B ? 3ull << 32 : 2ull << 32 | (f == F_FACT_CLASS_B_OFFSET ? 0x7fffffff : 4), 8);
	wle(&b, f == F_FACT_LOC_A ? 0x7fffffff : 0, 4);
	wle(&b, f == F_FACT_LOC_B ? 0x7fffffff : 4, 4);
	wle(&b, 0, 4);
	wle(&b, 0, 4);
	wv(&b, f == F_FACT_STEP ? TOO_BIG : 3);
	wv(&b, 5);
	/* the usage fact: class 1 << 32 | a site id, no b side */
	w8(&b, WEFT_LOCKDEP_FACT_USE);
	w8(&b, f == F_FACT_USAGE ? 8 : 1);
	w8(&b, 0);
	w8(&b, 0);
	wle(&b, 1ull << 32 | 0x1234, 8);
	wle(&b, f == F_FACT_USE_B_SIDE ? 2ull << 32 : 0, 8);
	wle(&b, 0, 4);
	wle(&b, 0, 4);
	wle(&b, 0, 4);
	wle(&b, 0, 4);
	wv(&b, 2);
	wv(&b, 0);
	wsection(c, WEFT_RT_CHECKS, &b);
}

static int field_by_field(const uint8_t *file, size_t fn)
{
	static struct wb c;
	struct weft_replay e;
	char err[256];

	if (weft_replay_decode(file, fn, &e, err, sizeof(err)))
		return 3;
	/* the writer itself, with no field out of range (and with a checks
	 * section): a valid file */
	content_with(&e, F_NONE, &c);
	put_wrapped("fields-base.weft", c.p, c.n, 0, 1, "");
	content_with(&e, F__N, &c);   /* past every field: a valid checks section too */
	put_wrapped("fields-base-checks.weft", c.p, c.n, 0, 1, "");
	for (unsigned f = F_NONE + 1; f < F__N; f++) {
		char name[80];
		snprintf(name, sizeof(name), "%s.weft", fields[f].name);
		content_with(&e, (enum field)f, &c);
		put_wrapped(name, c.p, c.n, 0, 3, fields[f].msg);
	}
	weft_replay_free(&e);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_malformed OUTDIR\n");
		return 2;
	}
	outdir = argv[1];
	mkdir(outdir, 0755);
	char mpath[4096];
	snprintf(mpath, sizeof(mpath), "%s/MANIFEST", outdir);
	manifest = fopen(mpath, "w");
	if (!manifest)
		return 3;
	fprintf(manifest, "# file\texit\tstderr contains (written by tests/replay/gen_malformed.c)\n");

	/* the base: demo-abba's deadlock, 1 preemption, found by dfs */
	unsigned vi;
	const struct weft_scenario *sc = weft_scenario_find("demo-abba:abba", &vi);
	struct weft_dfs *dfs = calloc(1, sizeof(*dfs));
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = WEFT_LOCK_TAS };
	struct weft_exec_result r;
	if (!sc || !dfs)
		return 3;
	weft_dfs_init(dfs, sc, 1, NULL, 0);
	while (weft_execute(&o, &weft_strategy_dfs, dfs, &r) == 0 && r.kind == WEFT_KIND_NONE)
		;
	char why[256];
	if (r.kind == WEFT_KIND_NONE || weft_check_determinism(&o, &r, why, sizeof(why)))
		return 3;
	o.record = true;
	struct weft_replay rf;
	if (weft_replay_from_last(&rf, &o, &r, "dfs", NULL, 0))
		return 3;
	snprintf(rf.tool, sizeof(rf.tool), "weft gen_malformed");
	uint8_t *c, *file;
	size_t cn, fn;
	if (weft_replay_encode_content(&rf, &c, &cn) || weft_replay_encode(&rf, &file, &fn))
		return 3;
	size_t off[16], body[16], blen[16];
	unsigned ns = sections(c, cn, off, body, blen);
	if (ns != WEFT_RT__LAST)
		return 3;
	uint8_t *t = malloc(cn + 64 + fn + 64);
	if (!t)
		return 3;

	put("valid.weft", file, fn, 1, "");

	/* header */
	put("empty.weft", file, 0, 3, "shorter than the 8-byte header");
	put("short-header.weft", file, 5, 3, "shorter than the 8-byte header");
	memcpy(t, file, fn);
	t[0] = 'X';
	put("bad-magic.weft", t, fn, 3, "bad magic");
	memcpy(t, file, fn);
	t[4] = 2;
	put("future-version.weft", t, fn, 3, "unsupported format version 2.0");
	memcpy(t, file, fn);
	t[6] = 1;
	put("reserved-header-bytes.weft", t, fn, 3, "reserved header bytes");
	put("header-only.weft", file, 8, 3, "zstd frame header truncated");
	memcpy(t, file, 8);
	memcpy(t + 8, "this is not zstd data", 21);
	put("not-zstd.weft", t, 29, 3, "no zstd frame after the header");

	/* the frame */
	put("truncated-frame.weft", file, fn - 9, 3, "truncated");
	memcpy(t, file, fn);
	t[fn / 2 + 4] ^= 0x10;
	put("bit-flip-payload.weft", t, fn, 3, "zstd");
	memcpy(t, file, fn);
	t[fn - 1] ^= 0x01;
	put("bit-flip-checksum.weft", t, fn, 3, "checksum");
	memcpy(t, file, fn);
	memcpy(t + fn, file + 8, fn - 8);
	put("two-frames.weft", t, fn + fn - 8, 3, "unexpected bytes after the zstd frame");
	memcpy(t, file, fn);
	memcpy(t + fn, "junk", 4);
	put("trailing-garbage.weft", t, fn + 4, 3, "unexpected bytes after the zstd frame");
	{
		/* a skippable frame (magic 0x184D2A50) where the data should be */
		uint8_t sk[16] = { 'W', 'E', 'F', 'T', 1, 0, 0, 0, 0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0 };
		put("skippable-frame.weft", sk, sizeof(sk), 3, "no zstd frame after the header");
	}
	put_wrapped("no-checksum.weft", c, cn, WEFT_WRAP_NO_CHECKSUM, 3, "has no checksum");
	put_wrapped("no-content-size.weft", c, cn, WEFT_WRAP_NO_SIZE, 3,
		    "does not declare its content size");
	{
		/* zstd bombs: 64 MiB of zeros in a few hundred bytes */
		size_t big = 64u << 20;
		uint8_t *z = calloc(1, big);
		if (!z)
			return 3;
		put_wrapped("zstd-bomb.weft", z, big, 0, 3, "declares 67108864 bytes of content");
		put_wrapped("zstd-bomb-no-size.weft", z, big, WEFT_WRAP_NO_SIZE, 3,
			    "does not declare its content size");
		free(z);
	}

	/* the content, truncated at every section boundary */
	static const char *const after[] = { "", "meta", "input", "workload", "sites",
					     "decisions", "choices", "verdict", "hashes" };
	for (unsigned k = 1; k < ns; k++) {
		char name[64], msg[96];
		snprintf(name, sizeof(name), "truncated-before-%s.weft", after[k + 1]);
		snprintf(msg, sizeof(msg), "ends before the %s section", after[k + 1]);
		put_wrapped(name, c, off[k], 0, 3, msg);
	}
	put_wrapped("truncated-empty-content.weft", c, 0, 0, 3, "ends before the meta section");
	put_wrapped("truncated-inside-decisions.weft", c, body[4] + 2, 0, 3,
		    "decisions section: declares");

	/* lengths and counts */
	{
		size_t n = 0;
		memcpy(t, c, off[4]);
		n = off[4];
		t[n++] = WEFT_RT_DECISIONS;
		t[n++] = 6;   /* section length */
		/* decision count 2^40 as a varint */
		const uint8_t huge[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x20 };
		memcpy(t + n, huge, sizeof(huge));
		n += sizeof(huge);
		memcpy(t + n, c + off[5], cn - off[5]);
		n += cn - off[5];
		put_wrapped("huge-decision-count.weft", t, n, 0, 3, "decision count is 1099511627776");
	}
	{
		size_t n = off[1];
		memcpy(t, c, n);
		t[n++] = WEFT_RT_INPUT;
		const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
		memcpy(t + n, huge, sizeof(huge));
		n += sizeof(huge);
		put_wrapped("huge-section-length.weft", t, n, 0, 3, "section length is");
	}
	{
		size_t n = off[1];
		memcpy(t, c, n);
		const uint8_t over[] = { WEFT_RT_INPUT, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x01 };
		memcpy(t + n, over, sizeof(over));
		n += sizeof(over);
		put_wrapped("overlong-varint.weft", t, n, 0, 3, "varint overflows 64 bits");
	}

	/* semantic checks: edit one field of a decoded copy and re-encode */
	struct weft_replay e;
	uint8_t *ec;
	size_t en;
#define EDITED(name, code, msg, edit)                                           \
	do {                                                                    \
		char err_[256];                                                 \
		if (weft_replay_decode(file, fn, &e, err_, sizeof(err_)))        \
			return 3;                                               \
		edit;                                                           \
		if (weft_replay_encode_content(&e, &ec, &en))                   \
			return 3;                                               \
		put_wrapped(name, ec, en, 0, code, msg);                        \
		free(ec);                                                       \
		weft_replay_free(&e);                                           \
	} while (0)
	EDITED("decision-names-missing-thread.weft", 3, "names threads that do not exist",
	       e.dec[0].runnable = 0x21);
	EDITED("decision-chooses-missing-thread.weft", 3, "chosen thread 7 is not runnable",
	       (e.dec[0].chosen = 7, e.dec[0].cur = 0xff));
	EDITED("decision-default-missing-thread.weft", 3, "default thread 2 is not runnable",
	       (e.dec[0].dflt = 2, e.dec[0].cur = 0xff));
	EDITED("decision-one-runnable.weft", 3, "fewer than two runnable threads",
	       (e.dec[0].runnable = 1, e.dec[0].dflt = 0, e.dec[0].chosen = 0,
		e.dec[0].cur = 0xff));
	EDITED("verdict-names-missing-cpu.weft", 3, "names CPU 9", e.here.cpu = 9);
	EDITED("zero-cpus.weft", 3, "CPU count 0 is not in 1..64", e.nr_cpus = 0);
	EDITED("too-many-threads.weft", 3, "thread count 65", e.nr_threads = 65);
	EDITED("bad-lock-model.weft", 3, "lock model 7", e.lock = 7);
	EDITED("bad-scenario-name.weft", 3, "scenario name contains byte 0x20",
	       snprintf(e.scenario, sizeof(e.scenario), "demo abba"));
	EDITED("control-chars-in-message.weft", 3, "message contains byte 0x1b",
	       e.msg[0] = 0x1b);
	EDITED("stale-fingerprint.weft", 5, "stale: recorded with model fingerprint",
	       e.fingerprint ^= 0x1);
	EDITED("unknown-scenario.weft", 5, "scenario 'demo-zzz' is not in this build",
	       snprintf(e.scenario, sizeof(e.scenario), "demo-zzz"));
	EDITED("unknown-variant.weft", 5, "has no variant 'zzz'",
	       snprintf(e.variant, sizeof(e.variant), "zzz"));
	EDITED("wrong-thread-count.weft", 5, "stale: the file has 3 threads",
	       (e.nr_threads = 3, e.nr_cpus = 3));
	/* a decision the execution will not take: DESYNC at its step */
	EDITED("desync-tampered-decision.weft", 4, "DESYNC",
	       (e.dec[0].chosen = (uint8_t)(e.dec[0].chosen ^ 1)));
	EDITED("desync-trace-hash.weft", 4, "the trace hash differs", e.trace_hash ^= 1);
	EDITED("desync-verdict-step.weft", 4, "the verdict differs", e.here.step += 1);

	{
		char err[256];
		if (weft_replay_decode(file, fn, &e, err, sizeof(err)))
			return 3;
		if (weft_replay_encode_content(&e, &ec, &en))
			return 3;
		/* unknown kind name: rewrite "deadlock" in place */
		uint8_t *p = NULL;
		for (size_t i = 0; i + 8 <= en; i++)
			if (!memcmp(ec + i, "deadlock", 8)) {
				p = ec + i;
				break;
			}
		if (!p)
			return 3;
		memcpy(p, "deadlick", 8);
		put_wrapped("unknown-kind.weft", ec, en, 0, 3, "unknown report kind 'deadlick'");
		free(ec);
		weft_replay_free(&e);
	}
	/* sections: unknown critical tag, out of order, optional (accepted) */
	{
		size_t n = 0;
		memcpy(t, c, off[2]);
		n = off[2];
		t[n++] = 0x20;
		t[n++] = 0;
		memcpy(t + n, c + off[2], cn - off[2]);
		n += cn - off[2];
		put_wrapped("unknown-critical-section.weft", t, n, 0, 3,
			    "unknown critical section tag 32");
	}
	{
		size_t n = 0;
		memcpy(t, c, off[1]);
		n = off[1];
		memcpy(t + n, c + off[2], off[3] - off[2]);   /* workload before input */
		n += off[3] - off[2];
		memcpy(t + n, c + off[1], off[2] - off[1]);
		n += off[2] - off[1];
		memcpy(t + n, c + off[3], cn - off[3]);
		n += cn - off[3];
		put_wrapped("sections-out-of-order.weft", t, n, 0, 3, "out of order");
	}
	{
		size_t n = 0;
		memcpy(t, c, cn);
		n = cn;
		const uint8_t opt[] = { 0xfe, 3, 'n', 'e', 'w' };
		memcpy(t + n, opt, sizeof(opt));
		n += sizeof(opt);
		put_wrapped("optional-section-accepted.weft", t, n, 0, 1, "");
	}
	/* the checks section (0x90, known optional): read and checked */
	{
		static const struct {
			const char *name;
			uint8_t body[48];
			size_t len;
			const char *msg;
		} ck[] = {
			{ "checks-fact-count.weft", { 0x01, 0x11 }, 2, "lockdep fact count is 17" },
			{ "checks-truncated.weft", { 0x01, 0x01, 0x01 }, 3, "checks" },
			{ "checks-fact-type.weft",
			  { 0x01, 0x01, 0x07, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
			  40, "unknown type 7" },
			{ "checks-fact-class.weft",
			  { 0x01, 0x01, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
			  40, "malformed lock class" },
			{ "checks-trailing.weft", { 0x01, 0x00, 0x00 }, 3, "unexpected bytes" },
		};
		for (size_t k = 0; k < sizeof(ck) / sizeof(ck[0]); k++) {
			size_t n = 0;
			memcpy(t, c, cn);
			n = cn;
			t[n++] = 0x90;
			t[n++] = (uint8_t)ck[k].len;
			memcpy(t + n, ck[k].body, ck[k].len);
			n += ck[k].len;
			put_wrapped(ck[k].name, t, n, 0, 3, ck[k].msg);
		}
		/* repeated */
		size_t n = 0;
		memcpy(t, c, cn);
		n = cn;
		for (int rep = 0; rep < 2; rep++) {
			t[n++] = 0x90;
			t[n++] = 2;
			t[n++] = 1;
			t[n++] = 0;
		}
		put_wrapped("checks-repeated.weft", t, n, 0, 3, "repeated");
	}
	{
		size_t n = 0;
		memcpy(t, c, cn);
		n = cn;
		t[n++] = WEFT_RT_HASHES;
		t[n++] = 0;
		put_wrapped("repeated-section.weft", t, n, 0, 3, "out of order or repeated");
	}
	{
		/* a byte of trailing junk inside the meta section */
		size_t n = 0;
		t[n++] = WEFT_RT_META;
		t[n++] = (uint8_t)(blen[0] + 1);
		memcpy(t + n, c + body[0], blen[0]);
		n += blen[0];
		t[n++] = 0;
		memcpy(t + n, c + off[1], cn - off[1]);
		n += cn - off[1];
		put_wrapped("section-trailing-bytes.weft", t, n, 0, 3,
			    "1 unexpected bytes at the end of the section");
	}
	if (field_by_field(file, fn))
		return 3;
	fclose(manifest);
	printf("gen_malformed: %u files in %s\n", nr_files, outdir);
	weft_replay_free(&rf);
	free(c);
	free(file);
	free(t);
	free(dfs);
	return 0;
}
