/*
 * percpu_slot.c - the bound of a per-CPU array (both builds): WEFT_PER_CPU
 * arrays and the kit's per-CPU batches hold WEFT_MAX_CPUS entries, while a
 * scenario may declare up to WEFT_EXEC_MAX_CPUS CPUs. A CPU past an array's
 * end is reported, never read or written past it (a neighbour field of the
 * world would silently change).
 */
#include <weft/kernel.h>

static struct weft_site slot_site = { __FILE__, "weft_percpu_slot",
	"per-CPU array indexed by a CPU it has no entry for", __LINE__, WEFT_EV_NOTE, 0, 0 };

unsigned weft_percpu_slot(unsigned cpu, size_t n)
{
	if (__builtin_expect(cpu < n, 1))
		return cpu;
	weft_report(WEFT_KIND_ASSERT, NULL, &slot_site,
		    "CPU %u has no entry in a per-CPU array of %zu (WEFT_PER_CPU and the kit's "
		    "per-CPU data hold WEFT_MAX_CPUS = %d; the scenario declares more CPUs)",
		    cpu, n, WEFT_MAX_CPUS);
	return 0;   /* from setup or an audit: the report is recorded, slot 0 used */
}
