/*
 * registry.c - the explicit list of scenarios (scenarios.def), and lookup
 * by "scenario[:variant]". No constructor self-registration: the list is
 * the build's inventory, in a stable order.
 */
#include <string.h>
#include <strings.h>

#include <weft/weft.h>

#define X(sym) extern const struct weft_scenario weft_scn_##sym;
#include "scenarios.def"
#undef X

const struct weft_scenario *const weft_scenarios[] = {
#define X(sym) &weft_scn_##sym,
#include "scenarios.def"
#undef X
};

const unsigned weft_nr_scenarios = sizeof(weft_scenarios) / sizeof(weft_scenarios[0]);

const struct weft_scenario *weft_scenario_find(const char *spec, unsigned *vi)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

	for (unsigned i = 0; i < weft_nr_scenarios; i++) {
		const struct weft_scenario *sc = weft_scenarios[i];
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
		for (unsigned i = 0; i < weft_nr_scenarios; i++)
			for (unsigned v = 0; v < weft_scenarios[i]->nr_variants; v++)
				if (!strcmp(weft_scenarios[i]->variants[v].name, spec) ||
				    (weft_scenarios[i]->variants[v].zoo &&
				     !strcasecmp(weft_scenarios[i]->variants[v].zoo, spec))) {
					hit = weft_scenarios[i];
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
