import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameSelector } from './frameSelection';
import type { FrameInfo } from './frame';
import { mulberry32, syntheticFrames, type SyntheticFrame } from './syntheticStream';

const FRAMES = syntheticFrames({ seed: 11, keyframeInterval: 300 }, 30 * 120);
const SECONDS = FRAMES.length / 30;

function layerKbps(tid: 0 | 1 | 2): number {
  return (FRAMES.filter((f) => f.temporalId === tid).reduce((a, f) => a + f.bytes, 0) * 8) / 1000 / SECONDS;
}
const BASE = layerKbps(0);
const TID1 = layerKbps(1);
const FULL = BASE + TID1 + layerKbps(2);

interface Run {
  sent: boolean[];
  kbps: number;
  /** Share of each layer's frames sent. */
  sentShare: [number, number, number];
}

function run(frames: readonly SyntheticFrame[], rateAt: (i: number) => number, selector = new FrameSelector()): Run {
  const sent = frames.map((f, i) => selector.select(f, f.atMs, rateAt(i)));
  const seconds = frames.length / 30;
  const bytes = frames.reduce((a, f, i) => a + (sent[i] ? f.bytes : 0), 0);
  const share = ([0, 1, 2] as const).map((tid) => {
    const idx = frames.map((f, i) => (f.temporalId === tid ? i : -1)).filter((i) => i >= 0);
    return idx.filter((i) => sent[i]).length / idx.length;
  });
  return { sent, kbps: (bytes * 8) / 1000 / seconds, sentShare: [share[0]!, share[1]!, share[2]!] };
}

test('base frames and keyframes are always sent, whatever the budget', () => {
  for (const rate of [0, 50, BASE, FULL]) {
    const { sent } = run(FRAMES, () => rate);
    FRAMES.forEach((f, i) => {
      if (f.temporalId === 0) assert.ok(sent[i], `rate=${rate} frame ${i}`);
    });
  }
});

test('with a budget between base and full rate, the sent rate matches it within 3%', () => {
  for (const fraction of [0.1, 0.25, 0.5, 0.75, 0.9]) {
    const budget = BASE + fraction * (FULL - BASE);
    const { kbps } = run(FRAMES, () => budget);
    assert.ok(Math.abs(kbps / budget - 1) < 0.03, `budget ${budget.toFixed(0)}: sent ${kbps.toFixed(1)} kb/s`);
  }
});

test('the sent rate follows a budget that changes mid-run', () => {
  const budgets = [BASE + 0.7 * (FULL - BASE), BASE + 0.2 * (FULL - BASE), BASE + 0.5 * (FULL - BASE)];
  const len = FRAMES.length / budgets.length;
  const { sent } = run(FRAMES, (i) => budgets[Math.floor(i / len)]!);
  budgets.forEach((budget, k) => {
    const part = FRAMES.slice(k * len, (k + 1) * len);
    const bytes = part.reduce((a, f, j) => a + (sent[k * len + j] ? f.bytes : 0), 0);
    const kbps = (bytes * 8) / 1000 / (len / 30);
    assert.ok(Math.abs(kbps / budget - 1) < 0.03, `part ${k}: budget ${budget.toFixed(0)}, sent ${kbps.toFixed(1)}`);
  });
});

test('keyframes every 2 s as large as the bucket are paid for: the sent rate matches a steady or fluctuating budget within 2%', () => {
  // The product's stream: a keyframe every 60 frames, about 30-40 kB, against a bucket of 500 ms of a few hundred kb/s.
  const frames = syntheticFrames({ seed: 7, keyframeInterval: 60, keyframeBytes: 40_000, meanBytes: [3600, 2400, 1400] }, 30 * 300);
  const cases: Array<[string, (atMs: number) => number]> = [
    ['steady 400', () => 400],
    ['400 +- 150 every 100 ms', (t) => (Math.floor(t / 100) % 2 ? 550 : 250)],
    ['400 +- 250 every 300 ms', (t) => (Math.floor(t / 300) % 2 ? 650 : 150)],
  ];
  for (const [name, rateAt] of cases) {
    const { kbps } = run(frames, (i) => rateAt(frames[i]!.atMs));
    const budget = frames.reduce((a, f) => a + rateAt(f.atMs), 0) / frames.length;
    assert.ok(Math.abs(kbps / budget - 1) < 0.02, `${name}: sent ${kbps.toFixed(1)} kb/s against ${budget.toFixed(1)}`);
  }
});

test('a rate below the base rate for a while does not starve the enhancement layers long after (TID 1 within 2 s)', () => {
  const low = FRAMES.slice(0, 30 * 20);
  const budgets = (i: number) => (i < 30 * 10 ? 0.5 * BASE : BASE + 0.5 * (FULL - BASE));
  const { sent } = run(low, budgets);
  const firstTid1 = low.findIndex((f, i) => i >= 30 * 10 && f.temporalId === 1 && sent[i]);
  assert.ok(firstTid1 > 0 && firstTid1 - 30 * 10 < 60, `first TID 1 frame ${((firstTid1 - 30 * 10) / 30).toFixed(2)} s after the rate came back`);
});

test('a budget for base + TID 1 goes to TID 1 frames, not TID 2', () => {
  const { sentShare } = run(FRAMES, () => (BASE + TID1) * 1.02);
  assert.ok(sentShare[1] > 0.9, `TID 1 sent ${sentShare[1]}`);
  assert.ok(sentShare[2] < 0.1, `TID 2 sent ${sentShare[2]}`);
});

test('a budget short of all TID 1 frames sends (almost) no TID 2 frame', () => {
  for (const fraction of [0.25, 0.5, 0.75]) {
    const { sentShare } = run(FRAMES, () => BASE + fraction * TID1);
    assert.ok(Math.abs(sentShare[1] - fraction) < 0.1, `fraction ${fraction}: TID 1 sent ${sentShare[1]}`);
    assert.ok(sentShare[2] < 0.01, `fraction ${fraction}: TID 2 sent ${sentShare[2]}`);
  }
});

test('a budget above the full rate sends everything', () => {
  const { sentShare } = run(FRAMES.slice(0, 299), () => FULL * 1.3);
  assert.deepEqual(sentShare, [1, 1, 1]);
});

test('never a TID 2 frame whose TID 1 reference was not sent (inferred and explicit layer sync)', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const frames = syntheticFrames({ seed, keyframeInterval: 120, noise: 0.5 }, 3000);
    // A budget jumping between nothing and plenty, so a TID 2 frame often finds budget its TID 1 frame did not.
    const random = mulberry32(seed);
    const rates = frames.map(() => (random() < 0.2 ? 0 : 4 * BASE * random()));
    const rateAt = (i: number) => rates[i]!;
    // The server passes the Y bit; it must agree with the inference.
    let tid1SinceBase = false;
    const explicit = frames.map((f) => {
      const layerSync = f.temporalId === 2 ? !tid1SinceBase : true;
      tid1SinceBase = f.temporalId === 0 ? false : tid1SinceBase || f.temporalId === 1;
      return { ...f, layerSync };
    });
    for (const input of [frames, explicit]) {
      const { sent, sentShare } = run(input, rateAt);
      let checked = 0;
      input.forEach((f, i) => {
        if (f.temporalId !== 2 || input[i - 1]?.temporalId !== 1) return;
        if (sent[i]) assert.ok(sent[i - 1], `seed ${seed} frame ${i}: TID 2 sent without its TID 1`);
        if (!sent[i - 1]) checked++;
      });
      assert.ok(checked > 50 && sentShare[2] > 0.1, `seed ${seed}: the run should exercise skipped TID 1 frames`);
    }
  }
});

test('explicit layer sync decides what a frame depends on', () => {
  const K: FrameInfo = { temporalId: 0, keyframe: true, bytes: 1000 };
  const B: FrameInfo = { temporalId: 0, keyframe: false, bytes: 1000 };
  const T1: FrameInfo = { temporalId: 1, keyframe: false, bytes: 1000 };
  const T2: FrameInfo = { temporalId: 2, keyframe: false, bytes: 1000 };
  const RICH = 10_000;
  // A TID 1 frame that does not fit: no budget at all when it comes.
  const skipT1 = (frame: FrameInfo = T1): [FrameInfo, number] => [{ ...frame, bytes: 5000 }, 0];
  const cases: Array<{ name: string; frames: Array<[FrameInfo, number]>; sent: boolean[] }> = [
    {
      name: 'inferred: the second TID 2 needs the TID 1 frame',
      frames: [[K, RICH], [T2, RICH], skipT1(), [T2, RICH], [B, RICH], [T2, RICH], [T1, RICH], [T2, RICH]],
      sent: [true, true, false, false, true, true, true, true],
    },
    { name: 'a TID 2 marked sync needs only the base', frames: [[K, RICH], [T2, RICH], skipT1(), [{ ...T2, layerSync: true }, RICH]], sent: [true, true, false, true] },
    {
      name: 'a TID 2 marked non-sync needs GOLDEN',
      frames: [[K, RICH], [{ ...T2, layerSync: false }, RICH], [B, RICH], [T2, RICH], skipT1(), [B, RICH], [{ ...T2, layerSync: false }, RICH]],
      sent: [true, true, true, true, false, true, false],
    },
    {
      name: 'a non-sync TID 1 needs the previous GOLDEN update',
      frames: [[K, RICH], skipT1(), [B, RICH], [{ ...T1, layerSync: false }, RICH], [K, RICH], [{ ...T1, layerSync: false }, RICH]],
      sent: [true, false, true, false, true, true],
    },
    {
      name: 'GOLDEN is unknown before the first keyframe or TID 1 frame',
      frames: [[B, RICH], [{ ...T2, layerSync: false }, RICH], [T1, RICH], [T2, RICH]],
      sent: [true, false, true, true],
    },
  ];
  for (const { name, frames, sent } of cases) {
    const selector = new FrameSelector();
    const got = frames.map(([f, rate], i) => selector.select(f, (i + 1) * 100, rate));
    assert.deepEqual(got, sent, name);
  }
});

test('the selector rejects inputs that would corrupt its budget', () => {
  const s = new FrameSelector();
  const f: FrameInfo = { temporalId: 1, keyframe: false, bytes: 100 };
  assert.throws(() => s.select({ ...f, bytes: -1 }, 0, 100), RangeError);
  assert.throws(() => s.select(f, Number.NaN, 100), RangeError);
  assert.throws(() => s.select(f, 0, Number.POSITIVE_INFINITY), RangeError);
  assert.throws(() => new FrameSelector({ burstMs: 0 }), RangeError);
});
