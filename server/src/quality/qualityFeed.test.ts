import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QualityBatch, QualityFrame } from '@pels/shared/protocol/signaling';
import { QualityFeed } from './qualityFeed';

const row = (index: number): QualityFrame => ({ index, tid: 0, crc: index, psnr: [30] });

test('subscribers at the same row get one batch object (serialized once for all), a newer one its own backlog, each row once', async (t) => {
  const feed = new QualityFeed({ windowFrames: 100, backlogFrames: 2, intervalMs: 20 });
  t.after(() => feed.close());
  const got: Record<string, QualityBatch[]> = { a: [], b: [], c: [] };
  feed.subscribe((batch) => got.a!.push(batch));
  feed.subscribe((batch) => got.b!.push(batch));
  feed.add([row(0), row(1), row(2), row(3)]);
  await new Promise((r) => setTimeout(r, 60));
  // c joins at row 3: its backlog starts 2 rows back.
  feed.subscribe((batch) => got.c!.push(batch));
  feed.add([row(4), row(5)]);
  await new Promise((r) => setTimeout(r, 60));
  const rows = (bs: QualityBatch[]) => bs.flatMap((b) => b.frames.map((f) => f.index));
  assert.deepEqual(rows(got.a!), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(rows(got.b!), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(rows(got.c!), [2, 3, 4, 5]);
  assert.equal(got.a!.length, 2);
  got.a!.forEach((batch, i) => assert.equal(batch, got.b![i], `batch ${i} is the same object`));
  assert.notEqual(got.c![0], got.a![1], 'a subscriber at another row gets its own batch');
});
