/*
 * program_info.c - what libweft knows of an instrumented program (rt/):
 * the lookup of the sites it makes at run time and its identity (path,
 * build id, arguments), which replay files record. Both are empty in a
 * model's program.
 */
#include <weft/weft.h>

static const struct weft_site *(*dynamic_by_id)(uint32_t id);
static const struct weft_program *self;

void weft_dynamic_sites(const struct weft_site *(*by_id)(uint32_t id))
{
	dynamic_by_id = by_id;
}

const struct weft_site *weft_dynamic_site(uint32_t id)
{
	return dynamic_by_id && id ? dynamic_by_id(id) : NULL;
}

const struct weft_program *weft_program_self(void)
{
	return self;
}

void weft_program_set(const struct weft_program *p)
{
	self = p;
}
