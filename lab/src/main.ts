import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, DEFAULT_SEED, type RunCommand } from './cli';
import type { ExperimentResult } from './experiments/experiment';
import { EXPERIMENTS, UNAVAILABLE } from './experiments/index';
import { formatTable } from './table';

const LAB_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(LAB_DIR, 'out');

function usage(): string {
  const names = [...EXPERIMENTS.map((e) => `  ${e.name.padEnd(16)} ${e.description}`), ...Object.keys(UNAVAILABLE).map((n) => `  ${n.padEnd(16)} (not yet available)`)];
  return [
    'usage: npm run -s lab -- EXPERIMENT [--json] [--seed N] [--short | --full]',
    '',
    'experiments:',
    ...names,
    '',
    'options:',
    '  --json     print one JSON object { experiment, rows, ... } and nothing else on stdout',
    `  --seed N   seed of the run's random numbers (default ${DEFAULT_SEED}); the same seed gives the same numbers`,
    '  --short    shorter runs (what the tests use)',
    '  --full     the long form, where an experiment has one (scalability, tight-link): every point, full run lengths',
    '',
    `Each run writes its figure to ${relative(process.cwd(), OUT_DIR) || '.'}/EXPERIMENT.svg.`,
  ].join('\n');
}

function report(cmd: RunCommand, result: ExperimentResult, svgPath: string): string {
  const sim = result.simulation;
  const speedup = sim ? { simulatedSeconds: sim.simulatedSeconds, wallSeconds: Number(sim.wallSeconds.toFixed(3)), events: sim.events, factor: Math.round(sim.simulatedSeconds / sim.wallSeconds) } : undefined;
  if (cmd.json) {
    return JSON.stringify({ experiment: result.experiment, seed: cmd.seed, short: cmd.short, full: cmd.full, parameters: result.parameters, summary: result.summary, notes: result.notes, ...(speedup ? { speedup } : {}), svg: svgPath, rows: result.rows });
  }
  const lines = [`${result.experiment} (seed ${cmd.seed}${cmd.short ? ', short' : ''}${cmd.full ? ', full' : ''})`, '', formatTable(result.summary), '', ...result.notes.map((n) => `- ${n}`)];
  if (speedup) lines.push('', `simulated ${speedup.simulatedSeconds} s in ${speedup.wallSeconds} s of wall time (${speedup.events} events): ${speedup.factor}x faster than real time`);
  lines.push(`figure: ${svgPath}`);
  return lines.join('\n');
}

function main(argv: readonly string[]): number {
  const cmd = parseArgs(argv);
  if (cmd.kind === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (cmd.kind === 'error') {
    process.stderr.write(`lab: ${cmd.message}\n\n${usage()}\n`);
    return 2;
  }
  const unavailable = UNAVAILABLE[cmd.experiment];
  if (unavailable !== undefined) {
    process.stderr.write(`lab: ${cmd.experiment} is ${unavailable}.\n`);
    return 2;
  }
  const experiment = EXPERIMENTS.find((e) => e.name === cmd.experiment);
  if (!experiment) {
    process.stderr.write(`lab: unknown experiment "${cmd.experiment}"\n\n${usage()}\n`);
    return 2;
  }
  let result: ExperimentResult;
  try {
    result = experiment.run({ seed: cmd.seed, short: cmd.short, full: cmd.full });
  } catch (err) {
    // e.g. psnr without FFmpeg or the clip: the message says what is missing.
    process.stderr.write(`lab: ${cmd.experiment} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  mkdirSync(OUT_DIR, { recursive: true });
  const svgFile = join(OUT_DIR, `${experiment.name}.svg`);
  writeFileSync(svgFile, result.figure);
  process.stdout.write(`${report(cmd, result, relative(process.cwd(), svgFile))}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
