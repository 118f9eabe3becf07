#!/usr/bin/env bash
# Runs scripts/setup.sh unless a previous run completed since the lockfile,
# the setup scripts or the mediasoup version last changed.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
done="$ROOT/node_modules/.pels-setup-done"
if [ -f "$done" ] && [ -x "$ROOT/node_modules/mediasoup/worker/out/Release/mediasoup-worker" ] \
   && [ -z "$(find "$ROOT/package-lock.json" "$ROOT/scripts/setup.sh" "$ROOT/scripts/mediasoup" "$ROOT/server/package.json" -newer "$done" 2>/dev/null)" ] \
   && command -v ffmpeg >/dev/null && [ -x /usr/bin/chromium ]; then
  exit 0
fi
exec bash "$ROOT/scripts/setup.sh"
