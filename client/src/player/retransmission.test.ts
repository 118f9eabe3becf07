import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyframeRequestThrottle, MAX_RETRANSMISSION_WAIT_MS, retransmissionWaitMs, retransmittedSlots } from './retransmission';

describe('retransmissionWaitMs', () => {
  it('is 1.5 RTT, bounded, and nothing while the RTT is unknown', () => {
    assert.equal(retransmissionWaitMs(40), 60);
    assert.equal(retransmissionWaitMs(1), 1.5);
    assert.equal(retransmissionWaitMs(1000), MAX_RETRANSMISSION_WAIT_MS);
    for (const rtt of [null, 0, -5, NaN, Infinity]) assert.equal(retransmissionWaitMs(rtt), 0, String(rtt));
  });
});

describe('retransmittedSlots', () => {
  it('green retransmitted: base slots; all colors: all; none: none', () => {
    assert.equal(retransmittedSlots(['green']), 'base');
    assert.equal(retransmittedSlots(['red', 'green', 'yellow']), 'all');
    assert.equal(retransmittedSlots([]), 'none');
    assert.equal(retransmittedSlots(['yellow']), 'none');
  });
});

describe('KeyframeRequestThrottle', () => {
  it('lets one request through per gap, counting from the last one let through', () => {
    const t = new KeyframeRequestThrottle(500);
    const at = [0, 100, 499, 500, 900, 1000, 1001, 2000].filter((ms) => t.take(ms));
    assert.deepEqual(at, [0, 500, 1000, 2000]);
  });
});
