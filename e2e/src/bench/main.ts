/**
 * npm run bench -- capacity [--viewers 25,50,100,200,300,400] [--fanout per-viewer,shared] [--ramp 10] [--seconds 30] [--json]
 * npm run bench -- convergence [--seconds S] [--viewers 1,2,4] [--feedback rtcp,router] [--json]
 * npm run bench -- dscp [--viewers 1,200] [--rounds R] [--baseline GIT_REF] [--json]
 * npm run bench -- encoder [--seconds S] [--repeats R] [--json]
 * npm run bench -- join [--joins 10] [--kills 3] [--pages 2] [--hogs 0] [--json]
 * npm run bench -- latency [--ingest rtmp,srt,whip] [--runs 3] [--seconds 30] [--json]
 * npm run bench -- loss [--loss 0,5,10,20] [--links open,pels,fifo] [--modes pels,nack,best-effort,stock] [--bottleneck-kbps 1200] [--seconds S] [--runs R] [--json]
 * npm run bench -- pels-scale [--viewers 10,20,50] [--runs 2] [--seconds 40] [--json]
 * npm run bench -- playback [--seconds 15] [--json]
 * npm run bench -- soak [--minutes 30] [--viewers 50] [--seed 1] [--faults KIND,...] [--fault-period 300] [--csv FILE] [--json]
 * npm run bench -- baseline NAME [--times 3] [ARGS...]   (e2e/bench-baselines/NAME.json: median and spread of each figure)
 * npm run bench -- check NAME [--margin M]              (one more run: which figures moved outside the spread; exit 1 if any)
 *
 * Benchmarks print numbers measured in one run; they assert nothing. A check says what moved.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { capacity, FANOUTS, formatCapacityTable, kneeOf } from './capacity';
import { convergence } from './convergence';
import { dscpMarking } from './dscpMarking';
import { encoderBench, ENCODER_BENCH_SOURCE, type EncoderRun, type Pipeline } from './encoderCpu';
import { mean, round } from '../testbed/metrics';
import { formatLossTable, lossResilience, OPEN_LINK_KBPS, parseLossFlags, type LossFlags, type LossOptions } from './lossResilience';
import { formatPlaybackTable, playback } from './playback';
import { formatJoinTime, joinTime } from './joinTime';
import { formatLiveLatencyTable, liveLatency } from './liveLatency';
import { ingestOption } from '../testbed/options';
import type { IngestProtocol } from '../testbed/testbed';
import { formatPelsScaleTable, pelsScale, PELS_SCALE_PER_VIEWER_KBPS } from './pelsScale';
import { formatSoakReport, runSoak, SOAK_DEFAULTS } from '../soak/soak';
import { isFaultKind } from '../soak/faultSchedule';
import { isMove } from './baseline';
import { checkBaseline, formatChecks, makeBaseline, UsageError } from './baselineCommand';
import { loadavg } from 'node:os';
import { userPath } from '../userPath';

const USAGE = [
  'usage: npm run bench -- capacity [--viewers 25,50,100,200,300,400] [--fanout per-viewer,shared] [--ramp 10] [--seconds 30] [--json]',
  '       npm run bench -- convergence [--seconds S] [--viewers 1,2,4] [--feedback rtcp,router] [--json]',
  '       npm run bench -- dscp [--viewers 1,200] [--rounds 20] [--baseline GIT_REF] [--json]',
  '       npm run bench -- encoder [--seconds 60] [--repeats 3] [--json]',
  '       npm run bench -- join [--joins 10] [--kills 3] [--pages 2] [--hogs 0] [--json]',
  '       npm run bench -- latency [--ingest rtmp,srt,whip] [--runs 3] [--seconds 30] [--json]',
  '       npm run bench -- loss [--loss 0,5,10,20] [--links open,pels,fifo] [--modes pels,nack,best-effort,stock] [--bottleneck-kbps 1200] [--seconds 45] [--runs 1] [--json]',
  '       npm run bench -- pels-scale [--viewers 10,20,50] [--runs 2] [--seconds 40] [--json]',
  '       npm run bench -- playback [--seconds 15] [--json]',
  '       npm run bench -- soak [--minutes 30] [--viewers 50] [--seed 1] [--faults KIND,...] [--fault-period 300] [--csv FILE] [--json]',
  '       npm run bench -- baseline NAME [--times 3] [ARGS...]',
  '       npm run bench -- check NAME [--margin M]',
].join('\n');

function usage(): never {
  console.error(USAGE);
  process.exit(2);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'baseline' || command === 'check') return baselineOrCheck(command, rest);
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      seconds: { type: 'string' },
      loss: { type: 'string' },
      links: { type: 'string' },
      modes: { type: 'string' },
      'bottleneck-kbps': { type: 'string' },
      viewers: { type: 'string' },
      feedback: { type: 'string', default: 'rtcp,router' },
      rounds: { type: 'string', default: '20' },
      repeats: { type: 'string', default: '3' },
      runs: { type: 'string' },
      baseline: { type: 'string' },
      fanout: { type: 'string', default: FANOUTS.join(',') },
      ramp: { type: 'string', default: '10' },
      minutes: { type: 'string' },
      seed: { type: 'string' },
      csv: { type: 'string' },
      faults: { type: 'string' },
      'fault-period': { type: 'string' },
      ingest: { type: 'string', default: 'rtmp,srt' },
      joins: { type: 'string', default: '10' },
      kills: { type: 'string', default: '3' },
      pages: { type: 'string', default: '2' },
      hogs: { type: 'string', default: '0' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals[0] === 'capacity') return capacityBench(values);
  if (positionals[0] === 'dscp') return dscp(values);
  if (positionals[0] === 'encoder') return encoder(values);
  if (positionals[0] === 'loss') return loss(values);
  if (positionals[0] === 'pels-scale') return pelsScaleBench(values);
  if (positionals[0] === 'playback') return playbackBench(values);
  if (positionals[0] === 'join') return joinBench(values);
  if (positionals[0] === 'latency') return latencyBench(values);
  if (positionals[0] === 'soak') return soakBench(values);
  if (positionals[0] !== 'convergence') usage();
  const viewers = (values.viewers ?? '1,2,4').split(',').map(Number);
  const feedback = values.feedback.split(',');
  const seconds = Number(values.seconds ?? '60');
  if (viewers.some((n) => !Number.isInteger(n) || n < 1 || n > 8) || feedback.some((f) => f !== 'rtcp' && f !== 'router') || !(seconds >= 20)) usage();
  const rows = await convergence({ viewers, feedback: feedback as ('rtcp' | 'router')[], seconds }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'convergence', rows }) + '\n');
    return;
  }
  console.log('viewers feedback capacity  C/N+a/b  t90(s)  steady rates (kb/s)        steady/C/N+a/b  jain   fps');
  for (const r of rows) {
    console.log(
      [
        String(r.viewers).padEnd(7),
        r.feedback.padEnd(8),
        String(r.capacityKbps).padEnd(9),
        String(r.stationaryKbps).padEnd(8),
        String(r.secondsTo90 ?? '-').padEnd(7),
        r.steadyKbps.join(', ').padEnd(27),
        String(r.ratio ?? '-').padEnd(15),
        String(r.jain ?? '-').padEnd(6),
        r.fps.join(', '),
      ].join(' '),
    );
  }
}

async function joinBench(values: { joins: string; kills: string; pages: string; hogs: string; json: boolean }): Promise<void> {
  const [joins, kills, pages, hogs] = [values.joins, values.kills, values.pages, values.hogs].map(Number) as [number, number, number, number];
  if (![joins, kills, pages, hogs].every((n) => Number.isInteger(n) && n >= 0) || pages < 1 || joins + kills < 1) usage();
  const report = await joinTime({ joins, kills, pages, hogs }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'join', joins, kills, pages, hogs, ...report }) + '\n');
    return;
  }
  for (const line of formatJoinTime(report)) console.log(line);
}

async function baselineOrCheck(command: 'baseline' | 'check', argv: string[]): Promise<void> {
  const log = (m: string) => console.error(`[bench] ${m}`);
  try {
    if (command === 'baseline') {
      console.log(`baseline written: ${await makeBaseline(argv, log)}`);
      return;
    }
    const { checks } = await checkBaseline(argv, log);
    for (const line of formatChecks(checks)) console.log(line);
    const moved = checks.filter(isMove);
    console.log(moved.length ? `${moved.length} of ${checks.length} figures moved outside the baseline's spread` : `every figure of ${checks.length} within the baseline's spread`);
    if (moved.length) process.exitCode = 1;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`[bench] ${err.message}`);
    usage();
  }
}

async function capacityBench(values: { viewers?: string; fanout: string; ramp: string; seconds?: string; json: boolean }): Promise<void> {
  const viewers = (values.viewers ?? '25,50,100,200,300,400').split(',').map(Number);
  const fanouts = values.fanout.split(',');
  const rampPerSecond = Number(values.ramp);
  const seconds = Number(values.seconds ?? '30');
  const isFanout = (f: string): f is (typeof FANOUTS)[number] => (FANOUTS as readonly string[]).includes(f);
  if (viewers.some((n) => !Number.isInteger(n) || n < 1 || n > 5000) || !fanouts.every(isFanout) || !(rampPerSecond > 0) || !(seconds >= 5)) usage();
  const rows = await capacity({ viewers, fanouts: fanouts as (typeof FANOUTS)[number][], rampPerSecond, seconds }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    const knee = Object.fromEntries(fanouts.map((f) => [f, kneeOf(rows.filter((r) => r.fanout === f))]));
    process.stdout.write(JSON.stringify({ benchmark: 'capacity', rampPerSecond, seconds, knee, rows }) + '\n');
    return;
  }
  console.log(`${seconds} s held after a ramp of ${rampPerSecond} viewers/s; CPU in % of one core over the hold (the server's processes), RSS at most in the hold`);
  for (const line of formatCapacityTable(rows)) console.log(line);
}

async function pelsScaleBench(values: { viewers?: string; runs?: string; seconds?: string; json: boolean }): Promise<void> {
  const viewers = (values.viewers ?? '10,20,50').split(',').map(Number);
  const runs = Number(values.runs ?? '2');
  const seconds = Number(values.seconds ?? '40');
  if (viewers.some((n) => !Number.isInteger(n) || n < 1 || n > 500) || !Number.isInteger(runs) || runs < 1 || !(seconds >= 10)) usage();
  const rows = await pelsScale({ viewers, runs, seconds, loadAverage: () => loadavg()[0]! }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'pels-scale', perViewerKbps: PELS_SCALE_PER_VIEWER_KBPS, seconds, rows }) + '\n');
    return;
  }
  console.log(`N synthetic viewers on N x ${PELS_SCALE_PER_VIEWER_KBPS} kb/s, router feedback, ${seconds} s a run; second-half averages; load average (1 min) before and after each run`);
  for (const line of formatPelsScaleTable(rows)) console.log(line);
}

async function playbackBench(values: { seconds?: string; json: boolean }): Promise<void> {
  const seconds = Number(values.seconds ?? '15');
  if (!(seconds >= 5)) usage();
  const rows = await playback({ seconds }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'playback', seconds, rows }) + '\n');
    return;
  }
  console.log(`one Chromium player on loopback, ${seconds} s windows: frames (pels, all colors and green alone), display quality (green alone; best effort with all layers, then green and yellow)`);
  for (const line of formatPlaybackTable(rows)) console.log(line);
}

async function latencyBench(values: { ingest: string; runs?: string; seconds?: string; json: boolean }): Promise<void> {
  const runs = Number(values.runs ?? '3');
  const seconds = Number(values.seconds ?? '30');
  let ingest: IngestProtocol[];
  try {
    ingest = values.ingest.split(',').map(ingestOption);
  } catch {
    usage();
  }
  if (!Number.isInteger(runs) || runs < 1 || !(seconds >= 10)) usage();
  const rows = await liveLatency({ ingest, runs, seconds, loadAverage: () => loadavg()[0]! }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'latency', seconds, rows }) + '\n');
    return;
  }
  console.log(`1 Chromium viewer on the open link, a publisher (FFmpeg, 640x360 30 fps, 1.5 Mb/s H.264 + AAC; over WHIP Chromium, 640x360 30 fps H.264 + Opus) stamping capture times, ${seconds} s a run; latency p50 and p95 and each stage's median over the second half, ms`);
  for (const line of formatLiveLatencyTable(rows)) console.log(line);
  for (const r of rows) if (r.errors.length) console.error(`[bench] ${r.ingest} run ${r.run}: ${r.errors.join('; ')}`);
}

async function soakBench(values: { minutes?: string; viewers?: string; seed?: string; faults?: string; 'fault-period'?: string; csv?: string; json: boolean }): Promise<void> {
  const minutes = Number(values.minutes ?? SOAK_DEFAULTS.minutes);
  const viewers = Number(values.viewers ?? SOAK_DEFAULTS.viewers);
  const seed = Number(values.seed ?? SOAK_DEFAULTS.seed);
  const kinds = values.faults?.split(',');
  if (!(minutes >= 1 && minutes <= 24 * 60) || !Number.isInteger(viewers) || viewers < 1 || viewers > 500 || !Number.isInteger(seed)) usage();
  const faultPeriodS = Number(values['fault-period'] ?? SOAK_DEFAULTS.faultPeriodS);
  if ((kinds && !kinds.every(isFaultKind)) || !(faultPeriodS >= 10)) usage();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const csvFile = values.csv !== undefined ? userPath(values.csv) : fileURLToPath(new URL(`../../out/soak-${stamp}.csv`, import.meta.url));
  const result = await runSoak({ ...SOAK_DEFAULTS, minutes, viewers, seed, faultPeriodS, csvFile, ...(kinds ? { kinds: kinds.filter(isFaultKind) } : {}) }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'soak', ...result }) + '\n');
    return;
  }
  for (const line of formatSoakReport(result)) console.log(line);
}

async function loss(values: LossFlags & { json: boolean }): Promise<void> {
  let o: LossOptions;
  try {
    o = parseLossFlags(values);
  } catch (err) {
    console.error(`[bench] ${(err as Error).message}`);
    usage();
  }
  const rows = await lossResilience(o, (m) => console.error(`[bench] ${m}`), () => loadavg()[0]!);
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'loss', openLinkKbps: OPEN_LINK_KBPS, ...o, rows }) + '\n');
    return;
  }
  console.log(`1 viewer, ${o.seconds} s a run, second-half averages; links: open ${OPEN_LINK_KBPS} kb/s (the mode's own router), pels and fifo ${o.bottleneckKbps} kb/s`);
  for (const line of formatLossTable(rows)) console.log(line);
  for (const r of rows) if (r.errors.length) console.error(`[bench] ${r.mode} on ${r.link} at ${r.lossPct}%, run ${r.run}: ${r.errors.join('; ')}`);
}

async function dscp(values: { viewers?: string; rounds: string; baseline?: string; json: boolean }): Promise<void> {
  const viewers = (values.viewers ?? '1,200').split(',').map(Number);
  const rounds = Number(values.rounds);
  if (viewers.some((n) => !Number.isInteger(n) || n < 1 || n > 5000) || !Number.isInteger(rounds) || rounds < 1) usage();
  const rows = await dscpMarking({ viewers, rounds, baseline: values.baseline }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'dscp', rows }) + '\n');
    return;
  }
  console.log('marker      viewers  rules  mark+remove(ms)  nft runs  join all(ms)  nft runs  leave all(ms)  nft runs');
  for (const r of rows) {
    console.log(
      [
        r.marker.padEnd(11),
        String(r.viewers).padEnd(8),
        String(r.rules).padEnd(6),
        String(r.markRemoveMs).padEnd(16),
        String(r.markRemoveRuns).padEnd(9),
        String(r.joinMs).padEnd(13),
        String(r.joinRuns).padEnd(9),
        String(r.leaveMs).padEnd(14),
        String(r.leaveRuns),
      ].join(' '),
    );
  }
}

main().catch((err: unknown) => {
  console.error(`[bench] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

async function encoder(values: { seconds?: string; repeats: string; json: boolean }): Promise<void> {
  const seconds = Number(values.seconds ?? '60');
  const repeats = Number(values.repeats);
  if (!(seconds >= 10) || !Number.isInteger(repeats) || repeats < 1) usage();
  const runs = await encoderBench({ seconds, repeats }, (m) => console.error(`[bench] ${m}`));
  if (values.json) {
    process.stdout.write(JSON.stringify({ benchmark: 'encoder', source: ENCODER_BENCH_SOURCE, seconds, runs }) + '\n');
    return;
  }
  const range = (xs: number[], digits = 2) => `${round(Math.min(...xs), digits)}-${round(Math.max(...xs), digits)}`;
  const of = (p: Pipeline) => runs.filter((r) => r.pipeline === p);
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(15) : c.padStart(i === 1 ? 14 : 13))).join(' ');
  console.log(`${ENCODER_BENCH_SOURCE}, ${seconds} s per run, ${repeats} run(s) per pipeline, in turn; ranges over the runs`);
  console.log(line(['pipeline', 'CPU s (total)', 'FFmpeg CPU s', 'encoder CPU s', '% of a core', 'kb/s', 'PSNR dB']));
  for (const p of ['ffmpeg', 'ffmpeg+encoder'] as const) {
    const rs: EncoderRun[] = of(p);
    console.log(
      line([
        p,
        range(rs.map((r) => r.cpuSeconds.total)),
        range(rs.map((r) => r.cpuSeconds.ffmpeg)),
        p === 'ffmpeg' ? '-' : range(rs.map((r) => r.cpuSeconds.encoder)),
        range(rs.map((r) => (100 * r.cpuSeconds.total) / seconds), 1),
        range(rs.map((r) => r.kbps), 1),
        range(rs.map((r) => r.psnrDb ?? NaN)),
      ]),
    );
  }
  const ratio = (mean(of('ffmpeg+encoder').map((r) => r.cpuSeconds.total))! / mean(of('ffmpeg').map((r) => r.cpuSeconds.total))!);
  console.log(`ffmpeg+encoder / ffmpeg CPU (means): ${round(ratio, 3)}`);
}
