/**
 * npm run bench -- convergence [--seconds S] [--viewers 1,2,4] [--feedback rtcp,router] [--json]
 * npm run bench -- dscp [--viewers 1,200] [--rounds R] [--baseline GIT_REF] [--json]
 *
 * Benchmarks print numbers measured in one run; they assert nothing.
 */
import { parseArgs } from 'node:util';
import { convergence } from './convergence';
import { dscpMarking } from './dscpMarking';

const USAGE = [
  'usage: npm run bench -- convergence [--seconds S] [--viewers 1,2,4] [--feedback rtcp,router] [--json]',
  '       npm run bench -- dscp [--viewers 1,200] [--rounds 20] [--baseline GIT_REF] [--json]',
].join('\n');

function usage(): never {
  console.error(USAGE);
  process.exit(2);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      seconds: { type: 'string', default: '60' },
      viewers: { type: 'string' },
      feedback: { type: 'string', default: 'rtcp,router' },
      rounds: { type: 'string', default: '20' },
      baseline: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals[0] === 'dscp') return dscp(values);
  if (positionals[0] !== 'convergence') usage();
  const viewers = (values.viewers ?? '1,2,4').split(',').map(Number);
  const feedback = values.feedback.split(',');
  const seconds = Number(values.seconds);
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
