import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEMPORAL_PATTERN } from '../pels/frame';
import { IntelligibilityModel } from '../upta/intelligibility';
import { VIEWER_GATE_DEFAULTS } from '../upta/viewerGate';
import type { StreamStats } from './receiverReports';
import { streamContext } from './streamContext';
import { UptaGate } from './uptaGate';

/** A table like the default clip's: 30 dB for a frame itself, 1.7 dB less per frame repeated. */
const model = new IntelligibilityModel(
  Array.from({ length: 300 }, (_, index) => ({ index, tid: TEMPORAL_PATTERN[index % 4]!, psnr: Array.from({ length: Math.min(9, index + 1) }, (_, k) => 30 - 1.7 * k) })),
);

/** A viewer's RTCP statistics: `pps` packets a second per color sent, `loss` of those lost; a receiver report every second. */
class Counters {
  private readonly c: Record<'green' | 'yellow' | 'red', StreamStats> = {
    green: { packetCount: 0, packetsLost: 0, fractionLost: 0, jitter: 0 },
    yellow: { packetCount: 0, packetsLost: 0, fractionLost: 0, jitter: 0 },
    red: { packetCount: 0, packetsLost: 0, fractionLost: 0, jitter: 0 },
  };
  private lostSoFar = { green: 0, yellow: 0, red: 0 };
  private t = 0;
  step(gate: UptaGate, loss: number, pps = 40, dtMs = 250): Record<'green' | 'yellow' | 'red', StreamStats> {
    this.t += dtMs;
    for (const k of ['green', 'yellow', 'red'] as const) {
      if (!gate.allows(k)) continue;
      const sent = (pps * dtMs) / 1000;
      this.c[k] = { ...this.c[k], packetCount: this.c[k].packetCount + sent };
      this.lostSoFar[k] += sent * loss;
      // A report each second: its fields change.
      if (this.t % 1000 === 0) this.c[k] = { ...this.c[k], packetsLost: this.lostSoFar[k], jitter: this.t };
    }
    return structuredClone(this.c);
  }
}

test('a viewer at heavy loss is cut to green, then to nothing; it gets every layer back once the loss stops', () => {
  const gate = new UptaGate({ ...VIEWER_GATE_DEFAULTS, floorDb: 20 }, streamContext({ model: () => model }), 0);
  const counters = new Counters();
  const seen: string[] = [];
  let t = 0;
  const runUntil = (endMs: number, loss: number) => {
    for (; t < endMs; t += 250) {
      gate.update(counters.step(gate, loss), 0, 50, t);
      if (seen.at(-1) !== gate.status.state) seen.push(gate.status.state);
    }
  };
  runUntil(10_000, 0);
  assert.deepEqual(seen, ['full']);
  runUntil(30_000, 0.7);
  assert.deepEqual(seen, ['full', 'baseOnly', 'paused']);
  assert.equal(gate.allows('green'), gate.status.probing);
  assert.equal(gate.allows('yellow'), false);
  runUntil(60_000, 0);
  assert.deepEqual(seen, ['full', 'baseOnly', 'paused', 'baseOnly', 'full']);
  assert.ok(gate.allows('red'));
});

test('light loss and no table yet: every layer stays', () => {
  const [a, b] = [new Counters(), new Counters()];
  const light = new UptaGate({ ...VIEWER_GATE_DEFAULTS, floorDb: 20 }, streamContext({ model: () => model }), 0);
  const noTable = new UptaGate({ ...VIEWER_GATE_DEFAULTS, floorDb: 20 }, streamContext({}), 0);
  for (let t = 0; t < 60_000; t += 250) {
    light.update(a.step(light, 0.1), 0, null, t);
    noTable.update(b.step(noTable, 0.9), 0, null, t);
  }
  assert.equal(light.status.state, 'full');
  assert.equal(noTable.status.state, 'full');
});
