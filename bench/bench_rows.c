/*
 * bench_rows.c - what every section of `weft bench` shares: the Markdown
 * page and the JSON document being written and their cell formats, the
 * variants of `weft list`, and which rows and sections this run takes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_fuzz.h"
#include "harness.h"

FILE *bench_md_out, *bench_js_out;
static bool js_first;        /* first element of the current JSON array */

void bench_js_sep(void)
{
	fprintf(js, "%s\n    ", js_first ? "" : ",");
	js_first = false;
}

void bench_js_num(const char *key, double v, bool comma)
{
	if (isfinite(v) && v >= 0)
		fprintf(js, "\"%s\": %.6g%s", key, v, comma ? ", " : "");
	else
		fprintf(js, "\"%s\": null%s", key, comma ? ", " : "");
}

void bench_js_kstr(const char *key, const char *v, bool comma)
{
	fprintf(js, "\"%s\": ", key);
	if (v)
		cli_json_str(js, v);
	else
		fprintf(js, "null");
	if (comma)
		fprintf(js, ", ");
}

void bench_js_variant_row(const char *scenario, const char *variant)
{
	bench_js_sep();
	fprintf(js, "{");
	bench_js_kstr("scenario", scenario, true);
	bench_js_kstr("variant", variant, true);
}

void bench_js_section(const char *name)
{
	fprintf(js, ",\n  \"%s\": [", name);
	js_first = true;
}

void bench_js_end_section(void)
{
	fprintf(js, "\n  ]");
}

/* A number for the markdown table: "-" when unknown. */
const char *bench_fmt_num(char *buf, size_t n, double v, int prec)
{
	if (!isfinite(v) || v < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.*f", prec, v);
	return buf;
}

const char *bench_fmt_si(char *buf, size_t n, double v)
{
	if (!isfinite(v) || v < 0)
		snprintf(buf, n, "-");
	else if (v >= 1e9)
		snprintf(buf, n, "%.2f G", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, n, "%.2f M", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, n, "%.1f k", v / 1e3);
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

const char *bench_fmt_secs(char *buf, size_t n, double v)
{
	if (!isfinite(v) || v < 0)
		snprintf(buf, n, "-");
	else if (v < 1e-3)
		snprintf(buf, n, "%.1f µs", v * 1e6);
	else if (v < 1)
		snprintf(buf, n, "%.1f ms", v * 1e3);
	else
		snprintf(buf, n, "%.2f s", v);
	return buf;
}

struct bvariant bench_vars[MAX_VARIANTS];
unsigned bench_nr_vars;

int bench_load_variants(void)
{
	struct argv_buf a;
	struct child c;

	bench_av_init(&a, bench_self);
	bench_av_add(&a, "list");
	bench_av_add(&a, "--json");
	if (bench_run_child(a.v, 30, false, &c))
		return -1;
	struct jnode *n = bench_child_json(&c);
	bench_child_free(&c);
	if (!n || n->t != J_ARR) {
		bench_jfree(n);
		return -1;
	}
	for (const struct jnode *k = n->kid; k && bench_nr_vars < MAX_VARIANTS; k = k->next) {
		const char *s = bench_jstr(k, "scenario"), *v = bench_jstr(k, "variant"),
			   *e = bench_jstr(k, "expect"), *z = bench_jstr(k, "zoo"), *kind = bench_jstr(k, "kind");
		if (!s || !v || !e)
			continue;
		struct bvariant *b = &bench_vars[bench_nr_vars++];
		snprintf(b->scenario, sizeof(b->scenario), "%s", s);
		snprintf(b->variant, sizeof(b->variant), "%s", v);
		snprintf(b->zoo, sizeof(b->zoo), "%s", z ? z : "");
		snprintf(b->kind, sizeof(b->kind), "%s", kind ? kind : "");
		b->buggy = !strcmp(e, "bug");
	}
	bench_jfree(n);
	return 0;
}

bool bench_have_zoo(void)
{
	for (unsigned i = 0; i < bench_nr_vars; i++)
		if (bench_vars[i].zoo[0])
			return true;
	return false;
}

struct bench_settings bench_settings;

/* Why a row of this kind is not run, or NULL. */
const char *bench_skip_kind(enum skind k)
{
	return bench_skip_row(k, NULL, 0);
}

/* Why this row is not run, or NULL. arg: the fuzz engine. */
const char *bench_skip_row(enum skind k, const char *engine, unsigned param)
{
	if (B.quick && k == S_FUZZ && param)
		return "--quick runs libFuzzer with feedback only";
	if (B.quick && engine && !strcmp(engine, "afl"))
		return "--quick runs AFL++ for throughput only (its start-up costs seconds)";
	if ((k == S_FUZZ || k == S_STRESS) && B.no_engines)
		return "disabled by --no-engines";
	if (k == S_FUZZ && !B.have_fuzz)
		return "this weft has no `fuzz` subcommand yet";
	return NULL;
}

/* Is section name in --sections (or are all on)? */
bool bench_section_on(const char *name)
{
	size_t n = strlen(name);

	if (!B.sections)
		return true;
	for (const char *p = B.sections; (p = strstr(p, name)); p += n)
		if ((p == B.sections || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return true;
	return false;
}

bool bench_only_match(const char *only, const char *scenario, const char *variant)
{
	char spec[140];
	size_t ns = strlen(scenario), nv = strlen(variant);

	snprintf(spec, sizeof(spec), "%s:%s", scenario, variant);
	for (const char *p = only; *p;) {
		size_t n = strcspn(p, ",");
		if ((n == ns && !strncmp(p, scenario, n)) || (n == nv && !strncmp(p, variant, n)) ||
		    (n == strlen(spec) && !strncmp(p, spec, n)))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* Is this variant in the per-variant sections? */
bool bench_selected(const struct bvariant *v)
{
	if (B.only)
		return bench_only_match(B.only, v->scenario, v->variant);
	/* the zoo once it exists (demos stand in before; --all: both) */
	if (!B.all && bench_have_zoo())
		return v->zoo[0] != 0;
	return true;
}
