import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rlmTcpExperiment } from './rlmTcp';

const result = rlmTcpExperiment.run({ seed: 1, short: true });
const at = (c: string, r: string) => result.summary.find((s) => s.case === c && s.receiver === r)!;

test('before TCP starts, each receiver settles at the level its link carries: R1 3 layers, R2 2', () => {
  for (const c of ['E1a', 'E1b']) {
    assert.equal(at(c, 'R1').levelBeforeTcp, 3);
    assert.equal(at(c, 'R2').levelBeforeTcp, 2);
  }
});

test('RLM holding its level starves TCP: R1\'s transfer takes over 1200 s, R2\'s gets about what the layers leave', () => {
  assert.ok((at('E1a', 'R1').tcpCompletionS as number) > 1200, `${at('E1a', 'R1').tcpCompletionS}`);
  assert.ok((at('E1a', 'R2').tcpKbpsAtThatLevel as number) < 15, `${at('E1a', 'R2').tcpKbpsAtThatLevel}`);
  assert.ok((at('E1a', 'R1').peakWindow as number) <= 20);
});

test('a smaller measurement window (W = 4) makes R2 drop a layer sooner after TCP starts than W = 12', () => {
  const w4 = at('E1b', 'R2').firstDropAfterTcpS as number;
  const w12 = at('E1a', 'R2').firstDropAfterTcpS as number | null;
  assert.ok(w4 !== null);
  assert.ok(w12 === null || w4 < w12, `W=4 ${w4} s, W=12 ${w12} s`);
});
