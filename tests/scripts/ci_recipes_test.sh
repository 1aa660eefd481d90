#!/usr/bin/env bash
# The README's CI recipes, checked with each one's own tool: check-jsonschema's vendored GitHub
# workflow schema, shellcheck for the Slurm script, kubernetes-validate for the indexed Job. Each tool is
# first shown to reject a broken copy (a negative control). Exit 77 (skipped) where a tool is missing.
set -euo pipefail
readme=${1:?usage: ci_recipes_test.sh README.md}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
venv=${SAMEBITS_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/samebits}/venv
python=${SAMEBITS_PYTHON:-python3}
[ -x "$venv/bin/python3" ] && python=$venv/bin/python3

# Install the two checkers from PyPI into samebits' own venv when they are missing. (actionlint
# itself is not to be had here: its PyPI package downloads the binary from GitHub when it builds.)
if [ -x "$venv/bin/pip" ] && { ! [ -x "$venv/bin/check-jsonschema" ] || ! [ -x "$venv/bin/kubernetes-validate" ]; }; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check check-jsonschema kubernetes-validate >&2 || true
fi
PATH="$venv/bin:$PATH"
for tool in check-jsonschema shellcheck kubernetes-validate; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done

# Each recipe is the fenced block after its "<!-- recipe: NAME -->" marker.
"$python" - "$readme" "$work" <<'PY'
import re, sys, pathlib
text = pathlib.Path(sys.argv[1]).read_text()
out = pathlib.Path(sys.argv[2])
names = {"github-actions": ".github/workflows/samebits.yml", "slurm": "samebits.sbatch",
         "kubernetes": "job.yaml"}
for name, path in names.items():
    m = re.search(r"<!-- recipe: " + name + r" -->\n```[a-z]*\n(.*?)```", text, re.S)
    if not m:
        sys.exit(f"README: no recipe '{name}'")
    target = out / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(m.group(1))
PY

fail=0
check() {  # check NAME COMMAND... : must pass
  if ! "${@:2}" >"$work/log" 2>&1; then echo "FAIL $1:"; cat "$work/log"; fail=1; else echo "ok $1"; fi
}
reject() {  # reject NAME COMMAND... : must fail (negative control)
  if "${@:2}" >"$work/log" 2>&1; then echo "FAIL $1: a broken recipe passed"; fail=1; else echo "ok $1 (rejected)"; fi
}

check github-actions check-jsonschema --builtin-schema vendor.github-workflows \
  "$work/.github/workflows/samebits.yml"
check slurm shellcheck -s bash "$work/samebits.sbatch"
grep -q '^#SBATCH --array=' "$work/samebits.sbatch" || { echo "FAIL slurm: no --array"; fail=1; }
check kubernetes kubernetes-validate --strict "$work/job.yaml"
grep -q 'completionMode: Indexed' "$work/job.yaml" || { echo "FAIL kubernetes: not indexed"; fail=1; }

# Negative controls: the same checkers on broken copies.
mkdir -p "$work/bad/.github/workflows"
sed 's/runs-on:/runs_on:/' "$work/.github/workflows/samebits.yml" >"$work/bad/.github/workflows/samebits.yml"
reject github-actions-control check-jsonschema --builtin-schema vendor.github-workflows \
  "$work/bad/.github/workflows/samebits.yml"
sed "s/completions: 4/completions: four/; s/restartPolicy:/restartPolicyy:/" "$work/job.yaml" >"$work/bad/job.yaml"
reject kubernetes-control kubernetes-validate --strict "$work/bad/job.yaml"
printf '#!/bin/bash\nrm -rf $DIR/*\n' >"$work/bad/samebits.sbatch"
reject slurm-control shellcheck -s bash "$work/bad/samebits.sbatch"
exit $fail
