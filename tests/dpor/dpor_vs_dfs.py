#!/usr/bin/env python3
"""dpor_vs_dfs.py BINDIR TOOL... : every variant of every tool, searched
by `TOOL run V --strategy dfs --bound K` (the default: partial-order
reduction where it may certify, plain dfs where it hands over), by the same
with `--por source` and `--por sleep` (the reductions themselves, without
weft run's hand-overs) and with `--por none`, at bounds 0, 1 and 2, each
capped at --iterations.

A wrong verdict is a search that says "complete" and clean where the other
finds a bug within the same bound (the reduction must reach every trace
plain dfs reaches; plain dfs reaches every execution). Either search may
stop short at the cap: that is no verdict. test_dpor_families' buggy()
does this for the scenarios linked into weft; this runs every tool's own
models too, which is how weft-workqueue's parallel:unbound was found
certified at bound 1 by the bounded reduction (core/src/search/dpor.c,
dpor_end()).

Exit: 0 every pair agrees (a nondeterministic model, exit 4, certifies
nothing and is compared as such), 1 a wrong verdict (each printed), 2 usage or a
tool that could not be run.
"""
import json
import os
import subprocess
import sys

# WEFT_DPOR_VS_DFS_ITERATIONS=N, WEFT_DPOR_VS_DFS_BOUNDS="0 1 2 3 none":
# a longer hunt than ctest's
ITERATIONS = os.environ.get("WEFT_DPOR_VS_DFS_ITERATIONS", "3000")
BOUNDS = os.environ.get("WEFT_DPOR_VS_DFS_BOUNDS", "0 1 2").split()


def variants_of(tool):
    out = subprocess.run([tool, "list"], capture_output=True, text=True, check=True).stdout
    scenario = None
    for line in out.splitlines():
        if line and not line[0].isspace():
            scenario = line.split()[0]
        elif line.startswith("  ") and not line.startswith("    ") and scenario:
            fields = line.split()
            if len(fields) >= 2 and fields[1] in ("bug", "clean"):
                yield "%s:%s" % (scenario, fields[0])


def search(tool, spec, bound, por):
    # --memory sc: the reductions' domain (they refuse a weak model, which
    # z14-z16 declare and weft run would take)
    cmd = [tool, "run", spec, "--strategy", "dfs", "--bound", str(bound),
           "--iterations", ITERATIONS, "--memory", "sc", "--json"]
    if por:
        cmd += ["--por", por]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    # 4: nondeterminism (a test model of tests/verdicts is so on purpose):
    # its JSON says complete false, which is no verdict
    if p.returncode not in (0, 1, 4) or not lines:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return json.loads(lines[-1])


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    bindir, tools = sys.argv[1], sys.argv[2:]
    wrong, pairs, variants = [], 0, 0
    for name in tools:
        tool = os.path.join(bindir, name)
        try:
            specs = list(variants_of(tool))
        except (OSError, subprocess.CalledProcessError) as e:
            print("dpor_vs_dfs: cannot list %s: %s" % (tool, e))
            return 2
        for spec in specs:
            variants += 1
            for bound in BOUNDS:
                try:
                    plain = search(tool, spec, bound, "none")
                    pors = (None, "source", "sleep") if bound != "none" else \
                        (None, "source", "sleep", "optimal")
                    reduced = [(por or "default", search(tool, spec, bound, por)) for por in pors]
                except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
                    print("dpor_vs_dfs: %s" % e)
                    return 2
                for how, red in reduced:
                    pairs += 1
                    where = "%s %s --bound %s" % (name, spec, bound)
                    if red["verdict"] == "clean" and red.get("complete") and \
                       plain["verdict"] == "bug":
                        wrong.append("%s: the %s search (por %s) says complete and clean in "
                                     "%s executions; plain dfs finds %s"
                                     % (where, how, red["por"], red["executions"], plain["kind"]))
                    if plain["verdict"] == "clean" and plain.get("complete") and \
                       red["verdict"] == "bug":
                        wrong.append("%s: plain dfs says complete and clean; the %s search "
                                     "(por %s) finds %s" % (where, how, red["por"], red["kind"]))
    for w in wrong:
        print("WRONG VERDICT: " + w)
    print("dpor_vs_dfs: %d variants of %d tools, %d bound pairs compared, %d wrong"
          % (variants, len(tools), pairs, len(wrong)))
    if variants < 10:
        print("dpor_vs_dfs: too few variants (%d)" % variants)
        return 2
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
