/*
 * mp.c - a message-passing model for tests/packaging/check_model_memory.sh:
 * its bug shows only under a weak memory model, and its scenario does not
 * say so (no .memory: the registry runs it under sc unless told).
 *
 * T0 writes data, then flag; T1 reads flag, then data, and reports a
 * data loss if it saw the flag but not the data. "nobar" (buggy): nothing
 * orders the writes or the reads, so under lkmm the flag may be seen
 * before the data; "wmb" (fixed): smp_wmb() between the writes and
 * smp_rmb() between the reads.
 */
#include <weft/kernel.h>
#include <weft/scenario.h>

enum { V_NOBAR, V_WMB };

struct mp_world {
	unsigned variant;
	int data, flag;
};

static void mp_setup(void *w, unsigned variant, const struct weft_workload *wl)
{
	struct mp_world *W = w;

	(void)wl;
	W->variant = variant;
}

static void mp_thread(void *w, unsigned tid)
{
	struct mp_world *W = w;

	if (tid == 0) {
		WRITE_ONCE(W->data, 42);
		if (W->variant == V_WMB)
			smp_wmb();
		WRITE_ONCE(W->flag, 1);
		return;
	}
	if (!READ_ONCE(W->flag))
		return;
	if (W->variant == V_WMB)
		smp_rmb();
	if (READ_ONCE(W->data) != 42)
		weft_report(WEFT_KIND_DATA_LOSS, &W->data,
			    WEFT_SITE(WEFT_EV_NOTE, "mp: flag seen, data not"),
			    "flag set but data %d", READ_ONCE(W->data));
}

static const struct weft_field mp_fields[] = {
	WEFT_FIELD(struct mp_world, data, "data"),
	WEFT_FIELD(struct mp_world, flag, "flag"),
	{ 0, NULL },
};
static const char *const mp_ops[] = { "none" };
static const char *const mp_files[] = { "mp.c", NULL };
static const struct weft_variant mp_variants[] = {
	{ "nobar", NULL, true, "no barriers", "packaging test", WEFT_KIND_DATA_LOSS, 0, V_NOBAR },
	{ "wmb", NULL, false, "smp_wmb() and smp_rmb()", "packaging test", WEFT_KIND_NONE, 0,
	  V_WMB },
};
static const struct weft_scenario pkg_mp = {
	WEFT_SCENARIO_PLAIN("pkg-mp", "message passing, buggy only under weak memory",
			    "packaging test", 2, 2, sizeof(struct mp_world), 1, mp_ops, 0, 16,
			    mp_files, mp_setup, mp_thread, mp_variants),
	.fields = mp_fields,
};
WEFT_DEFINE_REGISTRY(&pkg_mp);
