#!/usr/bin/env python3
"""swap_audit.py BINDIR TOOL... : every variant of every tool run under the
commutation audit (WEFT_SWAP_AUDIT=N, core/src/machine/swap_audit.c), by
dfs (its default partial-order reduction) and by random, each capped: two
adjacent steps of different threads whose dependence records are
independent are run again in the other order, and a difference (a thread's
records, the runnable sets, the report, the core area or the world at the
end) is printed by the audit ("not commuting") and fails this test.

Independent steps that do not commute mean a record says less than the
step did: a read with no READ record (a state query) is the case the
dependence audit (dpor_audit.py) cannot see, and a reduction may then
certify a buggy model.

Known classes (KNOWN below, each with why it is left) are counted and
printed, not failed: a difference only in bytes of the models' own world
that no record names (plain C of a model or of the mm kit; the families'
records are not at stake there).

Over all fifteen registered tools (about 20 s) one finding is left,
understood and not a missing record: demo-waitq's wait_event() and
recheck variants, where a wake_up() between the waiter's test of the
condition and its schedule() makes schedule() record a READ of the wait
queue it took off before its point (weft_schedule() reads its waiter's
list before the point, waitqueue.c): the other order records no such
read. An extra record only adds a dependence (the reductions explore
more, never less); the ctest's tools do not include it
(tests/dpor/CMakeLists.txt).

Exit: 0 no finding outside KNOWN, 1 some (each printed once per tool and
variant), 2 usage or a tool that could not be run.
"""
import os
import re
import sys

from dpor_audit import audit_tools, audited_by   # the dependence audit's driver

# WEFT_SWAP_AUDIT_DFS=N, WEFT_SWAP_AUDIT_RANDOM=N: a longer hunt than ctest's;
# WEFT_SWAP_AUDIT_PAIRS: pairs checked per execution
DFS = os.environ.get("WEFT_SWAP_AUDIT_DFS", "40")
RANDOM = os.environ.get("WEFT_SWAP_AUDIT_RANDOM", "30")
PAIRS = os.environ.get("WEFT_SWAP_AUDIT_PAIRS", "16")
KNOWN = {
    "the model's world":
        "plain C of a model or of the mm kit on world state no record names: a "
        "model's own unmarked access (a model defect, DESIGN.md), not a family's record",
}
CLASS = re.compile(r"not commuting: .*\[(.*?)\]")
SUMMARY = re.compile(r"weft: swap audit: (\d+) pairs checked, (\d+) not commuting, "
                     r"(\d+) differing only")


def main():
    return audit_tools(
        "swap_audit", sys.argv, __doc__,
        lambda tool, spec, how: audited_by(tool, spec, how, "WEFT_SWAP_AUDIT", PAIRS,
                                           "weft: swap audit:", SUMMARY, CLASS, KNOWN),
        KNOWN, ("pairs checked", "findings", "NOT COMMUTING"), DFS, RANDOM)


if __name__ == "__main__":
    sys.exit(main())
