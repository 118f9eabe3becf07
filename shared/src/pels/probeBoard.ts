/**
 * One probe at a time among viewers that may share a link, and what the others
 * learn from it: RLM's shared learning, moved to the server. A viewer moving up
 * a rendition claims the board for `holdMs` (about two receiver reports after
 * its keyframe). Viewers probing together each see the others' overshoot and
 * all fail; one at a time, a probe's own loss is its answer. And a viewer that
 * sees loss while another probes has learned that the link is full for it too,
 * without a probe of its own (renditionPolicy.ts backs off its next one).
 * Pure: the caller gives the time.
 */
export class ProbeBoard {
  private owner: object | null = null;
  private untilMs = -Infinity;
  private serial = 0;

  constructor(private readonly holdMs: number) {
    if (!(Number.isFinite(holdMs) && holdMs >= 0)) throw new RangeError(`holdMs must be a finite number >= 0; got ${holdMs}`);
  }

  /** Whether `who` may probe now; if so, the board is its for holdMs. */
  claim(who: object, nowMs: number): boolean {
    const held = this.owner !== null && nowMs < this.untilMs;
    if (held && this.owner !== who) return false;
    // Asked again until its switch happens: the same probe, held from the latest ask.
    if (!held) this.serial++;
    this.owner = who;
    this.untilMs = nowMs + this.holdMs;
    return true;
  }

  /** `who`'s probe ended early (it failed and moved down). */
  release(who: object): void {
    if (this.owner !== who) return;
    this.owner = null;
    this.untilMs = -Infinity;
  }

  /** The running probe's number when another viewer than `who` holds the board; null otherwise. */
  probingOther(who: object, nowMs: number): number | null {
    return this.owner !== null && this.owner !== who && nowMs < this.untilMs ? this.serial : null;
  }
}
