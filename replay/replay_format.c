/*
 * replay_format.c - the .weft format, version 1 (docs/replay-format.md):
 * an 8-byte header, then exactly one zstd frame (content size declared,
 * checksum on) holding tagged sections.
 *
 * The reader treats every byte as hostile: the header is checked before
 * zstd sees anything; the frame must declare its content size, at most
 * WEFT_REPLAY_MAX_CONTENT, and is decompressed into a buffer of exactly
 * that size with the window capped (a bomb fails before any large
 * allocation); every count is checked against its cap and against the
 * bytes left before anything is allocated for it.
 *
 * Length: the writer and the reader of every section with the refusal of
 * every malformed case (docs/replay-format.md section 2), each section's
 * encoder next to its decoder.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include <weft/replay.h>

/* ------------------------------------------------------------- errors */

static int fail(char *err, size_t n, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t n, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && n) {
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static const char *const tag_names[] = {
	"", "meta", "input", "workload", "sites", "decisions", "choices", "verdict", "hashes",
	"memory",
};

void weft_replay_free(struct weft_replay *rf)
{
	free(rf->dec);
	free(rf->choices);
	free(rf->state_hashes);
	free(rf->delays);
	rf->dec = NULL;
	rf->choices = NULL;
	rf->state_hashes = NULL;
	rf->delays = NULL;
	rf->nr_dec = rf->nr_choices = rf->nr_state_hashes = rf->nr_delays = 0;
}

/* ------------------------------------------------------------- writer */

struct wbuf {
	uint8_t *p;
	size_t n, cap;
	bool oom;
};

static void w_bytes(struct wbuf *w, const void *src, size_t n)
{
	if (w->oom)
		return;
	if (w->n + n > w->cap) {
		size_t cap = w->cap ? w->cap : 1024;
		while (cap < w->n + n)
			cap *= 2;
		uint8_t *p = realloc(w->p, cap);
		if (!p) {
			w->oom = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->n, src, n);
	w->n += n;
}

static void w_u8(struct wbuf *w, uint8_t v)
{
	w_bytes(w, &v, 1);
}

static void w_le(struct wbuf *w, uint64_t v, unsigned n)
{
	uint8_t b[8];

	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	w_bytes(w, b, n);
}

/* LEB128, at most 10 bytes */
static void w_var(struct wbuf *w, uint64_t v)
{
	uint8_t b[10];
	unsigned n = 0;

	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	w_bytes(w, b, n);
}

static void w_str(struct wbuf *w, const char *s)
{
	size_t n = strlen(s);

	w_var(w, n);
	w_bytes(w, s, n);
}

static void w_section(struct wbuf *w, uint8_t tag, const struct wbuf *body)
{
	w_u8(w, tag);
	w_var(w, body->n);
	w_bytes(w, body->p, body->n);
	if (body->oom)
		w->oom = true;
}

static void w_side(struct wbuf *b, const struct weft_replay_side *s)
{
	w_le(b, s->site_id, 4);
	w_var(b, s->step);
	w_u8(b, s->tid);
	w_u8(b, s->cpu);
}

/* Continuation decisions (no switch: the current thread was the default
 * and went on) do not store their site. */
static bool site_omitted(const struct weft_decision_rec *d)
{
	return d->site_id == WEFT_SITE_ANY ||
	       (d->cur != 0xff && d->cur == d->dflt && d->dflt == d->chosen);
}

int weft_replay_encode_content(const struct weft_replay *rf, uint8_t **out, size_t *len)
{
	struct wbuf w = { 0 }, b = { 0 };
	uint32_t sites[WEFT_REPLAY_MAX_SITES];
	size_t nsites = 0;
	int rc = 0;

	*out = NULL;
	*len = 0;
	/* the site table: distinct decision site ids in order of first use */
	for (size_t i = 0; i < rf->nr_dec; i++) {
		size_t k;
		if (site_omitted(&rf->dec[i]))
			continue;
		for (k = 0; k < nsites && sites[k] != rf->dec[i].site_id; k++)
			;
		if (k == nsites) {
			if (nsites == WEFT_REPLAY_MAX_SITES)
				return WEFT_EINVAL;
			sites[nsites++] = rf->dec[i].site_id;
		}
	}
	if (rf->nr_dec > WEFT_REPLAY_MAX_DECISIONS || rf->nr_choices > WEFT_REPLAY_MAX_CHOICES ||
	    rf->nr_state_hashes > WEFT_REPLAY_MAX_HASHES || rf->input_len > WEFT_INPUT_MAX ||
	    rf->workload_len > WEFT_INPUT_MAX)
		return WEFT_EINVAL;

#define SECTION(tag)                                                           \
	do {                                                                   \
		w_section(&w, (tag), &b);                                      \
		b.n = 0;                                                       \
	} while (0)
	w_str(&b, rf->scenario);
	w_str(&b, rf->variant);
	w_str(&b, rf->strategy);
	w_str(&b, rf->tool);
	w_le(&b, rf->fingerprint, 8);
	w_u8(&b, rf->nr_cpus);
	w_u8(&b, rf->nr_threads);
	w_u8(&b, rf->lock);
	SECTION(WEFT_RT_META);

	w_bytes(&b, rf->input, rf->input_len);
	SECTION(WEFT_RT_INPUT);
	w_bytes(&b, rf->workload, rf->workload_len);
	SECTION(WEFT_RT_WORKLOAD);

	w_var(&b, nsites);
	for (size_t k = 0; k < nsites; k++)
		w_le(&b, sites[k], 4);
	SECTION(WEFT_RT_SITES);

	w_var(&b, rf->nr_dec);
	uint32_t prev = 0;
	uint16_t prev_run = 0;
	for (size_t i = 0; i < rf->nr_dec; i++) {
		const struct weft_decision_rec *d = &rf->dec[i];
		size_t k;
		uint8_t fl = 0;
		bool nosite = site_omitted(d);
		for (k = 0; !nosite && sites[k] != d->site_id; k++)
			;
		if (nosite)
			fl |= WEFT_RD_NOSITE;
		if (d->step - prev == 1)
			fl |= WEFT_RD_STEP1;
		if (i > 0 && d->runnable == prev_run)
			fl |= WEFT_RD_SAMERUN;
		if (d->cur == d->dflt && d->dflt == d->chosen)
			fl |= WEFT_RD_CONT;
		w_u8(&b, fl);
		if (!(fl & WEFT_RD_STEP1))
			w_var(&b, d->step - prev);
		if (!(fl & WEFT_RD_SAMERUN))
			w_var(&b, d->runnable);
		w_u8(&b, d->cur);
		if (!(fl & WEFT_RD_CONT)) {
			w_u8(&b, d->dflt);
			w_u8(&b, d->chosen);
		}
		if (!nosite)
			w_var(&b, k);
		prev = d->step;
		prev_run = d->runnable;
	}
	SECTION(WEFT_RT_DECISIONS);

	w_var(&b, rf->nr_choices);
	for (size_t i = 0; i < rf->nr_choices; i++)
		w_var(&b, rf->choices[i]);
	SECTION(WEFT_RT_CHOICES);

	w_str(&b, rf->kind == WEFT_KIND_NONE ? "none" : weft_kind_name(rf->kind));
	w_side(&b, &rf->here);
	w_side(&b, &rf->other);
	w_str(&b, rf->site_text);
	w_str(&b, rf->object);
	w_str(&b, rf->msg);
	SECTION(WEFT_RT_VERDICT);

	w_le(&b, rf->trace_hash, 8);
	w_var(&b, rf->steps);
	w_var(&b, rf->preemptions);
	w_var(&b, rf->nr_state_hashes);
	for (size_t i = 0; i < rf->nr_state_hashes; i++)
		w_le(&b, rf->state_hashes[i], 8);
	SECTION(WEFT_RT_HASHES);

	if (rf->checks || rf->nr_lockdep) {
		w_var(&b, rf->checks);
		w_var(&b, rf->nr_lockdep);
		for (size_t i = 0; i < rf->nr_lockdep && i < WEFT_LOCKDEP_MAX_FACTS; i++) {
			const struct weft_lockdep_fact *f = &rf->lockdep[i];
			w_u8(&b, f->type);
			w_u8(&b, f->use);
			w_u8(&b, f->tid_a);
			w_u8(&b, f->tid_b);
			w_le(&b, f->a, 8);
			w_le(&b, f->b, 8);
			w_le(&b, f->loc_a, 4);
			w_le(&b, f->loc_b, 4);
			w_le(&b, f->site_a, 4);
			w_le(&b, f->site_b, 4);
			w_var(&b, f->step_a);
			w_var(&b, f->step_b);
		}
		SECTION(WEFT_RT_CHECKS);
	}
	if (rf->memory) {
		w_var(&b, rf->memory);
		w_var(&b, rf->nr_delays);
		w_bytes(&b, rf->delays, rf->nr_delays);
		SECTION(WEFT_RT_MEMORY);
	}
	if (rf->has_program) {
		const struct weft_replay_program *pg = &rf->program;
		w_var(&b, strlen(pg->path));
		w_bytes(&b, pg->path, strlen(pg->path));
		w_u8(&b, (uint8_t)pg->build_id_len);
		w_bytes(&b, pg->build_id, pg->build_id_len);
		w_var(&b, pg->argc);
		const char *a = pg->args;
		for (unsigned i = 0; i < pg->argc; i++) {
			size_t n = strlen(a);
			w_var(&b, n);
			w_bytes(&b, a, n);
			a += n + 1;
		}
		w_str(&b, pg->options);
		SECTION(WEFT_RT_PROGRAM);
		if (pg->runtime_id_len) {
			w_u8(&b, (uint8_t)pg->runtime_id_len);
			w_bytes(&b, pg->runtime_id, pg->runtime_id_len);
			SECTION(WEFT_RT_RUNTIME);
		}
	}
#undef SECTION

	if (w.oom || b.oom)
		rc = WEFT_ENOMEM;
	else if (w.n > WEFT_REPLAY_MAX_CONTENT)
		rc = WEFT_EFORMAT;   /* a reader would refuse it: write nothing */
	free(b.p);
	if (rc) {
		free(w.p);
		return rc;
	}
	*out = w.p;
	*len = w.n;
	return 0;
}

int weft_replay_wrap(const uint8_t *content, size_t clen, unsigned flags, uint8_t **out,
		     size_t *len)
{
	size_t bound = ZSTD_compressBound(clen);
	uint8_t *buf = malloc(WEFT_REPLAY_HEADER_SIZE + bound);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t z;

	*out = NULL;
	*len = 0;
	if (!buf || !cc) {
		free(buf);
		ZSTD_freeCCtx(cc);
		return WEFT_ENOMEM;
	}
	memcpy(buf, WEFT_REPLAY_MAGIC, 4);
	buf[4] = WEFT_REPLAY_VERSION_MAJOR;
	buf[5] = WEFT_REPLAY_VERSION_MINOR;
	buf[6] = buf[7] = 0;
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 19);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, !(flags & WEFT_WRAP_NO_CHECKSUM));
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
	if (flags & WEFT_WRAP_NO_SIZE) {
		/* a streaming compression does not know the size up front */
		ZSTD_inBuffer ib = { content, clen, 0 };
		ZSTD_outBuffer ob = { buf + WEFT_REPLAY_HEADER_SIZE, bound, 0 };
		size_t rem = 0;
		/* e_continue first: an e_end first call would know the size */
		while (ib.pos < ib.size && !ZSTD_isError(rem))
			rem = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_continue);
		if (!ZSTD_isError(rem)) {
			ZSTD_inBuffer none = { NULL, 0, 0 };
			do {
				rem = ZSTD_compressStream2(cc, &ob, &none, ZSTD_e_end);
			} while (!ZSTD_isError(rem) && rem);
		}
		z = ZSTD_isError(rem) ? rem : ob.pos;
	} else {
		z = ZSTD_compress2(cc, buf + WEFT_REPLAY_HEADER_SIZE, bound, content, clen);
	}
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(z)) {
		free(buf);
		return WEFT_EIO;
	}
	*out = buf;
	*len = WEFT_REPLAY_HEADER_SIZE + z;
	return 0;
}

int weft_replay_encode(const struct weft_replay *rf, uint8_t **out, size_t *len)
{
	uint8_t *content;
	size_t clen;
	int rc = weft_replay_encode_content(rf, &content, &clen);

	*out = NULL;
	*len = 0;
	if (rc)
		return rc;
	rc = weft_replay_wrap(content, clen, 0, out, len);
	free(content);
	if (!rc && *len > WEFT_REPLAY_MAX_FILE) {
		free(*out);
		*out = NULL;
		*len = 0;
		return WEFT_EFORMAT;
	}
	if (!rc && rf->memory)
		(*out)[5] = WEFT_REPLAY_VERSION_MINOR_MEMORY;
	return rc;
}

/* ------------------------------------------------------------- reader */

struct rbuf {
	const uint8_t *p;
	size_t n, off;
	const char *where;     /* section being read */
	char *err;
	size_t errn;
	int rc;
};

static bool r_bad(struct rbuf *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool r_bad(struct rbuf *r, const char *fmt, ...)
{
	va_list ap;
	char msg[200];

	if (r->rc)
		return false;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->rc = WEFT_EFORMAT;
	fail(r->err, r->errn, WEFT_EFORMAT, "%s section: %s", r->where, msg);
	return false;
}

static bool r_need(struct rbuf *r, size_t n)
{
	if (r->rc)
		return false;
	if (n > r->n - r->off)
		return r_bad(r, "truncated at byte %zu (need %zu more, %zu left)", r->off, n,
			     r->n - r->off);
	return true;
}

static uint8_t r_u8(struct rbuf *r)
{
	if (!r_need(r, 1))
		return 0;
	return r->p[r->off++];
}

static uint64_t r_le(struct rbuf *r, unsigned n)
{
	uint64_t v = 0;

	if (!r_need(r, n))
		return 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->off + i] << (8 * i);
	r->off += n;
	return v;
}

static uint64_t r_var(struct rbuf *r, uint64_t max, const char *what)
{
	uint64_t v = 0;

	for (unsigned i = 0;; i++) {
		if (i == 10) {
			r_bad(r, "%s: varint longer than 10 bytes", what);
			return 0;
		}
		if (!r_need(r, 1))
			return 0;
		uint8_t b = r->p[r->off++];
		if (i == 9 && b > 1) {
			r_bad(r, "%s: varint overflows 64 bits", what);
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	if (v > max) {
		r_bad(r, "%s is %llu, more than %llu", what, (unsigned long long)v,
		      (unsigned long long)max);
		return 0;
	}
	return v;
}

/* A count of records (at most max, what names it) into *n, then an array
 * for them of elem bytes each, once the section is known to hold them (each
 * takes at least each bytes there); NULL, r->rc set, where it is short or
 * memory is. */
static void *r_array(struct rbuf *r, uint64_t max, const char *what, size_t each, size_t elem,
		     uint64_t *n)
{
	void *a;

	*n = r_var(r, max, what);
	if (!r_need(r, each * *n))
		return NULL;
	a = malloc((*n ? *n : 1) * elem);
	if (!a) {
		r->rc = WEFT_ENOMEM;
		fail(r->err, r->errn, WEFT_ENOMEM, "out of memory");
	}
	return a;
}

/* A counted array of values (r_array(): count, cap, then room) into dst,
 * each value read by read (r_le() or r_var() of r), and its length into
 * nr; dst is NULL, r->rc set, when the count is refused. */
#define R_VALUES(r, dst, nr, max, what, each, read)                                    \
	do {                                                                              \
		uint64_t n_;                                                              \
		(dst) = r_array((r), (max), (what), (each), sizeof(*(dst)), &n_);         \
		if (!(dst))                                                               \
			break;                                                            \
		for (uint64_t i_ = 0; i_ < n_ && !(r)->rc; i_++)                          \
			(dst)[i_] = (__typeof__(*(dst)))(read);                           \
		(nr) = (size_t)n_;                                                        \
	} while (0)

/* A name or text field: printable ASCII only (plus spaces), at most cap. */
static void r_str(struct rbuf *r, char *dst, size_t cap, bool name, const char *what)
{
	uint64_t n = r_var(r, cap, what);

	dst[0] = 0;
	if (r->rc || !r_need(r, n))
		return;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t c = r->p[r->off + i];
		if (c < 0x20 || c > 0x7e || (name && c == ' ')) {
			r_bad(r, "%s contains byte 0x%02x at %llu", what, c, (unsigned long long)i);
			return;
		}
		dst[i] = (char)c;
	}
	dst[n] = 0;
	r->off += n;
}

static void r_side(struct rbuf *r, struct weft_replay_side *s, unsigned nt, unsigned nc,
		   const char *what)
{
	s->site_id = (uint32_t)r_le(r, 4);
	s->step = (uint32_t)r_var(r, UINT32_MAX, "step");
	s->tid = r_u8(r);
	s->cpu = r_u8(r);
	if (r->rc)
		return;
	if (s->tid != 0xff && s->tid >= nt)
		r_bad(r, "%s names thread %u; the file has %u threads", what, s->tid, nt);
	else if (s->cpu != 0xff && s->cpu >= nc)
		r_bad(r, "%s names CPU %u; the file has %u CPUs", what, s->cpu, nc);
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

/* A lock class key: 1 << 32 | init site id, or 2 << 32 | world offset. */
static bool class_key_ok(uint64_t k)
{
	return (k >> 32) == 1 || (k >> 32) == 2;
}

/* WEFT_RT_CHECKS: varint checks, varint n <= WEFT_LOCKDEP_MAX_FACTS, n
 * facts (docs/replay-format.md). Every field is checked: a fact names a
 * known type; a usage fact a known usage and no b side (all zero); an
 * edge usage 0; threads of the file (or 0xff, the host); class keys of a
 * known form. Offsets are checked against the scenario's world when the
 * file is bound to it (weft_replay_bind). */
static void parse_checks(struct rbuf *r, struct weft_replay *rf)
{
	rf->checks = (unsigned)r_var(r, 0x1ff, "checks");
	uint64_t n = r_var(r, WEFT_LOCKDEP_MAX_FACTS, "lockdep fact count");
	for (size_t i = 0; i < n && !r->rc; i++) {
		struct weft_lockdep_fact *f = &rf->lockdep[i];
		f->type = r_u8(r);
		f->use = r_u8(r);
		f->tid_a = r_u8(r);
		f->tid_b = r_u8(r);
		f->a = r_le(r, 8);
		f->b = r_le(r, 8);
		f->loc_a = (uint32_t)r_le(r, 4);
		f->loc_b = (uint32_t)r_le(r, 4);
		f->site_a = (uint32_t)r_le(r, 4);
		f->site_b = (uint32_t)r_le(r, 4);
		f->step_a = (uint32_t)r_var(r, UINT32_MAX, "lockdep fact step");
		f->step_b = (uint32_t)r_var(r, UINT32_MAX, "lockdep fact step");
		if (r->rc)
			break;
		bool edge = f->type == WEFT_LOCKDEP_FACT_EDGE;
		if (!edge && f->type != WEFT_LOCKDEP_FACT_USE)
			r_bad(r, "lockdep fact %zu: unknown type %u", i, f->type);
		else if (!edge && f->use > 7)   /* 4-7: the read usages of 0-3 */
			r_bad(r, "lockdep fact %zu: unknown usage %u", i, f->use);
		else if (edge && f->use)
			r_bad(r, "lockdep fact %zu: usage %u on a lock-order edge (it is 0)", i, f->use);
		else if (f->tid_a != 0xff && f->tid_a >= rf->nr_threads)
			r_bad(r, "lockdep fact %zu: thread of a %u; the file has %u threads", i, f->tid_a,
			      rf->nr_threads);
		else if (edge && f->tid_b != 0xff && f->tid_b >= rf->nr_threads)
			r_bad(r, "lockdep fact %zu: thread of b %u; the file has %u threads", i, f->tid_b,
			      rf->nr_threads);
		else if (!class_key_ok(f->a))
			r_bad(r, "lockdep fact %zu: malformed lock class a 0x%llx", i,
			      (unsigned long long)f->a);
		else if (edge && !class_key_ok(f->b))
			r_bad(r, "lockdep fact %zu: malformed lock class b 0x%llx", i,
			      (unsigned long long)f->b);
		else if (!edge && (f->b || f->loc_b || f->site_b || f->step_b || f->tid_b))
			r_bad(r, "lockdep fact %zu: a usage fact with a b side (class b, thread, "
				 "offset, site or step of b not 0)", i);
		rf->nr_lockdep = i + 1;
	}
}

/* WEFT_RT_PROGRAM: bytes path, u8 n + n bytes build id, varint argc,
 * argc x bytes, str options (docs/replay-format.md). "bytes" is a varint
 * length and that many bytes, none of them NUL. */
static void r_bytes_str(struct rbuf *r, char *dst, size_t cap, const char *what)
{
	uint64_t n = r_var(r, cap - 1, what);

	dst[0] = 0;
	if (r->rc || !r_need(r, n))
		return;
	if (memchr(r->p + r->off, 0, n)) {
		r_bad(r, "%s contains a NUL byte", what);
		return;
	}
	memcpy(dst, r->p + r->off, n);
	dst[n] = 0;
	r->off += n;
}

static void parse_program(struct rbuf *r, struct weft_replay *rf)
{
	struct weft_replay_program *pg = &rf->program;

	r_bytes_str(r, pg->path, sizeof(pg->path), "program path");
	pg->build_id_len = r_u8(r);
	if (!r->rc && (pg->build_id_len < 1 || pg->build_id_len > WEFT_BUILD_ID_MAX)) {
		r_bad(r, "build id of %u bytes (1..%u)", pg->build_id_len, WEFT_BUILD_ID_MAX);
		return;
	}
	if (!r_need(r, pg->build_id_len))
		return;
	memcpy(pg->build_id, r->p + r->off, pg->build_id_len);
	r->off += pg->build_id_len;
	pg->argc = (unsigned)r_var(r, WEFT_PROGRAM_MAX_ARGS, "argument count");
	size_t used = 0;
	for (unsigned i = 0; i < pg->argc && !r->rc; i++) {
		if (used >= sizeof(pg->args)) {
			r_bad(r, "arguments longer than %zu bytes", sizeof(pg->args));
			return;
		}
		r_bytes_str(r, pg->args + used, sizeof(pg->args) - used, "argument");
		used += strlen(pg->args + used) + 1;
	}
	r_str(r, pg->options, sizeof(pg->options) - 1, false, "program options");
	if (!r->rc && !pg->path[0])
		r_bad(r, "empty program path");
	rf->has_program = !r->rc;
}

/* WEFT_RT_RUNTIME: u8 n + n bytes, libweft_rt's build id. */
static void parse_runtime(struct rbuf *r, struct weft_replay *rf)
{
	struct weft_replay_program *pg = &rf->program;
	unsigned n = r_u8(r);

	if (!r->rc && (n < 1 || n > WEFT_BUILD_ID_MAX)) {
		r_bad(r, "runtime build id of %u bytes (1..%u)", n, WEFT_BUILD_ID_MAX);
		return;
	}
	if (!r_need(r, n))
		return;
	memcpy(pg->runtime_id, r->p + r->off, n);
	pg->runtime_id_len = n;
	r->off += n;
}

static void parse_memory(struct rbuf *r, struct weft_replay *rf)
{
	uint64_t m = r_var(r, 255, "memory model");
	uint64_t n = r_var(r, WEFT_MAX_DELAYS, "delay count");

	if (r->rc)
		return;
	if (!m || m >= WEFT_MEM__COUNT) {
		r_bad(r, "memory model %llu is not one this weft knows (1..%u)",
		      (unsigned long long)m, WEFT_MEM__COUNT - 1);
		return;
	}
	if (!r_need(r, n))
		return;
	rf->delays = malloc(n ? n : 1);
	if (!rf->delays) {
		r->rc = WEFT_ENOMEM;
		fail(r->err, r->errn, WEFT_ENOMEM, "out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		rf->delays[i] = r_u8(r);
		if (rf->delays[i] >= WEFT_DELAY_CODES) {
			r_bad(r, "store %zu: delay code %u is not below %u", i, rf->delays[i],
			      WEFT_DELAY_CODES);
			return;
		}
	}
	rf->memory = (uint8_t)m;
	rf->nr_delays = (size_t)n;
}

static int parse_sections(struct rbuf *top, struct weft_replay *rf)
{
	uint32_t *sites = NULL;
	size_t nsites = 0;
	unsigned next = WEFT_RT_META;
	bool have_checks = false, have_program = false, have_memory = false;
	bool have_runtime = false;

	while (top->off < top->n && !top->rc) {
		top->where = "content";
		uint8_t tag = r_u8(top);
		uint64_t len = r_var(top, top->n, "section length");
		if (top->rc)
			break;
		if (len > top->n - top->off) {
			char what[48];
			snprintf(what, sizeof(what), "section %u", tag);
			top->where = tag && tag <= WEFT_RT__LAST ? tag_names[tag] : what;
			r_bad(top, "declares %llu bytes, only %zu left", (unsigned long long)len,
			      top->n - top->off);
			break;
		}
		struct rbuf r = { top->p + top->off, (size_t)len, 0, "", top->err, top->errn, 0 };
		top->off += (size_t)len;
		if (tag == WEFT_RT_CHECKS || tag == WEFT_RT_PROGRAM || tag == WEFT_RT_MEMORY ||
		    tag == WEFT_RT_RUNTIME) {
			/* the sections after the first eight that this reader
			 * knows: each at most once, consumed exactly */
			bool *seen = tag == WEFT_RT_CHECKS ? &have_checks
				     : tag == WEFT_RT_PROGRAM ? &have_program
				     : tag == WEFT_RT_RUNTIME ? &have_runtime : &have_memory;
			r.where = tag == WEFT_RT_CHECKS ? "checks"
				  : tag == WEFT_RT_PROGRAM ? "program"
				  : tag == WEFT_RT_RUNTIME ? "runtime" : "memory";
			if (next <= WEFT_RT__LAST || *seen) {
				r_bad(&r, tag == WEFT_RT_MEMORY
						  ? "before the other critical sections end, or repeated"
						  : "before the critical sections end, or repeated");
				top->rc = r.rc;
				break;
			}
			*seen = true;
			if (tag == WEFT_RT_CHECKS)
				parse_checks(&r, rf);
			else if (tag == WEFT_RT_PROGRAM)
				parse_program(&r, rf);
			else if (tag == WEFT_RT_RUNTIME)
				parse_runtime(&r, rf);
			else
				parse_memory(&r, rf);
			if (!r.rc && r.off != r.n)
				r_bad(&r, "%zu unexpected bytes at the end of the section", r.n - r.off);
			if (r.rc) {
				top->rc = r.rc;
				break;
			}
			continue;
		}
		if (tag >= 0x80)
			continue;   /* optional section of a newer minor version */
		if (tag == 0 || tag > WEFT_RT__LAST) {
			top->where = "content";
			r_bad(top, "unknown critical section tag %u (file from a newer weft?)", tag);
			break;
		}
		if (tag != next) {
			top->where = tag_names[tag];
			r_bad(top, "out of order or repeated (expected the %s section)",
			      next <= WEFT_RT__LAST ? tag_names[next] : "end");
			break;
		}
		next++;
		r.where = tag_names[tag];
		switch (tag) {
		case WEFT_RT_META:
			r_str(&r, rf->scenario, WEFT_REPLAY_MAX_NAME, true, "scenario name");
			r_str(&r, rf->variant, WEFT_REPLAY_MAX_NAME, true, "variant name");
			r_str(&r, rf->strategy, sizeof(rf->strategy) - 1, true, "strategy name");
			r_str(&r, rf->tool, sizeof(rf->tool) - 1, false, "tool");
			rf->fingerprint = r_le(&r, 8);
			rf->nr_cpus = r_u8(&r);
			rf->nr_threads = r_u8(&r);
			rf->lock = r_u8(&r);
			if (r.rc)
				break;
			if (!valid_name(rf->scenario) || !valid_name(rf->variant))
				r_bad(&r, "scenario and variant names must be non-empty [A-Za-z0-9._-]");
			else if (!rf->nr_cpus || rf->nr_cpus > WEFT_EXEC_MAX_CPUS)
				r_bad(&r, "CPU count %u is not in 1..%u", rf->nr_cpus, WEFT_EXEC_MAX_CPUS);
			else if (!rf->nr_threads || rf->nr_threads > WEFT_EXEC_MAX_THREADS)
				r_bad(&r, "thread count %u is not in 1..%u", rf->nr_threads,
				      WEFT_EXEC_MAX_THREADS);
			else if (rf->lock > WEFT_LOCK_TICKET)
				r_bad(&r, "lock model %u is not 0 (tas) or 1 (ticket)", rf->lock);
			break;
		case WEFT_RT_INPUT:
		case WEFT_RT_WORKLOAD: {
			uint8_t *dst = tag == WEFT_RT_INPUT ? rf->input : rf->workload;
			if (r.n > WEFT_INPUT_MAX) {
				r_bad(&r, "%zu bytes, more than %u", r.n, WEFT_INPUT_MAX);
				break;
			}
			memcpy(dst, r.p, r.n);
			r.off = r.n;
			if (tag == WEFT_RT_INPUT)
				rf->input_len = r.n;
			else
				rf->workload_len = r.n;
			break;
		}
		case WEFT_RT_SITES:
			R_VALUES(&r, sites, nsites, WEFT_REPLAY_MAX_SITES, "site count", 4,
				 r_le(&r, 4));
			break;
		case WEFT_RT_DECISIONS: {
			uint64_t n;
			/* each decision takes at least 2 bytes */
			rf->dec = r_array(&r, WEFT_REPLAY_MAX_DECISIONS, "decision count", 2,
					 sizeof(*rf->dec), &n);
			if (!rf->dec)
				break;
			uint64_t allt = rf->nr_threads >= 64 ? ~0ull : (1ull << rf->nr_threads) - 1;
			uint64_t step = 0;
			uint16_t prev_run = 0;
			for (size_t i = 0; i < n && !r.rc; i++) {
				struct weft_decision_rec *d = &rf->dec[i];
				uint8_t fl = r_u8(&r);
				if (fl & ~(WEFT_RD_STEP1 | WEFT_RD_SAMERUN | WEFT_RD_CONT |
					   WEFT_RD_NOSITE)) {
					r_bad(&r, "decision %zu: unknown flag bits 0x%02x", i, fl);
					break;
				}
				if ((fl & WEFT_RD_SAMERUN) && i == 0) {
					r_bad(&r, "decision 0 repeats a previous runnable mask");
					break;
				}
				step += fl & WEFT_RD_STEP1 ? 1 : r_var(&r, UINT32_MAX, "step delta");
				d->runnable = fl & WEFT_RD_SAMERUN ? prev_run
								   : r_var(&r, UINT64_MAX, "runnable mask");
				prev_run = d->runnable;
				d->cur = r_u8(&r);
				if (fl & WEFT_RD_CONT) {
					d->dflt = d->chosen = d->cur;
				} else {
					d->dflt = r_u8(&r);
					d->chosen = r_u8(&r);
				}
				uint64_t si = 0;
				if (!(fl & WEFT_RD_NOSITE))
					si = r_var(&r, nsites ? nsites - 1 : 0, "site index");
				if (r.rc)
					break;
				if (step > UINT32_MAX) {
					r_bad(&r, "decision %zu: step overflows 32 bits", i);
					break;
				}
				if (!nsites && !(fl & WEFT_RD_NOSITE)) {
					r_bad(&r, "decision %zu refers to an empty site table", i);
					break;
				}
				d->step = (uint32_t)step;
				d->site_id = fl & WEFT_RD_NOSITE ? WEFT_SITE_ANY : sites[si];
				if (d->runnable & ~allt) {
					r_bad(&r, "decision %zu: runnable mask 0x%" PRIx64 " names threads "
						  "that do not exist (%u threads)",
					      i, d->runnable, rf->nr_threads);
				} else if (!(d->runnable & (d->runnable - 1))) {
					r_bad(&r, "decision %zu: fewer than two runnable threads "
						  "(mask 0x%" PRIx64 ")", i, d->runnable);
				} else if (d->cur != 0xff &&
					   (d->cur >= rf->nr_threads || !(d->runnable >> d->cur & 1))) {
					r_bad(&r, "decision %zu: current thread %u is not runnable or "
						  "does not exist", i, d->cur);
				} else if (d->dflt >= rf->nr_threads || !(d->runnable >> d->dflt & 1)) {
					r_bad(&r, "decision %zu: default thread %u is not runnable or "
						  "does not exist", i, d->dflt);
				} else if (d->chosen >= rf->nr_threads ||
					   !(d->runnable >> d->chosen & 1)) {
					r_bad(&r, "decision %zu: chosen thread %u is not runnable or "
						  "does not exist", i, d->chosen);
				}
				rf->nr_dec = i + 1;
			}
			break;
		}
		case WEFT_RT_CHOICES:
			R_VALUES(&r, rf->choices, rf->nr_choices, WEFT_REPLAY_MAX_CHOICES,
				 "choice count", 1, r_var(&r, UINT32_MAX, "choice value"));
			break;
		case WEFT_RT_VERDICT: {
			char kname[33];
			r_str(&r, kname, 32, true, "kind name");
			if (r.rc)
				break;
			if (!strcmp(kname, "none")) {
				rf->kind = WEFT_KIND_NONE;
			} else {
				rf->kind = weft_kind_from_name(kname);
				if (rf->kind == WEFT_KIND_NONE) {
					r_bad(&r, "unknown report kind '%s' (file from a newer weft?)",
					      kname);
					break;
				}
			}
			r_side(&r, &rf->here, rf->nr_threads, rf->nr_cpus, "the failing access");
			r_side(&r, &rf->other, rf->nr_threads, rf->nr_cpus, "the other access");
			r_str(&r, rf->site_text, sizeof(rf->site_text) - 1, false, "site text");
			r_str(&r, rf->object, sizeof(rf->object) - 1, false, "object");
			r_str(&r, rf->msg, sizeof(rf->msg) - 1, false, "message");
			break;
		}
		case WEFT_RT_HASHES: {
			rf->trace_hash = r_le(&r, 8);
			rf->steps = (uint32_t)r_var(&r, UINT32_MAX, "steps");
			rf->preemptions = (uint32_t)r_var(&r, UINT32_MAX, "preemptions");
			R_VALUES(&r, rf->state_hashes, rf->nr_state_hashes, WEFT_REPLAY_MAX_HASHES,
				 "state hash count", 8, r_le(&r, 8));
			break;
		}
		}
		if (!r.rc && r.off != r.n)
			r_bad(&r, "%zu unexpected bytes at the end of the section", r.n - r.off);
		if (r.rc) {
			top->rc = r.rc;
			break;
		}
	}
	free(sites);
	if (!top->rc && next <= WEFT_RT__LAST) {
		top->where = "content";
		r_bad(top, "ends before the %s section (truncated content)", tag_names[next]);
	}
	if (!top->rc && have_runtime && !have_program) {
		top->where = "runtime";
		r_bad(top, "a runtime build id without the program section");
	}
	return top->rc;
}

int weft_replay_decode_content(const uint8_t *buf, size_t len, struct weft_replay *rf,
			       char *err, size_t errn)
{
	struct rbuf r = { buf, len, 0, "content", err, errn, 0 };

	memset(rf, 0, sizeof(*rf));
	rf->version_major = WEFT_REPLAY_VERSION_MAJOR;
	rf->version_minor = WEFT_REPLAY_VERSION_MINOR;
	if (len > WEFT_REPLAY_MAX_CONTENT)
		return fail(err, errn, WEFT_EFORMAT, "content of %zu bytes exceeds %u", len,
			    WEFT_REPLAY_MAX_CONTENT);
	int rc = parse_sections(&r, rf);
	if (rc)
		weft_replay_free(rf);
	return rc;
}

bool weft_replay_sniff(const uint8_t *buf, size_t len)
{
	return len >= 4 && !memcmp(buf, WEFT_REPLAY_MAGIC, 4);
}

int weft_replay_decode(const uint8_t *buf, size_t len, struct weft_replay *rf, char *err,
		       size_t errn)
{
	memset(rf, 0, sizeof(*rf));
	if (len < WEFT_REPLAY_HEADER_SIZE)
		return fail(err, errn, WEFT_EFORMAT,
			    "not a weft replay file: %zu bytes, shorter than the %u-byte header",
			    len, WEFT_REPLAY_HEADER_SIZE);
	if (memcmp(buf, WEFT_REPLAY_MAGIC, 4))
		return fail(err, errn, WEFT_EFORMAT,
			    "not a weft replay file: bad magic %02x %02x %02x %02x (want 'WEFT')",
			    buf[0], buf[1], buf[2], buf[3]);
	if (buf[4] != WEFT_REPLAY_VERSION_MAJOR)
		return fail(err, errn, WEFT_EFORMAT,
			    "unsupported format version %u.%u: this weft reads version %u.x", buf[4],
			    buf[5], WEFT_REPLAY_VERSION_MAJOR);
	if (buf[6] || buf[7])
		return fail(err, errn, WEFT_EFORMAT,
			    "reserved header bytes are %02x %02x, must be 0", buf[6], buf[7]);
	if (len > WEFT_REPLAY_MAX_FILE)
		return fail(err, errn, WEFT_EFORMAT, "file of %zu bytes exceeds %u", len,
			    WEFT_REPLAY_MAX_FILE);

	const uint8_t *z = buf + WEFT_REPLAY_HEADER_SIZE;
	size_t zn = len - WEFT_REPLAY_HEADER_SIZE;
	/* Frame header (RFC 8878 3.1.1): magic, then the descriptor byte
	 * whose bit 2 is Content_Checksum_flag. Stable API only. */
	if (zn < 6)
		return fail(err, errn, WEFT_EFORMAT, "zstd frame header truncated (%zu bytes)", zn);
	if (z[0] != 0x28 || z[1] != 0xb5 || z[2] != 0x2f || z[3] != 0xfd)
		return fail(err, errn, WEFT_EFORMAT,
			    "no zstd frame after the header (bytes %02x %02x %02x %02x)", z[0],
			    z[1], z[2], z[3]);
	unsigned long long csize = ZSTD_getFrameContentSize(z, zn);
	if (csize == ZSTD_CONTENTSIZE_ERROR)
		return fail(err, errn, WEFT_EFORMAT, "zstd frame header is invalid or truncated");
	if (csize == ZSTD_CONTENTSIZE_UNKNOWN)
		return fail(err, errn, WEFT_EFORMAT,
			    "the zstd frame does not declare its content size");
	if (csize > WEFT_REPLAY_MAX_CONTENT)
		return fail(err, errn, WEFT_EFORMAT,
			    "the zstd frame declares %llu bytes of content, more than %u (refused "
			    "before decompressing)",
			    csize, WEFT_REPLAY_MAX_CONTENT);
	if (!(z[4] & 0x04))
		return fail(err, errn, WEFT_EFORMAT, "the zstd frame has no checksum");
	size_t fsz = ZSTD_findFrameCompressedSize(z, zn);
	if (ZSTD_isError(fsz))
		return fail(err, errn, WEFT_EFORMAT, "zstd frame: %s (truncated file?)",
			    ZSTD_getErrorName(fsz));
	if (fsz != zn)
		return fail(err, errn, WEFT_EFORMAT, "%zu unexpected bytes after the zstd frame",
			    zn - fsz);

	size_t cn = (size_t)csize;
	uint8_t *content = malloc(cn ? cn : 1);
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	if (!content || !dc) {
		free(content);
		ZSTD_freeDCtx(dc);
		return fail(err, errn, WEFT_ENOMEM, "out of memory");
	}
	ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, WEFT_REPLAY_WINDOW_LOG);
	size_t got = ZSTD_decompressDCtx(dc, content, cn, z, zn);
	ZSTD_freeDCtx(dc);
	if (ZSTD_isError(got)) {
		free(content);
		return fail(err, errn, WEFT_EFORMAT, "zstd: %s", ZSTD_getErrorName(got));
	}
	if (got != cn) {
		free(content);
		return fail(err, errn, WEFT_EFORMAT, "zstd: %zu bytes decoded, %zu declared", got, cn);
	}
	int rc = weft_replay_decode_content(content, cn, rf, err, errn);
	free(content);
	if (rc == 0) {
		rf->version_major = buf[4];
		rf->version_minor = buf[5];
	}
	return rc;
}

int weft_replay_load(const char *path, struct weft_replay *rf, char *err, size_t errn)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	memset(rf, 0, sizeof(*rf));
	if (!f)
		return fail(err, errn, WEFT_EIO, "cannot open '%s': %s", path, strerror(errno));
	buf = malloc(WEFT_REPLAY_MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		return fail(err, errn, WEFT_ENOMEM, "out of memory");
	}
	n = fread(buf, 1, WEFT_REPLAY_MAX_FILE + 1, f);
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		free(buf);
		return fail(err, errn, WEFT_EIO, "cannot read '%s': %s", path, strerror(e));
	}
	fclose(f);
	if (n > WEFT_REPLAY_MAX_FILE) {
		free(buf);
		return fail(err, errn, WEFT_EFORMAT, "'%s' is larger than %u bytes: not a replay file",
			    path, WEFT_REPLAY_MAX_FILE);
	}
	int rc = weft_replay_decode(buf, n, rf, err, errn);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------- binding */

extern struct weft_site *const __start_weft_sites[] __attribute__((weak));
extern struct weft_site *const __stop_weft_sites[] __attribute__((weak));

const struct weft_site *weft_site_by_id(uint32_t id)
{
	if (!id)
		return NULL;
	if (!__start_weft_sites)
		return weft_dynamic_site(id);
	weft_machine_init();   /* computes every site id */
	for (struct weft_site *const *p = __start_weft_sites; p < __stop_weft_sites; p++)
		if (*p && (*p)->id == id)
			return *p;
	return weft_dynamic_site(id);
}

/* A build id as hex into out (2 * WEFT_BUILD_ID_MAX + 1 bytes). */
static void hex_id(char *out, const uint8_t *id, unsigned n)
{
	out[0] = 0;
	for (unsigned i = 0; i < n && i < WEFT_BUILD_ID_MAX; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

int weft_replay_bind(const struct weft_replay *rf, const struct weft_scenario **scp,
		     unsigned *vi, char *err, size_t errn)
{
	const struct weft_scenario *sc = NULL;

	*scp = NULL;
	for (unsigned i = 0; i < weft_nr_scenarios; i++)
		if (!strcmp(weft_scenarios[i]->name, rf->scenario))
			sc = weft_scenarios[i];
	if (!sc)
		return fail(err, errn, WEFT_ENOENT,
			    "scenario '%s' is not in this build (its list subcommand shows what is)",
			    rf->scenario);
	unsigned v;
	for (v = 0; v < sc->nr_variants; v++)
		if (!strcmp(sc->variants[v].name, rf->variant))
			break;
	if (v == sc->nr_variants)
		return fail(err, errn, WEFT_ENOENT, "scenario '%s' has no variant '%s' in this build",
			    rf->scenario, rf->variant);
	*scp = sc;
	*vi = v;
	/* the file's thread count covers interrupt handlers and spawned
	 * threads: at least the scenario's own threads and handlers */
	if (rf->nr_threads < sc->nr_threads + sc->nr_irqs || rf->nr_cpus != sc->nr_cpus)
		return fail(err, errn, WEFT_ESTALE,
			    "stale: the file has %u threads on %u CPUs, %s has %u (+%u interrupt "
			    "handlers) on %u",
			    rf->nr_threads, rf->nr_cpus, sc->name, sc->nr_threads, sc->nr_irqs,
			    sc->nr_cpus);
	/* the lockdep facts' world offsets (names, classes by offset) must lie
	 * in this scenario's world: a corrupt file, not a stale one */
	const size_t extent = weft_world_extent(sc);   /* locks may be on the heap */
	for (size_t i = 0; i < rf->nr_lockdep; i++) {
		const struct weft_lockdep_fact *f = &rf->lockdep[i];
		bool edge = f->type == WEFT_LOCKDEP_FACT_EDGE;
		const char *bad = NULL;
		if (f->loc_a >= extent)
			bad = "offset of a";
		else if (edge && f->loc_b >= extent)
			bad = "offset of b";
		else if ((f->a >> 32) == 2 && (uint32_t)f->a >= extent)
			bad = "class a's offset";
		else if (edge && (f->b >> 32) == 2 && (uint32_t)f->b >= extent)
			bad = "class b's offset";
		if (bad)
			return fail(err, errn, WEFT_EFORMAT,
				    "checks section: lockdep fact %zu: %s is outside %s's world (%zu "
				    "bytes)", i, bad, sc->name, extent);
	}
	const struct weft_program *self = weft_program_self();
	if (rf->has_program && self &&
	    (rf->program.build_id_len != self->build_id_len ||
	     memcmp(rf->program.build_id, self->build_id, self->build_id_len))) {
		char a[2 * WEFT_BUILD_ID_MAX + 1], b[2 * WEFT_BUILD_ID_MAX + 1];
		hex_id(a, rf->program.build_id, rf->program.build_id_len);
		hex_id(b, self->build_id, self->build_id_len);
		return fail(err, errn, WEFT_ESTALE,
			    "stale: recorded by build %.16s of %s; %s is build %.16s (rebuilt since: "
			    "replay files of a program are tied to the build that made them)",
			    a, rf->program.path, self->path, b);
	}
	/* the runtime decides what every access and call does: a trace of
	 * another runtime is in a format this one does not speak */
	if (rf->has_program && self && rf->program.runtime_id_len &&
	    (rf->program.runtime_id_len != self->runtime_id_len ||
	     memcmp(rf->program.runtime_id, self->runtime_id, self->runtime_id_len))) {
		char a[2 * WEFT_BUILD_ID_MAX + 1], b[2 * WEFT_BUILD_ID_MAX + 1];
		hex_id(a, rf->program.runtime_id, rf->program.runtime_id_len);
		hex_id(b, self->runtime_id, self->runtime_id_len);
		if (!self->runtime_id_len)
			snprintf(b, sizeof(b), "unknown");
		return fail(err, errn, WEFT_EFORMAT,
			    "recorded under libweft_rt build %.16s; %s now runs under build %.16s "
			    "(the runtime changed since: replay under the libweft_rt that recorded "
			    "the file, or record it again)", a, self->path, b);
	}
	if (rf->has_program && self) {
		const char *arg = rf->program.args;
		bool same = rf->program.argc == self->argc &&
			    !strcmp(rf->program.options, self->options);
		for (unsigned i = 0; same && i < self->argc; i++) {
			same = !strcmp(arg, self->argv[i]);
			arg += strlen(arg) + 1;
		}
		if (!same)
			return fail(err, errn, WEFT_ESTALE,
				    "stale: recorded with other arguments or options (%u arguments, "
				    "%s) than this run's (%u, %s)", rf->program.argc,
				    rf->program.options, self->argc, self->options);
	}
	uint64_t fp = weft_scenario_fingerprint(sc);
	if (fp != rf->fingerprint)
		return fail(err, errn, WEFT_ESTALE,
			    "stale: recorded with model fingerprint %016llx, this build's %s is "
			    "%016llx (its scheduling points changed); --force replays anyway",
			    (unsigned long long)rf->fingerprint, sc->name, (unsigned long long)fp);
	return 0;
}
