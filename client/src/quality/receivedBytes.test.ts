import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { receivedBytes } from './receivedBytes';

describe('receivedBytes', () => {
  it('sums inbound-rtp payload bytes per color by SSRC, ignoring other stats', () => {
    const report = new Map<string, object>([
      ['a', { type: 'inbound-rtp', ssrc: 11, bytesReceived: 1000 }],
      ['b', { type: 'inbound-rtp', ssrc: 22, bytesReceived: 250 }],
      ['c', { type: 'inbound-rtp', ssrc: 99, bytesReceived: 7 }],
      ['d', { type: 'transport', bytesReceived: 5000 }],
      ['e', { type: 'inbound-rtp', ssrc: 33 }],
    ]) as unknown as RTCStatsReport;
    const colors = new Map([[11, 'green'], [22, 'red'], [33, 'yellow']] as const);
    assert.deepEqual(receivedBytes(report, colors), { green: 1000, yellow: 0, red: 250 });
  });
});
