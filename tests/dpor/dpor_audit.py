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


def audited_by(tool, spec, how, env_var, value, tag, summary, cls, known_why):
    """One run of tool on spec under an audit (env_var=value): the count
    its summary line gives, its lines outside the known classes, and the
    known classes met (class -> count)."""
    # --memory sc: the audits skip weak executions (flushes are unrecorded by design)
    cmd = [tool, "run", spec, "--memory", "sc", "--json"] + how
    env = dict(os.environ, **{env_var: value})
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    m = summary.search(p.stderr)
    # 0 clean, 1 a bug, 4 nondeterminism (tests/verdicts does so on purpose)
    if p.returncode not in (0, 1, 4) or not m:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode,
                                                  p.stderr.strip()[-400:]))
    found, known, unknown = [], {}, False
    for l in p.stderr.splitlines():
        if not l.startswith(tag) or summary.search(l):
            continue
        c = cls.search(l)
        if c:
            # a family's state behind a location (its audit_state: a task's
            # state behind its weft_state byte) is a class of its own, not
            # the plain bytes of the region the location is in
            k = c.group(1) + (" (state)" if "the state behind location" in l else "")
            unknown = k not in known_why
            if not unknown:
                known[k] = known.get(k, 0) + 1
        if unknown:
            found.append(l)
    return int(m.group(1)), found, known


def audit_tools(name, argv, doc, audited, known_why, counted, dfs, rnd):
    """Every variant of every tool of argv (BINDIR TOOL...) by dfs (dfs
    executions) and random (rnd), through audited(tool, spec, how); prints
    the known classes, each finding (counted: what the summary counts, what
    a finding is, its label), and a summary line. Returns the exit
    code: 0 none, 1 findings, 2 usage or a tool that could not be run."""
    if len(argv) < 3:
        sys.stderr.write(doc)
        return 2
    bindir, tools = argv[1], argv[2:]
    faults, variants, total, known = [], 0, 0, {}
    try:
        listed = [(t, list(variants_of(os.path.join(bindir, t)))) for t in tools]
    except (OSError, subprocess.CalledProcessError) as e:
        print("%s: cannot list a tool: %s" % (name, e))
        return 2
    for tname, specs in listed:
        tool = os.path.join(bindir, tname)
        for spec in specs:
            variants += 1
            for how in (["--strategy", "dfs", "--iterations", dfs],
                        ["--strategy", "random", "--iterations", rnd, "--seed", "1"]):
                try:
                    n, found, k = audited(tool, spec, how)
                    for c in k:
                        known.setdefault(c, set()).add("%s %s" % (tname, spec))
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    print("%s: %s" % (name, e))
                    return 2
                total += n
                if found:
                    faults.append("%s %s (%s):\n  %s" % (tname, spec, how[1], "\n  ".join(found)))
    for c, where in sorted(known.items()):
        print("%s: known, left: [%s] in %d variants (%s): %s"
              % (name, c, len(where),
                 ", ".join(sorted(where)[:4]) + (", ..." if len(where) > 4 else ""),
                 known_why[c]))
    for f in faults:
        print("%s: %s" % (counted[2], f))
    print("%s: %d variants of %d tools, %d %s, %d with %s"
          % (name, variants, len(tools), total, counted[0], len(faults), counted[1]))
    if variants < 10 or total == 0:
        print("%s: too little audited (%d variants, %d %s)" % (name, variants, total, counted[0]))
        return 2
    return 1 if faults else 0


def main():
    return audit_tools(
        "dpor_audit", sys.argv, __doc__,
        lambda tool, spec, how: audited_by(tool, spec, how, "WEFT_DPOR_AUDIT", "1",
                                           "weft: dpor audit:", SUMMARY, CLASS, KNOWN),
        KNOWN, ("steps checked", "unrecorded changes", "UNRECORDED"), DFS, RANDOM)


if __name__ == "__main__":
    sys.exit(main())
