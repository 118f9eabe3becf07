/**
 * The default stream's clip with sound. The packaged city clip has no sound
 * track, so the server gives it one, once, into the project's media folder:
 * the clip's video as it is (copied, so every frame and the quality tables are
 * the same) and a soft brown-noise rumble, like distant traffic, in Opus, so
 * the default stream also shows a source's Opus passing through.
 */
import { execFile } from 'node:child_process';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { childEnv } from '../process/childEnv';

/** The rumble: brown noise at a tenth of full scale, stereo Opus at 64 kb/s. */
const SOUND = 'anoisesrc=color=brown:amplitude=0.1:sample_rate=48000:seed=27';

/** The clip with sound in `dir` (made when missing); the path. Throws when FFmpeg cannot make it. */
export async function demoClipWithSound(clip: string, dir: string, ffmpegPath = 'ffmpeg'): Promise<string> {
  const out = join(dir, `${basename(clip, extname(clip))}-sound.mkv`);
  if (await access(out).then(() => true, () => false)) return out;
  await mkdir(dir, { recursive: true });
  // Made aside and renamed: a server stopped halfway leaves no half clip behind.
  const partial = `${out}.${process.pid}.partial.mkv`;
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', `file:${clip}`, '-f', 'lavfi', '-i', SOUND,
    '-map', '0:v:0', '-map', '1:a:0', '-c:v', 'copy', '-c:a', 'libopus', '-b:a', '64k', '-ac', '2', '-shortest', `file:${partial}`];
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
