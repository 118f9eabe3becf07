/**
 * The soak's faults, each done the way it happens in production: processes
 * killed or stopped by signal, the link down, abusive clients, an operator
 * restarting a stream. Each resolves when the fault itself is over (a stopped
 * process continued, the link up again); recovery is measured from then.
 */
import { connect } from 'node:net';
import { malformedMessages } from '../malformedSignaling';
import { run } from '../net/run';
import { ingestFfmpegPid, mediaWorkerPids, vp8EncoderPid } from '../serverChildren';
import { SignalingClient } from '../signalingClient';
import type { FaultKind } from './faultSchedule';

export interface FaultTarget {
  serverPid: number;
  /** The server's base URL and port from the runner (API, signaling). */
  serverUrl: string;
  serverPort: number;
  operatorToken: string;
  /** The stream the viewers watch, and its source, for a restart; a substring of its ingest FFmpeg's arguments. */
  streamId: string;
  source: string;
  ingestArg: string;
  /** The live stream's publisher: drops (SIGKILL) and comes back after `awayMs`. */
  publisher: { drop(awayMs: number): Promise<void> };
  /** The origin-edge pair: its edge SIGKILLed (the soak starts it again while measuring recovery). */
  edge: { killEdge(): Promise<string> };
  /** The bottleneck link's server end and its namespace. */
  serverNs: string;
  bottleneckDev: string;
}

/** Well within the reconnect window (PUBLISH_RECONNECT_S, 30 s): a publisher's network blip, not its end. */
const PUBLISHER_AWAY_MS = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function signal(pid: number, sig: NodeJS.Signals): void {
  // A pid of 0 or less would signal a process group: never.
  if (!(pid > 0)) throw new Error(`refusing to signal pid ${pid}`);
  process.kill(pid, sig);
}

/** Injects one fault; resolves with a short description once it is over. */
export async function inject(kind: FaultKind, t: FaultTarget): Promise<string> {
  switch (kind) {
    case 'worker-kill': {
      const [pid] = mediaWorkerPids(t.serverPid);
      if (pid === undefined) throw new Error('no mediasoup worker to kill');
      signal(pid, 'SIGKILL');
      return `mediasoup worker ${pid} SIGKILL`;
    }
    case 'ffmpeg-kill': {
      const pid = ingestFfmpegPid(t.serverPid, t.ingestArg);
      signal(pid, 'SIGKILL');
      return `ingest FFmpeg ${pid} SIGKILL`;
    }
    case 'encoder-kill': {
      const pid = vp8EncoderPid(t.serverPid);
      signal(pid, 'SIGKILL');
      return `VP8 encoder ${pid} SIGKILL`;
    }
    case 'ffmpeg-stop': {
      const pid = ingestFfmpegPid(t.serverPid, t.ingestArg);
      signal(pid, 'SIGSTOP');
      await sleep(5000);
      try {
        signal(pid, 'SIGCONT');
      } catch {
        // The server replaced it meanwhile.
      }
      return `ingest FFmpeg ${pid} SIGSTOP for 5 s`;
    }
    case 'link-down': {
      await run('ip', ['link', 'set', t.bottleneckDev, 'down'], t.serverNs);
      await sleep(3000);
      await run('ip', ['link', 'set', t.bottleneckDev, 'up'], t.serverNs);
      return 'bottleneck link down for 3 s';
    }
    case 'signaling-abuse': {
      const answered = await malformedBurst(t, 100);
      await abandonedHandshakes(t, 20);
      return `100 malformed signaling messages (${answered} answered), 20 abandoned handshakes`;
    }
    case 'stream-restart': {
      await restartStream(t);
      return `stream "${t.streamId}" removed and added again by the operator`;
    }
    case 'publisher-drop': {
      await t.publisher.drop(PUBLISHER_AWAY_MS);
      return `the live stream's publisher SIGKILL, back after ${PUBLISHER_AWAY_MS / 1000} s`;
    }
    case 'edge-loss':
      return t.edge.killEdge();
  }
}

async function malformedBurst(t: FaultTarget, n: number): Promise<number> {
  const client = await SignalingClient.open(`${t.serverUrl.replace(/^http/, 'ws')}/ws`);
  let answered = 0;
  try {
    const messages = malformedMessages(n);
    for (let i = 0; i < messages.length; i += 8) {
      const replies = await Promise.all(messages.slice(i, i + 8).map((m) => client.sendText(m)));
      answered += replies.length;
    }
  } finally {
    client.close();
  }
  return answered;
}

/** Sockets that start a WebSocket upgrade and never finish its headers, dropped after a while. */
async function abandonedHandshakes(t: FaultTarget, n: number): Promise<void> {
  const host = new URL(t.serverUrl).hostname;
  const sockets = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<ReturnType<typeof connect>>((resolve, reject) => {
          const s = connect(t.serverPort, host, () => {
            s.write(`GET /ws HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: websocket\r\nx-n: ${i}\r\n`);
            resolve(s);
          });
          s.on('error', reject);
        }),
    ),
  );
  await sleep(1000);
  for (const s of sockets) s.destroy();
}

async function restartStream(t: FaultTarget): Promise<void> {
  const headers = { authorization: `Bearer ${t.operatorToken}`, 'content-type': 'application/json' };
  const del = await fetch(`${t.serverUrl}/api/streams/${encodeURIComponent(t.streamId)}`, { method: 'DELETE', headers, signal: AbortSignal.timeout(15_000) });
  if (!del.ok) throw new Error(`removing the stream answered ${del.status}: ${await del.text()}`);
  const add = await fetch(`${t.serverUrl}/api/streams`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ id: t.streamId, source: t.source }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!add.ok) throw new Error(`adding the stream again answered ${add.status}: ${await add.text()}`);
}
