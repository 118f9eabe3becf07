import { parseRateControllerName, type RateControllerName } from '@pels/shared/rate/names';
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import {
  parseRequest,
  type ErrorBody,
  type IceServer,
  type Notification,
  type Request,
  type Response,
  type ResponseData,
  type TransportParams,
} from '@pels/shared/protocol/signaling';
import { RequestError } from '../errors';
import type { Limits } from '../limits/limits';
import { isDroppable, sendVerdict } from '../limits/sendBuffer';
import type { Logger } from '../log';
import { iceServersFor, type IceSettings } from '../net/iceServers';
import { ViewerNotifier } from '../quality/viewerNotifier';
import type { StreamRegistry } from '../streams/streamRegistry';
import type { ViewerSession } from '../viewer/viewerSession';

/**
 * One player's WebSocket: validates each request, runs it, answers it.
 * A connection has at most one viewer session; it closes with the socket.
 */
export class ViewerConnection {
  private viewer: ViewerSession | null = null;
  private closed = false;
  /** Requests run one at a time, in order, like the player sends them. */
  private queue: Promise<void> = Promise.resolve();
  /** Requests received and not yet answered. */
  private pending = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly streams: StreamRegistry,
    private readonly limits: Limits,
    private readonly ice: IceSettings,
    private readonly log: Logger,
    /** The client's address: its viewer places and TURN credentials are counted by it. */
    private readonly address?: string,
  ) {
    ws.on('message', (data, isBinary) => {
      if (ws.readyState !== ws.OPEN) return;
      if (isBinary) {
        this.send({ id: null, ok: false, error: { code: 'bad_request', message: 'binary messages are not supported' } });
        return;
      }
      const { maxPendingRequests } = limits.settings;
      if (this.pending >= maxPendingRequests) {
        limits.rejections.add('pending_requests');
        ws.close(1008, `more than ${maxPendingRequests} requests waiting for an answer`);
        return;
      }
      this.pending++;
      const text = data.toString();
      this.queue = this.queue.then(() => this.onText(text)).finally(() => this.pending--);
    });
    ws.on('close', () => this.close());
    // A peer's protocol error (an oversized or malformed frame): one line, no stack; ws closes the socket.
    ws.on('error', (err: Error & { code?: string }) => log.warn({ code: err.code, reason: err.message }, 'viewer socket error'));
  }

  notify(n: Notification): void {
    this.send(n);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.viewer?.close('viewer disconnected');
    this.viewer = null;
  }

  private async onText(text: string): Promise<void> {
    const parsed = parseRequest(text);
    if (!parsed.ok) {
      this.log.debug({ error: parsed.error }, 'rejected signaling message');
      this.send({ id: parsed.id, ok: false, error: parsed.error });
      return;
    }
    const { request } = parsed;
    try {
      const data = await this.handle(request);
      this.send({ id: request.id, ok: true, data } as Response);
    } catch (err) {
      const error: ErrorBody =
        err instanceof RequestError ? { code: err.code, message: err.message } : { code: 'internal', message: 'internal error' };
      if (!(err instanceof RequestError)) this.log.error({ err, method: request.method }, 'request failed');
      this.send({ id: request.id, ok: false, error });
    }
  }

  private async handle(r: Request): Promise<ResponseData[Request['method']]> {
    if (this.closed) throw new RequestError('invalid_state', 'connection is closed');
    switch (r.method) {
      case 'getStreams':
        return { streams: this.streams.publicList() };
      case 'join': {
        const streams = this.streams.publicList();
        const streamId = r.data.streamId ?? streams[0]?.id;
        if (streamId === undefined) throw new RequestError('not_found', 'the server has no streams');
        const stream = this.streams.get(streamId);
        const controller = r.data.controller === undefined ? undefined : controllerNamed(r.data.controller);
        const routerRtpCapabilities = stream.routerRtpCapabilities;
        this.viewer?.close('joined another stream');
        const id = randomUUID().slice(0, 8);
        let notifier: ViewerNotifier | undefined;
        const viewer = await stream.addViewer(
          id,
          r.data.mode ?? 'pels',
          (closed) => {
            notifier?.close();
            if (this.viewer === viewer) this.viewer = null;
            if (closed.reason !== 'viewer disconnected' && closed.reason !== 'joined another stream') this.notify({ notification: 'viewerClosed', data: closed });
          },
          controller,
          this.address,
        );
        if (this.closed) {
          viewer.close('viewer disconnected');
          throw new RequestError('invalid_state', 'connection is closed');
        }
        this.viewer = viewer;
        notifier = new ViewerNotifier({
          subscribeQuality: (rendition, listener) => stream.subscribeQuality(rendition, listener),
          subscribeStreamState: (listener) => stream.subscribeInfo(listener),
          state: () => viewer.state(),
          notify: (n) => this.notify(n),
        });
        const transport = r.data.transport ? await this.createTransport(viewer) : undefined;
        return { viewerId: id, stream: stream.publicInfo(), streams, routerRtpCapabilities, timestampBase: viewer.timestampBase, ...(transport ? { transport } : {}) };
      }
      case 'createTransport':
        return await this.createTransport(this.requireViewer());
      case 'connectTransport':
        await this.requireViewer().connectTransport(r.data.dtlsParameters);
        return {};
      case 'consume': {
        const viewer = this.requireViewer();
        const { rtpCapabilities, audio, colors, resume, rendition } = r.data;
        const consumers = await viewer.consume(rtpCapabilities);
        const sound = audio ? await viewer.consumeAudio(rtpCapabilities) : undefined;
        if (colors) await viewer.setColors(colors);
        if (resume) await viewer.resume();
        const renditionRefused = rendition === undefined ? undefined : refusalOf(() => viewer.pinRendition(rendition));
        return { consumers, ...(sound ? { audio: sound } : {}), ...(renditionRefused ? { renditionRefused } : {}) };
      }
      case 'consumeAudio':
        return await this.requireViewer().consumeAudio(r.data.rtpCapabilities);
      case 'resume':
        await this.requireViewer().resume();
        return {};
      case 'setColors':
        return { colors: await this.requireViewer().setColors(r.data.colors) };
      case 'leave':
        this.viewer?.close('viewer left');
        this.viewer = null;
        return {};
      case 'reportQuality':
        this.requireViewer().reportQuality(r.data);
        return {};
      case 'setRendition':
        this.requireViewer().pinRendition(r.data.rendition);
        return { rendition: r.data.rendition };
      case 'reportTransport':
        await this.requireViewer().reportTransport(r.data.relay);
        return {};
      case 'clock':
        return { serverMs: Date.now() };
    }
  }

  private async createTransport(viewer: ViewerSession): Promise<TransportParams> {
    return { ...(await viewer.createTransport()), iceServers: this.iceServers(viewer.id) };
  }

  /** The ICE servers; a TURN credential only while this address mints fewer than its limit (a flood of joins would otherwise mint relays for anyone). */
  private iceServers(viewerId: string): IceServer[] {
    if (!this.ice.turn || this.limits.turnCredentials.take(this.address)) return iceServersFor(this.ice, viewerId, Date.now());
    this.limits.rejections.add('turn_credentials');
    return this.ice.servers;
  }

  private requireViewer(): ViewerSession {
    if (!this.viewer || this.viewer.isClosed) throw new RequestError('invalid_state', 'join a stream first');
    return this.viewer;
  }

  /** Sends unless the player is not reading: then notifications are dropped, and the socket closed before an answer would pile up. */
  private send(msg: Response | Notification): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const bytes = encodedMessage(msg);
    const { maxSendBufferBytes } = this.limits.settings;
    const droppable = isDroppable(msg);
    switch (sendVerdict(this.ws.bufferedAmount, bytes.length, droppable, maxSendBufferBytes)) {
      case 'send':
        // Only the notifications are compressed: they are the bulk, and answers then go out as before, at once.
        return this.ws.send(bytes, { binary: false, compress: droppable });
      case 'drop':
        this.limits.rejections.notificationsDropped++;
        return;
      case 'close':
        this.limits.rejections.add('send_buffer');
        this.log.warn({ bufferedBytes: this.ws.bufferedAmount }, 'closing a signaling socket whose player does not read');
        // Not a close handshake: its frame would wait behind what the player is not reading.
        return this.ws.terminate();
    }
  }
}

/** The player's `?cc=`: a known rate controller, or a bad request naming the known ones. */
function controllerNamed(name: string): RateControllerName {
  try {
    return parseRateControllerName(name);
  } catch (err) {
    throw new RequestError('bad_request', (err as Error).message);
  }
}

/** A request's refusal (a RequestError) as its message, undefined when it was taken; other errors pass. */
function refusalOf(apply: () => void): string | undefined {
  try {
    apply();
    return undefined;
  } catch (err) {
    if (err instanceof RequestError) return err.message;
    throw err;
  }
}

/** A stream's PSNR batch goes to each of its viewers: encoded once per batch object (QualityFeed hands one to all at the same row). */
const encodedBatches = new WeakMap<object, Buffer>();

/** The message as the UTF-8 of its JSON text frame. */
function encodedMessage(msg: Response | Notification): Buffer {
  const shared = 'notification' in msg && msg.notification === 'quality' ? msg.data : null;
  const cached = shared && encodedBatches.get(shared);
  if (cached) return cached;
  const bytes = Buffer.from(JSON.stringify(msg));
  if (shared) encodedBatches.set(shared, bytes);
  return bytes;
}
