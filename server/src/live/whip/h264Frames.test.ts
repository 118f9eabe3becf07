import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ParsedRtpPacket } from '../../rtp/rtpPacket';
import { H264FrameAssembler } from './h264Frames';

const SPS = Buffer.from([0x67, 0x42, 0xe0, 0x1f]);
const PPS = Buffer.from([0x68, 0xce, 0x3c, 0x80]);
const IDR = Buffer.concat([Buffer.from([0x65]), Buffer.alloc(20, 7)]);
const SLICE = Buffer.from([0x41, 9, 9, 9]);

function pkt(seq: number, timestamp: number, payload: Buffer, marker = false): ParsedRtpPacket {
  return { payloadType: 102, sequenceNumber: seq & 0xffff, timestamp, ssrc: 1, marker, payload };
}

function stapA(...nals: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from([0x18]), ...nals.flatMap((n) => [Buffer.from([n.length >> 8, n.length & 0xff]), n])]);
}

/** The IDR in two FU-A fragments. */
function fuA(nal: Buffer): [Buffer, Buffer] {
  const indicator = (nal[0]! & 0xe0) | 28;
  const type = nal[0]! & 0x1f;
  const body = nal.subarray(1);
  const half = body.length >> 1;
  return [Buffer.concat([Buffer.from([indicator, 0x80 | type]), body.subarray(0, half)]), Buffer.concat([Buffer.from([indicator, 0x40 | type]), body.subarray(half)])];
}

const annexB = (...nals: Buffer[]) => Buffer.concat(nals.flatMap((n) => [Buffer.from([0, 0, 0, 1]), n]));

/** A keyframe (STAP-A of SPS and PPS, then the IDR in two fragments) at `seq`, three packets. */
function keyframe(seq: number, ts: number): ParsedRtpPacket[] {
  const [a, b] = fuA(IDR);
  return [pkt(seq, ts, stapA(SPS, PPS)), pkt(seq + 1, ts, a), pkt(seq + 2, ts, b, true)];
}

test('a keyframe and a delta frame come out whole in Annex B, in order, even with packets reordered', () => {
  const asm = new H264FrameAssembler();
  const [k0, k1, k2] = keyframe(100, 3000);
  assert.deepEqual(asm.push(k2!, 0), []);
  assert.deepEqual(asm.push(k0!, 1), []);
  const out = asm.push(k1!, 2);
  assert.equal(out.length, 1);
  assert.equal(out[0]!.keyframe, true);
  assert.deepEqual(out[0]!.data, annexB(SPS, PPS, IDR));
  const delta = asm.push(pkt(103, 6000, SLICE, true), 3);
  assert.deepEqual(delta.map((f) => [f.timestamp, f.keyframe, f.data]), [[6000, false, annexB(SLICE)]]);
  assert.equal(asm.needsKeyframe, false);
});

test('frames before the first keyframe are held back, and the keyframe is asked for', () => {
  const asm = new H264FrameAssembler();
  assert.deepEqual(asm.push(pkt(10, 1000, SLICE, true), 0), []);
  assert.equal(asm.needsKeyframe, true);
  assert.equal(asm.dropped, 1);
  const out = keyframe(11, 2000).flatMap((p) => asm.push(p, 1));
  assert.equal(out.length, 1);
  assert.equal(asm.needsKeyframe, false);
});

test('a retransmission that fills the gap in time keeps the frame; a frame still missing a packet after maxWaitMs is dropped and the next keyframe awaited', () => {
  const asm = new H264FrameAssembler(100);
  keyframe(0, 0).forEach((p) => asm.push(p, 0));
  // Frame 3000 lost its first packet; 6000 is complete behind it.
  const [a, b] = fuA(Buffer.concat([Buffer.from([0x41]), Buffer.alloc(10, 1)]));
  asm.push(pkt(4, 3000, b!, true), 10);
  assert.deepEqual(asm.push(pkt(5, 6000, SLICE, true), 20), []);
  const late = asm.push(pkt(3, 3000, a!), 50);
  assert.deepEqual(late.map((f) => f.timestamp), [3000, 6000]);

  asm.push(pkt(7, 9000, b!, true), 60);
  assert.deepEqual(asm.push(pkt(8, 12000, SLICE, true), 70), []);
  assert.deepEqual(asm.flush(200), []);
  assert.equal(asm.needsKeyframe, true);
  // A late packet of a dropped frame is ignored; delta frames wait for the keyframe.
  assert.deepEqual(asm.push(pkt(6, 9000, a!), 210), []);
  assert.deepEqual(asm.push(pkt(9, 15000, SLICE, true), 220), []);
  const k = keyframe(10, 18000).flatMap((p) => asm.push(p, 230));
  assert.deepEqual(k.map((f) => [f.timestamp, f.keyframe]), [[18000, true]]);
});

test('sequence numbers wrap past 65535', () => {
  const asm = new H264FrameAssembler();
  const out = [...keyframe(65534, 0), pkt(65537, 3000, SLICE, true)].flatMap((p) => asm.push(p, 0));
  assert.deepEqual(out.map((f) => f.timestamp), [0, 3000]);
});

test('unreadable payloads (STAP-A sizes past the end, a fragment with no start, STAP-B) drop the frame, never throw', () => {
  for (const bad of [Buffer.from([0x18, 0x00, 0x09, 0x67]), Buffer.from([0x7c, 0x45, 1, 2]), Buffer.from([0x19, 0, 0])]) {
    const asm = new H264FrameAssembler();
    keyframe(0, 0).forEach((p) => asm.push(p, 0));
    assert.deepEqual(asm.push(pkt(3, 3000, bad, true), 1), []);
    assert.equal(asm.needsKeyframe, true, bad.toString('hex'));
  }
});
