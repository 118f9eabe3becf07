/**
 * What the player reads of the receive transport's WebRTC stats for loss repair:
 * the round-trip time of the selected candidate pair, and the packets that came
 * as retransmissions (inbound-rtp `retransmittedPacketsReceived`, all streams).
 */

export interface NetworkStats {
  rttMs: number | null;
  packetsRecovered: number;
}

interface Stat {
  type?: string;
  id?: string;
  selectedCandidatePairId?: string;
  nominated?: boolean;
  state?: string;
  currentRoundTripTime?: number;
  retransmittedPacketsReceived?: number;
}

export function networkStats(report: RTCStatsReport): NetworkStats {
  const stats: Stat[] = [];
  report.forEach((s: Stat) => stats.push(s));
  const selectedId = stats.find((s) => s.type === 'transport' && s.selectedCandidatePairId)?.selectedCandidatePairId;
  const pair =
    stats.find((s) => s.type === 'candidate-pair' && s.id === selectedId) ??
    stats.find((s) => s.type === 'candidate-pair' && s.nominated && s.state === 'succeeded');
  const rtt = pair?.currentRoundTripTime;
  let packetsRecovered = 0;
  for (const s of stats) if (s.type === 'inbound-rtp') packetsRecovered += s.retransmittedPacketsReceived ?? 0;
  return { rttMs: rtt === undefined ? null : rtt * 1000, packetsRecovered };
}
