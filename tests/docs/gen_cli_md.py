#!/usr/bin/env python3
"""gen_cli_md.py WEFT > docs/cli.md: the CLI reference from `weft help`.
docs_commands (run_docs.py) fails when docs/cli.md and `weft help` differ."""
import subprocess
import sys

weft = sys.argv[1]


def help_of(*args):
    return subprocess.run([weft, "help", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.decode().rstrip("\n")


top = help_of()
cmds = []
in_cmds = False
for l in top.split("\n"):
    if l.startswith("commands:"):
        in_cmds = True
        continue
    if in_cmds:
        if not l.strip():
            break
        cmds.append(l.split()[0])

print("""# weft command line

Generated from `weft help` by `tests/docs/gen_cli_md.py build/bin/weft >
docs/cli.md`; the `docs_commands` test fails when this page and the binary
disagree. `weft help COMMAND` (or `weft COMMAND --help`) prints the same text.

Exit codes, shared by every subcommand:

| code | meaning |
|---|---|
| 0 | clean: no detector report (or the command succeeded) |
| 1 | a bug: a detector reported (run, fuzz, stress), a recorded bug reproduced (replay), a crash reproduced (import, min); also `limit-reached`, which is no verdict (an execution hit a limit of Weft's, `docs/detectors.md`; the run prints "stopped after", not "found after") but ends the search all the same |
| 2 | usage error: a bad flag or argument |
| 3 | I/O, format or corrupt-input error (a hostile `.weft` file ends here, never in an assert) |
| 4 | DESYNC: a replay diverged from its recording |
| 5 | stale: the replay file was made by another model (fingerprint differs) |

Scenario names are `SCENARIO[:VARIANT]` as `weft list` prints them; a bare
variant name that is unique (`z1a`) also works.
""")
print("## weft\n")
print("<!-- doc-test: help -->")
print("```text")
print(top)
print("```\n")
for c in cmds:
    print("## weft %s\n" % c)
    print("<!-- doc-test: help %s -->" % c)
    print("```text")
    print(help_of(c))
    print("```\n")
