/**
 * The recent past of every viewer, for the chart shown when a row is clicked:
 * one point per snapshot (about a second). Viewers that left are forgotten.
 */
import type { OperatorSnapshot } from '@pels/shared/protocol/operator';
import { SeriesBuffer, type ChartData } from '../charts/seriesBuffer';

/** Five minutes at one snapshot a second. */
const POINTS = 300;

/** Column order of each viewer's buffer: kb/s first, then shares in 0..1. */
export const HISTORY_COLUMNS = ['rate', 'sent', 'gamma', 'lossGreen', 'lossYellow', 'lossRed'] as const;

export class ViewerHistory {
  private readonly buffers = new Map<string, SeriesBuffer>();
  private readonly listeners = new Set<() => void>();
  /** Seconds: x is time since the first snapshot, by the server's clock. */
  private originMs: number | null = null;
  private latestX = 0;

  add(s: OperatorSnapshot): void {
    const atMs = Date.parse(s.at);
    this.originMs ??= atMs;
    this.latestX = (atMs - this.originMs) / 1000;
    const present = new Set<string>();
    for (const v of s.viewers) {
      present.add(v.id);
      let buffer = this.buffers.get(v.id);
      if (!buffer) this.buffers.set(v.id, (buffer = new SeriesBuffer(HISTORY_COLUMNS.length, POINTS)));
      const { green, yellow, red } = v.perColor;
      buffer.push(this.latestX, [v.rateKbps, v.sentKbps, v.gamma, green.recentLoss, yellow.recentLoss, red.recentLoss]);
    }
    for (const id of this.buffers.keys()) if (!present.has(id)) this.buffers.delete(id);
    for (const l of this.listeners) l();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  nowX = (): number => this.latestX;

  /** The viewer's points from fromX on; empty columns once it has left. */
  data(viewerId: string, fromX: number): ChartData {
    return this.buffers.get(viewerId)?.since(fromX) ?? [[], ...HISTORY_COLUMNS.map(() => [])];
  }

  has(viewerId: string): boolean {
    return this.buffers.has(viewerId);
  }
}
