import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Color } from '@pels/shared/pels/color';
import type { KeyframeReason } from '../streams/keyframeRequests';
import { ViewerKeyframes } from './viewerKeyframes';

const ssrcs: Record<Color, number> = { green: 11, yellow: 22, red: 33 };

/** A PLI (RFC 4585: PSFB, FMT 1) from the player for `mediaSsrc`. */
function pliPacket(mediaSsrc: number): Buffer {
  const b = Buffer.from([0x81, 206, 0, 2, 0, 0, 0, 9, 0, 0, 0, 0]);
  b.writeUInt32BE(mediaSsrc, 8);
  return b;
}

function keyframes(sending = true, transport = { connected: true }) {
  const requests: KeyframeReason[] = [];
  const synthetic: Color[] = [];
  const k = new ViewerKeyframes({
    ssrcs,
    request: (r) => requests.push(r),
    sendSynthetic: (c) => synthetic.push(c),
    sending: () => sending,
    connected: () => transport.connected,
    closed: () => false,
  });
  return { k, requests, synthetic };
}

test("a PLI on green asks the encoder once the join's keyframe went out, not before", () => {
  const { k, requests } = keyframes();
  k.join();
  k.onRtcp(pliPacket(ssrcs.green));
  assert.deepEqual(requests, ['join']);
  k.sent('green', true);
  k.onRtcp(pliPacket(ssrcs.green));
  assert.deepEqual(requests, ['join', 'pli']);
});

test('PLIs on yellow and red get synthetic keyframes, at most one per burst; a resumed consumer gets one at once', () => {
  const { k, requests, synthetic } = keyframes();
  k.onRtcp(pliPacket(ssrcs.yellow));
  k.onRtcp(pliPacket(ssrcs.yellow));
  k.onRtcp(pliPacket(ssrcs.red));
  assert.deepEqual(synthetic, ['yellow', 'red']);
  k.resumed('yellow');
  assert.deepEqual(synthetic, ['yellow', 'red', 'yellow']);
  assert.deepEqual(requests, []);
});

test("a join before the transport connected asks for its keyframe when it connects, once; a later connect asks nothing", () => {
  const transport = { connected: false };
  const { k, requests } = keyframes(true, transport);
  k.join();
  assert.deepEqual(requests, []);
  transport.connected = true;
  k.transportConnected();
  assert.deepEqual(requests, ['join']);
  k.transportConnected();
  assert.deepEqual(requests, ['join']);
});
