#!/usr/bin/env bash
# scripts/logged, which keeps scripts/run's build output out of sight: silent and logged when the
# command succeeds; the log's tail, its path and the command's exit code when it fails.
set -u
logged=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$logged" "$dir/ok/build.log" sh -c 'echo compiling; echo "warning: spill" >&2' 2>&1)
[ $? -eq 0 ] || fail "a succeeding command must exit 0"
[ -z "$out" ] || fail "a succeeding command must print nothing, printed: $out"
grep -q '^compiling$' "$dir/ok/build.log" || fail "stdout must be in the log"
grep -q '^warning: spill$' "$dir/ok/build.log" || fail "stderr must be in the log"

out=$("$logged" "$dir/bad.log" sh -c 'echo "error: broken"; exit 7' 2>&1)
status=$?
[ $status -eq 7 ] || fail "the command's exit code must come back, got $status"
echo "$out" | grep -q '^error: broken$' || fail "a failure must show the log, showed: $out"
echo "$out" | grep -q "the whole log is $dir/bad.log" || fail "a failure must name the log"
echo "logged: ok"
