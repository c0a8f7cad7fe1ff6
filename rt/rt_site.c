/*
 * rt_site.c - the sites of an instrumented program: one struct weft_site
 * per (instruction, class of operation), made the first time that
 * instruction performs a visible operation, from the caller's return
 * address: its function (symbol table), file:line (DWARF line table) and
 * what it does (the source line's text, when the file is readable).
 *
 * Ids: weft_site_hash() of (file basename, function, text) mixed with the
 * instruction's offset in the executable, so two operations on one line
 * stay apart. They are stable for one build, which is what a replay file
 * of a program is tied to (its build id); they are not stable across
 * rebuilds, and need not be.
 *
 * Sites live for the process (events point to them). The table is only
 * touched from the thread running executions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

struct rt_site {
	struct weft_site s;
	uintptr_t pc;
	unsigned cls;
};

static struct rt_site **tab;
static size_t tab_mask, tab_used;
static struct rt_site **all;      /* in creation order, for lookups by id */
static size_t nr_all, cap_all;

static inline size_t slot(uintptr_t pc, unsigned cls)
{
	return (size_t)weft_mix64((uint64_t)pc * 0x9e3779b97f4a7c15ull ^ cls) & tab_mask;
}

static bool grow(void)
{
	size_t n = tab_mask ? (tab_mask + 1) * 2 : 4096;
	struct rt_site **t = calloc(n, sizeof(*t));

	if (!t)
		return false;
	size_t old = tab_mask ? tab_mask + 1 : 0;
	struct rt_site **o = tab;
	tab = t;
	tab_mask = n - 1;
	for (size_t i = 0; i < old; i++) {
		if (!o[i])
			continue;
		size_t k = slot(o[i]->pc, o[i]->cls);
		while (tab[k])
			k = (k + 1) & tab_mask;
		tab[k] = o[i];
	}
	free(o);
	return true;
}

static const char *const order_name[] = { "relaxed", "consume", "acquire", "release",
					  "acq_rel", "seq_cst" };
static const char *const aop_name[] = { "load", "store", "fetch_add", "exchange",
					"compare_exchange", "fetch_or", "fetch_and",
					"add_unless", "fetch_xor", "fetch_nand" };

/* The memory subsystem's ordering class of a C11 atomic (core/src/memory):
 * what --memory tso|lkmm do with it. seq_cst is WEFT_SITE_SC: a full
 * barrier, then the access goes to memory at once (the fences-around
 * mapping, at least as strong as C11's SC order, so a seq_cst program's
 * store-buffering outcome never shows); consume is taken as acquire;
 * acq_rel is an acquire load, a release store, a fully ordered RMW;
 * relaxed RMWs order nothing under lkmm (under tso every RMW is a locked
 * instruction). Under --memory sc none of this changes a trace. */
static unsigned atomic_order_flags(unsigned aop, unsigned mo)
{
	switch (mo) {
	case 0:
		return WEFT_SITE_RELAXED;
	case 1:
	case 2:
		return WEFT_SITE_ACQUIRE;
	case 3:
		return WEFT_SITE_RELEASE;
	case 4:
		return aop == WEFT_A_LOAD ? WEFT_SITE_ACQUIRE
		     : aop == WEFT_A_STORE ? WEFT_SITE_RELEASE : 0;
	default:
		return WEFT_SITE_SC;
	}
}

static struct rt_site *make(uintptr_t pc, unsigned cls, unsigned ev, const char *what)
{
	struct rt_site *r = calloc(1, sizeof(*r));
	const char *file = NULL;
	unsigned line = 0;
	/* the call instruction is just before the return address */
	uintptr_t at = pc ? pc - 1 : 0;

	if (!r)
		return NULL;
	r->pc = pc;
	r->cls = cls;
	const struct rt_sym *sym = rt_sym_at(at);
	bool have_line = rt_line_at(at, &file, &line);
	r->s.file = have_line ? file : rt_img.path;
	r->s.func = sym && sym->func ? sym->name : "?";
	r->s.line = have_line ? line : 0;
	r->s.ev = ev;

	const char *text = have_line ? rt_source_line(file, line) : NULL;
	char buf[256];
	unsigned base = cls & 15;
	const char *kind = what;
	char kb[64];
	if (base == RT_ATOMIC) {
		unsigned aop = (cls >> 4) & 15, mo = (cls >> 8) & 7;
		snprintf(kb, sizeof(kb), "atomic %s %s",
			 aop < sizeof(aop_name) / sizeof(*aop_name) ? aop_name[aop] : "?",
			 mo < 6 ? order_name[mo] : "seq_cst");
		kind = kb;
		r->s.flags = atomic_order_flags(aop, mo);
	} else if (base == RT_FENCE) {
		unsigned mo = (cls >> 8) & 7;
		snprintf(kb, sizeof(kb), "fence %s", mo < 6 ? order_name[mo] : "seq_cst");
		kind = kb;
	} else if (base == RT_VREAD || base == RT_VWRITE) {
		kind = base == RT_VREAD ? "volatile read" : "volatile write";
	}
	if (text && kind && base != RT_READ && base != RT_WRITE && base != RT_CALL)
		snprintf(buf, sizeof(buf), "%.*s [%s]", 160, text, kind);
	else if (text)
		snprintf(buf, sizeof(buf), "%.*s", 200, text);
	else if (kind)
		snprintf(buf, sizeof(buf), "%s", kind);
	else
		snprintf(buf, sizeof(buf), "%s+0x%lx", sym ? sym->name : "?",
			 (unsigned long)(sym ? at - sym->addr : at - rt_img.bias));
	r->s.what = strdup(buf);
	if (!r->s.what)
		r->s.what = "?";
	uint64_t h = weft_site_hash(&r->s);
	h = weft_mix64(h ^ (uint64_t)(pc - rt_img.bias) << 20 ^ cls);
	r->s.id = (uint32_t)h ? (uint32_t)h : 1;
	return r;
}

/* Where a site goes when memory for a new one ran out (never NULL). */
static struct weft_site no_memory = { __FILE__, "rt_site", "(site table out of memory)", 0,
				      WEFT_EV_NOTE, 0, 0 };

struct rt_site_cache rt_site_cache[RT_SITE_CACHE];

const struct weft_site *rt_site_slow(uintptr_t pc, unsigned cls, unsigned ev, const char *what)
{
	if (__builtin_expect(tab_used * 2 >= tab_mask, 0) && !grow())
		return &no_memory;
	size_t k = slot(pc, cls);
	for (struct rt_site *r; (r = tab[k]); k = (k + 1) & tab_mask)
		if (r->pc == pc && r->cls == cls)
			return &r->s;
	struct rt_site *r = make(pc, cls, ev, what);
	if (!r)
		return &no_memory;
	if (nr_all == cap_all) {
		size_t cap = cap_all ? cap_all * 2 : 1024;
		struct rt_site **a = realloc(all, cap * sizeof(*a));
		if (!a) {
			free(r);
			return &no_memory;
		}
		all = a;
		cap_all = cap;
	}
	all[nr_all++] = r;
	tab[k] = r;
	tab_used++;
	return &r->s;
}

const struct weft_site *rt_site_by_id(uint32_t id)
{
	for (size_t i = 0; i < nr_all; i++)
		if (all[i]->s.id == id)
			return &all[i]->s;
	return NULL;
}
