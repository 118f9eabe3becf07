import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRtcpFeedback } from './rtcp';

function pli(sender: number, media: number): Buffer {
  const b = Buffer.alloc(12);
  b[0] = 0x81; b[1] = 206; b.writeUInt16BE(2, 2); b.writeUInt32BE(sender, 4); b.writeUInt32BE(media, 8);
  return b;
}
function rr(reporter: number, block: { ssrc: number; fraction: number; lost: number; highest: number }): Buffer {
  const b = Buffer.alloc(32);
  b[0] = 0x81; b[1] = 201; b.writeUInt16BE(7, 2); b.writeUInt32BE(reporter, 4);
  b.writeUInt32BE(block.ssrc, 8); b[12] = block.fraction; b.writeUIntBE(block.lost & 0xffffff, 13, 3); b.writeUInt32BE(block.highest, 16);
  return b;
}
function nack(media: number, pid: number, blp: number): Buffer {
  const b = Buffer.alloc(16);
  b[0] = 0x81; b[1] = 205; b.writeUInt16BE(3, 2); b.writeUInt32BE(1, 4); b.writeUInt32BE(media, 8); b.writeUInt16BE(pid, 12); b.writeUInt16BE(blp, 14);
  return b;
}

test('reads PLI, receiver report and NACK from one compound packet', () => {
  const out = parseRtcpFeedback(Buffer.concat([rr(9, { ssrc: 42, fraction: 64, lost: 17, highest: 70000 }), pli(9, 42), nack(42, 0xffff, 0b101)]));
  assert.deepEqual(out, [
    { type: 'rr', reports: [{ ssrc: 42, fractionLost: 0.25, cumulativeLost: 17, extendedHighestSequence: 70000, jitter: 0 }] },
    { type: 'pli', mediaSsrc: 42 },
    { type: 'nack', mediaSsrc: 42, lostSequenceNumbers: [0xffff, 0, 2] },
  ]);
});

test('negative cumulative loss (duplicates) is sign-extended', () => {
  const [r] = parseRtcpFeedback(rr(9, { ssrc: 1, fraction: 0, lost: -3, highest: 5 }));
  assert.equal(r?.type === 'rr' && r.reports[0]!.cumulativeLost, -3);
});

test('malformed or truncated data never throws', () => {
  assert.deepEqual(parseRtcpFeedback(Buffer.from([0x81, 206, 0, 9, 1, 2])), []);
  assert.deepEqual(parseRtcpFeedback(Buffer.alloc(0)), []);
  assert.deepEqual(parseRtcpFeedback(Buffer.from([0x00, 0, 0, 0])), []);
});
