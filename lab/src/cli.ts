/** Command line of `npm run lab -- EXPERIMENT [--json] [--seed N] [--short | --full]`, parsed without side effects. */

export interface RunCommand {
  kind: 'run';
  experiment: string;
  json: boolean;
  seed: number;
  short: boolean;
  full: boolean;
}

export type Command = RunCommand | { kind: 'help' } | { kind: 'error'; message: string };

export const DEFAULT_SEED = 1;

export function parseArgs(argv: readonly string[]): Command {
  let experiment: string | undefined;
  let json = false;
  let short = false;
  let full = false;
  let seed = DEFAULT_SEED;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    else if (arg === '--json') json = true;
    else if (arg === '--short') short = true;
    else if (arg === '--full') full = true;
    else if (arg === '--seed' || arg.startsWith('--seed=')) {
      const raw = arg === '--seed' ? argv[++i] : arg.slice('--seed='.length);
      const n = Number(raw);
      if (raw === undefined || raw === '' || !Number.isInteger(n) || n < 0 || n > 0xffffffff) return { kind: 'error', message: `--seed needs a whole number from 0 to 4294967295; got ${raw ?? 'nothing'}` };
      seed = n;
    } else if (arg.startsWith('-')) return { kind: 'error', message: `unknown option ${arg}` };
    else if (experiment !== undefined) return { kind: 'error', message: `one experiment at a time; got ${experiment} and ${arg}` };
    else experiment = arg;
  }
  if (experiment === undefined) return { kind: 'error', message: 'no experiment given' };
  if (short && full) return { kind: 'error', message: '--short and --full exclude each other' };
  return { kind: 'run', experiment, json, seed, short, full };
}
