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

/* `weft COMMAND ARGS...` (argv[0] the program): the subcommand's exit code. */
int weft_cli_main(int argc, char **argv);

/* cli_program.c: a target or replay file of an instrumented program
 * hands the command to that program (exec). Returns -1 if argv names
 * none, else (exec failed) an exit code. */
int cli_program_handoff(int argc, char **argv);
/* How a command names sc:variant for the user: "scenario:variant", or in
 * an instrumented program the program's path. */
const char *cli_target_name(const struct weft_scenario *sc, unsigned vi, char *buf, size_t n);
/* " -- args" of an instrumented program's main() (nothing otherwise). */
void cli_print_program_args(FILE *f);
/* A finding's last line: the command that reproduces it from its input
 * (memory: a --memory flag where it is not sc), or why only its replay
 * file can (a lock-order report that relies on an earlier execution). */
/* Whether the last execution (result r) took more decisions or drew more
 * values than the machine records: then it cannot be re-run, replayed or
 * stored, and *why says so (a long loop, not a nondeterministic program). */
bool cli_last_unrecorded(const struct weft_exec_result *r, char *why, size_t n);
void cli_print_reproduce(const struct weft_scenario *sc, unsigned vi, enum weft_lock_model lock,
			 enum weft_memory_model memory, const uint8_t *repro, size_t len);
/* An instrumented program as its own fuzz target: the environment it
 * needs (appended to envs[0..n), returns the new count) and the argv of a
 * weft command it runs on itself (import: main()'s arguments after "--"). */
unsigned cli_program_target_env(char **envs, unsigned n);
unsigned cli_program_self_argv(char **argv, unsigned n, unsigned cap);

/* The name this program runs as: argv[0]'s basename ("weft", or an
 * out-of-tree model's own program such as "obj-put", which links
 * weft_main). Every command a hint prints starts with it, so the hint runs
 * the program that has the scenario. "weft" until cli_set_prog(). */
extern const char *cli_prog;
void cli_set_prog(const char *argv0);
/* Print a help text with each "weft COMMAND" naming cli_prog instead. */
void cli_print_help(FILE *f, const char *text);

/* "1 preemption", "2 preemptions": n and the noun, singular or plural. */
const char *cli_plural(char *buf, size_t n, unsigned long long count, const char *noun);

/* A run's end line names what ended it: "found" a bug, or "stopped" at a
 * limit of Weft's (limit-reached: no verdict about the program). */
const char *cli_found_or_stopped(int kind);
/* For limit-reached, the line that says it is no verdict and why the exit
 * code is still 1; nothing for other kinds. */
void cli_print_limit_note(int kind);

/* Prints "weft: msg" to stderr and returns code, the exit code. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cli_error() of a bad flag or argument: WEFT_EXIT_USAGE. */
#define cli_usage_error(...) cli_error(WEFT_EXIT_USAGE, __VA_ARGS__)
/* cli_error() of a file that cannot be read or written: WEFT_EXIT_IO. */
#define cli_io_error(...) cli_error(WEFT_EXIT_IO, __VA_ARGS__)
/* In an option loop (int i over argv, a = argv[i], v = argv[i + 1] or
 * NULL): option a takes a value; without one, command cmd's usage error. */
#define CLI_NEEDV(cmd)                                                             \
	do {                                                                       \
		if (!v)                                                            \
			return cli_usage_error("%s: %s needs a value", (cmd), a);  \
		i++;                                                               \
	} while (0)
/* An argument of command cmd that is no flag it knows: a flag ("-x") is
 * unknown, the first operand is stored in *operand, a second one is
 * unexpected. 0, or the usage error's exit code. */
int cli_operand(const char *cmd, const char *a, const char **operand);

/* A flag of a command: a switch sets *on, a flag with a value stores it
 * in *value. alias: another spelling ("-o"), or NULL. */
struct cli_flag {
	const char *name, *alias;
	bool *on;
	const char **value;
};
/* The flags (a list ended by { 0 }) and the one positional argument
 * (*arg) of `weft cmd`: "cmd: --x needs a value", "cmd: unknown flag
 * '--y' (weft help cmd)", "cmd: unexpected argument 'z'" and, when need
 * names the argument, "cmd: which NEED? (weft help cmd)" are usage errors.
 * Returns 0, or the usage error's exit code. */
int cli_parse_args(const char *cmd, int argc, char **argv, const struct cli_flag *flags,
		   const char *need, const char **arg);
/* argv[*i] if it is one of flags (a list ended by { 0 }): a switch set, or
 * a flag's value stored and *i moved past it; true, with *rc 0 or the
 * usage error's exit code ("cmd: --x needs a value"). False for any other
 * argument: a command that parses more flags itself goes on with it. */
bool cli_flag_take(const char *cmd, const struct cli_flag *flags, int argc, char **argv, int *i,
		   int *rc);

/* Strict number parsing: the whole string, in range. false on error. */
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_parse_double(const char *s, double *out);

/* Hex: parse into buf (cap), return length or -1; print lowercase. */
long cli_hex_decode(const char *hex, uint8_t *buf, size_t cap);
void cli_hex_print(FILE *f, const uint8_t *buf, size_t n);

/* The workload section of a bytes input from hex (--workload): byte 0 is
 * the op count n, then exactly 2n bytes; "" is the empty workload. Returns
 * the length, or -1 with why[] set (bad hex, fewer or more bytes than the
 * count byte says): a workload the command line would silently cut is a
 * usage error. */
long cli_workload_decode(const char *hex, uint8_t *buf, size_t cap, char *why, size_t whyn);

/* A whole file into memory (at most cap bytes; bigger is an error). */
long cli_read_file(const char *path, uint8_t *buf, size_t cap);

/* JSON string with escapes. */
void cli_json_str(FILE *f, const char *s);

/* Resolve "scenario[:variant]" or print the list of names and fail. */
const struct weft_scenario *cli_scenario(const char *spec, unsigned *vi);
/* cli_scenario() of the operand of a command that needs one: with none
 * given, the usage error "cmd: which NOUN? (weft list)". NULL after a
 * usage error (exit code WEFT_EXIT_USAGE). */
const struct weft_scenario *cli_operand_scenario(const char *cmd, const char *noun,
						 const char *spec, unsigned *vi);

/* Parse "--lock tas|ticket". */
bool cli_parse_lock(const char *s, enum weft_lock_model *out);
/* The model flags of the commands that run a target's code in process
 * (run, fuzz): --lock tas|ticket and --memory M, unset until given. */
struct cli_model_flags {
	enum weft_lock_model lock;
	enum weft_memory_model memory;
	bool lock_set, memory_set;
};
/* If a is --lock or --memory: its value v parsed into *m, and true, with
 * *rc 0 or the usage error's exit code (the caller skips v). False for any
 * other argument. (cmd_import.c, as cli_target_opts(): bin/weft only.) */
bool cli_model_flag(const char *cmd, const char *a, const char *v, struct cli_model_flags *m,
		    int *rc);
/* The lock and the memory model of a run of sc: those m names, else the
 * scenario's (its default lock; the memory model its bugs need, so that a
 * buggy weak-memory variant run without --memory does not come out clean
 * under sc). weft run and weft fuzz (cmd_import.c). */
void cli_model_of(const struct cli_model_flags *m, const struct weft_scenario *sc,
		  enum weft_lock_model *lock, enum weft_memory_model *memory);
/* A command's target and its lock: the scenario's default lock unless
 * lock_s ("tas"/"ticket") names one. NULL after the usage error (exit 2;
 * *rc holds it). */
const struct weft_scenario *cli_scenario_lock(const char *cmd, const char *spec,
					      const char *lock_s, unsigned *vi,
					      enum weft_lock_model *lock, int *rc);
/* *o for one run of a command's target: cli_scenario_lock(), the memory
 * model (the scenario's unless memory_s names one) and the default checks.
 * 0, or the usage error's exit code (cmd_import.c: bin/weft only, as
 * weft-stress has no memory models). */
int cli_target_opts(const char *cmd, const char *spec, const char *lock_s, const char *memory_s,
		    struct weft_run_opts *o);

/* Parse "--kind K[,K...]" into a mask of 1 << kind; false (and *bad the
 * first unknown name, at most badn bytes) on an unknown kind. */
bool cli_parse_kinds(const char *s, uint64_t *mask, char *bad, size_t badn);
/* A run that stops only at kinds in want (0: every kind) goes on past the
 * warnings it did not ask for, and says so in o->checks so that a replay
 * of its finding goes on past them too. */
void cli_continue_past_warnings(struct weft_run_opts *o, uint64_t want);

/* Print model counters (scenario->stats) of the last execution. */
void cli_print_stats(FILE *f, const struct weft_scenario *sc, bool json);

#endif
