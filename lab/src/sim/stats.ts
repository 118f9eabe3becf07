/**
 * Sums and counts per time bin: the simulator records events (arrivals,
 * drops, delays) as they happen and the experiments read rates and means
 * per bin afterwards.
 */
export class Bins {
  private readonly sums: number[] = [];
  private readonly counts: number[] = [];

  constructor(readonly widthMs: number) {
    if (!(widthMs > 0)) throw new RangeError(`bin width must be > 0; got ${widthMs}`);
  }

  add(atMs: number, value = 1): void {
    const i = Math.floor(atMs / this.widthMs);
    while (this.sums.length <= i) {
      this.sums.push(0);
      this.counts.push(0);
    }
    this.sums[i]! += value;
    this.counts[i]! += 1;
  }

  /** Sum and count over the bins that start in [fromMs, toMs). */
  total(fromMs: number, toMs: number): { sum: number; count: number } {
    let sum = 0;
    let count = 0;
    for (let i = Math.max(0, Math.ceil(fromMs / this.widthMs)); i * this.widthMs < toMs && i < this.sums.length; i++) {
      sum += this.sums[i]!;
      count += this.counts[i]!;
    }
    return { sum, count };
  }
}

/** Jain's fairness index: 1 when all equal, 1/n when one takes everything. */
export function jainIndex(values: readonly number[]): number {
  const sum = values.reduce((a, b) => a + b, 0);
  const squares = values.reduce((a, b) => a + b * b, 0);
  return squares > 0 ? (sum * sum) / (values.length * squares) : 1;
}
