#!/usr/bin/env bash
# Runs scripts/setup.sh unless a previous run completed on the same inputs
# (scripts/setup-inputs.sh: the lockfile, the setup scripts, the mediasoup version,
# the encoder's, the synthetic receivers' and the SRT listener's source).
ROOT=$(cd "$(dirname "$0")/.." && pwd)
done="$ROOT/node_modules/.pels-setup-done"
if [ -f "$done" ] && [ -x "$ROOT/node_modules/mediasoup/worker/out/Release/mediasoup-worker" ] && [ -x "$ROOT/encoder/out/pels-vp8enc" ] \
   && [ -x "$ROOT/receivers/out/pels-receivers" ] && [ -x "$ROOT/srt/out/pels-srt" ] \
   && [ "$(cat "$done")" = "$(bash "$ROOT/scripts/setup-inputs.sh")" ] \
   && command -v ffmpeg >/dev/null && [ -x /usr/bin/chromium ]; then
  exit 0
fi
exec bash "$ROOT/scripts/setup.sh"
