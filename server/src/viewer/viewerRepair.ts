import type { Color } from '@pels/shared/pels/color';
import type { ControlSnapshot } from '@pels/shared/control/controlCore';
import { flowMode } from '@pels/shared/control/flowMode';
import type { CongestionState, FlowModeName } from '@pels/shared/protocol/api';
import type { Logger } from '../log';
import type { DscpMarker } from '../net/dscpMarker';
import { RtxGate } from '../net/rtxGate';
import { passingColors, retransmittedColors } from './colorStreamRules';
import { INITIAL_REPAIR, nextRepair, type RepairState } from './repairPolicy';

/**
 * A viewer's retransmissions: which colors are consumed with them (fixed at
 * consume), which of those PELS repairs now by the loss diagnosis
 * (repairPolicy.ts), and the kernel gate that holds back the others'.
 */
export class ViewerRepair {
  /** The colors retransmitted, decided when consume starts (by the mode then) and fixed from then on. */
  private consumed: readonly Color[] | null = null;
  /** Drops the retransmissions not wanted now; null when nftables is not in use or nothing is retransmitted. */
  private gate: RtxGate | null = null;
  /** Which colors PELS repairs, by the loss diagnosis (the gate lets their retransmissions through). */
  private repair: RepairState = INITIAL_REPAIR;
  /** The diagnosis the repair policy read last (at first the estimator's initial one, which reads nothing). */
  private diagnosed: CongestionState;
  /** Why yellow and red cannot be repaired under PELS, null when they can. */
  private unavailable: string | null = null;

  constructor(
    private readonly o: { viewerId: string; dscp: DscpMarker; log: Logger },
    initialDiagnosis: CongestionState,
  ) {
    this.diagnosed = initialDiagnosis;
  }

  /** The colors consumed with retransmission; null before consume. */
  get retransmitted(): readonly Color[] | null {
    return this.consumed;
  }

  get gated(): boolean {
    return this.gate !== null;
  }

  /** Consume starts in `mode`: the colors to consume with retransmission, fixed from here on (see modeSwitchRefusal). */
  begin(mode: FlowModeName): readonly Color[] {
    return (this.consumed = retransmittedColors(mode, this.o.dscp.available));
  }

  /** Consume failed: none consumed. */
  abort(): void {
    this.consumed = null;
  }

  /** Consume made its consumers: the gate over their retransmissions, or why yellow cannot be repaired. */
  consumedWith(mode: FlowModeName, rtxSsrcs: Partial<Record<Color, number>>): void {
    const retransmitted = this.consumed ?? [];
    const { dscp } = this.o;
    if (dscp.available && retransmitted.length) this.gate = new RtxGate(dscp, rtxSsrcs);
    else if (!retransmitted.includes('yellow')) {
      this.unavailable = dscp.available
        ? `consumed in ${mode} mode, without retransmission`
        : `consumed without retransmission: without nftables it could not be held back under congestion (${dscp.status.reason ?? 'disabled'})`;
      if (flowMode(mode).retransmission === 'repair') this.o.log.info({ viewer: this.o.viewerId, reason: this.unavailable }, 'PELS repairs green only');
    }
  }

  /** A mode starts with repair closed: PELS opens it on the loss it sees from then on. */
  resetForMode(): void {
    this.repair = INITIAL_REPAIR;
  }

  /** A control step's state: at a fresh diagnosis, the colors PELS repairs now, and the gate to match. */
  onControlState(state: ControlSnapshot, mode: FlowModeName, sent: { readonly sentKbps: number; readonly sentKbpsByColor: Record<Color, number> }): void {
    // A fresh diagnosis is a new state object, under either feedback.
    if (state.congestion === this.diagnosed) return;
    this.diagnosed = state.congestion;
    if (flowMode(mode).retransmission !== 'repair' || !this.gate) return;
    const before = this.repair.repaired;
    this.repair = nextRepair(this.repair, { congestion: state.congestion, rateKbps: state.rateKbps, sentKbps: sent.sentKbpsByColor });
    if (this.repair.repaired.join() === before.join()) return;
    const { diagnosis, wireLoss } = state.congestion;
    this.o.log.info({ viewer: this.o.viewerId, repaired: this.repair.repaired, diagnosis, wireLoss, rateKbps: state.rateKbps, sentKbps: sent.sentKbps }, 'viewer repair changed');
    void this.apply(mode);
  }

  /** Lets through the retransmissions `mode` and the repair policy want, drops the others'. */
  async apply(mode: FlowModeName): Promise<void> {
    if (this.gate && this.consumed) await this.gate.open(passingColors(mode, this.consumed, this.repair.repaired));
  }

  /** For the viewer's state: the colors whose retransmissions pass, and why repair is unavailable in `mode` (null: it is not). */
  status(mode: FlowModeName): { repaired: Color[]; repairUnavailable: string | null } {
    return {
      repaired: this.gate?.passing ?? [...(this.consumed ?? [])],
      repairUnavailable: flowMode(mode).retransmission === 'repair' ? this.unavailable : null,
    };
  }

  close(): void {
    this.gate?.close();
  }
}
