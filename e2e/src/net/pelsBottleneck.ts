import { flowMode } from '@pels/shared/control/flowMode';
import type { FlowModeName } from '@pels/shared/protocol/api';
import { run } from './run';

/**
 * The PELS router on the server-side egress of the bottleneck, built from
 * what this kernel has (no netem, prio, red or gact; see docs/architecture.md):
 *
 *   1: htb (default -> Internet)
 *   `-1:1 rate C
 *      |- 1:10 PELS queue   rate C*(1-w) ceil C
 *      |    |- 1:11 green  (AF41) prio 0  bfifo (bytes)
 *      |    |- 1:12 yellow (AF42) prio 1  pfifo
 *      |    `- 1:13 red    (AF43) prio 2  pfifo
 *      `- 1:20 Internet queue rate C*w ceil C   pfifo
 *   1:99 blackhole: random loss, chosen by a classic BPF filter before any queue
 *
 * HTB lends spare capacity to the lowest prio first, which gives near-strict
 * priority green > yellow > red inside the PELS queue; the two queues share
 * the link by weight when both are busy. The FIFO router, as an ordinary
 * Internet router, puts all UDP (the video and its RTCP) in one drop-tail
 * queue (1:10 with a single pfifo) whatever its DSCP; the viewers' TCP (page,
 * signaling) keeps the Internet queue.
 */
export const BOTTLENECK_KINDS = ['pels', 'fifo'] as const;
export type BottleneckKind = (typeof BOTTLENECK_KINDS)[number];

/** The bottleneck a flow mode is measured behind unless told: only PELS flows are told apart; the others share one FIFO. */
export function bottleneckKindOf(mode: FlowModeName): BottleneckKind {
  return flowMode(mode).marksColors ? 'pels' : 'fifo';
}

/** A bottleneck kind by name (the testbed's `--router` value). */
export function parseBottleneckKind(name: string): BottleneckKind {
  const kind = BOTTLENECK_KINDS.find((k) => k === name);
  if (!kind) throw new RangeError(`router must be one of ${BOTTLENECK_KINDS.join(', ')}; got "${name}"`);
  return kind;
}

export interface BottleneckOptions {
  capacityKbps: number;
  /** Random loss before the queues, percent. */
  lossPct: number;
  kind: BottleneckKind;
  /** Internet queue's share of the link when both queues are busy (paper: 50%). */
  internetShare: number;
  /** Drop-tail limit of the yellow queue (or the FIFO router's video queue), packets. */
  queuePackets: number;
  /**
   * Drop-tail limit of the green queue, bytes; absent: about 1 s of the link
   * (defaultGreenQueueBytes). Counted in bytes because the sound is green too:
   * in a packet-counted queue each of its small packets took a full packet's
   * room, and the keyframe burst of every viewer at once (one encoder frame
   * serves them all) found green's queue full at well under its nominal bytes.
   */
  greenQueueBytes?: number;
  /**
   * Drop-tail limit of the red queue, packets. Short on purpose: HTB gives each
   * class its own buffer, so a full buffer cannot push out queued red packets
   * for arriving yellow ones as a shared-buffer PELS queue would. A shallow red
   * queue makes red the first to drop and leaves the deeper yellow buffer for
   * the bursts a keyframe causes.
   */
  redQueuePackets: number;
  internetQueuePackets: number;
  /**
   * TCP port whose data (server to viewers) goes to the video FIFO instead of
   * the Internet queue: the testbed's bulk TCP flows sharing one drop-tail
   * queue with the video. FIFO router only (PELS has no such queue).
   */
  sharedTcpPort?: number;
  /** A blackhole class for the flows useless-packet avoidance drops (the UPTA agent adds their filters). */
  uptaClass?: boolean;
}

export const BOTTLENECK_DEFAULTS: Omit<BottleneckOptions, 'capacityKbps' | 'kind' | 'queuePackets'> = {
  lossPct: 0,
  internetShare: 0.5,
  redQueuePackets: 10,
  internetQueuePackets: 100,
};

/** Default yellow (or FIFO) limit: about 500 ms of the link in full-size packets (at least 20). */
export function defaultQueuePackets(capacityKbps: number): number {
  return Math.max(20, Math.round((capacityKbps * 500) / 8 / 1200));
}

/**
 * Default green limit: about 1 s of the link in bytes (at least 20 full-size packets' worth). 500 ms held every
 * viewer's keyframe at once on an idle server, but a busy one sends after its event loop stalls in bursts that
 * overflowed it (docs/deployment.md, "Sizing a PELS router's green queue").
 */
export function defaultGreenQueueBytes(capacityKbps: number): number {
  return Math.max(20 * 1200, Math.round((capacityKbps * 1000) / 8));
}

export const BOTTLENECK_CLASSES = { green: '1:11', yellow: '1:12', red: '1:13', internet: '1:20', video: '1:10', upta: '1:98', random: '1:99' } as const;

const DSFIELD = { green: '0x88', yellow: '0x90', red: '0x98' } as const; // DSCP << 2: AF41, AF42, AF43

/** The router's HTB classes at a capacity, made (`add`) or changed in place (`change`). */
function capacityClasses(verb: 'add' | 'change', dev: string, o: Pick<BottleneckOptions, 'capacityKbps' | 'internetShare' | 'kind'>): string[][] {
  const c = `${o.capacityKbps}kbit`;
  const videoRate = `${Math.max(8, Math.round(o.capacityKbps * (1 - o.internetShare)))}kbit`;
  const netRate = `${Math.max(8, Math.round(o.capacityKbps * o.internetShare))}kbit`;
  // Bursts of a few packets keep HTB's shaping close to the nominal rate at these low rates.
  const htb = (parent: string, id: string, rate: string, extra: string[] = []) => [
    'class', verb, 'dev', dev, 'parent', parent, 'classid', id, 'htb', 'rate', rate, 'ceil', c, 'burst', '4k', 'cburst', '4k', 'quantum', '1514', ...extra,
  ];
  const classes = [htb('1:', '1:1', c), htb('1:1', BOTTLENECK_CLASSES.video, videoRate), htb('1:1', BOTTLENECK_CLASSES.internet, netRate)];
  if (o.kind === 'pels') {
    // Each color's guaranteed rate is tiny: what it gets is lent in priority order.
    classes.push(
      htb(BOTTLENECK_CLASSES.video, BOTTLENECK_CLASSES.green, '8kbit', ['prio', '0']),
      htb(BOTTLENECK_CLASSES.video, BOTTLENECK_CLASSES.yellow, '8kbit', ['prio', '1']),
      htb(BOTTLENECK_CLASSES.video, BOTTLENECK_CLASSES.red, '8kbit', ['prio', '2']),
    );
  }
  return classes;
}

/** A drop-tail leaf: `pfifo` counts packets, `bfifo` bytes. */
type FifoKind = 'pfifo' | 'bfifo';

/** The tc arguments that add a drop-tail leaf, or change a running one's limit. */
function fifoQdisc(verb: 'add' | 'change', dev: string, parent: string, handle: string, limit: number, kind: FifoKind): string[] {
  return ['qdisc', verb, 'dev', dev, 'parent', parent, 'handle', handle, kind, 'limit', String(limit)];
}

/** The tc commands (arguments after `tc`) that build the router. Pure, so tests can read them. */
export function bottleneckCommands(dev: string, o: BottleneckOptions): string[][] {
  const [root, video, internet, ...colors] = capacityClasses('add', dev, o);
  const fifo = (parent: string, handle: string, limit: number, kind: FifoKind = 'pfifo') => fifoQdisc('add', dev, parent, handle, limit, kind);
  const cmds: string[][] = [
    ['qdisc', 'add', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '20', 'r2q', '1'],
    root!,
    video!,
    internet!,
    fifo(BOTTLENECK_CLASSES.internet, '20:', o.internetQueuePackets),
  ];
  if (o.kind === 'pels') {
    cmds.push(
      ...colors,
      fifo(BOTTLENECK_CLASSES.green, '11:', o.greenQueueBytes ?? defaultGreenQueueBytes(o.capacityKbps), 'bfifo'),
      fifo(BOTTLENECK_CLASSES.yellow, '12:', o.queuePackets),
      fifo(BOTTLENECK_CLASSES.red, '13:', o.redQueuePackets),
    );
    for (const color of ['green', 'yellow', 'red'] as const) {
      cmds.push(['filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '10', 'u32', 'match', 'ip', 'dsfield', DSFIELD[color], '0xfc', 'flowid', BOTTLENECK_CLASSES[color]]);
    }
  } else {
    cmds.push(fifo(BOTTLENECK_CLASSES.video, '10:', o.queuePackets));
    // All UDP (the video and its RTCP) in the one FIFO, marked or not.
    cmds.push(['filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '10', 'u32', 'match', 'ip', 'protocol', '17', '0xff', 'flowid', BOTTLENECK_CLASSES.video]);
    if (o.sharedTcpPort !== undefined) {
      cmds.push(['filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '10', 'u32', 'match', 'ip', 'protocol', '6', '0xff', 'match', 'ip', 'sport', String(o.sharedTcpPort), '0xffff', 'flowid', BOTTLENECK_CLASSES.video]);
    }
  }
  if (o.uptaClass) {
    cmds.push(
      ['class', 'add', 'dev', dev, 'parent', '1:', 'classid', BOTTLENECK_CLASSES.upta, 'htb', 'rate', '1gbit', 'quantum', '1514'],
      ['qdisc', 'add', 'dev', dev, 'parent', BOTTLENECK_CLASSES.upta, 'handle', '98:', 'blackhole'],
    );
  }
  if (o.lossPct > 0) cmds.push(...randomLossCommands(dev, o.lossPct));
  return cmds;
}

/** A blackhole class and the filter that sends `lossPct` percent of the packets, at random, into it. */
function randomLossCommands(dev: string, lossPct: number): string[][] {
  // Classic BPF: load the kernel's random number (SKF_AD_RANDOM), below the threshold -> class 1:99.
  const threshold = Math.round((lossPct / 100) * 2 ** 32);
  return [
    ['class', 'replace', 'dev', dev, 'parent', '1:', 'classid', BOTTLENECK_CLASSES.random, 'htb', 'rate', '1gbit', 'quantum', '1514'],
    ['qdisc', 'replace', 'dev', dev, 'parent', BOTTLENECK_CLASSES.random, 'handle', '99:', 'blackhole'],
    ['filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '1', 'bpf', 'bytecode', `4,32 0 0 4294963256,53 0 1 ${threshold},6 0 0 0,6 0 0 65689`, 'classid', BOTTLENECK_CLASSES.random],
  ];
}

/** Moves a running router to another random loss: its filter goes, and a new one comes when the loss is not 0. */
export async function changeLoss(ns: string, dev: string, lossPct: number): Promise<void> {
  if (!(Number.isFinite(lossPct) && lossPct >= 0 && lossPct < 100)) throw new RangeError(`loss must be in [0, 100) percent; got ${lossPct}`);
  // Only the random-loss filter sits at priority 1; none there yet is not an error.
  await run('tc', ['filter', 'del', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '1'], ns).catch(() => {});
  if (lossPct > 0) for (const cmd of randomLossCommands(dev, lossPct)) await run('tc', cmd, ns);
}

export function validateBottleneckOptions(o: BottleneckOptions): string[] {
  const errors: string[] = [];
  if (!(Number.isFinite(o.capacityKbps) && o.capacityKbps >= 64 && o.capacityKbps <= 1_000_000)) errors.push(`capacity must be in [64, 1000000] kb/s; got ${o.capacityKbps}`);
  if (!(Number.isFinite(o.lossPct) && o.lossPct >= 0 && o.lossPct < 100)) errors.push(`loss must be in [0, 100) percent; got ${o.lossPct}`);
  if (!(o.internetShare > 0 && o.internetShare < 1)) errors.push(`Internet share must be in (0, 1); got ${o.internetShare}`);
  if (o.sharedTcpPort !== undefined && o.kind === 'pels') errors.push('TCP can share the video FIFO only behind the FIFO router (PELS has one queue per color)');
  for (const [name, v] of [['queue limit', o.queuePackets], ['red queue limit', o.redQueuePackets], ['Internet queue limit', o.internetQueuePackets]] as const) {
    if (!(Number.isInteger(v) && v >= 2 && v <= 10000)) errors.push(`${name} must be an integer in [2, 10000] packets; got ${v}`);
  }
  const g = o.greenQueueBytes;
  // At least one full-size packet, or green could carry nothing.
  if (g !== undefined && !(Number.isInteger(g) && g >= 1500 && g <= 100_000_000)) errors.push(`green queue limit must be an integer in [1500, 100000000] bytes; got ${g}`);
  return errors;
}

type CapacityChange = Pick<BottleneckOptions, 'capacityKbps' | 'internetShare' | 'kind'> & {
  /** The packet-counted video FIFOs' new limit (yellow, or the one FIFO); absent: the limits stay. */
  queuePackets?: number;
  /** Green's new limit, bytes (PELS only); absent: it stays. */
  greenQueueBytes?: number;
};

/**
 * The tc commands that move a running router to another capacity: its
 * classes change in place, so the packets queued and the counters carry on;
 * with `queuePackets` and `greenQueueBytes` the video FIFOs' limits change too (red's stays).
 */
export function capacityChangeCommands(dev: string, o: CapacityChange): string[][] {
  const cmds = capacityClasses('change', dev, o);
  const limit = (parent: string, handle: string, value: number, kind: FifoKind = 'pfifo') => fifoQdisc('change', dev, parent, handle, value, kind);
  if (o.kind === 'pels' && o.greenQueueBytes !== undefined) cmds.push(limit(BOTTLENECK_CLASSES.green, '11:', o.greenQueueBytes, 'bfifo'));
  if (o.queuePackets !== undefined) cmds.push(o.kind === 'pels' ? limit(BOTTLENECK_CLASSES.yellow, '12:', o.queuePackets) : limit(BOTTLENECK_CLASSES.video, '10:', o.queuePackets));
  return cmds;
}

export async function changeCapacity(ns: string, dev: string, o: CapacityChange): Promise<void> {
  if (!(Number.isFinite(o.capacityKbps) && o.capacityKbps >= 64 && o.capacityKbps <= 1_000_000)) throw new RangeError(`capacity must be in [64, 1000000] kb/s; got ${o.capacityKbps}`);
  for (const cmd of capacityChangeCommands(dev, o)) await run('tc', cmd, ns);
}

export async function applyBottleneck(ns: string, dev: string, o: BottleneckOptions): Promise<void> {
  const errors = validateBottleneckOptions(o);
  if (errors.length) throw new RangeError(errors.join('; '));
  await run('tc', ['qdisc', 'del', 'dev', dev, 'root'], ns).catch(() => {});
  for (const cmd of bottleneckCommands(dev, o)) await run('tc', cmd, ns);
}

export interface QueueCounters {
  /** Bytes and packets the queue sent on. */
  bytes: number;
  packets: number;
  dropped: number;
  backlogBytes: number;
}

export type BottleneckCounters = Partial<Record<'green' | 'yellow' | 'red' | 'video' | 'internet' | 'upta' | 'random', QueueCounters>>;

const HANDLE_TO_QUEUE: Record<string, keyof BottleneckCounters> = { '11:': 'green', '12:': 'yellow', '13:': 'red', '10:': 'video', '20:': 'internet', '98:': 'upta', '99:': 'random' };

/** Blackhole queues: random loss and useless-packet avoidance, which drop all they get whatever the load. */
const BLACKHOLE_QUEUES: ReadonlySet<string> = new Set<keyof BottleneckCounters>(['upta', 'random']);

/** Parses `tc -s -j qdisc show`: the leaf queues' counters. */
export function parseQdiscStats(json: string): BottleneckCounters {
  const out: BottleneckCounters = {};
  for (const q of JSON.parse(json) as Array<{ handle: string; bytes: number; packets: number; drops: number; backlog: number }>) {
    const name = HANDLE_TO_QUEUE[q.handle];
    if (!name) continue;
    // The blackhole qdiscs count what they swallowed as drops.
    out[name] = { bytes: q.bytes, packets: q.packets, dropped: BLACKHOLE_QUEUES.has(name) ? q.packets + q.drops : q.drops, backlogBytes: q.backlog };
  }
  return out;
}

export async function readBottleneckCounters(ns: string, dev: string): Promise<BottleneckCounters> {
  return parseQdiscStats(await run('tc', ['-s', '-j', 'qdisc', 'show', 'dev', dev], ns));
}

/**
 * The congestion drop rate: what full queues dropped over what was offered to
 * them (sent on + dropped), from per-queue packet counts such as the testbed's
 * `router.secondHalf`; the blackholes are left out, as random loss is the
 * wire's, not the queues'. Null when nothing was offered.
 */
export function queueDropRate(counts: Readonly<Record<string, { sent: number; dropped: number }>>): number | null {
  let offered = 0;
  let dropped = 0;
  for (const [name, q] of Object.entries(counts)) {
    if (BLACKHOLE_QUEUES.has(name)) continue;
    offered += q.sent + q.dropped;
    dropped += q.dropped;
  }
  return offered > 0 ? dropped / offered : null;
}
