#!/usr/bin/env bash
# bench_installed.sh BUILD SCRATCH: an installed weft measures what the
# build tree's does. Installs BUILD into a scratch prefix (cmake --install)
# and runs the installed `weft bench --quick --no-engines --sections core`:
# the core micro-benchmarks must be measured (weft-microbench is installed
# beside weft), never "not measured" for a missing program. No timing is
# checked.
set -u
build=$1
dir=$2
. "$(dirname "$0")/../scratch.sh"
scratch "$dir"
cmake --install "$build" --prefix "$dir/prefix" >"$dir/install.log" 2>&1 ||
	{ cat "$dir/install.log"; exit 1; }
[ -x "$dir/prefix/bin/weft-microbench" ] || bad "weft-microbench not installed"
cd "$dir" || exit 1
"$dir/prefix/bin/weft" bench --quick --no-engines --sections core --out "$dir/b" \
	>"$dir/out" 2>"$dir/err" || bad "installed weft bench exited $?: $(tail -3 "$dir/err")"
grep -q '"switch_ns"' "$dir/b/bench.json" || bad "no core numbers: $(head -c 800 "$dir/b/bench.json")"
grep -q 'not built\|not measured: no weft-microbench' "$dir/b/bench.md" &&
	bad "a program is missing: $(grep 'not measured' "$dir/b/bench.md")"
# without it, the row says how to get it
rm "$dir/prefix/bin/weft-microbench"
"$dir/prefix/bin/weft" bench --quick --no-engines --sections core --out "$dir/c" >/dev/null 2>&1
grep -q "not measured: no weft-microbench beside this weft (in $dir/prefix/bin): build" \
	"$dir/c/bench.md" || bad "no way out given: $(grep 'not measured' "$dir/c/bench.md")"
rm -rf "$dir/prefix"
[ "$fail" = 0 ] && echo "bench_installed: passed"
[ "$fail" = 0 ]
