/**
 * A live stream (the soak's, the testbed's with --ingest): made through the
 * operator API and fed by an RTMP or SRT publisher (FFmpeg, as OBS sends),
 * which the soak's publisher-drop fault kills and starts again. Like OBS (Settings, Advanced, "Automatically Reconnect"), the
 * publisher connects again 2 s after the server closes its connection (a
 * revoked key, a takeover; a failure of the server's own ingest of it, its
 * FFmpeg or encoder killed, restarts the ingest on the same connection).
 */
import { publishRtmp, publishSrt, type LiveProtocol, type LivePublisher, type PublishOptions } from '../livePublisher';

export interface LivePublish {
  streamId: string;
  /** SIGKILL, then a new publisher with the same key after `awayMs`. */
  drop(awayMs: number): Promise<void>;
  stop(): Promise<void>;
}

const RECONNECT_DELAY_MS = 2000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Makes live stream `streamId` through the operator API; resolves with its key. */
export async function createLiveStream(serverUrl: string, operatorToken: string, streamId: string): Promise<string> {
  const res = await fetch(`${serverUrl}/api/streams`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: streamId, source: 'live:' }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`making the live stream answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/** Makes live stream `streamId` on the server at `serverUrl` and publishes to it over `protocol` (RTMP by default) at `host:port`. */
export async function startLivePublish(o: {
  serverUrl: string;
  operatorToken: string;
  streamId: string;
  host: string;
  port: number;
  protocol?: LiveProtocol;
  /** SRT: the caller's receive latency (SRT's own default otherwise: 120 ms); the larger of the caller's and the listener's holds. */
  srtLatencyMs?: number;
  publish?: Omit<PublishOptions, 'seconds'>;
}): Promise<LivePublish> {
  const key = await createLiveStream(o.serverUrl, o.operatorToken, o.streamId);
  const protocol = o.protocol ?? 'rtmp';
  // FFmpeg's SRT latency is in microseconds.
  const url = protocol === 'rtmp' ? `rtmp://${o.host}:${o.port}/live/${key}` : `srt://${o.host}:${o.port}?streamid=${key}${o.srtLatencyMs ? `&latency=${o.srtLatencyMs * 1000}` : ''}`;
  let stopped = false;
  /** Set while the publisher is away on purpose (dropped by the fault, or stopped). */
  let away = false;
  let publisher!: LivePublisher;
  const connect = () => {
    const p = (protocol === 'rtmp' ? publishRtmp : publishSrt)(url, { ...o.publish, seconds: 24 * 3600 });
    publisher = p;
    void p.exited.then(async () => {
      if (away || stopped || publisher !== p) return;
      await sleep(RECONNECT_DELAY_MS);
      if (!away && !stopped && publisher === p) connect();
    });
  };
  connect();
  const kill = async () => {
    publisher.kill();
    await publisher.exited;
  };
  return {
    streamId: o.streamId,
    async drop(awayMs) {
      away = true;
      await kill();
      await sleep(awayMs);
      away = false;
      if (!stopped) connect();
    },
    async stop() {
      stopped = true;
      await kill();
    },
  };
}
