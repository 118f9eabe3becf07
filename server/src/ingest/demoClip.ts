/**
 * The default stream's clip with sound. The packaged city clip has no sound
 * track, so the server gives it one, once, into the project's media folder:
 * the clip's video as it is (copied, so every frame and the quality tables are
 * the same) and a soft brown-noise rumble, like distant traffic, in Opus, so
 * the default stream also shows a source's Opus passing through. The Opus is
 * the server's own (OPUS_ENCODE_ARGS), in-band FEC included: a passed-through
 * sound keeps the FEC its source has, or has none.
 */
import { execFile } from 'node:child_process';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { childEnv } from '../process/childEnv';
import { OPUS_ENCODE_ARGS } from './sourceSpec';

/** The rumble: brown noise at a tenth of full scale. */
const SOUND = 'anoisesrc=color=brown:amplitude=0.1:sample_rate=48000:seed=27';
/** The folder of `dir` the clip is made in, named for how: a clip made another way before (its Opus without FEC) is not taken. */
const RECIPE = 'opus-fec';

/** The clip with sound in `dir` (made when missing); the path. Throws when FFmpeg cannot make it. */
export async function demoClipWithSound(clip: string, dir: string, ffmpegPath = 'ffmpeg'): Promise<string> {
  const out = join(dir, RECIPE, `${basename(clip, extname(clip))}-sound.mkv`);
  if (await access(out).then(() => true, () => false)) return out;
  await mkdir(join(dir, RECIPE), { recursive: true });
  // Made aside and renamed: a server stopped halfway leaves no half clip behind.
  const partial = `${out}.${process.pid}.partial.mkv`;
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', `file:${clip}`, '-f', 'lavfi', '-i', SOUND,
    '-map', '0:v:0', '-map', '1:a:0', '-c:v', 'copy', ...OPUS_ENCODE_ARGS, '-shortest', `file:${partial}`];
  try {
    await new Promise<void>((resolve, reject) =>
      execFile(ffmpegPath, args, { timeout: 60_000, env: childEnv() }, (err, _out, stderr) => (err ? reject(new Error(`making ${out}: ${stderr.trim() || err.message}`)) : resolve())),
    );
    await rename(partial, out);
  } finally {
    await rm(partial, { force: true });
  }
  return out;
}
