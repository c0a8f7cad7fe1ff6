/*
 * test_z1_buggy.c - the buggy variants of z1-lru: each trigger reports the
 * expected kind at the expected site; dfs finds it at the minimal bound and
 * covers bound - 1 without a report (which pins the minimum); random and
 * pct find it within a stated budget.
 */
#include <string.h>

#include "z1_run.h"

#define BUDGET 200000   /* random / pct executions allowed per seed */
#define SEEDS 10

/* Kinds a Z1 race can surface as first: the allocator catches the second
 * free (double-free), a free of a resurrected page (bad-free: count != 0 or
 * still on the LRU), a count change on the freed page (use-after-free), or
 * CONFIG_DEBUG_LIST catches the unlink of a node never linked. */
static bool z1_family(enum weft_kind k)
{
	return k == WEFT_KIND_DOUBLE_FREE || k == WEFT_KIND_BAD_FREE ||
	       k == WEFT_KIND_USE_AFTER_FREE || k == WEFT_KIND_LIST_CORRUPTION ||
	       k == WEFT_KIND_REFCOUNT_UNDERFLOW;
}

struct buggy {
	const char *variant;
	enum weft_kind kind;
	const char *site_func;        /* function of the failing site */
	const char *site_what;
	int here_tid;                 /* thread that hits it in the trigger */
	const uint8_t *wl;
	size_t wl_len;
	unsigned pct_depth;
};

static const struct buggy cases[] = {
	{ "z1a", WEFT_KIND_DOUBLE_FREE, "weft_page_free", "__free_pages_ok: page already free", 0,
	  z1_wl_release_scan, sizeof(z1_wl_release_scan), 3 },
	{ "z1b", WEFT_KIND_DOUBLE_FREE, "weft_page_free", "__free_pages_ok: page already free", 0,
	  z1_wl_release_scan, sizeof(z1_wl_release_scan), 3 },
	{ "z1c", WEFT_KIND_LIST_CORRUPTION, "weft_list_del", "__list_del_entry_valid()", 2,
	  z1_wl_add_release, sizeof(z1_wl_add_release), 2 },
};

static void check_trigger(const struct buggy *c)
{
	unsigned vi;
	const struct weft_scenario *sc = z1_scenario(c->variant, &vi);
	const struct weft_variant *v = &sc->variants[vi];

	CHECK(v->buggy && v->expect_kind == c->kind, "%s: variant table says kind %s",
	      c->variant, weft_kind_name(v->expect_kind));
	CHECK(sc->triggers && sc->triggers[vi], "%s: no trigger", c->variant);
	if (!sc->triggers || !sc->triggers[vi])
		return;
	struct z1_res res = z1_bytes(c->variant, WEFT_LOCK_TAS, sc->triggers[vi],
				     sc->trigger_lens[vi]);
	const struct weft_report *rep = &res.r.report;

	CHECK(res.bug && res.r.kind == c->kind, "%s trigger: got %s, want %s", c->variant,
	      weft_kind_name(res.r.kind), weft_kind_name(c->kind));
	CHECK(rep->here.site && !strcmp(rep->here.site->func, c->site_func) &&
		      !strcmp(rep->here.site->what, c->site_what),
	      "%s trigger: site %s / %s", c->variant, rep->here.site ? rep->here.site->func : "-",
	      rep->here.site ? rep->here.site->what : "-");
	CHECK(rep->here.tid == c->here_tid, "%s trigger: reported by T%d", c->variant,
	      rep->here.tid);
	CHECK(res.r.preemptions == v->min_preemptions, "%s trigger: %u preemptions, want %u",
	      c->variant, res.r.preemptions, v->min_preemptions);
	CHECK(!strncmp(rep->object, "page 0", 6), "%s trigger: object '%s'", c->variant,
	      rep->object);
	if (c->kind == WEFT_KIND_DOUBLE_FREE)
		CHECK(rep->other.valid && rep->other.site &&
			      !strcmp(rep->other.site->func, "free_one") && rep->other.tid == 1,
		      "%s trigger: the other side is not scan's free", c->variant);

	/* deterministic: same kind and trace hash when replayed */
	struct weft_run_opts o = { .sc = sc, .variant = vi, .lock = WEFT_LOCK_TAS };
	char why[256];
	struct weft_exec_result first = res.r;
	CHECK(weft_check_determinism(&o, &first, why, sizeof(why)) == 0, "%s: %s", c->variant,
	      why);

	/* the trigger's workload without its schedule is a serial run: clean */
	struct z1_res serial = z1_bytes(c->variant, WEFT_LOCK_TAS, c->wl, c->wl_len);
	CHECK(!serial.bug, "%s: serial run of the trigger workload reports %s", c->variant,
	      weft_kind_name(serial.r.kind));
}

static void check_dfs(const struct buggy *c, enum weft_lock_model lock, unsigned min)
{
	const char *ln = lock == WEFT_LOCK_TAS ? "tas" : "ticket";
	struct z1_res hit = z1_dfs(c->variant, lock, min, c->wl, c->wl_len, NULL, NULL);
	struct z1_res below = z1_dfs(c->variant, lock, min - 1, c->wl, c->wl_len, NULL, NULL);

	CHECK(hit.bug && hit.r.kind == c->kind && hit.r.preemptions == min,
	      "%s %s: dfs bound %u: %s with %u preemptions", c->variant, ln, min,
	      weft_kind_name(hit.r.kind), hit.r.preemptions);
	CHECK(!below.bug && below.complete, "%s %s: dfs bound %u: %s, complete %d", c->variant,
	      ln, min - 1, weft_kind_name(below.r.kind), below.complete);
	printf("%s %s: dfs bound %u finds %s after %llu executions; bound %u clean and "
	       "complete after %llu\n", c->variant, ln, min, weft_kind_name(hit.r.kind),
	       (unsigned long long)hit.execs, min - 1, (unsigned long long)below.execs);
}

static void check_random_pct(const struct buggy *c)
{
	uint64_t worst_r = 0, worst_p = 0;
	unsigned exact_r = 0, exact_p = 0;

	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		/* random: workloads generated from the seed */
		struct z1_res r = z1_random(c->variant, WEFT_LOCK_TAS, seed, NULL, 0, BUDGET);
		CHECK(r.bug && z1_family(r.r.kind), "%s random seed %llu: %s after %llu",
		      c->variant, (unsigned long long)seed, weft_kind_name(r.r.kind),
		      (unsigned long long)r.execs);
		worst_r = r.execs > worst_r ? r.execs : worst_r;
		exact_r += r.r.kind == c->kind;
		/* pct: on the trigger's workload (PCT's priorities hand a woken
		 * releaser the CPU, so z1b needs depth 3 with the unfair lock) */
		struct z1_res p = z1_pct(c->variant, WEFT_LOCK_TAS, seed, c->pct_depth, c->wl,
					 c->wl_len, BUDGET);
		CHECK(p.bug && z1_family(p.r.kind), "%s pct seed %llu: %s after %llu", c->variant,
		      (unsigned long long)seed, weft_kind_name(p.r.kind),
		      (unsigned long long)p.execs);
		worst_p = p.execs > worst_p ? p.execs : worst_p;
		exact_p += p.r.kind == c->kind;
	}
	CHECK(exact_r > 0 && exact_p > 0, "%s: random/pct never report %s itself (%u, %u)",
	      c->variant, weft_kind_name(c->kind), exact_r, exact_p);
	printf("%s: random finds it within %llu executions on %d seeds (%u/%d as %s); pct "
	       "depth %u within %llu (%u/%d as %s)\n", c->variant, (unsigned long long)worst_r,
	       SEEDS, exact_r, SEEDS, weft_kind_name(c->kind), c->pct_depth,
	       (unsigned long long)worst_p, exact_p, SEEDS, weft_kind_name(c->kind));
}

int main(void)
{
	if (weft_machine_init())
		return 2;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct buggy *c = &cases[i];

		check_trigger(c);
		check_dfs(c, WEFT_LOCK_TAS, 1);
		if (!strcmp(c->variant, "z1b"))
			/* the FIFO lock hands the lock to the waiting releaser
			 * first: it must also be delayed before its spin_lock */
			check_dfs(c, WEFT_LOCK_TICKET, 2);
		else
			check_dfs(c, WEFT_LOCK_TICKET, 1);
		check_random_pct(c);
	}
	return check_done();
}
