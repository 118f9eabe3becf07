/**
 * One probe at a time among viewers that may share a link, and what the others
 * learn from it: RLM's shared learning, moved to the server. A viewer moving up
 * a rendition claims the board for `holdMs` (about two receiver reports after
 * its keyframe). Viewers probing together each see the others' overshoot and
 * all fail; one at a time, a probe's own loss is its answer. And a viewer that
 * sees loss while another probes has learned that the link is full for it too,
 * without a probe of its own (renditionPolicy.ts backs off its next one).
 *
 * A loss that begins at another viewer during a probe also answers the probe:
 * it overloads a link the two share (behind a deep queue the others, at lower
 * rates, often report it a few seconds before the prober does). Such a probe
 * fails at once, and every viewer of the board waits `quietMinMs` before the
 * next one, doubling with each probe that failed so (up to `quietMaxMs`) and
 * back to the least after one that held: each failed probe on a shared link
 * costs every viewer on it several seconds of frames. A viewer alone on its
 * link never sets this wait; its own dwell (renditionPolicy.ts) paces it.
 * Pure: the caller gives the time.
 */
export class ProbeBoard implements ProbeBoardView {
  private owner: object | null = null;
  private untilMs = -Infinity;
  private serial = 0;
  /** Another viewer's loss began during the running probe. */
  private hurt = false;
  private quietUntilMs = -Infinity;
  private quietMs: number;

  constructor(
    private readonly holdMs: number,
    private readonly quietMinMs = 0,
    private readonly quietMaxMs = quietMinMs,
  ) {
    for (const [k, v] of [['holdMs', holdMs], ['quietMinMs', quietMinMs], ['quietMaxMs', quietMaxMs]] as const) {
      if (!(Number.isFinite(v) && v >= 0)) throw new RangeError(`${k} must be a finite number >= 0; got ${v}`);
    }
    if (quietMaxMs < quietMinMs) throw new RangeError(`quietMaxMs (${quietMaxMs}) must be >= quietMinMs (${quietMinMs})`);
    this.quietMs = quietMinMs;
  }

  /** Whether `who` may probe now; if so, the board is its for holdMs. */
  claim(who: object, nowMs: number): boolean {
    const held = this.owner !== null && nowMs < this.untilMs;
    if (held && this.owner !== who) return false;
    if (!held && nowMs < this.quietUntilMs) return false;
    // Asked again until its switch happens: the same probe, held from the latest ask.
    if (!held) {
      this.serial++;
      this.hurt = false;
    }
    this.owner = who;
    this.untilMs = nowMs + this.holdMs;
    return true;
  }

  /** `who`'s probe ended early (it failed and moved down); if it hurt another viewer, the board goes quiet. */
  release(who: object, nowMs: number): void {
    if (this.owner !== who) return;
    if (this.hurt) {
      this.quietUntilMs = nowMs + this.quietMs;
      this.quietMs = Math.min(this.quietMaxMs, this.quietMs * 2);
    }
    this.owner = null;
    this.untilMs = -Infinity;
    this.hurt = false;
  }

  /** A probe held: the quiet after a failed one is the least again. */
  held(): void {
    this.quietMs = this.quietMinMs;
  }

  /** The running probe's number when another viewer than `who` holds the board; null otherwise. */
  probingOther(who: object, nowMs: number): number | null {
    return this.owner !== null && this.owner !== who && nowMs < this.untilMs ? this.serial : null;
  }

  /** A loss began at `who`'s receiver: if another viewer's probe is under way, that probe has hurt it. */
  lossBegan(who: object, nowMs: number): void {
    if (this.probingOther(who, nowMs) !== null) this.hurt = true;
  }

  /** Whether `who`'s probe is under way and has hurt another viewer. */
  hurtOthers(who: object, nowMs: number): boolean {
    return this.owner === who && nowMs < this.untilMs && this.hurt;
  }
}

/** What a viewer's rendition policy asks and tells the board (a replayed recording stands in for it: recording.ts). */
export interface ProbeBoardView {
  claim(who: object, nowMs: number): boolean;
  release(who: object, nowMs: number): void;
  held(): void;
  probingOther(who: object, nowMs: number): number | null;
  lossBegan(who: object, nowMs: number): void;
  hurtOthers(who: object, nowMs: number): boolean;
}
