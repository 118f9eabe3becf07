import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
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

test("a request slower than the mark is logged when it passes it and when answered, with the channel's backlog and the requests waiting", async () => {
  const { log, lines } = logged();
  const requests = new WorkerRequests(log, () => 12345, 30);
  const fast = requests.timed('fast', async () => 'quick');
  const slow = requests.timed('consume', () => sleep(150, 'late'));
  assert.equal(requests.state.pending, 2);
  assert.equal(await fast, 'quick');
  assert.equal(await slow, 'late');
  assert.equal(requests.state.pending, 0);
  await sleep(10);
  assert.deepEqual(
    lines.map((l) => [l.msg, l.request, l.pending, l.channelBacklogBytes]),
    [
      ['a media worker request has waited over 1 s', 'consume', 1, 12345],
      ['a slow media worker request was answered', 'consume', 0, 12345],
    ],
  );
  assert.ok((lines[1]!.tookMs as number) >= 150);
});

test('a failed request is counted out and its error passed on', async () => {
  const { log } = logged();
  const requests = new WorkerRequests(log, () => null, 1000);
  await assert.rejects(requests.timed('resume', async () => Promise.reject(new Error('gone'))), /gone/);
  assert.deepEqual(requests.state, { pending: 0, channelBacklogBytes: null });
});
