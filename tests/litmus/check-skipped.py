#!/usr/bin/env python3
"""check-skipped.py PARSER DOC [LINUX_KERNEL_DEF] - the primitives weft
litmus skips are the ones docs/litmus.md lists.

PARSER is litmus/litmus_parse.c: its calls[] table (what the runner models)
and skipped[] (the rest of the LKMM's vocabulary, each skipped with its
reason). DOC is docs/litmus.md: the names in backquotes between the markers
<!-- skipped: ... --> and <!-- /skipped --> must be skipped[]'s, no more, no
fewer. With LINUX_KERNEL_DEF (tools/memory-model/linux-kernel.def of the
kernel tree), every primitive it defines must be in calls[] or skipped[]
(a _relaxed/_acquire/_release form through its base name), so a primitive
the LKMM gains is either modelled or listed, never skipped unlisted.
Exit 0 when all hold, 1 with each difference."""
import re
import sys

SUFFIXES = ("_relaxed", "_acquire", "_release")


def table(src, name):
    m = re.search(r"\b%s\[\]\s*=\s*\{(.*?)\n\};" % name, src, re.S)
    if not m:
        sys.exit("check-skipped: no %s[] table in the parser" % name)
    return re.findall(r'\{\s*"(\w+)",\s*([A-Z_]\w*|")', m.group(1))


def main():
    src = open(sys.argv[1]).read()
    doc = open(sys.argv[2]).read()
    calls = {n: kind for n, kind in table(src, "calls")}
    skipped = {n for n, _ in table(src, "skipped")}
    bad = 0
    m = re.search(r"<!-- skipped:.*?-->(.*?)<!-- /skipped -->", doc, re.S)
    if not m:
        print("FAIL: docs/litmus.md has no <!-- skipped: --> list")
        return 1
    listed = set(re.findall(r"`([A-Za-z]\w*)(?:\(\))?`", m.group(1)))
    for n in sorted(skipped - listed):
        print("FAIL: the parser skips %s(), docs/litmus.md does not list it" % n)
        bad = 1
    for n in sorted(listed - skipped):
        print("FAIL: docs/litmus.md lists %s() as skipped, the parser's skipped[] has not" % n)
        bad = 1
    for n in sorted(skipped & set(calls)):
        print("FAIL: %s() is both modelled (calls[]) and skipped" % n)
        bad = 1
    nr_def = 0
    if len(sys.argv) > 3:
        for line in open(sys.argv[3]):
            d = re.match(r"([A-Za-z_]\w*)\(", line)
            if not d:
                continue
            n = d.group(1)
            nr_def += 1
            base = next((n[: -len(s)] for s in SUFFIXES if n.endswith(s)), None)
            if n in calls or n in skipped or base in skipped or \
                    (base in calls and calls[base] == "L_RMW"):
                continue
            print("FAIL: linux-kernel.def's %s() is neither modelled nor skipped" % n)
            bad = 1
    print("%d modelled, %d skipped, %d listed%s: %s" % (
        len(calls), len(skipped), len(listed),
        ", %d in linux-kernel.def" % nr_def if nr_def else "", "FAIL" if bad else "ok"))
    return bad


sys.exit(main())
