/**
 * npm run testbed -- --viewers N --seconds S [--source FILE] [--json]
 *
 * Starts the server and N headless Chromium viewers and reports what each
 * viewer decoded (averages over the second half of the run). With --json,
 * stdout holds one JSON object and nothing else; progress goes to stderr.
 */
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium';
import { startServer } from '../serverProcess';
import { TreeCpu } from './processCpu';

interface PlayerStats {
  framesDecoded: { total: number; tid0: number; tid1: number; tid2: number };
  framesReceived: { green: number; yellow: number; red: number };
  decodeErrors: number;
  lastError?: string;
}

const USAGE = 'usage: npm run testbed -- --viewers N --seconds S [--source FILE] [--json]';

function options() {
  const { values } = parseArgs({
    options: {
      viewers: { type: 'string', default: '1' },
      seconds: { type: 'string', default: '20' },
      source: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.error(USAGE);
    process.exit(0);
  }
  const viewers = Number(values.viewers);
  const seconds = Number(values.seconds);
  if (!Number.isInteger(viewers) || viewers < 1 || viewers > 32) throw new Error(`--viewers must be an integer in [1, 32]\n${USAGE}`);
  if (!Number.isFinite(seconds) || seconds < 4 || seconds > 3600) throw new Error(`--seconds must be in [4, 3600]\n${USAGE}`);
  return { viewers, seconds, source: values.source, json: values.json };
}

const progress = (msg: string): void => void process.stderr.write(`[testbed] ${msg}\n`);

async function main(): Promise<void> {
  const opts = options();
  const server = await startServer(opts.source ? { SOURCE: opts.source } : {}, (line) => progress(`server: ${line}`));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  const cleanup = async (): Promise<void> => {
    await browser.close().catch(() => {});
    await server.stop();
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    const viewers: { id: string; page: Page; pageErrors: string[] }[] = [];
    for (let i = 1; i <= opts.viewers; i++) {
      const page = await (await browser.newContext()).newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(server.url);
      viewers.push({ id: `v${i}`, page, pageErrors });
    }
    progress(`${opts.viewers} viewer(s) started; running ${opts.seconds} s`);
    // Chromium runs under this process; the server's tree is counted first.
    const cpu = new TreeCpu({ server: server.pid, browser: process.pid });
    const stats = (p: Page) => p.evaluate(() => (window as unknown as { pels?: { stats(): PlayerStats } }).pels?.stats() ?? null);
    const half = (opts.seconds * 1000) / 2;
    await sleep(half);
    const mid = await Promise.all(viewers.map((v) => stats(v.page)));
    cpu.reset();
    const t0 = Date.now();
    for (let s = 1; s * 1000 < half; s++) {
      await sleep(1000);
      progress(`${Math.round(half / 1000) + s} / ${opts.seconds} s`);
    }
    await sleep(Math.max(0, half - (Date.now() - t0)));
    const end = await Promise.all(viewers.map((v) => stats(v.page)));
    const elapsed = (Date.now() - t0) / 1000;
    const cpuUse = cpu.read();
    const result = {
      config: { viewers: opts.viewers, seconds: opts.seconds, source: opts.source ?? 'default' },
      viewers: viewers.map((v, i) => {
        const a = mid[i];
        const b = end[i];
        const states = b ? {} : { errors: ['player did not start (no stats)'] };
        return {
          id: v.id,
          ...(b
            ? {
                framesDecoded: b.framesDecoded,
                framesReceived: b.framesReceived,
                fps: round(((b.framesDecoded.total - (a?.framesDecoded.total ?? 0)) / elapsed) * 10) / 10,
                decodeErrors: b.decodeErrors,
              }
            : {}),
          errors: [...(states.errors ?? []), ...(b?.lastError ? [b.lastError] : []), ...v.pageErrors],
        };
      }),
      cpuPercentOfOneCore: cpuUse,
    };
    if (opts.json) process.stdout.write(JSON.stringify(result) + '\n');
    else console.log(JSON.stringify(result, null, 2));
  } finally {
    await cleanup();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = Math.round;

main().catch((err: unknown) => {
  console.error(`[testbed] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
