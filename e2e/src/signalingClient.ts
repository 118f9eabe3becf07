import { once } from 'node:events';
import { WebSocket } from 'ws';
import type { ErrorBody, Method, Notification } from '@pels/shared/protocol/signaling';

export type Reply = { id: number | null; ok: true; data: Record<string, unknown> } | { id: number | null; ok: false; error: ErrorBody };

/**
 * A player's signaling without a browser: raw requests over the server's /ws
 * WebSocket (join and createTransport need no WebRTC stack). Keeps every
 * notification and the close code.
 */
export class SignalingClient {
  readonly notifications: Notification[] = [];
  /** Resolves when the socket closes, with the server's close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private nextId = 1;
  private readonly waiting = new Map<number, (r: Reply) => void>();
  /** Callers of sendText, in the order their messages went out. */
  private readonly inOrder: Array<(r: Reply) => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as Reply | Notification;
      if ('notification' in msg) this.notifications.push(msg);
      else {
        this.inOrder.shift()?.(msg);
        if (msg.id !== null) this.waiting.get(msg.id)?.(msg);
      }
    });
    ws.on('error', () => {}); // a refused or cut connection shows in `closed`
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** `compress: false` declines permessage-deflate: each request then reaches the server as sent, with no inflating between them. */
  static async open(url: string, o: { compress?: boolean } = {}): Promise<SignalingClient> {
    const ws = new WebSocket(url, { perMessageDeflate: o.compress ?? true });
    await once(ws, 'open');
    return new SignalingClient(ws);
  }

  request(method: Method, data: unknown = {}): Promise<Reply> {
    const id = this.nextId++;
    const reply = new Promise<Reply>((resolve) => this.waiting.set(id, resolve));
    this.ws.send(JSON.stringify({ id, method, data }));
    return reply;
  }

  /**
   * Sends any text frame, e.g. a malformed request whose answer may carry no
   * id; resolves with the next answer, since the server answers one message at
   * a time, in order. Not for use beside request() on the same client.
   */
  sendText(text: string): Promise<Reply> {
    const reply = new Promise<Reply>((resolve) => this.inOrder.push(resolve));
    this.ws.send(text);
    return reply;
  }

  /** Sends a request without waiting for its answer. */
  fire(method: Method, data: unknown = {}): void {
    this.ws.send(JSON.stringify({ id: this.nextId++, method, data }));
  }

  close(): void {
    this.ws.terminate();
  }
}
