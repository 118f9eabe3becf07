import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capacityChangeCommands } from './pelsRouter';

test('a capacity change rewrites the classes in place, and the video FIFOs\' limits only when given', () => {
  const base = { capacityKbps: 400, internetShare: 0.1, mode: 'pels' as const };
  const classes = capacityChangeCommands('eth0', base);
  assert.ok(classes.every((c) => c[0] === 'class' && c[1] === 'change'));
  assert.ok(classes.some((c) => c.includes('1:1') && c.includes('400kbit')));
  const withLimits = capacityChangeCommands('eth0', { ...base, queuePackets: 21 });
  const limits = withLimits.filter((c) => c[0] === 'qdisc');
  assert.deepEqual(limits.map((c) => [c[1], c[7], c.at(-1)]), [['change', '11:', '21'], ['change', '12:', '21']]);
  const fifo = capacityChangeCommands('eth0', { ...base, mode: 'best-effort', queuePackets: 30 }).filter((c) => c[0] === 'qdisc');
  assert.deepEqual(fifo.map((c) => [c[7], c.at(-1)]), [['10:', '30']]);
});
