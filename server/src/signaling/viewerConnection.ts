import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import {
  parseRequest,
  type ErrorBody,
  type Notification,
  type Request,
  type Response,
  type ResponseData,
} from '@pels/shared/protocol/signaling';
import { RequestError } from '../errors';
import type { Logger } from '../log';
import { ViewerNotifier } from '../quality/viewerNotifier';
import { publicStreamInfo } from '../streams/publicStreamInfo';
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

  constructor(
    private readonly ws: WebSocket,
    private readonly streams: StreamRegistry,
    private readonly log: Logger,
  ) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.send({ id: null, ok: false, error: { code: 'bad_request', message: 'binary messages are not supported' } });
        return;
      }
      const text = data.toString();
      this.queue = this.queue.then(() => this.onText(text));
    });
    ws.on('close', () => this.close());
    ws.on('error', (err) => log.warn({ err }, 'viewer socket error'));
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
        return { streams: this.streams.list() };
      case 'join': {
        const stream = this.streams.get(r.data.streamId);
        const routerRtpCapabilities = stream.routerRtpCapabilities;
        this.viewer?.close('joined another stream');
        const id = randomUUID().slice(0, 8);
        let notifier: ViewerNotifier | undefined;
        const viewer = await stream.addViewer(id, r.data.mode ?? 'pels', (closed) => {
          notifier?.close();
          if (this.viewer === viewer) this.viewer = null;
          if (closed.reason !== 'viewer disconnected' && closed.reason !== 'joined another stream') this.notify({ notification: 'viewerClosed', data: closed });
        });
        if (this.closed) {
          viewer.close('viewer disconnected');
          throw new RequestError('invalid_state', 'connection is closed');
        }
        this.viewer = viewer;
        notifier = new ViewerNotifier({
          subscribeQuality: (listener) => stream.subscribeQuality(listener),
          subscribeStreamState: (listener) => stream.subscribeInfo(() => listener(publicStreamInfo(stream))),
          state: () => viewer.state(),
          notify: (n) => this.notify(n),
        });
        return { viewerId: id, stream: stream.info(), routerRtpCapabilities, timestampBase: viewer.timestampBase };
      }
      case 'createTransport':
        return this.requireViewer().createTransport();
      case 'connectTransport':
        await this.requireViewer().connectTransport(r.data.dtlsParameters);
        return {};
      case 'consume':
        return { consumers: await this.requireViewer().consume(r.data.rtpCapabilities) };
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
    }
  }

  private requireViewer(): ViewerSession {
    if (!this.viewer || this.viewer.isClosed) throw new RequestError('invalid_state', 'join a stream first');
    return this.viewer;
  }

  private send(msg: Response | Notification): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(msg));
  }
}
