/**
 * FANOUT=shared against a real mediasoup worker: viewers consume the stream's
 * one set of producers, a frame is packetized once whatever the number of
 * viewers, and a PLI on green becomes a keyframe request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COLORS } from '@pels/shared/pels/color';
import type { KeyframeReason } from '../streams/keyframeRequests';
import { SharedFanout } from './sharedFanout';
import { frames, realMedia } from './realMediaForTests';
import { ViewerSession } from './viewerSession';

const env = realMedia();

test('shared fan-out: every viewer consumes the same three producers, each frame is packetized once, a PLI on green asks for a keyframe', async (t) => {
  const router = await env.media.createRouter();
  t.after(() => router.close());
  const reasons: KeyframeReason[] = [];
  const fanout = await SharedFanout.create(router, 's', (r) => reasons.push(r), env.pacerClock);
  const transportsBefore = (await router.dump()).transportIds.length;
  const viewers = await Promise.all(
    ['v1', 'v2'].map((id) =>
      ViewerSession.create(env.viewerOptions(router, id, { stream: { fanout } })),
    ),
  );
  t.after(() => viewers.forEach((v) => v.close()));
  // No transport of their own until the WebRTC one.
  assert.equal((await router.dump()).transportIds.length, transportsBefore);
  for (const v of viewers) {
    await v.createTransport();
    const consumed = await v.consume(router.rtpCapabilities as Parameters<ViewerSession['consume']>[0]);
    assert.deepEqual(
      consumed.map((c) => [c.color, c.producerId]),
      COLORS.map((c) => [c, fanout.producers[c].id]),
    );
    assert.equal(v.flow, fanout.flow);
  }
  for (const f of frames.slice(0, 8)) fanout.sendFrame(f, Date.now());
  assert.deepEqual(fanout.flow.counters.framesByLayer, [2, 2, 4]);

  const receiver = await router.createDirectTransport();
  t.after(() => receiver.close());
  const green = await receiver.consume({ producerId: fanout.producers.green.id, rtpCapabilities: router.rtpCapabilities });
  await green.requestKeyFrame();
  const deadline = Date.now() + 5000;
  while (!reasons.includes('pli') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(reasons, ['pli']);
});
