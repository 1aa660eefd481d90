#!/usr/bin/env bash
# Negative control of the sanitized build: runs a program with a planted fault and passes only if it
# fails with its sanitizer's report. Usage: expect_sanitizer_report.sh [-e REGEX]... PROGRAM [ARGS]
# (each REGEX must match a line of the program's output).
set -euo pipefail
patterns=()
while [ "${1:-}" = -e ]; do
  patterns+=("$2")
  shift 2
done
status=0
output=$("$@" 2>&1) || status=$?
if [ "$status" -eq 0 ]; then
  echo "FAIL: '$*' exited 0: its planted fault went unreported (sanitizer off?)"
  echo "$output" | tail -20
  exit 1
fi
for pattern in "${patterns[@]}"; do
  if ! grep -Eq -- "$pattern" <<<"$output"; then
    echo "FAIL: '$*' exited $status, and no line of its output matches '$pattern':"
    echo "$output" | tail -40
    exit 1
  fi
done
echo "ok: '$*' exited $status with its sanitizer's report:"
grep -E 'ERROR: [A-Za-z]+Sanitizer|runtime error' <<<"$output" | head -3 || true
