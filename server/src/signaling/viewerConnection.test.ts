/**
 * A player's signaling socket against a real stream: real FFmpeg, a real
 * mediasoup worker, a real WebSocket. What the player is told besides answers.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { WebSocket, WebSocketServer } from 'ws';
import type { ViewerState } from '@pels/shared/protocol/api';
import type { Notification, ResponseData, ServerMessage, TransportParams } from '@pels/shared/protocol/signaling';
import { loadConfig } from '../config';
import { resolveSource } from '../ingest/mediaFiles';
import { DEFAULT_ENCODE } from '../ingest/sourceSpec';
import { Limits } from '../limits/limits';
import { createDscpMarker, type DscpMarker } from '../net/dscpMarker';
import { turnCredentials, type IceSettings } from '../net/iceServers';
import { localMediaWorker } from '../sfu/localMediaWorker';
import type { MediaWorker } from '../sfu/mediaWorker';
import { MediaWorkerPool } from '../sfu/mediaWorkerPool';
import { Stream } from '../streams/stream';
import { StreamRegistry } from '../streams/streamRegistry';
import { ViewerConnection } from './viewerConnection';

const log = pino({ level: 'silent' });
/** Unique in this machine's process list: finds this test's FFmpeg. */
const GRAPH = 'testsrc2=size=170x96:rate=30';

let media: MediaWorker;
let dscp: DscpMarker;
let stream: Stream;
const limits = new Limits(loadConfig({}, '.').limits);
const streams = new StreamRegistry();
let wss: WebSocketServer;
let url: string;
let rtcPort: number;
const ice: IceSettings = {
  servers: [{ urls: 'stun:stun.example.org:3478' }],
  turn: { urls: ['turn:turn.example.org:3478', 'turns:turn.example.org:5349'], secret: 'a shared secret', ttlS: 600 },
};

before(async () => {
  ({ media, rtcPort } = await localMediaWorker(log));
  dscp = await createDscpMarker({ instance: `test_${process.pid}`, udpPorts: { min: rtcPort, max: rtcPort }, log });
  stream = new Stream({
    id: 't',
    name: 'test pattern',
    source: await resolveSource(`lavfi:${GRAPH}`, []),
    encode: { ...DEFAULT_ENCODE, width: 160, height: 90, bitrateKbps: 200 },
    renditions: [],
    renditionPolicy: loadConfig({}, '.').renditionPolicy,
    media: new MediaWorkerPool([media]),
    keyframeMinGapMs: 1000,
    fanout: 'per-viewer',
    control: loadConfig({}, '.').control,
    feedback: 'rtcp',
    dscp,
    limits,
    log,
  });
  streams.add(stream);
  await stream.start();
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  wss.on('connection', (ws) => new ViewerConnection(ws, streams, limits, ice, log));
  await new Promise((r) => wss.once('listening', r));
  url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
});

after(async () => {
  for (const ws of wss.clients) ws.terminate();
  wss.close();
  streams.closeAll();
  media.close();
  await dscp.close();
});

/** A player's side of the socket: requests by id, notifications kept in order. */
class Player {
  readonly notifications: Notification[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, (m: ServerMessage) => void>();
  private readonly waiters = new Set<() => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as ServerMessage;
      if ('notification' in msg) {
        this.notifications.push(msg);
        for (const w of this.waiters) w();
      } else if (msg.id !== null) {
        this.pending.get(msg.id)?.(msg);
      }
    });
  }

  static async connect(): Promise<Player> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return new Player(ws);
  }

  async request(method: string, data: unknown = {}): Promise<unknown> {
    const id = this.nextId++;
    const answer = new Promise<ServerMessage>((resolve) => this.pending.set(id, resolve));
    this.ws.send(JSON.stringify({ id, method, data }));
    const msg = await answer;
    if (!('ok' in msg) || !msg.ok) throw new Error(`${method} failed: ${JSON.stringify(msg)}`);
    return msg.data;
  }

  /** The first notification from `from` on that matches. */
  next(pred: (n: Notification) => boolean, from = 0, timeoutMs = 10_000): Promise<Notification> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.notifications.slice(from).find(pred);
        if (!found) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no matching notification in ${timeoutMs} ms; got ${this.notifications.slice(from).map((n) => n.notification).join(', ')}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}

async function until(what: string, ok: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const streamState = (state: string) => (n: Notification) => n.notification === 'streamState' && n.data.state === state;

test('a joined player is told when its source stalls and when it runs again', async (t) => {
  await until('stream running', () => stream.publicInfo().state === 'running', 15_000);
  const player = await Player.connect();
  t.after(() => player.ws.close());
  await player.request('join', { streamId: 't' });
  const [pid] = execFileSync('pgrep', ['-P', String(process.pid), '-f', GRAPH], { encoding: 'utf8' }).trim().split('\n').map(Number);
  process.kill(pid!, 'SIGSTOP');
  let stalled: Notification;
  try {
    stalled = await player.next(streamState('stalled'));
  } finally {
    process.kill(pid!, 'SIGCONT');
  }
  const from = player.notifications.indexOf(stalled);
  const running = await player.next(streamState('running'), from);
  assert.equal(running.notification === 'streamState' && running.data.id, 't');
  assert.equal(running.notification === 'streamState' && running.data.restarts, 0);
});

test('joining subscribes the viewer to state changes; leaving, rejoining or closing the socket unsubscribes it', async () => {
  await until('earlier viewers gone', () => stream.viewerCount() === 0);
  const before = stream.listenerCount('info');
  const player = await Player.connect();
  for (let i = 0; i < 20; i++) {
    await player.request('join', { streamId: 't' });
    assert.equal(stream.listenerCount('info'), before + 1, `joined, cycle ${i}`);
    await player.request(i % 2 ? 'leave' : 'join', { streamId: 't' });
    assert.equal(stream.listenerCount('info'), before + (i % 2 ? 0 : 1), `left or rejoined, cycle ${i}`);
    if (i % 2 === 0) await player.request('leave');
  }
  assert.equal(stream.listenerCount('info'), before);
  await player.request('join', { streamId: 't' });
  player.ws.close();
  await until('socket closed, listener gone', () => stream.listenerCount('info') === before);
});

test("an operator's disconnect tells the player not to rejoin; a media worker restart lets it", async (t) => {
  const player = await Player.connect();
  t.after(() => player.ws.close());
  const { viewerId } = (await player.request('join', { streamId: 't' })) as { viewerId: string };
  streams.forEachViewer((v) => {
    if (v.id === viewerId) v.close('disconnected by the operator', { rejoin: false });
  });
  const closed = await player.next((n) => n.notification === 'viewerClosed');
  assert.deepEqual(closed.data, { reason: 'disconnected by the operator', rejoin: false });

  const from = player.notifications.length;
  await player.request('join', { streamId: 't' });
  await stream.onMediaWorkerRestarted(0);
  const again = await player.next((n) => n.notification === 'viewerClosed', from);
  assert.deepEqual(again.data, { reason: 'media worker restarted', rejoin: true });
});

test("every viewer's transport is on the one RTC port, UDP and TCP, and its player gets the ICE servers with TURN credentials of its own", async (t) => {
  const players = await Promise.all([Player.connect(), Player.connect()]);
  t.after(() => players.forEach((p) => p.ws.close()));
  for (const player of players) {
    const { viewerId } = (await player.request('join', { streamId: 't' })) as { viewerId: string };
    const before = Math.floor(Date.now() / 1000);
    const params = (await player.request('createTransport')) as TransportParams;
    const after = Math.floor(Date.now() / 1000);
    const candidates = (params.iceCandidates as { protocol: string; port: number; address: string; tcpType?: string }[]).map((c) => ({
      protocol: c.protocol,
      port: c.port,
      address: c.address,
      ...(c.tcpType ? { tcpType: c.tcpType } : {}),
    }));
    assert.deepEqual(candidates, [
      { protocol: 'udp', port: rtcPort, address: '127.0.0.1' },
      { protocol: 'tcp', port: rtcPort, address: '127.0.0.1', tcpType: 'passive' },
    ]);
    const [stun, turn] = params.iceServers;
    assert.deepEqual(stun, { urls: 'stun:stun.example.org:3478' });
    assert.deepEqual(turn?.urls, ['turn:turn.example.org:3478', 'turns:turn.example.org:5349']);
    const [expiry, user] = turn!.username!.split(':');
    assert.equal(user, viewerId);
    assert.ok(Number(expiry) >= before + 600 && Number(expiry) <= after + 600, `expiry ${expiry} is 600 s from now`);
    assert.equal(turn!.credential, turnCredentials('a shared secret', viewerId, Number(expiry)).credential);
  }
});

test("the quality menu's choice reaches the viewer's rendition state; a rendition the stream lacks is a bad request", async (t) => {
  const player = await Player.connect();
  t.after(() => player.ws.close());
  const { viewerId } = (await player.request('join', { streamId: 't' })) as { viewerId: string };
  const pinned = () => {
    let out: number | null | undefined;
    streams.forEachViewer((v) => {
      if (v.id === viewerId) out = v.state().rendition.pinned;
    });
    return out;
  };
  assert.deepEqual(await player.request('setRendition', { rendition: 0 }), { rendition: 0 });
  assert.equal(pinned(), 0);
  await assert.rejects(player.request('setRendition', { rendition: 1 }), /bad_request.*no rendition 1: the stream has 1 \(0 to 0\)/);
  assert.equal(pinned(), 0);
  assert.deepEqual(await player.request('setRendition', { rendition: 'auto' }), { rendition: 'auto' });
  assert.equal(pinned(), null);
});

test('many viewers listening to one stream raise no listener-leak warning', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.name);
  process.on('warning', onWarning);
  const unsubscribe = Array.from({ length: 50 }, () => stream.subscribeInfo(() => {}));
  await new Promise((r) => setImmediate(r));
  unsubscribe.forEach((u) => u());
  process.off('warning', onWarning);
  assert.deepEqual(warnings.filter((w) => w === 'MaxListenersExceededWarning'), []);
});

test('a join naming no stream joins the first, lists every stream and, asked, carries the transport; a join naming an unknown one is not_found', async (t) => {
  const player = await Player.connect();
  t.after(() => player.ws.close());
  const joined = (await player.request('join', { transport: true })) as ResponseData['join'];
  assert.equal(joined.stream.id, 't');
  assert.deepEqual(joined.streams.map((s) => s.id), ['t']);
  assert.ok(joined.transport?.id, 'the transport made with the join');
  assert.deepEqual(joined.transport.iceServers[0], { urls: 'stun:stun.example.org:3478' });
  // The transport exists: asking again is out of order.
  await assert.rejects(player.request('createTransport'), /invalid_state.*transport already created/);
  const plain = (await player.request('join', { streamId: 't' })) as ResponseData['join'];
  assert.equal(plain.transport, undefined);
  await assert.rejects(player.request('join', { streamId: 'nope', transport: true }), /not_found/);
});

test('one consume takes the video, the sound, the colors, the rendition and the resume; a refused rendition is said, not failed; out of order it is a clear error', async (t) => {
  await until('stream running', () => stream.publicInfo().state === 'running', 15_000);
  const player = await Player.connect();
  t.after(() => player.ws.close());
  const joined = (await player.request('join', { streamId: 't' })) as ResponseData['join'];
  const rtpCapabilities = joined.routerRtpCapabilities;
  await assert.rejects(player.request('consume', { rtpCapabilities, audio: true, resume: true }), /invalid_state.*create a transport first/);
  await player.request('createTransport');
  await assert.rejects(player.request('consume', { rtpCapabilities, colors: ['red'] }), /bad_request.*green/);
  const consumed = (await player.request('consume', { rtpCapabilities, audio: true, resume: true, colors: ['green'], rendition: 1 })) as ResponseData['consume'];
  assert.deepEqual(consumed.consumers.map((c) => c.color), ['green', 'yellow', 'red']);
  assert.equal(consumed.audio?.consumer.kind, 'audio');
  assert.match(consumed.renditionRefused ?? '', /no rendition 1/);
  const state = () => {
    let out: ViewerState | undefined;
    streams.forEachViewer((v) => {
      if (v.id === joined.viewerId) out = v.state();
    });
    return out!;
  };
  assert.deepEqual(state().colors, ['green']);
  // Resumed: the viewer's flow takes the stream's frames.
  await until('frames sent to the viewer', () => state().framesSent.tid0 > 0, 10_000);
  await assert.rejects(player.request('consume', { rtpCapabilities }), /invalid_state.*already consuming/);
  await assert.rejects(player.request('consumeAudio', { rtpCapabilities }), /invalid_state.*already consuming the sound/);
});
