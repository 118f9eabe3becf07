import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, freeRtcPort, rtcPortFor } from '../../server/src/net/freePorts';

export { freePort, freeRtcPort };

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where the server's bundles go: inside the repository, so that node finds the packages they import. */
const BUNDLE_DIR = join(ROOT, 'e2e', 'out', 'server');

let bundled: Promise<string> | undefined;

/**
 * The server bundled from the source as it is now (server/src/bundle.ts), once per process: named by its
 * content, so runs side by side share one file and none runs another's code.
 */
export function serverBundle(): Promise<string> {
  bundled ??= (async () => {
    const { bundleServer } = await import('../../server/src/bundle');
    const text = await bundleServer();
    const file = join(BUNDLE_DIR, `main-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`);
    if (!existsSync(file)) {
      mkdirSync(BUNDLE_DIR, { recursive: true });
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, text);
      renameSync(partial, file);
    }
    return file;
  })();
  return bundled;
}

export interface ServerProcessOptions {
  /**
   * Without STATE_DIR the server gets a fresh state directory of its own, removed when it exits;
   * without PORT and RTC_PORT a free port and media port of its own.
   */
  env: Record<string, string>;
  /** Run inside this network namespace. */
  netns?: string;
  /** Address this process reaches the server's HTTP port at (default 127.0.0.1). */
  controlHost?: string;
  /** The server serves HTTPS (TLS_CERT_FILE, TLS_KEY_FILE) with a certificate this CA (PEM) signed. */
  ca?: string;
  /** Open the server's inspector on a free loopback port (see `inspectorUrl`), for tests that read its live memory. */
  inspect?: boolean;
  onLog: (line: string) => void;
}

export interface RunningServer {
  /** Base URL for this process (API calls). */
  url: string;
  port: number;
  /** The media port (RTC_PORT), UDP and TCP. */
  rtcPort: number;
  pid: number;
  /** The inspector's WebSocket URL, when started with `inspect`. */
  inspectorUrl?: string;
  /** False once the process has exited, however it ended. */
  running(): boolean;
  stop(): Promise<void>;
  /** SIGKILL, as in a crash; resolves once the process is gone. */
  kill(): Promise<void>;
}

/**
 * Starts the product's server as a child process and waits until it answers.
 * A port picked free can be taken by another process before the server binds
 * it (other suites run on the machine): then it is started again on new ports.
 */
export async function startServer(o: ServerProcessOptions): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    // A given PORT is kept: a server started again on its port (the soak's lost edge) keeps its viewers' URL.
    const port = o.env.PORT ? Number(o.env.PORT) : await freePort();
    const rtcPort = await rtcPortFor(o.env);
    // Only a port picked here can be picked again; a given one taken stays taken.
    const picked = !o.env.PORT || !o.env.RTC_PORT;
    try {
      return await startOn(o, port, rtcPort);
    } catch (e) {
      if (attempt >= 3 || !picked || !(e instanceof PortTakenError)) throw e;
    }
  }
}

class PortTakenError extends Error {}

async function startOn(o: ServerProcessOptions, port: number, rtcPort: number): Promise<RunningServer> {
  // In a namespace, the inspector listens where this process reaches the server: its control address.
  const inspectHost = o.netns ? (o.controlHost ?? '127.0.0.1') : '127.0.0.1';
  // Bundled: node starts it without compiling its TypeScript first (half the start on a loaded machine).
  const node = [process.execPath, ...(o.inspect ? [`--inspect=${inspectHost}:0`] : []), await serverBundle()];
  // `ip netns exec` execs the command, so the child's pid is the server's.
  const [file, ...args] = o.netns ? ['ip', 'netns', 'exec', o.netns, ...node] : node;
  // Its own state: streams one test adds must not appear in another test's server.
  const ownStateDir = o.env.STATE_DIR ? undefined : mkdtempSync(join(tmpdir(), 'pels-e2e-state-'));
  const child: ChildProcess = spawn(file!, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), RTC_PORT: String(rtcPort), RTC_LISTEN_IP: '127.0.0.1', LOG_LEVEL: 'warn', ...(ownStateDir ? { STATE_DIR: ownStateDir } : {}), ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lastLines: string[] = [];
  let inspectorUrl: string | undefined;
  const onLine = (line: string) => {
    inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1];
    lastLines.push(line);
    if (lastLines.length > 20) lastLines.shift();
    o.onLog(line);
  };
  for (const s of [child.stdout!, child.stderr!]) s.setEncoding('utf8').on('data', (t: string) => t.split('\n').filter(Boolean).forEach(onLine));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  // Exited, and all its output read.
  const closed = new Promise<void>((r) => child.once('close', () => r()));
  if (ownStateDir) void exited.then(() => rmSync(ownStateDir, { recursive: true, force: true }));
  const url = `${o.ca ? 'https' : 'http'}://${o.controlHost ?? '127.0.0.1'}:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await closed;
      const message = `server exited with code ${child.exitCode} before it was ready; its last output:\n${lastLines.join('\n')}`;
      throw lastLines.some((l) => /EADDRINUSE|address already in use/.test(l)) ? new PortTakenError(message) : new Error(message);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('server did not answer within 30 s');
    }
    const ok = await (o.ca ? httpsOk(`${url}/api/health`, o.ca) : fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false));
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port,
    rtcPort,
    pid: child.pid!,
    ...(inspectorUrl ? { inspectorUrl } : {}),
    running: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGTERM lets the server remove its nftables rules and FFmpeg.
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Whether an HTTPS GET, verified against `ca`, answers 2xx (fetch cannot be given a CA). */
function httpsOk(url: string, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpsGet(url, { ca, timeout: 1000 }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
