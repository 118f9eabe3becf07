/**
 * The synthetic receivers' JSON against the schemas the load test, testbed and
 * soak read it with: the Go side writes a sample of each shape of its output
 * with every field filled in (receivers/report_test.go), and it must parse.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { receiverLifeSchema, receiversReportSchema } from '@pels/shared/protocol/syntheticReceivers';

const RECEIVERS = fileURLToPath(new URL('../../../receivers', import.meta.url));
const GO = ['/usr/local/go/bin/go', '/usr/bin/go'].find((g) => existsSync(g)) ?? 'go';

function goSample(): [unknown, unknown] {
  const dir = mkdtempSync(join(tmpdir(), 'pels-receivers-sample-'));
  try {
    const file = join(dir, 'sample.jsonl');
    execFileSync(GO, ['test', '-count=1', '-run', '^TestReportJSONSample$', '.'], { cwd: RECEIVERS, env: { ...process.env, PELS_REPORT_SAMPLE: file }, stdio: 'pipe' });
    const [run, life] = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    return [run, life];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the receivers' run report and life report match the schemas, every field", { timeout: 180_000 }, () => {
  const [run, life] = goSample();
  const report = receiversReportSchema.parse(run);
  assert.equal(report.receivers.length, 2);
  assert.ok(report.receivers[0]!.server && report.receivers[0]!.rlm && report.receivers[0]!.viewerId && report.receivers[0]!.rejoins?.[0]?.to, 'the sample fills in the optional parts');
  assert.equal(report.receivers[1]!.error, 'join: unavailable');
  assert.equal(receiverLifeSchema.parse(life).event, 'left');
});

test('the schemas are strict: a field one side does not know fails', () => {
  const base = { index: 0, joined: false, joinMs: null, colors: {}, layers: [0, 1, 2].map(() => ({ complete: 0, incomplete: 0, keyframes: 0 })), green: { received: 0, sent: 0 }, all: { received: 0, sent: 0 }, nacksSent: {}, server: null };
  const report = { viewers: 1, rampPerSecond: 10, holdSeconds: 1, cpuSeconds: 0, maxRssMb: 1, receivers: [base] };
  assert.ok(receiversReportSchema.safeParse(report).success);
  assert.ok(!receiversReportSchema.safeParse({ ...report, receivers: [{ ...base, audio: {} }] }).success, 'an unknown field on a receiver');
  assert.ok(!receiversReportSchema.safeParse({ ...report, receivers: [{ ...base, colors: { blue: base.green } }] }).success, 'an unknown color');
  const { joinMs: _, ...withoutJoin } = base;
  assert.ok(!receiversReportSchema.safeParse({ ...report, receivers: [withoutJoin] }).success, 'a missing field');
  assert.ok(!receiverLifeSchema.safeParse({ ...base, event: 'left', startedMs: 1, joinedMs: 0, leftMs: 2, cut: false, extra: 1 }).success, 'an unknown field on a life');
});
