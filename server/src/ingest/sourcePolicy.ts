/**
 * Which sources the server accepts. The server runs as root (it needs
 * nftables) and hands a source string to FFmpeg, whose lavfi filters and
 * protocols can read and write files, so a source is refused unless it is
 * one of:
 * - `lavfi:GRAPH` or `lavfi:GRAPH|AUDIO`: one chain of allow-listed video
 *   filters (a generator, then simple transforms), and optionally, after `|`,
 *   one chain of allow-listed audio filters (a generator such as `sine`, then
 *   transforms); options `key=value` from each filter's allow-list, values of
 *   a conservative character set (no quotes, escapes, labels or `;`);
 * - a URL whose scheme is allow-listed; FFmpeg then gets only the protocols
 *   that scheme needs (`-protocol_whitelist`);
 * - a file path, resolved inside the media directories (mediaFiles.ts);
 * - `live:`, a stream publishers send to (FFmpeg then reads only its stdin).
 * Control and invisible characters are refused anywhere. Pure: no I/O.
 */
import type { ParsedSource, SourceSpec } from './sourceSpec';

export class SourceError extends Error {
  override name = 'SourceError';
}

interface LavfiFilter {
  /** Generators make frames from nothing and start the chain; transforms follow. */
  generator: boolean;
  options: readonly string[];
}

const FRAME_OPTIONS = ['size', 's', 'rate', 'r', 'duration', 'd', 'sar'];
const generator = (...options: string[]): LavfiFilter => ({ generator: true, options });
const transform = (...options: string[]): LavfiFilter => ({ generator: false, options });

/**
 * The lavfi filters a source may use, with the options each may set. None
 * reads or writes a file or takes commands: `life` and `cellauto` lack their
 * `filename` option here for that reason, and filters such as movie, amovie,
 * drawtext, metadata, sendcmd or zmq are not listed.
 */
export const LAVFI_FILTERS: ReadonlyMap<string, LavfiFilter> = new Map([
  ['testsrc', generator(...FRAME_OPTIONS, 'decimals', 'n')],
  ['testsrc2', generator(...FRAME_OPTIONS, 'alpha')],
  ['smptebars', generator(...FRAME_OPTIONS)],
  ['smptehdbars', generator(...FRAME_OPTIONS)],
  ['pal75bars', generator(...FRAME_OPTIONS)],
  ['pal100bars', generator(...FRAME_OPTIONS)],
  ['rgbtestsrc', generator(...FRAME_OPTIONS, 'complement', 'co')],
  ['yuvtestsrc', generator(...FRAME_OPTIONS)],
  ['color', generator(...FRAME_OPTIONS, 'color', 'c')],
  [
    'mandelbrot',
    generator('size', 's', 'rate', 'r', 'maxiter', 'start_x', 'start_y', 'start_scale', 'end_scale', 'end_pts', 'bailout', 'morphxf', 'morphyf', 'morphamp', 'outer', 'inner'),
  ],
  ['life', generator('size', 's', 'rate', 'r', 'rule', 'random_fill_ratio', 'ratio', 'random_seed', 'seed', 'stitch', 'mold', 'life_color', 'death_color', 'mold_color')],
  ['cellauto', generator('size', 's', 'rate', 'r', 'rule', 'random_fill_ratio', 'ratio', 'random_seed', 'seed', 'scroll', 'start_full', 'full', 'stitch')],
  ['scale', transform('w', 'h', 'width', 'height')],
  ['format', transform('pix_fmts')],
  ['fps', transform('fps')],
  ['hflip', transform()],
  ['vflip', transform()],
]);

const AUDIO_OPTIONS = ['sample_rate', 'r', 'duration', 'd'];

/**
 * The audio filters a lavfi source may add after `|`: generators that read no
 * file (`amovie`, `aevalsrc` with its expressions, `flite` with its text file
 * are not listed), and simple transforms.
 */
export const LAVFI_AUDIO_FILTERS: ReadonlyMap<string, LavfiFilter> = new Map([
  ['sine', generator(...AUDIO_OPTIONS, 'frequency', 'f', 'beep_factor', 'b', 'samples_per_frame')],
  ['anoisesrc', generator(...AUDIO_OPTIONS, 'amplitude', 'a', 'color', 'colour', 'c', 'seed', 's', 'nb_samples', 'n', 'density')],
  ['anullsrc', generator('sample_rate', 'r', 'channel_layout', 'cl', 'nb_samples', 'n', 'duration', 'd')],
  ['volume', transform('volume')],
  ['aformat', transform('sample_fmts', 'sample_rates', 'channel_layouts')],
]);

/**
 * Bounds on what a lavfi source makes: frames up to 4096x2160, at most 60 a
 * second, mandelbrot's iterations per pixel; past them a source only burns
 * the server's CPU and memory (every stream is scaled to the encode size).
 */
export const LAVFI_BOUNDS = { maxWidth: 4096, maxHeight: 2160, maxFps: 60, maxIterations: 10_000 } as const;

/** FFmpeg's size and rate abbreviations a source may use. */
const NAMED_SIZES: Readonly<Record<string, readonly [number, number]>> = {
  sqcif: [128, 96], qcif: [176, 144], cif: [352, 288], '4cif': [704, 576], qqvga: [160, 120], qvga: [320, 240], vga: [640, 480],
  svga: [800, 600], xga: [1024, 768], hd480: [852, 480], hd720: [1280, 720], hd1080: [1920, 1080], ntsc: [720, 480], pal: [720, 576],
  '2k': [2048, 1080], '4k': [4096, 2160],
};
const NAMED_RATES: Readonly<Record<string, number>> = { ntsc: 30000 / 1001, pal: 25, film: 24, 'ntsc-film': 24000 / 1001 };

function sizeProblem(value: string): string | null {
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(value);
  const [w, h] = m ? [Number(m[1]), Number(m[2])] : (NAMED_SIZES[value] ?? [NaN, NaN]);
  const { maxWidth, maxHeight } = LAVFI_BOUNDS;
  return w >= 1 && h >= 1 && w <= maxWidth && h <= maxHeight ? null : `must be WIDTHxHEIGHT up to ${maxWidth}x${maxHeight} (or a name such as hd720), got "${value}"`;
}

function rateProblem(value: string): string | null {
  const m = /^(\d{1,6}(?:\.\d{1,6})?)(?:\/(\d{1,6}))?$/.exec(value);
  const fps = m ? Number(m[1]) / Number(m[2] ?? 1) : NAMED_RATES[value];
  return fps !== undefined && fps > 0 && fps <= LAVFI_BOUNDS.maxFps ? null : `must be a rate above 0 and up to ${LAVFI_BOUNDS.maxFps} frames a second (25, 30000/1001, ntsc), got "${value}"`;
}

function dimensionProblem(value: string): string | null {
  const n = /^-?\d{1,5}$/.test(value) ? Number(value) : NaN;
  return n >= -2 && n <= LAVFI_BOUNDS.maxWidth && n !== 0 ? null : `must be a whole number of pixels up to ${LAVFI_BOUNDS.maxWidth} (or -1, -2: keep the aspect), got "${value}"`;
}

function iterationsProblem(value: string): string | null {
  const n = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  return n >= 1 && n <= LAVFI_BOUNDS.maxIterations ? null : `must be a whole number from 1 to ${LAVFI_BOUNDS.maxIterations}, got "${value}"`;
}

/** The video filters' options whose values are bounded, by name (the same name means the same thing in every allow-listed video filter). */
const LAVFI_VALUE_CHECKS: Readonly<Record<string, (value: string) => string | null>> = {
  size: sizeProblem,
  s: sizeProblem,
  rate: rateProblem,
  r: rateProblem,
  fps: rateProblem,
  w: dimensionProblem,
  h: dimensionProblem,
  width: dimensionProblem,
  height: dimensionProblem,
  maxiter: iterationsProblem,
};

/** Allowed URL schemes and the FFmpeg protocols each needs (the input's `-protocol_whitelist`). */
export const URL_SCHEMES: ReadonlyMap<string, readonly string[]> = new Map([
  // HLS playlists over HTTP need nothing more; crypto is for AES-128 segments.
  ['http', ['http', 'https', 'tcp', 'tls', 'crypto']],
  ['https', ['http', 'https', 'tcp', 'tls', 'crypto']],
  ['rtmp', ['rtmp', 'tcp']],
  ['rtmps', ['rtmps', 'tcp', 'tls']],
  ['rtsp', ['rtsp', 'rtp', 'udp', 'tcp']],
  ['srt', ['srt']],
]);

const FILE_PROTOCOLS = ['file'];

/** Characters a lavfi graph may contain: names, `=`, `:` and `,` as separators, and plain values. */
const LAVFI_CHARS = /[^A-Za-z0-9_=:,.+\-/#@]/;
const OPTION = /^([a-z_][a-z0-9_]*)=([^=]+)$/;
/** Control, format (zero-width, bidi), surrogate, private-use and unassigned code points, and any space but U+0020. */
const INVISIBLE = /[\p{C}\p{Z}]/u;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** Throws unless `text` has only visible characters and plain spaces; `what` names the text in the message. */
export function checkVisible(text: string, what: string): void {
  for (const [i, ch] of [...text].entries()) {
    if (ch !== ' ' && INVISIBLE.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      throw new SourceError(`${what} has a control or invisible character (U+${code}) at position ${i}`);
    }
  }
}

/** Parses and checks a source string; a file path is not yet looked up (see resolveSource). Throws SourceError. */
export function parseSource(input: string): ParsedSource {
  checkVisible(input, 'source');
  const s = input.trim();
  if (!s) throw new SourceError('source is empty');
  const scheme = SCHEME.exec(s)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'file', path: s };
  const rest = s.slice(scheme.length + 1);
  if (scheme === 'lavfi') return parseLavfi(rest);
  if (scheme === 'live') {
    if (rest) throw new SourceError('a live stream\'s source is "live:" alone: publishers send to it with its stream key');
    return { kind: 'live' };
  }
  if (!rest.startsWith('//')) {
    throw new SourceError(`"${scheme}:" is an FFmpeg protocol, not a file; a source is a file in MEDIA_DIR, a URL (${[...URL_SCHEMES.keys()].join(', ')}) or lavfi:GRAPH`);
  }
  return parseUrl(s, scheme);
}

/** The FFmpeg protocols a source may open; null for lavfi, whose allow-listed filters open nothing. */
export function protocolWhitelist(spec: ParsedSource | SourceSpec): readonly string[] | null {
  switch (spec.kind) {
    case 'live':
      return ['pipe'];
    case 'file':
      return FILE_PROTOCOLS;
    case 'url':
      return URL_SCHEMES.get(spec.scheme) ?? [];
    case 'lavfi':
      return null;
  }
}

function parseUrl(url: string, scheme: string): ParsedSource {
  if (!URL_SCHEMES.has(scheme)) throw new SourceError(`URL scheme "${scheme}" is not allowed; allowed: ${[...URL_SCHEMES.keys()].join(', ')}`);
  // One reading for us and FFmpeg: plain ASCII, no backslash, no encoded control character.
  if (/[^\x21-\x7e]|\\/.test(url)) throw new SourceError('a URL must be printable ASCII without spaces or backslashes (percent-encode other characters)');
  if (/%(?:[01][0-9a-f]|7f)/i.test(url)) throw new SourceError('URL has a percent-encoded control character');
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // Reported below.
  }
  if (!host) throw new SourceError(`not a valid ${scheme} URL: it needs a host`);
  return { kind: 'url', url, scheme };
}

function parseLavfi(source: string): ParsedSource {
  if (!source) throw new SourceError('lavfi source has no filter graph');
  const [graph, audioGraph, ...more] = source.split('|');
  if (more.length) throw new SourceError('lavfi source: at most one "|", between the video graph and the audio graph');
  const generator = parseChain(graph!, LAVFI_FILTERS, 'lavfi', LAVFI_VALUE_CHECKS);
  if (audioGraph === undefined) return { kind: 'lavfi', graph: graph!, generator };
  const audio = { graph: audioGraph, generator: parseChain(audioGraph, LAVFI_AUDIO_FILTERS, 'lavfi audio') };
  return { kind: 'lavfi', graph: graph!, generator, audio };
}

/** Checks one chain of `filters` and the `bounded` options' values; returns its generator. `what` (lavfi, lavfi audio) begins the messages. */
function parseChain(graph: string, filters: ReadonlyMap<string, LavfiFilter>, what: string, bounded: Readonly<Record<string, (value: string) => string | null>> = {}): string {
  if (!graph) throw new SourceError(`${what} graph is empty`);
  const bad = LAVFI_CHARS.exec(graph);
  if (bad) {
    throw new SourceError(
      `${what} graph: "${bad[0]}" is not allowed; a graph is one chain "filter=key=value:key=value,filter" of letters, digits and . _ + - / # @ (no quotes, escapes, labels or ";")`,
    );
  }
  const chain = graph.split(',');
  chain.forEach((f, i) => {
    const eq = f.indexOf('=');
    const name = eq < 0 ? f : f.slice(0, eq);
    if (!name) throw new SourceError(`${what} graph has an empty filter`);
    const filter = filters.get(name);
    if (!filter) throw new SourceError(`${what} filter "${name}" is not allowed; allowed: ${[...filters.keys()].join(', ')}`);
    if (i === 0 && !filter.generator) throw new SourceError(`${what} graph must start with a generator (${generators(filters).join(', ')}), not "${name}"`);
    if (i > 0 && filter.generator) throw new SourceError(`${what} generator "${name}" can only start the graph`);
    if (eq < 0) return;
    for (const option of f.slice(eq + 1).split(':')) {
      const key = OPTION.exec(option)?.[1];
      if (key === undefined) throw new SourceError(`${what} filter "${name}": options are key=value separated by ":"; got "${option}"`);
      if (!filter.options.includes(key)) {
        throw new SourceError(`${what} filter "${name}": option "${key}" is not allowed; allowed: ${filter.options.join(', ') || 'none'}`);
      }
      const problem = bounded[key]?.(option.slice(key.length + 1));
      if (problem) throw new SourceError(`${what} filter "${name}": ${key} ${problem}`);
    }
  });
  return chain[0]!.split('=')[0]!;
}

function generators(filters: ReadonlyMap<string, LavfiFilter>): string[] {
  return [...filters].filter(([, f]) => f.generator).map(([name]) => name);
}
