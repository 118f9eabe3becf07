import type { QualityFrame } from '@pels/shared/protocol/signaling';

/**
 * When each of a stream's frames (by index) entered the server: the time
 * every viewer's player measures its latency from. It goes to the players
 * with the frame's row of the quality table (`ingestMs`), which each player
 * gets for every frame. Bounded: the last `kept` frames.
 */
export class FrameEntryTimes {
  private readonly times = new Map<number, number>();

  constructor(private readonly kept: number) {}

  note(index: number, enteredMs: number): void {
    this.times.set(index, enteredMs);
    // Maps iterate in insertion order: the oldest goes first.
    if (this.times.size > this.kept) this.times.delete(this.times.keys().next().value!);
  }

  /** The rows with their frames' entry times, where known. */
  stamp(rows: QualityFrame[]): QualityFrame[] {
    return rows.map((row) => {
      const ingestMs = this.times.get(row.index);
      return ingestMs === undefined ? row : { ...row, ingestMs };
    });
  }
}
