/**
 * The quality measurement (the PSNR threads and their decoders) runs at a lower
 * CPU priority than the stream and its viewers: on a machine short of CPU the
 * ingest, the encoders, node's event loop and the media workers are served
 * first, and the measurement, which drops planes it cannot score in time, takes
 * what they leave. Lowering a priority needs no privilege.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value of the quality measurement's threads and decoders (the server's own run at its nice, usually 0). */
export const MEASUREMENT_NICE = 10;

/** The thread id in /proc/thread-self's target ("<pid>/task/<tid>"), or null. */
export function threadIdOf(threadSelfLink: string): number | null {
  const m = /^\d+\/task\/(\d+)$/.exec(threadSelfLink);
  return m ? Number(m[1]) : null;
}

/** Sets `id`'s nice to MEASUREMENT_NICE unless it is already that low (never raises it); false if it cannot. */
function lower(id: number): boolean {
  try {
    if (getPriority(id) < MEASUREMENT_NICE) setPriority(id, MEASUREMENT_NICE);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lowers the calling thread alone (Linux: a thread id given to setpriority is
 * that thread); elsewhere the thread runs as it was (false).
 */
export function lowerThisThread(): boolean {
  let tid: number | null = null;
  try {
    tid = threadIdOf(readlinkSync('/proc/thread-self'));
  } catch {
    return false;
  }
  return tid !== null && lower(tid);
}

/** Lowers a child process just started (the threads it starts later inherit it); false if it cannot. */
export function lowerProcess(pid: number | undefined): boolean {
  return pid !== undefined && lower(pid);
}
