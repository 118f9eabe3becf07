/**
 * npm run bench -- baseline NAME [--times 3] [BENCHMARK ARGS...]
 *   runs the benchmark NAME with its arguments `times` times, one after the
 *   other, and writes e2e/bench-baselines/NAME.json: each figure's median and
 *   spread (least, most), with the date, commit and command.
 * npm run bench -- check NAME [--margin M]
 *   runs it once more with the baseline's arguments and lists the figures that
 *   moved outside the spread (widened by M x the median on either side); exits
 *   1 when any did, 2 when there is no baseline.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkFigures, spreads, type Baseline, type FigureCheck } from './baseline';
import { FIGURE_LAYOUTS, figuresOf, type Figures } from './figures';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const BASELINE_DIR = join(ROOT, 'e2e/bench-baselines');
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

export const baselineFile = (name: string): string => join(BASELINE_DIR, `${name}.json`);

/** One run of a benchmark, its progress on stderr: the figures of its JSON line. */
async function runOnce(name: string, args: readonly string[]): Promise<Figures> {
  const child = spawn(process.execPath, [...process.execArgv, MAIN, name, ...args, '--json'], { cwd: join(ROOT, 'e2e'), stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve));
  if (code !== 0) throw new Error(`bench ${name} exited with ${code}`);
  const line = out.trim().split('\n').pop() ?? '';
  return figuresOf(JSON.parse(line));
}

function benchName(name: string | undefined): string {
  if (!name || !(name in FIGURE_LAYOUTS)) throw new UsageError(`a benchmark name: ${Object.keys(FIGURE_LAYOUTS).join(', ')}`);
  return name;
}

export class UsageError extends Error {}

/** `baseline NAME [--times N] [ARGS...]`: measures and writes the baseline; returns its file. */
export async function makeBaseline(argv: readonly string[], log: (m: string) => void): Promise<string> {
  const [rawName, ...rest] = argv;
  const name = benchName(rawName);
  let runs = 3;
  const args: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--times') runs = Number(rest[++i]);
    else if (rest[i] !== '--json') args.push(rest[i]!);
  }
  if (!Number.isInteger(runs) || runs < 3) throw new UsageError(`--times: 3 or more (a median and a spread); got ${runs}`);
  const figures: Figures[] = [];
  const loads: number[] = [];
  for (let r = 1; r <= runs; r++) {
    loads.push(Math.round(loadavg()[0]! * 100) / 100);
    log(`${name}: run ${r} of ${runs}`);
    figures.push(await runOnce(name, args));
  }
  const baseline: Baseline = {
    benchmark: name,
    args,
    command: ['npm run bench -- baseline', name, '--times', String(runs), ...args].join(' '),
    date: new Date().toISOString(),
    commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
    runs,
    loadAverage: loads,
    figures: spreads(figures),
  };
  mkdirSync(BASELINE_DIR, { recursive: true });
  const file = baselineFile(name);
  writeFileSync(file, JSON.stringify(baseline, null, 2) + '\n');
  return file;
}

export function readBaseline(name: string): Baseline {
  const file = baselineFile(name);
  if (!existsSync(file)) throw new UsageError(`no baseline for ${name} (${file}): npm run bench -- baseline ${name}`);
  return JSON.parse(readFileSync(file, 'utf8')) as Baseline;
}

/** `check NAME [--margin M]`: the baseline's checks against one new run. */
export async function checkBaseline(argv: readonly string[], log: (m: string) => void): Promise<{ baseline: Baseline; checks: FigureCheck[] }> {
  const [rawName, ...rest] = argv;
  const name = benchName(rawName);
  let margin = 0;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--margin') margin = Number(rest[++i]);
    else throw new UsageError(`unknown argument ${rest[i]}`);
  }
  if (!(margin >= 0)) throw new UsageError(`--margin: a number >= 0; got ${margin}`);
  const baseline = readBaseline(name);
  log(`${name}: one run with ${baseline.args.join(' ') || 'its defaults'}, against the baseline of ${baseline.date} at ${baseline.commit} (${baseline.runs} runs)`);
  return { baseline, checks: checkFigures(baseline.figures, await runOnce(name, baseline.args), margin) };
}

const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '-' : String(Math.round(x * 1000) / 1000));

/** One line a figure: verdict, name, the new value, the baseline's median and spread. */
export function formatChecks(checks: readonly FigureCheck[]): string[] {
  return checks.map((c) =>
    [c.verdict.padEnd(8), c.name.padEnd(60), fmt(c.value).padStart(10), `median ${fmt(c.baseline?.median)} in ${fmt(c.baseline?.min)}..${fmt(c.baseline?.max)}`].join(' '),
  );
}
