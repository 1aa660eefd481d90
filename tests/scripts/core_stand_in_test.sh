#!/usr/bin/env bash
# tests/python/core_stand_in.py as samebits._core, as scripts/gpu-check uses it on a GPU machine:
# the package imports over it, an op runs, the engine refuses with its message, and pytest collects
# test_no_sync.py (its cases skip without a GPU). The control: without the library, import fails.
set -u
python=$1 source=$2 lib=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$dir/samebits"
cp "$source"/python/samebits/*.py "$dir/samebits/" &&
  cp "$source/tests/python/core_stand_in.py" "$dir/samebits/_core.py" || fail "copies"
run() { env SAMEBITS_OPS_LIB="$lib" PYTHONPATH="$dir" "$python" "$@" 2>&1; }
out=$(run -c '
import samebits, torch
values, indices = samebits.topk(torch.tensor([[3.0, 1.0, 2.0]]), k=2)
print("topk", values.tolist(), indices.tolist())
try:
    samebits.run("contracts/sum.json")
except RuntimeError as e:
    print("engine:", e)
') || fail "import and an op: $out"
echo "$out" | grep -q "^topk \[\[3.0, 2.0\]\] \[\[0, 2\]\]$" || fail "topk: $out"
echo "$out" | grep -q "^engine: the contracts engine is not in this stand-in" || fail "engine: $out"
out=$(run -m pytest -q -p no:cacheprovider --collect-only "$source/tests/python/test_no_sync.py") ||
  fail "pytest collection: $out"
echo "$out" | grep -Eq "^[0-9]+ tests? collected" || fail "pytest collection: $out"
out=$(env SAMEBITS_OPS_LIB="$dir/none.so" PYTHONPATH="$dir" "$python" -c 'import samebits' 2>&1) &&
  fail "the control: import without the library succeeded"
echo "$out" | grep -q "SAMEBITS_OPS_LIB='$dir/none.so' names no file" || fail "the control: $out"
echo "ok"
