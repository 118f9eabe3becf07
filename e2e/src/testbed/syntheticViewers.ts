/**
 * The testbed's synthetic viewers: the load test's receivers (receivers/, one
 * Go process of real WebRTC receivers) started in the viewers' namespace, so
 * their media crosses the bottleneck as a browser's would, without a
 * browser's CPU. They join, wait out the first half of the run (the rate
 * controllers' start-up) and report from then until the run ends them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { RECEIVERS_BIN } from '../loadtest/loadTest';
import { receiversReportSchema, type ReceiversReport } from '@pels/shared/protocol/syntheticReceivers';

export interface SyntheticViewersOptions {
  count: number;
  /** The server's base URL as the viewers reach it; with `place`, a cluster's front. */
  url: string;
  /** Join through the front's placement, and go back through it when an edge is lost (receivers' -place). */
  place?: boolean;
  mode: string;
  /** Namespace to run in; undefined: this one. */
  netns: string | undefined;
  /** Seconds after the last join left out of the report. */
  warmupSeconds: number;
  /** Joins a second. */
  rampPerSecond: number;
  log: (message: string) => void;
}

export interface SyntheticViewers {
  pid: number;
  /** Resolves once every receiver has joined or failed. */
  joined: Promise<{ joined: number; failed: number }>;
  /** Ends the receivers and gives their report: from the warm-up's end until now. */
  report(): Promise<ReceiversReport>;
  stop(): Promise<void>;
}

export function startSyntheticViewers(o: SyntheticViewersOptions): SyntheticViewers {
  if (!existsSync(RECEIVERS_BIN)) throw new Error(`${RECEIVERS_BIN} is missing: run npm run setup`);
  // They hold until told to end (SIGTERM), which they answer with their report: at most a day.
  const args = ['-url', o.url, '-mode', o.mode, '-viewers', String(o.count), '-ramp', String(o.rampPerSecond), '-warmup', String(o.warmupSeconds), '-seconds', '86400', ...(o.place ? ['-place'] : [])];
  // `ip netns exec` execs the receivers, so the child's pid is theirs.
  const [file, ...rest] = o.netns ? ['ip', 'netns', 'exec', o.netns, RECEIVERS_BIN, ...args] : [RECEIVERS_BIN, ...args];
  const child: ChildProcess = spawn(file!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const joined = new Promise<{ joined: number; failed: number }>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      let ev: { event?: string; joined?: number; failed?: number } = {};
      try {
        ev = JSON.parse(line) as typeof ev;
      } catch {
        return o.log(`receivers: ${line}`);
      }
      if (ev.event !== 'joined') return;
      const done = (ev.joined ?? 0) + (ev.failed ?? 0) >= o.count;
      if (done || (ev.joined ?? 0) % 10 === 0) o.log(`synthetic viewers: ${ev.joined} joined, ${ev.failed} failed of ${o.count}`);
      if (done) resolve({ joined: ev.joined ?? 0, failed: ev.failed ?? 0 });
    });
    void exited.then((code) => reject(new Error(`the synthetic viewers exited (code ${code}) before all had joined`)));
  });
  // Unused when the run fails first.
  joined.catch(() => {});
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return {
    pid: child.pid!,
    joined,
    async report() {
      const code = await stop();
      if (code !== 0) throw new Error(`the synthetic viewers exited with code ${code}`);
      return receiversReportSchema.parse(JSON.parse(stdout));
    },
    stop: async () => void (await stop()),
  };
}
