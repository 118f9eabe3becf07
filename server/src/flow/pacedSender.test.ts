import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Color } from '@pels/shared/pels/color';
import { PacedSender } from './pacedSender';
import { PacerClock, type Drainable } from './pacerClock';

const until = async (ok: () => boolean, ms = 2000): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

test('the clock drains a waiting sender each tick until it has nothing left, then stops', async () => {
  const clock = new PacerClock();
  let calls = 0;
  const sender: Drainable = { drain: () => ++calls < 3 };
  clock.wait(sender);
  await until(() => calls === 3);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(calls, 3);
  clock.close();
});

test('a sender whose sink throws (its worker gone) is dropped from the clock; the others go on', async () => {
  const clock = new PacerClock();
  let calls = 0;
  clock.wait({ drain: () => { throw new Error('channel closed'); } });
  clock.wait({ drain: () => ++calls < 3 });
  await until(() => calls === 3);
  clock.close();
});

test("a keyframe's packets leave over time, in order, green ahead of a yellow frame waiting; a closed sender sends nothing more", async () => {
  const clock = new PacerClock();
  const sent: { color: Color; packet: Buffer }[] = [];
  const sink = (color: Color) => ({ send: (packet: Buffer) => void sent.push({ color, packet }) });
  const sinks = { green: sink('green'), yellow: sink('yellow'), red: sink('red') };
  const paced = new PacedSender(sinks, clock);
  paced.setTargetKbps(400); // 1000 kb/s: 5 kB at once, 125 bytes a ms after
  const yellow = Array.from({ length: 10 }, (_, i) => Buffer.alloc(1000, i));
  const green = Array.from({ length: 10 }, (_, i) => Buffer.alloc(1000, 100 + i));
  paced.send('yellow', yellow);
  paced.send('green', green);
  assert.ok(sent.length < 10, `${sent.length} packets at once`);
  await until(() => sent.length === 20);
  assert.deepEqual(sent.filter((s) => s.color === 'yellow').map((s) => s.packet), yellow);
  assert.deepEqual(sent.filter((s) => s.color === 'green').map((s) => s.packet), green);
  // Green, queued after yellow's first packets went, overtakes the rest of yellow.
  const lastGreen = sent.map((s) => s.color).lastIndexOf('green');
  assert.ok(lastGreen < 19, 'the last packet out is yellow');
  assert.equal(paced.snapshot.delay.frames, 2);

  paced.send('red', Array.from({ length: 20 }, () => Buffer.alloc(1000)));
  const before = sent.length;
  paced.close();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(sent.length, before);
  clock.close();
});
