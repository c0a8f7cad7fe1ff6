/* main.c - `weft COMMAND ...`: dispatch to the subcommands (commands.def). */
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
	cli_set_prog(argv[0]);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, argv);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv);
#define X(name, fn, summary)                                                   \
	if (!strcmp(argv[1], #name))                                           \
		return fn(argc - 1, argv + 1);
#include "commands.def"
#undef X
	return cli_usage_error("unknown command '%s' (%s help lists them)", argv[1], cli_prog);
}
