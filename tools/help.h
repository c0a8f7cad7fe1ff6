/* help.h - per-command help: each cmd_*.c defines weft_help_<name>[]. */
#ifndef WEFT_HELP_H
#define WEFT_HELP_H

#define X(name, fn, summary) extern const char weft_help_##name[];
#include "commands.def"
#undef X

const char *weft_help_text(const char *cmd);

#endif
