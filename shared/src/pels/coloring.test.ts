import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EnhancementColoring } from './coloring';
import { syntheticFrames, type SyntheticFrame } from './syntheticStream';
import type { Color } from './color';

const FRAMES = syntheticFrames({ seed: 42, keyframeInterval: 300 }, 20_000);

interface Tally {
  enhancement: number;
  red: number;
  redByLayer: [number, number, number];
  bytesByLayer: [number, number, number];
}

function colorAll(frames: readonly SyntheticFrame[], gammaAt: (i: number) => number, coloring = new EnhancementColoring()): Color[] {
  return frames.map((f, i) => coloring.color(f, gammaAt(i)));
}

function tally(frames: readonly SyntheticFrame[], colors: readonly Color[], from = 0, to = frames.length): Tally {
  const t: Tally = { enhancement: 0, red: 0, redByLayer: [0, 0, 0], bytesByLayer: [0, 0, 0] };
  for (let i = from; i < to; i++) {
    const f = frames[i]!;
    t.bytesByLayer[f.temporalId] += f.bytes;
    if (f.temporalId === 0) continue;
    t.enhancement += f.bytes;
    if (colors[i] === 'red') {
      t.red += f.bytes;
      t.redByLayer[f.temporalId] += f.bytes;
    }
  }
  return t;
}

/** Share of TID 2 bytes among enhancement bytes in FRAMES (about 5000 / 8500). */
const TID2_SHARE = (() => {
  const t = tally(FRAMES, []);
  return t.bytesByLayer[2] / (t.bytesByLayer[1] + t.bytesByLayer[2]);
})();

test('base frames and keyframes are always green, enhancement never', () => {
  const colors = colorAll(FRAMES, () => 0.5);
  FRAMES.forEach((f, i) => assert.equal(colors[i] === 'green', f.temporalId === 0, `frame ${i}`));
});

test('red share of enhancement bytes is within 1% of gamma over a long run', () => {
  for (const gamma of [0, 0.05, 0.1, 0.2, 0.4, 0.55, 0.6, 0.65, 0.8, 0.95, 1]) {
    const t = tally(FRAMES, colorAll(FRAMES, () => gamma));
    assert.ok(Math.abs(t.red / t.enhancement - gamma) < 0.01, `gamma=${gamma}: red share ${(t.red / t.enhancement).toFixed(4)}`);
  }
});

test('red goes to TID 2 first: TID 1 stays yellow while gamma is below the TID 2 share', () => {
  for (const gamma of [0.05, 0.2, 0.4, TID2_SHARE - 0.05]) {
    const t = tally(FRAMES, colorAll(FRAMES, () => gamma));
    assert.ok(t.redByLayer[1] / t.bytesByLayer[1] < 0.005, `gamma=${gamma}: ${t.redByLayer[1]} TID 1 bytes red`);
  }
});

test('above the TID 2 share, (almost) every TID 2 byte is red and TID 1 supplies the rest', () => {
  for (const gamma of [TID2_SHARE + 0.05, 0.8, 0.9]) {
    const t = tally(FRAMES, colorAll(FRAMES, () => gamma));
    assert.ok(t.redByLayer[2] / t.bytesByLayer[2] > 0.99, `gamma=${gamma}: TID 2 red share ${t.redByLayer[2] / t.bytesByLayer[2]}`);
    const expectedTid1 = (gamma * t.enhancement - t.bytesByLayer[2]) / t.bytesByLayer[1];
    assert.ok(Math.abs(t.redByLayer[1] / t.bytesByLayer[1] - expectedTid1) < 0.02, `gamma=${gamma}`);
  }
});

test('the share tracks gamma when it changes mid-run, within 3% in each part', () => {
  const parts = [0.2, 0.7, 0.05, 0.45];
  const len = FRAMES.length / parts.length;
  const colors = colorAll(FRAMES, (i) => parts[Math.floor(i / len)]!);
  parts.forEach((gamma, k) => {
    const t = tally(FRAMES, colors, k * len, (k + 1) * len);
    assert.ok(Math.abs(t.red / t.enhancement - gamma) < 0.03, `part ${k} gamma=${gamma}: ${(t.red / t.enhancement).toFixed(4)}`);
  });
});

test('the byte balance stays within one frame at every point of a run with a wandering gamma', () => {
  const gammaAt = (i: number) => 0.5 + 0.45 * Math.sin(i / 500);
  const colors = colorAll(FRAMES, gammaAt);
  const maxFrame = Math.max(...FRAMES.filter((f) => f.temporalId !== 0).map((f) => f.bytes));
  let owed = 0;
  FRAMES.forEach((f, i) => {
    if (f.temporalId === 0) return;
    owed += gammaAt(i) * f.bytes - (colors[i] === 'red' ? f.bytes : 0);
    assert.ok(Math.abs(owed) <= maxFrame, `frame ${i}: balance ${owed}`);
  });
});

test('a TID 2 frame that references a red TID 1 frame is red too', () => {
  const colors = colorAll(FRAMES, (i) => 0.3 + 0.65 * Math.abs(Math.sin(i / 300)));
  let redTid1 = 0;
  FRAMES.forEach((f, i) => {
    if (f.temporalId !== 2 || FRAMES[i - 1]?.temporalId !== 1 || colors[i - 1] !== 'red') return;
    redTid1++;
    assert.equal(colors[i], 'red', `frame ${i}`);
  });
  assert.ok(redTid1 > 100);
});

test('gamma outside [0, 1] is a caller bug', () => {
  const c = new EnhancementColoring();
  for (const gamma of [-0.1, 1.1, Number.NaN]) assert.throws(() => c.color({ temporalId: 2, keyframe: false, bytes: 100 }, gamma), RangeError);
});
