/**
 * Retransmission (NACK + RTX) on the wire: which streams are retransmitted in
 * each mode, and the DSCP their retransmissions carry. Retransmissions need
 * loss: an nftables rule drops a share of the viewer's RTP packets on their
 * way into the browser (after the capture on lo has seen them).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { BEST_EFFORT_DSCP, COLORS, DSCP, type Color } from '@pels/shared/pels/color';
import type { FlowModeName, ViewerState } from '@pels/shared/protocol/api';
import { E2E_RTC_PORT } from '../src/e2ePorts';
import { operatorHeaders } from '../src/operatorToken';
import { serverDscpTables } from '../src/dscpTables';
import { rtpSsrc, startCapture, tcpdumpAvailable, type UdpPacket } from '../src/pcap';



async function viewerState(page: Page, id: string): Promise<ViewerState> {
  const res = await page.request.get('/api/viewers', { headers: operatorHeaders() });
  expect(res.ok()).toBe(true);
  const v = ((await res.json()) as { viewers: ViewerState[] }).viewers.find((x) => x.id === id);
  expect(v, `viewer ${id} in /api/viewers`).toBeDefined();
  return v!;
}

/** The stream and RTX SSRCs of every viewer but this one. */
async function otherViewersSsrcs(page: Page, id: string): Promise<Set<number>> {
  const res = await page.request.get('/api/viewers', { headers: operatorHeaders() });
  const viewers = ((await res.json()) as { viewers: ViewerState[] }).viewers.filter((v) => v.id !== id);
  const sound = (v: ViewerState) => (v.audio ? [v.audio.ssrc, v.audio.rtxSsrc] : []);
  return new Set(viewers.flatMap((v) => [...Object.values(v.ssrcs), ...Object.values(v.rtx.ssrcs), ...sound(v)].filter((s): s is number => typeof s === 'number')));
}

/** Drops about 1 in `oneIn` RTP packets of these SSRCs as they arrive at the browser; returns the undo. */
function dropIncoming(ssrcs: number[], oneIn: number): () => void {
  const table = `inet pels_e2e_loss_${process.pid}`;
  execFileSync('nft', ['-f', '-'], {
    input:
      `table ${table} {\n  chain input {\n    type filter hook input priority 0; policy accept;\n` +
      `    udp sport ${E2E_RTC_PORT} @th,64,2 2 @th,72,8 != 192-223 @th,128,32 { ${ssrcs.join(', ')} } numgen random mod ${oneIn} 0 drop\n  }\n}\n`,
  });
  return () => execFileSync('nft', ['delete', 'table', ...table.split(' ')]);
}

/** Plays `mode`; the viewer's state once playing. */
async function play(page: Page, mode: FlowModeName): Promise<ViewerState> {
  await page.goto(`/?mode=${mode}`);
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  const viewer = await viewerState(page, (await page.evaluate(() => window.pels?.viewerId))!);
  expect(viewer.mode).toBe(mode);
  expect(viewer.dscp, viewer.dscp.reason).toEqual({ enabled: true });
  return viewer;
}

/**
 * Drops 1 in 20 of the viewer's media packets; once `ready` resolves captures 4 s.
 * The RTP DSCPs by SSRC, and the viewer's state before and after the capture.
 */
async function captureUnderLoss(page: Page, viewer: ViewerState, ready: () => Promise<void> = async () => {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pels-rtx-'));
  const undo = dropIncoming(COLORS.map((c) => viewer.ssrcs[c]), 20);
  let packets: UdpPacket[];
  let before: ViewerState;
  try {
    await ready();
    before = await viewerState(page, viewer.id);
    const capture = await startCapture({ iface: 'lo', file: join(dir, 'rtc.pcap'), filter: `udp and src port ${E2E_RTC_PORT}` });
    await page.waitForTimeout(4000);
    packets = await capture.stop();
  } finally {
    undo();
    rmSync(dir, { recursive: true, force: true });
  }
  const dscpBySsrc = new Map<number, Set<number>>();
  const packetsBySsrc = new Map<number, number>();
  for (const p of packets) {
    const ssrc = p.ipVersion === 4 ? rtpSsrc(p.payload) : undefined;
    if (ssrc === undefined) continue;
    if (!dscpBySsrc.has(ssrc)) dscpBySsrc.set(ssrc, new Set());
    dscpBySsrc.get(ssrc)!.add(p.tos >> 2);
    packetsBySsrc.set(ssrc, (packetsBySsrc.get(ssrc) ?? 0) + 1);
  }
  // Receiver reports and the server's stats poll bring the counters up to date.
  await expect.poll(async () => (await viewerState(page, viewer.id)).rtx.packetsSent, { timeout: 5000 }).toBeGreaterThan(0);
  const after = await viewerState(page, viewer.id);
  test.info().annotations.push({
    type: `${viewer.mode} under loss`,
    description: JSON.stringify({
      rtx: after.rtx,
      before: before.rtx,
      congestion: after.congestion,
      ssrcs: after.ssrcs,
      dscp: Object.fromEntries([...dscpBySsrc].map(([s, d]) => [s, [...d]])),
      packets: Object.fromEntries(packetsBySsrc),
    }),
  });
  return { before, after, dscpBySsrc };
}

/** The DSCP (or 'drop', which nothing asks for now) the server's nftables map gives each of the viewer's streams and RTX streams. */
function kernelMarks(page: Page, v: ViewerState): Record<string, number | 'drop' | undefined> {
  const [table] = serverDscpTables(Number(new URL(page.url()).port));
  const streams = [...Object.entries(v.ssrcs), ...Object.entries(v.rtx.ssrcs).map(([color, ssrc]) => [`${color} rtx`, ssrc] as const)];
  return Object.fromEntries(streams.map(([name, ssrc]) => [name, table?.marks.get(ssrc!)]));
}

test.beforeEach(() => {
  test.skip(process.getuid?.() !== 0, 'needs root: nftables marks DSCP and drops packets, tcpdump captures on lo');
  test.skip(!tcpdumpAvailable(), 'tcpdump is not installed');
});

test("PELS repairs green always (RTX marked AF41), yellow once the loss reads as wire loss with room, red never; yellow's RTX always leaves marked AF43 (held back, not dropped: see rtxGate.ts)", async ({ page }) => {
  const viewer = await play(page, 'pels');
  // Green and yellow are consumed with RTX (red never: repairPolicy.ts); at the start only green's are repaired.
  expect(Object.keys(viewer.rtx.ssrcs).sort()).toEqual(['green', 'yellow']);
  expect(viewer.rtx.repaired).toEqual(['green']);
  expect(kernelMarks(page, viewer)).toEqual({ ...DSCP, 'green rtx': DSCP.green, 'yellow rtx': DSCP.red });

  // Loss on every color alike and no queue: wire loss; the rate starts at its ceiling here, above what is sent.
  const { before, after, dscpBySsrc } = await captureUnderLoss(page, viewer, () =>
    expect.poll(async () => (await viewerState(page, viewer.id)).rtx.repaired, { timeout: 30_000 }).toContain('yellow'),
  );
  // The diagnosis when yellow was repaired, under the loss: `after` is read once the loss has stopped, and a CI run read
  // 'congestion' there.
  expect(before.congestion.diagnosis, `the loss read as wire loss when yellow was repaired; after it: ${after.congestion.diagnosis}`).toBe('wire-loss');
  const rtx = after.rtx.ssrcs;
  for (const c of COLORS) {
    expect([...(dscpBySsrc.get(viewer.ssrcs[c]) ?? [])], `${c} DSCP`).toEqual([DSCP[c]]);
    // Green's retransmissions leave as green; yellow's and red's as red, first to drop should a queue build.
    if (dscpBySsrc.has(rtx[c]!)) expect([...dscpBySsrc.get(rtx[c]!)!], `${c} RTX DSCP`).toEqual([c === 'green' ? DSCP.green : DSCP.red]);
  }
  expect(dscpBySsrc.has(rtx.green!), 'green RTX captured').toBe(true);
  expect(dscpBySsrc.has(rtx.yellow!), 'yellow RTX captured').toBe(true);
  // Nothing else goes out to this viewer than its three streams, their RTX streams and its sound (the default stream
  // has a sound track, marked green). All viewers share the one media port: leave out the packets of the suite's
  // other viewers (their sound included).
  const others = await otherViewersSsrcs(page, viewer.id);
  const ours = [...dscpBySsrc.keys()].filter((s) => !others.has(s));
  expect(after.audio, 'the default stream has sound').not.toBeNull();
  const known = [...Object.values(viewer.ssrcs), ...Object.values(rtx), after.audio!.ssrc, after.audio!.rtxSsrc];
  expect(ours.filter((s) => !known.includes(s)), 'streams to this viewer besides its video, RTX and sound').toEqual([]);
  expect([...(dscpBySsrc.get(after.audio!.ssrc) ?? [])], 'the sound marked green').toEqual([DSCP.green]);
  expect(after.rtx.nacksReceived).toBeGreaterThan(0);
  expect(after.rtx.bytesSent).toBeGreaterThan(0);
  const recovered = await page.evaluate(() => window.pels!.stats().packetsRecovered);
  expect(recovered, 'packets the player got as retransmissions').toBeGreaterThan(0);
  const metrics = await (await page.request.get('/metrics', { headers: operatorHeaders() })).text();
  for (const name of ['pels_rtx_packets_sent_total', 'pels_rtx_bytes_sent_total', 'pels_nacks_received_total']) {
    expect(Number(new RegExp(`^${name}\\{stream="default"\\} (\\d+)$`, 'm').exec(metrics)?.[1]), name).toBeGreaterThan(0);
  }
});

test('nack retransmits every stream, all marked best effort; switched to PELS, yellow and red are held back again', async ({ page }) => {
  const viewer = await play(page, 'nack');
  const { dscpBySsrc } = await captureUnderLoss(page, viewer);
  const rtx = viewer.rtx.ssrcs;
  expect(Object.keys(rtx).sort()).toEqual([...COLORS].sort());
  expect(viewer.rtx.repaired).toEqual([...COLORS]);
  const retransmitted = COLORS.filter((c: Color) => dscpBySsrc.has(rtx[c]!));
  expect(retransmitted.length, 'colors whose RTX packets were captured').toBeGreaterThan(1);
  for (const c of COLORS) {
    expect([...(dscpBySsrc.get(viewer.ssrcs[c]) ?? [])], `${c} DSCP`).toEqual([BEST_EFFORT_DSCP]);
    if (dscpBySsrc.has(rtx[c]!)) expect([...dscpBySsrc.get(rtx[c]!)!], `${c} RTX DSCP`).toEqual([BEST_EFFORT_DSCP]);
  }
  // Consumed with RTX on every color, and nftables can drop what PELS does not repair: the switch is allowed.
  const res = await page.request.post(`/api/viewers/${viewer.id}/mode`, { headers: operatorHeaders(), data: { mode: 'pels' } });
  expect(res.status()).toBe(200);
  const switched = (await res.json()) as { viewer: ViewerState };
  expect(switched.viewer.mode).toBe('pels');
  // A mode starts with repair closed.
  expect(switched.viewer.rtx.repaired).toEqual(['green']);
  expect(kernelMarks(page, viewer)).toEqual({ ...DSCP, 'green rtx': DSCP.green, 'yellow rtx': DSCP.red, 'red rtx': DSCP.red });
});
