/**
 * A viewer's keyframe requests against a real mediasoup worker: the receiver's
 * PLIs are real too, a consumer's keyframe request that mediasoup turns into
 * RTCP on the viewer's producers, as it does for a player's PLI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { types as ms } from 'mediasoup';
import { createDscpMarker, type DscpMarker } from '../net/dscpMarker';
import type { KeyframeReason } from '../streams/keyframeRequests';
import { frames, log, realMedia } from './realMediaForTests';
import { ViewerSession } from './viewerSession';

const env = realMedia();

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a viewer resumed before its transport connects asks for no keyframe yet (it would go nowhere), and for each PLI on green once its first keyframe went out; PLIs on yellow and red get synthetic keyframes, no request', async (t) => {
  const router = await env.media.createRouter();
  t.after(() => router.close());
  const reasons: KeyframeReason[] = [];
  const session = await ViewerSession.create(env.viewerOptions(router, 'v1', { stream: { onKeyframeRequest: (reason) => reasons.push(reason) } }));
  t.after(() => session.close());
  await session.createTransport();
  const consumed = await session.consume(router.rtpCapabilities as Parameters<ViewerSession['consume']>[0]);
  const producerOf = (color: string) => consumed.find((c) => c.color === color)!.producerId;
  assert.deepEqual([...reasons], []);
  await session.resume();
  // No DTLS peer here: the join's keyframe waits for the transport to connect (viewerKeyframes.test.ts).
  assert.deepEqual([...reasons], []);

  // The first keyframe goes out on green; a receiver of green then loses its base chain and sends a PLI.
  session.sendFrame([frames[0]!], Date.now());
  const receiver = await router.createDirectTransport();
  t.after(() => receiver.close());
  const green: ms.Consumer = await receiver.consume({ producerId: producerOf('green'), rtpCapabilities: router.rtpCapabilities });
  await green.requestKeyFrame();
  await until('a request for the PLI on green', () => reasons.includes('pli'));
  // The stream's answer: a keyframe (mediasoup stops asking once it has one).
  session.sendFrame([frames[0]!], Date.now());

  const synthetic = session.flow.counters.syntheticKeyframes;
  // A yellow frame gives the yellow stream something to ask a keyframe for.
  session.sendFrame([frames[2]!], Date.now());
  const yellow = await receiver.consume({ producerId: producerOf('yellow'), rtpCapabilities: router.rtpCapabilities });
  await yellow.requestKeyFrame();
  await until('a synthetic keyframe on yellow', () => session.flow.counters.syntheticKeyframes > synthetic);
  assert.deepEqual([...new Set(reasons)], ['pli']);
});

test("PELS consumes green and yellow with RTX where nftables can mark yellow's (repair not paying at first); without nftables green only, and the state says why", async (t) => {
  const router = await env.media.createRouter();
  t.after(() => router.close());
  const consumed = async (id: string, dscp: DscpMarker) => {
    const session = await ViewerSession.create(env.viewerOptions(router, id, { dscp }));
    t.after(() => session.close());
    await session.createTransport();
    await session.consume(router.rtpCapabilities as Parameters<ViewerSession['consume']>[0]);
    return session.state().rtx;
  };
  const off = await createDscpMarker({ instance: `test_off_${process.pid}`, udpPorts: { min: 1, max: 1 }, log, nftPath: '/nonexistent/nft' });
  const without = await consumed('v-off', off);
  assert.deepEqual(Object.keys(without.ssrcs), ['green']);
  assert.deepEqual(without.repaired, ['green']);
  assert.match(without.repairUnavailable ?? '', /without nftables .*nft not found/);
  if (!env.dscp.available) return t.skip('nftables is not usable here (needs root)');
  const gated = await consumed('v-on', env.dscp);
  assert.deepEqual(Object.keys(gated.ssrcs), ['green', 'yellow']);
  assert.deepEqual(gated.repaired, ['green']);
  assert.equal(gated.repairUnavailable, null);
});

test('a viewer that leaves while its last consumer is being made leaves no consumer and no kernel mark behind', async (t) => {
  const router = await env.media.createRouter();
  t.after(() => router.close());
  // The earlier tests' viewers are closed; their marks go in the background.
  await until('no SSRC marked', () => env.dscp.markedSsrcs === 0);
  const session = await ViewerSession.create(env.viewerOptions(router, 'v-leaves'));
  t.after(() => session.close());
  let live = 0;
  router.observer.on('newtransport', (transport) =>
    transport.observer.on('newconsumer', (consumer) => {
      live++;
      consumer.observer.once('close', () => live--);
      // The player's socket closes while mediasoup answers for the red consumer, the last of the three.
      if (consumer.appData.color === 'red') session.close('left');
    }),
  );
  await session.createTransport();
  await assert.rejects(session.consume(router.rtpCapabilities as Parameters<ViewerSession['consume']>[0]));
  await until('every consumer closed', () => live === 0);
  await until('its marks removed', () => env.dscp.markedSsrcs === 0);
});
