import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config';
import { BottleneckFeedbackHub } from '../feedback/bottleneckFeedbackHub';
import { Limits } from '../limits/limits';
import { AddressRateLimit } from '../limits/addressRateLimit';
import { PublishGate } from '../live/publishGate';
import { createLogger } from '../log';
import { ControlSettings } from '../operator/controlSettings';
import { DropWarning, noQualityDrops } from '../quality/dropWarning';
import { noDrops } from '../sfu/mediaWorker';
import type { Stream } from '../streams/stream';
import { StreamRegistry } from '../streams/streamRegistry';
import { MediasoupWorkers } from './mediasoupWorkers';
import { ServerMetrics } from './serverMetrics';

/** A stream with nothing but its quality drops: what /metrics reads of it. */
function stream(id: string) {
  const qualityDrops = noQualityDrops();
  const fake = {
    id,
    qualityDrops: () => qualityDrops,
    on: () => fake,
    operatorInfo: () => ({ state: 'running', framesIngested: 0, restarts: 0 }),
    audio: { packetsSent: 0 },
    keyframeCounts: () => ({ requests: { join: 0, pli: 0, switch: 0 }, forced: 0 }),
    layerKbps: () => null,
    viewerStates: () => [],
  };
  return { stream: fake as unknown as Stream, qualityDrops };
}

test('quality planes dropped unscored are counted by stream and where, and the count moves as planes are dropped', async () => {
  const config = loadConfig({}, '.');
  const streams = new StreamRegistry();
  const a = stream('a');
  streams.add(a.stream);
  const limit = new AddressRateLimit({ burst: 1, perMinute: 1 });
  const metrics = new ServerMetrics({
    streams,
    router: new BottleneckFeedbackHub(() => {}),
    control: new ControlSettings(config.control, () => {}),
    mediasoup: new MediasoupWorkers(),
    limits: new Limits(config.limits),
    dscp: { markedSsrcs: 0 },
    channelDrops: noDrops(),
    publish: new PublishGate({ live: () => ({}), stream: () => undefined, attempts: limit, keyFailures: limit }),
  });
  const dropped = async () => (await metrics.render()).text.split('\n').filter((l) => l.startsWith('pels_quality_planes_dropped_total{'));
  assert.deepEqual(await dropped(), ['pels_quality_planes_dropped_total{stream="a",at="reference reader"} 0', 'pels_quality_planes_dropped_total{stream="a",at="quality thread"} 0']);
  // As the stream's reader and quality thread note them where they warn.
  const log = createLogger('silent');
  new DropWarning(log, 'reference reader', {}, a.qualityDrops).note(270);
  const thread = new DropWarning(log, 'quality thread', {}, a.qualityDrops);
  thread.note(4);
  thread.note(6);
  assert.deepEqual(await dropped(), ['pels_quality_planes_dropped_total{stream="a",at="reference reader"} 270', 'pels_quality_planes_dropped_total{stream="a",at="quality thread"} 10']);
});
