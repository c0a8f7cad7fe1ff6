/*
 * test_model_util.c - the helpers a model's scenario callbacks share, on
 * their own (libweft: weft_workload_copy(), weft_stat_rows(),
 * weft_stat_sum(), struct weft_scenario.fields, weft_describe_pointer(),
 * weft_name_object_len(), the workload sections of inputs and triggers;
 * the mm kit: weft_swap_stats(), weft_mm_model_stats(),
 * weft_swap_model_stats(), weft_swap_pte_data(), weft_mm_describe(),
 * weft_mm_slots_state_bucket(), weft_swap_pgtables_describe(),
 * weft_swap_mm_state_bucket()).
 */
#include <stddef.h>
#include <string.h>

#include <weft/mm/swap.h>
#include <weft/strategy.h>

#include "check.h"
#include "../model_driver.h"

static void workload_copy(void)
{
	static struct weft_workload wl;
	struct weft_op ops[2][4];
	unsigned nr[2] = { 9, 9 };

	memset(ops, 0xee, sizeof(ops));
	wl.nr_ops[0] = 5;
	wl.nr_ops[1] = 2;
	wl.nr_ops[2] = 3;   /* a third thread the model does not have */
	for (unsigned t = 0; t < 3; t++)
		for (unsigned i = 0; i < 5; i++)
			wl.ops[t][i] = (struct weft_op){ (uint8_t)t, (uint8_t)(10 * t + i) };
	weft_workload_copy(&wl, 2, 4, nr, &ops[0][0]);
	CHECK(nr[0] == 4 && nr[1] == 2, "ops per thread capped at max_ops: %u %u", nr[0], nr[1]);
	CHECK(ops[0][3].arg == 3 && ops[1][0].arg == 10 && ops[1][1].arg == 11 &&
	      ops[1][1].code == 1, "rows of max_ops");
	CHECK(ops[1][2].code == 0xee, "nothing past a thread's ops is written");
}

/* A scenario that declares no ops gets none, whatever the bytes say; one
 * that names an op gets them (codes modulo nr_opcodes). */
static void workload_without_ops(void)
{
	static struct weft_workload wl;
	const uint8_t bytes[] = { 2, 0x03, 5, 0x11, 6 };
	struct weft_scenario none = { .name = "none", .nr_threads = 2 };
	struct weft_scenario two = { .name = "two", .nr_threads = 2, .nr_opcodes = 2 };
	static const char *const names[] = { "op", NULL };
	struct weft_scenario named = { .name = "named", .nr_threads = 2, .opnames = names };

	CHECK(!weft_scenario_takes_workload(&none) && weft_scenario_takes_workload(&two) &&
	      weft_scenario_takes_workload(&named), "takes a workload: nr_opcodes or opnames");
	wl.nr_ops[0] = wl.nr_ops[1] = 9;
	weft_workload_decode(&none, bytes, sizeof(bytes), &wl);
	CHECK(wl.nr_ops[0] == 0 && wl.nr_ops[1] == 0, "no ops declared, none decoded: %u %u",
	      wl.nr_ops[0], wl.nr_ops[1]);
	weft_workload_decode(&two, bytes, sizeof(bytes), &wl);
	CHECK(wl.nr_ops[0] == 1 && wl.nr_ops[1] == 1 && wl.ops[0][0].code == 1 &&
	      wl.ops[0][0].arg == 5 && wl.ops[1][0].code == 1 && wl.ops[1][0].arg == 6,
	      "declared ops decoded: %u %u", wl.nr_ops[0], wl.nr_ops[1]);
	weft_workload_decode(&named, bytes, sizeof(bytes), &wl);
	CHECK(wl.nr_ops[0] == 1 && wl.ops[0][0].code == 0, "opnames alone: code 0");
}

static void stat_rows(void)
{
	static const char *const names_in[] = { "a", "b" };
	const unsigned long stat[3][2] = { { 1, 10 }, { 2, 20 }, { 4, 40 } };
	const char *names[4];
	uint64_t vals[4];

	CHECK(weft_stat_sum(&stat[0][0], 2, 3, 1) == 70, "column sum");
	CHECK(weft_stat_rows(names_in, 2, &stat[0][0], 3, names, vals, 4) == 2 &&
	      !strcmp(names[0], "a") && vals[0] == 7 && !strcmp(names[1], "b") && vals[1] == 70,
	      "rows: names and sums over the threads");
	CHECK(weft_stat_rows(names_in, 2, &stat[0][0], 2, names, vals, 1) == 1 && vals[0] == 3,
	      "rows stop at max, sums at nr_threads");
}

static void input_workload(void)
{
	static struct weft_input in;
	uint8_t wl[16];
	const uint8_t bytes[] = { 3, 0x10, 1, 0x02, 7, 0x11 };   /* the third op cut short */

	weft_input_set_workload(&in, bytes, sizeof(bytes));
	CHECK(in.nr_wl_ops == 2 && in.wl[1].t_op == 0x02 && in.wl[1].arg == 7,
	      "a cut op is dropped: %u ops", in.nr_wl_ops);
	CHECK(weft_input_workload(&in, wl, sizeof(wl)) == 5 && wl[0] == 2 && wl[3] == 0x02 &&
	      wl[4] == 7, "back to a workload section");
	CHECK(weft_input_workload(&in, wl, 4) == 0, "0 when it does not fit");
	weft_input_set_workload(&in, bytes, 0);
	CHECK(in.nr_wl_ops == 0, "an empty section has no ops");
}

/* z1-lru: z1a, z1b and z1c carry triggers (z1c's workload differs from
 * z1a's), its four fixes none: dfs runs a fix on the first buggy variant's. */
static void trigger_workload(void)
{
	unsigned vc, fi;
	const struct weft_scenario *sc = weft_scenario_find("z1-lru:z1c", &vc);
	const uint8_t z1a_wl[] = { 2, 0x01, 0x00, 0x12, 0x00 };
	const uint8_t z1c_wl[] = { 2, 0x08, 0x00, 0x21, 0x00 };
	uint8_t wl[64];
	int from = 7;

	CHECK(sc && weft_scenario_find("z1-lru:fix-lrucount", &fi), "z1 is registered");
	if (!sc)
		return;
	size_t n = weft_trigger_workload(sc, vc, wl, sizeof(wl));
	CHECK(n == sizeof(z1c_wl) && !memcmp(wl, z1c_wl, n), "z1c's trigger workload: %zu bytes",
	      n);
	CHECK(weft_dfs_workload(sc, vc, wl, sizeof(wl), &from) == sizeof(z1c_wl) &&
	      !memcmp(wl, z1c_wl, sizeof(z1c_wl)) && from == (int)vc,
	      "a variant with a trigger: its own (from %d)", from);
	CHECK(weft_trigger_workload(sc, fi, wl, sizeof(wl)) == 0, "the fix has no trigger");
	from = 7;
	CHECK(weft_dfs_workload(sc, fi, wl, sizeof(wl), &from) == sizeof(z1a_wl) &&
	      !memcmp(wl, z1a_wl, sizeof(z1a_wl)) && from == 0,
	      "dfs runs the fix on the first buggy variant's trigger (from %d)", from);
	CHECK(weft_trigger_workload(sc, vc, wl, 4) == 0, "0 when it does not fit");
}

/* ------------------------------------------- a world with a swap device */

struct sw_world {
	int x, y;
	struct weft_mm mm;
	struct weft_swap_info si;
	struct weft_pgtable pt[2];
	struct weft_page *slots[3];   /* a page cache's slots */
};

static const struct weft_field sw_fields[] = {
	WEFT_FIELD(struct sw_world, x, "x"),
	WEFT_FIELD(struct sw_world, y, "y"),
	{ 0, NULL },
};

static void sw_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct sw_world *W = w;

	(void)variant;
	(void)wl;
	weft_mm_init(&W->mm, 4, false);
	weft_swap_init(&W->si, &W->mm, 8, 0, WEFT_SWAP_FREE_PER_ENTRY);
	weft_pgtable_init(&W->pt[0], 4);
	weft_pgtable_init(&W->pt[1], 4);
	W->si.swap_map[3] = 0x41;
	W->slots[1] = &W->mm.pages[2];
}

static void sw_thread(void *w, unsigned tid)
{
	(void)w;
	(void)tid;
}

/* Only what the test needs: a run of setup(), whose world it reads. */
static const struct weft_variant sw_variants[] = {
	{ "only", NULL, false, "test only", "tests/core", WEFT_KIND_NONE, 0, 0 },
};
static const struct weft_scenario sw_scn = {
	.name = "test-model-util", .summary = "test only: a swap device and two page tables",
	.nr_cpus = 1, .nr_threads = 1, .world_size = sizeof(struct sw_world), WEFT_TEST_HOOKS(sw),
	.fields = sw_fields,
};

/* A model's own rows, then the swap model's, then the page model's, cut at
 * max wherever it falls. */
static void model_stats(const struct sw_world *W)
{
	static const char *const own[] = { "own" };
	const unsigned long own_stat[2][1] = { { 2 }, { 3 } };
	enum { ALL = 1 + WEFT_SWAP_NR_STATS + WEFT_MM_NR_STATS };
	const char *names[ALL + 1];
	uint64_t vals[ALL + 1];
	unsigned n = weft_swap_model_stats(&W->si, own, 1, &own_stat[0][0], 2, names, vals, ALL + 1);

	CHECK(n == ALL && !strcmp(names[0], "own") && vals[0] == 5, "own rows first: %u rows", n);
	CHECK(names[1] == weft_swap_stat_names[0] &&
	      vals[1] == weft_swap_stat_sum(&W->si, (enum weft_swap_stat)0) &&
	      names[1 + WEFT_SWAP_NR_STATS] == weft_mm_stat_names[0] &&
	      vals[ALL - 1] == weft_mm_stat_sum(&W->mm, WEFT_MM_NR_STATS - 1),
	      "then the swap model's, then the page model's");
	n = weft_swap_model_stats(&W->si, own, 1, &own_stat[0][0], 2, names, vals, 2);
	CHECK(n == 2 && names[1] == weft_swap_stat_names[0], "cut inside the swap rows");
	n = weft_mm_model_stats(&W->mm, own, 1, &own_stat[0][0], 1, names, vals, ALL + 1);
	CHECK(n == 1 + WEFT_MM_NR_STATS && vals[0] == 2 && names[1] == weft_mm_stat_names[0] &&
	      vals[n - 1] == weft_mm_stat_sum(&W->mm, WEFT_MM_NR_STATS - 1),
	      "a page model's rows after the model's own, summed over nr_threads");
	CHECK(weft_mm_model_stats(&W->mm, own, 1, &own_stat[0][0], 2, names, vals, 1) == 1,
	      "cut after the model's own");
}

static void kit_helpers(void)
{
	struct weft_run_opts o = { .sc = &sw_scn };
	struct weft_bytes b;
	struct weft_exec_result r;
	char buf[96];
	const char *names[WEFT_SWAP_NR_STATS + 1];
	uint64_t vals[WEFT_SWAP_NR_STATS + 1];

	weft_bytes_init(&b, &sw_scn, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0 && r.kind == WEFT_KIND_NONE,
	      "one clean execution");
	const struct sw_world *W = weft_last_world();
	uint32_t map3 = (uint32_t)(offsetof(struct sw_world, si) +
				   offsetof(struct weft_swap_info, swap_map) + 3);
	uint32_t pte2 = (uint32_t)(offsetof(struct sw_world, pt[1]) +
				   offsetof(struct weft_pgtable, pte) + 2 * sizeof(uint32_t));
	uint32_t page1 = (uint32_t)((const char *)&W->mm.pages[1] - (const char *)W);

	CHECK(weft_swap_pgtables_describe(&W->si, W->pt, 2, W, map3, buf, sizeof(buf)) &&
	      !strcmp(buf, "swap slot 3 (0x41)"), "a swap_map byte: '%s'", buf);
	CHECK(weft_swap_pgtables_describe(&W->si, W->pt, 2, W, pte2, buf, sizeof(buf)) &&
	      !strcmp(buf, "P1 pte 2 (none)"), "process 1's PTE: '%s'", buf);
	CHECK(!weft_swap_pgtables_describe(&W->si, W->pt, 2, W, page1, buf, sizeof(buf)),
	      "a page is the mm's to name");
	CHECK(weft_mm_describe(&W->mm, W, page1, buf, sizeof(buf)) &&
	      !strcmp(buf, "page 1 ->count"), "a page's first field: '%s'", buf);
	CHECK(weft_mm_describe(&W->mm, W, page1 + offsetof(struct weft_page, lru.prev) + 1, buf,
			       sizeof(buf)) && !strcmp(buf, "page 1 ->lru.prev"),
	      "a byte inside a field names the field: '%s'", buf);
	CHECK(weft_mm_describe(&W->mm, W, page1 + sizeof(struct weft_page) - 1, buf, sizeof(buf)) &&
	      !strcmp(buf, "page 1 ->data"), "a page's last byte: '%s'", buf);
	CHECK(weft_swap_mm_state_bucket(&W->si, W, map3) ==
	      weft_swap_state_bucket(&W->si, W, map3) && weft_swap_mm_state_bucket(&W->si, W, map3),
	      "a swap_map byte's bucket");
	CHECK(weft_swap_mm_state_bucket(&W->si, W, page1) == weft_mm_state_bucket(&W->mm, W, page1),
	      "a page's bucket is the mm's");
	CHECK(weft_swap_mm_state_bucket(&W->si, W, 0) == 0, "x has no bucket");
	unsigned n = weft_swap_stats(&W->si, names, vals, WEFT_SWAP_NR_STATS + 1);
	CHECK(n == WEFT_SWAP_NR_STATS && names[0] == weft_swap_stat_names[0], "the swap counters");
	model_stats(W);
	uint32_t slot0 = (uint32_t)offsetof(struct sw_world, slots);
	CHECK(weft_mm_slots_state_bucket(&W->mm, W, slot0, W->slots, 3) == 0x10000u &&
	      weft_mm_slots_state_bucket(&W->mm, W, slot0 + sizeof(W->slots[0]) + 1, W->slots, 3) ==
		      (0x10000u | 1u << 8 | 3u) &&
	      weft_mm_slots_state_bucket(&W->mm, W, slot0 + sizeof(W->slots), W->slots, 3) == 0 &&
	      weft_mm_slots_state_bucket(&W->mm, W, 0, W->slots, 3) == 0,
	      "a slot's bucket: the slot and 1 + its page's number; 0 outside the slots");
	CHECK(!weft_swap_pte_data(&W->si, WEFT_PTE_NONE) &&
	      weft_swap_pte_data(&W->si, weft_mk_pte(2)) == &W->mm.pages[2].data &&
	      weft_swap_pte_data(&W->si, weft_swp_entry_to_pte(3)) == &W->si.data[3],
	      "an address's contents: none, its page's, its slot's");

	/* fields by exact offset; describe() absent */
	weft_describe_loc(&sw_scn, offsetof(struct sw_world, y), buf, sizeof(buf));
	CHECK(!strcmp(buf, "y"), "a field by its offset: '%s'", buf);
	weft_describe_loc(&sw_scn, offsetof(struct sw_world, y) + 1, buf, sizeof(buf));
	CHECK(!strcmp(buf, "world+0x5"), "inside a field: not named: '%s'", buf);
}

static void names(void)
{
	CHECK(weft_name_object_len("page 0 ->lru.next") == 6, "the object of a field path");
	CHECK(weft_name_object_len("inactive_list.prev") == 13, "a dotted path");
	CHECK(weft_name_object_len("x") == 1, "a name without fields");
}

int main(void)
{
	workload_copy();
	workload_without_ops();
	stat_rows();
	input_workload();
	trigger_workload();
	kit_helpers();
	names();
	return check_done();
}
