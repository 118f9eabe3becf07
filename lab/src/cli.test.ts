import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './cli';

test('parseArgs reads the experiment and options, and refuses what it does not know', () => {
  const cases: Array<[string[], ReturnType<typeof parseArgs>]> = [
    [['utility'], { kind: 'run', experiment: 'utility', json: false, seed: 1, short: false, full: false }],
    [['delays', '--json', '--seed', '7', '--short'], { kind: 'run', experiment: 'delays', json: true, seed: 7, short: true, full: false }],
    [['--seed=3', 'delays'], { kind: 'run', experiment: 'delays', json: false, seed: 3, short: false, full: false }],
    [['scalability', '--full'], { kind: 'run', experiment: 'scalability', json: false, seed: 1, short: false, full: true }],
    [['scalability', '--full', '--short'], { kind: 'error', message: '--short and --full exclude each other' }],
    [['--help'], { kind: 'help' }],
    [[], { kind: 'error', message: 'no experiment given' }],
    [['delays', '--fast'], { kind: 'error', message: 'unknown option --fast' }],
    [['delays', 'utility'], { kind: 'error', message: 'one experiment at a time; got delays and utility' }],
  ];
  for (const [argv, want] of cases) assert.deepEqual(parseArgs(argv), want, argv.join(' '));
  for (const bad of [['x', '--seed'], ['x', '--seed', '-1'], ['x', '--seed', '1.5'], ['x', '--seed', 'abc']]) assert.equal(parseArgs(bad).kind, 'error', bad.join(' '));
});

const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'main.ts');
const lab = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { encoding: 'utf8' });

test('--json prints one JSON object and nothing else on stdout', () => {
  const run = lab('gamma-stability', '--json');
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { experiment: string; rows: unknown[]; svg: string };
  assert.equal(out.experiment, 'gamma-stability');
  assert.ok(Array.isArray(out.rows) && out.rows.length > 0);
  assert.match(out.svg, /gamma-stability\.svg$/);
});

test('scalability --json names each row\'s controller, n and loss', () => {
  const run = lab('scalability', '--json', '--short');
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { experiment: string; rows: Array<Record<string, unknown>>; summary: unknown[]; full: boolean };
  assert.equal(out.experiment, 'scalability');
  assert.equal(out.full, false);
  assert.ok(out.summary.length > 0);
  for (const row of out.rows) {
    assert.equal(typeof row.controller, 'string');
    assert.equal(typeof row.n, 'number');
    assert.equal(typeof row.loss, 'number');
  }
});

test('unknown experiments and bad options exit with 2 and a usage message', () => {
  for (const args of [['nope'], ['utility', '--bogus'], []]) {
    const run = lab(...args);
    assert.equal(run.status, 2, args.join(' '));
    assert.match(run.stderr, /usage: npm run -s lab -- EXPERIMENT/);
    assert.equal(run.stdout, '');
  }
});
