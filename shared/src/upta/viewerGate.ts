/**
 * Useless-packet avoidance for one viewer (UPTA on the server): what to send
 * a viewer whose measured loss keeps its video below an intelligibility
 * floor. `full`: every layer. `baseOnly`: the base layer (green) alone, when
 * all layers at the measured loss fall below the floor: the enhancement
 * packets would be useless, and leaving them out may clear the path for the
 * base. `paused`: nothing, when the base layer's own loss leaves both it and
 * all layers below the floor; `probeEveryMs` after each probe the base layer
 * is sent for `probeMs` (plus twice the round trip) to see whether the path
 * has recovered: every measurement after `settleMs` (plus twice the round
 * trip, so a deep queue has shown its loss) must say so. Whether it has is judged
 * by all layers at the base layer's loss, so a source whose base layer alone
 * scores low does not keep its viewers paused on a clean path.
 *
 * Hysteresis, so a viewer is not toggled: a cut needs `holdMs` below the
 * floor; a step back up needs the base layer at least `marginDb` above it,
 * through a probe (paused) or for `retryMs` (base only); a step up to full
 * that falls back soon doubles that wait for the next (up to `maxRetryMs`). Right
 * after a change the loss measured describes the old state, so measurements
 * in the first `settleMs` are ignored.
 *
 * Pure: the caller passes the expected PSNR of each choice at the loss it
 * measures (IntelligibilityModel) and the time.
 */

import type { UptaStateName } from '../protocol/api';

export interface ViewerGateParams {
  /** The intelligibility floor: expected PSNR below it makes packets useless, dB. */
  floorDb: number;
  marginDb: number;
  holdMs: number;
  settleMs: number;
  retryMs: number;
  maxRetryMs: number;
  probeEveryMs: number;
  probeMs: number;
}

export const VIEWER_GATE_DEFAULTS: Omit<ViewerGateParams, 'floorDb'> = {
  marginDb: 1,
  holdMs: 3000,
  settleMs: 2000,
  retryMs: 10_000,
  maxRetryMs: 80_000,
  probeEveryMs: 10_000,
  probeMs: 6000,
};

export function viewerGateErrors(p: ViewerGateParams): string[] {
  const errors: string[] = [];
  if (!(p.floorDb > 0 && p.floorDb < 99)) errors.push(`floorDb must be in (0, 99) dB; got ${p.floorDb}`);
  for (const k of ['marginDb', 'holdMs', 'settleMs', 'retryMs', 'maxRetryMs', 'probeEveryMs', 'probeMs'] as const) {
    if (!(p[k] >= 0 && Number.isFinite(p[k]))) errors.push(`${k} must be a finite number >= 0; got ${p[k]}`);
  }
  if (p.maxRetryMs < p.retryMs) errors.push(`maxRetryMs (${p.maxRetryMs}) must be >= retryMs (${p.retryMs})`);
  if (p.probeMs <= p.settleMs) errors.push(`probeMs (${p.probeMs}) must exceed settleMs (${p.settleMs}): a probe must measure`);
  return errors;
}

/** Expected PSNR of each choice at the loss measured now (null: not measured, e.g. nothing was sent). */
export interface GateInput {
  nowMs: number;
  /** All layers at the measured base and enhancement loss (the base's where only the base is sent). */
  fullDb: number | null;
  /** The base layer alone at the measured base loss. */
  baseDb: number | null;
  /** The path's round trip, ms (null: unknown): a probe waits this long twice more before it measures, as its first packets may still be queued. */
  rttMs?: number | null;
}

export interface GateStatus {
  state: UptaStateName;
  /** When the state began, ms. */
  sinceMs: number;
  /** Why the viewer is in this state (for the player and the operator). */
  reason: string;
  /** Paused, and the base layer is being sent to measure the path. */
  probing: boolean;
}

export class ViewerGate {
  private status: GateStatus;
  /** Since when the current trigger (down or up) has held; undefined: it does not hold now. */
  private downSinceMs: number | undefined;
  private upSinceMs: number | undefined;
  private retryMs: number;
  /** The last step up to full, to tell whether it held. */
  private fullAtMs: number | undefined;
  private nextProbeAtMs = 0;
  private probeStartMs = 0;
  /** This probe's measurements after it settled: the best good one, and whether any was bad. */
  private probeBestDb: number | null = null;
  private probeBad = false;
  constructor(
    private readonly p: ViewerGateParams,
    nowMs: number,
  ) {
    const errors = viewerGateErrors(p);
    if (errors.length) throw new RangeError(errors.join('; '));
    this.retryMs = p.retryMs;
    this.status = { state: 'full', sinceMs: nowMs, reason: 'start', probing: false };
  }

  get current(): GateStatus {
    return this.status;
  }

  /** Whether the base layer is to be sent, and whether the enhancement layers are. */
  get sends(): { base: boolean; enhancement: boolean } {
    const { state, probing } = this.status;
    return { base: state !== 'paused' || probing, enhancement: state === 'full' };
  }

  update(input: GateInput): GateStatus {
    const { nowMs } = input;
    const settled = nowMs - this.status.sinceMs >= this.p.settleMs;
    const floor = this.p.floorDb;
    switch (this.status.state) {
      case 'full':
        if (settled && this.holdsFor('down', input.fullDb !== null && input.fullDb < floor, nowMs, this.p.holdMs)) {
          // A step up that did not hold: wait longer before the next.
          if (this.fullAtMs !== undefined && nowMs - this.fullAtMs < this.retryMs + this.p.holdMs + this.p.settleMs) {
            this.retryMs = Math.min(2 * this.retryMs, this.p.maxRetryMs);
          } else this.retryMs = this.p.retryMs;
          this.enter('baseOnly', nowMs, `all layers would show ${fmt(input.fullDb!)} dB, below the ${floor} dB floor: the enhancement packets would be useless`);
        }
        break;
      case 'baseOnly':
        if (settled && this.holdsFor('down', input.baseDb !== null && input.fullDb !== null && Math.max(input.baseDb, input.fullDb) < floor, nowMs, this.p.holdMs)) {
          this.enter('paused', nowMs, `at the base layer's loss the video would show ${fmt(Math.max(input.baseDb!, input.fullDb!))} dB, below the ${floor} dB floor: it would be unintelligible`);
          this.nextProbeAtMs = nowMs + this.p.probeEveryMs;
        } else if (settled && this.holdsFor('up', input.fullDb !== null && input.fullDb >= floor + this.p.marginDb, nowMs, this.retryMs)) {
          this.fullAtMs = nowMs;
          this.enter('full', nowMs, `at the base layer's loss all layers would show ${fmt(input.fullDb!)} dB: trying them again`);
        }
        break;
      case 'paused':
        if (!this.status.probing) {
          if (nowMs >= this.nextProbeAtMs) {
            this.status = { ...this.status, probing: true };
            this.probeStartMs = nowMs;
            this.probeBestDb = null;
            this.probeBad = false;
          }
        } else {
          // The probe succeeds only if every measurement from settleMs to its end was good (and there was one): behind a
          // deep queue the first reports after the base layer resumes show no loss yet. Judged at its end, whenever
          // measurements come (they follow the receiver's reports, not a clock).
          const settleMs = this.p.settleMs + 2 * (input.rttMs ?? 0);
          const elapsed = nowMs - this.probeStartMs;
          if (elapsed >= settleMs && input.fullDb !== null) {
            if (input.fullDb >= floor + this.p.marginDb) this.probeBestDb = Math.max(this.probeBestDb ?? input.fullDb, input.fullDb);
            else this.probeBad = true;
          }
          if (elapsed >= settleMs + this.p.probeMs - this.p.settleMs) {
            if (!this.probeBad && this.probeBestDb !== null) {
              this.enter('baseOnly', nowMs, `a probe of the base layer measured a loss at which the video would show ${fmt(this.probeBestDb)} dB: the path has recovered`);
            } else {
              this.status = { ...this.status, probing: false };
              this.upSinceMs = undefined;
              this.nextProbeAtMs = nowMs + this.p.probeEveryMs;
            }
          }
        }
        break;
    }
    return this.status;
  }

  private enter(state: UptaStateName, nowMs: number, reason: string): void {
    this.status = { state, sinceMs: nowMs, reason, probing: false };
    this.downSinceMs = undefined;
    this.upSinceMs = undefined;
  }

  /** Whether `condition` has held for `forMs` of consecutive updates. */
  private holdsFor(which: 'down' | 'up', condition: boolean, nowMs: number, forMs: number): boolean {
    const key = which === 'down' ? 'downSinceMs' : 'upSinceMs';
    if (!condition) {
      this[key] = undefined;
      return false;
    }
    this[key] ??= nowMs;
    return nowMs - this[key]! >= forMs;
  }
}

function fmt(db: number): string {
  return db.toFixed(1);
}
