import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { rtpSsrc, startCapture, tcpdumpAvailable, type UdpPacket } from '../../../e2e/src/pcap';
import { createDscpMarker } from './dscpMarker';
import { tableOf } from './dscpTable';

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
const children: ChildProcess[] = [];

const tmp = mkdtempSync(join(tmpdir(), 'dscp-'));
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
  // A failed test may not have reached close().
  for (const name of used) spawnSync('nft', ['delete', 'table', tableOf(name, process.pid)], { stdio: 'ignore' });
});

/** What the kernel holds for a marker: its rule count and its map, SSRC -> DSCP (or 'drop'). */
interface TableView {
  rules: number;
  marks: Map<number, number | 'drop'>;
}

/** The table `inet <name>`, or null when it does not exist. */
function viewTable(table: string): TableView | null {
  const r = spawnSync('nft', ['-j', 'list', 'table', ...table.split(' ')], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  type Elem = [number, { goto?: { target: string }; drop?: null }];
  const doc = JSON.parse(r.stdout) as { nftables: { rule?: unknown; map?: { name: string; elem?: Elem[] } }[] };
  const map = doc.nftables.find((o) => o.map?.name === 'ssrc_dscp')?.map;
  assert.ok(map, `no ssrc_dscp map in ${r.stdout}`);
  const marks = new Map((map.elem ?? []).map(([ssrc, v]) => [ssrc, v.goto ? Number(/^dscp_(\d+)$/.exec(v.goto.target)?.[1]) : ('drop' as const)]));
  return { rules: doc.nftables.filter((o) => o.rule).length, marks };
}
const view = (instance: string): TableView | null => viewTable(tableOf(instance, process.pid));

/** An nft that logs each of its runs (one line each), and takes `slowSeconds` longer, before doing the real work. */
function countingNft(slowSeconds = 0): { path: string; runs: () => number } {
  const path = join(tmp, `nft-counting-${n++}`);
  const log = `${path}.log`;
  writeFileSync(log, '');
  writeFileSync(path, `#!/bin/sh\necho run >> ${log}\nsleep ${slowSeconds}\nexec ${nftBinary()} "$@"\n`);
  chmodSync(path, 0o755);
  return { path, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
}
const nftBinary = (): string => execFileSync('sh', ['-c', 'command -v nft'], { encoding: 'utf8' }).trim();

// The output rule, and the two rules (IPv4, IPv6) of each DSCP's chain.
const rulesFor = (dscps: number): number => 1 + 2 * dscps;

test('mark adds one map element per SSRC, remove and close take them away', { skip: kernelSkip }, async () => {
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log });
  assert.deepEqual(marker.status, { enabled: true });
  assert.deepEqual(view(instance), { rules: rulesFor(0), marks: new Map() });

  const a = await marker.mark([
    { ssrc: 0x11111111, dscp: 34 },
    { ssrc: 0xfffffffe, dscp: 36 },
  ]);
  const b = await marker.mark([{ ssrc: 0x22222222, dscp: 38 }]);
  assert.deepEqual(marker.status, { enabled: true });
  assert.equal(marker.markedSsrcs, 3);
  assert.deepEqual(view(instance), {
    rules: rulesFor(3),
    marks: new Map([
      [0x11111111, 34],
      [0xfffffffe, 36],
      [0x22222222, 38],
    ]),
  });

  await a.remove();
  await a.remove(); // idempotent
  assert.deepEqual(view(instance)!.marks, new Map([[0x22222222, 38]]));
  assert.equal(marker.markedSsrcs, 1);

  await marker.close();
  assert.equal(view(instance), null);
  assert.equal(marker.markedSsrcs, 0);
  await marker.close();
  await b.remove(); // the table is gone: nothing to do, no error
  await (await marker.mark([{ ssrc: 1, dscp: 34 }])).remove(); // closed: a no-op
  assert.equal(view(instance), null);
});

test('the table name carries the pid of the server process', { skip: kernelSkip }, async () => {
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log });
  const names = JSON.parse(execFileSync('nft', ['-j', 'list', 'tables'], { encoding: 'utf8' })) as { nftables: { table?: { name: string } }[] };
  assert.ok(names.nftables.some((o) => o.table?.name === `pels_${instance}_pid${process.pid}`));
  await marker.close();
});

test('changes made together go to the kernel in one nft run', { skip: kernelSkip }, async () => {
  const nft = countingNft(0.2);
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log, nftPath: nft.path });
  const atStart = nft.runs();
  const ssrcs = Array.from({ length: 10 }, (_, i) => 1000 + i);
  const markings = await Promise.all(ssrcs.map((ssrc) => marker.mark([{ ssrc, dscp: 34 }])));
  assert.equal(nft.runs() - atStart, 1, 'ten viewers marked in one tick: one nft run');
  assert.deepEqual([...view(instance)!.marks.keys()].sort(), ssrcs);

  await Promise.all(markings.slice(0, 5).map((m) => m.remove()));
  assert.equal(nft.runs() - atStart, 2, 'five removals in one tick: one nft run');
  assert.deepEqual([...view(instance)!.marks.keys()].sort(), ssrcs.slice(5));

  // Changes asked for while nft runs wait, and then go together.
  const first = marker.mark([{ ssrc: 1, dscp: 36 }]);
  while (nft.runs() - atStart < 3) await delay(5); // the first mark's nft runs (for 0.2 s at least)
  const later = await Promise.all([first, marker.mark([{ ssrc: 2, dscp: 36 }]), marker.mark([{ ssrc: 3, dscp: 36 }]), markings[5]!.remove()]);
  assert.equal(nft.runs() - atStart, 4, 'one run for the first mark, one for all that came while it ran');
  assert.deepEqual([...view(instance)!.marks.keys()].sort((x, y) => x - y), [1, 2, 3, ...ssrcs.slice(6)]);
  assert.equal(marker.markedSsrcs, 7);
  assert.equal(later.length, 4);
  await marker.close();
});

test('an invalid rule fails without throwing; a failed batch is reported to each of its callers', { skip: kernelSkip }, async () => {
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log });
  const bad = await marker.mark([{ ssrc: 2 ** 32, dscp: 34 }]);
  await bad.remove();
  assert.equal(marker.status.enabled, false);
  assert.match(marker.status.reason ?? '', /invalid rule/);
  assert.equal(view(instance)!.marks.size, 0);
  await marker.mark([{ ssrc: 7, dscp: 36 }]);
  assert.deepEqual(marker.status, { enabled: true });

  // The kernel refuses the batch (its table was deleted behind the server's back).
  execFileSync('nft', ['delete', 'table', tableOf(instance, process.pid)]);
  const failed = await Promise.all([8, 9, 10].map((ssrc) => marker.mark([{ ssrc, dscp: 34 }])));
  assert.equal(marker.status.enabled, false);
  assert.match(marker.status.reason ?? '', /^nftables: /);
  for (const m of failed) await m.remove(); // no-op markings
  await marker.close();
});

test('after a failed change the next one rewrites the whole map', { skip: kernelSkip }, async () => {
  const instance = unique();
  const table = tableOf(instance, process.pid);
  const marker = await createDscpMarker({ instance, udpPorts: ports, log });
  const a = await marker.mark([{ ssrc: 100, dscp: 34 }]);
  await marker.mark([{ ssrc: 200, dscp: 36 }]);
  // The kernel's map drifts from what the marker knows: deleting 100 fails (no such element).
  execFileSync('nft', ['delete', 'element', ...table.split(' '), 'ssrc_dscp', '{ 100 }']);
  execFileSync('nft', ['add', 'element', ...table.split(' '), 'ssrc_dscp', '{ 999 : goto dscp_34 }']);
  await a.remove();
  assert.deepEqual(view(instance)!.marks, new Map([[200, 36], [999, 34]]));
  await marker.mark([{ ssrc: 300, dscp: 38 }]);
  assert.deepEqual(marker.status, { enabled: true });
  assert.deepEqual(view(instance), { rules: rulesFor(3), marks: new Map([[200, 36], [300, 38]]) });
  assert.equal(marker.markedSsrcs, 2);
  await marker.close();
});

test('a mode switch is one change: the newer marking wins, removing the older one changes nothing', { skip: kernelSkip }, async () => {
  const nft = countingNft();
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log, nftPath: nft.path });
  const ssrcs = [0x0a000001, 0x0a000002, 0x0a000003];
  const pels = await marker.mark(ssrcs.map((ssrc, i) => ({ ssrc, dscp: 34 + 2 * i })));
  const atSwitch = nft.runs();
  const bestEffort = await marker.mark(ssrcs.map((ssrc) => ({ ssrc, dscp: 0 })));
  assert.equal(nft.runs() - atSwitch, 1);
  assert.deepEqual(view(instance)!.marks, new Map(ssrcs.map((s) => [s, 0])));
  await pels.remove();
  assert.equal(nft.runs() - atSwitch, 1, 'the older marking is no longer in the kernel: no nft run');
  assert.deepEqual(view(instance)!.marks, new Map(ssrcs.map((s) => [s, 0])));
  // And back: the newer one again wins, and removing the last one empties the map.
  const pelsAgain = await marker.mark(ssrcs.map((ssrc) => ({ ssrc, dscp: 34 })));
  await bestEffort.remove();
  assert.deepEqual(view(instance)!.marks, new Map(ssrcs.map((s) => [s, 34])));
  await pelsAgain.remove();
  assert.deepEqual(view(instance)!.marks, new Map());
  assert.equal(marker.markedSsrcs, 0);
  await marker.close();
});

test('500 viewers (1500 SSRCs): the rules stay the same few, in a handful of nft runs', { skip: kernelSkip }, async () => {
  const nft = countingNft();
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log, nftPath: nft.path });
  const atStart = nft.runs();
  const viewers = Array.from({ length: 500 }, (_, v) => [34, 36, 38].map((dscp, i) => ({ ssrc: 0x10000000 + 3 * v + i, dscp })));
  const markings = await Promise.all(viewers.map((rules) => marker.mark(rules)));
  assert.deepEqual(marker.status, { enabled: true });
  const full = view(instance)!;
  assert.equal(full.rules, rulesFor(3));
  assert.equal(full.marks.size, 1500);
  assert.equal(full.marks.get(0x10000000 + 3 * 499 + 2), 38);
  assert.equal(marker.markedSsrcs, 1500);
  await Promise.all(markings.map((m) => m.remove()));
  assert.deepEqual(view(instance), { rules: rulesFor(3), marks: new Map() });
  assert.equal(marker.markedSsrcs, 0);
  assert.equal(nft.runs() - atStart, 2, 'one run to mark them all, one to remove them all');
  await marker.close();
});

test('close() as viewers leave: the table goes in one nft run, their removals are not waited for', { skip: kernelSkip }, async () => {
  const nft = countingNft();
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log, nftPath: nft.path });
  const markings = await Promise.all(Array.from({ length: 50 }, (_, v) => marker.mark([{ ssrc: 0x30000000 + v, dscp: 34 }])));
  const beforeStop = nft.runs();
  // A server stopping: every viewer closes (not awaited), then the marker.
  const removals = markings.map((m) => m.remove());
  await marker.close();
  assert.equal(nft.runs() - beforeStop, 1, 'one nft run: the table deleted');
  assert.equal(view(instance), null);
  await Promise.all(removals);
  assert.equal(nft.runs() - beforeStop, 1);
});

test('a new marker for the same instance removes what a crashed run left', { skip: kernelSkip }, async () => {
  const name = unique();
  const instance = name.toUpperCase().replace('_', '-').replace(/_(?=\d+$)/, '.'); // TEST-<pid>.<n>, sanitized to the table name
  const crashed = await createDscpMarker({ instance, udpPorts: ports, log });
  await crashed.mark([{ ssrc: 42, dscp: 34 }]);
  assert.equal(view(name)!.marks.size, 1);
  // No close(): the process "died". A restart starts from a clean table.
  const fresh = await createDscpMarker({ instance, udpPorts: ports, log });
  assert.deepEqual(view(name), { rules: rulesFor(0), marks: new Map() });
  await fresh.mark([{ ssrc: 43, dscp: 36 }]);
  assert.deepEqual([...view(name)!.marks.keys()], [43]);
  await fresh.close();
  assert.equal(view(name), null);
});

/** A separate process that creates a marker for `instance`, marks one SSRC and waits; resolves with its table. */
async function markerProcess(instance: string): Promise<{ child: ChildProcess; table: string }> {
  const script =
    `import { pino } from 'pino'; import { createDscpMarker } from ${JSON.stringify(join(import.meta.dirname, 'dscpMarker.ts'))};` +
    `const m = await createDscpMarker({ instance: ${JSON.stringify(instance)}, udpPorts: { min: 40000, max: 49999 }, log: pino({ level: 'silent' }) });` +
    `await m.mark([{ ssrc: 5, dscp: 34 }]); console.log(m.status.enabled ? 'ready' : m.status.reason); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: import.meta.dirname, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
  assert.equal(line.trim(), 'ready');
  return { child, table: tableOf(instance, child.pid!) };
}

test('a start removes the tables of instances no longer running, and leaves live ones alone', { skip: kernelSkip }, async () => {
  const killed = await markerProcess(unique());
  const live = await markerProcess(unique());
  killed.child.kill('SIGKILL'); // no chance to clean up
  await once(killed.child, 'exit');
  assert.equal(viewTable(killed.table)!.marks.size, 1, 'a kill -9 leaves the table behind');

  const marker = await createDscpMarker({ instance: unique(), udpPorts: ports, log });
  assert.equal(viewTable(killed.table), null, 'the dead instance’s table is gone');
  assert.deepEqual(viewTable(live.table)!.marks, new Map([[5, 34]]), 'the live instance’s table is untouched');
  await marker.close();
  live.child.kill('SIGKILL');
  await once(live.child, 'exit');
  spawnSync('nft', ['delete', 'table', ...live.table.split(' ')], { stdio: 'ignore' });
});

test('without nft, the marker is disabled with a reason and mark() is a no-op', async () => {
  const marker = await createDscpMarker({ instance: unique(), udpPorts: ports, log, nftPath: '/nonexistent/nft' });
  assert.equal(marker.status.enabled, false);
  assert.match(marker.status.reason ?? '', /^nftables: nft not found at \/nonexistent\/nft/);
  const m = await marker.mark([{ ssrc: 1, dscp: 34 }]);
  await m.remove();
  assert.equal(marker.markedSsrcs, 0);
  await marker.close();
});

test('without CAP_NET_ADMIN, the marker is disabled and says how to fix it', { skip: kernelSkip }, async () => {
  // nft as user nobody: the permission error of a server not run as root.
  const wrapper = join(tmp, 'nft-nobody');
  writeFileSync(wrapper, `#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups ${nftBinary()} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: ports, log, nftPath: wrapper });
  assert.equal(marker.status.enabled, false);
  assert.match(marker.status.reason ?? '', /Operation not permitted.*CAP_NET_ADMIN/);
  await (await marker.mark([{ ssrc: 1, dscp: 34 }])).remove();
  await marker.close();
  assert.equal(view(instance), null);
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

test('real packets sent across mode switches all carry one of the two DSCPs, none goes unmarked', { skip: packetSkip }, async () => {
  const receiver = await bound('udp4', '127.0.0.1');
  const rtc = await bound('udp4', '127.0.0.1');
  const dstPort = receiver.address().port;
  const rtcPort = rtc.address().port;
  const marker = await createDscpMarker({ instance: unique(), udpPorts: { min: rtcPort, max: rtcPort }, log });
  const SSRC = 0x0a0b0c11;
  const file = join(tmp, 'switch.pcap');
  let packets: UdpPacket[];
  try {
    let marking = await marker.mark([{ ssrc: SSRC, dscp: 34 }]);
    const capture = await startCapture({ iface: 'lo', file, filter: `udp dst port ${dstPort}` });
    // Packets leave all the time, also while nft changes the map.
    let sending = true;
    let seq = 0;
    const sender = (async () => {
      while (sending) {
        await send(rtc, rtp(SSRC, seq++ & 0xffff), dstPort, '127.0.0.1');
        await new Promise((r) => setImmediate(r)); // a send's callback comes on nextTick: let nft's I/O in
      }
    })();
    for (let i = 1; i <= 20; i++) {
      const next = await marker.mark([{ ssrc: SSRC, dscp: i % 2 ? 38 : 34 }]);
      await marking.remove();
      marking = next;
    }
    sending = false;
    await sender;
    packets = await capture.stop();
  } finally {
    await marker.close();
    for (const s of [receiver, rtc]) s.close();
  }
  const tos = packets.filter((p) => rtpSsrc(p.payload) === SSRC).map((p) => p.tos);
  assert.ok(tos.length > 100, `${tos.length} packets captured`);
  assert.deepEqual(new Set(tos), new Set([34 << 2, 38 << 2]));
});

test('a dropped SSRC sends nothing (the sender is told EPERM); removing the drop lets it out with its DSCP again', { skip: packetSkip }, async () => {
  const receiver = await bound('udp4', '127.0.0.1');
  const rtc = await bound('udp4', '127.0.0.1');
  const dstPort = receiver.address().port;
  const rtcPort = rtc.address().port;
  const instance = unique();
  const marker = await createDscpMarker({ instance, udpPorts: { min: rtcPort, max: rtcPort }, log });
  const RTX = 0x0a0b0c21;
  const file = join(tmp, 'drop.pcap');
  let packets: UdpPacket[];
  try {
    await marker.mark([{ ssrc: RTX, dscp: 36 }]);
    const gate = await marker.mark([{ ssrc: RTX, dscp: 'drop' }]);
    assert.equal(view(instance)!.marks.get(RTX), 'drop');
    const capture = await startCapture({ iface: 'lo', file, filter: `udp dst port ${dstPort}`, count: 1 });
    await assert.rejects(send(rtc, rtp(RTX, 1), dstPort, '127.0.0.1'), /EPERM/);
    await gate.remove();
    await send(rtc, rtp(RTX, 2), dstPort, '127.0.0.1');
    await Promise.race([capture.exited, delay(5000, undefined, { ref: false })]);
    packets = await capture.stop();
  } finally {
    await marker.close();
    for (const s of [receiver, rtc]) s.close();
  }
  assert.deepEqual(
    packets.map((p) => [p.payload.readUInt16BE(2), p.tos]),
    [[2, 36 << 2]],
  );
});
