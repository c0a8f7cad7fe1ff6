/*
 * program_info.c - what libweft knows of an instrumented program (rt/):
 * the lookup of the sites it makes at run time, the call stacks of its
 * reports and its identity (path, build id, arguments), which replay files
 * record. All are empty in a model's program.
 */
#include <weft/weft.h>

static const struct weft_site *(*dynamic_by_id)(uint32_t id);
static const struct weft_program *self;
static void (*stack_source)(int tid, char *buf, size_t n);

void weft_report_stack_source(void (*fn)(int tid, char *buf, size_t n))
{
	stack_source = fn;
}

void weft_report_stack_of(int tid, char *buf, size_t n)
{
	buf[0] = 0;
	if (stack_source)
		stack_source(tid, buf, n);
}

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
