#!/bin/sh
# import-unrun.sh WEFT SPEC INPUT - `weft fuzz` whose own `weft import` cannot
# run (its binary was replaced while it fuzzed: a rebuild) says so and exits
# 3 (JSON verdict "error"), not 4 "the crash did not reproduce". A stand-in
# engine (--target-bin, a shell script taking libFuzzer's arguments) writes
# INPUT, a crash of SPEC, as its crash file and removes the copy of weft that
# runs it. Before: "import did not reproduce the crash (exit 127)", exit 4.
set -u
weft=$1 spec=$2 input=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "import-unrun: $*"; exit 1; }
cp "$weft" "$d/weft"
cat >"$d/engine" <<EOS
#!/bin/sh
for a in "\$@"; do
	case "\$a" in -artifact_prefix=*) cp "$input" "\${a#-artifact_prefix=}crash-1" ;; esac
done
rm -f "$d/weft"
exit 1
EOS
chmod +x "$d/engine"
"$d/weft" fuzz "$spec" --target-bin "$d/engine" --time 5 --out "$d/o" >"$d/out" 2>"$d/err"
rc=$?
[ $rc -eq 3 ] || { cat "$d/err"; fail "exit $rc, want 3"; }
grep -q "could not run .* import" "$d/err" || { cat "$d/err"; fail "no message"; }
cp "$weft" "$d/weft"
cat >"$d/engine" <<EOS
#!/bin/sh
for a in "\$@"; do
	case "\$a" in -artifact_prefix=*) cp "$input" "\${a#-artifact_prefix=}crash-1" ;; esac
done
rm -f "$d/weft"
exit 1
EOS
"$d/weft" fuzz "$spec" --target-bin "$d/engine" --time 5 --out "$d/o2" --json >"$d/json" 2>"$d/err"
rc=$?
[ $rc -eq 3 ] || fail "--json: exit $rc, want 3"
grep -q '"verdict": "error"' "$d/json" || { cat "$d/json"; fail "--json: verdict not error"; }
echo "import-unrun: exit 3, verdict error"
