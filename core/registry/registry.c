/*
 * registry.c - the explicit list of scenarios (scenarios.def). No
 * constructor self-registration: the list is the build's inventory, in a
 * stable order. The lookup is weft_scenario_lookup() in libweft; an
 * out-of-tree model defines all of this with WEFT_DEFINE_REGISTRY().
 */
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
	return weft_scenario_lookup(weft_scenarios, weft_nr_scenarios, spec, vi);
}
