import { access, constants } from 'node:fs/promises';

/**
 * A source is a file path, a URL FFmpeg can read, or a lavfi graph written
 * `lavfi:testsrc2=size=640x360:rate=30`. Files loop forever.
 */
export type SourceSpec =
  | { kind: 'file'; path: string }
  | { kind: 'url'; url: string }
  | { kind: 'lavfi'; graph: string };

export class SourceError extends Error {
  override name = 'SourceError';
}

export function parseSource(input: string): SourceSpec {
  const s = input.trim();
  if (!s) throw new SourceError('source is empty');
  if (s.startsWith('lavfi:')) {
    const graph = s.slice('lavfi:'.length);
    if (!graph) throw new SourceError('lavfi source has no filter graph');
    return { kind: 'lavfi', graph };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return { kind: 'url', url: s };
  return { kind: 'file', path: s };
}

export function describeSource(spec: SourceSpec): string {
  switch (spec.kind) {
    case 'file':
      return spec.path;
    case 'url':
      return spec.url;
    case 'lavfi':
      return `lavfi:${spec.graph}`;
  }
}

/** Fails early, with a message a person can act on, for a file that cannot be read. */
export async function checkSource(spec: SourceSpec): Promise<void> {
  if (spec.kind !== 'file') return;
  try {
    await access(spec.path, constants.R_OK);
  } catch {
    throw new SourceError(`source file not found or not readable: ${spec.path}`);
  }
}

export interface EncodeSettings {
  width: number;
  height: number;
  frameRate: number;
  bitrateKbps: number;
  /** Frames between keyframes; a multiple of the 4-frame layer period. */
  keyframeInterval: number;
}

export const DEFAULT_ENCODE: EncodeSettings = { width: 640, height: 360, frameRate: 30, bitrateKbps: 1000, keyframeInterval: 60 };

/** The file descriptor FFmpeg writes the reference planes to (stdin, stdout, stderr, then this). */
export const REFERENCE_FD = 3;

/**
 * FFmpeg arguments: real-time VP8 with 3 temporal layers (pattern 0,2,1,2 per
 * 4 frames) as IVF on stdout. Settings and pitfalls are in DESIGN.md.
 * The scaled source also goes, as raw Y planes (width * height bytes per frame),
 * to REFERENCE_FD: the reference the server scores its own decode against.
 * `extractplanes=y` copies the plane exactly (`-pix_fmt gray` would rescale it).
 */
export function ffmpegArgs(spec: SourceSpec, enc: EncodeSettings = DEFAULT_ENCODE): string[] {
  const input =
    spec.kind === 'lavfi'
      ? ['-re', '-f', 'lavfi', '-i', spec.graph]
      : spec.kind === 'file'
        ? ['-re', '-stream_loop', '-1', '-i', spec.path]
        : ['-re', '-i', spec.url];
  const b = enc.bitrateKbps;
  const layers = [Math.round(b / 4), Math.round(b / 2), b].join(',');
  const { width: w, height: h } = enc;
  return [
    '-hide_banner', '-nostdin', '-loglevel', 'error',
    ...input,
    '-an',
    '-filter_complex',
    `[0:v]scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2,fps=${enc.frameRate},format=yuv420p,split=2[enc][src];[src]extractplanes=y[ref]`,
    '-map', '[enc]',
    // One encoder thread: libvpx's VP8 worker threads spin while they wait (4x the CPU at 30 fps, measured).
    '-threads', '1',
    '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '-6', '-error-resilient', '1', '-lag-in-frames', '0',
    '-g', String(enc.keyframeInterval), '-keyint_min', String(enc.keyframeInterval),
    '-b:v', `${b}k`, '-minrate', `${b}k`, '-maxrate', `${b}k`,
    // ts_layering_mode is parsed in base 4 and must come last.
    '-ts-parameters', `ts_number_layers=3:ts_target_bitrate=${layers}:ts_rate_decimator=4,2,1:ts_periodicity=4:ts_layer_id=0,2,1,2:ts_layering_mode=3`,
    '-flush_packets', '1', '-f', 'ivf', 'pipe:1',
    '-map', '[ref]', '-f', 'rawvideo', '-flush_packets', '1', `pipe:${REFERENCE_FD}`,
  ];
}
