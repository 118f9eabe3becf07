import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { QualityThread } from './qualityThread';

function plane(seed: number): Uint8Array {
  return new Uint8Array(64 * 36).map((_, i) => (i * 7 + seed) & 0xff);
}

async function until(pred: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('planes that waited past the queue limit are dropped unscored and logged; a fresh frame is scored', async () => {
  const rows: QualityFrame[] = [];
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  const thread = new QualityThread((r) => rows.push(...r), log, 1000);
  try {
    // A first frame: once it is scored the worker runs (a plane posted while it started waits from its start).
    thread.post({ type: 'source', index: 0, plane: plane(0) });
    thread.post({ type: 'decoded', index: 0, tid: 0, plane: plane(0) });
    await until(() => rows.length > 0, 20_000);
    // Past the limit since it started, too.
    await new Promise((r) => setTimeout(r, 1500));
    // Handed over 5 s ago: a worker that far behind drops them.
    const stale = Date.now() - 5000;
    for (let i = 1; i <= 5; i++) {
      thread.post({ type: 'source', index: i, plane: plane(i) }, stale);
      thread.post({ type: 'decoded', index: i, tid: 0, plane: plane(i) }, stale);
    }
    thread.post({ type: 'source', index: 6, plane: plane(6) });
    thread.post({ type: 'decoded', index: 6, tid: 0, plane: plane(6) });
    await until(() => rows.length > 1 && warnings.length > 0, 20_000);
    assert.deepEqual(rows.map((r) => r.index), [0, 6]);
    assert.equal(rows[1]!.psnr[0], 99, 'the frame scored against itself');
    assert.match((JSON.parse(warnings[0]!) as { msg: string }).msg, /quality measurement fell behind/);
  } finally {
    thread.close();
  }
});
