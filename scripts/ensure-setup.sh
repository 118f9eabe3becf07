#!/usr/bin/env bash
# Runs scripts/setup.sh unless a previous run completed since the lockfile,
# the setup scripts, the mediasoup version, the encoder's, the synthetic receivers' or the SRT listener's source last changed.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
done="$ROOT/node_modules/.pels-setup-done"
if [ -f "$done" ] && [ -x "$ROOT/node_modules/mediasoup/worker/out/Release/mediasoup-worker" ] && [ -x "$ROOT/encoder/out/pels-vp8enc" ] \
   && [ -x "$ROOT/receivers/out/pels-receivers" ] && [ -x "$ROOT/srt/out/pels-srt" ] \
   && [ -z "$(find "$ROOT/package-lock.json" "$ROOT/scripts/setup.sh" "$ROOT/scripts/mediasoup" "$ROOT/server/package.json" "$ROOT/encoder/pels-vp8enc.c" "$ROOT/encoder/Makefile" "$ROOT/receivers" "$ROOT/srt" -newer "$done" 2>/dev/null)" ] \
   && command -v ffmpeg >/dev/null && [ -x /usr/bin/chromium ]; then
  exit 0
fi
exec bash "$ROOT/scripts/setup.sh"
