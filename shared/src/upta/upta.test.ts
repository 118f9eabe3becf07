import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArrivalRate, isUseless, lossAtShare, maxMinShare } from './upta';

test('max-min share: water-filling over demands', () => {
  // Video 1.76, ON-OFF 2, TCP 2 on 4 Mb/s: 4/3 each.
  assert.ok(Math.abs(maxMinShare([1760, 2000, 2000], 4000) - 4000 / 3) < 1e-9);
  // Video and TCP alone: TCP gets the rest.
  assert.equal(maxMinShare([1760, 3000], 4000), 2240);
  assert.equal(maxMinShare([1000, 1000], 4000), Number.POSITIVE_INFINITY);
});

test('UPTA drops a flow only while its loss at the share exceeds the threshold', () => {
  assert.ok(Math.abs(lossAtShare(1760, 4000 / 3) - 0.2424) < 1e-3);
  assert.equal(isUseless(1760, 4000 / 3, 0.12), true);
  assert.equal(isUseless(1760, 2240, 0.12), false);
  assert.equal(isUseless(1760, 1600, 0.12), false); // 9% loss: still intelligible
});

test('the arrival-rate estimate converges to a CBR rate and fades after the flow stops', () => {
  const r = new ArrivalRate(100);
  for (let t = 0; t <= 2000; t += 2) r.add(250, t); // 250 B every 2 ms = 1000 kb/s
  assert.ok(Math.abs(r.at(2000) - 1000) < 1);
  assert.ok(r.at(2500) < 10);
});
