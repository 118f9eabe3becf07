/**
 * How far behind live the picture is: for each frame drawn, the time from
 * when it entered the server (and, when its publisher stamped it, from its
 * capture) to when it went on screen, and what each stage on the way added.
 * The server's times come with the frame's row of the quality table
 * (`ingestMs`, `encodedMs`, `captureMs`, server clock); the player's own
 * (the frame's arrival in the worker, its decode, its draw) are the page's
 * clock, moved to the server's by the offset measured over signaling
 * (clockOffset.ts). A row may come before or after its frame is drawn: each
 * side waits for the other a while. Pure.
 */
import type { LatencyStages, LatencySummary } from '@pels/shared/protocol/playerHook';

export interface FrameTimes {
  /** Server epoch ms when the frame entered the server. */
  ingestMs: number;
  /** Server epoch ms when the server's encoder gave it. */
  encodedMs?: number;
  /** The publisher's own capture time of the frame (server clock), when it sends one. */
  captureMs?: number;
}

export interface LiveLatencyStats {
  /** Server entry to display, ms. */
  fromIngest: LatencySummary | null;
  /** Publisher capture to display, ms (null: the publisher sends no capture time). */
  fromCapture: LatencySummary | null;
  /** What each stage added, medians over the same frames; null before any. */
  stages: LatencyStages | null;
}

/** The player's own times of a frame (local epoch ms). */
interface LocalTimes {
  arrivedMs?: number;
  decodedMs?: number;
  drawnMs?: number;
}

/** Frames the figures cover: 10 s at 30 fps. */
const WINDOW = 300;
/** Frames either side waits for the other. */
const PENDING = 600;

type StageName = keyof LatencyStages;
/** Stages that read the server's clock on one side and the page's on the other: the offset applies. */
const ACROSS_CLOCKS: readonly StageName[] = ['network'];

export class LiveLatency {
  private readonly times = new Map<number, FrameTimes>();
  private readonly local = new Map<number, LocalTimes>();
  /** Local draw time minus the server's entry (and capture) time: the latency less the clock offset. */
  private readonly sinceIngest: number[] = [];
  private readonly sinceCapture: number[] = [];
  private readonly stageValues: Record<StageName, number[]> = { publisher: [], ingest: [], network: [], buffer: [], display: [] };

  /** A frame's times, from its quality row. */
  frameTimes(index: number, t: FrameTimes): void {
    const l = this.local.get(index);
    if (l?.drawnMs !== undefined) {
      this.local.delete(index);
      this.record(l as LocalTimes & { drawnMs: number }, t);
    } else remember(this.times, index, t);
  }

  /** Frame `index` reached the player (its encoded frame, in the worker) at local epoch ms `atMs`. */
  arrived(index: number, atMs: number): void {
    this.noteLocal(index, { arrivedMs: atMs });
  }

  /** Frame `index` was decoded at local epoch ms `atMs`. */
  decoded(index: number, atMs: number): void {
    this.noteLocal(index, { decodedMs: atMs });
  }

  /** Frame `index` went on screen at local epoch ms `atMs`. */
  drawn(index: number, atMs: number): void {
    const l = { ...this.local.get(index), drawnMs: atMs };
    const t = this.times.get(index);
    if (t) {
      this.times.delete(index);
      this.local.delete(index);
      this.record(l, t);
    } else remember(this.local, index, l);
  }

  /** The figures, with the server's clock `offsetMs` ahead of the page's; null before the offset is known. */
  stats(offsetMs: number | null): LiveLatencyStats {
    if (offsetMs === null) return { fromIngest: null, fromCapture: null, stages: null };
    const median = (k: StageName) => summary(this.stageValues[k], ACROSS_CLOCKS.includes(k) ? offsetMs : 0)?.p50 ?? null;
    const stages: LatencyStages = { publisher: median('publisher'), ingest: median('ingest'), network: median('network'), buffer: median('buffer'), display: median('display') };
    return {
      fromIngest: summary(this.sinceIngest, offsetMs),
      fromCapture: summary(this.sinceCapture, offsetMs),
      stages: this.sinceIngest.length ? stages : null,
    };
  }

  private noteLocal(index: number, t: LocalTimes): void {
    remember(this.local, index, { ...this.local.get(index), ...t });
  }

  private record(l: LocalTimes & { drawnMs: number }, t: FrameTimes): void {
    push(this.sinceIngest, l.drawnMs - t.ingestMs);
    if (t.captureMs !== undefined) {
      push(this.sinceCapture, l.drawnMs - t.captureMs);
      push(this.stageValues.publisher, t.ingestMs - t.captureMs);
    }
    if (t.encodedMs !== undefined) push(this.stageValues.ingest, t.encodedMs - t.ingestMs);
    if (t.encodedMs !== undefined && l.arrivedMs !== undefined) push(this.stageValues.network, l.arrivedMs - t.encodedMs);
    if (l.arrivedMs !== undefined && l.decodedMs !== undefined) push(this.stageValues.buffer, l.decodedMs - l.arrivedMs);
    if (l.decodedMs !== undefined) push(this.stageValues.display, l.drawnMs - l.decodedMs);
  }
}

function remember<T>(m: Map<number, T>, index: number, value: T): void {
  m.delete(index);
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
