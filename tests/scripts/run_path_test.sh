#!/usr/bin/env bash
# scripts/run (the README's main command) execs the CLI at a path inside build/release; that path,
# taken inside this build's own folder, must be the executable the build made. (A wrong path once
# made the main command fail after a clean build.) Negative control: a path that is not there fails.
set -euo pipefail
script=${1:?usage: run_path_test.sh SCRIPTS_RUN BUILD_DIR}
build=${2:?usage: run_path_test.sh SCRIPTS_RUN BUILD_DIR}
rel=$(sed -n 's|^exec build/release/\([^ ]*\) run .*|\1|p' "$script")
[ -n "$rel" ] || { echo "FAIL: no 'exec build/release/... run' line in $script"; exit 1; }
check() { [ -x "$build/$1" ] && [ -f "$build/$1" ]; }
if check "${rel}.missing"; then echo "FAIL: the check accepts a missing file"; exit 1; fi
if check "$rel"; then
  echo "ok: scripts/run execs build/release/$rel, and $build/$rel is the built CLI"
else
  echo "FAIL: scripts/run execs build/release/$rel, but $build/$rel is not an executable"; exit 1
fi
