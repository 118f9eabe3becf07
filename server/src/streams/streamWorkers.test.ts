/**
 * A stream on two media workers (MEDIA_WORKERS=2): real FFmpeg, two real
 * mediasoup workers. Viewers are spread over the workers, each worker's
 * viewers reach it on its own port, one worker's restart closes only its
 * viewers, and a join while no worker has a router waits for one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../config';
import { resolveSource } from '../ingest/mediaFiles';
import { DEFAULT_ENCODE } from '../ingest/sourceSpec';
import { Limits } from '../limits/limits';
import { createDscpMarker, type DscpMarker } from '../net/dscpMarker';
import { localMediaWorkers } from '../sfu/localMediaWorker';
import type { MediaWorkerPool } from '../sfu/mediaWorkerPool';
import type { ViewerSession } from '../viewer/viewerSession';
import { Stream } from './stream';

const log = pino({ level: 'silent' });
const config = loadConfig({}, '.');

let pool: MediaWorkerPool;
let rtcPort: number;
let dscp: DscpMarker;
let stream: Stream;

before(async () => {
  ({ pool, rtcPort } = await localMediaWorkers(log, 2));
  dscp = await createDscpMarker({ instance: `test_${process.pid}`, udpPorts: { min: rtcPort, max: rtcPort + 1 }, log });
  stream = new Stream({
    id: 'w',
    name: 'test pattern',
    source: await resolveSource('lavfi:testsrc2=size=176x96:rate=30', []),
    encode: { ...DEFAULT_ENCODE, width: 160, height: 90, bitrateKbps: 200 },
    renditions: [],
    renditionPolicy: config.renditionPolicy,
    media: pool,
    keyframeMinGapMs: 1000,
    fanout: 'per-viewer',
    control: config.control,
    feedback: 'rtcp',
    dscp,
    limits: new Limits(config.limits),
    log,
  });
  await stream.start();
});

after(async () => {
  stream.close();
  pool.close();
  await dscp.close();
});

/** The UDP port of a viewer's ICE candidates: which worker serves it. */
async function mediaPort(v: ViewerSession): Promise<number> {
  const { iceCandidates } = await v.createTransport();
  const ports = new Set((iceCandidates as { port: number }[]).map((c) => c.port));
  assert.equal(ports.size, 1, 'UDP and TCP on the one port of the worker');
  return [...ports][0]!;
}

test('viewers go to the least loaded worker, each worker on its own port; a restart closes only its own viewers', async () => {
  const closed: string[] = [];
  const join = (id: string) => stream.addViewer(id, 'pels', () => closed.push(id));
  const [a, b, c] = [await join('a'), await join('b'), await join('c')];
  assert.deepEqual([await mediaPort(a), await mediaPort(b), await mediaPort(c)], [rtcPort, rtcPort + 1, rtcPort]);
  assert.deepEqual(pool.viewerCounts, [2, 1]);

  // b leaves: worker 1 is the emptier again, and the next viewer goes there.
  b.close();
  assert.deepEqual(pool.viewerCounts, [2, 0]);
  const d = await join('d');
  assert.equal(await mediaPort(d), rtcPort + 1);

  await stream.onMediaWorkerRestarted(1);
  assert.deepEqual(closed, ['b', 'd']);
  assert.equal(a.isClosed || c.isClosed, false);
  assert.deepEqual(pool.viewerCounts, [2, 0]);
  // A viewer joins the new router of the restarted worker.
  const e = await join('e');
  assert.equal(await mediaPort(e), rtcPort + 1);
  for (const v of [a, c, e]) v.close();
  assert.deepEqual(pool.viewerCounts, [0, 0]);
});

test('a join while every worker is being restarted waits for the first router back, rather than failing', async () => {
  // Both routers are being made again from here on: for a moment no worker has one.
  const restarts = [stream.onMediaWorkerRestarted(0), stream.onMediaWorkerRestarted(1)];
  const v = await stream.addViewer('f', 'pels', () => {});
  assert.equal(v.isClosed, false);
  assert.ok([rtcPort, rtcPort + 1].includes(await mediaPort(v)));
  await Promise.all(restarts);
  v.close();
  assert.deepEqual(pool.viewerCounts, [0, 0]);
});
