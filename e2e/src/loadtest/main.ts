/**
 * npm run loadtest -- --viewers N [--ramp PER_SECOND] [--seconds S] [--url URL] [--fanout per-viewer|shared] [--rx rlm | --edges N] [--json]
 *
 * Prints numbers measured in one run; asserts nothing.
 */
import { parseArgs } from 'node:util';
import { COLORS } from '@pels/shared/pels/color';
import { runLoadTest, type LoadTestResult } from './loadTest';

const USAGE = 'usage: npm run loadtest -- --viewers N [--ramp PER_SECOND (10)] [--seconds S (30)] [--url URL | --fanout per-viewer|shared] [--rx rlm | --edges N] [--json]';

function usage(): never {
  console.error(USAGE);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        viewers: { type: 'string' },
        ramp: { type: 'string', default: '10' },
        seconds: { type: 'string', default: '30' },
        url: { type: 'string' },
        fanout: { type: 'string' },
        rx: { type: 'string' },
        edges: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    console.error((err as Error).message);
    usage();
  }
  const { values } = parsed;
  const viewers = Number(values.viewers);
  const rampPerSecond = Number(values.ramp);
  const seconds = Number(values.seconds);
  if (!Number.isInteger(viewers) || viewers < 1 || viewers > 5000 || !(rampPerSecond > 0) || !(seconds > 0)) usage();
  if (values.url !== undefined && !/^https?:\/\/[^/]+/.test(values.url)) usage();
  // The fan-out is a setting of the server started here: a server given by URL runs with its own.
  if (values.fanout !== undefined && (values.url !== undefined || !['per-viewer', 'shared'].includes(values.fanout))) usage();
  const serverEnv: Record<string, string> = values.fanout ? { FANOUT: values.fanout } : {};
  // Receiver-driven layers: each receiver joins in mode rlm and chooses its colors.
  if (values.rx !== undefined && values.rx !== 'rlm') usage();
  const rx = values.rx === 'rlm' ? ('rlm' as const) : undefined;
  // A cluster on loopback, started here: not with a server given by URL, nor with receivers that choose their own layers.
  const edges = values.edges === undefined ? undefined : Number(values.edges);
  if (edges !== undefined && (!Number.isInteger(edges) || edges < 1 || edges > 8 || values.url !== undefined || rx)) usage();
  const result = await runLoadTest({ viewers, rampPerSecond, seconds, url: values.url?.replace(/\/+$/, ''), serverEnv, ...(rx ? { rx } : {}), ...(edges ? { edges } : {}), log: (m) => console.error(`[loadtest] ${m}`) });
  if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
  else for (const line of formatResult(result)) console.log(line);
}

export function formatResult(r: LoadTestResult): string[] {
  const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(2)}%`);
  const lines = [
    `${r.viewers} viewers (${r.rampPerSecond}/s), held ${r.holdSeconds} s: ${r.joined} joined, ${r.failedJoins} failed${Object.keys(r.failures).length ? ` (${Object.entries(r.failures).map(([e, n]) => `${n}x ${e}`).join('; ')})` : ''}`,
    `join ms: p50 ${r.joinMs.p50 ?? '-'}, p95 ${r.joinMs.p95 ?? '-'}, max ${r.joinMs.max ?? '-'}`,
    `green frames received/sent per viewer: min ${pct(r.delivery.greenMin)}, p5 ${pct(r.delivery.greenP5)}, mean ${pct(r.delivery.greenMean)}; viewers with 99%: ${pct(r.delivery.viewersWithGreen99)} (${r.delivery.greenFrames.received}/${r.delivery.greenFrames.sent} in all, ${r.delivery.greenFramesPerSecond ?? '-'} a second each)`,
    `all frames complete/seen per viewer: min ${pct(r.delivery.allMin)}, p5 ${pct(r.delivery.allP5)}, mean ${pct(r.delivery.allMean)} (${r.delivery.allFrames.received}/${r.delivery.allFrames.sent} in all)`,
    `loss per color: ${COLORS.map((c) => `${c} ${pct(r.lossPerColor[c])}`).join(', ')}; jitter p95 ms: ${COLORS.map((c) => `${c} ${r.jitterMs[c].p95 ?? '-'}`).join(', ')}`,
    `NACKs sent: ${COLORS.map((c) => `${c} ${r.nacks.sent[c]}`).join(', ')} (server counted ${r.nacks.serverReceived}); RTT p50 ${r.rttMsP50 ?? '-'} ms; MKC rate mean ${r.rateKbpsMean ?? '-'} kb/s`,
  ];
  if (r.rlm) {
    lines.push(
      `RLM: colors asked for ${r.rlm.meanColors ?? '-'} on average; layers at the end ${Object.entries(r.rlm.subscriptionAtEnd).map(([k, n]) => `${n}x ${k}`).join(', ')}; ${r.rlm.adds} joins, ${r.rlm.drops} drops, ${r.rlm.setColorsFailed} refused`,
    );
  }
  if (r.cpuPercentOfOneCore !== null) {
    lines.push(`server: ${r.cpuPercentOfOneCore}% of one core (${r.cpuPercentOfMachine}% of ${r.machineCores} cores), ${r.rssMb} MB resident`);
  } else lines.push('server: not measured (given by --url)');
  for (const n of r.nodes ?? []) lines.push(`${n.id.padEnd(8)} ${n.address.padEnd(21)} ${String(n.viewers ?? '-').padStart(4)} viewers, ${n.cpuPercentOfOneCore ?? '-'}% of one core`);
  // wait: the time its threads were runnable but had no CPU (a machine short of CPU), in % of one core.
  lines.push('process            pid      CPU % of a core  wait %  RSS MB  main thread');
  for (const p of [...r.server, r.receivers]) {
    lines.push(`${p.name.padEnd(18)} ${String(p.pid).padEnd(8)} ${String(p.cpuPercentOfOneCore).padStart(15)}  ${String(p.waitPercentOfOneCore ?? '-').padStart(6)}  ${String(p.rssMb).padStart(6)}${p.mainThreadPercentOfOneCore === undefined ? '' : `  ${p.mainThreadPercentOfOneCore}`}`);
  }
  return lines;
}

main().catch((err: unknown) => {
  console.error(`[loadtest] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
