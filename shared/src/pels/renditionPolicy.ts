/**
 * Which rendition a viewer should receive, from its rate controller's rate.
 * Renditions are indexed from the top (0: full size and rate) down; each has
 * the three temporal layers, and its base layer is what the viewer must carry
 * at the least. Pure: the caller gives the time and tells it when a switch
 * took effect (at a keyframe of the target, which may come a little later).
 *
 * - Base rates are read over `baseWindowMs`: staying takes a rendition's
 *   lowest reading there, moving up (and a probe's rate) its highest. The
 *   measured base rate swings 1.5-3x within seconds (forced keyframes, the
 *   content); a move up sized on a low reading fell under the down threshold
 *   of the next high one, on an open link.
 * - Down at once when the rate falls below the current rendition's base rate
 *   plus `margin` (a share of that base rate): the base layer would not fit
 *   with room for some enhancement. Down at once too when the base layer's
 *   own loss exceeds `baseLossLimit`: the rate controller steps on the
 *   enhancement layers' loss, so this is where the base not fitting shows.
 *   Within `switchGraceMs` of a switch the base rate is taken as at most what
 *   it was at the switch (the keyframe the switch forced raises the measured
 *   base rate for as long as the meter's window), and after a move down
 *   base-layer loss does not count (it is the rendition left behind's). After
 *   a move up it does: that is how a failed probe shows first.
 * - Up when the rate has stayed at or above the higher rendition's base rate
 *   plus `margin + hysteresis` for `upHoldMs`, the viewer has been in its
 *   rendition at least the dwell time, and the latest receiver report was
 *   loss-free (a rate held up while losing, e.g. by MKC's start-up, is no sign
 *   of room). On the lower rendition the viewer sends
 *   less than its rate, so its rate is not measured above that: once the rate
 *   reaches the rendition's full rate (the viewer gets all of it: below, the
 *   rate is measured and says there is no room), up too (one rendition) after
 *   `probeAfterReports` loss-free receiver reports in a row and the dwell, with the rate raised to that up threshold (upKbps). Either
 *   way an up switch is a probe of the link: a receiver report with loss p
 *   above `probeLossLimit` in its first `probeHoldMs` fails it at once (down again); one
 *   followed by a down switch within `failWindowMs` doubles the dwell (up to
 *   `maxDwellMs`: several viewers probing a shared link hurt each other), and
 *   one that holds that long resets it to `minDwellMs`. Each switch draws a
 *   factor in [1, 1 + `dwellJitter`) for the next dwell: viewers of one shared
 *   link see the same loss at the same reports, and without it they probe
 *   together, each probe's overshoot failing the others'.
 * - `probe: false` leaves moving up to the rate alone (slower back up on a
 *   link that widened, no overshoot on a link that did not).
 * - Viewers of one stream share a ProbeBoard: an up switch waits until no
 *   other viewer's is under way (for `probeHoldMs` after its claim), and a
 *   report with loss above `probeLossLimit` during another viewer's up switch
 *   counts as a failed probe of this viewer's own (its dwell doubles and
 *   restarts), once per such switch: viewers on one link that probed in turn
 *   would each overshoot it in turn. A loss that begins there (the report
 *   before was at most `probeLossLimit`) fails the other viewer's probe too,
 *   and quiets the board (probeBoard.ts).
 */
import { ProbeBoard, type ProbeBoardView } from './probeBoard';
import { RecentBases } from './recentBases';

export interface RenditionPolicyParams {
  /** Share of a rendition's base rate the rate must exceed on top of it to stay there. */
  margin: number;
  /** Further share of the base rate needed to go up: the gap between the down and up thresholds. */
  hysteresis: number;
  /** The up condition must hold this long. */
  upHoldMs: number;
  /** Least time in a rendition before an up switch; doubled after each failed up switch. */
  minDwellMs: number;
  maxDwellMs: number;
  /** A down switch this soon after an up switch makes the up switch a failed probe. */
  failWindowMs: number;
  /** Base-layer loss (0..1) in a receiver report above which the viewer moves down, whatever the rate. */
  baseLossLimit: number;
  /** This soon after a switch a rise of the base rate does not count (longer than the base rate meter's window), nor base-layer loss after a move down. */
  switchGraceMs: number;
  /** Loss-free receiver reports in a row on a lower rendition before it probes the next one up. */
  probeAfterReports: number;
  /** Loss p (0..1) in a receiver report during a probe (within probeHoldMs of an up switch) that fails it. */
  probeLossLimit: number;
  /** Whether a lower rendition that gets its full rate probes the next one up. */
  probe: boolean;
  /** The dwell after a switch is stretched by a random factor in [1, 1 + dwellJitter). */
  dwellJitter: number;
  /** How long an up switch keeps other viewers of the board from theirs and teaches them by their loss, and its own loss above probeLossLimit fails it. */
  probeHoldMs: number;
  /** Base rates are read over this long: a move down takes each rendition's lowest reading, a move up (and a probe's rate) its highest. 0: the latest alone. */
  baseWindowMs: number;
}

export const RENDITION_POLICY_DEFAULTS: Readonly<RenditionPolicyParams> = {
  margin: 1,
  hysteresis: 0.3,
  upHoldMs: 1000,
  minDwellMs: 2000,
  maxDwellMs: 32_000,
  failWindowMs: 10_000,
  baseLossLimit: 0.05,
  // Longer than the base meter's 4 s window: at 4 s the switch's keyframe was still in it, and a viewer 4 s up on a
  // 2000 kb/s link went down again, its rate at 1.99x a base rate the keyframe had raised by a third.
  switchGraceMs: 6000,
  probeAfterReports: 3,
  probeLossLimit: 0.1,
  probe: true,
  dwellJitter: 0.5,
  probeHoldMs: 4000,
  baseWindowMs: 10_000,
};

export function validateRenditionPolicyParams(p: RenditionPolicyParams): string[] {
  const errors: string[] = [];
  for (const k of ['margin', 'hysteresis', 'upHoldMs', 'minDwellMs', 'maxDwellMs', 'failWindowMs', 'baseLossLimit', 'switchGraceMs', 'probeAfterReports', 'probeLossLimit', 'dwellJitter', 'probeHoldMs', 'baseWindowMs'] as const) {
    if (!(Number.isFinite(p[k]) && p[k] >= 0)) errors.push(`${k} must be a finite number >= 0; got ${p[k]}`);
  }
  if (p.maxDwellMs < p.minDwellMs) errors.push(`maxDwellMs (${p.maxDwellMs}) must be >= minDwellMs (${p.minDwellMs})`);
  return errors;
}

/** A probe board for the viewers of one stream: a probe holds it probeHoldMs; one that hurt another viewer quiets it failWindowMs (at most maxDwellMs), doubling to maxDwellMs. */
export function probeBoardFor(params: RenditionPolicyParams): ProbeBoard {
  return new ProbeBoard(params.probeHoldMs, Math.min(params.failWindowMs, params.maxDwellMs), params.maxDwellMs);
}

export class RenditionPolicy {
  private currentIndex: number;
  private lastSwitchMs: number;
  /** The last switch was up, at lastUpMs: a probe until it has held failWindowMs. */
  private probing = false;
  private lastUpMs = -Infinity;
  private dwellMs: number;
  /** This switch's stretch of the dwell, drawn at each switch. */
  private jitter: number;
  /** Since when the up condition has held for `upCandidate`; null: it does not hold. */
  private upSinceMs: number | null = null;
  private upCandidate = -1;
  /** Loss-free receiver reports in a row in the current rendition. */
  private lossFreeReports = 0;
  /** The latest receiver report had loss; its p. */
  private lossy = false;
  private lastP = 0;
  /** The latest report's p went above probeLossLimit from at most that, and target() has not yet told the board. */
  private lossBegan = false;
  private reportP = 0;
  /** The base rates read in the last baseWindowMs, and the lowest of each as they were at the last switch. */
  private readonly bases: RecentBases;
  private basesAtSwitch: (number | null)[] = [];
  /** The latest report's loss was above probeLossLimit and target() has not yet asked the board whose probe it was during. */
  private lossToLearn = false;
  /** When the dwell last restarted without a switch (learned from another viewer's probe), and from which probe. */
  private learnedAtMs = -Infinity;
  private learnedFrom: number | null = null;

  constructor(
    private readonly params: RenditionPolicyParams,
    private readonly count: number,
    initial: number,
    nowMs: number,
    /** Uniform in [0, 1): the viewer's control core gives a seeded one. */
    private readonly random: () => number,
    /** Shared with the other viewers of the stream; a board of its own: no one to wait for or learn from. */
    private readonly board: ProbeBoardView = probeBoardFor(params),
  ) {
    const errors = validateRenditionPolicyParams(params);
    if (errors.length) throw new RangeError(errors.join('; '));
    if (!(Number.isInteger(count) && count >= 1)) throw new RangeError(`count must be an integer >= 1; got ${count}`);
    this.checkIndex(initial);
    this.currentIndex = initial;
    this.bases = new RecentBases(params.baseWindowMs);
    this.lastSwitchMs = nowMs;
    this.dwellMs = params.minDwellMs;
    this.jitter = this.drawJitter();
  }

  get current(): number {
    return this.currentIndex;
  }

  /** The current dwell time before an up switch (grows with failed probes). */
  get dwell(): number {
    return this.dwellMs;
  }

  /** A receiver report's loss p (0..1, the one the rate controller steps on). */
  onFeedback(p: number): void {
    this.lossy = p > 0;
    this.lastP = p;
    this.lossFreeReports = this.lossy ? 0 : this.lossFreeReports + 1;
    if (p > this.params.probeLossLimit) this.lossToLearn = true;
    if (p > this.params.probeLossLimit && this.reportP <= this.params.probeLossLimit) this.lossBegan = true;
    this.reportP = p;
  }

  /** The rate rendition i needs to be moved up to: its highest recent base rate plus margin and hysteresis; null while its base rate is unknown. */
  upKbps(i: number): number | null {
    const base = this.bases.high(i);
    return base === null ? null : base * (1 + this.params.margin + this.params.hysteresis);
  }

  /**
   * The rendition the viewer should be in now. `baseKbps[i]` is rendition i's
   * measured base-layer rate, null while unknown (nothing moves on an unknown rate).
   * `baseLoss`: the base layer's loss in the latest receiver report.
   * `fullKbps[i]`: rendition i's measured full rate (all layers), null while unknown.
   */
  target(rateKbps: number, baseKbps: readonly (number | null)[], nowMs: number, baseLoss = 0, fullKbps: readonly (number | null)[] = []): number {
    const cur = this.currentIndex;
    this.bases.add(baseKbps, nowMs);
    this.learnFromOthers(nowMs);
    const grace = nowMs - this.lastSwitchMs < this.params.switchGraceMs;
    // Staying is judged on the lowest recent base rate (in the grace, at most as it was at the switch), moving up on the highest.
    const fits = (i: number, up: boolean): boolean | null => {
      const base = up ? this.bases.high(i) : this.bases.low(i);
      if (base === null) return null;
      const atSwitch = !up && grace ? this.basesAtSwitch[i] : null;
      return rateKbps >= Math.min(base, atSwitch ?? base) * (1 + this.params.margin + (up ? this.params.hysteresis : 0));
    };
    const baseLost = baseLoss > this.params.baseLossLimit && !(grace && !this.probing);
    this.settleProbe(nowMs);
    // Only while the probe is young (probeHoldMs): later, loss at that level is the rate controller's own (MKC settles
    // at p = alpha / (beta r), 6% at 700 kb/s), and taking it for a failed probe sent a viewer down every 6 s.
    const probeFailed = this.probing && nowMs - this.lastUpMs < this.params.probeHoldMs && (this.lastP > this.params.probeLossLimit || this.board.hurtOthers(this, nowMs));
    if (cur < this.count - 1 && (fits(cur, false) === false || baseLost || probeFailed)) {
      this.upSinceMs = null;
      // The highest lower rendition that fits; the lowest when none does.
      for (let i = cur + 1; i < this.count - 1; i++) if (fits(i, false) !== false) return i;
      return this.count - 1;
    }
    // Up: the highest rendition above that fits with the hysteresis.
    let up = -1;
    for (let i = 0; i < cur; i++) {
      if (fits(i, true) === true) {
        up = i;
        break;
      }
    }
    const dwelt = nowMs - Math.max(this.lastSwitchMs, this.learnedAtMs) >= this.dwellMs * this.jitter;
    if (up < 0 || baseLost || this.lossy) {
      this.upSinceMs = null;
      const full = fullKbps[cur];
      const appLimited = full !== null && full !== undefined && rateKbps >= full;
      const probe = this.params.probe && !baseLost && cur > 0 && appLimited && this.lossFreeReports >= this.params.probeAfterReports && this.upKbps(cur - 1) !== null;
      return probe && dwelt && this.board.claim(this, nowMs) ? cur - 1 : cur;
    }
    if (this.upSinceMs === null || up !== this.upCandidate) {
      this.upSinceMs = nowMs;
      this.upCandidate = up;
    }
    const held = nowMs - this.upSinceMs >= this.params.upHoldMs;
    return held && dwelt && this.board.claim(this, nowMs) ? up : cur;
  }

  /** The viewer now receives rendition `to` (its keyframe was sent). */
  switched(to: number, nowMs: number): void {
    this.checkIndex(to);
    const from = this.currentIndex;
    if (to === from) return;
    this.settleProbe(nowMs);
    if (to > from && this.probing) {
      this.doubleDwell();
      this.board.release(this, nowMs);
    }
    this.probing = to < from;
    if (this.probing) this.lastUpMs = nowMs;
    this.lastP = 0;
    this.currentIndex = to;
    this.lastSwitchMs = nowMs;
    this.upSinceMs = null;
    this.lossFreeReports = 0;
    this.basesAtSwitch = Array.from({ length: this.count }, (_, i) => this.bases.low(i));
    this.jitter = this.drawJitter();
  }

  /** Loss while another viewer probes: this viewer's own next probe would fail the same way. */
  private learnFromOthers(nowMs: number): void {
    if (this.lossBegan) this.board.lossBegan(this, nowMs);
    this.lossBegan = false;
    if (!this.lossToLearn) return;
    this.lossToLearn = false;
    const probe = this.board.probingOther(this, nowMs);
    if (probe === null || probe === this.learnedFrom || this.currentIndex === 0) return;
    this.learnedFrom = probe;
    this.doubleDwell();
    this.learnedAtMs = nowMs;
    this.jitter = this.drawJitter();
  }

  /** A failed probe, its own or one learned from another viewer's. */
  private doubleDwell(): void {
    this.dwellMs = Math.min(this.params.maxDwellMs, this.dwellMs * 2);
  }

  private drawJitter(): number {
    return 1 + this.params.dwellJitter * this.random();
  }

  /** An up switch that held the fail window succeeded: the shortest dwell again. */
  private settleProbe(nowMs: number): void {
    if (!this.probing || nowMs - this.lastUpMs < this.params.failWindowMs) return;
    this.probing = false;
    this.dwellMs = this.params.minDwellMs;
    this.board.held();
  }

  private checkIndex(i: number): void {
    if (!(Number.isInteger(i) && i >= 0 && i < this.count)) throw new RangeError(`rendition must be an integer in [0, ${this.count - 1}]; got ${i}`);
  }
}
