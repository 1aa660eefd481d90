#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium loads each page and the test fails on any
# console message (errors, uncaught exceptions, refused loads); a page that logs an error and throws
# is first shown to be caught. Loads every *.html of each folder; screenshots report.html into
# report.png beside it (1366x900, a laptop screen).
# Exit 77 (skipped) where Chromium is not installed.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: html_chromium_test.sh DIR... (each holding report.html, maybe more pages)"; exit 2; }
browser=
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null; then browser=$(command -v "$candidate"); break; fi
done
[ -n "$browser" ] || { echo "skipped: Chromium is not installed (Debian package chromium)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Chromium's own flags: no sandbox (tests may run as root), no GPU, console messages on stderr.
flags=(--headless=new --no-sandbox --disable-gpu --no-first-run --disable-extensions
       --user-data-dir="$work/profile")

# Loads a page; its DOM goes to $work/dom, Chromium's log to $work/log. Fails if the load fails.
load() {
  rm -f "$work/dom" "$work/log"
  timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --v=0 --virtual-time-budget=2000 \
    --dump-dom "file://$1" >"$work/dom" 2>"$work/log"
}
console_messages() { grep -E ':CONSOLE(:|\()' "$work/log" || true; }

# Negative control: a page that logs an error and throws must be caught by the same check.
cat > "$work/bad.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head><body><p>bad</p>
<script>console.error("deliberate console error"); throw new Error("deliberate exception");</script>
</body></html>
HTML
load "$work/bad.html"
caught=$(console_messages)
if ! grep -q "deliberate console error" <<<"$caught" || ! grep -q "deliberate exception" <<<"$caught"; then
  echo "FAIL: the console check missed a deliberate error and exception; it would prove nothing"
  sed 's/^/  /' "$work/log"
  exit 1
fi

status=0
for dir in "$@"; do
  dir=$(cd "$dir" && pwd)
  [ -s "$dir/report.html" ] || { echo "FAIL: $dir/report.html is missing or empty"; status=1; continue; }
  for page in "$dir"/*.html; do
    if ! load "$page"; then
      echo "FAIL: Chromium could not load $page"; sed 's/^/  /' "$work/log"; status=1; continue
    fi
    messages=$(console_messages)
    if [ -z "$messages" ]; then
      echo "ok: $page loaded with nothing on the console"
    else
      echo "FAIL: $page logged to the console:"
      while IFS= read -r line; do echo "  $line"; done <<<"$messages"
      status=1
    fi
    if ! grep -q 'id="summary"' "$work/dom"; then
      echo "FAIL: $page did not render (no summary section in the DOM)"; status=1
    fi
  done
  rm -f "$dir/report.png"
  timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size=1366,900 \
    --screenshot="$dir/report.png" "file://$dir/report.html" >/dev/null 2>&1 || true
  if [ -s "$dir/report.png" ]; then
    echo "screenshot: $dir/report.png"
  else
    echo "FAIL: no screenshot of $dir/report.html"; status=1
  fi
done
exit $status
