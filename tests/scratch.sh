# scratch.sh - sourced by the shell tests that work in a scratch folder
# (the folder is their last argument, under the build tree):
#  - scratch DIR: DIR made anew and empty, so a rerun sees nothing of the
#    last run's files;
#  - bad MESSAGE...: prints "FAIL: MESSAGE" and counts it in $fail (0 at
#    the start), which the test's last line turns into its exit status.
# POSIX sh: check_cli.sh runs under sh, the others under bash.
fail=0
scratch() { rm -rf "$1" && mkdir -p "$1"; }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
