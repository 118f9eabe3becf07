import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UtilityMeter } from './utilityMeter';

describe('UtilityMeter', () => {
  it('measures the useful share over the window and the session', () => {
    const u = new UtilityMeter(2000);
    assert.deepEqual(u.reading(), { recent: null, session: null });
    u.add(0, 0, 0);
    u.add(1000, 1000, 1000); // all useful
    u.add(2000, 2000, 2000);
    u.add(3000, 3000, 2500); // half useful from now on
    u.add(4000, 4000, 3000);
    const r = u.reading();
    assert.equal(r.recent, 0.5, 'window 2000..4000');
    assert.equal(r.session, 0.75);
  });

  it('stays in [0, 1] and is null without enhancement bytes', () => {
    const u = new UtilityMeter(1000);
    u.add(0, 100, 0);
    u.add(1000, 100, 0);
    assert.equal(u.reading().recent, null);
    u.add(2000, 200, 210);
    assert.equal(u.reading().recent, 1);
  });
});
