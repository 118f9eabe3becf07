import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cellOptions, formatLossTable, LOSS_DEFAULTS, mostWatched, parseLossFlags, type LossRow } from './lossResilience';

test('loss flags: defaults, subsets, and a clear error naming the bad flag', () => {
  assert.deepEqual(parseLossFlags({}), LOSS_DEFAULTS);
  assert.deepEqual(parseLossFlags({ seconds: '10', loss: '10', links: 'open', modes: 'pels' }), { ...LOSS_DEFAULTS, seconds: 10, lossPct: [10], links: ['open'], modes: ['pels'] });
  assert.deepEqual(parseLossFlags({ links: 'fifo, pels', modes: 'stock,nack', runs: '3', 'bottleneck-kbps': '800' }), { ...LOSS_DEFAULTS, links: ['fifo', 'pels'], modes: ['stock', 'nack'], runs: 3, bottleneckKbps: 800 });
  assert.throws(() => parseLossFlags({ links: 'open,lossy' }), /--links: each value must be one of open, pels, fifo; got "lossy"/);
  assert.throws(() => parseLossFlags({ modes: 'pels,' }), /--modes: .* got ""/);
  assert.throws(() => parseLossFlags({ loss: '5,x' }), /--loss: each value must be a number in \[0, 50\]; got "x"/);
  assert.throws(() => parseLossFlags({ runs: '1.5' }), /--runs: each value must be an integer/);
  assert.throws(() => parseLossFlags({ seconds: '5' }), /--seconds: .* \[10, 3600\]/);
});

test('cells: the open link keeps the mode\'s router, a bottleneck names its own; stock is nack on the shared fan-out', () => {
  const o = { seconds: 40, bottleneckKbps: 1200 };
  const open = cellOptions('open', 'pels', 10, o);
  assert.equal(open.capacityKbps, 2000);
  assert.equal(open.router, undefined);
  assert.equal(open.lossPct, 10);
  const fifo = cellOptions('fifo', 'pels', 5, o);
  assert.deepEqual([fifo.capacityKbps, fifo.router, fifo.mode, fifo.serverEnv], [1200, 'fifo', 'pels', undefined]);
  const stock = cellOptions('pels', 'stock', 0, o);
  assert.deepEqual([stock.router, stock.mode, stock.serverEnv], ['pels', 'nack', { FANOUT: 'shared' }]);
});

test('the rendition watched most: the longest time, none when nothing was timed', () => {
  assert.equal(mostWatched([1000, 5000, 200]), 1);
  assert.equal(mostWatched([3000, 3000]), 0);
  assert.equal(mostWatched([0, 0]), null);
  assert.equal(mostWatched([]), null);
});

test('the table: one row a run, estimates against the router\'s drops, dashes where nothing was measured', () => {
  const r: LossRow = {
    lossPct: 10, link: 'open', capacityKbps: 2000, router: 'pels', mode: 'pels', run: 1,
    fps: 20.04, psnrMean: 27.5, psnrP5: 20, scoredShare: 0.98, freezesPerMinute: 4, rtxOverheadPct: 9.2, pliSent: 1,
    firstFrameMs: 3500, joinToFirstFrameMs: 640, timeToFullRateMs: null, rendition: 0, rateKbps: 812.4, sentKbps: 790,
    congestion: { congestion: 0.012, wireLoss: 0.1, diagnosis: { clear: 0.1, 'wire-loss': 0.85, congestion: 0.05 }, samples: 20 },
    queueDropRate: 0, loadAverage: [1.5, 2], errors: [],
  };
  const [head, rule, line] = formatLossTable([r, { ...r, congestion: null, queueDropRate: null, rendition: null }]);
  assert.equal(head!.split('|').length, rule!.split('|').length);
  assert.equal(line, '| 10% | open 2000 | pels | pels | 1 | 20.0 | 27.5 | 20.0 | 98% | 4.0 | 9.2% | 1 | 640 | never | 0 | 812 | 790 | 1.2% | 10.0% | 10% / 85% / 5% | 0.0% | 1.5, 2 |');
  assert.match(formatLossTable([{ ...r, congestion: null, queueDropRate: null }])[2]!, /\| - \| - \| - \| - \| 1\.5, 2 \|$/);
});
