#!/usr/bin/env python3
"""dpor_audit.py BINDIR TOOL... : every variant of every tool run under the
dependence audit (WEFT_DPOR_AUDIT=1, core/src/machine/dep_audit.c), by dfs
(its default partial-order reduction, which feeds on the records) and by
random, each capped: a step that changed a location, or a family's state
behind one, with no write-class record of that location in the same step
is printed by the audit ("unrecorded change"), and fails this test.

Such a step looks independent of a later access to the location, so a
reduction may skip an order and certify a buggy model (a1de7ac: the
workqueue dequeue's missing worklist record).

Known classes (KNOWN below, each with why it is left) are counted and
printed, not failed: changes in the models' own world (plain C of a model
or of the mm kit: the families' records are not at stake there) and the
family state not yet triaged. A change in any other class fails. So does
a change of the model's world that a record of another thread later
touches with no record ordering the two ("[the model's world, shared]":
state the reductions take for independent of that access; an object
initialised before it is published, or guarded by a lock both hold, is
ordered by the records and not reported).

Exit: 0 no unrecorded change outside KNOWN, 1 some (each printed once per
tool and variant), 2 usage or a tool that could not be run.
"""
import os
import re
import subprocess
import sys

from dpor_vs_dfs import variants_of   # every "scenario:variant" of a tool

# WEFT_DPOR_AUDIT_DFS=N, WEFT_DPOR_AUDIT_RANDOM=N: a longer hunt than ctest's
DFS = os.environ.get("WEFT_DPOR_AUDIT_DFS", "60")
RANDOM = os.environ.get("WEFT_DPOR_AUDIT_RANDOM", "40")
# the class an audit line names in brackets -> why it is not failed here
KNOWN = {
    "the model's world":
        "plain C of a model or of the mm kit on world state: an object not yet "
        "published, per-thread or per-CPU state, or a model's own unmarked access "
        "(a model defect, DESIGN.md); not a family's record",
    "kthread (task)":
        "a thread's pid and comm, filled in by its first current() (kthread.c, "
        "task_named()) with values of its own number: every way to a task_struct "
        "(current, kthread_create()) fills them first, so no thread sees them unset",
    "timer (sleep_timer)":
        "schedule_timeout() sets its own timer's function in the step before "
        "weft_timer_arm()'s point: the timer is not pending then (its last sleep "
        "deleted it synchronously), so no other thread reads it; not moved yet",
}
CLASS = re.compile(r"unrecorded (?:shared )?change: .*\[(.*)\] (?:changed|meets)")
SUMMARY = re.compile(r"weft: dpor audit: (\d+) windows checked, (\d+) unrecorded changes")


def audited(tool, spec, how):
    # --memory sc: the audit skips weak executions (flushes are unrecorded by design)
    cmd = [tool, "run", spec, "--memory", "sc", "--json"] + how
    env = dict(os.environ, WEFT_DPOR_AUDIT="1")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    m = SUMMARY.search(p.stderr)
    # 0 clean, 1 a bug, 4 nondeterminism (tests/verdicts does so on purpose)
    if p.returncode not in (0, 1, 4) or not m:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode,
                                                  p.stderr.strip()[-400:]))
    found, known, unknown = [], {}, False
    for l in p.stderr.splitlines():
        if not l.startswith("weft: dpor audit:") or SUMMARY.search(l):
            continue
        c = CLASS.search(l)
        if c:
            unknown = c.group(1) not in KNOWN
            if not unknown:
                known[c.group(1)] = known.get(c.group(1), 0) + 1
        if unknown:
            found.append(l)
    return int(m.group(1)), found, known


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    bindir, tools = sys.argv[1], sys.argv[2:]
    faults, variants, windows, known = [], 0, 0, {}
    try:
        listed = [(name, list(variants_of(os.path.join(bindir, name)))) for name in tools]
    except (OSError, subprocess.CalledProcessError) as e:
        print("dpor_audit: cannot list a tool: %s" % e)
        return 2
    for name, specs in listed:
        tool = os.path.join(bindir, name)
        for spec in specs:
            variants += 1
            for how in (["--strategy", "dfs", "--iterations", DFS],
                        ["--strategy", "random", "--iterations", RANDOM, "--seed", "1"]):
                try:
                    n, found, k = audited(tool, spec, how)
                    for c, count in k.items():
                        known.setdefault(c, set()).add("%s %s" % (name, spec))
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    print("dpor_audit: %s" % e)
                    return 2
                windows += n
                if found:
                    faults.append("%s %s (%s):\n  %s" % (name, spec, how[1], "\n  ".join(found)))
    for c, where in sorted(known.items()):
        print("dpor_audit: known, left: [%s] in %d variants (%s): %s"
              % (c, len(where), ", ".join(sorted(where)[:4]) + (", ..." if len(where) > 4 else ""),
                 KNOWN[c]))
    for f in faults:
        print("UNRECORDED: " + f)
    print("dpor_audit: %d variants of %d tools, %d steps checked, %d with unrecorded changes"
          % (variants, len(tools), windows, len(faults)))
    if variants < 10 or windows == 0:
        print("dpor_audit: too little audited (%d variants, %d steps)" % (variants, windows))
        return 2
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
