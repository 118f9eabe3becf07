/**
 * Which renditions' PSNR rows a viewer is sent: the rendition it receives, the
 * one it is moving to, and one it left less than `lingerMs` ago (its last frames
 * are still in the player's jitter buffer, and rows may come after their frames).
 * The rows of every rendition went to every viewer before: with two renditions
 * that was about 100 kb/s a viewer, a third of a 300 kb/s link. Pure, given the time.
 */
export class QualityRenditions {
  private readonly wanted = new Map<number, number | null>();

  /** `lingerMs`: how long rows of a rendition left keep coming. */
  constructor(private readonly lingerMs: number) {}

  /** The viewer's rendition now; returns the renditions to start and to stop sending rows of. */
  update(current: number, pending: number | null, nowMs: number): { start: number[]; stop: number[] } {
    const start: number[] = [];
    const stop: number[] = [];
    for (const r of pending === null ? [current] : [current, pending]) {
      if (!this.wanted.has(r)) start.push(r);
      this.wanted.set(r, null);
    }
    for (const [r, leftAt] of this.wanted) {
      if (r === current || r === pending) continue;
      if (leftAt === null) this.wanted.set(r, nowMs);
      else if (nowMs - leftAt >= this.lingerMs) {
        this.wanted.delete(r);
        stop.push(r);
      }
    }
    return { start, stop };
  }
}
