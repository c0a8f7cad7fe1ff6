/* help.c - `weft help COMMAND`: the help texts live beside each command. */
#include <string.h>

#include "help.h"

const char weft_help_list[] =
	"usage: weft list [--json]\n\n"
	"Lists every scenario and variant: whether the variant is known-buggy (bug) or\n"
	"fixed (clean), its CPU count, its ZOO.md id, one line and its source.\n"
	"  --json   one array of objects: scenario, variant, expect (\"bug\"|\"clean\"),\n"
	"           cpus, threads, memory (sc|tso|lkmm), zoo (or null), kind and\n"
	"           min_preemptions (buggy only), summary, source, fingerprint\n";

const char weft_help_help[] = "usage: weft help [COMMAND]\n";
const char weft_help_version[] = "usage: weft version\n";

const char *weft_help_text(const char *cmd)
{
#define X(name, fn, summary)                                                   \
	if (!strcmp(cmd, #name))                                               \
		return weft_help_##name;
#include "commands.def"
#undef X
	return NULL;
}
