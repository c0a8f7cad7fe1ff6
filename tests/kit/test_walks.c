/*
 * test_walks.c - the loop macros the zoo shares (issue 24, items 4 and 6):
 *  - WEFT_FOR_EACH_OP (<weft/weft.h>): every op in order, each after one
 *    workload-op note whose site is the thread function's own (site ids
 *    hash the function's name: a helper function would have changed every
 *    scenario's trace hashes), with the op's index and code << 8 | arg;
 *    continue goes on to the next op;
 *  - weft_for_each_pte() (<weft/mm/pgtable.h>): the PTEs of a range that
 *    are not none, in order, clipped to the table by
 *    weft_pte_range_end(), the body free to step i over a batch; each
 *    read is a site of the caller with weft_ptep_get()'s text.
 */
#include <stdio.h>
#include <string.h>

#include <weft/strategy.h>
#include <weft/mm/pgtable.h>

#include "check.h"
#include "../model_driver.h"

#define WALK_OPS 4
#define WALK_PTES 6
#define WALK_MAX_VISITS 16

struct walk_world {
	unsigned nr_ops;
	struct weft_op ops[WALK_OPS];
	struct weft_pgtable pt;
	/* what the thread saw, plain stores: one thread, no sharing */
	unsigned nr_seen, seen_arg[WALK_OPS];
	unsigned nr_visited, visited[WALK_MAX_VISITS];
};

static void walk_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct walk_world *W = w;
	/* none, present, swap, none, swap, present */
	static const uint32_t ptes[WALK_PTES] = { WEFT_PTE_NONE, WEFT_PTE_PRESENT | 1,
						  WEFT_PTE_SWAP | 2, WEFT_PTE_NONE,
						  WEFT_PTE_SWAP | 4, WEFT_PTE_PRESENT | 5 };

	weft_workload_copy(wl, 1, WALK_OPS, &W->nr_ops, W->ops);
	weft_pgtable_init(&W->pt, WALK_PTES);
	spin_lock_init(&W->pt.ptl);
	for (unsigned i = 0; i < WALK_PTES; i++)
		W->pt.pte[i] = ptes[i];
}

/* op 0: walk the whole table, a present PTE taking the next one with it
 * as a batch; op 1: nothing after the note (continue) */
static void walk_thread(void *w, unsigned tid)
{
	struct walk_world *W = w;
	struct weft_pgtable *pt = &W->pt;

	WEFT_FOR_EACH_OP(op, W->ops, W->nr_ops, "walk op") {
		W->seen_arg[W->nr_seen++] = op->arg;
		if (op->code == 1)
			continue;
		spin_lock(&pt->ptl);
		weft_for_each_pte(pt, i, pte, 0, weft_pte_range_end(pt, 0, 99)) {
			W->visited[W->nr_visited++] = i;
			if (weft_pte_present(pte))
				i += 1;
		}
		spin_unlock(&pt->ptl);
	}
}

/* the world as the thread left it */
static void walk_quiesce(void *w)
{
	static const unsigned want_visits[] = { 1, 4, 5, 1, 4, 5 };
	const struct walk_world *W = w;

	CHECK(W->nr_seen == 3 && W->seen_arg[0] == 5 && W->seen_arg[1] == 7 &&
	      W->seen_arg[2] == 9, "ops seen: %u", W->nr_seen);
	CHECK(W->nr_visited == 6 && !memcmp(W->visited, want_visits, sizeof(want_visits)),
	      "visited %u PTEs", W->nr_visited);
}

static const char *const walk_opnames[] = { "walk", "skip" };
static const char *const walk_files[] = { "test_walks.c", NULL };
static const struct weft_variant walk_variants[1] = {
	{ "walk", NULL, false, "the loop macros", "test", WEFT_KIND_NONE, 0, 0 },
};

static const struct weft_scenario walk_sc = {
	.name = "test-walks", .nr_cpus = 1, .nr_threads = 1,
	.world_size = sizeof(struct walk_world), .nr_opcodes = 2, .opnames = walk_opnames,
	.max_ops = WALK_OPS, .files = walk_files, WEFT_TEST_HOOKS(walk), .quiesce = walk_quiesce,
};

int main(void)
{
	/* three ops of T0: walk (arg 5), skip (arg 7), walk (arg 9) */
	static const uint8_t in[] = { 3, 0x00, 5, 0x01, 7, 0x00, 9 };
	struct weft_run_opts o = { .sc = &walk_sc, .record = true };
	struct weft_bytes b;
	struct weft_exec_result r;
	size_t n;

	weft_bytes_init(&b, &walk_sc, in, sizeof(in));
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0 && r.kind == WEFT_KIND_NONE,
	      "execute: %s %s", weft_kind_name(r.kind), r.report.msg);

	const struct weft_event *ev = weft_last_events(&n);
	unsigned notes = 0, reads = 0;
	for (size_t i = 0; i < n; i++) {
		const struct weft_site *s = ev[i].site;
		if (!s)
			continue;
		if (s->ev == WEFT_EV_OP) {
			CHECK(!strcmp(s->func, "walk_thread") && !strcmp(s->what, "walk op") &&
			      !strcmp(weft_site_basename(s), "test_walks.c"),
			      "op note site %s() \"%s\"", s->func, s->what);
			CHECK(ev[i].old == notes && ev[i].val == (uint64_t)(in[1 + 2 * notes] << 8 |
									      in[2 + 2 * notes]),
			      "note %u: index %llu, op %#llx", notes,
			      (unsigned long long)ev[i].old, (unsigned long long)ev[i].val);
			notes++;
		} else if (s->ev == WEFT_EV_READ) {
			CHECK(!strcmp(s->func, "walk_thread") &&
			      !strcmp(s->what, "READ_ONCE((pt)->pte[(i)])"),
			      "PTE read site %s() \"%s\"", s->func, s->what);
			reads++;
		}
	}
	CHECK(notes == 3, "%u op notes, want 3", notes);
	/* each walk reads PTEs 0, 1, 3, 4, 5 (2 is taken with 1) */
	CHECK(reads == 10, "%u PTE reads, want 10", reads);

	return check_done();
}
