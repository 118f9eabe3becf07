/**
 * Time series for a live chart: x (seconds) and one or more y columns, the newest
 * points kept, read back as uPlot's column arrays for a scrolling window. Pure.
 */
import { Ring } from '../quality/ring';

export type ChartData = [xs: number[], ...ys: (number | null)[][]];

export class SeriesBuffer {
  private readonly points: Ring<{ x: number; ys: (number | null)[] }>;

  constructor(
    private readonly columns: number,
    capacity: number,
  ) {
    this.points = new Ring(capacity);
  }

  push(x: number, ys: (number | null)[]): void {
    if (ys.length !== this.columns) throw new RangeError(`expected ${this.columns} values, got ${ys.length}`);
    this.points.push({ x, ys });
  }

  /** The points with x >= fromX, as [xs, ys1, ys2, ...]. */
  since(fromX: number): ChartData {
    const pts = this.points.toArray().filter((p) => p.x >= fromX);
    const ys = Array.from({ length: this.columns }, (_, c) => pts.map((p) => p.ys[c] ?? null));
    return [pts.map((p) => p.x), ...ys];
  }
}
