# tools/ci/lib.sh - shared by tools/test, tools/quickstart, tools/ci/* (sourced).
#
# WEFT_ROOT        the repository (set here)
# WEFT_BUILD_ROOT  where the CI builds go (default: $WEFT_ROOT/build-ci)
# WEFT_JOBS        parallel build/test jobs (default: nproc)

WEFT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WEFT_BUILD_ROOT="${WEFT_BUILD_ROOT:-$WEFT_ROOT/build-ci}"
WEFT_JOBS="${WEFT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
export DEBIAN_FRONTEND=noninteractive

weft_log() { printf '\n=== %s: %s\n' "${WEFT_STEP:-weft}" "$*"; }
weft_die() { printf '%s: FAILED: %s\n' "${WEFT_STEP:-weft}" "$*" >&2; exit 1; }

# /usr/bin/python3 has Debian's python3-yaml; a pyenv python on PATH may not.
weft_python() {
	if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$@"; else python3 "$@"; fi
}

# weft_build NAME CC [extra cmake args...]: configure and build
# $WEFT_BUILD_ROOT/NAME with compiler CC and -DWEFT_WERROR=ON (only the
# targets in $WEFT_TARGETS if set); prints the dir.
weft_build() {
	local name="$1" cc="$2"; shift 2
	local dir="$WEFT_BUILD_ROOT/$name"
	local t0=$SECONDS
	mkdir -p "$WEFT_BUILD_ROOT"
	weft_log "build $name (CC=$cc $*)" >&2
	CC="$cc" cmake -S "$WEFT_ROOT" -B "$dir" -G Ninja -DWEFT_WERROR=ON "$@" >"$dir.configure.log" 2>&1 ||
		{ cat "$dir.configure.log" >&2; weft_die "configure $name"; }
	# shellcheck disable=SC2086
	cmake --build "$dir" -j "$WEFT_JOBS" ${WEFT_TARGETS:+--target $WEFT_TARGETS} >"$dir.build.log" 2>&1 ||
		{ tail -n 60 "$dir.build.log" >&2; weft_die "build $name"; }
	echo "built $name${WEFT_TARGETS:+ ($WEFT_TARGETS)} in $((SECONDS - t0)) s" >&2
	echo "$dir"
}

# weft_ctest DIR [LABEL]: run the suite of a build (LABEL: only the tests
# with that ctest label, logged apart); its summary line goes to stdout and
# is remembered in WEFT_CTEST_SUMMARIES.
WEFT_CTEST_SUMMARIES=()
weft_ctest() {
	local dir="$1" label="${2:-}" log rc=0
	log="$dir.ctest${label:+-$label}.log"
	weft_log "ctest $(basename "$dir")${label:+ -L $label}"
	ctest --test-dir "$dir" --output-on-failure -j "$WEFT_JOBS" ${label:+-L "$label"} >"$log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		cat "$log"
	else
		grep -E '^[0-9]+% tests passed' "$log" || true
	fi
	WEFT_CTEST_SUMMARIES+=("$(basename "$dir")${label:+ ($label)}: $(grep -E '^[0-9]+% tests passed' "$log" || echo 'no ctest summary')")
	grep -qE '^[0-9]+% tests passed, 0 tests failed out of [1-9]' "$log" ||
		weft_die "ctest in $dir (log: $log)"
}

# weft_build_fuzz NAME CC ENGINE: configure an engine build (libfuzzer or
# afl) and build only its fuzz targets (its weft CLI would link models that
# carry the engine's coverage hooks without the engine); prints the dir.
weft_build_fuzz() {
	local name="$1" cc="$2" engine="$3"
	local dir="$WEFT_BUILD_ROOT/$name" t0=$SECONDS targets
	mkdir -p "$WEFT_BUILD_ROOT"
	weft_log "build $name (CC=$cc, $engine fuzz targets)" >&2
	CC="$cc" cmake -S "$WEFT_ROOT" -B "$dir" -G Ninja -DWEFT_WERROR=ON -DWEFT_BUILD_TESTS=OFF \
		-DWEFT_FUZZ_ENGINE="$engine" >"$dir.configure.log" 2>&1 ||
		{ cat "$dir.configure.log" >&2; weft_die "configure $name"; }
	targets="$(ninja -C "$dir" -t targets all | sed -n 's|^fuzz/\(fuzz_[A-Za-z0-9_]*\): .*|\1|p' | sort -u)"
	[ -n "$targets" ] || weft_die "$name: no fuzz targets configured"
	# shellcheck disable=SC2086
	cmake --build "$dir" -j "$WEFT_JOBS" --target $targets >"$dir.build.log" 2>&1 ||
		{ tail -n 60 "$dir.build.log" >&2; weft_die "build $name"; }
	echo "built $name ($(wc -w <<<"$targets") targets) in $((SECONDS - t0)) s" >&2
	echo "$dir"
}
