/**
 * Synthetic viewers that come and go: the receivers (receivers/, real WebRTC)
 * in churn mode, each staying a random time once joined and then replaced by
 * a new one. Each life is reported when it ends, with when it began and ended,
 * so the soak can leave out lives that saw a fault.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { RECEIVERS_BIN } from '../loadtest/loadTest';
import { receiverLifeSchema, type ReceiverLife } from '@pels/shared/protocol/syntheticReceivers';

export type Life = ReceiverLife;

export interface ChurnOptions {
  /** Viewers present at once. */
  count: number;
  url: string;
  /** `url` is a cluster's front: each viewer is placed on an edge there, and moves to another when it loses its edge (`-place`). */
  place?: boolean;
  /** The stream they join. */
  streamId: string;
  netns: string | undefined;
  stayMinS: number;
  stayMaxS: number;
  /** Joins a second while the first of them start. */
  rampPerSecond: number;
  onLife: (life: Life) => void;
  log: (message: string) => void;
}

export interface ChurnViewers {
  pid: number;
  /** Ends every viewer (their last lives are reported, `cut`); resolves once the process is gone. */
  stop(): Promise<void>;
}

export function startChurn(o: ChurnOptions): ChurnViewers {
  if (!existsSync(RECEIVERS_BIN)) throw new Error(`${RECEIVERS_BIN} is missing: run npm run setup`);
  const args = ['-url', o.url, '-stream', o.streamId, '-viewers', String(o.count), '-ramp', String(o.rampPerSecond), '-stay', `${o.stayMinS}:${o.stayMaxS}`, ...(o.place ? ['-place'] : [])];
  // `ip netns exec` execs the receivers, so the child's pid is theirs.
  const [file, ...rest] = o.netns ? ['ip', 'netns', 'exec', o.netns, RECEIVERS_BIN, ...args] : [RECEIVERS_BIN, ...args];
  const child = spawn(file!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return o.log(`receivers: ${line}`);
    }
    const life = receiverLifeSchema.safeParse(json);
    if (life.success) o.onLife(life.data);
    else o.log(`receivers: a life report that does not match its schema: ${life.error.message.slice(0, 300)}`);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => o.log(`receivers: ${line}`));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}
