/**
 * A publisher as OBS is one: FFmpeg sending H.264 (no B-frames, a keyframe a
 * second) and AAC test signals to a live stream, in real time, over RTMP (FLV)
 * or SRT (MPEG-TS).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface LivePublisher {
  proc: ChildProcess;
  /** Resolves with FFmpeg's exit code (null when killed) and the tail of its stderr. */
  exited: Promise<{ code: number | null; stderr: string }>;
  /** SIGKILL: a publisher that drops without a goodbye. */
  kill(): void;
}

export function publishRtmp(url: string, o: { seconds?: number; size?: string; fps?: number } = {}): LivePublisher {
  return publish(url, 'flv', o);
}

/** `url`: srt://host:port?streamid=KEY. */
export function publishSrt(url: string, o: { seconds?: number; size?: string; fps?: number } = {}): LivePublisher {
  return publish(url, 'mpegts', o);
}

function publish(url: string, format: 'flv' | 'mpegts', o: { seconds?: number; size?: string; fps?: number }): LivePublisher {
  const { seconds = 600, size = '640x360', fps = 30 } = o;
  const proc = spawn(
    'ffmpeg',
    [
      '-hide_banner', '-nostdin', '-loglevel', 'error', '-re',
      '-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=${fps}:duration=${seconds}`,
      '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-bf', '0', '-g', String(fps), '-b:v', '1500k',
      '-c:a', 'aac', '-b:a', '96k',
      '-f', format, url,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr = (stderr + t).slice(-2000)));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => proc.on('close', (code) => resolve({ code, stderr })));
  return { proc, exited, kill: () => proc.kill('SIGKILL') };
}
