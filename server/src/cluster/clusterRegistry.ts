import { z } from 'zod';
import { controllerGainsSchema } from '@pels/shared/protocol/operator';
import { rateControllerNameSchema, type RateControllerName } from '@pels/shared/rate/names';
import type { Logger } from '../log';
import { ROLES } from './clusterSettings';
import { RedisConnection, type RedisAddress, type RedisReply } from './redisConnection';

/** What a node says of itself in the registry, refreshed by its heartbeat. */
export const nodeRecordSchema = z.object({
  id: z.string().min(1).max(64),
  role: z.enum(ROLES as [string, ...string[]]),
  /** How players and the other nodes reach it. */
  url: z.string().url().max(300),
  viewers: z.number().int().nonnegative(),
  viewersMax: z.number().int().nonnegative(),
  cpuPercentOfOneCore: z.number().nonnegative(),
  /** The streams it serves (an origin: those it ingests). */
  streams: z.array(z.string().max(64)).max(1000),
  /** It is stopping (SIGTERM) and moving its viewers away: placement names it no more. */
  draining: z.boolean(),
});
export type NodeRecord = z.infer<typeof nodeRecordSchema>;

/** An operator action every node applies: the controller gains, a stream's rate controller. */
export const operatorChangeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('gains'), gains: controllerGainsSchema }),
  z.object({ kind: z.literal('controller'), stream: z.string().min(1).max(64), controller: rateControllerNameSchema }),
]);
export type OperatorChange = z.infer<typeof operatorChangeSchema>;

const KEY = {
  node: (id: string) => `pels:node:${id}`,
  nodes: 'pels:nodes',
  /** Hash of the operator's shared state: field `gains`, and `controller:<stream>`. */
  operator: 'pels:operator',
};
const CHANNEL = 'pels:operator';

/** A node's heartbeat; its record lives three of them, so one late beat does not drop it. */
export const HEARTBEAT_MS = 2000;
const TTL_S = 6;

export interface ClusterRegistryOptions {
  redis: RedisAddress;
  nodeId: string;
  /** This node now (its record but the id). */
  self: () => Promise<Omit<NodeRecord, 'id'>>;
  /** An operator change made on another node (or kept in the registry, at each connection): applied here. */
  apply: (change: OperatorChange) => void;
  log: Logger;
}

/**
 * A node's side of the cluster's registry (Redis): its record (address, role, viewers, CPU, streams) set
 * every heartbeat with a time to live, so a dead node drops out; the other nodes' records; the operator's
 * shared state (a hash every node reads as it connects) and its changes (a channel every node listens to).
 * A node that loses Redis serves on with the state it has, says so, and reconnects; its changes meanwhile
 * stay its own (the next one made anywhere reaches it again).
 */
export class ClusterRegistry {
  private readonly conn: RedisConnection;
  private readonly sub: RedisConnection;
  private readonly timer: NodeJS.Timeout;
  /** The live nodes as the last heartbeat read them, for what cannot wait for Redis (a page's headers, an upgrade). */
  private lastNodes: readonly NodeRecord[] = [];
  /** The shared rate controller of each stream, as last read or heard: a stream an edge starts serving later takes it. */
  private readonly controllers = new Map<string, RateControllerName>();

  constructor(private readonly opts: ClusterRegistryOptions) {
    this.conn = new RedisConnection(opts.redis);
    this.sub = new RedisConnection(opts.redis, [CHANNEL]);
    const where = `${opts.redis.host}:${opts.redis.port}`;
    this.conn.on('up', () => {
      opts.log.info({ redis: where, node: opts.nodeId }, 'connected to the registry');
      void this.beat();
      void this.readShared();
    });
    this.conn.on('down', (reason) => opts.log.warn({ redis: where, reason }, 'the registry is unreachable: this node serves on with the state it has, and reconnects'));
    this.sub.on('message', (_channel, payload) => this.onMessage(payload));
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
  }

  start(): void {
    this.conn.start();
    this.sub.start();
  }

  get up(): boolean {
    return this.conn.up;
  }

  get nodeId(): string {
    return this.opts.nodeId;
  }

  /** The live nodes (this one too), as their last heartbeat said; empty while Redis cannot be reached. */
  async nodes(): Promise<NodeRecord[]> {
    const ids: RedisReply = await this.conn.command('SMEMBERS', KEY.nodes).catch(() => null);
    const names = Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
    if (!names.length) return [];
    const values: RedisReply = await this.conn.command('MGET', ...names.map((n) => KEY.node(n))).catch(() => null);
    if (!Array.isArray(values)) return [];
    const out: NodeRecord[] = [];
    for (const [i, v] of values.entries()) {
      if (typeof v !== 'string') {
        // Its record expired: the node is gone.
        void this.conn.command('SREM', KEY.nodes, names[i]!).catch(() => {});
        continue;
      }
      const parsed = nodeRecordSchema.safeParse(safeJson(v));
      if (parsed.success) out.push(parsed.data);
    }
    return out;
  }

  /** The live nodes as of the last heartbeat (at most 2 s old); empty before the first. */
  knownNodes(): readonly NodeRecord[] {
    return this.lastNodes;
  }

  /** The stream's rate controller as the operator last set it on any node; undefined when never set. */
  sharedController(stream: string): RateControllerName | undefined {
    return this.controllers.get(stream);
  }

  /** Writes this node's record now rather than at the next heartbeat (e.g. it started draining). */
  async beatNow(): Promise<void> {
    await this.beat();
  }

  /** The origin an edge without ORIGIN_URL connects to: the live origin first by id; null when none is. */
  async origin(): Promise<URL | null> {
    const origins = (await this.nodes()).filter((n) => n.role === 'origin').sort((a, b) => a.id.localeCompare(b.id));
    return origins[0] ? new URL(origins[0].url) : null;
  }

  /** An operator action taken here: kept in the registry and sent to every node. False: Redis is unreachable (it stays this node's). */
  async share(change: OperatorChange): Promise<boolean> {
    const field = change.kind === 'gains' ? 'gains' : `controller:${change.stream}`;
    const value = change.kind === 'gains' ? JSON.stringify(change.gains) : change.controller;
    this.remember(change);
    try {
      await this.conn.command('HSET', KEY.operator, field, value);
      await this.conn.command('PUBLISH', CHANNEL, JSON.stringify({ from: this.opts.nodeId, change }));
      return true;
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message, change: change.kind }, 'an operator change stays on this node: the registry is unreachable');
      return false;
    }
  }

  close(): void {
    clearInterval(this.timer);
    // Gone from the registry at once, not at its record's expiry.
    const id = this.opts.nodeId;
    void Promise.all([this.conn.command('DEL', KEY.node(id)), this.conn.command('SREM', KEY.nodes, id)])
      .catch(() => {})
      .finally(() => this.conn.close());
    this.sub.close();
  }

  private async beat(): Promise<void> {
    if (!this.conn.up) return;
    try {
      const record: NodeRecord = { id: this.opts.nodeId, ...(await this.opts.self()) };
      await this.conn.command('SET', KEY.node(record.id), JSON.stringify(record), 'EX', String(TTL_S));
      await this.conn.command('SADD', KEY.nodes, record.id);
      this.lastNodes = await this.nodes();
    } catch (err) {
      this.opts.log.debug({ err: (err as Error).message }, 'heartbeat not written');
    }
  }

  /** The registry's operator state, at each connection: what changed while this node was away. */
  private async readShared(): Promise<void> {
    const all = await this.conn.command('HGETALL', KEY.operator).catch(() => null);
    if (!Array.isArray(all)) return;
    for (let i = 0; i + 1 < all.length; i += 2) {
      const [field, value] = [all[i], all[i + 1]];
      if (typeof field !== 'string' || typeof value !== 'string') continue;
      const change = field === 'gains' ? { kind: 'gains', gains: safeJson(value) } : field.startsWith('controller:') ? { kind: 'controller', stream: field.slice('controller:'.length), controller: value } : null;
      this.applyParsed(change);
    }
  }

  private onMessage(payload: string): void {
    const m = safeJson(payload) as { from?: unknown; change?: unknown } | null;
    if (!m || m.from === this.opts.nodeId) return;
    this.applyParsed(m.change);
  }

  private applyParsed(raw: unknown): void {
    const parsed = operatorChangeSchema.safeParse(raw);
    if (!parsed.success) return void this.opts.log.warn({ problem: parsed.error.issues[0]?.message }, 'an operator change from the registry is not understood');
    this.remember(parsed.data);
    try {
      this.opts.apply(parsed.data);
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message, change: parsed.data.kind }, 'an operator change from the registry is refused here');
    }
  }

  private remember(change: OperatorChange): void {
    if (change.kind === 'controller') this.controllers.set(change.stream, change.controller);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
