import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rtpHeaderExtension, writeRtpPacket } from '../../rtp/rtpPacket';
import { CaptureClock } from './captureClock';

/** abs-capture-time's value for epoch ms `ms`. */
function absCaptureTime(ms: number): Buffer {
  const b = Buffer.alloc(8);
  const s = ms / 1000 + 2_208_988_800;
  b.writeUInt32BE(Math.floor(s), 0);
  b.writeUInt32BE(Math.round((s % 1) * 2 ** 32), 4);
  return b;
}

/** An RTP packet with a one-byte-form header extension block: mid (id 1) and abs-capture-time (id `id`). */
function packetWith(id: number, value: Buffer): Buffer {
  const rtp = writeRtpPacket({ payloadType: 102, sequenceNumber: 1, timestamp: 90, ssrc: 7, marker: true }, [Buffer.from([1, 2, 3])]);
  const elements = Buffer.concat([Buffer.from([0x10, 0x30]), Buffer.from([(id << 4) | (value.length - 1)]), value]);
  const padded = Buffer.concat([elements, Buffer.alloc((4 - (elements.length % 4)) % 4)]);
  const header = Buffer.alloc(4);
  header.writeUInt16BE(0xbede, 0);
  header.writeUInt16BE(padded.length / 4, 2);
  const out = Buffer.concat([rtp.subarray(0, 12), header, padded, rtp.subarray(12)]);
  out[0] = out[0]! | 0x10;
  return out;
}

test("a frame's capture time: the last abs-capture-time written, moved by the RTP timestamps since (forward, back, across the 32-bit wrap)", () => {
  const now = 1_795_000_000_123.5;
  const packet = packetWith(10, absCaptureTime(now));
  assert.equal(rtpHeaderExtension(packet, 10)?.length, 8);
  assert.equal(rtpHeaderExtension(packet, 1)?.[0], 0x30);
  assert.equal(rtpHeaderExtension(packet, 3), undefined);
  const clock = new CaptureClock(90000);
  assert.equal(clock.captureMs(1000), undefined, 'none written yet');
  clock.note(2 ** 32 - 900, rtpHeaderExtension(packet, 10));
  assert.ok(Math.abs(clock.captureMs(2 ** 32 - 900)! - now) < 0.01);
  assert.ok(Math.abs(clock.captureMs(2100)! - (now + 33.333)) < 0.01, 'across the wrap');
  assert.ok(Math.abs(clock.captureMs(2 ** 32 - 3900)! - (now - 33.333)) < 0.01);
});
