import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderFigure } from './svg';
import { formatTick, logTicks, niceDomain, niceTicks } from './ticks';

test('ticks fall on 1, 2, 5 steps and decades', () => {
  assert.deepEqual(niceTicks(0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(niceTicks(0, 2400), [0, 500, 1000, 1500, 2000]);
  assert.deepEqual(logTicks(1, 1000), [1, 10, 100, 1000]);
  assert.deepEqual(niceDomain(3, 97), [0, 100]);
  assert.equal(formatTick(0.30000000000000004), '0.3');
});

test('a figure has one panel per spec, axis labels, a legend entry per series, and escaped text', () => {
  const svg = renderFigure('A <title> & more', [
    { title: 'left', xLabel: 'time (s)', yLabel: 'rate', series: [{ name: 'F1', points: [[0, 1], [1, 2], [2, Number.NaN], [3, 4]] }, { name: 'model', points: [[0, 1]], style: 'dots' }] },
    { title: 'right', xLabel: 'H', yLabel: 'U', xLog: true, series: [{ name: 'U', points: [[1, 1], [1000, 0.01]] }], references: [{ y: 0.5, label: 'half' }] },
  ]);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /A &lt;title&gt; &amp; more/);
  for (const text of ['time (s)', 'rate', '>F1<', '>model<', '>U<', '>half<', '>1000<']) assert.ok(svg.includes(text), text);
  // The NaN breaks the line into two pieces: two move-to commands.
  const path = /<path d="([^"]+)"/.exec(svg)![1]!;
  assert.equal(path.split('M').length - 1, 2);
  assert.equal((svg.match(/<svg/g) ?? []).length, 1);
  assert.ok(svg.trimEnd().endsWith('</svg>'));
});
