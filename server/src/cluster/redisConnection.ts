import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import { encodeCommand, RespError, RespReader, type RespValue } from './resp';

export interface RedisAddress {
  host: string;
  port: number;
  /** REDIS_PASSWORD: sent with AUTH as the connection opens. */
  password: string | undefined;
}

type RedisEvents = {
  /** Connected (and authenticated, and subscribed). */
  up: [];
  /** Lost or not reached: once per outage, with the reason. */
  down: [reason: string];
  /** A message on a subscribed channel. */
  message: [channel: string, payload: string];
};

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 5000;
/** A command (or the connection) not answered this long fails: the node goes on without the registry. */
const TIMEOUT_MS = 3000;

/**
 * One connection to Redis, kept open (reopened with backoff). Commands while it is down fail at once: a
 * node does not wait for its registry. With `subscribe`, the connection listens to those channels instead
 * (Redis takes no other commands on it).
 */
export class RedisConnection extends EventEmitter<RedisEvents> {
  private socket: Socket | null = null;
  private ready = false;
  private pending: { resolve: (v: RespValue) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }[] = [];
  private retryMs = RETRY_MIN_MS;
  private retry: NodeJS.Timeout | null = null;
  private wasUp = true;
  private closed = false;

  constructor(
    private readonly address: RedisAddress,
    private readonly subscribe: readonly string[] = [],
  ) {
    super();
  }

  get up(): boolean {
    return this.ready;
  }

  start(): void {
    this.open();
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.socket?.destroy();
    this.fail('closed');
  }

  /** One command; rejects when Redis is unreachable, answers an error, or is too slow. */
  command(...args: string[]): Promise<RespValue> {
    if (!this.ready || this.subscribe.length) return Promise.reject(new Error(this.subscribe.length ? 'a subscriber takes no commands' : 'Redis is unreachable'));
    return this.send(args);
  }

  private send(args: readonly string[]): Promise<RespValue> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.socket?.destroy(new Error(`Redis did not answer ${args[0]} within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      this.pending.push({ resolve, reject, timer });
      this.socket!.write(encodeCommand(args));
    });
  }

  private open(): void {
    const { host, port, password } = this.address;
    const socket = connect({ host, port });
    this.socket = socket;
    const reader = new RespReader();
    socket.setNoDelay(true);
    socket.setTimeout(TIMEOUT_MS, () => {
      if (!this.ready) socket.destroy(new Error(`no connection within ${TIMEOUT_MS} ms`));
    });
    socket.on('connect', () => {
      void (async () => {
        if (password !== undefined) await this.expectOk(this.send(['AUTH', password]));
        if (this.subscribe.length) await this.send(['SUBSCRIBE', ...this.subscribe]);
        // SUBSCRIBE is answered once per channel: the first answer came, the rest are read and dropped.
        this.ready = true;
        this.wasUp = true;
        this.retryMs = RETRY_MIN_MS;
        socket.setTimeout(0);
        this.emit('up');
      })().catch((err: unknown) => socket.destroy(err instanceof Error ? err : new Error(String(err))));
    });
    socket.on('data', (chunk) => {
      let values: RespValue[];
      try {
        values = reader.push(chunk);
      } catch (err) {
        return void socket.destroy(err as Error);
      }
      for (const v of values) this.onReply(v);
    });
    let lastError = 'connection closed';
    socket.on('error', (err) => (lastError = err.message));
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.ready = false;
      const reason = lastError;
      this.fail(reason);
      if (this.closed) return;
      if (this.wasUp) this.emit('down', reason);
      this.wasUp = false;
      this.retry = setTimeout(() => this.open(), this.retryMs);
      this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    });
  }

  private onReply(v: RespValue): void {
    if (this.ready && this.subscribe.length) {
      if (Array.isArray(v) && v[0] === 'message' && typeof v[1] === 'string' && typeof v[2] === 'string') this.emit('message', v[1], v[2]);
      return;
    }
    const p = this.pending.shift();
    if (!p) return;
    clearTimeout(p.timer);
    if (v instanceof RespError) p.reject(v);
    else p.resolve(v);
  }

  private async expectOk(reply: Promise<RespValue>): Promise<void> {
    const v = await reply;
    if (v !== 'OK') throw new Error(`AUTH answered ${JSON.stringify(v)}`);
  }

  private fail(reason: string): void {
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer);
      p.reject(new Error(`Redis: ${reason}`));
    }
  }
}
