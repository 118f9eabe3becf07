import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameEntryTimes } from './frameEntryTimes';

test("quality rows get their frames' times where known; the oldest times leave past the bound", () => {
  const t = new FrameEntryTimes(2);
  t.note(1, { ingestMs: 1000, encodedMs: 1040 });
  t.note(2, { ingestMs: 1033, encodedMs: 1073 });
  t.note(3, { ingestMs: 1066, encodedMs: 1100, captureMs: 1010 });
  const rows = t.stamp([
    { index: 1, tid: 0, crc: 0, psnr: [] },
    { index: 3, tid: 1, crc: 5, psnr: [30], rendition: 1 },
  ]);
  assert.deepEqual(rows, [
    { index: 1, tid: 0, crc: 0, psnr: [] },
    { index: 3, tid: 1, crc: 5, psnr: [30], rendition: 1, ingestMs: 1066, encodedMs: 1100, captureMs: 1010 },
  ]);
});
