/*
 * scenario_find.c - lookup by "scenario[:variant]" in a registry table.
 * The table itself belongs to the program (core/registry/registry.c here,
 * WEFT_DEFINE_REGISTRY() in an out-of-tree model), which defines
 * weft_scenario_find() on top of this. libweft keeps no reference to the
 * table, so static link order never matters.
 */
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
