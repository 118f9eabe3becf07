/**
 * A publisher as OBS is one: FFmpeg sending H.264 (no B-frames, a keyframe a
 * second) and AAC to a live stream, in real time, over RTMP (FLV) or SRT
 * (MPEG-TS). Its picture and sound are test signals, or a source of its own
 * (a file, looped, or a lavfi graph). With `stampWallClock` its timestamps
 * are the wall clock when each frame left its filters (RTCTIME): the server
 * reads them as each frame's capture time, for the latency from publish to
 * display.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface LivePublisher {
  proc: ChildProcess;
  /** Resolves with FFmpeg's exit code (null when killed) and the tail of its stderr. */
  exited: Promise<{ code: number | null; stderr: string }>;
  /** SIGKILL: a publisher that drops without a goodbye. */
  kill(): void;
}

export interface PublishOptions {
  seconds?: number;
  size?: string;
  fps?: number;
  /** A file (looped) or `lavfi:GRAPH` (video only) instead of the test picture and tone. */
  source?: string;
  stampWallClock?: boolean;
}

export type LiveProtocol = 'rtmp' | 'srt';

export function publishRtmp(url: string, o: PublishOptions = {}): LivePublisher {
  return publish(url, 'rtmp', o);
}

/** `url`: srt://host:port?streamid=KEY. */
export function publishSrt(url: string, o: PublishOptions = {}): LivePublisher {
  return publish(url, 'srt', o);
}

/** The publisher's FFmpeg arguments. */
export function publishArgs(url: string, protocol: LiveProtocol, o: PublishOptions = {}): string[] {
  const { seconds = 600, size = '640x360', fps = 30 } = o;
  const input = !o.source
    ? ['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=${fps}:duration=${seconds}`, '-re', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`]
    : o.source.startsWith('lavfi:')
      ? ['-f', 'lavfi', '-i', o.source.slice('lavfi:'.length), '-t', String(seconds)]
      : ['-stream_loop', '-1', '-i', o.source, '-t', String(seconds)];
  const [w, h] = size.split('x');
  const video = [...(o.source ? [`scale=${w}:${h}`] : []), ...(o.stampWallClock ? ['setpts=RTCTIME/(1000000*TB)'] : [])];
  const filters = [...(video.length ? ['-vf', video.join(',')] : []), ...(o.stampWallClock ? ['-af', 'asetpts=RTCTIME/(1000000*TB)'] : [])];
  // The MPEG-TS muxer would add 0.7 s to every timestamp, and gather sound into PES of 2930 bytes (a quarter
  // second at 96 kb/s, which the picture would wait for at the player); one audio frame a PES instead.
  const format = protocol === 'rtmp' ? ['-f', 'flv'] : [...(o.stampWallClock ? ['-muxdelay', '0'] : []), '-pes_payload_size', '0', '-f', 'mpegts'];
  return [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-re',
    ...input,
    ...filters,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-bf', '0', '-g', String(fps), '-b:v', '1500k',
    '-c:a', 'aac', '-b:a', '96k',
    ...format, url,
  ];
}

function publish(url: string, protocol: LiveProtocol, o: PublishOptions): LivePublisher {
  const proc = spawn('ffmpeg', publishArgs(url, protocol, o), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr = (stderr + t).slice(-2000)));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => proc.on('close', (code) => resolve({ code, stderr })));
  return { proc, exited, kill: () => proc.kill('SIGKILL') };
}
