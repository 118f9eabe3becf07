/**
 * For tests that probe the server as an outsider: the real main.ts in a child
 * process (real FFmpeg, mediasoup worker, listeners) on 127.0.0.1, its log
 * kept, and what it holds of the machine (open fds, child processes) read
 * from /proc, so a test can check a burst of bad input left nothing behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { rtcPortFor } from './net/freePorts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerUnderTest {
  proc: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  /** The "serving the player" line's fields (port, rtmpPort, srtPort, ...). */
  ready: Record<string, unknown>;
  logLines: string[];
  stop(): Promise<void>;
}

/** Starts the server with `env` over the test's own (PORT 0, HOST 127.0.0.1 and a free RTC_PORT unless given). */
export async function startServer(env: Record<string, string>): Promise<ServerUnderTest> {
  const rtcPort = String(await rtcPortFor(env));
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', RTC_PORT: rtcPort, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logLines: string[] = [];
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${logLines.slice(-5).join('\n')}`)), 30_000);
    for (const s of [proc.stdout!, proc.stderr!]) {
      s.setEncoding('utf8').on('data', (text: string) => {
        for (const line of text.split('\n').filter(Boolean)) {
          logLines.push(line);
          if (line.includes('serving the player')) {
            clearTimeout(timer);
            resolve(JSON.parse(line) as Record<string, unknown>);
          }
        }
      });
    }
    proc.once('exit', (code) => reject(new Error(`server exited (${code}): ${logLines.slice(-5).join('\n')}`)));
  });
  return {
    proc,
    base: `http://127.0.0.1:${String(ready.port)}`,
    ready,
    logLines,
    stop: async () => {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** The server's child processes (pid and name), but tsx's esbuild, which a deployed server does not have. */
export function childrenOf(pid: number): { pid: string; name: string }[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) return [];
        return [{ pid: p, name: readFileSync(`/proc/${p}/comm`, 'utf8').trim() }];
      } catch {
        return []; // gone meanwhile
      }
    })
    .filter((c) => c.name !== 'esbuild');
}

/** File descriptors the process has open now. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** A player's signaling answer, as the tests read it. */
export interface SignalingAnswer {
  ok: boolean;
  data?: any;
  error?: { code?: string; message: string };
}

/**
 * A signaling socket on the server at `base` (http://...), open: `request` sends one request and resolves with its
 * answer; `notifications` collects what the server sends unasked.
 */
export async function signalingClient(
  base: string,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket; request: (method: string, data?: unknown) => Promise<SignalingAnswer>; notifications: any[] }> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers });
  const notifications: any[] = [];
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw.toString());
    if (msg.notification) notifications.push(msg);
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  const request = (method: string, data: unknown = {}) =>
    new Promise<SignalingAnswer>((resolve) => {
      const mine = ++id;
      const on = (raw: Buffer) => {
        const msg = JSON.parse(raw.toString());
        if (msg.id !== mine) return;
        ws.off('message', on);
        resolve(msg);
      };
      ws.on('message', on);
      ws.send(JSON.stringify({ id: mine, method, data }));
    });
  return { ws, request, notifications };
}
