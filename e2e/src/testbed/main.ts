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
import { COLORS } from '@pels/shared/pels/color';
import type { ViewerState } from '@pels/shared/protocol/api';
import { intervalLoss, jainIndex, mean, round } from './metrics';
import { TreeCpu } from './processCpu';

interface PlayerStats {
  framesDecoded: { total: number; tid0: number; tid1: number; tid2: number };
  framesReceived: { green: number; yellow: number; red: number };
  decodeErrors: number;
  lastError?: string;
}

const USAGE = 'usage: npm run testbed -- --viewers N --seconds S [--mode pels|best-effort] [--source FILE] [--json]';

function options() {
  const { values } = parseArgs({
    options: {
      viewers: { type: 'string', default: '1' },
      seconds: { type: 'string', default: '20' },
      source: { type: 'string' },
      mode: { type: 'string', default: 'pels' },
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
  const mode = values.mode;
  if (mode !== 'pels' && mode !== 'best-effort') throw new Error(`--mode must be pels or best-effort\n${USAGE}`);
  return { viewers, seconds, mode, source: values.source, json: values.json };
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
      await page.goto(`${server.url}/?mode=${opts.mode}`);
      viewers.push({ id: `v${i}`, page, pageErrors });
    }
    progress(`${opts.viewers} viewer(s) started; running ${opts.seconds} s`);
    // Chromium runs under this process; the server's tree is counted first.
    const cpu = new TreeCpu({ server: server.pid, browser: process.pid });
    const stats = (p: Page) =>
      p.evaluate(() => {
        const pels = (window as unknown as { pels?: { stats(): PlayerStats; viewerId?: string } }).pels;
        return pels ? { stats: pels.stats(), viewerId: pels.viewerId } : null;
      });
    const viewersApi = async (): Promise<ViewerState[]> => ((await (await fetch(`${server.url}/api/viewers`)).json()) as { viewers: ViewerState[] }).viewers;

    // One sample per second; averages use the second half of the run.
    const samples: { t: number; players: Awaited<ReturnType<typeof stats>>[]; api: ViewerState[] }[] = [];
    const t0 = Date.now();
    for (let s = 1; s <= opts.seconds; s++) {
      await sleep(Math.max(0, t0 + s * 1000 - Date.now()));
      samples.push({ t: s, players: await Promise.all(viewers.map((v) => stats(v.page))), api: await viewersApi() });
      if (s === Math.floor(opts.seconds / 2)) cpu.reset();
      if (s % 5 === 0 || s === opts.seconds) progress(`${s} / ${opts.seconds} s`);
    }
    const cpuUse = cpu.read();
    const secondHalf = samples.slice(Math.floor(opts.seconds / 2) - 1);
    const first = secondHalf[0]!;
    const last = samples[samples.length - 1]!;
    const elapsed = last.t - first.t;
    const perViewer = viewers.map((v, i) => {
      const end = last.players[i];
      const errors = [...(end ? [] : ['player did not start']), ...(end?.stats.lastError ? [end.stats.lastError] : []), ...v.pageErrors];
      if (!end) return { id: v.id, errors };
      const startPlayer = first.players[i];
      const apiAt = (sample: (typeof samples)[number]) => sample.api.find((x) => x.id === end.viewerId);
      const a = apiAt(first);
      const b = apiAt(last);
      const rates = secondHalf.map(apiAt).filter((x): x is ViewerState => !!x);
      return {
        id: v.id,
        ...(b
          ? {
              mode: b.mode,
              rateKbps: round(mean(rates.map((x) => x.rateKbps)), 1),
              sentKbps: round(mean(rates.map((x) => x.sentKbps)), 1),
              gamma: round(mean(rates.map((x) => x.gamma)), 3),
              loss: Object.fromEntries(COLORS.map((c) => [c, round(a ? intervalLoss(a.perColor[c], b.perColor[c]) : null, 4)])),
              rttMs: b.rttMs,
              framesSent: b.framesSent,
              framesSkipped: b.framesSkipped,
              dscp: b.dscp,
            }
          : {}),
        framesDecoded: end.stats.framesDecoded,
        framesReceived: end.stats.framesReceived,
        fps: round((end.stats.framesDecoded.total - (startPlayer?.stats.framesDecoded.total ?? 0)) / elapsed, 1),
        decodeErrors: end.stats.decodeErrors,
        errors,
      };
    });
    const result = {
      config: { viewers: opts.viewers, seconds: opts.seconds, mode: opts.mode, source: opts.source ?? 'default' },
      viewers: perViewer,
      jain: round(jainIndex(perViewer.map((v) => ('rateKbps' in v && typeof v.rateKbps === 'number' ? v.rateKbps : 0))), 4),
      cpuPercentOfOneCore: cpuUse,
    };
    if (opts.json) process.stdout.write(JSON.stringify(result) + '\n');
    else console.log(JSON.stringify(result, null, 2));
  } finally {
    await cleanup();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

main().catch((err: unknown) => {
  console.error(`[testbed] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
