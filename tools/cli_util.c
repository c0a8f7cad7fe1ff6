/*
 * cli_util.c - argument and output helpers shared by weft and weft-stress
 * (nothing here touches the controlled machine).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("weft: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return WEFT_EXIT_USAGE;
}

int cli_io_error(const char *fmt, ...)
{
	va_list ap;

	fputs("weft: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return WEFT_EXIT_IO;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool cli_parse_double(const char *s, double *out)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || v < 0)
		return false;
	*out = v;
	return true;
}

long cli_hex_decode(const char *hex, uint8_t *buf, size_t cap)
{
	size_t n = strlen(hex), k = 0;

	if (n % 2)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		unsigned v;
		char two[3] = { hex[i], hex[i + 1], 0 };
		char *end;
		if (k == cap)
			return -1;
		v = (unsigned)strtoul(two, &end, 16);
		if (*end)
			return -1;
		buf[k++] = (uint8_t)v;
	}
	return (long)k;
}

void cli_hex_print(FILE *f, const uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", buf[i]);
}

long cli_read_file(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, cap, f);
	if (ferror(f) || (n == cap && fgetc(f) != EOF)) {
		fclose(f);
		errno = EFBIG;
		return -1;
	}
	fclose(f);
	return (long)n;
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

const struct weft_scenario *cli_scenario(const char *spec, unsigned *vi)
{
	const struct weft_scenario *sc = weft_scenario_find(spec, vi);

	if (!sc) {
		fprintf(stderr, "weft: no scenario or variant '%s'; known:\n", spec);
		for (unsigned i = 0; i < weft_nr_scenarios; i++)
			for (unsigned v = 0; v < weft_scenarios[i]->nr_variants; v++)
				fprintf(stderr, "  %s:%s\n", weft_scenarios[i]->name,
					weft_scenarios[i]->variants[v].name);
	}
	return sc;
}

bool cli_parse_lock(const char *s, enum weft_lock_model *out)
{
	if (!s)
		return false;
	if (!strcmp(s, "tas")) {
		*out = WEFT_LOCK_TAS;
		return true;
	}
	if (!strcmp(s, "ticket")) {
		*out = WEFT_LOCK_TICKET;
		return true;
	}
	return false;
}

