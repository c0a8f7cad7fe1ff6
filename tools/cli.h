/*
 * cli.h - what the weft subcommands share: option parsing helpers, hex and
 * JSON output, exit codes (WEFT_EXIT_* in weft.h), the command table.
 */
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <weft/weft.h>

/* Every subcommand: int cmd_NAME(int argc, char **argv) with argv[0] the
 * subcommand name; returns a WEFT_EXIT_* code. */
#define X(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef X

/* Prints "weft: msg" to stderr and returns WEFT_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "weft: msg" to stderr and returns WEFT_EXIT_IO. */
int cli_io_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict number parsing: the whole string, in range. false on error. */
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_parse_double(const char *s, double *out);

/* Hex: parse into buf (cap), return length or -1; print lowercase. */
long cli_hex_decode(const char *hex, uint8_t *buf, size_t cap);
void cli_hex_print(FILE *f, const uint8_t *buf, size_t n);

/* A whole file into memory (at most cap bytes; bigger is an error). */
long cli_read_file(const char *path, uint8_t *buf, size_t cap);

/* JSON string with escapes. */
void cli_json_str(FILE *f, const char *s);

/* Resolve "scenario[:variant]" or print the list of names and fail. */
const struct weft_scenario *cli_scenario(const char *spec, unsigned *vi);

/* Parse "--lock tas|ticket". */
bool cli_parse_lock(const char *s, enum weft_lock_model *out);

/* Print model counters (scenario->stats) of the last execution. */
void cli_print_stats(FILE *f, const struct weft_scenario *sc, bool json);

#endif
