/*
 * test_trace_view.c - how the race diagram names values and rows
 * (tools/race_diagram.c), on a small test-only model with byte-exact
 * describe() names:
 *  - 0x100 and 0x122 are LIST_POISON1/2 only in list pointer fields;
 *  - counts (refcount, mapcount) print in decimal, flag words in hex;
 *  - a pointer names the largest thing that starts at its target (the
 *    object, not its first field);
 *  - host-context events are "(setup)" before the threads and "(audit)"
 *    after, in a row of their own, not in CPU0's column.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <weft/kernel.h>
#include <weft/strategy.h>

#include "check.h"
#include "race_diagram.h"
#include "../model_driver.h"

struct tv_obj {
	atomic_t count;
	unsigned long flags;
	struct weft_list_head lru;
};

struct tv_world {
	struct tv_obj obj[2];
	atomic_t mapcount;
	unsigned long x;
};

static void tv_thread(void *w, unsigned tid)
{
	struct tv_world *W = w;

	atomic_inc(&W->obj[tid].count);
}

static void tv_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	(void)w;
	if (off < sizeof(((struct tv_world *)0)->obj)) {
		unsigned i = off / sizeof(struct tv_obj);
		size_t f = off % sizeof(struct tv_obj);
		const char *field = f < offsetof(struct tv_obj, flags)	   ? "count"
				    : f < offsetof(struct tv_obj, lru)	   ? "flags"
				    : f < offsetof(struct tv_obj, lru.prev) ? "lru.next"
									     : "lru.prev";
		snprintf(buf, n, "obj %u ->%s", i, field);
	} else if (off < offsetof(struct tv_world, x)) {
		snprintf(buf, n, "folio 0 mapcount");
	} else {
		snprintf(buf, n, "x");
	}
}

static const char *const tv_files[] = { "test_trace_view.c", NULL };
static const struct weft_variant tv_variants[] = {
	{ "only", NULL, false, "test only", "tests/tools", WEFT_KIND_NONE, 0, 0 },
};
static const struct weft_scenario tv_scn = {
	.name = "test-trace-view", .summary = "test only: names in the race diagram",
	.source = "tests/tools", .nr_cpus = 2, .nr_threads = 2,
	.world_size = sizeof(struct tv_world), WEFT_TEST_NOP_OP,
	.files = tv_files, .thread = tv_thread, .describe = tv_describe, WEFT_TEST_VARIANTS(tv),
};

static struct weft_site site_read = { "t.c", "f", "atomic_read(&p->count)", 1, WEFT_EV_READ, 1, 0 };
static struct weft_site site_next = { "t.c", "f", "WRITE_ONCE(e->next)", 2, WEFT_EV_WRITE, 2, 0 };
static struct weft_site site_x = { "t.c", "f", "READ_ONCE(W->x)", 3, WEFT_EV_READ, 3, 0 };
static struct weft_site site_map = { "t.c", "f", "atomic_read(&si->mapcount[0])", 4,
				     WEFT_EV_READ, 4, 0 };
static struct weft_site site_flags = { "t.c", "f", "test_bit(PG_lru, &p->flags)", 5,
				       WEFT_EV_READ, 5, 0 };
static struct weft_site site_ptr = { "t.c", "f", "WRITE_ONCE(slot)", 6, WEFT_EV_WRITE, 6, 0 };
static struct weft_site site_note = { "t.c", "f", "audit: something", 7, WEFT_EV_NOTE, 7, 0 };

static struct weft_event ev(uint8_t tid, uint32_t loc, const struct weft_site *s, uint64_t val)
{
	struct weft_event e = { 0, tid, tid == 0xff ? 0xff : tid, (uint8_t)s->ev, 0, loc, s, 0,
				val, NULL };
	return e;
}

static void value_is(struct weft_trace_view *v, struct weft_event e, const char *want)
{
	char buf[128];

	weft_trace_value(v, &e, e.val, buf, sizeof(buf));
	CHECK(!strcmp(buf, want), "%s = %#llx at %u: '%s', want '%s'", e.site->what,
	      (unsigned long long)e.val, e.loc, buf, want);
}

int main(void)
{
	struct weft_run_opts o = { .sc = &tv_scn };
	struct weft_exec_result r;
	static struct weft_random rs;

	/* a world for describe() to name */
	weft_random_init(&rs, &tv_scn, 1, NULL, 0);
	CHECK(weft_execute(&o, &weft_strategy_random, &rs, &r) == 0, "the model ran");
	memset(&r, 0, sizeof(r));

	struct weft_trace_view v = { .sc = &tv_scn, .r = &r };
	uint32_t count0 = offsetof(struct tv_world, obj[0].count);
	uint32_t next0 = offsetof(struct tv_world, obj[0].lru.next);
	uint32_t prev0 = offsetof(struct tv_world, obj[0].lru.prev);
	uint32_t flags0 = offsetof(struct tv_world, obj[0].flags);
	uint32_t obj1 = offsetof(struct tv_world, obj[1]);
	uint32_t mapc = offsetof(struct tv_world, mapcount);
	uint32_t x = offsetof(struct tv_world, x);

	/* LIST_POISON only where a list pointer lives */
	value_is(&v, ev(0, count0, &site_read, 0x100), "256");
	value_is(&v, ev(0, count0, &site_read, 0x122), "290");
	value_is(&v, ev(0, x, &site_x, 0x100), "256");
	value_is(&v, ev(0, next0, &site_next, 0x100), "LIST_POISON1");
	value_is(&v, ev(0, prev0, &site_next, 0x122), "LIST_POISON2");
	/* counts in decimal, flags in hex */
	value_is(&v, ev(0, mapc, &site_map, 3), "3");
	value_is(&v, ev(0, count0, &site_read, 2), "2");
	value_is(&v, ev(0, flags0, &site_flags, 0x21), "0x21");
	/* pointers name the object, not its first field */
	value_is(&v, ev(0, x, &site_ptr, 1ull << 63 | obj1), "&obj 1");
	value_is(&v, ev(0, x, &site_ptr, 1ull << 63 | count0), "&obj 0");
	value_is(&v, ev(0, x, &site_ptr, 1ull << 63 | next0), "&obj 0 ->lru");
	value_is(&v, ev(0, x, &site_ptr, 1ull << 63 | prev0), "&obj 0 ->lru.prev");
	value_is(&v, ev(0, x, &site_ptr, 1ull << 63 | flags0), "&obj 0 ->flags");
	/* an access still names the field */
	{
		struct weft_event e[1] = { ev(0, count0, &site_read, 1) };
		char buf[128];
		v.ev = e;
		v.n = 1;
		weft_trace_event_text(&v, 0, buf, sizeof(buf));
		CHECK(!strcmp(buf, "atomic_read(&p->count): obj 0 ->count = 1"), "'%s'", buf);
	}

	/* setup before the threads, audit after, each across the columns */
	{
		struct weft_event e[4] = { ev(0xff, x, &site_x, 0), ev(0, count0, &site_read, 1),
					   ev(1, obj1, &site_read, 1), ev(0xff, x, &site_note, 0) };
		for (unsigned i = 0; i < 4; i++)
			e[i].step = i;
		e[3].ev = WEFT_EV_NOTE;
		v.ev = e;
		v.n = 4;
		weft_trace_view_init(&v);
		CHECK(!strcmp(weft_trace_host_phase(&v, 0), "setup"), "event 0 is setup");
		CHECK(!strcmp(weft_trace_host_phase(&v, 3), "audit"), "event 3 is audit");
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		weft_race_diagram(f, &v, true);
		fclose(f);
		CHECK(strstr(out, "\n     0 |    (setup) READ_ONCE(W->x): x = 0\n") != NULL,
		      "setup row across the columns:\n%s", out);
		CHECK(strstr(out, "\n     3 |    (audit) audit: something x\n") != NULL,
		      "audit row across the columns:\n%s", out);
		CHECK(strstr(out, "CPU0: T0") && strstr(out, "CPU1: T1"), "both CPUs:\n%s", out);
		/* a trace whose only CPU0 events are host events has no CPU0 column */
		struct weft_event h[3] = { ev(0xff, x, &site_x, 0), ev(1, obj1, &site_read, 1),
					   ev(0xff, x, &site_note, 0) };
		weft_trace_view_fini(&v);
		v.ev = h;
		v.n = 3;
		weft_trace_view_init(&v);
		free(out);
		f = open_memstream(&out, &len);
		weft_race_diagram(f, &v, true);
		fclose(f);
		CHECK(!strstr(out, "CPU0"), "host events drew a CPU0 column:\n%s", out);
		CHECK(strstr(out, "(setup)") && strstr(out, "(audit)"), "labels:\n%s", out);
		weft_trace_view_fini(&v);
		free(out);
	}
	return check_done();
}
