/**
 * npm run bench -- convergence [--seconds S] [--viewers 1,2,4] [--feedback rtcp,router] [--json]
 *
 * Benchmarks print numbers measured in one run; they assert nothing.
 */
import { parseArgs } from 'node:util';
import { convergence } from './convergence';

const USAGE = 'usage: npm run bench -- convergence [--seconds S] [--viewers 1,2,4] [--feedback rtcp,router] [--json]';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      seconds: { type: 'string', default: '60' },
      viewers: { type: 'string', default: '1,2,4' },
      feedback: { type: 'string', default: 'rtcp,router' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals[0] !== 'convergence') {
    console.error(USAGE);
    process.exit(2);
  }
  const viewers = values.viewers.split(',').map(Number);
  const feedback = values.feedback.split(',');
  const seconds = Number(values.seconds);
  if (viewers.some((n) => !Number.isInteger(n) || n < 1 || n > 8) || feedback.some((f) => f !== 'rtcp' && f !== 'router') || !(seconds >= 20)) {
    console.error(USAGE);
    process.exit(2);
  }
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

main().catch((err: unknown) => {
  console.error(`[bench] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
