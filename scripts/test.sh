#!/usr/bin/env bash
# Every test: type checks, unit tests (node's test runner), the player build,
# then end-to-end tests in real Chromium (Playwright). Ends with one summary
# line "N passed, N failed" over all of them.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# In a session of its own, so no shell's exit can hang the suite up (scripts/ownSession.sh says why).
[ "$(ps -o sid= -p $$ | tr -d ' ')" = "$$" ] || exec bash "$ROOT/scripts/ownSession.sh" bash "$ROOT/scripts/test.sh" "$@"
cd "$ROOT"
OUT=$(mktemp -d)
passed=0 failed=0 skipped=0
count() { # $1 = label, $2 = pass, $3 = fail, $4 = skip
  passed=$((passed + ${2:-0})); failed=$((failed + ${3:-0})); skipped=$((skipped + ${4:-0}))
  echo "[test] $1: ${2:-0} passed, ${3:-0} failed, ${4:-0} skipped"
}

echo "[test] type check"
if npx tsc -p shared && npx tsc -p server && npx tsc -p client && npx tsc -p e2e && npx tsc -p lab; then count "type check" 1 0; else count "type check" 0 1; fi

echo "[test] unit tests"
mapfile -t units < <(find shared/src server/src client/src e2e/src lab/src -name '*.test.ts' | sort)
npx tsx --test --test-reporter=spec "${units[@]}" 2>&1 | tee "$OUT/unit.log"
num() { grep -E "^ℹ $1 [0-9]+" "$OUT/$2" | tail -1 | awk '{print $3}'; }
up=$(num pass unit.log); uf=$(num fail unit.log); us=$(num skipped unit.log)
[ -n "$up" ] || uf=1 # the runner did not finish
count "unit tests" "${up:-0}" "${uf:-0}" "${us:-0}"

echo "[test] synthetic receivers (go test)"
GO=$(command -v go || echo /usr/local/go/bin/go)
(cd receivers && "$GO" test -v ./... 2>&1) | tee "$OUT/go.log" | grep -E "^(--- |ok|FAIL)"
gp=$(grep -c -- "--- PASS" "$OUT/go.log"); gf=$(grep -c -- "--- FAIL" "$OUT/go.log")
grep -qE "^(ok|FAIL)" "$OUT/go.log" || gf=$((gf + 1)) # go test did not run
count "go tests" "$gp" "$gf"

echo "[test] building the player"
if npm run build -w client --silent >"$OUT/build.log" 2>&1; then count "player build" 1 0; else cat "$OUT/build.log"; count "player build" 0 1; fi

echo "[test] end-to-end tests (Playwright, Chromium)"
(cd e2e && npx playwright test --reporter=list) 2>&1 | tee "$OUT/e2e.log"
pw() { grep -E "^ +[0-9]+ $1" "$OUT/e2e.log" | tail -1 | awk '{print $1}'; }
ep=$(pw passed); ef=$(pw failed); es=$(pw skipped); fl=$(pw flaky)
[ -n "$ep$ef$es$fl" ] || ef=1 # Playwright did not report
count "end-to-end" "$(( ${ep:-0} + ${fl:-0} ))" "${ef:-0}" "${es:-0}"

rm -rf "$OUT"
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
