/** The server's child processes by role, found by command name and arguments (for fault injection). */
import { childProcesses } from './processResources';

/** `arg`: an argument the process has; `containing`: text in any of its arguments. */
export function serverChildPids(serverPid: number, comm: string, arg?: string, containing?: string): number[] {
  return childProcesses(serverPid)
    .filter(([, c, args]) => c === comm && (arg === undefined || args.includes(arg)) && (containing === undefined || args.some((a) => a.includes(containing))))
    .map(([pid]) => pid);
}

export function serverChildPid(serverPid: number, comm: string, arg?: string, containing?: string): number {
  const [pid] = serverChildPids(serverPid, comm, arg, containing);
  if (pid === undefined) throw new Error(`no ${comm} ${arg ?? ''} ${containing ?? ''} child of the server`);
  return pid;
}

/** The ingest's FFmpeg decodes and scales (a filter graph) into the VP8 encoder; `source`: text in its arguments naming the stream's source, when the server has several. */
export const ingestFfmpegPid = (serverPid: number, source?: string) => serverChildPid(serverPid, 'ffmpeg', '-filter_complex', source);
export const vp8EncoderPid = (serverPid: number) => serverChildPid(serverPid, 'pels-vp8enc');
/** The quality decoders (one per rendition) read the stream on their stdin. */
export const qualityDecoderPids = (serverPid: number) => serverChildPids(serverPid, 'ffmpeg', 'pipe:0');
/** Kernel command names are cut at 15 characters. */
export const mediaWorkerPids = (serverPid: number) => serverChildPids(serverPid, 'mediasoup-worke');
