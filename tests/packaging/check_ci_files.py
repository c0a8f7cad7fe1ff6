#!/usr/bin/env python3
"""check_ci_files.py ROOT - the CI, OSS-Fuzz and ClusterFuzzLite files parse
and say what they must: every YAML file loads; the OSS-Fuzz project is C with
libFuzzer and AFL++ under ASan and UBSan; the workflows cover PR fuzzing in
code-change mode, batch fuzzing, corpus pruning and the test command; the
Dockerfiles build on OSS-Fuzz's base-builder; the ClusterFuzzLite build calls
the OSS-Fuzz build script; .ci/run runs exactly the README's test command.
Exit: 0 ok, 1 a check failed (each failure is printed)."""
import glob
import os
import re
import sys

import yaml

root = sys.argv[1]
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)


def load(rel):
    with open(os.path.join(root, rel)) as f:
        return yaml.safe_load(f)


ymls = sorted(glob.glob(os.path.join(root, ".github/workflows/*.yml"))) + [
    os.path.join(root, ".clusterfuzzlite/project.yaml"),
    os.path.join(root, "tools/oss-fuzz/project.yaml")]
docs = {}
for p in ymls:
    rel = os.path.relpath(p, root)
    try:
        docs[rel] = load(rel)
    except Exception as e:  # a parse error names the file and the line
        errors.append("%s: not valid YAML: %s" % (rel, e))
        continue
    check(isinstance(docs[rel], dict), "%s: not a mapping" % rel)

oss = docs.get("tools/oss-fuzz/project.yaml") or {}
check(oss.get("language") == "c", "oss-fuzz project.yaml: language must be c")
check(set(oss.get("fuzzing_engines") or []) == {"libfuzzer", "afl"},
      "oss-fuzz project.yaml: fuzzing_engines must be libfuzzer and afl")
check(set(oss.get("sanitizers") or []) == {"address", "undefined"},
      "oss-fuzz project.yaml: sanitizers must be address and undefined")
check("main_repo" in oss, "oss-fuzz project.yaml: main_repo missing")
check((docs.get(".clusterfuzzlite/project.yaml") or {}).get("language") == "c",
      "clusterfuzzlite project.yaml: language must be c")

workflows = {k: v for k, v in docs.items() if k.startswith(".github/")}
modes, runs = set(), []
for name, w in workflows.items():
    if not isinstance(w, dict):
        continue
    # YAML 1.1 reads a bare `on:` key as True
    check("on" in w or True in w, "%s: no trigger (on:)" % name)
    check(isinstance(w.get("jobs"), dict) and w["jobs"], "%s: no jobs" % name)
    for jname, job in (w.get("jobs") or {}).items():
        steps = job.get("steps") or []
        check(steps, "%s: job %s has no steps" % (name, jname))
        for s in steps:
            check("uses" in s or "run" in s, "%s: job %s: a step with neither uses nor run" % (name, jname))
            if "run" in s:
                runs.append(s["run"])
            if "clusterfuzzlite/actions/run_fuzzers" in str(s.get("uses", "")):
                modes.add((s.get("with") or {}).get("mode"))
            if "clusterfuzzlite/actions/build_fuzzers" in str(s.get("uses", "")):
                check((s.get("with") or {}).get("language") == "c",
                      "%s: build_fuzzers without language: c" % name)
for m in ("code-change", "batch", "prune"):
    check(m in modes, "no ClusterFuzzLite workflow runs mode %s" % m)
check(any(r.strip() == "tools/test" for r in runs), "no workflow step runs tools/test")
check(any(r.strip().startswith("tools/ci-fuzz") for r in runs), "no workflow step runs tools/ci-fuzz")

for df in ("tools/oss-fuzz/Dockerfile", ".clusterfuzzlite/Dockerfile"):
    text = open(os.path.join(root, df)).read()
    check(re.search(r"^FROM gcr\.io/oss-fuzz-base/base-builder\s*$", text, re.M),
          "%s: not FROM gcr.io/oss-fuzz-base/base-builder" % df)
    for pkg in ("cmake", "ninja-build", "libzstd-dev"):
        check(pkg in text, "%s: does not install %s" % (df, pkg))
check("tools/oss-fuzz/build.sh" in open(os.path.join(root, ".clusterfuzzlite/build.sh")).read(),
      ".clusterfuzzlite/build.sh does not call tools/oss-fuzz/build.sh")
build = open(os.path.join(root, "tools/oss-fuzz/build.sh")).read()
for v in ("$CC", "$CFLAGS", "$CXX", "$LIB_FUZZING_ENGINE", "$OUT", "_seed_corpus.zip", ".dict", ".options"):
    check(v in build, "tools/oss-fuzz/build.sh never mentions %s" % v)

ci = [l.strip() for l in open(os.path.join(root, ".ci/run")) if l.strip() and not l.startswith("#")]
readme = open(os.path.join(root, "README.md")).read()
check(ci and ci[-1] == "exec tools/test", ".ci/run must end with 'exec tools/test'")
check(re.search(r"^tools/test\s*$", readme, re.M), "README.md does not show the command tools/test")
check(re.search(r"^tools/quickstart\s*$", readme, re.M), "README.md does not show the command tools/quickstart")

for e in errors:
    print("FAIL:", e)
print("check_ci_files: %d YAML files, %d workflows, %d failed checks" % (len(docs), len(workflows), len(errors)))
sys.exit(1 if errors else 0)
