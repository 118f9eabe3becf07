/**
 * RTP sequence numbers (16 bits) and timestamps (32 bits) wrap; this extends
 * each value to the one nearest the highest seen so far, so values compare and
 * subtract across the wrap. A value more than half the range behind is taken
 * as late, not as a jump forward.
 */
export class Unwrapper {
  private highest: number | null = null;
  private readonly range: number;

  constructor(bits: 16 | 32) {
    this.range = 2 ** bits;
  }

  extend(value: number): number {
    if (this.highest === null) {
      this.highest = value;
      return value;
    }
    const half = this.range / 2;
    const delta = ((((value - this.highest) % this.range) + this.range + half) % this.range) - half;
    const ext = this.highest + delta;
    this.highest = Math.max(this.highest, ext);
    return ext;
  }
}
