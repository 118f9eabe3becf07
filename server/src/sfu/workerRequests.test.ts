import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { errors as msErrors } from 'mediasoup';
import { pino } from 'pino';
import { RequestError } from '../errors';
import { WorkerRequests } from './workerRequests';

function logged(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(line: Buffer, _enc, done) {
      lines.push(JSON.parse(line.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

test("a request slower than the mark is logged when it passes it and when answered, with the channel's backlog and the requests waiting", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { log, lines } = logged();
  const requests = new WorkerRequests(log, () => 12345, 1000);
  let answer = (_: string) => {};
  const fast = requests.timed('fast', async () => 'quick');
  const slow = requests.timed('consume', () => new Promise<string>((resolve) => (answer = resolve)));
  assert.equal(requests.state.pending, 2);
  assert.equal(await fast, 'quick');
  t.mock.timers.tick(1000);
  t.mock.timers.tick(500);
  answer('late');
  assert.equal(await slow, 'late');
  assert.equal(requests.state.pending, 0);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    lines.map((l) => [l.msg, l.request, l.pending, l.channelBacklogBytes, l.waitedMs ?? l.tookMs]),
    [
      ['a media worker request has waited over 1 s', 'consume', 1, 12345, 1000],
      ['a slow media worker request was answered', 'consume', 0, 12345, 1500],
    ],
  );
});

test('a failed request is counted out and its error passed on', async () => {
  const { log } = logged();
  const requests = new WorkerRequests(log, () => null, 1000);
  await assert.rejects(requests.timed('resume', async () => Promise.reject(new Error('gone'))), /gone/);
  assert.deepEqual(requests.state, { pending: 0, channelBacklogBytes: null });
});

test("a worker that died under a request, or lost what it asked about, is a RequestError the player may retry; other errors pass as they are", async () => {
  const requests = new WorkerRequests(pino({ level: 'silent' }), () => null);
  for (const err of [new msErrors.WorkerClosedError('Channel closed, pending request aborted [method:TRANSPORT_CONSUME, id:1]'), new msErrors.NotFoundError('Channel request handler with ID x not found [method:transport.produce]')]) {
    await assert.rejects(
      requests.timed('consume', () => Promise.reject(err)),
      (e: unknown) => e instanceof RequestError && e.code === 'unavailable' && e.message === 'the media worker restarted or closed what consume needed, try again',
    );
  }
  const other = new TypeError('bad rtpCapabilities');
  await assert.rejects(requests.timed('consume', () => Promise.reject(other)), (e: unknown) => e === other);
  assert.equal(requests.state.pending, 0);
});
