/*
 * gen_malformed.c - writes corpus/malformed/: crafted bad replay files,
 * each with the exit code and error text `weft replay` must give, listed
 * in MANIFEST (file<TAB>exit<TAB>substring of stderr). The base is a
 * replay of the demo-abba deadlock (1 preemption), recorded here, so the
 * corpus can be re-made: gen_malformed OUTDIR.
 *
 * Content edits work on the decompressed sections (docs/replay-format.md)
 * and re-wrap them with weft_replay_wrap().
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
	fclose(manifest);
	printf("gen_malformed: %u files in %s\n", nr_files, outdir);
	weft_replay_free(&rf);
	free(c);
	free(file);
	free(t);
	free(dfs);
	return 0;
}
