import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { rtpSsrc, startCapture, tcpdumpAvailable, type UdpPacket } from '../../../e2e/src/pcap';
import { createDscpMarker } from './dscpMarker';

const log = pino({ level: 'silent' });
const ports = { min: 40000, max: 49999 };

// These tests change the real kernel's nftables, in tables of their own.
const kernelSkip =
  process.getuid?.() !== 0
    ? 'needs root (CAP_NET_ADMIN) to change nftables'
    : spawnSync('nft', ['list', 'tables'], { stdio: 'ignore' }).status !== 0
      ? 'nft is not installed or not usable'
      : undefined;
const packetSkip = kernelSkip ?? (tcpdumpAvailable() ? undefined : 'tcpdump is not installed');

let n = 0;
const used: string[] = [];
/** An instance name no running server or other test uses. */
const unique = (): string => {
  used.push(`test_${process.pid}_${n++}`);
  return used[used.length - 1]!;
};

const tmp = mkdtempSync(join(tmpdir(), 'dscp-'));
after(() => {
  rmSync(tmp, { recursive: true, force: true });
  // A failed test may not have reached close().
  for (const name of used) spawnSync('nft', ['delete', 'table', 'inet', `pels_${name}`], { stdio: 'ignore' });
});

interface NftRule {
  handle: number;
  comment?: string;
  expr: unknown[];
}

/** The rules of `inet pels_<instance>`, or null when the table does not exist. */
function listRules(instance: string): NftRule[] | null {
  const r = spawnSync('nft', ['-j', 'list', 'table', 'inet', `pels_${instance}`], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const doc = JSON.parse(r.stdout) as { nftables: { rule?: NftRule }[] };
  return doc.nftables.flatMap((o) => (o.rule ? [o.rule] : []));
}

/** SSRC → DSCPs set for it, from the rules' JSON. */
function marks(rules: NftRule[]): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (const r of rules) {
    const json = JSON.stringify(r.expr);
    const ssrc = /"base":"th","offset":128,"len":32}},"right":(\d+)/.exec(json)?.[1];
    const dscp = /"field":"dscp"}},"value":"?(\w+)/.exec(json)?.[1];
    assert.ok(ssrc && dscp, `unexpected rule ${json}`);
    m.set(Number(ssrc), [...(m.get(Number(ssrc)) ?? []), DSCP_NAMES[dscp] ?? Number(dscp)]);
  }
  return m;
}
// nft -j prints well-known code points by name.
const DSCP_NAMES: Record<string, number> = { af41: 34, af42: 36, af43: 38, cs0: 0 };

test('mark adds an IPv4 and an IPv6 rule per SSRC, remove and close take them away', { skip: kernelSkip }, async () => {
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log });
  assert.deepEqual(marker.status, { enabled: true });
  assert.deepEqual(listRules(instance), []);

  const a = await marker.mark([
    { ssrc: 0x11111111, dscp: 34 },
    { ssrc: 0xfffffffe, dscp: 36 },
  ]);
  const b = await marker.mark([{ ssrc: 0x22222222, dscp: 38 }]);
  assert.deepEqual(marker.status, { enabled: true });
  assert.deepEqual(
    marks(listRules(instance)!),
    new Map([
      [0x11111111, [34, 34]],
      [0xfffffffe, [36, 36]],
      [0x22222222, [38, 38]],
    ]),
  );

  await a.remove();
  await a.remove(); // idempotent
  assert.deepEqual(marks(listRules(instance)!), new Map([[0x22222222, [38, 38]]]));

  await marker.close();
  assert.equal(listRules(instance), null);
  await marker.close();
  await b.remove(); // the table is gone: nothing to do, no error
  await (await marker.mark([{ ssrc: 1, dscp: 34 }])).remove(); // closed: a no-op
  assert.equal(listRules(instance), null);
});

test('concurrent marks do not race; an invalid rule fails without throwing', { skip: kernelSkip }, async () => {
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log });
  const ssrcs = Array.from({ length: 10 }, (_, i) => 1000 + i);
  const markings = await Promise.all(ssrcs.map((ssrc) => marker.mark([{ ssrc, dscp: 34 }])));
  assert.equal(listRules(instance)!.length, 20);
  await Promise.all(markings.slice(0, 5).map((m) => m.remove()));
  assert.deepEqual([...marks(listRules(instance)!).keys()].sort(), ssrcs.slice(5));

  const bad = await marker.mark([{ ssrc: 2 ** 32, dscp: 34 }]);
  await bad.remove();
  assert.equal(marker.status.enabled, false);
  assert.match(marker.status.reason ?? '', /invalid rule/);
  await marker.mark([{ ssrc: 7, dscp: 36 }]);
  assert.deepEqual(marker.status, { enabled: true });
  await marker.close();
});

test('a new marker for the same instance removes what a crashed run left', { skip: kernelSkip }, async () => {
  const table = unique();
  const instance = table.toUpperCase().replace('_', '-').replace(/_(?=\d+$)/, '.'); // TEST-<pid>.<n>, sanitized to the table name
  const crashed = await createDscpMarker({ instance, udpPorts: ports, log });
  await crashed.mark([{ ssrc: 42, dscp: 34 }]);
  assert.equal(listRules(table)!.length, 2);
  // No close(): the process "died". A restart starts from a clean table.
  const fresh = await createDscpMarker({ instance, udpPorts: ports, log });
  assert.deepEqual(listRules(table), []);
  await fresh.mark([{ ssrc: 43, dscp: 36 }]);
  assert.deepEqual([...marks(listRules(table)!).keys()], [43]);
  await fresh.close();
  assert.equal(listRules(table), null);
});

test('without nft, the marker is disabled with a reason and mark() is a no-op', async () => {
  const marker = await createDscpMarker({ instance: unique(), udpPorts: ports, log, nftPath: '/nonexistent/nft' });
  assert.equal(marker.status.enabled, false);
  assert.match(marker.status.reason ?? '', /^nftables: nft not found at \/nonexistent\/nft/);
  const m = await marker.mark([{ ssrc: 1, dscp: 34 }]);
  await m.remove();
  await marker.close();
});

test('without CAP_NET_ADMIN, the marker is disabled and says how to fix it', { skip: kernelSkip }, async () => {
  // nft as user nobody: the permission error of a server not run as root.
  const wrapper = join(tmp, 'nft-nobody');
  const nft = execFileSync('sh', ['-c', 'command -v nft'], { encoding: 'utf8' }).trim();
  writeFileSync(wrapper, `#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups ${nft} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log, nftPath: wrapper });
  assert.equal(marker.status.enabled, false);
  assert.match(marker.status.reason ?? '', /Operation not permitted.*CAP_NET_ADMIN/);
  await (await marker.mark([{ ssrc: 1, dscp: 34 }])).remove();
  await marker.close();
  assert.equal(listRules(instance), null);
});

/** A datagram shaped like RTP: version 2, payload type 96, the given SSRC. */
function rtp(ssrc: number, seq: number): Buffer {
  const b = Buffer.alloc(12 + 20);
  b[0] = 0x80;
  b[1] = 96;
  b.writeUInt16BE(seq, 2);
  b.writeUInt32BE(ssrc, 8);
  return b;
}

/** An RTCP receiver report about `ssrc`: it too has that SSRC at offset 8 (its report block). */
function rtcpReport(ssrc: number): Buffer {
  const b = Buffer.alloc(32);
  b[0] = 0x81;
  b[1] = 201;
  b.writeUInt16BE(7, 2);
  b.writeUInt32BE(0x12345678, 4);
  b.writeUInt32BE(ssrc, 8);
  return b;
}

async function bound(type: 'udp4' | 'udp6', address: string): Promise<Socket> {
  const s = createSocket(type);
  s.bind(0, address);
  await once(s, 'listening');
  return s;
}

async function send(s: Socket, data: Buffer, port: number, address: string): Promise<void> {
  await new Promise<void>((resolve, reject) => s.send(data, port, address, (e) => (e ? reject(e) : resolve())));
}

for (const [type, address] of [
  ['udp4', '127.0.0.1'],
  ['udp6', '::1'],
] as const) {
  test(`real ${type} packets leave with the DSCP of their SSRC, only from the RTC ports`, { skip: packetSkip }, async () => {
    const receiver = await bound(type, address);
    const rtc = await bound(type, address); // stands in for mediasoup: its port is the RTC range
    const other = await bound(type, address); // another process's socket, outside the range
    const dstPort = receiver.address().port;
    const rtcPort = rtc.address().port;
    const marker = await createDscpMarker({ instance: unique(), udpPorts: { min: rtcPort, max: rtcPort }, log });
    const GREEN = 0x0a0b0c01, RED = 0x0a0b0c03, UNMARKED = 0x0a0b0c09;
    await marker.mark([
      { ssrc: GREEN, dscp: 34 },
      { ssrc: RED, dscp: 38 },
    ]);
    const sends: [Socket, number][] = [
      [rtc, GREEN],
      [rtc, RED],
      [rtc, UNMARKED],
      [other, GREEN],
    ];
    const perKind = 3;
    const otherPort = other.address().port;
    const file = join(tmp, `${type}.pcap`);
    let packets: UdpPacket[];
    try {
      const capture = await startCapture({ iface: 'lo', file, filter: `udp dst port ${dstPort}`, count: (sends.length + 1) * perKind });
      for (let i = 0; i < perKind; i++) {
        for (const [s, ssrc] of sends) await send(s, rtp(ssrc, i), dstPort, address);
        await send(rtc, rtcpReport(GREEN), dstPort, address);
      }
      await Promise.race([capture.exited, delay(5000, undefined, { ref: false })]); // all captured, or give up
      packets = await capture.stop();
    } finally {
      await marker.close();
      for (const s of [receiver, rtc, other]) s.close();
    }
    assert.equal(packets.length, (sends.length + 1) * perKind);
    const tos = (src: number, ssrc: number): number[] =>
      packets.filter((p) => p.srcPort === src && rtpSsrc(p.payload) === ssrc).map((p) => p.tos);
    assert.ok(packets.every((p) => p.ipVersion === (type === 'udp4' ? 4 : 6)));
    assert.deepEqual(tos(rtcPort, GREEN), [34 << 2, 34 << 2, 34 << 2]);
    assert.deepEqual(tos(rtcPort, RED), [38 << 2, 38 << 2, 38 << 2]);
    assert.deepEqual(tos(rtcPort, UNMARKED), [0, 0, 0]);
    assert.deepEqual(tos(otherPort, GREEN), [0, 0, 0]);
    const rtcp = packets.filter((p) => p.payload[1] === 201).map((p) => p.tos);
    assert.deepEqual(rtcp, [0, 0, 0], 'RTCP about a marked SSRC is not marked');
  });
}
