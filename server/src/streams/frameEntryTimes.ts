import type { QualityFrame } from '@pels/shared/protocol/signaling';

/** One frame's times at the server (epoch ms, the server's clock). */
export interface FrameTimes {
  /** When it entered the server. */
  ingestMs: number;
  /** When the encoder gave it. */
  encodedMs: number;
  /** When its publisher captured it, when the publisher stamps one. */
  captureMs?: number;
}

/**
 * When each of a stream's frames (by index) entered the server, was encoded,
 * and (when its publisher says) was captured: the times every viewer's player
 * measures its latency and its stages from. They go to the players with the
 * frame's row of the quality table, which each player gets for every frame.
 * Bounded: the last `kept` frames.
 */
export class FrameEntryTimes {
  private readonly times = new Map<number, FrameTimes>();

  constructor(private readonly kept: number) {}

  note(index: number, t: FrameTimes): void {
    this.times.set(index, t);
    // Maps iterate in insertion order: the oldest goes first.
    if (this.times.size > this.kept) this.times.delete(this.times.keys().next().value!);
  }

  /** The rows with their frames' times, where known. */
  stamp(rows: QualityFrame[]): QualityFrame[] {
    return rows.map((row) => {
      const t = this.times.get(row.index);
      return t === undefined ? row : { ...row, ...t };
    });
  }
}
