import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArrivalRate, isUseless, lossAtShare, maxMinShare, UselessFlowGate } from './upta';

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

test('the gate drops above q at once and releases only after a second well below it', () => {
  const g = new UselessFlowGate(0.12);
  assert.equal(g.update(0.05, 0), false);
  assert.equal(g.update(0.2, 100), true);
  assert.equal(g.update(0.11, 200), true); // below q but not below 0.8 q
  assert.equal(g.update(0.05, 300), true);
  assert.equal(g.update(0.05, 1200), true);
  assert.equal(g.update(0.05, 1300), false);
});
