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
import { rtpSsrc, startCapture, tcpdumpAvailable, type UdpPacket } from '../src/pcap';

type Hook = { pels?: { state: string; viewerId?: string; stats(): { packetsRecovered: number } } };


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
  return new Set(viewers.flatMap((v) => [...Object.values(v.ssrcs), ...Object.values(v.rtx.ssrcs)].filter((s): s is number => typeof s === 'number')));
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

/** Plays `mode`, drops 1 in 20 of the viewer's media packets, captures 4 s; the viewer's state and the RTP DSCPs by SSRC. */
async function captureUnderLoss(page: Page, mode: FlowModeName): Promise<{ viewer: ViewerState; dscpBySsrc: Map<number, Set<number>> }> {
  await page.goto(`/?mode=${mode}`);
  await page.waitForFunction(() => (window as unknown as Hook).pels?.state === 'playing', null, { timeout: 30_000 });
  const id = (await page.evaluate(() => (window as unknown as Hook).pels?.viewerId))!;
  const before = await viewerState(page, id);
  expect(before.mode).toBe(mode);
  expect(before.dscp, before.dscp.reason).toEqual({ enabled: true });

  const dir = mkdtempSync(join(tmpdir(), 'pels-rtx-'));
  const undo = dropIncoming(COLORS.map((c) => before.ssrcs[c]), 20);
  let packets: UdpPacket[];
  try {
    const capture = await startCapture({ iface: 'lo', file: join(dir, 'rtc.pcap'), filter: `udp and src port ${E2E_RTC_PORT}` });
    await page.waitForTimeout(4000);
    packets = await capture.stop();
  } finally {
    undo();
    rmSync(dir, { recursive: true, force: true });
  }
  const dscpBySsrc = new Map<number, Set<number>>();
  for (const p of packets) {
    const ssrc = p.ipVersion === 4 ? rtpSsrc(p.payload) : undefined;
    if (ssrc === undefined) continue;
    if (!dscpBySsrc.has(ssrc)) dscpBySsrc.set(ssrc, new Set());
    dscpBySsrc.get(ssrc)!.add(p.tos >> 2);
  }
  // Receiver reports and the server's stats poll bring the counters up to date.
  await expect.poll(async () => (await viewerState(page, id)).rtx.packetsSent, { timeout: 5000 }).toBeGreaterThan(0);
  const viewer = await viewerState(page, id);
  test.info().annotations.push({
    type: `${mode} under loss`,
    description: JSON.stringify({ rtx: viewer.rtx, ssrcs: viewer.ssrcs, dscp: Object.fromEntries([...dscpBySsrc].map(([s, d]) => [s, [...d]])) }),
  });
  return { viewer, dscpBySsrc };
}

test.beforeEach(() => {
  test.skip(process.getuid?.() !== 0, 'needs root: nftables marks DSCP and drops packets, tcpdump captures on lo');
  test.skip(!tcpdumpAvailable(), 'tcpdump is not installed');
});

test("PELS retransmits green only, and green's RTX stream leaves marked AF41 like green", async ({ page }) => {
  const { viewer, dscpBySsrc } = await captureUnderLoss(page, 'pels');
  const rtxGreen = viewer.rtx.ssrcs.green;
  expect(Object.keys(viewer.rtx.ssrcs)).toEqual(['green']);
  expect(rtxGreen).toBeGreaterThan(0);
  expect([...(dscpBySsrc.get(rtxGreen!) ?? [])], 'DSCP of the green RTX packets captured').toEqual([DSCP.green]);
  for (const c of COLORS) expect([...(dscpBySsrc.get(viewer.ssrcs[c]) ?? [])], `${c} DSCP`).toEqual([DSCP[c]]);
  // Yellow and red are lost for good: nothing else goes out to this viewer than the three streams and green's RTX.
  // All viewers share the one media port: leave out the packets of the suite's other viewers.
  const others = await otherViewersSsrcs(page, viewer.id);
  const ours = [...dscpBySsrc.keys()].filter((s) => !others.has(s));
  expect(ours.sort()).toEqual([...COLORS.map((c) => viewer.ssrcs[c]), rtxGreen!].sort());
  expect(viewer.rtx.nacksReceived).toBeGreaterThan(0);
  expect(viewer.rtx.bytesSent).toBeGreaterThan(0);
  const recovered = await page.evaluate(() => (window as unknown as Hook).pels!.stats().packetsRecovered);
  expect(recovered, 'packets the player got as retransmissions').toBeGreaterThan(0);
  const metrics = await (await page.request.get('/metrics', { headers: operatorHeaders() })).text();
  for (const name of ['pels_rtx_packets_sent_total', 'pels_rtx_bytes_sent_total', 'pels_nacks_received_total']) {
    expect(Number(new RegExp(`^${name}\\{stream="default"\\} (\\d+)$`, 'm').exec(metrics)?.[1]), name).toBeGreaterThan(0);
  }
});

test('nack retransmits every stream, all marked best effort; the operator cannot switch it to another mode', async ({ page }) => {
  const { viewer, dscpBySsrc } = await captureUnderLoss(page, 'nack');
  expect(Object.keys(viewer.rtx.ssrcs).sort()).toEqual([...COLORS].sort());
  const retransmitted = COLORS.filter((c: Color) => dscpBySsrc.has(viewer.rtx.ssrcs[c]!));
  expect(retransmitted.length, 'colors whose RTX packets were captured').toBeGreaterThan(1);
  for (const c of COLORS) {
    expect([...(dscpBySsrc.get(viewer.ssrcs[c]) ?? [])], `${c} DSCP`).toEqual([BEST_EFFORT_DSCP]);
    if (dscpBySsrc.has(viewer.rtx.ssrcs[c]!)) expect([...dscpBySsrc.get(viewer.rtx.ssrcs[c]!)!], `${c} RTX DSCP`).toEqual([BEST_EFFORT_DSCP]);
  }
  const res = await page.request.post(`/api/viewers/${viewer.id}/mode`, { headers: operatorHeaders(), data: { mode: 'pels' } });
  expect(res.status()).toBe(409);
  const { error } = (await res.json()) as { error: { code: string; message: string } };
  expect(error.code).toBe('invalid_state');
  expect(error.message).toMatch(/from nack: retransmission is set when the viewer starts consuming/);
  expect((await viewerState(page, viewer.id)).mode).toBe('nack');
});
