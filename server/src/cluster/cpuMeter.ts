import type { MediasoupWorkers } from '../metrics/mediasoupWorkers';

/**
 * The CPU of the node process and its media workers between two readings, in % of one core (what a
 * node's record in the registry says of its load; FFmpeg and the encoders of an origin are not in it).
 * A worker restarted starts its count again: a reading never goes below 0.
 */
export class CpuMeter {
  private last: { seconds: number; atMs: number } | null = null;

  constructor(private readonly workers: MediasoupWorkers) {}

  async percentOfOneCore(): Promise<number> {
    const own = process.cpuUsage();
    const w = await this.workers.usage();
    const seconds = (own.user + own.system) / 1e6 + w.userSeconds + w.systemSeconds;
    const atMs = performance.now();
    const prev = this.last;
    this.last = { seconds, atMs };
    if (!prev || atMs <= prev.atMs) return 0;
    return Math.max(0, Math.round((1000 * (seconds - prev.seconds)) / ((atMs - prev.atMs) / 1000)) / 10);
  }
}
