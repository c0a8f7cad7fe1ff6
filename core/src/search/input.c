/*
 * input.c - the bytes encoding of one execution (workload section and
 * schedule section) and the workload decoder every front end shares
 * (weft run, the fuzz targets, replays). See weft_input in weft.h and
 * docs/strategies.md.
 *
 * Properties the fuzzers rely on (measured in bench/, stated in the docs):
 *  - every byte string decodes; missing bytes mean "nothing more";
 *  - one workload op is two bytes, one schedule entry three: a byte flip
 *    changes one op or one entry, never the decoding of the rest (schedule
 *    positions are absolute, not deltas);
 *  - truncation drops the last entry or op: the execution gets simpler.
 */
#include <ctype.h>
#include <string.h>

#include <weft/weft.h>

#include "internal.h"

size_t weft_wl_decode(struct weft_wl_op *wl, unsigned *nr, unsigned n, const uint8_t *buf,
		      size_t len, size_t i)
{
	unsigned k = 0;

	for (; k < n && i + 2 <= len; k++, i += 2) {
		wl[k].t_op = buf[i];
		wl[k].arg = buf[i + 1];
	}
	*nr = k;
	return k < n ? len : i;
}

size_t weft_wl_encode(uint8_t *buf, size_t i, const struct weft_wl_op *wl, unsigned nr)
{
	buf[i++] = (uint8_t)nr;
	for (unsigned k = 0; k < nr; k++) {
		buf[i++] = wl[k].t_op;
		buf[i++] = wl[k].arg;
	}
	return i;
}

void weft_input_decode(struct weft_input *in, const uint8_t *buf, size_t len)
{
	size_t i = 0;

	memset(in, 0, sizeof(*in));
	if (len == 0)
		return;
	if (weft_input_is_genome(buf, len)) {
		/* what the bytes strategy runs: a genome, whose workload this is
		 * (its schedule is overrides, not bytes entries) */
		struct weft_genome g;
		weft_genome_decode(&g, buf, len);
		in->nr_wl_ops = g.nr_ops;
		for (unsigned k = 0; k < g.nr_ops; k++)
			in->wl[k] = g.wl[k];
		return;
	}
	unsigned n = buf[0];
	i = weft_wl_decode(in->wl, &in->nr_wl_ops, n, buf, len, 1);
	WEFT_REC3_DECODE(in->e, in->nr_entries, pos, buf, len, i);
}

size_t weft_input_encode(const struct weft_input *in, uint8_t *buf, size_t cap)
{
	size_t i = 0;

	if (cap < 1 + 2 * (size_t)in->nr_wl_ops + 3 * (size_t)in->nr_entries)
		return 0;
	if (in->nr_wl_ops == 0 && in->nr_entries == 0)
		return 0;
	i = weft_wl_encode(buf, i, in->wl, in->nr_wl_ops);
	WEFT_REC3_ENCODE(buf, i, in->e, in->nr_entries, pos);
	return i;
}

/* Workload bytes are the input's section [n][t_op arg]...: byte 0 is the
 * op count. Ops are appended to their thread's list; excess ops of a thread
 * are dropped (so a flip never shifts another thread's ops). */
size_t weft_input_workload(const struct weft_input *in, uint8_t *wl, size_t cap)
{
	if (1 + 2 * (size_t)in->nr_wl_ops > cap)
		return 0;
	wl[0] = (uint8_t)in->nr_wl_ops;
	for (unsigned k = 0; k < in->nr_wl_ops; k++) {
		wl[1 + 2 * k] = in->wl[k].t_op;
		wl[2 + 2 * k] = in->wl[k].arg;
	}
	return 1 + 2 * (size_t)in->nr_wl_ops;
}

void weft_input_set_workload(struct weft_input *in, const uint8_t *w, size_t nw)
{
	in->nr_wl_ops = 0;
	for (unsigned k = 0; nw && k < w[0] && 2 + 2 * (size_t)k < nw; k++) {
		in->wl[k].t_op = w[1 + 2 * k];
		in->wl[k].arg = w[2 + 2 * k];
		in->nr_wl_ops = k + 1;
	}
}

size_t weft_trigger_workload(const struct weft_scenario *sc, unsigned vi, uint8_t *wl,
			     size_t cap)
{
	struct weft_input in;

	if (!sc->triggers || !sc->trigger_lens || !sc->triggers[vi])
		return 0;
	weft_input_decode(&in, sc->triggers[vi], sc->trigger_lens[vi]);
	return weft_input_workload(&in, wl, cap);
}

size_t weft_dfs_workload(const struct weft_scenario *sc, unsigned vi, uint8_t *wl, size_t cap,
			 int *from)
{
	size_t n = weft_trigger_workload(sc, vi, wl, cap);
	int v = n ? (int)vi : -1;

	for (unsigned u = 0; !n && u < sc->nr_variants; u++)
		if ((n = weft_trigger_workload(sc, u, wl, cap)))
			v = (int)u;
	if (from)
		*from = v;
	return n;
}

bool weft_scenario_takes_workload(const struct weft_scenario *sc)
{
	return sc->nr_opcodes || sc->opnames;
}

void weft_workload_decode(const struct weft_scenario *sc, const uint8_t *wl, size_t len,
			  struct weft_workload *out)
{
	unsigned nt = sc->nr_threads ? sc->nr_threads : 1;
	unsigned nop = sc->nr_opcodes ? sc->nr_opcodes : 1;
	unsigned max = sc->max_ops && sc->max_ops <= WEFT_MAX_OPS ? sc->max_ops : WEFT_MAX_OPS;

	memset(out->nr_ops, 0, sizeof(out->nr_ops));
	if (len == 0 || !weft_scenario_takes_workload(sc))
		return;
	unsigned n = wl[0];
	for (unsigned k = 0; k < n && 1 + 2 * (size_t)k + 2 <= len; k++) {
		uint8_t to = wl[1 + 2 * k], arg = wl[2 + 2 * k];
		unsigned t = (unsigned)(to >> 4) % nt;
		if (out->nr_ops[t] >= max)
			continue;
		struct weft_op *op = &out->ops[t][out->nr_ops[t]++];
		op->code = (uint8_t)((to & 15u) % nop);
		op->arg = arg;
	}
}

const char *weft_site_basename(const struct weft_site *s)
{
	const char *b = strrchr(s->file, '/');

	return b ? b + 1 : s->file;
}

static const char *shown_file(const char *file)
{
	const char *k = strstr(file, WEFT_KTREE_DIR);
	const char *b = strrchr(file, '/');

	if (k)
		return k + sizeof(WEFT_KTREE_DIR) - 1;
	return b ? b + 1 : file;
}

const char *weft_site_file(const struct weft_site *s)
{
	return shown_file(s->file);
}

const char *weft_caller_file(const struct weft_caller *c)
{
	return shown_file(c->file);
}

const char *weft_caller_basename(const struct weft_caller *c)
{
	const char *b = strrchr(c->file, '/');

	return b ? b + 1 : c->file;
}

void weft_site_where(char *buf, size_t n, const struct weft_site *s,
		     const struct weft_caller *c)
{
	if (c)
		snprintf(buf, n, "%s() at %s:%u", c->func, weft_caller_file(c), c->line);
	else if (s)
		snprintf(buf, n, "%s() at %s:%u", s->func, weft_site_file(s), s->line);
	else if (n)
		buf[0] = 0;
}

/* --------------------------------------------------------------- values */

static bool has_word(const char *s, const char *const *words)
{
	for (; s && *words; words++)
		if (strstr(s, *words))
			return true;
	return false;
}

enum weft_value_form weft_value_form(uint64_t x, const char *field, const char *what)
{
	static const char *const hex[] = { "flag", "bit", "mask", "byte", "swap_map", "swap slot",
					   "pte", "entry", NULL };
	static const char *const counts[] = { "count", "refs", "nr_", "counter", NULL };

	/* trace_val(): a world offset fits in 32 bits; a negative long
	 * (0xffff... with bits 32..62 set) is not a pointer */
	if ((x >> 63) && !(x & 0x7fffffff00000000ull))
		return WEFT_VALUE_POINTER;
	if (what && (!strncmp(what, "atomic_long_", 12) || !strncmp(what, "atomic64_", 9)))
		return WEFT_VALUE_SIGNED64;
	if (has_word(field, counts) || (what && !strncmp(what, "atomic_", 7)))
		return x > 0xffffffffull ? WEFT_VALUE_SIGNED64 : WEFT_VALUE_SIGNED32;
	if (has_word(field, hex) || has_word(what, hex))
		return WEFT_VALUE_HEX;
	if (x >> 63)
		return WEFT_VALUE_SIGNED64;
	return x >= 0x80000000ull && x <= 0xffffffffull ? WEFT_VALUE_SIGNED32 : WEFT_VALUE_UNSIGNED;
}

void weft_site_label(const char *what, char *buf, size_t n)
{
	size_t k = 0;

	if (!n)
		return;
	for (const char *s = what ? what : ""; *s && k + 1 < n;) {
		/* WEFT_PG_lru -> PG_lru (the kit's names of the kernel's) */
		if (!strncmp(s, "WEFT_", 5) && (s == what || !(isalnum((unsigned char)s[-1]) ||
							       s[-1] == '_'))) {
			s += 5;
			continue;
		}
		/* (p)-> -> p->: a macro's parenthesized argument */
		if (*s == '(' && (s == what || !(isalnum((unsigned char)s[-1]) || s[-1] == '_'))) {
			const char *e = s + 1;
			while (isalnum((unsigned char)*e) || *e == '_')
				e++;
			if (e > s + 1 && e[0] == ')' && ((e[1] == '-' && e[2] == '>') || e[1] == '.' ||
							 e[1] == '[')) {
				size_t len = (size_t)(e - s - 1);
				if (k + len + 1 >= n)
					break;
				memcpy(buf + k, s + 1, len);
				k += len;
				s = e + 1;
				continue;
			}
		}
		buf[k++] = *s++;
	}
	buf[k] = 0;
}

/* ---------------------------------------------------------------- kinds */

static const char *const kind_names[] = {
	"none",
#define X(e, s, d) s,
#include <weft/kinds.def>
#undef X
};

static const char *const kind_meanings[] = {
	"no report",
#define X(e, s, d) d,
#include <weft/kinds.def>
#undef X
};

const char *weft_kind_name(enum weft_kind k)
{
	return (unsigned)k < WEFT_KIND__COUNT ? kind_names[k] : "unknown";
}

const char *weft_kind_meaning(enum weft_kind k)
{
	return (unsigned)k < WEFT_KIND__COUNT ? kind_meanings[k] : "unknown";
}

enum weft_kind weft_kind_from_name(const char *name)
{
	for (unsigned k = 1; k < WEFT_KIND__COUNT; k++)
		if (!strcmp(kind_names[k], name))
			return (enum weft_kind)k;
	return WEFT_KIND_NONE;
}

uint64_t weft_continue_kinds(unsigned checks, uint64_t want)
{
	if (!(checks & WEFT_CHECK_CONTINUE_WARNINGS) || !want)
		return 0;
	return WEFT_WARNING_KINDS & ~want;
}
