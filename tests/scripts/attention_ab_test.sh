#!/usr/bin/env bash
# bench/attention_ab.py on the CPU: one build against itself has the same bits in every case
# (exit 0); the control, one input element changed for the second, differs there (exit 1).
set -u
python=$1 script=$2 lib=$3
fail() { echo "FAIL: $*"; exit 1; }
out=$("$python" "$script" --lib a="$lib" --lib b="$lib" --device cpu 2>&1)
status=$?
[ $status -eq 0 ] || fail "the same build: exit $status: $out"
echo "$out" | grep -q "^0 of 12 cases differ in bits from a's" || fail "the same build: $out"
[ "$(echo "$out" | grep -c "^bits .* equal$")" -eq 12 ] || fail "the same build: $out"
# (a line per worker as it ends, so that a run cut short says how far it got)
[ "$(echo "$out" | grep -c "^worker bits .*: [0-9.]* s$")" -eq 2 ] || fail "progress lines: $out"
out=$("$python" "$script" --lib a="$lib" --lib b="$lib" --device cpu --perturb b 2>&1)
status=$?
[ $status -eq 1 ] || fail "the control: exit $status: $out"
echo "$out" | grep -q "^bits gqa_partial .*DIFFER: b" || fail "the control: $out"
echo "$out" | grep -q "^1 of 12 cases differ" || fail "the control: $out"
echo "ok"
