import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RateWindow, StatsCollector } from './stats';

describe('RateWindow', () => {
  it('counts events of the last 2 s, per second', () => {
    const w = new RateWindow(2000);
    for (let t = 0; t < 3000; t += 100) w.add(t); // 10 per second
    assert.equal(w.rate(2950), 10);
    assert.equal(w.rate(5000), 0);
  });
});

describe('StatsCollector', () => {
  it('counts per layer and per color and reports fps per layer', () => {
    const s = new StatsCollector();
    // 2 s of a 0,2,1,2 pattern at 30 fps.
    // The first second in rendition 1, then rendition 0: one switch.
    for (let i = 0; i < 60; i++) s.decoded(([0, 2, 1, 2] as const)[i % 4]!, 640, 360, i < 30 ? 1 : 0, i * (1000 / 30));
    s.received('green');
    s.received('red');
    s.skipped();
    s.late();
    s.error('EncodingError: boom');
    const quality = { freezes: 2, checksumMismatches: 0, checksumsCompared: 55, psnr: { mean: 29.1, p5: 22.4, last: 30.2 } };
    const snap = s.snapshot(1990, quality);
    assert.deepEqual(snap.framesDecoded, { total: 60, tid0: 15, tid1: 15, tid2: 30 });
    assert.deepEqual(snap.fps, { total: 30, tid0: 7.5, tid1: 7.5, tid2: 15 });
    assert.deepEqual(snap.framesReceived, { green: 1, yellow: 0, red: 1 });
    assert.equal(snap.framesSkipped, 1);
    assert.equal(snap.framesLate, 1);
    assert.equal(snap.decodeErrors, 1);
    assert.equal(snap.lastError, 'EncodingError: boom');
    assert.equal(snap.width, 640);
    assert.equal(snap.height, 360);
    assert.deepEqual([snap.rendition, snap.renditionSwitches], [0, 1]);
    assert.deepEqual({ freezes: snap.freezes, checksumMismatches: snap.checksumMismatches, checksumsCompared: snap.checksumsCompared, psnr: snap.psnr }, quality);
  });
});
