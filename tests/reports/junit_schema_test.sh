#!/usr/bin/env bash
# The JUnit XML samebits writes, validated against junit-10.xsd (the Jenkins xunit plugin's schema,
# as shipped in pytest's sdist) with xmllint. An invalid document is first shown to be rejected.
# Exit 77 (skipped) where xmllint or the schema cannot be had.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: junit_schema_test.sh DIR... (each holding *.junit.xml)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v xmllint >/dev/null || { echo "skipped: xmllint (Debian libxml2-utils) is not installed"; exit 77; }

# The schema comes from a package, cached, never committed.
deps=${SAMEBITS_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/samebits}
xsd=$deps/junit-10.xsd
if [ ! -s "$xsd" ]; then
  python=${SAMEBITS_PYTHON:-python3}
  [ -x "$deps/venv/bin/python3" ] && python=$deps/venv/bin/python3
  member=pytest-8.3.4/testing/example_scripts/junit-10.xsd
  if ! timeout 180 "$python" -m pip download --quiet --disable-pip-version-check --no-deps \
        --no-binary :all: pytest==8.3.4 -d "$work/sdist" >&2 ||
     ! tar xzf "$work/sdist/pytest-8.3.4.tar.gz" -C "$work" "$member"; then
    echo "skipped: could not get junit-10.xsd from the pytest 8.3.4 sdist"
    exit 77
  fi
  mkdir -p "$deps"
  cp "$work/$member" "$xsd.$$" && mv "$xsd.$$" "$xsd"
fi

# Negative control: a testcase without its required name must fail validation.
cat > "$work/invalid.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase classname="c"/></testsuite></testsuites>
XML
if xmllint --schema "$xsd" --noout "$work/invalid.xml" 2>/dev/null; then
  echo "FAIL: the schema accepted a testcase without a name; the check below would prove nothing"
  exit 1
fi

status=0
for dir in "$@"; do
  found=0
  for file in "$dir"/*.junit.xml; do
    [ -s "$file" ] || continue
    found=1
    if xmllint --schema "$xsd" --noout "$file"; then
      echo "ok: $file ($(grep -c '<testcase ' "$file") test cases)"
    else
      echo "FAIL: $file is not valid against junit-10.xsd"
      status=1
    fi
  done
  [ $found = 1 ] || { echo "FAIL: no JUnit file (*.junit.xml) in $dir"; status=1; }
done
exit $status
