/**
 * How far behind live the picture is: for each frame drawn, the time from
 * when it entered the server (and, when its publisher stamped it, from its
 * capture) to when it went on screen. The server's times come with the
 * frame's row of the quality table (`ingestMs`, `captureMs`, server clock);
 * the draw time is the page's clock, moved to the server's by the offset
 * measured over signaling (clockOffset.ts). A row may come before or after
 * its frame is drawn: each side waits for the other a while. Pure.
 */
import type { LatencySummary } from '@pels/shared/protocol/playerHook';

export interface FrameTimes {
  /** Server epoch ms when the frame entered the server. */
  ingestMs: number;
  /** The publisher's own capture time of the frame (server clock), when it sends one. */
  captureMs?: number;
}


export interface LiveLatencyStats {
  /** Server entry to display, ms. */
  fromIngest: LatencySummary | null;
  /** Publisher capture to display, ms (null: the publisher sends no capture time). */
  fromCapture: LatencySummary | null;
}

/** Frames the figures cover: 10 s at 30 fps. */
const WINDOW = 300;
/** Frames either side waits for the other. */
const PENDING = 600;

export class LiveLatency {
  private readonly times = new Map<number, FrameTimes>();
  private readonly drawnAt = new Map<number, number>();
  /** Local draw time minus the server's entry (and capture) time: the latency less the clock offset. */
  private readonly sinceIngest: number[] = [];
  private readonly sinceCapture: number[] = [];

  /** A frame's times, from its quality row. */
  frameTimes(index: number, t: FrameTimes): void {
    const drawn = this.drawnAt.get(index);
    if (drawn !== undefined) {
      this.drawnAt.delete(index);
      this.record(drawn, t);
    } else remember(this.times, index, t);
  }

  /** Frame `index` went on screen at local epoch ms `atMs`. */
  drawn(index: number, atMs: number): void {
    const t = this.times.get(index);
    if (t) {
      this.times.delete(index);
      this.record(atMs, t);
    } else remember(this.drawnAt, index, atMs);
  }

  /** The figures, with the server's clock `offsetMs` ahead of the page's; null before the offset is known. */
  stats(offsetMs: number | null): LiveLatencyStats {
    if (offsetMs === null) return { fromIngest: null, fromCapture: null };
    return { fromIngest: summary(this.sinceIngest, offsetMs), fromCapture: summary(this.sinceCapture, offsetMs) };
  }

  private record(drawnMs: number, t: FrameTimes): void {
    push(this.sinceIngest, drawnMs - t.ingestMs);
    if (t.captureMs !== undefined) push(this.sinceCapture, drawnMs - t.captureMs);
  }
}

function remember<T>(m: Map<number, T>, index: number, value: T): void {
  m.set(index, value);
  // Maps iterate in insertion order: the oldest goes first.
  if (m.size > PENDING) m.delete(m.keys().next().value!);
}

function push(values: number[], v: number): void {
  values.push(v);
  if (values.length > WINDOW) values.shift();
}

function summary(values: readonly number[], offsetMs: number): LatencySummary | null {
  if (!values.length) return null;
  const sorted = values.map((v) => v + offsetMs).sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: Math.round(at(0.5)), p95: Math.round(at(0.95)), last: Math.round(values.at(-1)! + offsetMs), frames: sorted.length };
}
