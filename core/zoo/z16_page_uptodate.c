/*
 * z16_page_uptodate.c - ZOO Z16: PageUptodate seen before the page's
 * contents (2008): the reader that fills a page sets PG_uptodate with
 * set_bit() (which orders nothing), and a lockless reader tests it and
 * copies the contents. Without smp_wmb() before the flag's store the
 * contents may become visible after it; without smp_rmb() after the test
 * the contents may be read before it. Message passing with fences,
 * exactly the kernel's litmus test MP+fencewmbonceonce+fencermbonceonce:
 * only weak memory shows it.
 *
 * Sources:
 *  - N. Piggin, "mm: fix PageUptodate data race", commit 0ed361dec369
 *    (v2.6.27, 2008): "After running SetPageUptodate, preceeding stores to
 *    the page contents to actually bring it uptodate may not be ordered
 *    with the store to set the page uptodate. Therefore, another CPU
 *    which checks PageUptodate is true, then reads the page contents can
 *    get stale data." SetPageUptodate() gets smp_wmb() before the bit,
 *    PageUptodate() smp_rmb() after it ("__SetPageUptodate" too).
 *  - mm/filemap.c of v2.6.26 do_generic_file_read(): find_get_page(), "if
 *    (!PageUptodate(page)) goto page_not_up_to_date;", then the copy to
 *    user space without the page lock; the readpage completion
 *    (mpage_end_io_read(): SetPageUptodate(), unlock_page()).
 *
 * Variants:
 *   z16        no barrier on either side (v2.6.26).
 *   wmb-only   smp_wmb() in SetPageUptodate(), none in PageUptodate():
 *              still buggy (the reader's loads reorder).
 *   fix        smp_wmb() and smp_rmb() (v2.6.27).
 *
 * The race (lkmm), trigger workload T0 `fill 0`; T1 `read 0`, no
 * preemption: T0 fills page 0 (data store), smp_wmb() (wmb-only, fix),
 * SetPageUptodate (set_bit: written at once); T0 ends. T1 tests
 * PG_uptodate: set; reads the contents: with no smp_rmb() the load may
 * read the version before T0's fill (its floor was not raised by the
 * flag's load), 0: stale data. With no smp_wmb() either (z16), the data
 * store itself may still be buffered when the flag is visible.
 *
 * Detector: the data oracle. A read that found the page uptodate must
 * copy the filled contents (a per-slot pattern): `data-loss` otherwise,
 * naming the fill's store as the other side.
 *
 * Ops (per thread, up to Z16_MAX_OPS; s = arg % Z16_SLOTS):
 *   fill s   the readpage completion: contents, SetPageUptodate()
 *   read s   do_generic_file_read()'s lockless copy of an uptodate page
 * Initial state: slots 0 and 1 hold pages 0 and 1, not uptodate, empty.
 */
#include <weft/mm/page.h>
#include <weft/scenario.h>

#define Z16_THREADS 2
#define Z16_MAX_OPS 4
#define Z16_SLOTS 2
#define Z16_PAGES 4
#define Z16_DATA(s) (0xda7a0000u | (s))

enum { Z16_V_BUGGY, Z16_V_WMB_ONLY, Z16_V_FIX, Z16_NR_VARIANTS };

enum { Z16_OP_FILL, Z16_OP_READ, Z16_NR_OPS };

#define Z16_STATS(X)                                                           \
	X(FILLED, "page_filled")                                               \
	X(READ_UPTODATE, "read_uptodate")                                      \
	X(READ_NOT_UPTODATE, "read_not_uptodate")

enum z16_stat {
#define Z16_STAT_ENUM(e, s) Z16_STAT_##e,
	Z16_STATS(Z16_STAT_ENUM)
#undef Z16_STAT_ENUM
	Z16_NR_STATS
};

static const char *const z16_stat_names[Z16_NR_STATS] = {
#define Z16_STAT_NAME(e, s) s,
	Z16_STATS(Z16_STAT_NAME)
#undef Z16_STAT_NAME
};

struct z16_world {
	unsigned variant;
	unsigned nr_ops[Z16_THREADS];
	struct weft_op ops[Z16_THREADS][Z16_MAX_OPS];
	struct weft_mm mm;
	struct weft_page *slot[Z16_SLOTS];   /* constant after setup */
	unsigned long stat[Z16_THREADS][Z16_NR_STATS];
};

WEFT_SCENARIO_STAT_FN(z16, Z16)

static void z16_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct z16_world *W = w;

	WEFT_SCENARIO_SETUP_START(Z16, W, variant, wl, Z16_V_FIX);
	weft_mm_init(&W->mm, Z16_PAGES, false);
	for (unsigned s = 0; s < Z16_SLOTS; s++)
		W->slot[s] = weft_page_alloc(&W->mm);   /* the page cache's */
}

/* SetPageUptodate() and PageUptodate() of each era. */
static void z16_set_uptodate(struct z16_world *W, struct weft_page *p)
{
	if (W->variant != Z16_V_BUGGY)
		smp_wmb();
	weft_page_set(p, uptodate);
}

static bool z16_page_uptodate(struct z16_world *W, struct weft_page *p)
{
	bool ret = weft_page_test(p, uptodate);

	if (ret && W->variant == Z16_V_FIX)
		smp_rmb();
	return ret;
}

/* The readpage completion: the contents, then the flag. */
static void z16_fill(struct z16_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z16_SLOTS;
	struct weft_page *p = W->slot[s];

	if (weft_page_test(p, uptodate))
		return;
	WRITE_ONCE(p->data, Z16_DATA(s));
	z16_set_uptodate(W, p);
	z16_stat(W, Z16_STAT_FILLED);
}

/* do_generic_file_read(): an uptodate page is copied without its lock. */
static void z16_read(struct z16_world *W, unsigned tid, unsigned arg)
{
	unsigned s = arg % Z16_SLOTS;
	struct weft_page *p = W->slot[s];

	if (!z16_page_uptodate(W, p)) {
		z16_stat(W, Z16_STAT_READ_NOT_UPTODATE);
		return;   /* page_not_up_to_date: the slow path locks it */
	}
	z16_stat(W, Z16_STAT_READ_UPTODATE);
	uint32_t d = READ_ONCE(p->data);
	if (d != Z16_DATA(s)) {
		struct weft_access other = weft_last_write(&p->data);
		weft_report2(WEFT_KIND_DATA_LOSS, &p->data,
			     WEFT_SITE(WEFT_EV_NOTE, "do_generic_file_read: copies an uptodate page"),
			     &other,
			     "page %u (slot %u) is PageUptodate, but its contents read %#x, not the "
			     "%#x its reader filled", weft_page_nr(&W->mm, p), s, d, Z16_DATA(s));
	}
}

static void z16_thread(void *w, unsigned tid)
{
	static void (*const handler[Z16_NR_OPS])(struct z16_world *, unsigned, unsigned) = {
		[Z16_OP_FILL] = z16_fill, [Z16_OP_READ] = z16_read };
	struct z16_world *W = w;

	WEFT_RUN_OPS(W, tid, W->ops[tid], W->nr_ops[tid], "z16 workload op", handler, Z16_NR_OPS);
}

/* ------------------------------------------------------------- audits */

static unsigned z16_owners(const struct weft_mm *mm, const struct weft_page *p, void *ctx)
{
	const struct z16_world *W = ctx;
	unsigned n = 0;

	(void)mm;
	for (unsigned s = 0; s < Z16_SLOTS; s++)
		n += W->slot[s] == p;
	return n;
}

static void z16_quiesce(void *w)
{
	struct z16_world *W = w;

	/* an uptodate page holds its contents once every store is visible */
	for (unsigned s = 0; s < Z16_SLOTS; s++) {
		const struct weft_page *p = W->slot[s];
		if (weft_page_peek_flag(p, uptodate) && weft_peek(p->data) != Z16_DATA(s)) {
			weft_report(WEFT_KIND_DATA_LOSS, &p->data,
				    WEFT_SITE(WEFT_EV_NOTE, "audit: an uptodate page's contents"),
				    "page in slot %u is uptodate with contents %#x", s,
				    weft_peek(p->data));
			return;
		}
	}
	weft_mm_audit_leaks(&W->mm, z16_owners, W);
}

/* ------------------------------------------------- describe, buckets */

static void z16_describe(const void *w, uint32_t off, char *buf, size_t n)
{
	const struct z16_world *W = w;

	weft_mm_describe(&W->mm, w, off, buf, n);
}

WEFT_MM_STATS_FN(z16, Z16)

static uint32_t z16_state_bucket(const void *w, uint32_t off)
{
	const struct z16_world *W = w;

	return weft_mm_state_bucket(&W->mm, w, off);
}

static const char *const z16_opnames[Z16_NR_OPS] = { "fill", "read" };

static const char *const z16_files[] = {
	"z16_page_uptodate.c", "mm_page.c", "page.h", NULL,
};

static const struct weft_variant z16_variants[Z16_NR_VARIANTS] = {
	{ "z16", "Z16", true,
	  "SetPageUptodate() without smp_wmb(), PageUptodate() without smp_rmb(): a lockless "
	  "reader sees the flag and stale contents",
	  "N. Piggin, \"mm: fix PageUptodate data race\" (0ed361dec369, v2.6.27, 2008); "
	  "mm/filemap.c do_generic_file_read() v2.6.26",
	  WEFT_KIND_DATA_LOSS, 0, Z16_V_BUGGY },
	{ "wmb-only", "Z16-wmb-only", true,
	  "smp_wmb() before the flag, no smp_rmb() after its test: the reader's loads still "
	  "reorder",
	  "\"mm: fix PageUptodate data race\", the writer's half", WEFT_KIND_DATA_LOSS, 0,
	  Z16_V_WMB_ONLY },
	{ "fix", "Z16-fix", false, "smp_wmb() in SetPageUptodate(), smp_rmb() in PageUptodate()",
	  "\"mm: fix PageUptodate data race\" (v2.6.27)", WEFT_KIND_NONE, 0, Z16_V_FIX },
};

/*
 * Trigger (a version-2 genome asking for lkmm; clean under tso and sc):
 * T0 `fill 0`; T1 `read 0`, the serial schedule; the reader's load of the
 * contents (the execution's 4th weak choice: the fill's store, the flag's
 * set_bit() (its write may stay buffered) and the flag's test asked
 * before it) reads the older version (code 1).
 */
WEFT_SCENARIO_ONE_TRIGGER(z16, Z16_NR_VARIANTS,
	WEFT_GENOME_V2_SERIAL(WEFT_MEM_LKMM),
	2,                      /* ops */
	0x00 | Z16_OP_FILL, 0x00, 0x10 | Z16_OP_READ, 0x00,
	3, 0x80, 0x80 | 1,      /* weak choice 3 (from 0): the older version */
);

const struct weft_scenario weft_scn_z16_page_uptodate = {
	.name = "z16-page-uptodate",
	.summary = "Z16: PageUptodate seen before the page's contents (SetPageUptodate()/"
		   "PageUptodate() without smp_wmb()/smp_rmb(): message passing, weak memory)",
	.source = "mm/filemap.c do_generic_file_read() v2.6.26; \"mm: fix PageUptodate data "
		  "race\" (2008)",
	WEFT_SCENARIO_ZOO(z16, Z16, 2, 1024, 1),
	.memory = WEFT_MEM_LKMM,
};
