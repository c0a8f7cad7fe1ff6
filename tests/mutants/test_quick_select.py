#!/usr/bin/env python3
"""Unit test of the mutation tier's --quick selection (tools/ci/mutants.py)
on fake tests: which tests count as one (same-test regexes, one program
with different arguments), the order tests run in (last time's killers,
then the fastest), when the suite fallback runs and what it may count, and
which fallback tests are discounted after the unmutated rerun (an empty
failure list discounts nothing: the bug fixed in 58058f6).
Usage: test_quick_select.py ROOT"""
import importlib.util
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
spec = importlib.util.spec_from_file_location("mutants", os.path.join(root, "tools", "ci",
                                                                      "mutants.py"))
M = importlib.util.module_from_spec(spec)
spec.loader.exec_module(M)

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


class FakeLauncher:
    """Each test finishes as soon as it is polled, with a fixed outcome."""

    def __init__(self, fails):
        self.fails = set(fails)
        self.started = []

    def start(self, t):
        self.started.append(t)
        return (len(self.started), t)

    def poll(self, h):
        return h[1] not in self.fails

    def kill(self, h):
        pass


B, R = "/b/", "/src/"
# --- which tests count as one
progs = {
    "det_check": M.test_program([B + "tests/s/test_det"], R, B),
    "det_forged": M.test_program([B + "tests/s/test_det", "forged"], R, B),
    "cli_lockdep": M.test_program([B + "bin/weft", "run", "z12-memcg:z12", "--json"], R, B),
    "cli_text": M.test_program([B + "bin/weft", "run", "z12-memcg:z12"], R, B),
    "cli_other": M.test_program([B + "bin/weft", "run", "z10-mlock:z10"], R, B),
    "replay_file": M.test_program([B + "bin/weft", "replay", R + "corpus/x-1.weft"], R, B),
    "script": M.test_program(["/usr/bin/sh", R + "tests/r/check.sh", B + "bin/weft"], R, B),
    "dollar0": M.test_program(["/usr/bin/sh", "-c", '"$0" fuzz "$@"', B + "bin/weft",
                               "demo-counter:racy"], R, B),
    "fam_a": M.test_program([B + "tests/f/test_a"], R, B),
    "fam_b": M.test_program([B + "tests/f/test_b"], R, B),
    "fam_b2": M.test_program([B + "tests/f/test_b", "x"], R, B),
}
check(progs["det_check"] == "tests/s/test_det", "program of a build output: %r" % progs["det_check"])
check(progs["cli_lockdep"] == "bin/weft z12-memcg", "model driver: %r" % progs["cli_lockdep"])
check(progs["replay_file"] == "bin/weft x-1.weft", "replay driver: %r" % progs["replay_file"])
check(progs["script"] == "tests/r/check.sh", "interpreted script: %r" % progs["script"])
check(progs["dollar0"] == "bin/weft demo-counter", "sh -c with $0: %r" % progs["dollar0"])
g = M.Groups([re.compile("^fam_(a|b)$")], progs)
check(M.independent(["det_check", "det_forged"], g) == 1, "one binary, two arguments: one test")
check(M.independent(["cli_lockdep", "cli_text"], g) == 1, "one model, two flag sets: one test")
check(M.independent(["cli_lockdep", "cli_other"], g) == 2, "two models: two tests")
check(M.independent(["det_check", "cli_lockdep", "script"], g) == 3, "three programs")
# fam_b2 joins fam_a through fam_b: the regex and the program join transitively
check(M.independent(["fam_a", "fam_b2"], g) == 1, "same-test and program join transitively")
check(M.independent(["unknown1", "unknown2", "fam_a"], g) == 3, "tests ctest did not list")
check(M.independent(["fam_a"], M.Groups([re.compile("^fam_")])) == 1, "regex only, no programs")

# --- run_until: order, stopping, groups
L = FakeLauncher(fails={"t1", "t1b", "t3"})
g = M.Groups([], {"t1": "p1", "t1b": "p1", "t2": "p2", "t3": "p3", "t4": "p4"})
p, f, rest = M.run_until(L, ["t1", "t1b", "t2", "t3", "t4"], 2, g, 1)
check(L.started == ["t1", "t2", "t3"], "a failed group's other test never runs: %s" % L.started)
check(f == ["t1", "t3"] and p == ["t2"] and rest == ["t1b", "t4"],
      "stops at 2 independent failures: %s %s %s" % (p, f, rest))
L = FakeLauncher(fails={"t1b", "t2"})
p, f, rest = M.run_until(L, ["t1", "t1b", "t2", "t4"], 2, g, 1)
check(L.started == ["t1", "t1b", "t2"] and f == ["t1b", "t2"],
      "a group's second test runs when its first passed: %s" % L.started)
L = FakeLauncher(fails={"t1", "t1b", "t2"})
p, f, rest = M.run_until(L, ["t1", "t2", "t4"], 1, g, 1, killed={g.of("t1")})
check(L.started == ["t2"] and f == ["t2"], "a killed group does not count again: %s" % L.started)
L = FakeLauncher(fails=set())
p, f, rest = M.run_until(L, ["t1", "t2"], 2, g, 2)
check(p == ["t1", "t2"] and f == [] and rest == [], "all pass: %s %s" % (p, f))

# --- quick_select: listed tests first, killers and the fastest first, the fallback
costs = {"a": 5.0, "b": 1.0, "c": 3.0, "s1": 0.5, "s2": 9.0, "s3": 0.1, "s4": 2.0}
g = M.Groups([], {"a": "pa", "b": "pb", "c": "pc", "s1": "pc", "s2": "ps2", "s3": "ps3",
                  "s4": "ps4"})
calls = []


def runner(fails):
    def run(tests, need, killed, tag):
        calls.append((list(tests), need, set(killed), tag))
        return M.run_until(FakeLauncher(fails), tests, need, g, 1, killed)
    return run


built = []
calls.clear()
p, f, n = M.quick_select(["a", "b", "c"], ["a", "b", "c", "s1", "s2", "s3"], 2, g, ["a"], costs,
                         runner({"a", "c"}), lambda: built.append(1) or True, log=lambda m: None)
check(calls[0][0] == ["a", "b", "c"], "last killer first, then by cost: %s" % calls[0][0])
check(sorted(f) == ["a", "c"] and len(calls) == 1 and not built,
      "no fallback when the listed tests suffice: %s %s" % (f, calls))
calls.clear()
p, f, n = M.quick_select(["a", "b", "c"], ["a", "b", "c", "s1", "s2", "s3", "s4"], 2, g, [],
                         costs, runner({"c", "s1", "s4"}), lambda: built.append(1) or True,
                         log=lambda m: None)
check(calls[0][0] == ["b", "c", "a"], "no killers: the fastest first: %s" % calls[0][0])
check(len(calls) == 2 and built == [1], "too few: the fallback runs, after a full build")
check(calls[1][0] == ["s3", "s1", "s4", "s2"] and calls[1][1] == 1 and
      calls[1][2] == {g.of("c")},
      "fallback: the unrun rest, fastest first, one more group, pc already counted: %s"
      % (calls[1],))
check(sorted(f) == ["c", "s4"] and M.independent(f, g) == 2 and "s1" not in f,
      "the fallback does not count the failed group's own program (s1): %s" % f)
calls.clear()
p, f, n = M.quick_select(["a"], ["a", "s2"], 2, g, [], costs, runner({"a"}), lambda: False,
                         log=lambda m: None)
check(f is None and len(calls) == 1, "a failed full build gives no results")

# --- the unmutated rerun of fallback tests
check(M.unverified_failures(["s1", "s4"], []) == set(),
      "all passed unmutated: none discounted (58058f6)")
check(M.unverified_failures(["s1", "s4"], None) == {"s1", "s4"}, "no results: all discounted")
check(M.unverified_failures(["s1", "s4"], ["s4"]) == {"s4"}, "the one that fails unmutated")

print("test_quick_select: %d failures" % failures)
sys.exit(1 if failures else 0)
