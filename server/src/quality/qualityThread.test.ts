import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { pino } from 'pino';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { ReferencePlane } from './qualityWorkerProtocol';
import type { ReferenceSource } from './referenceReader';
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

/** The test stands in for the reference reader thread: it posts the planes on the worker's reference port itself. */
class TestReference implements ReferenceSource {
  port: MessagePort | null = null;
  subscribe(deliver: (port: MessagePort, backlog: SharedArrayBuffer) => void): () => void {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    deliver(port2, new SharedArrayBuffer(4));
    return () => port1.close();
  }
  send(k: number, sentAt = Date.now()): void {
    const p = plane(k);
    this.port!.postMessage({ type: 'plane', run: 1, k, plane: p, sentAt } satisfies ReferencePlane, [p.buffer as ArrayBuffer]);
  }
}

test('planes that waited past the queue limit are dropped unscored and logged; a fresh frame is scored', async () => {
  const rows: QualityFrame[] = [];
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  const reference = new TestReference();
  const thread = new QualityThread((r) => rows.push(...r), reference, log, 1000);
  const frame = (k: number, sentAt?: number) => {
    thread.post({ type: 'frame', run: 1, pts: k, index: 100 + k });
    thread.post({ type: 'decoded', index: 100 + k, tid: 0, plane: plane(k) }, sentAt);
  };
  try {
    // A first frame: once it is scored the worker runs (a plane posted while it started waits from its start).
    reference.send(0);
    frame(0);
    await until(() => rows.length > 0, 20_000);
    // Past the limit since it started, too.
    await new Promise((r) => setTimeout(r, 1500));
    // Handed over 5 s ago: a worker that far behind drops them.
    const stale = Date.now() - 5000;
    for (let k = 1; k <= 5; k++) {
      reference.send(k, stale);
      frame(k, stale);
    }
    reference.send(6);
    frame(6);
    await until(() => rows.length > 1 && warnings.length > 0, 20_000);
    assert.deepEqual(rows.map((r) => r.index), [100, 106]);
    assert.equal(rows[1]!.psnr[0], 99, 'the frame scored against itself');
    assert.match((JSON.parse(warnings[0]!) as { msg: string }).msg, /quality measurement fell behind/);
  } finally {
    thread.close();
  }
});
