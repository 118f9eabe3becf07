import type { RouterFeedback } from '@pels/shared/protocol/routerFeedback';
import { readBottleneckCounters, type QueueCounters, type BottleneckCounters, type BottleneckKind } from './pelsBottleneck';

/** An unmeasured drop is taken to be a full-size video packet. */
const DEFAULT_PACKET_BYTES = 1200;

function offeredBytes(prev: QueueCounters | undefined, cur: QueueCounters | undefined): number {
  if (!cur) return 0;
  const p = prev ?? { bytes: 0, packets: 0, dropped: 0, backlogBytes: 0 };
  const avg = cur.packets > 0 ? cur.bytes / cur.packets : DEFAULT_PACKET_BYTES;
  // What arrived = what left + what waits now - what waited before + what was dropped.
  return cur.bytes - p.bytes + (cur.backlogBytes - p.backlogBytes) + (cur.dropped - p.dropped) * avg;
}

export interface RouterSample {
  offeredKbps: number;
  /** Capacity the PELS queue had: its weighted share, plus what the Internet queue left unused. */
  capacityKbps: number;
  p: number;
}

/**
 * Eq. 11 over one interval: R from the bytes offered to the PELS queue
 * (green + yellow + red, or the single video FIFO in best-effort mode),
 * p = (R - C) / R, bounded to [-1, 1] so an idle interval (R near 0) gives a
 * strong but finite push up.
 */
export function bottleneckSample(
  prev: BottleneckCounters,
  cur: BottleneckCounters,
  intervalMs: number,
  linkKbps: number,
  internetShare: number,
  kind: BottleneckKind,
): RouterSample {
  const queues = kind === 'pels' ? (['green', 'yellow', 'red'] as const) : (['video'] as const);
  let bytes = 0;
  for (const q of queues) bytes += offeredBytes(prev[q], cur[q]);
  const offeredKbps = Math.max(0, (bytes * 8) / intervalMs);
  const internetKbps = Math.max(0, (((cur.internet?.bytes ?? 0) - (prev.internet?.bytes ?? 0)) * 8) / intervalMs);
  const capacityKbps = Math.max(linkKbps * (1 - internetShare), linkKbps - internetKbps);
  const p = offeredKbps > 0 ? Math.max(-1, Math.min(1, (offeredKbps - capacityKbps) / offeredKbps)) : -1;
  return { offeredKbps, capacityKbps, p };
}

export interface BottleneckAgentOptions {
  ns: string;
  dev: string;
  intervalMs: number;
  linkKbps: number;
  internetShare: number;
  kind: BottleneckKind;
  routerId: string;
  /** Delivers one sample (e.g. POST to the server); errors are counted, not thrown. */
  deliver: (fb: RouterFeedback) => Promise<void>;
}

/** Samples the router every T and delivers eq. 11 feedback with an increasing epoch. */
export class BottleneckAgent {
  private timer: NodeJS.Timeout | null = null;
  private prev: BottleneckCounters = {};
  private prevAt = 0;
  private epoch = 0;
  private busy = false;
  deliveryErrors = 0;
  last: RouterSample | null = null;

  /** The link's rate now: a testbed capacity step changes it. */
  private linkKbps: number;

  constructor(private readonly o: BottleneckAgentOptions) {
    this.linkKbps = o.linkKbps;
  }

  /** The bottleneck was moved to another rate: samples from now on measure against it. */
  setLinkKbps(kbps: number): void {
    this.linkKbps = kbps;
  }

  async start(): Promise<void> {
    this.prev = await readBottleneckCounters(this.o.ns, this.o.dev);
    this.prevAt = performance.now();
    this.timer = setInterval(() => void this.tick(), this.o.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async tick(): Promise<void> {
    if (this.busy) return; // a slow tc read: skip a beat rather than pile up
    this.busy = true;
    try {
      const cur = await readBottleneckCounters(this.o.ns, this.o.dev);
      const now = performance.now();
      const sample = bottleneckSample(this.prev, cur, now - this.prevAt, this.linkKbps, this.o.internetShare, this.o.kind);
      const intervalMs = now - this.prevAt;
      this.prev = cur;
      this.prevAt = now;
      this.last = sample;
      await this.o.deliver({ routerId: this.o.routerId, epoch: ++this.epoch, p: sample.p, intervalMs, offeredKbps: sample.offeredKbps, capacityKbps: sample.capacityKbps });
    } catch {
      this.deliveryErrors++;
    } finally {
      this.busy = false;
    }
  }
}
