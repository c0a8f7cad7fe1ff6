/*
 * cmd_export.c - `weft export FILE [-o OUT]`: the raw fuzzer input stored
 * in a .weft, as the fuzz target fuzz_<scenario>_<variant> reads it
 * (libFuzzer: ./fuzz_x OUT; AFL++: a file in -i or afl-fuzz's @@).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "replay_cli.h"

const char weft_help_export[] =
	"usage: weft export FILE [-o OUT]\n\n"
	"Writes the raw fuzzer input of a replay file: the bytes the fuzz target\n"
	"fuzz_<scenario>_<variant> (and weft run --strategy bytes --input) runs directly.\n"
	"  -o OUT   write to OUT (never overwrites an existing file); without -o the\n"
	"           bytes go to stdout, or as hex when stdout is a terminal\n"
	"exit: 0 written, 2 usage, 3 I/O or format error (or OUT exists)\n";

int cmd_export(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;

	const struct cli_flag flags[] = { { "--out", "-o", NULL, &out }, { 0 } };
	struct weft_replay rf;
	int ec = cli_parse_load("export", argc, argv, flags, &file, &rf);

	if (ec)
		return ec;
	bool needs = false;
	for (size_t i = 0; i < rf.nr_dec; i++)
		needs |= rf.dec[i].chosen != rf.dec[i].dflt;
	if (!rf.input_len && (needs || rf.workload_len)) {
		weft_replay_free(&rf);
		return cli_io_error("export: %s holds no raw fuzzer input (its schedule does not "
				    "fit the bytes encoding)", file);
	}
	size_t delayed = 0;
	for (size_t i = 0; i < rf.nr_delays; i++)
		delayed += rf.delays[i] != 0;
	if (delayed && !weft_input_is_genome(rf.input, rf.input_len))
		fprintf(stderr, "weft: note: %s: its execution kept %zu store%s buffered (--memory "
				"%s), which the bytes encoding cannot hold: the raw input runs the "
				"same schedule without %s (weft replay and weft min use the file)\n",
			file, delayed, delayed == 1 ? "" : "s",
			weft_memory_name((enum weft_memory_model)rf.memory),
			delayed == 1 ? "it" : "them");
	int rc = WEFT_EXIT_CLEAN;
	if (out) {
		if (weft_replay_write_new(out, rf.input, rf.input_len))
			rc = cli_io_error("export: cannot write '%s': %s", out,
					  errno == EEXIST ? "it exists (never overwritten)"
							  : strerror(errno));
	} else if (isatty(STDOUT_FILENO)) {
		cli_hex_print(stdout, rf.input, rf.input_len);
		printf("\n");
	} else if (fwrite(rf.input, 1, rf.input_len, stdout) != rf.input_len || fflush(stdout)) {
		rc = cli_io_error("export: write error");
	}
	weft_replay_free(&rf);
	return rc;
}
