#!/usr/bin/env bash
# scripts/rerun_case.py given a missing, truncated, wrong or unhelpful report: exit 2 and one line
# naming the file and what is wrong, never a Python traceback. The control: a good report's case
# is rerun (through a stand-in samebits that writes the case back) and found the same.
set -u
python=$1 script=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

refused() {  # refused WHAT NEEDLE ARGS...: exit 2, NEEDLE on stderr, no traceback
  local what=$1 needle=$2; shift 2
  err=$("$python" "$script" "$@" 2>&1 >/dev/null)
  status=$?
  [ $status -eq 2 ] || fail "$what: exit $status, expected 2 ($err)"
  echo "$err" | grep -q Traceback && fail "$what: a traceback: $err"
  echo "$err" | grep -qF -- "$needle" || fail "$what: message lacks '$needle': $err"
}

good='{"schema": "samebits.report", "settings": {"seed": 0}, "cases": [{"id": "c/1", "verdict": "violated", "outputs": [{"name": "out", "baseline_sha256": "a", "variant_sha256": "b"}]}]}'
echo "$good" > "$dir/good.json"
echo "${good:0:60}" > "$dir/truncated.json"
echo '{"schema": "other"}' > "$dir/other.json"
printf '\x1f\x8b\x08garbage' > "$dir/broken.json.gz"
refused "a missing report" "$dir/none.json: cannot read the report" samebits "$dir/none.json"
refused "a truncated report" "$dir/truncated.json: not a complete JSON report" samebits "$dir/truncated.json"
refused "another schema" "not a samebits report" samebits "$dir/other.json"
refused "broken gzip" "$dir/broken.json.gz" samebits "$dir/broken.json.gz"
refused "an unknown case" 'no case "c/2"' samebits "$dir/good.json" c/2
refused "no arguments" "usage: rerun_case.py" samebits
refused "a missing samebits" "cannot run samebits" "$dir/no-samebits" "$dir/good.json"

# The control: a stand-in samebits that writes the case it is asked for back as its report.
cat > "$dir/samebits" <<STUB
#!/usr/bin/env bash
out=\${@: -1}
echo '$good' > "\$out"
STUB
chmod +x "$dir/samebits"
out=$("$python" "$script" "$dir/samebits" "$dir/good.json" 2>&1)
[ $? -eq 0 ] || fail "a good report: $out"
echo "$out" | grep -q '^same: c/1' || fail "a good report must be rerun and found the same: $out"
echo "ok: rerun_case.py refuses bad reports with exit 2"
