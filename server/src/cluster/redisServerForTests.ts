import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';

/** A real redis-server for a test or the testbed (Debian's, installed by npm run setup): loopback unless told, a password, nothing saved. */
export interface TestRedis {
  port: number;
  password: string;
  proc: ChildProcess;
  stop: () => Promise<void>;
}

/** `bind`: the one address it listens on (the cluster's network); `netns`: the network namespace it runs in. */
export async function startRedis(port = randomInt(20_000, 29_000), where: { bind?: string; netns?: string } = {}): Promise<TestRedis> {
  const password = 'redis-password-for-tests-0123';
  const redis = ['redis-server', '--port', String(port), '--bind', where.bind ?? '127.0.0.1', '--requirepass', password, '--save', '', '--appendonly', 'no'];
  // `ip netns exec` execs redis-server, so the child's pid is Redis's.
  const [file, ...args] = where.netns ? ['ip', 'netns', 'exec', where.netns, ...redis] : redis;
  const proc = spawn(file!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out.slice(-300)}`)), 10_000);
    proc.once('error', (err) => reject(new Error(`redis-server cannot be run (npm run setup installs it): ${err.message}`)));
    proc.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-300)}`)));
  });
  return {
    port,
    password,
    proc,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
    },
  };
}
