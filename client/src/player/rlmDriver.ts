/**
 * Receiver-driven layers in the player (`?rx=rlm`): the shared RLM state
 * machine fed with each color stream's packet counters (TID 0 green is layer
 * 1, TID 1 yellow layer 2, TID 2 red layer 3), and the subscription it
 * chooses turned into the colors to ask the server for. The server never
 * stops green, so the base layer stays even when RLM would leave it.
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import { RLM_DEFAULTS, RlmReceiver, type RlmParams } from '@pels/shared/rlm/rlm';
import type { LayerCounters } from './layerCounters';

export class RlmDriver {
  private readonly rlm: RlmReceiver;
  private last: LayerCounters | undefined;
  private colors: Color[] = ['green'];

  constructor(
    nowMs: number,
    random: () => number,
    private readonly apply: (colors: Color[]) => void,
    params: Partial<RlmParams> = {},
  ) {
    this.rlm = new RlmReceiver({ ...RLM_DEFAULTS, ...params, layers: COLORS.length }, random, nowMs);
  }

  get subscription(): number {
    return this.rlm.subscription;
  }

  /** The colors asked for now. */
  get subscribed(): Color[] {
    return [...this.colors];
  }

  /** Cumulative counters, read every couple of hundred ms; runs the timers that came due meanwhile. */
  onCounters(counters: LayerCounters, nowMs: number): void {
    while (this.rlm.nextWakeMs <= nowMs) this.rlm.tick(this.rlm.nextWakeMs);
    COLORS.forEach((color, i) => {
      const prev = this.last?.[color] ?? { received: 0, lost: 0 };
      const cur = counters[color];
      this.rlm.onReport(i + 1, Math.max(0, cur.received - prev.received), Math.max(0, cur.lost - prev.lost), nowMs);
    });
    this.last = counters;
    const colors = COLORS.slice(0, Math.max(1, this.rlm.subscription));
    if (colors.length !== this.colors.length) {
      this.colors = colors;
      this.apply(colors);
    }
  }
}
