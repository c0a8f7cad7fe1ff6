#!/usr/bin/env python3
"""The mutation tier's driver (tools/ci/mutants: usage, exit codes).

The list format (tests/mutants/mutants.txt), one directive per line:

    same-test REGEX      tests whose names match REGEX count as one test
                         (one program built in several flavours)
    exclude REGEX        before the first mutant: ctest -E REGEX for every
                         mutant (slow tests that guard no mutant: soak
                         loops, real-thread stress, benches); inside a
                         mutant: its own -E instead ('exclude -': none)
    mutant NAME          starts a mutant
    attacks TEXT         the detector or guarantee it breaks
    need N               independent tests that must fail (default 1)
    tests REGEX          ctest -R regex of the tests expected to catch it
    file PATH            starts an edit of PATH (relative to the root)
    anchor               the lines after it, each starting with '|', are
                         the exact text to find (once) ...
    replace              ... and its replacement ('|' lines; none: delete)
    end                  ends the mutant

The kill map (tests/mutants/kills.txt, --quick reads it, --record
rewrites it), one line per mutant:

    NAME: TEST TEST ...  the tests that failed against NAME in the last
                         recorded run ('-': none); '#' starts a comment

A code line is everything after its first '|', tabs included. Anchor and
replacement are joined with newlines; an anchor of several lines matches
across them. '#' starts a comment line outside code lines.
"""
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_SETUP = 0, 1, 2, 3


class Mutant:
    def __init__(self, name, line):
        self.name = name
        self.line = line
        self.attacks = ""
        self.need = 1
        self.tests = ""
        self.exclude = None      # None: the list's default
        self.edits = []          # [path, anchor, replacement]


def die_usage(msg):
    print("mutants: " + msg, file=sys.stderr)
    sys.exit(EXIT_USAGE)


def parse(path):
    """-> (mutants, same-test regexes, default exclude); a malformed list is
    a usage error."""
    muts, same, dflt_exclude = [], [], ""
    cur, mode, lines = None, None, None

    def flush_code():
        nonlocal mode, lines
        if mode is None:
            return
        text = "\n".join(lines)
        if mode == "anchor":
            cur.edits[-1][1] = text
        else:
            cur.edits[-1][2] = text
        mode, lines = None, None

    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if mode is not None and line.startswith("|"):
                lines.append(line[1:])
                continue
            if mode is not None:
                flush_code()
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            key, _, val = s.partition(" ")
            val = val.strip()
            where = "%s:%d" % (path, no)
            if key == "same-test":
                same.append(re.compile(val))
            elif key == "exclude" and cur is None:
                re.compile(val)
                dflt_exclude = val
            elif key == "mutant":
                if cur is not None:
                    die_usage("%s: mutant %s has no 'end'" % (where, cur.name))
                if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", val):
                    die_usage("%s: bad mutant name '%s'" % (where, val))
                cur = Mutant(val, no)
            elif cur is None:
                die_usage("%s: '%s' outside a mutant" % (where, key))
            elif key == "attacks":
                cur.attacks = val
            elif key == "need":
                cur.need = int(val)
            elif key == "tests":
                cur.tests = val
                re.compile(val)
            elif key == "exclude":
                cur.exclude = "" if val == "-" else val
                re.compile(cur.exclude)
            elif key == "file":
                cur.edits.append([val, None, None])
            elif key in ("anchor", "replace"):
                if not cur.edits:
                    die_usage("%s: '%s' before 'file'" % (where, key))
                mode, lines = key, []
            elif key == "end":
                if not cur.attacks or not cur.tests or not cur.edits:
                    die_usage("%s: mutant %s needs attacks, tests and an edit" % (where, cur.name))
                for e in cur.edits:
                    if e[1] is None or e[2] is None or not e[1]:
                        die_usage("%s: mutant %s: each edit needs an anchor and a replace"
                                  % (where, cur.name))
                if any(m.name == cur.name for m in muts):
                    die_usage("%s: mutant %s listed twice" % (where, cur.name))
                muts.append(cur)
                cur = None
            else:
                die_usage("%s: unknown directive '%s'" % (where, key))
    flush_code()
    if cur is not None:
        die_usage("%s: mutant %s has no 'end'" % (path, cur.name))
    for m in muts:
        if m.exclude is None:
            m.exclude = dflt_exclude
    return muts, same, dflt_exclude


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def stale_anchors(muts, root):
    """Mutants whose anchors do not match exactly once under root."""
    bad = []
    for m in muts:
        for path, anchor, _ in m.edits:
            p = os.path.join(root, path)
            n = read(p).count(anchor) if os.path.isfile(p) else -1
            if n != 1:
                bad.append("%s: %s: anchor %s" % (
                    m.name, path, "file missing" if n < 0 else "matches %d times" % n))
    return bad


def apply(m, root):
    """Applies m's edits under root; returns the original texts."""
    orig = {}
    for path, anchor, repl in m.edits:
        p = os.path.join(root, path)
        if p not in orig:
            orig[p] = read(p)
        text = read(p)
        assert text.count(anchor) == 1, (m.name, path)
        write(p, text.replace(anchor, repl, 1))
    return orig


def sync_tree(root, dst):
    """Copies the checkout's files (tracked and untracked, not ignored) to
    dst, rewriting only what changed so the build stays incremental."""
    out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard"], check=True, capture_output=True).stdout
    files = sorted({f for f in out.decode().split("\0") if f})
    keep = set()
    for f in files:
        src = os.path.join(root, f)
        if not os.path.isfile(src) or os.path.islink(src):
            continue
        d = os.path.join(dst, f)
        keep.add(os.path.normpath(d))
        with open(src, "rb") as a:
            data = a.read()
        try:
            with open(d, "rb") as b:
                same = b.read() == data
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(d), exist_ok=True)
            with open(d, "wb") as b:
                b.write(data)
        shutil.copymode(src, d)
    for dirpath, dirnames, filenames in os.walk(dst):
        if dirpath == dst and ".git" in dirnames:
            dirnames.remove(".git")
        for fn in filenames:
            p = os.path.normpath(os.path.join(dirpath, fn))
            if p not in keep:
                os.unlink(p)
    # a git index of the copy: tests that list the tree's files (git ls-files) see it
    if not os.path.isdir(os.path.join(dst, ".git")):
        subprocess.run(["git", "init", "-q", dst], check=True)
    subprocess.run(["git", "-C", dst, "add", "-A"], check=True)


def run(cmd, log, **kw):
    with open(log, "w") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, **kw).returncode


def tail(log, n=40):
    with open(log, errors="replace") as f:
        return "".join(f.readlines()[-n:])


def sel(regex, exclude):
    return ["-R", regex] + (["-E", exclude] if exclude else [])


def list_tests(build, regex, exclude=""):
    out = subprocess.run(["ctest", "--test-dir", build, "-N"] + sel(regex, exclude),
                         capture_output=True, text=True).stdout
    return re.findall(r"Test\s+#\d+: (\S+)", out)


def ctest(build, regex, exclude, jobs, timeout, log, junit):
    """-> (passed, failed) test names."""
    if os.path.exists(junit):
        os.unlink(junit)
    run(["ctest", "--test-dir", build] + sel(regex, exclude) + [
         "-j", str(jobs), "--timeout", str(timeout),
         "--output-on-failure", "--output-junit", junit], log)
    passed, failed = [], []
    if not os.path.exists(junit):
        return passed, None
    for tc in ET.parse(junit).getroot().iter("testcase"):
        st = tc.get("status", "")
        name = tc.get("name")
        if st == "run":
            passed.append(name)
        elif st == "disabled" or st == "notrun" and tc.find("skipped") is not None:
            continue
        else:
            failed.append(name)
    return passed, failed


class Groups:
    """Which tests count as one: the tests one `same-test` regex names, and
    the ctest entries that run one program (test_program) with different
    arguments; both relations are joined transitively."""

    def __init__(self, same, programs=None):
        self.same = same
        self.parent = {}
        for name, prog in (programs or {}).items():
            self._union(name, "program " + prog)
            rx = self._regex_of(name)
            if rx:
                self._union(name, rx)

    def _regex_of(self, name):
        for i, rx in enumerate(self.same):
            if rx.search(name):
                return "same-test#%d" % i
        return None

    def _find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def _union(self, a, b):
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def of(self, name):
        if name in self.parent:
            return self._find(name)
        return self._find(self._regex_of(name) or name)


INTERPRETERS = {"sh", "bash", "dash", "python3", "python", "env", "nice", "timeout"}
# drivers that run many programs (weft, and weft-verdicts / weft-timers:
# weft with test models built in): the program under test is the model they
# are told to run ("weft run z12-memcg-lrucare:z12 ..." runs z12-memcg-lrucare)
MODEL_DRIVERS = {"weft", "weft-stress", "weft-verdicts", "weft-timers", "weft-kthreads",
                 "weft-wait-bit", "weft-rwlock", "weft-seqlock", "weft-rculist", "weft-llist", "weft-kref",
                 "weft-lock-forms", "weft-atomics", "weft-slab", "weft-workqueue"}


def test_program(command, root, bdir):
    """The program a ctest command line runs: the first word that is not an
    interpreter or its option (for `sh -c SCRIPT`, the first build output
    after the script, else the script), relative to the checkout or build;
    for a model driver, that plus the model it runs."""
    words = list(command)
    i = 0
    while i < len(words) and os.path.basename(words[i]) in INTERPRETERS:
        i += 1
        if i < len(words) and words[i] == "-c":
            rest = words[i + 2:]
            words = rest if rest else [words[i + 1]]     # "$0" is the program
            i = 0
            break
        while i < len(words) and words[i].startswith("-"):
            i += 1
    if i >= len(words):
        return " ".join(command)
    prog, args = words[i], words[i + 1:]
    for base in (bdir, root):
        if prog.startswith(base):
            prog = prog[len(base):]
            break
    if os.path.basename(prog) in MODEL_DRIVERS:
        models = [a.split(":")[0] for a in args if re.fullmatch(r"[a-z0-9][a-z0-9-]*:\S*", a)]
        files = [os.path.basename(a) for a in args if a.endswith(".weft")]
        words = [os.path.basename(a) for a in args[1:] if not a.startswith("-")]
        prog += " " + (models[0] if models else files[0] if files else words[0] if words
                       else " ".join(args[:1]))
    return prog


def test_programs(build, root):
    """{test: its program} for every test of build (ctest's own command lines)."""
    import json
    shown = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                           capture_output=True, text=True).stdout
    bdir = os.path.realpath(build) + os.sep
    root = os.path.realpath(root) + os.sep
    return {t["name"]: test_program(t.get("command") or [t["name"]], root, bdir)
            for t in json.loads(shown or "{}").get("tests", [])}


def independent(names, same):
    return len({same.of(n) for n in names})


def short_list(names, k=6):
    names = sorted(names)
    return ", ".join(names[:k]) + (" +%d more" % (len(names) - k) if len(names) > k else "")


def read_kills(path):
    """The kill map: {mutant: [tests that failed against it last time]}."""
    kills = {}
    if not os.path.isfile(path):
        return kills
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            s = raw.strip()
            if not s or s.startswith("#"):
                continue
            name, sep, tests = s.partition(":")
            if not sep or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name.strip()):
                die_usage("%s:%d: expected 'NAME: TEST ...'" % (path, no))
            kills[name.strip()] = [t for t in tests.split() if t != "-"]
    return kills


def write_kills(path, kills, order):
    """Rewrites the kill map, mutants in list order."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("# The mutation tier's kill map (format: tools/ci/mutants.py), written by\n"
                "# tools/ci/mutants --record: per mutant, the tests that failed against it\n"
                "# in the last recorded run. --quick runs these first, the fastest first,\n"
                "# and stops at `need` independent failures.\n")
        for name in order:
            if name in kills:
                f.write("%s: %s\n" % (name, " ".join(sorted(kills[name])) or "-"))


def read_costs(build):
    """ctest's own record of each test's average duration (seconds)."""
    costs = {}
    p = os.path.join(build, "Testing", "Temporary", "CTestCostData.txt")
    if os.path.isfile(p):
        with open(p, errors="replace") as f:
            for line in f:
                if line.startswith("---"):
                    break
                parts = line.split()
                if len(parts) == 3:
                    try:
                        costs[parts[0]] = float(parts[2])
                    except ValueError:
                        pass
    return costs


def test_outputs(build):
    """{test: the build outputs it runs} from the tests' command lines and
    environments; None (build everything) when it names none, or names a
    directory that holds outputs (a bin dir, the build itself)."""
    import json
    shown = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                           capture_output=True, text=True).stdout
    outs = subprocess.run(["ninja", "-C", build, "-t", "targets", "all"],
                          capture_output=True, text=True).stdout
    outputs = {l.split(":")[0] for l in outs.splitlines() if ":" in l}
    bdir = os.path.realpath(build) + os.sep
    res = {}
    for t in json.loads(shown).get("tests", []):
        words = list(t.get("command") or [])
        for p in t.get("properties", []):
            if p.get("name") == "ENVIRONMENT":
                words += p.get("value") or []
        need = set()
        for w in words:
            for tok in re.split(r"[\s=:]+", w):
                if not tok.startswith(bdir):
                    continue
                rel = tok[len(bdir):].rstrip("/")
                if rel in outputs:
                    need.add(rel)
                elif os.path.isdir(tok) and any(rel == "" or o.startswith(rel + "/")
                                                for o in outputs):
                    need = None     # a directory of outputs: it may run any of them
                    break
            if need is None:
                break
        res[t["name"]] = need or None
    return res


def group_of(name, same):
    return same.of(name)


class CtestLauncher:
    """Starts one test as its own ctest (start) and reads its result (poll:
    None while it runs, True passed, False failed or no result)."""

    def __init__(self, build, timeout, logdir, tag):
        self.build, self.timeout, self.logdir, self.tag = build, timeout, logdir, tag

    def start(self, t):
        junit = os.path.join(self.logdir, "%s.%s.xml" % (self.tag, t))
        log = os.path.join(self.logdir, "%s.%s.log" % (self.tag, t))
        if os.path.exists(junit):
            os.unlink(junit)
        with open(log, "w") as f:
            pr = subprocess.Popen(["ctest", "--test-dir", self.build, "-R",
                                   "^%s$" % re.escape(t), "--timeout", str(self.timeout),
                                   "--output-on-failure", "--output-junit", junit],
                                  stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        return (pr, t, junit)

    def poll(self, h):
        pr, t, junit = h
        if pr.poll() is None:
            return None
        if not os.path.exists(junit):
            return False
        for tc in ET.parse(junit).getroot().iter("testcase"):
            if tc.get("name") == t:
                return tc.get("status", "") == "run"
        return False

    def kill(self, h):
        try:
            os.killpg(h[0].pid, 9)
        except OSError:
            pass
        h[0].wait()


def run_until(launcher, tests, need, same, jobs, killed=()):
    """Runs tests (in order, `jobs` at a time) until `need` independent
    tests failed, not counting the groups in `killed` (a test of such a
    group never runs); a test whose group already failed or is running
    waits (it runs only if that group's running test passes).
    -> (passed, failed, not run)."""
    import collections
    pending = collections.deque(tests)
    running = {}            # handle -> test
    passed, failed = [], []
    killed_groups, busy_groups = set(killed), set()
    try:
        while len(killed_groups) - len(set(killed)) < need and (pending or running):
            while len(running) < jobs:
                pick = None
                for t in pending:
                    g = group_of(t, same)
                    if g not in killed_groups and g not in busy_groups:
                        pick = t
                        break
                if pick is None:
                    break
                pending.remove(pick)
                h = launcher.start(pick)
                running[h] = pick
                busy_groups.add(group_of(pick, same))
            if not running:
                # everything left is in a group that already failed
                break
            done = None
            for h in running:
                r = launcher.poll(h)
                if r is not None:
                    done = (h, r)
                    break
            if done is None:
                time.sleep(0.2)
                continue
            h, ok = done
            t = running.pop(h)
            busy_groups.discard(group_of(t, same))
            if ok:
                passed.append(t)
            else:                   # failed, or no result at all (ctest broke)
                failed.append(t)
                killed_groups.add(group_of(t, same))
    finally:
        for h in list(running):
            launcher.kill(h)
    return passed, failed, list(pending) + list(running.values())


def by_cost(names, costs, first=()):
    """Last time's killers (first) before the rest, each part fastest first."""
    first = set(first)
    return sorted(names, key=lambda t: (t not in first, costs.get(t, 1e9), t))


def quick_select(listed, suite, need, same, killers, costs, run, build_all, log=print):
    """--quick for one mutant: its listed tests, last time's killers and the
    fastest first, until `need` independent tests failed; too few: the rest
    of the suite (after build_all() succeeds), not counting a group that
    already failed. run(tests, need, killed, tag) -> (passed, failed, not
    run). -> (passed, failed or None when build_all failed, number run)."""
    passed, failed, _ = run(by_cost(listed, costs, killers), need, (), "")
    got = independent(failed, same)
    if got < need:
        seen = set(passed) | set(failed)
        rest = by_cost([x for x in suite if x not in seen], costs, killers)
        log("    %d of %d independent tests failed; the rest of the suite (%d tests)"
            % (got, need, len(rest)))
        if not build_all():
            return passed, None, len(passed) + len(failed)
        p2, f2, _ = run(rest, need - got, {group_of(x, same) for x in failed}, ".suite")
        passed, failed = passed + p2, failed + f2
    return passed, failed, len(passed) + len(failed)


def unverified_failures(unverified, verify_failed):
    """The fallback's tests the unmutated copy did not run before, rerun
    unmutated: the ones that count for nothing (failed there, or all of them
    when the rerun gave no results at all, verify_failed None)."""
    return set(unverified if verify_failed is None else verify_failed)


def main(argv):
    root = os.environ.get("WEFT_ROOT") or os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    broot = os.environ.get("WEFT_BUILD_ROOT") or os.path.join(root, "build-ci")
    jobs = int(os.environ.get("WEFT_JOBS") or os.cpu_count() or 2)
    only, all_tests, check, check_build, cc = None, False, False, None, "gcc"
    quick, record = False, False
    killfile = os.path.join(root, "tests", "mutants", "kills.txt")
    timeout, work, out = 300, None, None
    listfile = os.path.join(root, "tests", "mutants", "mutants.txt")
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ("--only", "--jobs", "--cc", "--timeout", "--work", "--out", "--build", "--list",
                 "--kills"):
            if not args:
                die_usage("%s takes a value" % a)
            v = args.pop(0)
            if a == "--only":
                only = [x for x in v.split(",") if x]
            elif a in ("--jobs", "--timeout"):
                if not v.isdigit() or int(v) < 1:
                    die_usage("%s takes a number >= 1" % a)
                if a == "--jobs":
                    jobs = int(v)
                else:
                    timeout = int(v)
            elif a == "--cc":
                cc = v
            elif a == "--work":
                work = os.path.abspath(v)
            elif a == "--out":
                out = os.path.abspath(v)
            elif a == "--build":
                check_build = os.path.abspath(v)
            elif a == "--kills":
                killfile = os.path.abspath(v)
            else:
                listfile = os.path.abspath(v)
        elif a == "--all-tests":
            all_tests = True
        elif a == "--check":
            check = True
        elif a == "--quick":
            quick = True
        elif a == "--record":
            record = True
        else:
            die_usage("unknown argument '%s'" % a)

    if quick and all_tests:
        die_usage("--quick and --all-tests exclude each other")
    muts, same, dflt_exclude = parse(listfile)
    kills = read_kills(killfile)
    if only:
        unknown = [n for n in only if n not in {m.name for m in muts}]
        if unknown:
            die_usage("no such mutant: " + ", ".join(unknown))
        muts = [m for m in muts if m.name in only]

    stale = stale_anchors(muts, root)
    if check:
        probs = list(stale)
        if check_build:
            same = Groups(same, test_programs(check_build, root))
            for m in muts:
                n = independent(list_tests(check_build, m.tests, m.exclude), same)
                if n < m.need:
                    probs.append("%s: tests '%s' select %d independent tests of %s, need %d"
                                 % (m.name, m.tests, n, check_build, m.need))
        names = {m.name for m in parse(listfile)[0]}
        probs += ["kill map %s: no mutant %s in the list" % (killfile, k)
                  for k in kills if k not in names]
        for p in probs:
            print("mutants: STALE " + p)
        print("mutants: %d mutants, %d problems" % (len(muts), len(probs)))
        return EXIT_FAIL if probs else EXIT_OK
    if stale:
        for p in stale:
            print("mutants: STALE " + p)
        print("mutants: the list no longer matches the tree: fix tests/mutants/mutants.txt")
        return EXIT_FAIL

    t0 = time.time()
    try:
        os.nice(10)   # a tier of rebuilds on shared cores: yield to interactive work
    except OSError:
        pass
    work = work or os.path.join(broot, "mutants")
    src, build, logs = (os.path.join(work, d) for d in ("src", "build", "logs"))
    rroot, rwork = os.path.realpath(root), os.path.realpath(work)
    if rroot == rwork or rroot.startswith(rwork + os.sep) or (
            rwork.startswith(rroot + os.sep) and subprocess.run(
                ["git", "-C", root, "check-ignore", "-q", rwork]).returncode != 0):
        die_usage("--work %s: not a scratch directory (inside the checkout, not ignored)" % work)
    os.makedirs(logs, exist_ok=True)
    os.makedirs(src, exist_ok=True)
    print("=== mutants: %d mutants; copy of %s in %s" % (len(muts), root, src), flush=True)
    sync_tree(root, src)
    if stale_anchors(muts, src):
        print("mutants: the copy differs from the checkout", file=sys.stderr)
        return EXIT_SETUP

    t = time.time()
    env = dict(os.environ, CC=cc)
    if run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DWEFT_WERROR=OFF"],
           os.path.join(logs, "configure.log"), env=env):
        print(tail(os.path.join(logs, "configure.log")))
        return EXIT_SETUP
    blog = os.path.join(logs, "build-unmutated.log")
    if run(["cmake", "--build", build, "-j", str(jobs)], blog):
        print(tail(blog))
        return EXIT_SETUP
    same = Groups(same, test_programs(build, src))
    if all_tests:
        for m in muts:
            m.tests, m.exclude = ".", ""
    selected = set()
    for m in muts:
        names = list_tests(build, m.tests, m.exclude)
        selected.update(names)
        n = independent(names, same)
        if n < m.need:
            print("mutants: %s: tests '%s' select %d independent tests, need %d"
                  % (m.name, m.tests, n, m.need))
            return EXIT_FAIL
    # the unmutated copy must pass every test some mutant counts on
    regex = "^(%s)$" % "|".join(re.escape(n) for n in sorted(selected))
    passed, failed = ctest(build, regex, "", jobs, timeout, os.path.join(logs, "ctest-unmutated.log"),
                           os.path.join(logs, "unmutated.xml"))
    if failed is None or failed or not passed:
        print("mutants: the unmutated copy fails its tests: %s (log: %s)"
              % (short_list(failed or []), os.path.join(logs, "ctest-unmutated.log")))
        return EXIT_SETUP
    print("unmutated: built and %d tests passed in %d s" % (len(passed), time.time() - t),
          flush=True)

    costs = read_costs(build)
    # every test a --quick fallback may run (the whole suite minus the list's exclude)
    suite = list_tests(build, ".", dflt_exclude) if quick else []

    outputs = test_outputs(build) if quick else {}
    everything = ["cmake", "--build", build, "-j", str(jobs)]

    def build_cmd(m):
        """--quick: only what the mutant's listed tests run (a fallback to
        the suite builds everything first); a binary left from an earlier
        mutant is never run, since every test's binaries are rebuilt
        before it runs."""
        if not quick:
            return everything
        need = set()
        for t in list_tests(build, m.tests, m.exclude):
            if outputs.get(t) is None:
                return everything
            need |= outputs[t]
        return ["ninja", "-C", build, "-j", str(jobs)] + sorted(need)

    def quick_run(m):
        def run_tests(tests, need, killed, tag):
            return run_until(CtestLauncher(build, timeout, logs, m.name + tag), tests, need,
                             same, jobs, killed)

        def build_all():
            return run(everything, os.path.join(logs, m.name + ".build-all.log")) == 0

        return quick_select(list_tests(build, m.tests, m.exclude), suite, m.need, same,
                            kills.get(m.name, ()), costs, run_tests, build_all,
                            log=lambda msg: print("    " + m.name + ":" + msg[3:], flush=True))

    verified = set(passed)      # passed unmutated
    rows = []
    for i, m in enumerate(muts, 1):
        t = time.time()
        orig = apply(m, src)
        try:
            blog = os.path.join(logs, m.name + ".build.log")
            if run(build_cmd(m), blog):
                status, caught, n, detail = "BROKEN", [], 0, "does not compile: " + blog
                print(tail(blog, 20))
            else:
                tb = time.time() - t
                if quick:
                    passed, failed, ran = quick_run(m)
                else:
                    passed, failed = ctest(build, m.tests, m.exclude, jobs, timeout,
                                           os.path.join(logs, m.name + ".ctest.log"),
                                           os.path.join(logs, m.name + ".xml"))
                    ran = len(passed) + len(failed or [])
                caught = failed or []
                n = independent(caught, same)
                if failed is not None:
                    # the kill map: what failed now, and what failed before and did not run now
                    kills[m.name] = sorted(set(caught) | (
                        set(kills.get(m.name, [])) - set(passed)))
                if failed is None:
                    status, detail = "ERROR", "ctest gave no results"
                elif n == 0:
                    status, detail = "SURVIVED", "%d tests passed" % len(passed)
                elif n < m.need:
                    status, detail = "WEAK", "caught by %d independent tests, need %d" % (n, m.need)
                else:
                    status, detail = "caught", ""
                detail = (detail + "; " if detail else "") + "build %d s, %d tests %d s" % (
                    tb, ran, time.time() - t - tb)
        finally:
            for p, text in orig.items():
                write(p, text)
        rows.append((m, status, caught, n))
        print("[%d/%d] %-28s %-8s %d/%d %s (%s)" % (i, len(muts), m.name, status, n, m.need,
                                                  short_list(caught) or "-", detail), flush=True)

    # a --quick fallback may count tests the unmutated copy never ran: run them
    # unmutated now (the copy is restored); one that fails there catches nothing
    unverified = sorted({c for _, _, caught, _ in rows for c in caught} - verified)
    if unverified:
        blog = os.path.join(logs, "build-unmutated-again.log")
        if run(["cmake", "--build", build, "-j", str(jobs)], blog):
            print(tail(blog))
            return EXIT_SETUP
        regex = "^(%s)$" % "|".join(re.escape(n) for n in unverified)
        p2, f2 = ctest(build, regex, "", jobs, timeout, os.path.join(logs, "ctest-verify.log"),
                       os.path.join(logs, "verify.xml"))
        bad_tests = unverified_failures(unverified, f2)
        if bad_tests:
            print("mutants: fail unmutated, not counted: %s" % short_list(bad_tests))
        for j, (m, st, caught, n) in enumerate(rows):
            if st in ("caught", "WEAK") and bad_tests & set(caught):
                caught = [c for c in caught if c not in bad_tests]
                n = independent(caught, same)
                st = "caught" if n >= m.need else "WEAK" if n else "SURVIVED"
                rows[j] = (m, st, caught, n)
                kills[m.name] = sorted(set(kills.get(m.name, [])) - bad_tests)
    if record:
        write_kills(killfile, kills, [m.name for m in parse(listfile)[0]])
        print("mutants: kill map written to %s" % killfile)

    ok = sum(1 for r in rows if r[1] == "caught")
    wall = time.time() - t0
    print("\n=== mutation score: %d/%d caught (%.0f%%), %d s wall" % (
        ok, len(rows), 100.0 * ok / max(1, len(rows)), wall))
    w = max(len(m.name) for m in muts)
    print("%-*s  %-8s  %5s  %s" % (w, "mutant", "result", "tests", "caught by (failed tests)"))
    for m, s, caught, n in rows:
        print("%-*s  %-8s  %2d/%-2d  %s" % (w, m.name, s, n, m.need, short_list(caught, 4)))
    if out:
        with open(out, "w") as f:
            f.write("| mutant | attacks | independent tests failed / needed | result | caught by |\n"
                    "|---|---|---|---|---|\n")
            for m, s, caught, n in rows:
                f.write("| `%s` | %s | %d / %d | %s | %s |\n" % (
                    m.name, m.attacks, n, m.need, s,
                    ", ".join("`%s`" % c for c in sorted(caught)) or "-"))
            f.write("\nscore %d/%d caught, %d s wall\n" % (ok, len(rows), wall))
    bad = [r for r in rows if r[1] != "caught"]
    for m, s, caught, n in bad:
        print("mutants: NOT CAUGHT %s: %s (%d of %d independent tests failed; attacks: %s)"
              % (m.name, s, n, m.need, m.attacks))
    print("mutants: %d caught, %d not" % (ok, len(bad)))
    return EXIT_OK if ok == len(rows) else EXIT_FAIL


if __name__ == "__main__":
    import signal
    # SIGTERM too unwinds through main's finally, which restores the copy
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
