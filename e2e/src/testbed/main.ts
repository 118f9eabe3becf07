/**
 * npm run testbed -- --viewers N --capacity-kbps C [--capacity-step SECONDS:KBPS ...] --loss PCT --mode pels|best-effort|nack
 *                    --feedback rtcp|router --seconds S [--source FILE] [--json]
 *
 * With --json, stdout holds one JSON object and nothing else; progress goes
 * to stderr. The per-second time series goes to a CSV file (path in the JSON).
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { FLOW_MODES, type FlowModeName } from '@pels/shared/protocol/api';
import { parseCapacityStep } from './capacitySteps';
import { runTestbed, TESTBED_DEFAULTS, type TestbedOptions } from './testbed';

const USAGE = `usage: npm run testbed -- [--viewers N] [--seconds S] [--capacity-kbps C] [--capacity-step SECONDS:KBPS]... [--loss PCT]
       [--mode pels|best-effort|nack] [--feedback rtcp|router] [--router-interval-ms T]
       [--queue-packets N] [--red-queue-packets N] [--internet-share F] [--source FILE|URL|lavfi:GRAPH] [--out FILE.csv] [--json]`;

class UsageError extends Error {}

const isFlowMode = (s: string): s is FlowModeName => (FLOW_MODES as readonly string[]).includes(s);

function num(name: string, raw: string | undefined, fallback: number, min: number, max: number, integer = false): number {
  if (raw === undefined) return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}]; got "${raw}"`);
  return v;
}

function options(argv: string[]): TestbedOptions & { json: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      viewers: { type: 'string' },
      seconds: { type: 'string' },
      'capacity-kbps': { type: 'string' },
      'capacity-step': { type: 'string', multiple: true },
      loss: { type: 'string' },
      mode: { type: 'string' },
      feedback: { type: 'string' },
      'router-interval-ms': { type: 'string' },
      'queue-packets': { type: 'string' },
      'red-queue-packets': { type: 'string' },
      'internet-share': { type: 'string' },
      source: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.error(USAGE);
    process.exit(0);
  }
  const d = TESTBED_DEFAULTS;
  const mode = values.mode ?? d.mode;
  if (!isFlowMode(mode)) throw new UsageError(`--mode must be one of ${FLOW_MODES.join(', ')}; got "${mode}"`);
  const feedback = values.feedback ?? d.feedback;
  if (feedback !== 'rtcp' && feedback !== 'router') throw new UsageError(`--feedback must be rtcp or router; got "${feedback}"`);
  const capacityKbps = values['capacity-kbps'] === undefined ? undefined : num('capacity-kbps', values['capacity-kbps'], 0, 64, 1_000_000);
  if (feedback === 'router' && capacityKbps === undefined) throw new UsageError('--feedback router needs a bottleneck: give --capacity-kbps');
  const capacitySteps = capacityStepsFrom(values['capacity-step'] ?? [], capacityKbps);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    viewers: num('viewers', values.viewers, d.viewers, 1, 32, true),
    seconds: num('seconds', values.seconds, d.seconds, 4, 3600, true),
    mode,
    feedback,
    capacityKbps,
    capacitySteps,
    lossPct: num('loss', values.loss, d.lossPct, 0, 99.9),
    routerIntervalMs: num('router-interval-ms', values['router-interval-ms'], d.routerIntervalMs, 10, 5000, true),
    queuePackets: values['queue-packets'] === undefined ? undefined : num('queue-packets', values['queue-packets'], 0, 2, 10000, true),
    redQueuePackets: num('red-queue-packets', values['red-queue-packets'], d.redQueuePackets, 2, 10000, true),
    internetShare: num('internet-share', values['internet-share'], d.internetShare, 0.01, 0.99),
    source: values.source,
    timeseriesFile: values.out ?? fileURLToPath(new URL(`../../out/testbed-${stamp}.csv`, import.meta.url)),
    json: values.json,
  };
}

function capacityStepsFrom(raw: string[], capacityKbps: number | undefined): TestbedOptions['capacitySteps'] {
  if (raw.length && capacityKbps === undefined) throw new UsageError('--capacity-step needs a bottleneck: give --capacity-kbps');
  try {
    return raw.map(parseCapacityStep);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

const progress = (msg: string): void => void process.stderr.write(`[testbed] ${msg}\n`);

async function main(): Promise<void> {
  const { json, ...opts } = options(process.argv.slice(2));
  const { result } = await runTestbed(opts, progress);
  process.stdout.write(JSON.stringify(result, null, json ? undefined : 2) + '\n');
}

main().catch((err: unknown) => {
  console.error(`[testbed] ${err instanceof Error ? err.message : String(err)}`);
  if (err instanceof UsageError) console.error(USAGE);
  process.exit(err instanceof UsageError ? 2 : 1);
});
