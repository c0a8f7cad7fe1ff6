#!/usr/bin/env bash
# check_scripts.sh ROOT - the CI scripts parse, are strict, and keep their
# documented usage contract: --help exits 0, an unknown argument exits 2.
# Exit: 0 ok, 1 a check failed.
set -euo pipefail
root="${1:?usage: check_scripts.sh ROOT}"
cd "$root"
scripts=(tools/test tools/quickstart tools/ci-fuzz tools/ci/install-deps tools/ci/determinism
	tools/ci/medium tools/ci/long tools/ci/flake-hunt tools/ci/mutants tools/oss-fuzz/check-build tools/oss-fuzz/build.sh
	.clusterfuzzlite/build.sh .ci/run tests/packaging/example-from-install
	tests/packaging/program-from-install tests/rt/check-programs tests/rt/check-replay
	tests/rt/check-read-before-write)
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
for s in "${scripts[@]}"; do
	[ -f "$s" ] || { bad "$s: missing"; continue; }
	[ -x "$s" ] || bad "$s: not executable"
	bash -n "$s" || bad "$s: does not parse"
	head -c 2 "$s" | grep -q '#!' || bad "$s: no #! line"
	grep -qE '^set -euo pipefail|^#!/bin/bash -eu|^exec ' "$s" || bad "$s: not strict (set -euo pipefail)"
done
# usage contract of the scripts that take flags (no side effects before parsing)
for s in tools/test tools/ci-fuzz tools/ci/install-deps tools/ci/medium tools/ci/long tools/quickstart \
	tools/ci/flake-hunt tools/ci/mutants; do
	[ -x "$s" ] || continue
	rc=0; "$s" --help >/dev/null 2>&1 || rc=$?
	[ "$rc" = 0 ] || bad "$s --help exited $rc, want 0"
	rc=0; "$s" --no-such-flag >/dev/null 2>&1 </dev/null || rc=$?
	[ "$rc" = 2 ] || bad "$s --no-such-flag exited $rc, want 2"
done
rc=0; tools/ci/flake-hunt >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || bad "tools/ci/flake-hunt without a build exited $rc, want 2"
rc=0; tools/ci/determinism >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || bad "tools/ci/determinism without builds exited $rc, want 2"
rc=0; tools/ci-fuzz --engine honggfuzz >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || bad "tools/ci-fuzz --engine honggfuzz exited $rc, want 2"
rc=0; tools/ci-fuzz --time 0 >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || bad "tools/ci-fuzz --time 0 exited $rc, want 2"
rc=0; tools/quickstart z1-lru:z1a notanumber >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || bad "tools/quickstart z1-lru:z1a notanumber exited $rc, want 2"
echo "check_scripts: ${#scripts[@]} scripts, $fails failed checks"
[ "$fails" = 0 ]
