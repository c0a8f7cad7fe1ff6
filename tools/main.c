/* main.c - `weft COMMAND ...`: dispatch to the subcommands (commands.def). */
#include "cli.h"

int main(int argc, char **argv)
{
	cli_set_prog(argv[0]);
	return weft_cli_main(argc, argv);
}
