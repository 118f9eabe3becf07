import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { networkStats } from './networkStats';

const report = (entries: object[]) => new Map(entries.map((e, i) => [String(i), e])) as unknown as RTCStatsReport;

describe('networkStats', () => {
  it("takes the selected pair's RTT and sums retransmitted packets over the streams", () => {
    const r = report([
      { type: 'transport', selectedCandidatePairId: 'p2' },
      { type: 'candidate-pair', id: 'p1', nominated: true, state: 'succeeded', currentRoundTripTime: 0.5 },
      { type: 'candidate-pair', id: 'p2', nominated: true, state: 'succeeded', currentRoundTripTime: 0.012 },
      { type: 'inbound-rtp', ssrc: 1, retransmittedPacketsReceived: 7 },
      { type: 'inbound-rtp', ssrc: 2 },
      { type: 'inbound-rtp', ssrc: 3, retransmittedPacketsReceived: 2 },
      { type: 'outbound-rtp', retransmittedPacketsReceived: 100 },
    ]);
    assert.deepEqual(networkStats(r), { rttMs: 12, packetsRecovered: 9 });
  });

  it('falls back to the nominated pair, and to an unknown RTT', () => {
    assert.equal(networkStats(report([{ type: 'candidate-pair', id: 'p', nominated: true, state: 'succeeded', currentRoundTripTime: 0.002 }])).rttMs, 2);
    assert.deepEqual(networkStats(report([{ type: 'candidate-pair', id: 'p', nominated: false, state: 'waiting' }])), { rttMs: null, packetsRecovered: 0 });
  });
});
