/*
 * families.c - all the machine knows of primitives/: the table of the
 * families' hooks (sched.h, struct weft_family; families.def) and the size
 * of their state in the core area after the world (core_state.h).
 */
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
