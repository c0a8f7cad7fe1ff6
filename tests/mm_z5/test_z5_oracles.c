/*
 * test_z5_oracles.c - the 2011 swap_map arithmetic and the oracles of
 * mm_shmem.h, each on one deliberate sequence in a private one-CPU
 * scenario: the count-0 decrement stores 0x40 -> 0xff and reports
 * swap-count-underflow; swap_shmem_alloc() on 0xff fails with -EINVAL and
 * leaves the byte, and the slot audit reports the ownerless 0xff (the
 * state the Z5 race leaves) and the ownerless 0xbf (after the swap-cache
 * page is gone); HAS_CACHE dropped twice is an underflow; the correct
 * shmem life cycle (0x40 -> 0xff -> 0x40 -> 0) is clean.
 */
#include <weft/mm/shmem.h>
#include "zoo_test.h"
#include "../model_driver.h"

#define Z5 "z5-tmpfs-truncate"

enum { O_CLEAN, O_WRAP, O_EINVAL_LEAK, O_SHMEM_LEAK, O_CACHE_TWICE, O_NR };

struct oracle_world {
	unsigned variant;
	struct weft_mm mm;
	struct weft_swap11 si;
	uint32_t owner;            /* the "index entry": slot + 1, 0 none */
	int ret;                   /* a return value the test checks */
	uint8_t bytes[4];          /* bytes seen along the way */
};

WEFT_TEST_SETUP(oracle, struct oracle_world)
{
	weft_mm_init(&W->mm, 4, false);
	weft_swap11_init(&W->si, &W->mm, 4);
}

static void oracle_thread(void *w, unsigned tid)
{
	struct oracle_world *W = w;
	struct weft_swap11 *si = &W->si;
	struct weft_page *p;
	int s = weft_swap11_get_swap_page(si);

	(void)tid;
	W->bytes[0] = weft_peek(si->swap_map[s]);
	switch (W->variant) {
	case O_CLEAN:
		/* shmem_writepage() done right, then truncate, then reclaim */
		p = weft_page_alloc(&W->mm);
		weft_swap11_add_to_cache(si, p, (unsigned)s);
		W->ret = weft_swap11_duplicate(si, (unsigned)s, WEFT_SWAP11_MAP_SHMEM);
		W->owner = (uint32_t)s + 1;
		W->bytes[1] = weft_peek(si->swap_map[s]);
		W->owner = 0;
		W->bytes[2] = weft_swap11_entry_free(si, (unsigned)s, 1);
		weft_swap11_delete_from_cache(si, p);
		W->bytes[3] = weft_peek(si->swap_map[s]);
		weft_put_page_testzero(&W->mm, p);              /* the cache's */
		if (weft_put_page_testzero(&W->mm, p))          /* the allocation's */
			weft_page_free(&W->mm, p);
		break;
	case O_WRAP:
		weft_swap11_entry_free(si, (unsigned)s, 1);
		break;
	case O_EINVAL_LEAK:
	case O_SHMEM_LEAK:
		/* the Z5 race's aftermath, its wrap written directly */
		p = weft_page_alloc(&W->mm);
		weft_swap11_add_to_cache(si, p, (unsigned)s);
		WRITE_ONCE(si->swap_map[s], (uint8_t)0xff);
		W->ret = weft_swap11_duplicate(si, (unsigned)s, WEFT_SWAP11_MAP_SHMEM);
		W->bytes[1] = weft_peek(si->swap_map[s]);
		if (W->variant == O_SHMEM_LEAK) {
			weft_swap11_delete_from_cache(si, p);   /* reclaim */
			W->bytes[2] = weft_peek(si->swap_map[s]);
			weft_put_page_testzero(&W->mm, p);
		}
		break;
	case O_CACHE_TWICE:
		weft_swap11_entry_free(si, (unsigned)s, WEFT_SWAP11_HAS_CACHE);
		weft_swap11_entry_free(si, (unsigned)s, WEFT_SWAP11_HAS_CACHE);
		break;
	}
}

static unsigned oracle_owners(const void *ctx, unsigned slot)
{
	const struct oracle_world *W = ctx;

	return W->owner == slot + 1;
}

static void oracle_quiesce(void *w)
{
	struct oracle_world *W = w;

	weft_swap11_audit(&W->si, oracle_owners, W);
}

static void oracle_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct oracle_world *W = w;

	if (!weft_swap11_describe(&W->si, w, off, buf, n))
		weft_mm_describe(&W->mm, w, off, buf, n);
}

static const struct weft_variant oracle_variants[O_NR] = {
	{ "clean", NULL, false, "shmem slot life cycle", "", WEFT_KIND_NONE, 0, O_CLEAN },
	{ "wrap", NULL, true, "count-0 decrement", "", WEFT_KIND_SWAP_UNDERFLOW, 0, O_WRAP },
	{ "einval-leak", NULL, true, "ownerless 0xff", "", WEFT_KIND_SLOT_LEAK, 0, O_EINVAL_LEAK },
	{ "shmem-leak", NULL, true, "ownerless 0xbf", "", WEFT_KIND_SLOT_LEAK, 0, O_SHMEM_LEAK },
	{ "cache-twice", NULL, true, "HAS_CACHE dropped twice", "", WEFT_KIND_SWAP_UNDERFLOW, 0,
	  O_CACHE_TWICE },
};

static const char *const oracle_opnames[] = { "none" };
static const char *const oracle_files[] = { "test_z5_oracles.c", "mm_shmem.c", NULL };

static const struct weft_scenario oracle_sc = {
	.name = "z5-oracles", .summary = "mm_shmem oracles", .source = "tests/mm_z5", .nr_cpus = 1,
	.nr_threads = 1, .world_size = sizeof(struct oracle_world), .nr_opcodes = 1,
	.opnames = oracle_opnames, .max_ops = 1, .decision_hint = 16, .files = oracle_files,
	WEFT_TEST_HOOKS(oracle), .quiesce = oracle_quiesce, .describe = oracle_describe,
};

int main(void)
{
	for (unsigned v = 0; v < O_NR; v++) {
		struct weft_run_opts o = { .sc = &oracle_sc, .variant = v, .record = true };
		struct weft_bytes b;
		struct weft_exec_result r;

		weft_bytes_init(&b, &oracle_sc, NULL, 0);
		CHECK(weft_execute(&o, &weft_strategy_bytes, &b, &r) == 0, "execute %u", v);
		const struct oracle_world *W = weft_last_world();
		CHECK(r.kind == oracle_variants[v].expect_kind, "%s: expected %s, got %s (%s)",
		      oracle_variants[v].name, weft_kind_name(oracle_variants[v].expect_kind),
		      weft_kind_name(r.kind), r.report.msg);
		CHECK(W->bytes[0] == 0x40, "%s: a new slot is SWAP_HAS_CACHE (0x%02x)",
		      oracle_variants[v].name, W->bytes[0]);
		if (r.kind != WEFT_KIND_NONE)
			CHECK(!strncmp(r.report.object, "swap slot 0", 11), "%s: object '%s'",
			      oracle_variants[v].name, r.report.object);
		switch (v) {
		case O_CLEAN:
			CHECK(W->ret == 0 && W->bytes[1] == 0xff && W->bytes[2] == 0x40 &&
			      W->bytes[3] == 0x00, "clean: 0x40 -> 0x%02x -> 0x%02x -> 0x%02x",
			      W->bytes[1], W->bytes[2], W->bytes[3]);
			break;
		case O_WRAP:
			CHECK(strstr(r.report.msg, "0x40 -> 0xff") != NULL, "wrap: %s", r.report.msg);
			CHECK(weft_peek(W->si.swap_map[0]) == 0xff, "wrap: byte stored as v3.0 did");
			break;
		case O_EINVAL_LEAK:
			CHECK(W->ret == WEFT_SWAP11_EINVAL && W->bytes[1] == 0xff,
			      "swap_shmem_alloc on 0xff: %d, byte 0x%02x", W->ret, W->bytes[1]);
			CHECK(strstr(r.report.msg, "no shmem index entry") != NULL, "%s", r.report.msg);
			break;
		case O_SHMEM_LEAK:
			CHECK(W->bytes[2] == 0xbf, "after reclaim: 0x%02x", W->bytes[2]);
			CHECK(strstr(r.report.object, "0xbf") != NULL, "%s", r.report.object);
			break;
		}
		printf("%-12s %-22s %s %s\n", oracle_variants[v].name, weft_kind_name(r.kind),
		       r.report.object, r.report.msg);
	}
	return check_done();
}
