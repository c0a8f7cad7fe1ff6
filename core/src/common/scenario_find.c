/*
 * scenario_find.c - lookup by "scenario[:variant]" in a registry table.
 * The table itself belongs to the program (core/registry/registry.c here,
 * WEFT_DEFINE_REGISTRY() in an out-of-tree model), which defines
 * weft_scenario_find() on top of this. libweft keeps no reference to the
 * table, so static link order never matters.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <weft/weft.h>

const struct weft_scenario *weft_scenario_lookup(const struct weft_scenario *const *tab,
						 unsigned nr, const char *spec,
						 unsigned *vi)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

	for (unsigned i = 0; i < nr; i++) {
		const struct weft_scenario *sc = tab[i];
		if (strlen(sc->name) != n || strncmp(sc->name, spec, n))
			continue;
		if (!colon || !colon[1]) {
			*vi = 0;
			return sc;
		}
		for (unsigned v = 0; v < sc->nr_variants; v++)
			if (!strcmp(sc->variants[v].name, colon + 1)) {
				*vi = v;
				return sc;
			}
		return NULL;
	}
	/* a bare variant name that is unique across scenarios ("z1a") */
	if (!colon) {
		const struct weft_scenario *hit = NULL;
		unsigned hv = 0, hits = 0;
		for (unsigned i = 0; i < nr; i++)
			for (unsigned v = 0; v < tab[i]->nr_variants; v++)
				if (!strcmp(tab[i]->variants[v].name, spec) ||
				    (tab[i]->variants[v].zoo &&
				     !strcasecmp(tab[i]->variants[v].zoo, spec))) {
					hit = tab[i];
					hv = v;
					hits++;
				}
		if (hits == 1) {
			*vi = hv;
			return hit;
		}
	}
	return NULL;
}

int weft_scenario_check(const struct weft_scenario *sc, char *why, size_t n)
{
#define BAD(...) (snprintf(why, n, __VA_ARGS__), WEFT_EINVAL)
	if (!sc->name || !*sc->name)
		return BAD("the scenario has no name");
	if (sc->nr_threads == 0 || sc->nr_threads > WEFT_MAX_THREADS)
		return BAD("nr_threads is %u; Weft runs 1 to %d threads (WEFT_MAX_THREADS)",
			   sc->nr_threads, WEFT_MAX_THREADS);
	if (sc->nr_threads + sc->nr_irqs > WEFT_EXEC_MAX_THREADS)
		return BAD("%u threads and %u interrupt handlers: at most %d together",
			   sc->nr_threads, sc->nr_irqs, WEFT_EXEC_MAX_THREADS);
	if (sc->nr_cpus == 0 || sc->nr_cpus > WEFT_EXEC_MAX_CPUS)
		return BAD("nr_cpus is %u; Weft runs 1 to %d CPUs", sc->nr_cpus,
			   WEFT_EXEC_MAX_CPUS);
	if (sc->cpu_of)
		for (unsigned t = 0; t < sc->nr_threads; t++)
			if (sc->cpu_of[t] >= sc->nr_cpus)
				return BAD("cpu_of[%u] is %u, not below nr_cpus (%u)", t,
					   sc->cpu_of[t], sc->nr_cpus);
	if (!sc->thread)
		return BAD("the scenario has no thread function");
	if (!sc->variants || sc->nr_variants == 0)
		return BAD("the scenario has no variants (nr_variants is 0)");
	if (sc->max_ops > WEFT_MAX_OPS)
		return BAD("max_ops is %u; at most %d operations per thread (WEFT_MAX_OPS)",
			   sc->max_ops, WEFT_MAX_OPS);
	if (sc->nr_opcodes > 16)
		return BAD("nr_opcodes is %u; at most 16", sc->nr_opcodes);
	if (sc->heap_size > WEFT_HEAP_MAX)
		return BAD("heap_size is %zu bytes; at most %u", sc->heap_size, WEFT_HEAP_MAX);
	if (sc->heap_size && sc->world_ops)
		return BAD("heap_size with world_ops: a program's world has its own heap (malloc)");
	/* a fix that expects a bug kind is a table with its columns swapped */
	for (unsigned v = 0; v < sc->nr_variants; v++)
		if (!sc->variants[v].buggy && sc->variants[v].expect_kind != WEFT_KIND_NONE)
			return BAD("variant %s is a fix (buggy is false) but expects the bug kind "
				   "%s: set buggy, or expect WEFT_KIND_NONE",
				   sc->variants[v].name ? sc->variants[v].name : "(no name)",
				   weft_kind_name(sc->variants[v].expect_kind));
	return 0;
#undef BAD
}
