#!/usr/bin/env bash
# Builds the player (client/dist) when it is missing or older than its sources: the player's own files,
# the shared code it bundles, or the locked dependencies. The testbed, the benchmarks and the load test
# serve client/dist, and a stale build would be tested silently. Progress goes to stderr (their stdout may be JSON).
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The client's build writes this last (vite empties dist/ first), so a build cut short counts as none.
stamp="$ROOT/client/dist/.build-complete"
sources=("$ROOT/client/src" "$ROOT/client/index.html" "$ROOT/client/vite.config.ts" "$ROOT/client/scripts"
  "$ROOT/client/package.json" "$ROOT/client/tsconfig.json" "$ROOT/shared/src" "$ROOT/package-lock.json")
if [ -f "$stamp" ]; then
  newer=$(find "${sources[@]}" -type f ! -name '*.test.ts' -newer "$stamp" -print -quit 2>/dev/null)
  [ -z "$newer" ] && exit 0
  echo "[player] ${newer#"$ROOT"/} changed since the last build: building the player (client/dist) ..." >&2
else
  echo "[player] no complete build yet: building the player (client/dist) ..." >&2
fi
start=$SECONDS
if ! (cd "$ROOT" && npm run build -w client --silent) >&2; then
  echo "[player] the build failed (above); fix it, or run 'npm run build -w client' to see it alone" >&2
  exit 1
fi
echo "[player] built in $((SECONDS - start)) s" >&2
