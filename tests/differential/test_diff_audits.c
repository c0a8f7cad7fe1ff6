/*
 * test_diff_audits.c - the mm kit's audits at quiescence against a
 * reference count of what each state leaks.
 *
 * For every size and every index, a state with exactly one problem at
 * that index - and random states with several, and leak-free ones - is
 * built in setup and audited at quiescence:
 *  - weft_mm_audit_leaks(): an allocated page nobody owns or whose count
 *    is above its owners (page-leak), below them, or a free page with a
 *    count or PG_lru (assertion); folios (tails are the head's), biased
 *    and plain counts, pages any owner may hold;
 *  - weft_lru_audit(): PG_lru without a list, a list without PG_lru,
 *    PG_active on the wrong list (lru-state);
 *  - weft_swap_audit(): a slot whose count is above its swap PTEs, a
 *    SWAP_HAS_CACHE no swap-cache folio holds, a free slot a PTE still
 *    names (swap-slot-leak);
 *  - weft_swapc_audit(): the count a slot's bytes and continuation digits
 *    encode against its references, after random swap_duplicate()/
 *    swap_free() sequences (swap-slot-leak).
 * The reference says which object the first problem is at, its kind, and
 * how many problems the audit must count; a leak-free state is never
 * reported. WEFT_DIFF_SIZE=large runs more random states.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>
#include <weft/mm/lru.h>
#include <weft/mm/page.h>
#include <weft/mm/swap.h>
#include <weft/mm/swapcont.h>

#include "check.h"
#include "lockstep.h"
#include "../model_driver.h"

enum audit { A_PAGES, A_LRU, A_SWAP, A_SWAPC };
static const char *const audit_name[] = { "pages", "lru", "swap", "swapc" };

/* what one index holds */
enum pst {
	PS_FREE, PS_OWNED, PS_ANY, PS_FOLIO_TAIL,
	/* the problems */
	PS_UNOWNED, PS_OVER, PS_UNDER, PS_FREE_COUNT, PS_FREE_LRU,
	PS_LRU_FLAG_ONLY, PS_LRU_NO_FLAG, PS_LRU_ACTIVE_WRONG,
	PS_SLOT_COUNT_LEAK, PS_SLOT_CACHE_LEAK, PS_SLOT_PTE_FREE,
	PS_SWAPC_LEAK,
	PS__N
};
static const char *const pst_name[PS__N] = {
	"free", "owned", "any owner", "folio tail",
	"unowned", "count above owners", "count below owners", "free with a count",
	"free with PG_lru",
	"PG_lru on no list", "on a list without PG_lru", "PG_active on the inactive list",
	"count above its PTEs", "HAS_CACHE without a folio", "free but a PTE names it",
	"encoded count above its references",
};

#define MAXN 64

struct state {
	enum audit a;
	unsigned n;               /* pages or slots */
	bool biased;
	uint8_t st[MAXN];
	uint8_t owners[MAXN];     /* PS_OWNED etc.: references held (1..3) */
	uint8_t order[MAXN];      /* a folio head's order */
	uint8_t list[MAXN];       /* lru: 0 none, 1 inactive, 2 active */
	uint8_t dups[MAXN];       /* swapc: extra references taken */
};

static struct state S;

struct world {
	struct weft_mm mm;
	struct weft_lru lru;
	struct weft_swap_info si;
	struct weft_pgtable pt[4];
	struct weft_swapc sc;
	uint32_t sc_owners[WEFT_SWAPC_MAX_SLOTS];
};

static unsigned problems;   /* the audit's own count */

static unsigned owned(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	unsigned i = weft_page_nr(mm, p);

	(void)ctx;
	switch (S.st[i]) {
	case PS_ANY:
		return WEFT_MM_OWNERS_ANY;
	case PS_UNOWNED:
		return 0;
	default:
		return S.owners[i];
	}
}

static void setup_pages(struct world *W)
{
	struct weft_mm *mm = &W->mm;

	weft_mm_init(mm, S.n, S.biased);
	for (unsigned i = 0; i < S.n; i++) {
		struct weft_page *p = &mm->pages[i];
		switch (S.st[i]) {
		case PS_FREE:
		case PS_FOLIO_TAIL:
			break;
		case PS_FREE_COUNT:
			weft_set_page_count(mm, p, 1);
			break;
		case PS_FREE_LRU:
			set_bit(WEFT_PG_lru, &p->flags);
			break;
		default:
			if (S.order[i]) {
				/* a folio at i: the lowest free aligned block is this one
				 * (the ones below are taken or too small) */
				struct weft_page *f = weft_folio_alloc(mm, S.order[i]);
				if (f != p)
					weft_report(WEFT_KIND_ASSERT, NULL, NULL,
						    "test setup: the folio landed at page %u, not %u",
						    f ? weft_page_nr(mm, f) : 999, i);
			} else if (!weft_page_alloc_at(mm, i)) {
				weft_report(WEFT_KIND_ASSERT, NULL, NULL, "test setup: page %u", i);
			}
			int c = S.owners[i];
			if (S.st[i] == PS_OVER)
				c++;
			else if (S.st[i] == PS_UNDER)
				c--;
			else if (S.st[i] == PS_UNOWNED || S.st[i] == PS_ANY)
				c = 1 + (int)(i % 3);
			weft_set_page_count(mm, p, c);
			break;
		}
	}
}

static void setup_lru(struct world *W)
{
	struct weft_mm *mm = &W->mm;
	struct weft_lru *lru = &W->lru;

	weft_mm_init(mm, S.n, false);
	weft_lru_init(lru, mm, WEFT_LRU_2_4_19, false);
	for (unsigned i = 0; i < S.n; i++) {
		struct weft_page *p = weft_page_alloc_at(mm, i);
		unsigned l = S.list[i];
		bool flag = l != 0, active = l == 2;
		switch (S.st[i]) {
		case PS_LRU_FLAG_ONLY:
			l = 0;
			flag = true;
			break;
		case PS_LRU_NO_FLAG:
			l = l ? l : 1;
			flag = false;
			break;
		case PS_LRU_ACTIVE_WRONG:
			l = 1;
			active = true;
			break;
		}
		if (l)
			weft_list_add(&p->lru, l == 2 ? &lru->active : &lru->inactive);
		if (flag)
			set_bit(WEFT_PG_lru, &p->flags);
		if (active)
			set_bit(WEFT_PG_active, &p->flags);
	}
}

static void setup_swap(struct world *W)
{
	struct weft_swap_info *si = &W->si;
	unsigned k = 0;

	weft_mm_init(&W->mm, 1, false);
	weft_swap_init(si, &W->mm, S.n, 0, WEFT_SWAP_FREE_PER_ENTRY);
	for (unsigned t = 0; t < 4; t++)
		weft_pgtable_init(&W->pt[t], WEFT_PT_MAX);
	for (unsigned s = 0; s < S.n; s++) {
		unsigned refs = S.st[s] == PS_OWNED || S.st[s] == PS_SLOT_COUNT_LEAK ? S.owners[s] : 0;
		uint8_t b = (uint8_t)refs;
		if (S.st[s] == PS_SLOT_COUNT_LEAK)
			b++;
		if (S.st[s] == PS_SLOT_CACHE_LEAK)
			b = (uint8_t)(S.owners[s] | WEFT_SWAP_HAS_CACHE), refs = S.owners[s];
		if (S.st[s] == PS_SLOT_PTE_FREE)
			refs = 1;
		for (unsigned r = 0; r < refs && k < 4 * WEFT_PT_MAX; r++, k++)
			W->pt[k / WEFT_PT_MAX].pte[k % WEFT_PT_MAX] = weft_swp_entry_to_pte(s);
		si->swap_map[s] = b;
		if (b) {
			si->inuse_pages++;
			si->ci[s / WEFT_SWAP_CLUSTER].count++;
		}
	}
}

static void setup_swapc(struct world *W)
{
	struct weft_swapc *sc = &W->sc;

	weft_swapc_init(sc, S.n, 2, 3, 3, true);   /* small digits: continuations */
	for (unsigned s = 0; s < S.n; s++) {
		W->sc_owners[s] = 1;
		for (unsigned d = 0; d < S.dups[s]; d++)
			if (weft_swapc_duplicate(sc, s) == 0)
				W->sc_owners[s]++;
		/* frees of some of them (a borrow from a continuation digit) */
		for (unsigned d = 0; d < S.dups[s] / 2 && W->sc_owners[s] > 1; d++) {
			weft_swapc_free(sc, s);
			W->sc_owners[s]--;
		}
		if (S.st[s] == PS_SWAPC_LEAK) {
			if (weft_swapc_duplicate(sc, s) != 0)      /* a reference nobody holds */
				weft_report(WEFT_KIND_ASSERT, NULL, NULL,
					    "test setup: slot %u cannot grow", s);
		}
	}
}

static void au_setup(void *w, unsigned v, const struct weft_workload *wl)
{
	(void)v;
	(void)wl;
	problems = 0;
	switch (S.a) {
	case A_PAGES: setup_pages(w); break;
	case A_LRU: setup_lru(w); break;
	case A_SWAP: setup_swap(w); break;
	case A_SWAPC: setup_swapc(w); break;
	}
}

static void au_thread(void *w, unsigned tid)
{
	(void)w;
	(void)tid;
}

static void au_quiesce(void *w)
{
	struct world *W = w;
	struct weft_pgtable *const pts[4] = { &W->pt[0], &W->pt[1], &W->pt[2], &W->pt[3] };

	switch (S.a) {
	case A_PAGES: problems = weft_mm_audit_leaks(&W->mm, owned, NULL); break;
	case A_LRU: problems = weft_lru_audit(&W->lru); break;
	case A_SWAP: problems = weft_swap_audit(&W->si, pts, 4); break;
	case A_SWAPC: problems = weft_swapc_audit(&W->sc, W->sc_owners); break;
	}
}

WEFT_TEST_ONLY_VARIANT(au, "a built state");
static const struct weft_scenario ausc = {
	.name = "diff-audits", .summary = "differential: audits", .source = "test", .nr_cpus = 1,
	.nr_threads = 1, .world_size = sizeof(struct world), WEFT_TEST_NOP_OP,
	.decision_hint = 64, WEFT_TEST_HOOKS(au), .quiesce = au_quiesce,
};

/* ------------------------------------------------------------ the reference */

static enum weft_kind kind_of(enum pst p)
{
	switch (p) {
	case PS_UNOWNED:
	case PS_OVER:
		return WEFT_KIND_PAGE_LEAK;
	case PS_UNDER:
	case PS_FREE_COUNT:
	case PS_FREE_LRU:
		return WEFT_KIND_ASSERT;
	case PS_LRU_FLAG_ONLY:
	case PS_LRU_NO_FLAG:
	case PS_LRU_ACTIVE_WRONG:
		return WEFT_KIND_LRU_STATE;
	case PS_SLOT_COUNT_LEAK:
	case PS_SLOT_CACHE_LEAK:
	case PS_SLOT_PTE_FREE:
	case PS_SWAPC_LEAK:
		return WEFT_KIND_SLOT_LEAK;
	default:
		return WEFT_KIND_NONE;
	}
}

/* The index a report's object is at. */
static int index_of(uint32_t loc)
{
	size_t page = sizeof(struct weft_page);
	uint32_t pages = (uint32_t)offsetof(struct world, mm.pages);
	uint32_t map = (uint32_t)offsetof(struct world, si.swap_map);
	uint32_t cmap = (uint32_t)offsetof(struct world, sc.map);
	size_t cps = sizeof(struct weft_swapc_page);

	if (loc == WEFT_NO_LOC)
		return -1;
	switch (S.a) {
	case A_PAGES:
	case A_LRU:
		return loc >= pages && loc < pages + WEFT_MM_NR_PAGES * page ? (int)((loc - pages) / page)
									     : -1;
	case A_SWAP:
		return loc >= map && loc < map + WEFT_SWAP_MAX_SLOTS ? (int)(loc - map) : -1;
	case A_SWAPC:
		if (loc < cmap || loc >= cmap + WEFT_SWAPC_MAX_PAGES * cps)
			return -1;
		return (int)((loc - cmap) / cps * WEFT_SWAPC_PAGE_SLOTS +
			     ((loc - cmap) % cps - offsetof(struct weft_swapc_page, bytes)));
	}
	return -1;
}

/* ------------------------------------------------------------ the checks */

static unsigned failures, nr_states, nr_reported;

static void print_state(FILE *f)
{
	fprintf(f, "   %s audit, %u %s%s:", audit_name[S.a], S.n,
		S.a == A_PAGES || S.a == A_LRU ? "pages" : "slots", S.biased ? " (biased)" : "");
	for (unsigned i = 0; i < S.n; i++)
		if (S.st[i] != PS_FREE)
			fprintf(f, " %u=%s/%u%s", i, pst_name[S.st[i]], S.owners[i],
				S.order[i] ? "/folio" : "");
	fprintf(f, "\n");
}

static void check_state(const char *what)
{
	struct weft_run_opts o = { .sc = &ausc };
	struct weft_exec_result r;
	struct weft_bytes b;
	enum weft_kind want = WEFT_KIND_NONE;
	int at = -1;
	unsigned nwant = 0;

	for (unsigned i = 0; i < S.n; i++) {
		enum weft_kind k = kind_of((enum pst)S.st[i]);
		if (k == WEFT_KIND_NONE)
			continue;
		if (at < 0) {
			want = k;
			at = (int)i;
		}
		nwant++;
	}
	weft_bytes_init(&b, &ausc, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute");
	nr_states++;
	nr_reported += r.kind != WEFT_KIND_NONE;
	int got = r.kind ? index_of(r.report.loc) : -1;
	bool ok = r.kind == want && got == at && problems == nwant;
	CHECK(ok, "%s: %s at %d, %u problems (%s); the reference %s at %d, %u problems", what,
	      weft_kind_name(r.kind), got, problems, r.report.msg, weft_kind_name(want), at, nwant);
	if (!ok && failures++ < 5)
		print_state(stderr);
}

/* A healthy state of n objects for audit a. */
static void healthy(enum audit a, unsigned n)
{
	memset(&S, 0, sizeof(S));
	S.a = a;
	S.n = n;
	for (unsigned i = 0; i < n; i++) {
		unsigned r = ls_rnd(10);
		switch (a) {
		case A_PAGES:
			if (r < 3) {
				S.st[i] = PS_FREE;
			} else if (r < 8) {
				S.st[i] = PS_OWNED;
				S.owners[i] = (uint8_t)(1 + ls_rnd(3));
			} else {
				S.st[i] = PS_ANY;
			}
			break;
		case A_LRU:
			S.st[i] = PS_ANY;
			S.list[i] = (uint8_t)ls_rnd(3);
			break;
		case A_SWAP:
			S.st[i] = r < 4 ? PS_FREE : PS_OWNED;
			S.owners[i] = (uint8_t)(1 + ls_rnd(2));
			break;
		case A_SWAPC:
			S.st[i] = PS_OWNED;
			S.dups[i] = (uint8_t)ls_rnd(9);
			break;
		}
	}
	/* PTEs for every referenced slot (4 tables of WEFT_PT_MAX) */
	if (a == A_SWAP) {
		unsigned k = 0;
		for (unsigned i = 0; i < n; i++) {
			if (S.st[i] != PS_OWNED)
				continue;
			if (k + S.owners[i] + 4 > 4 * WEFT_PT_MAX)   /* room for 3 perturbations */
				S.st[i] = PS_FREE;
			else
				k += S.owners[i];
		}
	}
}

/* Some allocated pages become folios (head at an aligned index whose
 * block is otherwise free in the state, so weft_folio_alloc lands there). */
static void add_folios(void)
{
	for (unsigned i = 0; i + 1 < S.n; i++) {
		if (S.st[i] != PS_OWNED || ls_rnd(4))
			continue;
		unsigned ord = 1 + ls_rnd(2), sz = 1u << ord;
		if (i % sz || i + sz > S.n)
			continue;
		bool ok = true;
		for (unsigned j = i + 1; j < i + sz; j++)
			ok &= S.st[j] == PS_FREE;
		/* every free aligned block below it must be unusable: keep it
		 * simple, only when everything below is taken */
		for (unsigned j = 0; j < i && ok; j++)
			ok &= S.st[j] != PS_FREE;
		if (!ok)
			continue;
		S.order[i] = (uint8_t)ord;
		for (unsigned j = i + 1; j < i + sz; j++)
			S.st[j] = PS_FOLIO_TAIL;
	}
}

static void every_index(enum audit a, unsigned nmax, const uint8_t *probs, unsigned nprob)
{
	char what[96];

	/* a swap device has whole clusters (weft_swap_init rounds) */
	unsigned step = a == A_SWAP ? WEFT_SWAP_CLUSTER : 1;

	for (unsigned n = step; n <= nmax; n += step) {
		healthy(a, n);
		snprintf(what, sizeof(what), "%s: a healthy state of %u", audit_name[a], n);
		check_state(what);
		for (unsigned i = 0; i < n; i++)
			for (unsigned p = 0; p < nprob; p++) {
				healthy(a, n);
				S.biased = a == A_PAGES && (i & 1);
				S.st[i] = probs[p];
				if (S.owners[i] < 2)
					S.owners[i] = 2;   /* room below (count below owners) */
				if (a == A_SWAP)
					S.owners[i] = 1;
				snprintf(what, sizeof(what), "%s: %u of %u %s", audit_name[a], i, n,
					 pst_name[probs[p]]);
				check_state(what);
			}
	}
}

static void random_states(enum audit a, unsigned nmax, const uint8_t *probs, unsigned nprob,
			  unsigned count)
{
	char what[96];

	for (unsigned k = 0; k < count; k++) {
		unsigned n = a == A_SWAP ? WEFT_SWAP_CLUSTER * (1 + ls_rnd(nmax / WEFT_SWAP_CLUSTER))
					 : 1 + ls_rnd(nmax);
		healthy(a, n);
		S.biased = a == A_PAGES && ls_rnd(2);
		if (a == A_PAGES)
			add_folios();
		unsigned nbad = ls_rnd(4);
		for (unsigned j = 0; j < nbad; j++) {
			unsigned i = ls_rnd(n);
			if (S.st[i] == PS_FOLIO_TAIL || S.order[i])
				continue;
			S.st[i] = probs[ls_rnd(nprob)];
			if (S.owners[i] < 2)
				S.owners[i] = 2;
			if (a == A_SWAP)
				S.owners[i] = 1;
		}
		/* a folio lands at the lowest free aligned block: drop those
		 * with a free page below them now */
		bool free_below = false;
		for (unsigned i = 0; i < n; i++) {
			if (S.order[i] && free_below) {
				for (unsigned j = i + 1; j < i + (1u << S.order[i]); j++)
					S.st[j] = PS_FREE;
				S.order[i] = 0;
			}
			free_below |= S.st[i] == PS_FREE || S.st[i] == PS_FREE_COUNT ||
				      S.st[i] == PS_FREE_LRU || S.st[i] == PS_FOLIO_TAIL;
			if (S.order[i])
				i += (1u << S.order[i]) - 1;
		}
		snprintf(what, sizeof(what), "%s: random state %u", audit_name[a], k);
		check_state(what);
	}
}

int main(void)
{
	static const uint8_t page_probs[] = { PS_UNOWNED, PS_OVER, PS_UNDER, PS_FREE_COUNT,
					      PS_FREE_LRU };
	static const uint8_t lru_probs[] = { PS_LRU_FLAG_ONLY, PS_LRU_NO_FLAG, PS_LRU_ACTIVE_WRONG };
	static const uint8_t swap_probs[] = { PS_SLOT_COUNT_LEAK, PS_SLOT_CACHE_LEAK,
					      PS_SLOT_PTE_FREE };
	static const uint8_t swapc_probs[] = { PS_SWAPC_LEAK };
	unsigned nrand = ls_large() ? 20000 : 1000;

	weft_machine_init();
	ls_seed();
	every_index(A_PAGES, WEFT_MM_NR_PAGES, page_probs, sizeof(page_probs));
	every_index(A_LRU, WEFT_MM_NR_PAGES, lru_probs, sizeof(lru_probs));
	every_index(A_SWAP, WEFT_SWAP_MAX_SLOTS, swap_probs, sizeof(swap_probs));
	every_index(A_SWAPC, WEFT_SWAPC_MAX_SLOTS, swapc_probs, sizeof(swapc_probs));
	random_states(A_PAGES, WEFT_MM_NR_PAGES, page_probs, sizeof(page_probs), nrand);
	random_states(A_LRU, WEFT_MM_NR_PAGES, lru_probs, sizeof(lru_probs), nrand);
	random_states(A_SWAP, WEFT_SWAP_MAX_SLOTS, swap_probs, sizeof(swap_probs), nrand);
	random_states(A_SWAPC, WEFT_SWAPC_MAX_SLOTS, swapc_probs, sizeof(swapc_probs), nrand);
	printf("%u states audited (%s size), %u with a report\n", nr_states,
	       ls_large() ? "large" : "quick", nr_reported);
	return check_done();
}
