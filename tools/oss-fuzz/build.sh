#!/bin/bash -eu
# tools/oss-fuzz/build.sh - the OSS-Fuzz / ClusterFuzzLite build of Weft.
#
# Builds every fuzz target of a FIXED variant (`weft list --json`, expect
# "clean") and every other fuzz/target_*.c (the replay reader) with $CC
# $CFLAGS, links them with $CXX $CXXFLAGS $LIB_FUZZING_ENGINE, and writes to
# $OUT: each target, <target>_seed_corpus.zip (corpus/<target>/),
# <target>.dict and <target>.options (corpus/).
#
# Inputs (set by OSS-Fuzz, or by tools/oss-fuzz/check-build locally):
#   CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE OUT WORK SRC, FUZZING_ENGINE
#   (libfuzzer | afl; default libfuzzer). WEFT_SRC: the checkout (default:
#   the repository this script is in).
# Exit: non-zero on any failure (bash -e).

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -n "${WEFT_SRC:-}" ]; then
	src="$WEFT_SRC"
elif [ -f "$here/../../CMakeLists.txt" ]; then
	src="$(cd "$here/../.." && pwd)"
else
	src="$SRC/weft"
fi
engine="${FUZZING_ENGINE:-libfuzzer}"
case "$engine" in
	libfuzzer|afl) ;;
	*) echo "build.sh: FUZZING_ENGINE=$engine is not supported (libfuzzer, afl)" >&2; exit 1 ;;
esac
build="$WORK/weft-$engine"
host="$WORK/weft-host"

# 1. A plain host build of the weft CLI: only to read the variant list.
env -u CFLAGS -u CXXFLAGS -u LDFLAGS CC="${WEFT_HOST_CC:-clang}" \
	cmake -S "$src" -B "$host" -G Ninja -DWEFT_BUILD_TESTS=OFF >/dev/null
cmake --build "$host" --target weft_exe >/dev/null
fixed="$("$host/bin/weft" list --json | python3 -c '
import json, re, sys
for v in json.load(sys.stdin):
    if v["expect"] == "clean":
        print("fuzz_" + re.sub(r"[^A-Za-z0-9_]", "_", v["scenario"] + "_" + v["variant"]))')"

# 2. The fuzz targets with OSS-Fuzz's compilers and flags; C is linked by
# $CXX so that a C++ fuzzing engine library links.
cmake -S "$src" -B "$build" -G Ninja \
	-DCMAKE_BUILD_TYPE=None \
	-DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$CFLAGS" \
	-DCMAKE_C_LINK_EXECUTABLE="$CXX <FLAGS> $CXXFLAGS <CMAKE_C_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>" \
	-DWEFT_FUZZ_ENGINE="$engine" -DWEFT_FUZZ_LINK_FLAGS="$LIB_FUZZING_ENGINE" \
	-DWEFT_BUILD_TESTS=OFF -DWEFT_WERROR=OFF >/dev/null

targets=()
for t in $fixed; do targets+=("$t"); done
for f in "$src"/fuzz/target_*.c; do
	[ -f "$f" ] || continue
	t="$(basename "$f" .c)"
	targets+=("fuzz_${t#target_}")
done
[ ${#targets[@]} -gt 0 ] || { echo "build.sh: no targets" >&2; exit 1; }
cmake --build "$build" --target "${targets[@]}"

# 3. Targets, seed corpora, dictionaries and options to $OUT.
for t in "${targets[@]}"; do
	cp "$build/fuzz/$t" "$OUT/"
	if [ -d "$src/corpus/$t" ] && [ -n "$(ls -A "$src/corpus/$t")" ]; then
		rm -f "$OUT/${t}_seed_corpus.zip"
		(cd "$src/corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
	fi
	[ -f "$src/corpus/$t.dict" ] && cp "$src/corpus/$t.dict" "$OUT/$t.dict"
	[ -f "$src/corpus/$t.options" ] && cp "$src/corpus/$t.options" "$OUT/$t.options"
done
echo "build.sh: $engine: ${targets[*]}"
