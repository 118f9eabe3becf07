import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UdpPacket } from '../pcap';
import { sequenceLoss, streamLosses } from './rtpLoss';

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => (from + i) & 0xffff);

test('a gap within the reordering threshold: the receiver reports it all lost', () => {
  const seqs = [...range(100, 120), ...range(150, 160)];
  assert.deepEqual(sequenceLoss(seqs), { received: 32, expected: 61, lost: 29, reportedLost: 29 });
});

test('a gap beyond the threshold followed by the next number reads as a restart: the receiver reports none of it', () => {
  const seqs = [...range(100, 120), ...range(700, 710)];
  assert.deepEqual(sequenceLoss(seqs), { received: 32, expected: 611, lost: 579, reportedLost: 0 });
  // Without NACK the threshold is 50: the same starved stream's 60-packet gap vanishes there too.
  assert.equal(sequenceLoss([...range(0, 9), ...range(70, 79)], 50).reportedLost, 0);
});

test('after a jump any two numbers in a row restart the count, whatever came between', () => {
  const seqs = [...range(100, 120), 700, ...range(705, 710)];
  assert.deepEqual(sequenceLoss(seqs), { received: 28, expected: 611, lost: 583, reportedLost: 0 });
});

test('sequence numbers wrap; a late packet fills its gap', () => {
  assert.deepEqual(sequenceLoss([...range(65530, 65535), ...range(0, 3), 5, 4]), { received: 12, expected: 12, lost: 0, reportedLost: 0 });
});

test('streams apart by SSRC, payload type and mark; RTCP and short packets left out', () => {
  const rtp = (ssrc: number, pt: number, seq: number): Buffer => {
    const b = Buffer.alloc(20);
    b[0] = 0x80;
    b[1] = pt;
    b.writeUInt16BE(seq, 2);
    b.writeUInt32BE(ssrc, 8);
    return b;
  };
  const udp = (tos: number, payload: Buffer): UdpPacket => ({ ipVersion: 4, tos, srcPort: 1, dstPort: 2, payload });
  const packets = [
    ...range(1, 12).map((s) => udp(38 << 2, rtp(7, 100, s))),
    ...range(1, 20).filter((s) => s % 2 === 0).map((s) => udp(38 << 2, rtp(9, 101, s))),
    udp(0, Buffer.from([0x80, 200, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7])),
  ];
  assert.deepEqual(
    streamLosses(packets).map(({ ssrc, payloadType, dscp, received, lost }) => ({ ssrc, payloadType, dscp, received, lost })),
    [
      { ssrc: 7, payloadType: 100, dscp: 38, received: 12, lost: 0 },
      { ssrc: 9, payloadType: 101, dscp: 38, received: 10, lost: 9 },
    ],
  );
});
