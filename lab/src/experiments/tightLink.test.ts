import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tightLinkExperiment } from './tightLink';

const result = tightLinkExperiment.run({ seed: 1, short: true });
const intra = (controller: string, mbps: number) => result.summary.find((s) => s.controller === controller && s.bottleneckMbps === mbps)!;

test('five flows of one controller share the tight link about equally', () => {
  for (const s of result.summary) {
    assert.ok((s.jain as number) >= 0.9, `${s.controller} at ${s.bottleneckMbps} Mb/s: Jain ${s.jain}`);
    assert.ok((s.minOfShare as number) >= 0.6 && (s.maxOfShare as number) <= 1.5, `${s.controller} at ${s.bottleneckMbps} Mb/s: ${s.minOfShare}-${s.maxOfShare} of C/5`);
  }
});

test('smoothness at 2 Mb/s: fuzzy below TFRC below RAP (Table 1 ordering)', () => {
  assert.ok((intra('fuzzy', 2).sdMbps as number) < (intra('tfrc', 2).sdMbps as number));
  assert.ok((intra('rap', 2).sdMbps as number) > 1.3 * (intra('tfrc', 2).sdMbps as number));
});

test('against TFRC the delay-based fuzzy flows get less than the equal share', () => {
  const mixes = result.rows.filter((r) => r.part === 'inter');
  assert.ok(mixes.length > 0);
  for (const m of mixes) assert.ok((m.tfrcMeanMbps as number) > (m.fuzzyMeanMbps as number), `${m.mix} at ${m.bottleneckMbps} Mb/s`);
});

test('TFRC and fuzzy follow each capacity step within 5 s', () => {
  const steps = result.rows.filter((r) => r.part === 'tracking' && r.fromS !== 0 && (r.controller === 'tfrc' || r.controller === 'fuzzy'));
  assert.equal(steps.length, 8);
  for (const s of steps) assert.ok(s.settledAfterS !== null && (s.settledAfterS as number) <= 5, `${s.controller} at ${s.fromS} s: ${s.settledAfterS}`);
});
