/*
 * families.c - all the machine knows of primitives/: the table of the
 * families' hooks (sched.h, struct weft_family; families.def) and the size
 * of their state in the core area after the world (core_state.h), and
 * that area's parts by family (the dependence audit names them).
 */
#include <stddef.h>

#include "core_state.h"
#include "sched.h"

#define X(name) extern const struct weft_family weft_family_##name;
#include "families.def"
#undef X

#define X(name) &weft_family_##name,
const struct weft_family *const weft_families[] = {
#include "families.def"
};
#undef X

const unsigned weft_nr_families = sizeof(weft_families) / sizeof(weft_families[0]);
const uint32_t weft_core_size = sizeof(struct weft_core_state);
const uint32_t weft_core_rd_off = offsetof(struct weft_core_state, rcu.rd);
const uint32_t weft_core_rd_size = sizeof(((struct weft_core_state *)0)->rcu.rd);
const uint32_t weft_core_freed_off = offsetof(struct weft_core_state, rcu.cb_queued);
const uint32_t weft_core_freed_size =
	sizeof(struct weft_rcu_core) - offsetof(struct weft_rcu_core, cb_queued);

#define FIELD_OFF(field) offsetof(struct weft_core_state, field)
#define FIELD_SIZE(field) sizeof(((struct weft_core_state *)0)->field)
#define REGION(name, field) { name, FIELD_OFF(field), FIELD_SIZE(field), 0, 0, NULL }
#define ALIAS(name, field, alias, why) \
	{ name, FIELD_OFF(field), FIELD_SIZE(field), FIELD_OFF(alias), FIELD_SIZE(alias), why }
/* First match wins: the aliased parts of a family before the family. */
const struct weft_core_region weft_core_regions[] = {
	ALIAS("rcu (nr_readers)", rcu.nr_readers, rcu,
	      "counts the rd[t] in a section: changes only with an rd[t] (recorded); its "
	      "one reader, a free (rcu_freed()), records all of the RCU state"),
	ALIAS("rcu (bk: bookkeeping)", rcu.bk, rcu,
	      "read by reports and by a free (rcu_freed()), which records all of the RCU state"),
	ALIAS("rcu (gpw: grace periods)", rcu.gpw, rcu.rd,
	      "synchronize_rcu()'s snapshot, recorded as its BLOCKED and ACQUIRE of all "
	      "of rd[]; read by the rcu_read_unlock()s that end it, recorded on rd[t]"),
	{ "rcu (cb: callbacks)", FIELD_OFF(rcu.cb), FIELD_SIZE(rcu.cb), FIELD_OFF(rcu.rd),
	  FIELD_OFF(rcu.nr_readers) - FIELD_OFF(rcu.rd),
	  "the callback ring: queued and taken by steps that record the queue words "
	  "(cb_queued, cb_done, kthread), its grace periods moved by the rcu_read_unlock()s "
	  "that end them (recorded on rd[t]); the kthread's batch records both" },
	REGION("rcu", rcu),
	REGION("workqueue (wq_pool)", wq_pool),
	REGION("timer (timer_base)", timer_base),
	REGION("timer (timer_jiffies)", timer_jiffies),
	REGION("timer (sleep_timer)", sleep_timer),
	REGION("kthread (task)", task),
	REGION("wait_bit (wait_bit_queued)", wait_bit_queued),
	REGION("workqueue (wq_unbound_pool)", wq_unbound_pool),
	REGION("workqueue (wq_alloc)", wq_alloc),
};
#undef ALIAS
#undef REGION
#undef FIELD_SIZE
#undef FIELD_OFF
const unsigned weft_nr_core_regions = sizeof(weft_core_regions) / sizeof(weft_core_regions[0]);
