/*
 * replay_cli.h - what the replay subcommands share (cmd_replay.c,
 * cmd_min.c, cmd_import.c, cmd_export.c, cmd_info.c), and the one entry
 * point other commands call on a finding (weft run --out, weft fuzz).
 */
#ifndef WEFT_REPLAY_CLI_H
#define WEFT_REPLAY_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <weft/weft.h>

#include <weft/replay.h>

#include "cli.h"

/*
 * Minimize a failing bytes input on (sc, vi, lock), store it as a .weft in
 * outdir (never overwriting), re-read the stored file and replay it, print
 * before -> after, the race diagram, the artifact path and the replay
 * command (or one JSON object). Returns WEFT_EXIT_BUG when the crash
 * reproduces and was stored, WEFT_EXIT_CLEAN when the input does not fail,
 * WEFT_EXIT_IO or WEFT_EXIT_DESYNC on errors. path (may be NULL) receives
 * the artifact's path.
 */
int weft_cli_import(const struct weft_run_opts *o, const uint8_t *in, size_t len,
		    const char *outdir, const char *strategy, bool json, FILE *out, char *pathout,
		    size_t pathn);
/* weft_cli_import of a raw fuzzer input (a crash file): one of 0 or 1
 * bytes runs as the fresh genome the fuzz targets ran (weft_raw_input);
 * prints to stdout. A .weft file's own raw input goes to weft_cli_import
 * as it is: there an empty input is the serial run it recorded. */
int weft_cli_import_raw(const struct weft_run_opts *o, const uint8_t *in, size_t len,
			const char *outdir, const char *strategy, bool json);

/*
 * A finding of weft run: the machine's last execution is its recorded
 * re-run (weft_check_determinism). Minimizes and stores the input through
 * weft_cli_import; when the schedule does not fit the bytes encoding
 * (in_len 0 and non-default decisions), stores the execution itself,
 * unminimized. Same return codes as weft_cli_import.
 */
int weft_cli_store_finding(const struct weft_run_opts *o, const struct weft_exec_result *r,
			   const char *strategy, const uint8_t *in, size_t len,
			   const char *outdir, FILE *out, char *path, size_t pathn);

/*
 * weft min of a .weft whose execution the bytes encoding cannot express
 * (its store delays under --memory tso|lkmm): minimizes the machine's last
 * execution r (the file re-run under the replay strategy) and stores it,
 * as weft_cli_store_finding does, printing as weft_cli_import (json: one
 * object). Same return codes.
 */
int weft_cli_min_execution(const struct weft_run_opts *o, const struct weft_exec_result *r,
			   const char *strategy, const char *outdir, bool json, FILE *out);

/* Load FILE or print why (exit code in *exit_code); 0 on success. */
int weft_cli_load(const char *path, struct weft_replay *rf, int *exit_code);

/* cli_parse_args() of a command on one replay file, then
 * weft_cli_load() of it into rf. Returns 0, or the exit code. */
int cli_parse_load(const char *cmd, int argc, char **argv, const struct cli_flag *flags,
		   const char **file, struct weft_replay *rf);
/* weft_race_diagram of the last execution. */
void weft_cli_diagram(FILE *f, const struct weft_scenario *sc, unsigned vi,
		      enum weft_lock_model lock, const struct weft_exec_result *r, bool full);

#endif
