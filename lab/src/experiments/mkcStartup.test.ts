import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Row } from './experiment';
import { mkcStartupExperiment } from './mkcStartup';

const options = { seed: 1, short: true };
const result = mkcStartupExperiment.run(options);
const num = (v: unknown): number => v as number;
const row = (c: string, source: string, feedback: string, startup: 'on' | 'off'): Row => {
  const r = result.summary.find((s) => s.case === c && s.source === source && s.feedback === feedback && s.startup === startup);
  assert.ok(r, `${c} ${source} ${feedback} ${startup}`);
  return r;
};

test('two flows on 1200 kb/s: with start-up the same stationary point C/N + alpha/beta and the same fairness', () => {
  const [off, on] = [row('two flows 1200 kb/s', 'fgs', 'router', 'off'), row('two flows 1200 kb/s', 'fgs', 'router', 'on')];
  for (const r of [on.f1Kbps, on.f2Kbps]) assert.ok(Math.abs(num(r) / num(on.modelKbps) - 1) < 0.05, `${r} kb/s`);
  for (const k of ['f1Kbps', 'f2Kbps']) assert.ok(Math.abs(num(on[k]) / num(off[k]) - 1) < 0.05, `${k}: ${off[k]} / ${on[k]}`);
  assert.ok(num(on.jainMin) > 0.99, `Jain ${on.jainMin}`);
  // The product's frames with router feedback: start-up on or off, as fair.
  const frames = [row('two flows 1200 kb/s', 'frames', 'router', 'off'), row('two flows 1200 kb/s', 'frames', 'router', 'on')];
  assert.ok(Math.abs(num(frames[0]!.jain) - num(frames[1]!.jain)) < 0.02, `Jain ${frames[0]!.jain} / ${frames[1]!.jain}`);
});

test('700 kb/s: the ramp overshoots into yellow and red, never green', () => {
  for (const feedback of ['rtcp', 'router']) {
    const on = row('one flow 700 kb/s', 'frames', feedback, 'on');
    assert.equal(on.greenLossRamp, 0, feedback);
    assert.ok(num(on.peakKbps) > 700, `${feedback}: peak ${on.peakKbps}`);
    assert.ok(num(on.startupEndS) < 10, `${feedback}: start-up ended at ${on.startupEndS} s`);
  }
  for (const s of result.summary) assert.equal(s.greenLoss, 0, `${s.case} ${s.source} ${s.feedback} ${s.startup}`);
});

test('an open path: the whole stream within a few reports with start-up, after twenty without', () => {
  const [off, on] = [row('one flow 3000 kb/s', 'frames', 'rtcp', 'off'), row('one flow 3000 kb/s', 'frames', 'rtcp', 'on')];
  assert.ok(num(on.rampS) < 5, `on: ${on.rampS} s`);
  assert.ok(num(off.rampS) > 15, `off: ${off.rampS} s`);
  // No loss: start-up never ended.
  assert.equal(on.startupEndS, null);
});

test('the same seed gives the same run', () => {
  assert.deepEqual(mkcStartupExperiment.run(options).rows, result.rows);
});
