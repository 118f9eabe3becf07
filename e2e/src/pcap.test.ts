import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readPcapUdp, rtpSsrc, startCapture, tcpdumpAvailable } from './pcap';

/** An IPv4/UDP packet with the given TOS. */
function ipv4Udp(tos: number, src: number, dst: number, payload: Buffer): Buffer {
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip[1] = tos;
  ip.writeUInt16BE(20 + 8 + payload.length, 2);
  ip[8] = 64;
  ip[9] = 17;
  return Buffer.concat([ip, udp(src, dst, payload)]);
}

function ipv6Udp(tclass: number, src: number, dst: number, payload: Buffer): Buffer {
  const ip = Buffer.alloc(40);
  ip.writeUInt32BE((6 << 28) | (tclass << 20), 0);
  ip.writeUInt16BE(8 + payload.length, 4);
  ip[6] = 17;
  ip[7] = 64;
  return Buffer.concat([ip, udp(src, dst, payload)]);
}

function udp(src: number, dst: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16BE(src, 0);
  h.writeUInt16BE(dst, 2);
  h.writeUInt16BE(8 + payload.length, 4);
  return Buffer.concat([h, payload]);
}

function pcap(linkType: number, frames: Buffer[], le = true): Buffer {
  const w32 = (b: Buffer, v: number, o: number): number => (le ? b.writeUInt32LE(v, o) : b.writeUInt32BE(v, o));
  const head = Buffer.alloc(24);
  w32(head, 0xa1b2c3d4, 0);
  (le ? head.writeUInt16LE.bind(head) : head.writeUInt16BE.bind(head))(2, 4);
  (le ? head.writeUInt16LE.bind(head) : head.writeUInt16BE.bind(head))(4, 6);
  w32(head, 262144, 16);
  w32(head, linkType, 20);
  const records = frames.map((f) => {
    const r = Buffer.alloc(16);
    w32(r, f.length, 8);
    w32(r, f.length, 12);
    return Buffer.concat([r, f]);
  });
  return Buffer.concat([head, ...records]);
}

const ether = (type: number): Buffer => {
  const b = Buffer.alloc(14);
  b.writeUInt16BE(type, 12);
  return b;
};
const sll = (type: number): Buffer => {
  const b = Buffer.alloc(16);
  b.writeUInt16BE(type, 14);
  return b;
};
const sll2 = (type: number): Buffer => {
  const b = Buffer.alloc(20);
  b.writeUInt16BE(type, 0);
  return b;
};

const rtp = (ssrc: number): Buffer => {
  const b = Buffer.alloc(12);
  b[0] = 0x80;
  b[1] = 96;
  b.writeUInt32BE(ssrc, 8);
  return b;
};

test('reads IPv4 and IPv6 UDP from every link type tcpdump writes on Linux, either byte order', () => {
  const v4 = ipv4Udp(34 << 2, 40000, 5000, rtp(0xdeadbeef));
  const v6 = ipv6Udp(38 << 2, 40001, 5001, rtp(7));
  const expected = [
    { ipVersion: 4, tos: 136, srcPort: 40000, dstPort: 5000, ssrc: 0xdeadbeef },
    { ipVersion: 6, tos: 152, srcPort: 40001, dstPort: 5001, ssrc: 7 },
  ];
  const cases: [string, Buffer][] = [
    ['EN10MB', pcap(1, [Buffer.concat([ether(0x0800), v4]), Buffer.concat([ether(0x0806), Buffer.alloc(28)]), Buffer.concat([ether(0x86dd), v6])])],
    ['EN10MB big-endian', pcap(1, [Buffer.concat([ether(0x0800), v4]), Buffer.concat([ether(0x86dd), v6])], false)],
    ['LINUX_SLL', pcap(113, [Buffer.concat([sll(0x0800), v4]), Buffer.concat([sll(0x86dd), v6])])],
    ['LINUX_SLL2', pcap(276, [Buffer.concat([sll2(0x0800), v4]), Buffer.concat([sll2(0x86dd), v6])])],
    ['NULL', pcap(0, [Buffer.concat([Buffer.from([2, 0, 0, 0]), v4]), Buffer.concat([Buffer.from([10, 0, 0, 0]), v6])])],
  ];
  for (const [name, file] of cases) {
    const got = readPcapUdp(file).map(({ payload, ...p }) => ({ ...p, ssrc: rtpSsrc(payload) }));
    assert.deepEqual(got, expected, name);
  }
});

test('skips what is not UDP, stops at a truncated record, rejects pcapng', () => {
  const tcp = ipv4Udp(0, 1, 2, Buffer.alloc(0));
  tcp[9] = 6;
  const good = Buffer.concat([ether(0x0800), ipv4Udp(0, 1, 2, Buffer.from('hi'))]);
  const file = pcap(1, [Buffer.concat([ether(0x0800), tcp]), good, good]);
  const got = readPcapUdp(file.subarray(0, file.length - 3));
  assert.equal(got.length, 1);
  assert.equal(got[0]!.payload.toString(), 'hi');
  assert.throws(() => readPcapUdp(Buffer.from('0a0d0d0a' + '00'.repeat(24), 'hex')), /pcapng/);
  assert.throws(() => readPcapUdp(Buffer.alloc(24)), /bad magic/);
});

test('rtpSsrc reads RTP only: not RTCP, not other versions', () => {
  assert.equal(rtpSsrc(rtp(42)), 42);
  const rtcp = rtp(42);
  rtcp[1] = 201;
  assert.equal(rtpSsrc(rtcp), undefined);
  const stun = rtp(42);
  stun[0] = 0x00;
  assert.equal(rtpSsrc(stun), undefined);
  assert.equal(rtpSsrc(Buffer.alloc(11, 0x80)), undefined);
});

const skip = process.getuid?.() !== 0 ? 'needs root to capture' : tcpdumpAvailable() ? undefined : 'tcpdump is not installed';

test('reads what tcpdump captures on lo and on any', { skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcap-'));
  const rx = createSocket('udp4').bind(0, '127.0.0.1');
  const tx = createSocket('udp4').bind(0, '127.0.0.1');
  await Promise.all([once(rx, 'listening'), once(tx, 'listening')]);
  try {
    for (const iface of ['lo', 'any']) {
      const port = rx.address().port;
      const capture = await startCapture({ iface, file: join(dir, `${iface}.pcap`), filter: `udp dst port ${port}`, count: 2 });
      for (const ssrc of [1, 2]) await new Promise<void>((r) => tx.send(rtp(ssrc), port, '127.0.0.1', () => r()));
      await capture.exited;
      const got = await capture.stop();
      assert.deepEqual(
        got.map((p) => [p.srcPort, p.dstPort, p.tos, rtpSsrc(p.payload)]),
        [1, 2].map((ssrc) => [tx.address().port, port, 0, ssrc]),
        iface,
      );
    }
  } finally {
    rx.close();
    tx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
