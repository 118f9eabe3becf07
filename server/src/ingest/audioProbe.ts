/**
 * Whether a file or URL source has sound, and in which codec: FFmpeg's ffprobe
 * reads the source's first audio stream, with the same protocol whitelist the
 * ingest gives FFmpeg.
 */
import { execFile } from 'node:child_process';
import { childEnv } from '../process/childEnv';
import { ffmpegStdin, sourceInput, type ParsedSource, type ProbedAudio } from './sourceSpec';

/** A source that does not answer in this time is taken as silent for the run (its video may still play). */
const PROBE_TIMEOUT_MS = 10_000;

/** The first audio stream's codec and channels; null when the source has none or cannot be probed (the run then finds out about the video). */
export async function probeAudio(spec: Extract<ParsedSource, { kind: 'file' | 'url' }>, ffprobePath = 'ffprobe'): Promise<ProbedAudio | null> {
  // As FFmpeg gets it: a URL (and its credentials) on stdin, not in the arguments `ps` shows.
  const args = ['-v', 'error', ...sourceInput(spec), '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,channels', '-of', 'json'];
  const out = await new Promise<string | null>((resolve) => {
    const probe = execFile(ffprobePath, args, { timeout: PROBE_TIMEOUT_MS, maxBuffer: 1 << 20, env: childEnv() }, (err, stdout) => resolve(err ? null : stdout));
    probe.stdin?.on('error', () => {}); // ffprobe gone before it read: its exit answers
    probe.stdin?.end(ffmpegStdin(spec));
  });
  return out === null ? null : parseProbe(out);
}

/** ffprobe's JSON answer: the stream it found, if any. */
export function parseProbe(json: string): ProbedAudio | null {
  try {
    const doc = JSON.parse(json) as { streams?: { codec_name?: unknown; channels?: unknown }[] };
    const s = doc.streams?.[0];
    if (!s || typeof s.codec_name !== 'string') return null;
    return { codec: s.codec_name, channels: typeof s.channels === 'number' ? s.channels : 2 };
  } catch {
    return null;
  }
}
