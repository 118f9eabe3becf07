/**
 * One layered video session under receiver-driven layered multicast with two
 * TCP transfers beside it: the source's layers and two FTP senders reach node
 * N1, N1 -> N2 is the shared 1 Mb/s link, and N2 feeds receiver R1 and
 * receiver R2 over their own slower links; each TCP transfer goes to one of
 * them. Multicast is emulated: a layer crosses N1 -> N2 while some receiver
 * is subscribed to it, and N2 copies it onto each subscribed receiver's link;
 * joins and leaves reach N2 after the receiver link's delay and N1 after the
 * core link's too. All links are drop-tail.
 */
import { RLM_DEFAULTS, RlmReceiver } from '@pels/shared/rlm/rlm';
import { EventQueue } from './eventQueue';
import { Link } from './links';
import { TcpReceiver, TcpSender } from './tcp';

export interface RlmSessionParams {
  /** Each layer's rate (CBR) or on-rate (VBR), kb/s. */
  layerKbps: readonly number[];
  source: 'cbr' | 'vbr';
  /** Receiver link rates, kb/s (R1, R2). */
  receiverKbps: readonly [number, number];
  /** RLM measurement window W, packets. */
  windowPackets: number;
  /** Each TCP transfer, packets; and when they start, ms. */
  tcpPackets: number;
  tcpStartMs: number;
  durationMs: number;
  random: () => number;
}

export const RLM_NETWORK = {
  coreKbps: 1000,
  coreDelayMs: 200,
  receiverDelayMs: 200,
  accessKbps: 10_000,
  accessDelayMs: 1,
  queuePackets: 15,
  packetBytes: 1000,
  tcpWindow: 20,
  tcpMinRtoMs: 200,
  tcpInitialRtoMs: 3000,
  /** Pareto on and off periods of a VBR layer: mean and shape. */
  vbrMeanMs: 500,
  vbrShape: 1.5,
} as const;

interface Pkt {
  bytes: number;
  /** Video layer (1-based), or 0 for TCP. */
  layer: number;
  seq: number;
  /** TCP: the receiver it goes to (0, 1). */
  to: number;
}

/** Per receiver, per second of the run. */
export interface RlmSecond {
  layers: number;
  rlmKbps: number;
  tcpKbps: number;
  tcpCwnd: number;
  /** Video packets lost until now / received until now. */
  lossRatio: number;
  /** Receiver link: bytes carried / capacity. */
  utilisation: number;
}

export interface RlmReceiverResult {
  seconds: RlmSecond[];
  /** TCP transfer end after its start, s; null: not done. */
  tcpCompletionS: number | null;
  layerAdds: number;
  layerDrops: number;
}

export interface RlmSessionResult {
  receivers: [RlmReceiverResult, RlmReceiverResult];
  events: number;
}

/** A Pareto draw with the given mean and shape. */
function pareto(meanMs: number, shape: number, random: () => number): number {
  const scale = (meanMs * (shape - 1)) / shape;
  return scale / Math.pow(1 - random(), 1 / shape);
}

export function runRlmSession(p: RlmSessionParams): RlmSessionResult {
  const n = RLM_NETWORK;
  const events = new EventQueue();
  const layers = p.layerKbps.length;
  const seconds = Math.ceil(p.durationMs / 1000);
  const bins = [0, 1].map(() => ({ rlm: new Array<number>(seconds).fill(0), tcp: new Array<number>(seconds).fill(0) }));
  const bin = (): number => Math.min(seconds - 1, Math.floor(events.nowMs / 1000));

  // Subscriptions as N2 and N1 see them, per receiver.
  const atN2 = [1, 1];
  const atN1 = [1, 1];
  const receivers: RlmReceiver[] = [];
  const tcpRx = [new TcpReceiver(), new TcpReceiver()];
  const tcpTx: TcpSender[] = [];

  const deliver = (r: number, pkt: Pkt): void => {
    if (pkt.layer > 0) {
      bins[r]!.rlm[bin()]! += pkt.bytes;
      receivers[r]!.onPacket(pkt.layer, pkt.seq, events.nowMs);
      wake(r);
    } else {
      bins[r]!.tcp[bin()]! += pkt.bytes;
      const ack = tcpRx[r]!.onSegment(pkt.seq, pkt.bytes);
      events.after(n.receiverDelayMs + n.coreDelayMs + n.accessDelayMs, () => tcpTx[r]!.onAck(ack));
    }
  };
  const receiverLinks = [0, 1].map((r) => new Link<Pkt>(events, { rateKbps: p.receiverKbps[r]!, delayMs: n.receiverDelayMs, limitPackets: n.queuePackets }, (pkt) => deliver(r, pkt)));
  const core = new Link<Pkt>(events, { rateKbps: n.coreKbps, delayMs: n.coreDelayMs, limitPackets: n.queuePackets }, (pkt) => {
    if (pkt.layer > 0) {
      for (let r = 0; r < 2; r++) if (atN2[r]! >= pkt.layer) receiverLinks[r]!.send(pkt);
    } else receiverLinks[pkt.to]!.send(pkt);
  });
  const intoN1 = (pkt: Pkt): void => {
    if (pkt.layer > 0 && !(atN1[0]! >= pkt.layer || atN1[1]! >= pkt.layer)) return; // pruned
    core.send(pkt);
  };
  const access = new Link<Pkt>(events, { rateKbps: n.accessKbps, delayMs: n.accessDelayMs, limitPackets: 1000 }, intoN1);

  // Receivers: a change of subscription reaches N2 after the receiver link's delay, N1 after the core's too.
  const known = [1, 1];
  const wakeAt: (number | undefined)[] = [undefined, undefined];
  const wake = (r: number): void => {
    const rx = receivers[r]!;
    if (rx.subscription !== known[r]) {
      const level = (known[r] = rx.subscription);
      events.after(n.receiverDelayMs, () => (atN2[r] = level));
      events.after(n.receiverDelayMs + n.coreDelayMs, () => (atN1[r] = level));
    }
    const next = rx.nextWakeMs;
    if (next !== wakeAt[r]) {
      wakeAt[r] = next;
      events.at(Math.max(next, events.nowMs), () => {
        if (wakeAt[r] !== next) return; // superseded
        wakeAt[r] = undefined;
        rx.tick(events.nowMs);
        wake(r);
      });
    }
  };
  for (let r = 0; r < 2; r++) {
    receivers.push(
      new RlmReceiver({ ...RLM_DEFAULTS, layers, windowPackets: p.windowPackets }, p.random, 0, (layer) => {
        // Shared learning: the announcement reaches the other receiver through N2.
        events.after(2 * n.receiverDelayMs, () => {
          receivers[1 - r]!.onAnnounce(layer, events.nowMs);
          wake(1 - r);
        });
      }),
    );
  }
  events.at(0, () => [0, 1].forEach(wake));

  // The layers: CBR with randomised departures (each gap uniform within +-50% of the mean), or Pareto on-off.
  p.layerKbps.forEach((kbps, i) => {
    const layer = i + 1;
    const gapMs = (n.packetBytes * 8) / kbps;
    let seq = 0;
    const send = (): void => access.send({ bytes: n.packetBytes, layer, seq: seq++, to: -1 });
    if (p.source === 'cbr') {
      const next = (): void => {
        send();
        const at = events.nowMs + gapMs * (0.5 + p.random());
        if (at < p.durationMs) events.at(at, next);
      };
      events.at(p.random() * gapMs, next);
    } else {
      const burst = (endMs: number): void => {
        if (events.nowMs >= endMs) {
          const offEnd = events.nowMs + pareto(n.vbrMeanMs, n.vbrShape, p.random);
          if (offEnd < p.durationMs) events.at(offEnd, () => burst(events.nowMs + pareto(n.vbrMeanMs, n.vbrShape, p.random)));
          return;
        }
        send();
        events.after(gapMs, () => burst(endMs));
      };
      events.at(p.random() * 1000, () => burst(events.nowMs + pareto(n.vbrMeanMs, n.vbrShape, p.random)));
    }
  });

  // Two FTP transfers (Tahoe), one to each receiver.
  for (let r = 0; r < 2; r++) {
    tcpTx.push(
      new TcpSender(
        events,
        { flavour: 'tahoe', segmentBytes: n.packetBytes, payloadBytes: n.packetBytes - 40, windowSegments: n.tcpWindow, initialCwnd: 1, minRtoMs: n.tcpMinRtoMs, initialRtoMs: n.tcpInitialRtoMs, segments: p.tcpPackets },
        (seq, bytes) => access.send({ bytes, layer: 0, seq, to: r }),
      ),
    );
    events.at(p.tcpStartMs, () => tcpTx[r]!.start());
  }

  // Per-second samples of the levels and windows.
  const levels = [0, 1].map(() => new Array<number>(seconds).fill(0));
  const cwnds = [0, 1].map(() => new Array<number>(seconds).fill(0));
  const losses = [0, 1].map(() => new Array<number>(seconds).fill(0));
  for (let s = 0; s < seconds; s++) {
    events.at(s * 1000 + 999.999, () => {
      for (let r = 0; r < 2; r++) {
        const rx = receivers[r]!;
        levels[r]![s] = rx.subscription;
        const tx = tcpTx[r]!;
        // The window in use: the congestion window capped by the receiver window.
        cwnds[r]![s] = events.nowMs >= p.tcpStartMs && tx.doneAtMs === undefined ? Math.min(tx.cwndSegments, n.tcpWindow) : 0;
        losses[r]![s] = rx.packetsReceived > 0 ? rx.packetsLost / rx.packetsReceived : 0;
      }
    });
  }
  events.runUntil(p.durationMs);

  const result = (r: number): RlmReceiverResult => ({
    seconds: levels[r]!.map((layers, s) => ({
      layers,
      rlmKbps: (bins[r]!.rlm[s]! * 8) / 1000,
      tcpKbps: (bins[r]!.tcp[s]! * 8) / 1000,
      tcpCwnd: cwnds[r]![s]!,
      lossRatio: losses[r]![s]!,
      utilisation: ((bins[r]!.rlm[s]! + bins[r]!.tcp[s]!) * 8) / 1000 / p.receiverKbps[r]!,
    })),
    tcpCompletionS: tcpTx[r]!.doneAtMs === undefined ? null : (tcpTx[r]!.doneAtMs! - p.tcpStartMs) / 1000,
    layerAdds: receivers[r]!.adds,
    layerDrops: receivers[r]!.drops,
  });
  return { receivers: [result(0), result(1)], events: events.eventsRun };
}
