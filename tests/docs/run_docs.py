#!/usr/bin/env python3
"""run_docs.py --root ROOT --bin BINDIR [FILE...]: every command in the docs
is run (or, where a longer tier runs it, checked against that script).

Rules (docs/ci-and-oss-fuzz.md, "Docs are tested"):
  ```sh            every command line is run with bash in a scratch folder
                   (the source folders linked in; BINDIR
                   first on PATH); a trailing "# exit N" is the expected exit
                   code (default 0), "# exit 1: KIND" also wants an
                   "ERROR:" or "SUMMARY: weft: KIND" line; "\\" continues a line.
                   A nondeterministic command (a native stress run, anything
                   timed) must not pin one code: "# exit 0|1" lists every
                   code it may give (each still checked: a usage error or a
                   crash fails).
  ```sh run-by=S   too slow or too invasive for ctest (installs, fuzzing
                   campaigns): each command's program, subcommand and --flags
                   must appear in script S, which a CI tier runs.
  <!-- doc-test: output -->  before a ```text block: each of its lines must
                   be in the output of the last command of the block before
                   ("..." lines mark elisions).
  <!-- doc-test: excerpt FILE --> before a code block: each of its lines
                   is a line of FILE (a tutorial quotes real code).
  <!-- doc-test: help CMD --> before a ```text block: every flag the block
                   names is a flag of `weft help CMD` (docs/cli.md; a flag
                   the page lacks is a warning: regenerate the page).
Exit: 0 all pass, 1 a failure (printed), 2 usage."""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--root", required=True)
ap.add_argument("--bin", required=True)
ap.add_argument("--timeout", type=int, default=300)
ap.add_argument("files", nargs="*")
a = ap.parse_args()
root = os.path.abspath(a.root)
bindir = os.path.abspath(a.bin)
# The pages written to these rules; a page joins by being named here (or in
# tests/docs/CMakeLists.txt). docs/fuzzing.md, replay-format.md,
# benchmarks.md and zoo/ have their own tests in their areas.
DEFAULT = ["README.md", "docs/architecture.md", "docs/cli.md", "docs/writing-a-model.md",
           "docs/examples/refcount-put/README.md",
           "docs/detectors.md", "docs/strategies.md", "docs/ci-and-oss-fuzz.md",
           "docs/testing-c-programs.md", "docs/examples/pthread-bank/README.md",
           "docs/kernel-text.md"]
files = a.files or DEFAULT

failures = []
counts = dict(run=0, mirrored=0, outputs=0, helps=0)


def blocks(text):
    """(info, lines, marker, lineno) for each fenced block (also indented
    ones, in list items); marker: the doc-test comment right before it."""
    out, marker, cur = [], None, None
    for n, l in enumerate(text.split("\n"), 1):
        st = l.strip()
        if cur is not None:
            if st == "```":
                out.append((cur[0], cur[1], cur[2], cur[3]))
                cur = None
            else:
                cur[1].append(l[cur[4]:] if l[:cur[4]].strip() == "" else l)
            continue
        if st.startswith("```"):
            cur = (st[3:].strip(), [], marker, n, len(l) - len(l.lstrip()))
            marker = None
            continue
        c = re.match(r"^<!--\s*doc-test:\s*(.*?)\s*-->$", st)
        if c:
            marker = c.group(1)
        elif st:
            marker = None
    return out


def commands(lines):
    cmds, cur = [], ""
    for l in lines:
        if cur:
            cur += " " + l.strip()
        else:
            if not l.strip() or l.lstrip().startswith("#"):
                continue
            cur = l.strip()
        if cur.endswith("\\"):
            cur = cur[:-1].rstrip()
            continue
        cmds.append(cur)
        cur = ""
    if cur:
        cmds.append(cur)
    return cmds


def expected_exits(cmd):
    """The exit codes a command may give: "# exit 1" -> {1}, "# exit 0|1"
    -> {0, 1} (a nondeterministic command), none -> {0}."""
    m = re.search(r"#\s*exit\s+(\d+(?:\|\d+)*)", cmd)
    return {int(x) for x in m.group(1).split("|")} if m else {0}


def scratch():
    d = tempfile.mkdtemp(prefix="weft-doc-")
    for n in ("corpus", "docs", "tools", "fuzz", "core", "tests", "replay", "bench", "cmake", "rt", "litmus"):
        if os.path.exists(os.path.join(root, n)):
            os.symlink(os.path.join(root, n), os.path.join(d, n))
    return d


env = dict(os.environ)
env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
env["WEFT_DOC_ROOT"] = root

for f in files:
    path = os.path.join(root, f)
    text = open(path).read()
    cwd = scratch()
    last_out = None
    try:
        for info, lines, marker, lineno in blocks(text):
            where = "%s:%d" % (f, lineno)
            words = info.split()
            lang = words[0] if words else ""
            attrs = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            if lang == "sh" and "run-by" in attrs:
                script = os.path.join(root, attrs["run-by"])
                if not os.path.isfile(script):
                    failures.append("%s: run-by=%s: no such script" % (where, attrs["run-by"]))
                    continue
                body = open(script).read()
                for c in commands(lines):
                    toks = shlex.split(c.split("#")[0])
                    need = [toks[0]] + ([toks[1]] if len(toks) > 1 and re.match(r"^[a-z][a-z-]*$", toks[1]) else [])
                    need += [t.split("=")[0] for t in toks if t.startswith("--")]
                    missing = [t for t in need if t not in body and os.path.basename(t) not in body]
                    if missing:
                        failures.append("%s: '%s' is not what %s runs (missing %s)" % (where, c, attrs["run-by"], missing))
                    counts["mirrored"] += 1
                continue
            if lang == "sh":
                for c in commands(lines):
                    want = expected_exits(c)
                    # the native stress test runs on real threads: whether the
                    # race shows in a second is luck, so its code must not be
                    # pinned (issue: a docs example flaked 2 in 3 loaded runs)
                    if re.search(r"(^|[\s;|&])(weft\s+stress|weft-stress)\s", c) and len(want) < 2:
                        failures.append("%s: '%s' is nondeterministic (real threads): write every code "
                                        "it may give, e.g. '# exit 0|1'" % (where, c))
                        continue
                    # "! grep ..." (a rule: no match) passes only when grep finds
                    # nothing (exit 1), not when it fails (exit 2: a folder that is
                    # not there, a bad pattern), so that no rule passes vacuously
                    run = c
                    if want == {0} and re.match(r"^\s*!\s+grep\s", c):
                        run, want = re.sub(r"^\s*!\s+", "", c), {1}
                    try:
                        p = subprocess.run(["bash", "-c", "set -o pipefail; " + run], cwd=cwd, env=env,
                                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, timeout=a.timeout)
                    except subprocess.TimeoutExpired:
                        failures.append("%s: '%s' did not finish in %d s" % (where, c, a.timeout))
                        continue
                    counts["run"] += 1
                    last_out = p.stdout.decode(errors="replace")
                    # "# exit 1: double-free": the report must be of that kind
                    k = re.search(r"#\s*exit\s+1:\s*([a-z][a-z-]*)\s*$", c)
                    if k and p.returncode == 1 and not re.search(r"(ERROR|SUMMARY): weft: %s " % re.escape(k.group(1)), last_out):
                        failures.append("%s: '%s' reported no %s:\n%s" % (where, c, k.group(1), last_out[-2000:]))
                    if p.returncode not in want:
                        failures.append("%s: '%s' exited %d, the doc says %s; output:\n%s" % (
                            where, c, p.returncode, "|".join(map(str, sorted(want))), last_out[-3000:]))
                continue
            if marker == "output":
                counts["outputs"] += 1
                have = {l.rstrip() for l in (last_out or "").split("\n")}
                for l in lines:
                    if l.strip() and l.strip() != "..." and l.rstrip() not in have:
                        failures.append("%s: this line is not in the output of the command above:\n  %s" % (where, l))
            elif marker and marker.startswith("excerpt "):
                counts["outputs"] += 1
                src = os.path.join(root, marker.split()[1])
                have = {l.strip() for l in open(src).read().split("\n")} if os.path.isfile(src) else set()
                for l in lines:
                    if l.strip() and l.strip() not in have:
                        failures.append("%s: this line is not in %s:\n  %s" % (where, marker.split()[1], l))
            elif marker and (marker == "help" or marker.startswith("help ")):
                counts["helps"] += 1
                cmd = " ".join(marker.split()[1:])
                p = subprocess.run([os.path.join(bindir, "weft"), "help"] + marker.split()[1:], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, env=env)
                got = p.stdout.decode()
                # the same flags and subcommands (wording may move on; the
                # interface may not drift from its reference)
                flags = lambda t: set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", t))
                doc_flags, bin_flags = flags("\n".join(lines)), flags(got)
                # a documented flag the binary lacks is a lie: a failure; a
                # new flag not yet documented is a warning (regenerate)
                if p.returncode != 0 or doc_flags - bin_flags:
                    failures.append("%s: this block documents %s, which `weft help %s` does not have "
                                    "(regenerate: tests/docs/gen_cli_md.py build/bin/weft > docs/cli.md)" % (
                                        where, sorted(doc_flags - bin_flags), cmd))
                elif bin_flags - doc_flags:
                    print("WARNING: %s: `weft help %s` has %s, not yet in docs/cli.md (regenerate: "
                          "tests/docs/gen_cli_md.py build/bin/weft > docs/cli.md)" % (
                              where, cmd, sorted(bin_flags - doc_flags)))
    finally:
        shutil.rmtree(cwd, ignore_errors=True)

for x in failures:
    print("FAIL:", x)
print("docs: %d files, %d commands run, %d mirrored by CI scripts, %d output blocks, %d help blocks; %d failed"
      % (len(files), counts["run"], counts["mirrored"], counts["outputs"], counts["helps"], len(failures)))
sys.exit(1 if failures else 0)
