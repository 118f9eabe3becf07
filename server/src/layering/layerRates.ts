/**
 * Bitrate of each temporal layer of a source over a sliding window. The base
 * rate is MKC's floor (base frames are always sent) and the total is what a
 * viewer can use at most. The window spans two keyframe intervals so a
 * keyframe does not make the base rate jump.
 */
export interface LayerKbps {
  tid0: number;
  tid1: number;
  tid2: number;
  total: number;
}

export class LayerRateMeter {
  private readonly frames: Array<{ atMs: number; tid: 0 | 1 | 2; bytes: number }> = [];

  constructor(private readonly windowMs = 4000) {}

  add(tid: 0 | 1 | 2, bytes: number, atMs: number): void {
    this.frames.push({ atMs, tid, bytes });
    this.evict(atMs);
  }

  /**
   * Null until the window holds at least a second of frames, and while it holds
   * no base frame (a stalled source leaves a few enhancement frames behind): a
   * base rate of 0 is no floor a controller can use.
   */
  rates(nowMs: number): LayerKbps | null {
    this.evict(nowMs);
    const first = this.frames[0];
    if (!first || nowMs - first.atMs < 1000) return null;
    const bytes = [0, 0, 0];
    for (const f of this.frames) bytes[f.tid]! += f.bytes;
    if (bytes[0] === 0) return null;
    const kbps = (b: number) => (b * 8) / (nowMs - first.atMs);
    const [tid0, tid1, tid2] = bytes.map(kbps) as [number, number, number];
    return { tid0, tid1, tid2, total: tid0 + tid1 + tid2 };
  }

  private evict(nowMs: number): void {
    while (this.frames.length && this.frames[0]!.atMs < nowMs - this.windowMs) this.frames.shift();
  }
}
