import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyframeRequestThrottle, MAX_RETRANSMISSION_WAIT_MS, retransmissionWaitMs, retransmittedSlots } from './retransmission';

describe('retransmissionWaitMs', () => {
  it('is one layer period (the gap seen at the next base frame) plus 1.5 RTT, bounded', () => {
    assert.equal(retransmissionWaitMs(40, 25), 100 + 60);
    assert.equal(retransmissionWaitMs(1, 25), 101.5);
    assert.equal(retransmissionWaitMs(1000, 25), MAX_RETRANSMISSION_WAIT_MS);
    assert.equal(retransmissionWaitMs(10, 200), MAX_RETRANSMISSION_WAIT_MS); // 5 fps
  });

  it('counts no RTT while it is unknown', () => {
    for (const rtt of [null, 0, -5, NaN, Infinity]) assert.equal(retransmissionWaitMs(rtt, 25), 100, String(rtt));
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
