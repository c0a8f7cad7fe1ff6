/*
 * cli_util.c - argument and output helpers shared by weft and weft-stress
 * (nothing here touches the controlled machine).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

const char *cli_prog = "weft";

void cli_set_prog(const char *argv0)
{
	const char *b;

	if (!argv0 || !*argv0)
		return;
	b = strrchr(argv0, '/');
	b = b ? b + 1 : argv0;
	if (*b)
		cli_prog = b;
}

void cli_print_help(FILE *f, const char *text)
{
	for (const char *p = text; *p; p++) {
		/* "weft " at the start of a word: the program's name */
		if (!strncmp(p, "weft ", 5) && (p == text || p[-1] == ' ' || p[-1] == '\n' ||
						p[-1] == '(' || p[-1] == '`')) {
			fputs(cli_prog, f);
			fputc(' ', f);
			p += 4;
			continue;
		}
		fputc(*p, f);
	}
}

const char *cli_plural(char *buf, size_t n, unsigned long long count, const char *noun)
{
	snprintf(buf, n, "%llu %s%s", count, noun, count == 1 ? "" : "s");
	return buf;
}

const char *cli_found_or_stopped(int kind)
{
	return kind == WEFT_KIND_LIMIT ? "stopped" : "found";
}

void cli_print_limit_note(int kind)
{
	if (kind == WEFT_KIND_LIMIT)
		printf("no verdict: the execution reached a limit of Weft's, not a bug of the "
		       "program (exit code 1 all the same: the search did not finish)\n");
}

int cli_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("weft: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n", stderr);
	va_end(ap);
	return code;
}

int cli_operand(const char *cmd, const char *a, const char **operand)
{
	if (a[0] == '-')
		return cli_usage_error("%s: unknown flag '%s' (%s help %s)", cmd, a, cli_prog, cmd);
	if (*operand)
		return cli_usage_error("%s: unexpected argument '%s'", cmd, a);
	*operand = a;
	return 0;
}

bool cli_flag_take(const char *cmd, const struct cli_flag *flags, int argc, char **argv, int *i,
		   int *rc)
{
	const char *a = argv[*i];
	const struct cli_flag *f = flags;

	while (f->name && strcmp(f->name, a) && !(f->alias && !strcmp(f->alias, a)))
		f++;
	if (!f->name)
		return false;
	*rc = 0;
	if (f->on)
		*f->on = true;
	else if (*i + 1 >= argc)
		*rc = cli_usage_error("%s: %s needs a value", cmd, a);
	else
		*f->value = argv[++*i];
	return true;
}

int cli_parse_args(const char *cmd, int argc, char **argv, const struct cli_flag *flags,
		   const char *need, const char **arg)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;
		if (cli_flag_take(cmd, flags, argc, argv, &i, &rc)) {
			if (rc)
				return rc;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("%s: unknown flag '%s' (%s help %s)", cmd, a, cli_prog,
					       cmd);
		} else if (!*arg) {
			*arg = a;
		} else {
			return cli_usage_error("%s: unexpected argument '%s'", cmd, a);
		}
	}
	if (need && !*arg)
		return cli_usage_error("%s: which %s? (%s help %s)", cmd, need, cli_prog, cmd);
	return 0;
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

long cli_workload_decode(const char *hex, uint8_t *buf, size_t cap, char *why, size_t whyn)
{
	long n = cli_hex_decode(hex, buf, cap);

	if (n < 0) {
		snprintf(why, whyn, "is not hex of at most %zu bytes", cap);
		return -1;
	}
	if (n == 0)
		return 0;
	size_t want = 1 + 2 * (size_t)buf[0];
	if ((size_t)n != want) {
		snprintf(why, whyn,
			 "declares %u operation%s (first byte %02x) and so needs 1 + 2 x %u = %zu "
			 "bytes, but has %ld",
			 buf[0], buf[0] == 1 ? "" : "s", buf[0], buf[0], want, n);
		return -1;
	}
	return n;
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

	if (!sc && strchr(spec, '/')) {
		/* No scenario name has a '/': this was meant as a program
		 * (cli_program_handoff() takes every executable regular file
		 * with a '/' before a command gets here), so say what is wrong
		 * with the path instead of listing scenarios. */
		static const char hint[] = "a program to test is an executable built by "
					   "weft-cc: docs/testing-c-programs.md; scenarios "
					   "are NAME:VARIANT: weft list";
		struct stat st;
		if (stat(spec, &st) != 0)
			fprintf(stderr, "weft: %s: %s (%s)\n", spec, strerror(errno), hint);
		else
			fprintf(stderr, "weft: %s is not an executable program (%s)\n", spec, hint);
		return NULL;
	}
	if (!sc) {
		fprintf(stderr, "weft: no scenario or variant '%s'; known:\n", spec);
		for (unsigned i = 0; i < weft_nr_scenarios; i++)
			for (unsigned v = 0; v < weft_scenarios[i]->nr_variants; v++)
				fprintf(stderr, "  %s:%s\n", weft_scenarios[i]->name,
					weft_scenarios[i]->variants[v].name);
		return NULL;
	}
	char why[160];
	if (weft_scenario_check(sc, why, sizeof(why))) {
		fprintf(stderr, "weft: scenario '%s' cannot run: %s\n", sc->name, why);
		return NULL;
	}
	return sc;
}

const struct weft_scenario *cli_operand_scenario(const char *cmd, const char *noun,
						 const char *spec, unsigned *vi)
{
	if (!spec) {
		cli_usage_error("%s: which %s? (%s list)", cmd, noun, cli_prog);
		return NULL;
	}
	return cli_scenario(spec, vi);
}

const struct weft_scenario *cli_scenario_lock(const char *cmd, const char *spec,
					      const char *lock_s, unsigned *vi,
					      enum weft_lock_model *lock, int *rc)
{
	const struct weft_scenario *sc = cli_scenario(spec, vi);

	*rc = WEFT_EXIT_USAGE;
	if (!sc)
		return NULL;
	*lock = sc->default_lock;
	if (lock_s && !cli_parse_lock(lock_s, lock)) {
		*rc = cli_usage_error("%s: --lock takes tas or ticket, not '%s'", cmd, lock_s);
		return NULL;
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

bool cli_parse_kinds(const char *s, uint64_t *mask, char *bad, size_t badn)
{
	char buf[256];

	*mask = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		enum weft_kind kk = weft_kind_from_name(k);
		if (kk == WEFT_KIND_NONE) {
			snprintf(bad, badn, "%s", k);
			return false;
		}
		*mask |= 1ull << kk;
	}
	if (!*mask)
		snprintf(bad, badn, "%s", s);
	return *mask != 0;
}

void cli_continue_past_warnings(struct weft_run_opts *o, uint64_t want)
{
	if (!want || !(WEFT_WARNING_KINDS & ~want))
		return;
	o->checks |= WEFT_CHECK_CONTINUE_WARNINGS;
	o->continue_kinds = weft_continue_kinds(o->checks, want);
}
