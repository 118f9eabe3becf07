import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AddressRateLimit } from './addressRateLimit';

test('an address gets its burst at once, then one attempt per 60/perMinute seconds; others are not affected', () => {
  let now = 0;
  const limit = new AddressRateLimit({ burst: 3, perMinute: 6 }, () => now);
  for (let i = 0; i < 3; i++) assert.ok(limit.take('192.0.2.1'));
  assert.equal(limit.take('192.0.2.1'), false);
  assert.equal(limit.allows('192.0.2.1'), false);
  assert.equal(limit.retryAfterS('192.0.2.1'), 10);
  assert.ok(limit.take('192.0.2.2'), 'another address');
  for (const host of ['::1', '::2', '::3']) assert.ok(limit.take(`2001:db8:1:2${host}`));
  assert.equal(limit.take('2001:db8:1:2::4'), false, 'one IPv6 /64 is one address');
  now = 9_000;
  assert.equal(limit.take('192.0.2.1'), false);
  now = 10_000;
  assert.ok(limit.allows('192.0.2.1'));
  assert.ok(limit.take('192.0.2.1'));
  assert.equal(limit.take('192.0.2.1'), false);
  now = 10 * 60_000;
  assert.equal(limit.retryAfterS('192.0.2.1'), 0);
  for (let i = 0; i < 3; i++) assert.ok(limit.take('192.0.2.1'), 'refilled to the burst, not past it');
  assert.equal(limit.take('192.0.2.1'), false);
});

test('allows() does not use an attempt', () => {
  const limit = new AddressRateLimit({ burst: 1, perMinute: 1 }, () => 0);
  for (let i = 0; i < 5; i++) assert.ok(limit.allows('192.0.2.1'));
  assert.ok(limit.take('192.0.2.1'));
  assert.equal(limit.allows('192.0.2.1'), false);
});

test('memory stays bounded under many addresses', () => {
  const limit = new AddressRateLimit({ burst: 2, perMinute: 1 }, () => 0);
  for (let i = 0; i < 30_000; i++) limit.take(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  assert.ok((limit as unknown as { buckets: Map<string, unknown> }).buckets.size <= 10_000);
  assert.ok(limit.take('10.0.117.47'), 'a recent address kept its bucket (one attempt left of two)');
  assert.equal(limit.take('10.0.117.47'), false);
});
