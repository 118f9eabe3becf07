import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bestEffortPolicy, fixedPolicy } from '@pels/shared/pels/flowPolicy';
import { parseVp8FrameHeader } from '@pels/shared/vp8/frameHeader';
import { IvfReader } from '../ingest/ivfReader';
import { FrameLayering } from '../layering/layeredFrame';
import { parseVp8Descriptor } from '../rtp/vp8Descriptor';
import { ViewerFlow } from './viewerFlow';

const ssrcs = { green: 1, yellow: 2, red: 3 };
const frames = (() => {
  const layering = new FrameLayering(3000);
  return new IvfReader().push(readFileSync(new URL('../../testdata/city-24.ivf', import.meta.url))).map((f) => layering.next(f.data));
})();

test('the fixed split sends TID 0 green, TID 1 yellow, TID 2 red, sharing PictureID and TL0PICIDX', () => {
  const flow = new ViewerFlow(ssrcs, 101, 1000);
  const policy = fixedPolicy();
  const out = frames.map((f) => flow.onFrame(f, policy.decide(f, 0))!);
  assert.deepEqual(out.slice(0, 4).map((o) => o.color), ['green', 'red', 'yellow', 'red']);
  for (const [i, o] of out.entries()) {
    const pkt = o.packets[0]!;
    assert.equal(pkt.readUInt32BE(8), ssrcs[o.color]);
    assert.equal(pkt.readUInt32BE(4), 1000 + i * 3000);
    const d = parseVp8Descriptor(pkt.subarray(12));
    assert.equal(d.pictureId, i);
    assert.equal(d.temporalId, frames[i]!.temporalId);
    // TL0PICIDX counts base frames: it steps at every fourth frame.
    const firstTl0 = parseVp8Descriptor(out[0]!.packets[0]!.subarray(12)).tl0PicIdx;
    assert.equal(d.tl0PicIdx, (firstTl0 + Math.floor(i / 4)) & 0xff);
  }
  assert.deepEqual(flow.counters.framesByLayer, [6, 6, 12]);
  assert.equal(flow.counters.byColor.green.frames, 6);
});

test('sequence numbers are per color stream and gapless', () => {
  const flow = new ViewerFlow(ssrcs, 101, 0);
  const policy = fixedPolicy();
  const seqs: Record<string, number[]> = { green: [], yellow: [], red: [] };
  for (const f of frames) {
    const o = flow.onFrame(f, policy.decide(f, 0))!;
    for (const p of o.packets) seqs[o.color]!.push(p.readUInt16BE(2));
  }
  for (const s of Object.values(seqs)) for (let i = 1; i < s.length; i++) assert.equal(s[i], (s[i - 1]! + 1) & 0xffff);
});

test('a synthetic keyframe continues its stream, sits off the frame grid and is a 16x16 keyframe', () => {
  const flow = new ViewerFlow(ssrcs, 101, 0);
  const policy = fixedPolicy();
  let lastRed = 0;
  for (const f of frames.slice(0, 5)) {
    const o = flow.onFrame(f, policy.decide(f, 0))!;
    if (o.color === 'red') lastRed = o.packets.at(-1)!.readUInt16BE(2);
  }
  const [pkt, ...more] = flow.syntheticKeyframe('red');
  assert.equal(more.length, 0);
  assert.equal(pkt!.readUInt32BE(8), ssrcs.red);
  assert.equal(pkt!.readUInt16BE(2), (lastRed + 1) & 0xffff);
  assert.equal(pkt!.readUInt32BE(4), 4 * 3000 + 1);
  const d = parseVp8Descriptor(pkt!.subarray(12));
  const h = parseVp8FrameHeader(pkt!.subarray(12 + d.length));
  assert.deepEqual([h.keyframe, h.width, h.height], [true, 16, 16]);
  assert.equal(d.temporalId, 0);
});

test('frames the control does not send are counted and leave no gap in the stream', () => {
  const flow = new ViewerFlow(ssrcs, 101, 0);
  const policy = bestEffortPolicy({ rateKbps: 0, gamma: 0 });
  const sent = frames.map((f, i) => flow.onFrame(f, policy.decide(f, i * 33)));
  assert.ok(sent.every((o, i) => (o !== null) === (frames[i]!.temporalId === 0)));
  assert.equal(flow.counters.framesSkipped, 18);
  assert.equal(flow.counters.byColor.green.frames, 6);
});
