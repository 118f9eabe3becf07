import type { EventQueue } from './eventQueue';
import type { Packet } from './packet';

/**
 * Internet cross traffic (the paper's TCP flows, section 6.1): Poisson
 * arrivals of fixed-size packets into the Internet queue. Offered above its
 * WRR share, it keeps that queue busy, so the PELS queue gets exactly its
 * share of the link, as with the paper's greedy TCP flows.
 */
export function startCrossTraffic(events: EventQueue, rateKbps: number, packetBytes: number, random: () => number, out: (packet: Packet) => void): void {
  if (!(rateKbps > 0)) return;
  const meanGapMs = (packetBytes * 8) / rateKbps;
  let seq = 0;
  const next = (): void => {
    out({ flow: -1, cls: 'internet', bytes: packetBytes, seq: seq++, sentAtMs: events.nowMs });
    // 1 - random() is in (0, 1], so the logarithm is finite.
    events.after(-meanGapMs * Math.log(1 - random()), next);
  };
  events.after(-meanGapMs * Math.log(1 - random()), next);
}
