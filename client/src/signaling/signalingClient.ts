/**
 * The player's end of the signaling WebSocket (protocol in @pels/shared/protocol/signaling):
 * numbered requests with one answer each, and server notifications.
 */
import type { ErrorCode, Method, Notification, Request, ResponseData } from '@pels/shared/protocol/signaling';

export type RequestData<M extends Method> = Extract<Request, { method: M }>['data'];

export class SignalingError extends Error {
  override name = 'SignalingError';
  constructor(
    readonly code: ErrorCode | 'timeout' | 'closed',
    message: string,
  ) {
    super(message);
  }
}

export interface SignalingHandlers {
  onNotification(notification: Notification): void;
  /** The socket closed without close() being called. */
  onClose(reason: string): void;
}

interface PendingRequest {
  resolve(data: unknown): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

const REQUEST_TIMEOUT_MS = 10_000;

/** ws(s)://<this host>/ws */
export function signalingUrl(location: Location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
}

export class SignalingClient {
  private nextId = 1;
  private readonly pending = new Map<number, PendingRequest>();
  private closed = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly handlers: SignalingHandlers,
  ) {
    ws.addEventListener('message', (ev) => this.onMessage(ev.data));
    ws.addEventListener('close', (ev) => this.onSocketClose(ev.reason || `code ${ev.code}`));
  }

  /** Resolves once the socket is open. */
  static connect(url: string, handlers: SignalingHandlers): Promise<SignalingClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const onOpen = () => {
        ws.removeEventListener('close', onFail);
        resolve(new SignalingClient(ws, handlers));
      };
      const onFail = () => {
        ws.removeEventListener('open', onOpen);
        reject(new SignalingError('closed', `cannot reach the server at ${url}`));
      };
      ws.addEventListener('open', onOpen, { once: true });
      ws.addEventListener('close', onFail, { once: true });
    });
  }

  request<M extends Method>(method: M, data: RequestData<M>): Promise<ResponseData[M]> {
    if (this.closed) return Promise.reject(new SignalingError('closed', 'signaling connection is closed'));
    const id = this.nextId++;
    return new Promise<ResponseData[M]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new SignalingError('timeout', `${method}: no answer from the server in ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve: (d) => resolve(d as ResponseData[M]), reject, timer });
      this.ws.send(JSON.stringify({ id, method, data }));
    });
  }

  /** Closes the socket; pending requests fail, onClose is not called. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.failPending('signaling connection closed');
    this.ws.close(1000, 'player closed');
  }

  private onMessage(raw: unknown): void {
    let msg: unknown;
    try {
      msg = JSON.parse(String(raw));
    } catch {
      console.warn('signaling: ignoring a message that is not JSON');
      return;
    }
    if (typeof msg !== 'object' || msg === null) return;
    if ('notification' in msg) {
      this.handlers.onNotification(msg as Notification);
      return;
    }
    const res = msg as { id?: unknown; ok?: unknown; data?: unknown; error?: { code?: ErrorCode; message?: string } };
    const pending = typeof res.id === 'number' ? this.pending.get(res.id) : undefined;
    if (!pending) {
      if (res.ok === false) console.warn('signaling: server error', res.error);
      return;
    }
    this.pending.delete(res.id as number);
    clearTimeout(pending.timer);
    if (res.ok === true) pending.resolve(res.data);
    else pending.reject(new SignalingError(res.error?.code ?? 'internal', res.error?.message ?? 'request failed'));
  }

  private onSocketClose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.failPending(`signaling connection closed: ${reason}`);
    this.handlers.onClose(reason);
  }

  private failPending(message: string): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new SignalingError('closed', message));
    }
    this.pending.clear();
  }
}
