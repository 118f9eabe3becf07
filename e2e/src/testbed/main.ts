/**
 * npm run testbed -- --viewers N [--synthetic N] --capacity-kbps C --loss PCT --mode pels|best-effort|nack
 *                    [--router pels|fifo] --feedback rtcp|router --seconds S [--cc NAME[,NAME...]]
 *                    [--capacity-step SECONDS:KBPS ...] [--source FILE] [--json]
 *                    [--tcp N [--tcp-bytes B] [--tcp-seconds S] [--tcp-start S] [--tcp-queue internet|shared] [--tcp-cc NAME]] [--upta Q]
 *                    [--screenshots DIR]
 *
 * With --json, stdout holds one JSON object and nothing else; progress goes
 * to stderr. The per-second time series goes to a CSV file (path in the JSON).
 */
import { parseTestbedArgs, UsageError, USAGE } from './options';
import { runTestbed } from './testbed';

const progress = (msg: string): void => void process.stderr.write(`[testbed] ${msg}\n`);

async function main(): Promise<void> {
  const parsed = parseTestbedArgs(process.argv.slice(2));
  if (parsed === 'help') {
    console.error(USAGE);
    return;
  }
  const { json, ...opts } = parsed;
  const { result } = await runTestbed(opts, progress);
  process.stdout.write(JSON.stringify(result, null, json ? undefined : 2) + '\n');
}

main().catch((err: unknown) => {
  console.error(`[testbed] ${err instanceof Error ? err.message : String(err)}`);
  if (err instanceof UsageError) console.error(USAGE);
  process.exit(err instanceof UsageError ? 2 : 1);
});
