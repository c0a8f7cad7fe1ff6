#!/usr/bin/env bash
# Builds the core tests for aarch64 and runs them under qemu-user: the
# hand-written aarch64 context switch (registers, deep recursion, 16
# fibers, stack overflow) and the golden trace hashes recorded on x86-64.
# Exit 77 (skipped) without gcc-aarch64-linux-gnu and qemu-user.
set -euo pipefail
src=${1:?source dir}
command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null || {
	echo "skipped: install gcc-aarch64-linux-gnu qemu-user"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$src"
# libweft as core/CMakeLists.txt builds it (every folder but native/)
lib=(core/src/{common,machine,primitives,search}/*.c core/src/machine/fiber_aarch64.S
     core/demo/*.c core/mm/*.c core/zoo/*.c core/registry/registry.c)
cc=(aarch64-linux-gnu-gcc -std=gnu11 -O2 -g -Wall -Wextra -Icore/include -Itests
    -Icore/src/common -Icore/src/machine -Icore/src/primitives)
"${cc[@]}" "${lib[@]}" tests/core/test_machine.c tests/core/regs_aarch64.S -o "$out/test_machine"
"${cc[@]}" "${lib[@]}" tests/core/test_golden.c -o "$out/test_golden"
run() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"; }
run "$out/test_machine"
run "$out/test_golden"
