#!/bin/sh
# tools_pictures.report_browser: the HTML report opened in headless Chromium loads with no
# console/script errors and every <img> is complete with naturalWidth > 0 (the report's inline
# self-check writes data-verdict="PASS"/"FAIL" into #selfcheck; --dump-dom prints the DOM after
# the load event). A negative control (a corrupted PNG) must give FAIL.
# FAILS (does not skip) when chromium is missing: install it with scripts/install-deps.
set -u
BIN=$1 UTIL=$2 WORK=$3
W=$WORK/report_browser
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || fail "chromium not found (run scripts/install-deps)"
"$UTIL" fixture "$W/fx" || fail "fixture"
"$BIN/tbr-report" "$W/fx/a" --reference "$W/fx/replay" --compare B="$W/fx/b" C="$W/fx/c" -o "$W/rep" || fail "tbr-report"
nimg=$(grep -o '<img ' "$W/rep/index.html" | wc -l)
[ "$nimg" -ge 10 ] || fail "only $nimg images in the report"

browse() { # browse HTML_FILE DOM_OUT LOG_OUT
  prof=$(mktemp -d "$W/profile.XXXXXX")
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-extensions \
    --user-data-dir="$prof" --enable-logging=stderr --v=0 --dump-dom "file://$1" >"$2" 2>"$3"
  rc=$?
  rm -rf "$prof"
  return $rc
}
browse "$W/rep/index.html" "$W/dom.html" "$W/chrome.log" || { tail -20 "$W/chrome.log"; fail "chromium exited $?"; }
grep -o '<p id="selfcheck"[^<]*' "$W/dom.html"
grep -q 'data-verdict="PASS"' "$W/dom.html" || fail "self-check did not pass"
grep -q "image check: PASS, $nimg images" "$W/dom.html" || fail "not all $nimg images checked"
# console messages of the page (errors, warnings) are logged as CONSOLE(...) lines
if grep -E 'CONSOLE|Uncaught|Not allowed to load' "$W/chrome.log"; then fail "console messages"; fi

# negative control: a corrupted image must be reported
cp -r "$W/rep" "$W/broken"
head -c 40 "$W/rep/sim_00000.png" >"$W/broken/sim_00000.png"
browse "$W/broken/index.html" "$W/dom2.html" "$W/chrome2.log" || fail "chromium (control)"
grep -q 'data-verdict="FAIL"' "$W/dom2.html" || fail "negative control: a broken image was not detected"
echo "PASS report_browser ($nimg images decoded)"
