#!/bin/sh
# tests/packaging/check_model_ctest.sh - ctest in a project that uses the
# installed weft_add_model() (cmake/WeftModel.cmake) and has no corpus/:
# installs this build tree into a scratch prefix, copies
# docs/examples/refcount-put out of the tree (no corpus/), configures and
# builds it with find_package(weft) (regression engine), and runs its
# ctest: one test per VARIANTS entry (obj-put_check_...), both passing; it
# said "No tests were found" before. Then the same project with
# CHECK_ARGS too weak to find split-put's bug (dfs bound 0: it needs one
# preemption) must fail that variant's test and say why.
#
# Usage: check_model_ctest.sh SOURCE_DIR BUILD_DIR WORK_DIR CC
# Exit codes: 0 pass, 1 a check failed, 2 usage.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 SOURCE_DIR BUILD_DIR WORK_DIR CC" >&2; exit 2; }
src=$1 build=$2 work=$3 cc=$4
fail() { echo "check_model_ctest: FAILED: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "cmake --install"; }
[ -n "$(find "$prefix" -name WeftModelCheck.cmake)" ] || fail "WeftModelCheck.cmake not installed"

ex="$work/refcount-put"
cp -r "$src/docs/examples/refcount-put" "$ex"
rm -rf "$ex/build"
[ ! -e "$ex/corpus" ] || fail "the example has a corpus/: this test is about a project without one"
CC="$cc" cmake -S "$ex" -B "$ex/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log"; fail "configure the example"; }
cmake --build "$ex/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the example"; }
ctest --test-dir "$ex/build" --output-on-failure >"$work/ctest.log" 2>&1 ||
	{ cat "$work/ctest.log"; fail "the example's ctest failed"; }
cat "$work/ctest.log"
! grep -q "No tests were found" "$work/ctest.log" || fail "ctest found no tests"
grep -q "obj-put_check_example_obj_put_split_put .*Passed" "$work/ctest.log" || fail "no passing split-put check"
grep -q "obj-put_check_example_obj_put_dec_and_test .*Passed" "$work/ctest.log" || fail "no passing dec-and-test check"
grep -q "100% tests passed, 0 tests failed out of 2" "$work/ctest.log" || fail "not 2 tests passed"

# a search too weak for the bug: its check fails, naming the variant
sed -i 's/VARIANTS example-obj-put:split-put example-obj-put:dec-and-test)/VARIANTS example-obj-put:split-put example-obj-put:dec-and-test CHECK_ARGS --strategy dfs --bound 0)/' \
	"$ex/CMakeLists.txt"
grep -q "CHECK_ARGS --strategy dfs --bound 0" "$ex/CMakeLists.txt" || fail "could not set CHECK_ARGS in the copy"
cmake --build "$ex/build" >"$work/build2.log" 2>&1 || { cat "$work/build2.log"; fail "rebuild the example"; }
if ctest --test-dir "$ex/build" --output-on-failure >"$work/ctest2.log" 2>&1; then
	cat "$work/ctest2.log"; fail "a check that cannot find split-put's bug passed"
fi
# (CMake wraps the message: one line of it, blanks squeezed)
tr '\n' ' ' <"$work/ctest2.log" | tr -s ' ' |
	grep -q "example-obj-put:split-put is a bug (double-free) but .* exited 0 without finding it" ||
	{ cat "$work/ctest2.log"; fail "the failing check does not say why"; }
grep -q "obj-put_check_example_obj_put_dec_and_test .*Passed" "$work/ctest2.log" || fail "dec-and-test check not passing"
echo "check_model_ctest: ok (2 checks pass without a corpus; a too-weak search fails split-put's check)"
