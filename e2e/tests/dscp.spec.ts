import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { COLORS, DSCP } from '@pels/shared/pels/color';
import type { ViewerState } from '@pels/shared/protocol/api';
import { serverDscpTables } from '../src/dscpTables';
import { E2E_RTC_PORT } from '../src/e2ePorts';
import { E2E_OPERATOR_TOKEN, operatorHeaders } from '../src/operatorToken';
import { rtpSsrc, startCapture, tcpdumpAvailable, type UdpPacket } from '../src/pcap';
import { startServer } from '../src/serverProcess';



test('every packet of each color stream leaves the server with its color DSCP (AF41/AF42/AF43)', async ({ page }) => {
  test.skip(process.getuid?.() !== 0, 'needs root: the server marks DSCP with nftables, and tcpdump captures on lo');
  test.skip(!tcpdumpAvailable(), 'tcpdump is not installed');

  await page.goto('/');
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  const viewerId = await page.evaluate(() => window.pels?.viewerId);
  expect(viewerId).toBeTruthy();

  const dir = mkdtempSync(join(tmpdir(), 'pels-dscp-'));
  let packets: UdpPacket[];
  try {
    const capture = await startCapture({
      iface: 'lo',
      file: join(dir, 'rtc.pcap'),
      filter: `udp and src port ${E2E_RTC_PORT}`,
    });
    await page.waitForTimeout(3000);
    packets = await capture.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const res = await page.request.get('/api/viewers', { headers: operatorHeaders() });
  expect(res.ok()).toBe(true);
  const { viewers } = (await res.json()) as { viewers: ViewerState[] };
  const viewer = viewers.find((v) => v.id === viewerId);
  expect(viewer, `viewer ${viewerId} in /api/viewers`).toBeDefined();
  expect(viewer!.dscp, viewer!.dscp.reason).toEqual({ enabled: true });
  expect(viewer!.mode).toBe('pels');

  // The server's RTCP and STUN leave from the media port too: only RTP carrying one of the viewer's SSRCs counts.
  const measured: Record<string, { packets: number; dscp: number[] }> = {};
  for (const color of COLORS) {
    const ssrc = viewer!.ssrcs[color];
    expect(ssrc, `${color} SSRC`).toBeGreaterThan(0);
    const dscps = packets.filter((p) => p.ipVersion === 4 && rtpSsrc(p.payload) === ssrc).map((p) => p.tos >> 2);
    measured[color] = { packets: dscps.length, dscp: [...new Set(dscps)] };
  }
  test.info().annotations.push({ type: 'measured', description: JSON.stringify(measured) });
  for (const color of COLORS) {
    expect(measured[color]!.packets, `${color} packets captured`).toBeGreaterThan(0);
    expect(measured[color]!.dscp, `${color} DSCP`).toEqual([DSCP[color]]);
  }
});

test('SIGTERM with a viewer connected: the server deletes its nftables table before it exits', async ({ page }) => {
  test.skip(process.getuid?.() !== 0, 'needs root: the server marks DSCP with nftables');

  const logs: string[] = [];
  const server = await startServer({ env: { OPERATOR_TOKEN: E2E_OPERATOR_TOKEN }, onLog: (l) => logs.push(l) });
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
    // The table of this server process, marking the viewer's three streams, green's and yellow's RTX streams (red has
    // none) and the sound (the default stream has a sound track; Chromium negotiates no RTX for Opus).
    expect(serverDscpTables(server.port, server.pid).map((t) => t.marks.size)).toEqual([6]);
    const metrics = await page.request.get(`${server.url}/metrics`, { headers: operatorHeaders() });
    expect(await metrics.text()).toMatch(/^pels_dscp_marked_ssrcs 6$/m);
  } finally {
    await server.stop(); // SIGTERM, the viewer still connected
  }
  expect(serverDscpTables(server.port, server.pid), logs.join('\n')).toEqual([]);
});
