/*
 * z2_swap_batch.c - ZOO Z2: the batch free of swap entries on unmap leaks
 * the slots of a partly reclaimed split folio (2024; seeds/001).
 *
 * Source: B. Song, "[PATCH v2 2/2] mm: attempt to batch free swap entries
 * for zap_pte_range()" (linux-mm, 7 Aug 2024), K. Song's review and
 * B. Song's fix (8 Aug 2024); merged as v3 for 6.12 (mm/swapfile.c:
 * swap_is_last_map(), __swap_entries_free(), free_swap_and_cache_nr()).
 * The per-entry variant is free_swap_and_cache_nr() of v6.10 (R. Roberts,
 * "mm: swap: free_swap_and_cache_nr() as batched free_swap_and_cache()").
 *
 * State sequence of the leak (0 preemptions, one CPU):
 *   swap-out of an order-2 folio   slots 0x41 0x41 0x41 0x41, in swap cache
 *   split in the swap cache        four order-0 folios, one per slot
 *   reclaim of one small folio     0x41 0x01 0x41 0x41
 *   zap of the four PTEs           v2: swap_is_last_map() accepts the mix,
 *                                  all become 0x40, the reclaim loop frees
 *                                  the three cached ones: 0x00 0x40 0x00 0x00
 *                                  slot 1 has no folio and no owner: leaked.
 * With a concurrent reclaim thread the partial reclaim can come from
 * another CPU between the split and the zap (1 preemption).
 *
 * Workload (per thread, from the input): ops on one process's 16 PTEs.
 *   swapout a|o<<4  fault an order-o folio at a if unmapped, swap it out
 *   split   a       split the swap-cache folio of the swap PTE at a
 *   reclaim a       drop the swap-cache folio of the swap PTE at a
 *   swapin  a       do_swap_page() at a (or an order-0 fault if none)
 *   zap     a|l<<4  zap_pte_range() over a .. a+l
 *   kswapd  s       reclaim the first swap-cache folio from slot s
 * Every op checks the state it finds and does nothing when it does not
 * apply, so every byte string is a valid workload.
 */
#include <weft/mm/swap.h>
#include <weft/scenario.h>

#define Z2_THREADS 3
#define Z2_MAX_OPS 12
#define Z2_PAGES 32
#define Z2_SLOTS 32
#define Z2_PTES 16
#define Z2_RET_BATCH 2

enum { Z2_V2, Z2_V3, Z2_PER_ENTRY };

enum {
	Z2_OP_SWAPOUT,
	Z2_OP_SPLIT,
	Z2_OP_RECLAIM,
	Z2_OP_SWAPIN,
	Z2_OP_ZAP,
	Z2_OP_KSWAPD,
	Z2_NR_OPS
};

struct z2_world {
	unsigned variant;
	/* the decoded workload: written by setup, read-only afterwards */
	unsigned nr_ops[Z2_THREADS];
	struct weft_op ops[Z2_THREADS][Z2_MAX_OPS];
	struct weft_mm mm;
	struct weft_swap_info si;
	struct weft_pgtable pt;
};

static const struct weft_variant z2_variants[] = {
	{ "v2", "Z2-v2", true,
	  "swap_is_last_map() accepts mixed 0x01/0x41 ranges: the 0x01 slots leak as 0x40",
	  "B. Song, [PATCH v2 2/2] mm: attempt to batch free swap entries for zap_pte_range(), "
	  "linux-mm 7 Aug 2024; K. Song's review, 8 Aug 2024",
	  WEFT_KIND_SLOT_LEAK, 0, Z2_V2 },
	{ "v3", "Z2-v3", false,
	  "swap_is_last_map() requires every byte to equal the first (merged for 6.12)",
	  "B. Song's fix in reply, 8 Aug 2024; mm/swapfile.c v6.12", WEFT_KIND_NONE, 0, Z2_V3 },
	{ "per-entry", "Z2-per-entry", false,
	  "free_swap_and_cache_nr() frees entry by entry (before the batch patch)",
	  "mm/swapfile.c v6.10, free_swap_and_cache_nr()", WEFT_KIND_NONE, 0, Z2_PER_ENTRY },
};

static void z2_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z2_world *W = w;
	static const enum weft_swap_free_mode mode[] = {
		[Z2_V2] = WEFT_SWAP_FREE_BATCH_V2,
		[Z2_V3] = WEFT_SWAP_FREE_BATCH_V3,
		[Z2_PER_ENTRY] = WEFT_SWAP_FREE_PER_ENTRY,
	};

	W->variant = variant < 3 ? z2_variants[variant].id : Z2_V3;
	weft_workload_copy(wl, Z2_THREADS, Z2_MAX_OPS, W->nr_ops, &W->ops[0][0]);
	weft_mm_init(&W->mm, Z2_PAGES, false);
	weft_swap_init(&W->si, &W->mm, Z2_SLOTS, Z2_RET_BATCH,
		       mode[W->variant]);
	weft_pgtable_init(&W->pt, Z2_PTES);
}

static void z2_op(struct z2_world *W, const struct weft_op *op)
{
	struct weft_swap_info *si = &W->si;
	unsigned a = op->arg % Z2_PTES;

	switch (op->code) {
	case Z2_OP_SWAPOUT:
		weft_mm_fault_and_swap_out(si, &W->pt, a, (op->arg >> 4) & 3);
		break;
	case Z2_OP_SPLIT:
		weft_mm_split(si, &W->pt, a);
		break;
	case Z2_OP_RECLAIM:
		weft_mm_reclaim(si, &W->pt, a);
		break;
	case Z2_OP_SWAPIN:
		weft_mm_swap_in(si, &W->pt, a);
		break;
	case Z2_OP_ZAP:
		weft_mm_zap(si, &W->pt, a, 1 + ((op->arg >> 4) & 7));
		break;
	case Z2_OP_KSWAPD:
		weft_mm_reclaim_scan(si, op->arg % si->nr_slots);
		break;
	}
}

static void z2_thread(void *w, unsigned tid)
{
	struct z2_world *W = w;

	WEFT_FOR_EACH_OP(op, W->ops[tid], W->nr_ops[tid], "z2 workload op")
		z2_op(W, op);
	/* the CPU's batch of freed slots goes back before the thread ends
	 * (drain_slots_cache_cpu()); nothing to drain without ops */
	if (W->nr_ops[tid])
		weft_swap_slots_drain(&W->si);
}

static void z2_quiesce(void *w)
{
	struct z2_world *W = w;
	struct weft_pgtable *const pts[] = { &W->pt };

	weft_swap_audit(&W->si, pts, 1);
}

static void z2_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z2_world *W = w;

	if (!weft_swap_pgtables_describe(&W->si, &W->pt, 1, w, off, buf, n))
		weft_mm_describe(&W->mm, w, off, buf, n);
}

static unsigned z2_stats(const void *w, const char **names, uint64_t *vals, unsigned max)
{
	const struct z2_world *W = w;
	unsigned n = weft_swap_stats(&W->si, names, vals, max);

	static const enum weft_mm_stat mm_stats[] = {
		WEFT_MM_STAT_PAGE_ALLOC, WEFT_MM_STAT_PAGE_FREE, WEFT_MM_STAT_TESTZERO,
	};
	for (unsigned s = 0; s < 3 && n < max; s++, n++) {
		names[n] = weft_mm_stat_names[mm_stats[s]];
		vals[n] = weft_mm_stat_sum(&W->mm, mm_stats[s]);
	}
	return n;
}

static uint32_t z2_state_bucket(const void *w, uint32_t off)
{
	const struct z2_world *W = w;

	return weft_swap_mm_state_bucket(&W->si, w, off);
}

static const char *const z2_opnames[Z2_NR_OPS] = {
	"swapout", "split", "reclaim", "swapin", "zap", "kswapd",
};

static const char *const z2_files[] = {
	"z2_swap_batch.c", "mm_swap.c", "mm_page.c",
	NULL,
};


/*
 * The trigger (bytes encoding, all on thread 0, no schedule entries):
 * swapout 0 order 2; split 0; reclaim 1; zap 0..3. The fixed variants get
 * the same workload: it is the one on which they must stay silent.
 */
WEFT_SCENARIO_ONE_TRIGGER(z2, 3,
	4,
	0x00 | Z2_OP_SWAPOUT, 0x20,
	0x00 | Z2_OP_SPLIT, 0x00,
	0x00 | Z2_OP_RECLAIM, 0x01,
	0x00 | Z2_OP_ZAP, 0x30,
);

const struct weft_scenario weft_scn_z2_swap_batch = {
	.name = "z2-swap-batch",
	.summary = "swap batch free on unmap vs a split, partly reclaimed folio: slot leak "
		   "(2024)",
	.source = "mm/swapfile.c v6.11-rc free_swap_and_cache_nr(); linux-mm, Aug 2024 "
		  "(seeds/001)",
	WEFT_SCENARIO_ZOO(z2, Z2, Z2_THREADS, 4096, 1),
};
