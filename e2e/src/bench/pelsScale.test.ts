import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestbedResult } from '../testbed/testbed';
import { pelsScaleRow } from './pelsScale';

test('a pels-scale row: rates against C/N + alpha/beta, sent against rate, drops over what arrived at each class', () => {
  const result = {
    config: {},
    jain: 0.99,
    viewers: [
      { id: 's1', rateKbps: 640, sentKbps: 660, gamma: 0.2, errors: [] },
      { id: 's2', rateKbps: 320, sentKbps: 300, gamma: 0.4, errors: [] },
      { id: 's3', errors: ['the server never sent this viewer its state'] },
    ],
    router: {
      capacityKbps: 1800,
      capacitySteps: [],
      feedbackDeliveryErrors: 0,
      classes: {},
      secondHalf: { green: { sent: 100, dropped: 0 }, yellow: { sent: 90, dropped: 10 }, red: { sent: 0, dropped: 0 } },
    },
    cpuPercentOfOneCore: {},
  } as unknown as TestbedResult;
  const row = pelsScaleRow(3, 1, result, [1, 2]);
  assert.equal(row.capacityKbps, 1800);
  assert.equal(row.stationaryKbps, 640); // 1800 / 3 + 20 / 0.5
  assert.deepEqual(row.rateRatio, { mean: 0.75, min: 0.5, max: 1 });
  assert.equal(row.sentOverRate, 1);
  assert.deepEqual(row.routerLoss, { green: 0, yellow: 0.1, red: null });
  assert.equal(row.gammaMean, 0.3);
  assert.equal(row.joined, 0);
});
