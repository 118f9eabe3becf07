/**
 * What a source is once the source policy (sourcePolicy.ts) has accepted it,
 * and the FFmpeg command that decodes and scales it for the encoder
 * (vp8Encoder.ts). Files loop forever.
 */
import { protocolWhitelist } from './sourcePolicy';

/** A file inside the media directories: `path` is its real path, `mediaDirs` where it must stay (checked again at each FFmpeg start). */
export interface FileSource {
  kind: 'file';
  path: string;
  mediaDirs: readonly string[];
}

/** A URL with one of the allowed schemes, as given. */
export interface UrlSource {
  kind: 'url';
  url: string;
  scheme: string;
}

/**
 * A lavfi graph of allow-listed filters, e.g. `testsrc2=size=640x360:rate=30`; `generator` is its first filter.
 * `audio`: the audio graph given after `|` (e.g. `sine=frequency=1000`), if any.
 */
export interface LavfiSource {
  kind: 'lavfi';
  graph: string;
  generator: string;
  audio?: { graph: string; generator: string };
}

/** `live:`: a live stream that publishers send to (RTMP, SRT) with its stream key; nothing to read until one does. */
export interface LiveSource {
  kind: 'live';
}

export type SourceSpec = FileSource | UrlSource | LavfiSource | LiveSource;

/** A source as parsed, before its file (if it is one) is looked up in the media directories. */
export type ParsedSource = { kind: 'file'; path: string } | UrlSource | LavfiSource | LiveSource;

/** What FFmpeg can read: any source but a live one, whose publishers' media comes as a PublishedInput. */
export type ReadableSource = Exclude<ParsedSource, LiveSource>;

/** What one publisher of a live stream sends, as FFmpeg reads it: its media in a container, on FFmpeg's stdin (WHIP's in Matroska). */
export interface PublishedInput {
  kind: 'published';
  format: 'flv' | 'mpegts' | 'matroska';
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

/**
 * A lower rendition of a stream: the same frames, scaled down and encoded at
 * a lower rate by an encoder of its own (same frame rate, keyframe interval
 * and temporal layers as the stream's own encoding, rendition 0).
 */
export interface Rendition {
  width: number;
  height: number;
  bitrateKbps: number;
}

/** The encoder settings of a lower rendition of a stream encoded with `enc`. */
export function renditionEncode(enc: EncodeSettings, r: Rendition): EncodeSettings {
  return { ...enc, width: r.width, height: r.height, bitrateKbps: r.bitrateKbps };
}

/** The file descriptor FFmpeg writes the reference planes to (stdin, stdout, stderr, then this). */
export const REFERENCE_FD = 3;

/** The file descriptor FFmpeg writes lower rendition `k` (1, 2, ...) to: after the reference. */
export function renditionFd(k: number): number {
  return REFERENCE_FD + k;
}

/** The sound of a source as probed (audioProbe.ts): its first audio stream's codec and channels, or null: it has none. */
export interface ProbedAudio {
  codec: string;
  channels: number;
}

/** What the ingest does with a source's sound: nothing (it has none), encode it as Opus, or pass its Opus through. */
export const AUDIO_PLANS = ['none', 'encode', 'copy'] as const;
export type AudioPlan = (typeof AUDIO_PLANS)[number];

/**
 * A lavfi source's audio graph is encoded; a file's, URL's or publisher's first audio
 * stream passes through when it is Opus a browser can play (mono or stereo),
 * and is decoded and encoded as Opus otherwise.
 */
export function audioPlan(spec: ParsedSource, probed: ProbedAudio | null): AudioPlan {
  if (spec.kind === 'lavfi') return spec.audio ? 'encode' : 'none';
  if (!probed) return 'none';
  return probed.codec === 'opus' && probed.channels <= 2 ? 'copy' : 'encode';
}

/**
 * Opus as the viewers get it: 48 kHz stereo, 20 ms frames, in-band FEC on.
 * libopus uses its FEC (LBRR) only in its SILK and hybrid modes, and picks
 * them for music only when the expected loss is above 8%: at 10% a lost
 * packet is rebuilt from the next one's FEC at the receiver. DTX stays off
 * (FFmpeg's default here): music has no silence to skip.
 */
export const OPUS_ENCODE_ARGS = ['-c:a', 'libopus', '-b:a', '64k', '-ar', '48000', '-ac', '2', '-application', 'audio', '-frame_duration', '20', '-fec', '1', '-packet_loss', '10'];

/** The file descriptor the video's FFmpeg writes the Opus packets to (in Ogg pages), after the lower renditions' pipes, when the sound rides with the video (soundArgs is null). */
export function audioFd(lowerCount: number): number {
  return renditionFd(lowerCount + 1);
}

/** The first sound stream as Ogg Opus on pipe `fd`, one 20 ms packet a page so each leaves at once. */
function oggOpusOutput(audio: 'encode' | 'copy', fd: number): string[] {
  return ['-map', '0:a:0', ...(audio === 'copy' ? ['-c:a', 'copy'] : OPUS_ENCODE_ARGS), '-f', 'ogg', '-page_duration', '20000', '-flush_packets', '1', `pipe:${fd}`];
}

/**
 * A file's sound decoded and thrown away. FFmpeg's `-stream_loop` starts each
 * loop after the decoded sound's length when it decodes sound, and after the
 * video's (or the packets' timestamps) otherwise: the video's FFmpeg and the
 * sound's, each decoding the sound, loop at the same instants forever.
 */
const DECODED_SOUND_DISCARDED = ['-map', '0:a:0', '-f', 'null', '-'];

/**
 * The arguments of an FFmpeg of the sound's own, which writes it as Ogg Opus
 * on its stdout; null when the sound rides with the video in one FFmpeg.
 *
 * FFmpeg writes all of its outputs from one thread: an encoder short of CPU
 * (its full input pipe) holds every output, the sound too. A file's and a
 * lavfi graph's sound can be read a second time, so it gets a process of its
 * own, paced in real time by itself, and keeps playing while the video falls
 * behind. Both start from the same input, so their timelines agree (pts 0 of
 * one is sample 0 of the other). A URL is opened once (a second connection may
 * be refused or cost the source twice) and a publisher's media comes once:
 * their sound stays with the video.
 */
export function soundArgs(spec: ReadableSource | PublishedInput, audio: AudioPlan): string[] | null {
  if (audio === 'none' || !soundHasItsOwnFfmpeg(spec)) return null;
  const head = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-re'];
  if (spec.kind === 'lavfi') return [...head, '-f', 'lavfi', '-i', spec.audio.graph, ...oggOpusOutput(audio, 1)];
  return [...head, '-stream_loop', '-1', ...sourceInput(spec), ...oggOpusOutput(audio, 1), ...(audio === 'copy' ? DECODED_SOUND_DISCARDED : [])];
}

/** A file, or a lavfi graph with an audio part: read a second time for its sound (soundArgs says why). */
function soundHasItsOwnFfmpeg(spec: ReadableSource | PublishedInput): spec is Extract<ReadableSource, { kind: 'file' }> | (LavfiSource & Required<Pick<LavfiSource, 'audio'>>) {
  return spec.kind === 'file' || (spec.kind === 'lavfi' && spec.audio !== undefined);
}

/** The options that open a source, ending `-i NAME`, for FFmpeg and ffprobe alike; a URL is read from stdin (ffmpegStdin). */
export function sourceInput(spec: ReadableSource): string[] {
  const whitelist = protocolWhitelist(spec);
  return [
    ...(spec.kind === 'lavfi' ? ['-f', 'lavfi'] : []),
    // `-safe 0`: the concat demuxer calls any URL unsafe; the whitelist is what binds it.
    ...(spec.kind === 'url' ? ['-f', 'concat', '-safe', '0'] : []),
    ...(whitelist ? ['-protocol_whitelist', (spec.kind === 'url' ? ['pipe', ...whitelist] : whitelist).join(',')] : []),
    '-i',
    spec.kind === 'lavfi' ? spec.graph : spec.kind === 'file' ? `file:${spec.path}` : 'pipe:0',
  ];
}

/** What FFmpeg (or ffprobe) reads on its stdin before the source (see ffmpegArgs); undefined: nothing (stdin closed). */
export function ffmpegStdin(spec: ReadableSource): string | undefined {
  if (spec.kind !== 'url') return undefined;
  // Quoted for the concat list: a quote ends the quoting, so it is written '\'' (URLs hold no backslash or newline).
  return `ffconcat version 1.0\nfile '${spec.url.replaceAll("'", "'\\''")}'\n`;
}

/**
 * FFmpeg arguments: the source decoded, scaled and padded to the encode size
 * at the encode frame rate, as raw yuv420p frames on stdout (the encoder's
 * input, see vp8Encoder.ts), in real time.
 * Each lower rendition gets the same frames scaled down, on renditionFd(k):
 * one decode feeds every rendition's encoder.
 * The same frames also go, as raw Y planes (width * height bytes per frame),
 * to REFERENCE_FD: the reference the server scores its own decode against.
 * `extractplanes=y` copies the plane exactly (`-pix_fmt gray` would rescale it).
 * `-flush_packets 1`: each frame leaves at once, not when the next fills the buffer.
 * The sound (`audio` not 'none') of a URL or a publisher goes to audioFd()
 * as Ogg Opus; a file's and a lavfi graph's is made by an FFmpeg of its own
 * (soundArgs).
 *
 * The input may open only the protocols its kind needs (`-protocol_whitelist`,
 * which also binds what playlists and session descriptions inside it open),
 * and a file is named `file:<absolute path>` so no part of its name is read
 * as a protocol.
 *
 * A URL is not on the command line, which any local user can read (`ps`), and
 * may carry credentials (`rtmp://user:key@...`, `?passphrase=`): FFmpeg reads
 * it from its stdin (ffmpegStdin), as a one-entry concat list.
 */
export function ffmpegArgs(spec: ReadableSource | PublishedInput, enc: EncodeSettings = DEFAULT_ENCODE, lower: readonly Rendition[] = [], audio: AudioPlan = 'none'): string[] {
  const input = spec.kind === 'published' ? publishedInputArgs(spec) : ['-re', ...(spec.kind === 'file' ? ['-stream_loop', '-1'] : []), ...sourceInput(spec)];
  // The sound: in an FFmpeg of its own (a file's: decoded here too, for the loops' instants), or here, after the video's outputs.
  const audioOutput = audio === 'none' ? [] : soundHasItsOwnFfmpeg(spec) ? (spec.kind === 'file' ? DECODED_SOUND_DISCARDED : []) : oggOpusOutput(audio, audioFd(lower.length));
  const { width: w, height: h } = enc;
  const lowerLabels = lower.map((_, i) => `[low${i + 1}]`).join('');
  const lowerScales = lower.map((r, i) => `;[low${i + 1}]scale=${r.width}:${r.height}[enc${i + 1}]`).join('');
  const raw = (label: string, fd: number) => ['-map', `[${label}]`, '-f', 'rawvideo', '-flush_packets', '1', `pipe:${fd}`];
  return [
    '-hide_banner', '-nostdin', '-loglevel', 'error',
    ...input,
    '-an',
    '-filter_complex',
    `[0:v]scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2,fps=${enc.frameRate},format=yuv420p,split=${2 + lower.length}[enc][src]${lowerLabels};[src]extractplanes=y[ref]${lowerScales}`,
    ...raw('enc', 1),
    ...raw('ref', REFERENCE_FD),
    ...lower.flatMap((_, i) => raw(`enc${i + 1}`, renditionFd(i + 1))),
    ...audioOutput,
  ];
}

/**
 * A publisher's stream arrives in real time (no `-re`); a short analysis (the
 * container names its streams up front) lets its first keyframe reach the
 * encoder soon. Not `-fflags nobuffer`: it discards the packets read while
 * probing, the first keyframe with them, and the stream began only at the
 * publisher's next keyframe (seconds later, or never for one that sends a single
 * keyframe). The H.264 decoder's threads split slices, not frames: frame
 * threads hold a frame each before the first leaves (2-3 frames, 70-100 ms of
 * the ingest stage on 2 cores); x264's zerolatency tune, as OBS and FFmpeg
 * publishers use, cuts each frame into slices. A resolution or frame rate change mid-stream reconfigures FFmpeg's
 * filters, whose output stays at the encode size and rate.
 */
function publishedInputArgs(spec: PublishedInput): string[] {
  return ['-analyzeduration', '500000', '-probesize', '500000', '-thread_type', 'slice', '-protocol_whitelist', 'pipe', '-f', spec.format, '-i', 'pipe:0'];
}
