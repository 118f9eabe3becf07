/**
 * Encoder benchmark: one source, one set of settings, two pipelines run in
 * turn, `repeats` times each:
 *   ffmpeg          FFmpeg decoding, scaling and encoding with its own libvpx
 *                   encoder (the ingest before the encoder program)
 *   ffmpeg+encoder  the product's ingest: FFmpeg decoding and scaling into the
 *                   VP8 encoder program
 * Per run: CPU seconds of the pipeline's processes over the run (from
 * /proc/<pid>/stat), the stream's bitrate, and the mean Y-PSNR of each frame
 * against its source as the server's quality module measures it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { FfmpegIngest } from '../../../server/src/ingest/ffmpegIngest';
import { IvfReader, type IvfFrame } from '../../../server/src/ingest/ivfReader';
import { resolveSource } from '../../../server/src/ingest/mediaFiles';
import { openReferencePipe } from '../../../server/src/ingest/referencePipe';
import { DEFAULT_ENCODE, ffmpegArgs, type EncodeSettings, type ReadableSource, type SourceSpec } from '../../../server/src/ingest/sourceSpec';
import { FrameLayering } from '../../../server/src/layering/layeredFrame';
import { QualityAnalyzer } from '../../../server/src/quality/qualityAnalyzer';
import { ReferenceReader } from '../../../server/src/quality/referenceReader';
import { childProcesses } from '../processResources';
import { mean, round } from '../testbed/metrics';

export const ENCODER_BENCH_SOURCE = 'lavfi:testsrc2=size=640x360:rate=30';

export type Pipeline = 'ffmpeg' | 'ffmpeg+encoder';

export interface EncoderRun {
  pipeline: Pipeline;
  repeat: number;
  /** CPU seconds over the run: FFmpeg, the encoder program (0 for the FFmpeg-only pipeline), both. */
  cpuSeconds: { ffmpeg: number; encoder: number; total: number };
  frames: number;
  kbps: number;
  /** Mean Y-PSNR of each frame against its source (the frame itself decoded), dB; and how many frames were scored. */
  psnrDb: number | null;
  psnrFrames: number;
}

const log = pino({ level: 'silent' });
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** utime + stime of a live process, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * The FFmpeg command the ingest ran before the encoder program: the product's
 * decode and scale, then FFmpeg's libvpx encoder with the options it had.
 */
export function ffmpegOnlyArgs(spec: ReadableSource, enc: EncodeSettings): string[] {
  const args = ffmpegArgs(spec, enc);
  const raw = args.indexOf('[enc]') + 1;
  const b = enc.bitrateKbps;
  const layers = [Math.round(b / 4), Math.round(b / 2), b].join(',');
  args.splice(raw, 5,
    '-threads', '1',
    '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '-6', '-error-resilient', '1', '-lag-in-frames', '0',
    '-g', String(enc.keyframeInterval), '-keyint_min', String(enc.keyframeInterval),
    '-b:v', `${b}k`, '-minrate', `${b}k`, '-maxrate', `${b}k`,
    '-ts-parameters', `ts_number_layers=3:ts_target_bitrate=${layers}:ts_rate_decimator=4,2,1:ts_periodicity=4:ts_layer_id=0,2,1,2:ts_layering_mode=3`,
    '-flush_packets', '1', '-f', 'ivf', 'pipe:1');
  return args;
}

/** What both pipelines feed: encoded frames and reference planes, scored by the server's quality module. */
class Measurement {
  private readonly layering = new FrameLayering(3000);
  private readonly rows: QualityFrame[] = [];
  private readonly reference: ReferenceReader;
  private readonly quality: QualityAnalyzer;
  frames = 0;
  bytes = 0;

  constructor(enc: EncodeSettings) {
    const size = { width: enc.width, height: enc.height, frameRate: enc.frameRate };
    this.reference = new ReferenceReader({ ...size, log });
    this.quality = new QualityAnalyzer({ ...size, reference: this.reference, onRows: (rows) => this.rows.push(...rows), log });
  }

  /** The (one) run's reference pipe, its read end. */
  run(fd: number): void {
    this.quality.newRun(1);
    this.reference.read(1, fd);
  }

  frame(f: IvfFrame): void {
    this.frames++;
    this.bytes += f.data.length;
    this.quality.onFrame(this.layering.next(f.data), Number(f.pts));
  }

  /** Closes the quality module once its rows have come (the worker scores in batches). */
  async finish(enc: EncodeSettings): Promise<Pick<EncoderRun, 'frames' | 'kbps' | 'psnrDb' | 'psnrFrames'>> {
    await new Promise((r) => setTimeout(r, 1500));
    this.quality.close();
    this.reference.close();
    const own = this.rows.flatMap((r) => (typeof r.psnr[0] === 'number' ? [r.psnr[0]] : []));
    return {
      frames: this.frames,
      kbps: round((this.bytes * 8 * enc.frameRate) / this.frames / 1000, 1)!,
      psnrDb: round(mean(own), 2),
      psnrFrames: own.length,
    };
  }
}

async function runFfmpegOnly(spec: ReadableSource, enc: EncodeSettings, seconds: number): Promise<Omit<EncoderRun, 'pipeline' | 'repeat'>> {
  const m = new Measurement(enc);
  const reader = new IvfReader();
  const reference = openReferencePipe();
  const proc: ChildProcess = spawn('ffmpeg', ffmpegOnlyArgs(spec, enc), { stdio: ['ignore', 'pipe', 'pipe', reference.writeFd] });
  closeSync(reference.writeFd);
  m.run(reference.readFd);
  proc.stdout!.on('data', (chunk: Buffer) => reader.push(chunk).forEach((f) => m.frame(f)));
  proc.stderr!.resume();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  if (proc.exitCode !== null) throw new Error(`ffmpeg exited early (code ${proc.exitCode})`);
  const ffmpeg = cpuSeconds(proc.pid!);
  proc.kill('SIGKILL');
  return { cpuSeconds: { ffmpeg: round(ffmpeg, 2)!, encoder: 0, total: round(ffmpeg, 2)! }, ...(await m.finish(enc)) };
}

async function runIngest(spec: SourceSpec, enc: EncodeSettings, seconds: number): Promise<Omit<EncoderRun, 'pipeline' | 'repeat'>> {
  const m = new Measurement(enc);
  const ingest = new FfmpegIngest(spec, enc, log);
  ingest.on('frame', (f) => m.frame(f));
  ingest.on('reference', (fd) => m.run(fd));
  ingest.start();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const children = childProcesses(process.pid);
  const pidOf = (comm: string, arg: string) => children.find(([, c, args]) => c === comm && args.includes(arg))?.[0];
  const [ffmpegPid, encoderPid] = [pidOf('ffmpeg', '-filter_complex'), pidOf('pels-vp8enc', '--kbps')];
  if (ffmpegPid === undefined || encoderPid === undefined || ingest.currentStatus.restarts > 0) throw new Error(`the ingest did not run through: ${JSON.stringify(ingest.currentStatus)}`);
  const [ffmpeg, encoder] = [cpuSeconds(ffmpegPid), cpuSeconds(encoderPid)];
  ingest.close();
  return { cpuSeconds: { ffmpeg: round(ffmpeg, 2)!, encoder: round(encoder, 2)!, total: round(ffmpeg + encoder, 2)! }, ...(await m.finish(enc)) };
}

export async function encoderBench(o: { seconds: number; repeats: number }, progress: (m: string) => void): Promise<EncoderRun[]> {
  const enc = DEFAULT_ENCODE;
  const spec = await resolveSource(ENCODER_BENCH_SOURCE, []);
  if (spec.kind === 'live') throw new Error('the encoder benchmark needs a source it can read');
  const runs: EncoderRun[] = [];
  for (let repeat = 1; repeat <= o.repeats; repeat++) {
    for (const pipeline of ['ffmpeg', 'ffmpeg+encoder'] as const) {
      progress(`${pipeline}, run ${repeat} of ${o.repeats}: ${o.seconds} s of ${ENCODER_BENCH_SOURCE} at ${enc.width}x${enc.height} ${enc.frameRate} fps ${enc.bitrateKbps} kb/s`);
      const r = pipeline === 'ffmpeg' ? await runFfmpegOnly(spec, enc, o.seconds) : await runIngest(spec, enc, o.seconds);
      runs.push({ pipeline, repeat, ...r });
    }
  }
  return runs;
}
