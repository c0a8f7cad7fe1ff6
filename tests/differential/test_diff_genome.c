/*
 * test_diff_genome.c - the schedule genome's decoder and encoder against a
 * reference decoder written from the documented encoding (weft.h,
 * docs/strategies.md "genome").
 *
 * Random byte strings that start FF C1 or FF C2 (version 1 and 2), of
 * every length up to past a full input, with bytes after the declared
 * length set to junk (a decoder must read nothing beyond len): every field
 * weft_genome_decode() gives - version, mode (the byte mod 4), param, seed
 * (little-endian), mem (version 2), the workload ops (a half op and ops
 * past the bytes dropped), the overrides (3 bytes each, at most
 * WEFT_MAX_ENTRIES, none when the ops are short) - must be the reference's;
 * and weft_genome_encode() of a decoded genome must decode to the same
 * genome (and give the same bytes back for a canonical input).
 * WEFT_DIFF_SIZE=large runs more inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/strategy.h>

#include "check.h"
#include "lockstep.h"

struct ref {
	unsigned version, mode, param, mem;
	uint32_t seed;
	unsigned nr_ops;
	uint8_t ops[255][2];
	unsigned nr_ov;
	uint16_t key[WEFT_MAX_ENTRIES];
	uint8_t b[WEFT_MAX_ENTRIES];
};

/* The documented encoding, read byte by byte ("missing bytes are zero"). */
static void ref_decode(const uint8_t *buf, size_t len, struct ref *r)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->version = len > 1 && buf[1] == 0xc2 ? 2 : 1;
	r->mode = (len > 2 ? buf[2] : 0) % 4;
	r->param = len > 3 ? buf[3] : 0;
	for (unsigned k = 0; k < 4; k++)
		r->seed |= (uint32_t)(len > 4 + k ? buf[4 + k] : 0) << (8 * k);
	size_t hdr = r->version == 2 ? 10 : 9;
	if (r->version == 2)
		r->mem = len > 8 ? buf[8] : 0;
	unsigned n = len > hdr - 1 ? buf[hdr - 1] : 0;
	i = hdr;
	while (r->nr_ops < n && i + 2 <= len) {
		r->ops[r->nr_ops][0] = buf[i];
		r->ops[r->nr_ops][1] = buf[i + 1];
		r->nr_ops++;
		i += 2;
	}
	if (r->nr_ops < n)
		return;   /* the ops ran out: no overrides */
	while (i + 3 <= len && r->nr_ov < WEFT_MAX_ENTRIES) {
		r->key[r->nr_ov] = (uint16_t)(buf[i] | buf[i + 1] << 8);
		r->b[r->nr_ov] = buf[i + 2];
		r->nr_ov++;
		i += 3;
	}
}

static bool same(const struct weft_genome *g, const struct ref *r, char *why, size_t n)
{
	if (g->version != r->version || g->mode != r->mode || g->param != r->param ||
	    g->seed != r->seed || (r->version == 2 && g->mem != r->mem)) {
		snprintf(why, n, "header: version %u mode %u param %u seed %08x mem %u; the reference "
			 "%u %u %u %08x %u", g->version, g->mode, g->param, g->seed, g->mem, r->version,
			 r->mode, r->param, r->seed, r->mem);
		return false;
	}
	if (g->nr_ops != r->nr_ops) {
		snprintf(why, n, "%u ops, the reference %u", g->nr_ops, r->nr_ops);
		return false;
	}
	for (unsigned k = 0; k < r->nr_ops; k++)
		if (g->wl[k].t_op != r->ops[k][0] || g->wl[k].arg != r->ops[k][1]) {
			snprintf(why, n, "op %u differs", k);
			return false;
		}
	if (g->nr_ov != r->nr_ov) {
		snprintf(why, n, "%u overrides, the reference %u", g->nr_ov, r->nr_ov);
		return false;
	}
	for (unsigned k = 0; k < r->nr_ov; k++)
		if (g->ov[k].key != r->key[k] || g->ov[k].b != r->b[k]) {
			snprintf(why, n, "override %u differs", k);
			return false;
		}
	return true;
}

static void print_bytes(FILE *f, const uint8_t *b, size_t n)
{
	fprintf(f, "   input (%zu bytes):", n);
	for (size_t i = 0; i < n && i < 64; i++)
		fprintf(f, " %02x", b[i]);
	fprintf(f, "%s\n", n > 64 ? " ..." : "");
}

int main(void)
{
	static uint8_t buf[1024], enc[1024];
	unsigned nin = ls_large() ? 2000000 : 100000, failures = 0, canonical = 0;
	char why[200];

	ls_seed();
	for (unsigned q = 0; q < nin; q++) {
		/* lengths around every boundary: header, ops, overrides, the cap */
		size_t len = ls_rnd(4) ? ls_rnd(48) : ls_rnd(WEFT_INPUT_MAX + 40);
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)ls_rnd(256);
		buf[0] = 0xff;
		buf[1] = ls_rnd(2) ? 0xc1 : 0xc2;
		if (ls_rnd(2))
			buf[2] = (uint8_t)ls_rnd(4);   /* a mode as an encoder writes it */
		if (len < 2)
			len = 2 + ls_rnd(3);
		/* small op counts, so overrides follow often */
		size_t nb = buf[1] == 0xc2 ? 9 : 8;
		if (len > nb && ls_rnd(3))
			buf[nb] = (uint8_t)ls_rnd(6);
		struct weft_genome g;
		struct ref r;
		weft_genome_decode(&g, buf, len);
		ref_decode(buf, len, &r);
		bool ok = same(&g, &r, why, sizeof(why));
		/* the encoder: decode(encode(g)) == g */
		if (ok) {
			size_t n = weft_genome_encode(&g, enc, sizeof(enc));
			struct weft_genome g2;
			weft_genome_decode(&g2, enc, n);
			ok = n && same(&g2, &r, why, sizeof(why));
			if (!ok && !why[0])
				snprintf(why, sizeof(why), "the encoder wrote nothing");
			/* canonical: a mode byte below 4, every op and override
			 * whole and kept */
			if (ok && n == len && len > nb && buf[2] < 4 && r.nr_ops == buf[nb] &&
			    (len - nb - 1 - 2 * r.nr_ops) == 3 * (size_t)r.nr_ov) {
				canonical++;
				if (memcmp(enc, buf, n)) {
					ok = false;
					snprintf(why, sizeof(why), "a canonical input encodes to other bytes");
				}
			}
		}
		CHECK(ok, "input %u: %s", q, why);
		if (!ok && failures++ < 5)
			print_bytes(stderr, buf, len);
	}
	printf("%u genome inputs decoded against the reference (%u canonical round trips, %s "
	       "size)\n", nin, canonical, ls_large() ? "large" : "quick");
	return check_done();
}
