import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

export interface RedisAddress {
  host: string;
  port: number;
  /** REDIS_PASSWORD: sent with AUTH as the connection opens. */
  password: string | undefined;
}

/** A Redis reply as the registry reads it. */
export type RedisReply = string | number | null | RedisReply[];

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
 * One connection to Redis (ioredis), kept open and reopened with backoff. Commands while it is down
 * fail at once, not queued: a node does not wait for its registry. With `subscribe`, the connection
 * listens to those channels instead (and subscribes again after each reconnection).
 */
export class RedisConnection extends EventEmitter<RedisEvents> {
  private readonly client: Redis;
  private wasUp = true;
  private lastError = 'connection closed';

  constructor(
    address: RedisAddress,
    private readonly subscribe: readonly string[] = [],
  ) {
    super();
    this.client = new Redis({
      host: address.host,
      port: address.port,
      ...(address.password !== undefined ? { password: address.password } : {}),
      lazyConnect: true,
      enableOfflineQueue: false,
      connectTimeout: TIMEOUT_MS,
      commandTimeout: TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      autoResubscribe: false,
      retryStrategy: (times) => Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (times - 1)),
    });
    this.client.on('ready', () => {
      // A subscriber is up once it listens again (each connection is a new subscription).
      const listening = this.subscribe.length ? this.client.subscribe(...this.subscribe) : Promise.resolve();
      listening.then(
        () => {
          this.wasUp = true;
          this.emit('up');
        },
        (err: Error) => {
          this.lastError = err.message;
          this.client.disconnect(true); // and connect again
        },
      );
    });
    this.client.on('error', (err: Error) => (this.lastError = err.message));
    this.client.on('close', () => {
      if (!this.wasUp) return;
      this.wasUp = false;
      this.emit('down', this.lastError);
    });
    this.client.on('message', (channel: string, payload: string) => this.emit('message', channel, payload));
  }

  get up(): boolean {
    return this.client.status === 'ready';
  }

  start(): void {
    // The first connection's failure is reported by 'close' and retried like any other.
    this.client.connect().catch(() => {});
  }

  close(): void {
    this.client.disconnect();
  }

  /** One command; rejects when Redis is unreachable, answers an error, or is too slow. */
  command(name: string, ...args: string[]): Promise<RedisReply> {
    if (this.subscribe.length) return Promise.reject(new Error('a subscriber takes no commands'));
    if (!this.up) return Promise.reject(new Error('Redis is unreachable'));
    return this.client.call(name, ...args) as Promise<RedisReply>;
  }
}
