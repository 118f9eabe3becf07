import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestError } from '../errors';
import { LimitRejections } from './rejections';
import { ViewerSlots } from './viewerSlots';

const refusal = (limit: string) => (err: unknown) => {
  assert.ok(err instanceof RequestError);
  assert.equal(err.code, 'unavailable');
  assert.match(err.message, new RegExp(limit));
  return true;
};

test('a stream takes viewers up to its limit; the next one is refused as unavailable and counted', () => {
  const rejections = new LimitRejections();
  const slots = new ViewerSlots({ maxViewers: 10, maxViewersPerStream: 2, maxViewersPerAddress: 100 }, rejections);
  slots.take('a');
  slots.take('a');
  assert.throws(() => slots.take('a'), refusal('stream "a" has its maximum of 2 viewers'));
  assert.equal(rejections.count('viewers_per_stream'), 1);
  assert.equal(rejections.count('viewers'), 0);
  slots.take('b'); // another stream has its own places
});

test('the server-wide limit counts every stream', () => {
  const rejections = new LimitRejections();
  const slots = new ViewerSlots({ maxViewers: 3, maxViewersPerStream: 2, maxViewersPerAddress: 100 }, rejections);
  slots.take('a');
  slots.take('a');
  slots.take('b');
  assert.throws(() => slots.take('b'), refusal('the server has its maximum of 3 viewers'));
  assert.throws(() => slots.take('c'), refusal('the server has its maximum of 3 viewers'));
  assert.equal(rejections.count('viewers'), 2);
});

test('a released place can be taken again, and releasing twice frees only one', () => {
  const slots = new ViewerSlots({ maxViewers: 2, maxViewersPerStream: 2, maxViewersPerAddress: 100 }, new LimitRejections());
  const first = slots.take('a');
  slots.take('a');
  first();
  first();
  slots.take('a');
  assert.throws(() => slots.take('a'), RequestError);
});

test('one address takes at most its own places, counted over every stream; an unknown address is not counted', () => {
  const rejections = new LimitRejections();
  const slots = new ViewerSlots({ maxViewers: 100, maxViewersPerStream: 100, maxViewersPerAddress: 2 }, rejections);
  const first = slots.take('a', '192.0.2.1');
  slots.take('b', '192.0.2.1');
  assert.throws(() => slots.take('a', '192.0.2.1'), refusal('at most 2 viewers from one address'));
  assert.throws(() => slots.take('c', '::ffff:192.0.2.1'), refusal('at most 2 viewers from one address'));
  assert.equal(rejections.count('viewers_per_address'), 2);
  slots.take('a', '192.0.2.2');
  for (let i = 0; i < 5; i++) slots.take('a');
  first();
  slots.take('a', '192.0.2.1');
});
