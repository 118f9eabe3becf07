import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ViewerState } from '@pels/shared/protocol/api';
import { viewersToExport } from './viewerSeries';

const viewer = (id: string, second: number) => ({ id, connectedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString() }) as ViewerState;

test('keeps the longest-connected viewers up to the limit and counts the rest', () => {
  const viewers = [viewer('c', 3), viewer('a', 1), viewer('d', 3), viewer('b', 2), viewer('e', 4)];
  const { kept, omitted } = viewersToExport(viewers, 3);
  assert.deepEqual(kept.map((v) => v.id), ['a', 'b', 'c']);
  assert.equal(omitted, 2);
  assert.deepEqual(viewersToExport(viewers.slice(0, 2), 3), { kept: [viewers[1], viewers[0]], omitted: 0 });
});
