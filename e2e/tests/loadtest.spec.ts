/**
 * `npm run loadtest` end to end, kept short: it starts a server of its own,
 * 5 synthetic WebRTC viewers (receivers/) join it and hold 10 s, and its JSON
 * says every viewer joined and received the base layer, with the server's
 * processes measured.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import type { LoadTestResult } from '../src/loadtest/loadTest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('5 synthetic viewers for 10 s: every one joins and receives green frames', async () => {
  test.setTimeout(120_000);
  const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'loadtest', '--', '--viewers', '5', '--ramp', '5', '--seconds', '10', '--json'], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
  });
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as LoadTestResult;
  expect(r.viewers).toBe(5);
  expect(r.failedJoins, JSON.stringify(r.failures)).toBe(0);
  expect(r.joined).toBe(5);
  // Every viewer received green frames (the least any got is above none), never more than were sent; how many a
  // second, and the join times, CPU and memory, are the loadtest's figures.
  expect(r.delivery.greenMin).toBeGreaterThan(0);
  expect(r.delivery.greenMin).toBeLessThanOrEqual(1);
  expect(r.delivery.greenFrames.received).toBeGreaterThan(0);
  expect(r.delivery.greenFrames.received).toBeLessThanOrEqual(r.delivery.greenFrames.sent);
  expect(r.delivery.greenP5).not.toBeNull();
  expect(r.joinMs.p95).toBeGreaterThanOrEqual(r.joinMs.p50!);
  // Real RTCP: the server measured RTT from the receivers' reports and stepped the controllers with them.
  expect(r.rttMsP50).not.toBeNull();
  expect(r.feedbackStepsMin).toBeGreaterThan(0);
  // The server's processes were measured.
  expect(r.cpuPercentOfOneCore).not.toBeNull();
  expect(r.rssMb).not.toBeNull();
  expect(r.server.map((p) => p.name)).toEqual(expect.arrayContaining(['node', 'mediasoup-worker', 'ffmpeg']));
});
