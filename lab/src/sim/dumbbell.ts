/**
 * A dumb-bell for end-to-end rate controllers: n senders, each driving one
 * shared/rate controller, send through one drop-tail FIFO bottleneck to n
 * receivers; the reverse path only delays. The receivers return the
 * feedback each controller needs (NACKs, per-packet ACKs, TFRC reports,
 * packet dispersion, RTT echoes, or the router label MKC uses), which a
 * simulator can see per packet.
 */
import { DispersionMeter } from '@pels/shared/rate/fuzzy';
import type { ControllerFeedback, ControllerFeedbackKind, RateBounds, RateController } from '@pels/shared/rate/rateController';
import { DEFAULT_INITIAL_RTT_MS, RATE_CONTROLLERS, createRateController, type RateControllerName } from '@pels/shared/rate/registry';
import { TfrcReceiver } from '@pels/shared/rate/tfrcReceiver';
import { EventQueue } from './eventQueue';
import { Fifo } from './fifo';
import { transmissionMs } from './links';
import { Bins } from './stats';

/** The feedback the lab's receivers return to each controller (a subset of what it can use). */
export const LAB_FEEDBACK: Readonly<Record<RateControllerName, readonly ControllerFeedbackKind[]>> = {
  mkc: ['router'],
  aimd: ['nack', 'rtt'],
  iiad: ['nack', 'rtt'],
  sqrt: ['nack', 'rtt'],
  iscc: ['nack', 'rtt'],
  tfrc: ['receiver-report'],
  rap: ['ack'],
  fuzzy: ['dispersion'],
};

/** The fuzzy sender's fixed gap between packets (one slice of a 25 fps, 18-slice frame), ms; the packet length carries the rate. */
export const FUZZY_GAP_MS = 2.2;
/** The fuzzy receiver's report period (one frame), ms. */
const FUZZY_REPORT_MS = 40;
/** How often a receiver echoes a timestamp for controllers that take RTT samples, ms. */
const RTT_ECHO_MS = 100;

/**
 * The player's side of a layered stream: each packet leads with the base
 * layer of the frames since the previous packet (the rate floor is the base
 * rate, so it always fits); lost base data is sent again on a NACK, ahead of
 * new data, until its deadline.
 */
export interface PlaybackParams {
  frameMs: number;
  /** A frame must arrive within this of its time (the player's start-up delay). */
  startupMs: number;
}

export interface DumbbellFlow {
  controller: RateControllerName;
  startMs: number;
}

export interface DumbbellParams {
  durationMs: number;
  capacityKbps: number;
  /** The bottleneck's rate changes to kbps at atMs. */
  capacitySteps: ReadonlyArray<{ atMs: number; kbps: number }>;
  bottleneckDelayMs: number;
  accessDelayMs: number;
  accessKbps: number;
  /** Drop-tail limit, packets waiting or in transmission. */
  queuePackets: number;
  packetBytes: number;
  bounds: RateBounds;
  flows: readonly DumbbellFlow[];
  /** Statistics bins, ms. */
  binMs: number;
  /** The router agent's interval for MKC's label (p = (R - C) / R), ms. */
  routerIntervalMs: number;
  /** NACK retransmission of lost base-layer data and the base-underflow count; undefined: off. */
  playback?: PlaybackParams;
}

/** The receiver asks for an RTT sample: the newest packet's send time and how long it was held. */
interface Echo {
  kind: 'echo';
  sentAtMs: number;
  heldMs: number;
}

type ToSender = ControllerFeedback | Echo;

interface Packet {
  flow: number;
  seq: number;
  bytes: number;
  sentAtMs: number;
  /** The sender's RTT estimate, carried for the TFRC receiver. */
  senderRttMs: number;
  label?: { epoch: number; p: number };
  /** Base-layer frames carried: [first, last] frame index. */
  frames?: readonly [number, number];
}

export interface DumbbellFlowResult {
  controller: RateControllerName;
  startMs: number;
  /** Bytes sent per bin. */
  sentBytes: Bins;
  /** Packets offered to and dropped at the bottleneck, per bin. */
  arrivals: Bins;
  drops: Bins;
  /** Base-layer frames due per bin (by frame time), and those that arrived after their deadline or never. */
  framesDue: Bins;
  framesMissed: Bins;
  feedbackCounts: { used: number; ignored: number };
  /** The controller's rate and RTT estimate at the end of each bin. */
  samples: Array<{ tMs: number; rateKbps: number; rttMs: number | undefined }>;
}

export interface DumbbellResult {
  params: DumbbellParams;
  flows: DumbbellFlowResult[];
  events: number;
  wallMs: number;
}

/** The bottleneck: one FIFO, drop-tail, its rate changeable; labels packets for MKC like the router agent. */
class Bottleneck {
  private readonly queue = new Fifo<Packet>();
  private busy = false;
  private offeredBytes = 0;
  private epoch = 0;
  private label: { epoch: number; p: number } | undefined;

  constructor(
    private readonly events: EventQueue,
    public rateKbps: number,
    private readonly params: DumbbellParams,
    private readonly onArrival: (p: Packet, dropped: boolean) => void,
    private readonly deliver: (p: Packet) => void,
  ) {
    events.after(params.routerIntervalMs, () => this.measure());
  }

  receive(p: Packet): void {
    this.offeredBytes += p.bytes;
    if (this.label) p.label = this.label;
    const dropped = this.queue.length + (this.busy ? 1 : 0) >= this.params.queuePackets;
    this.onArrival(p, dropped);
    if (dropped) return;
    this.queue.push(p);
    if (!this.busy) this.transmitNext();
  }

  private transmitNext(): void {
    const p = this.queue.shift();
    this.busy = p !== undefined;
    if (!p) return;
    const done = this.events.nowMs + transmissionMs(p.bytes, this.rateKbps);
    this.events.at(done, () => this.transmitNext());
    this.events.at(done + this.params.bottleneckDelayMs, () => this.deliver(p));
  }

  private measure(): void {
    if (this.offeredBytes > 0) {
      const offeredKbps = (this.offeredBytes * 8) / this.params.routerIntervalMs;
      this.label = { epoch: ++this.epoch, p: (offeredKbps - this.rateKbps) / offeredKbps };
    }
    this.offeredBytes = 0;
    this.events.after(this.params.routerIntervalMs, () => this.measure());
  }
}

/** What a receiver keeps per flow, and the feedback it sends. */
class Receiver {
  private highest = -1;
  /** RAP's view: the last hole and the newest packet below it. */
  private lastMiss = -1;
  private prevRecv = -1;
  private lastPacket: { sentAtMs: number; arrivalMs: number } | undefined;
  private readonly tfrc: TfrcReceiver | undefined;
  private readonly dispersion: DispersionMeter | undefined;
  private echoedEpoch = 0;
  private started = false;
  private senderRttMs = 100;

  constructor(
    private readonly events: EventQueue,
    private readonly kinds: readonly ControllerFeedbackKind[],
    private readonly nacks: boolean,
    packetBytes: number,
    private readonly routerIntervalMs: number,
    private readonly send: (ev: ToSender) => void,
    private readonly frameArrived: (frames: readonly [number, number], atMs: number) => void,
  ) {
    if (kinds.includes('receiver-report')) this.tfrc = new TfrcReceiver({ packetBytes });
    if (kinds.includes('dispersion')) this.dispersion = new DispersionMeter();
  }

  receive(p: Packet): void {
    const now = this.events.nowMs;
    this.senderRttMs = p.senderRttMs;
    if (!this.started) this.start();
    if (p.frames) this.frameArrived(p.frames, now);
    if (this.nacks && p.seq > this.highest + 1) {
      const lostSeqs: number[] = [];
      for (let s = this.highest + 1; s < p.seq; s++) lostSeqs.push(s);
      // The sender fills in the send times from its own records.
      this.send({ kind: 'nack', lostSeqs, sendTimesMs: [], atMs: now });
    }
    if (p.seq > this.highest + 1) {
      this.lastMiss = p.seq - 1;
      this.prevRecv = this.highest;
    }
    this.highest = Math.max(this.highest, p.seq);
    this.lastPacket = { sentAtMs: p.sentAtMs, arrivalMs: now };
    if (this.kinds.includes('ack')) this.send({ kind: 'ack', seq: p.seq, sendTimeMs: p.sentAtMs, atMs: now, lastRecv: this.highest, lastMiss: this.lastMiss, prevRecv: this.prevRecv });
    this.dispersion?.add(p.seq, p.sentAtMs, now);
    if (this.tfrc?.onPacket(p.seq, p.bytes, p.sentAtMs, now, p.senderRttMs)) this.tfrcReport();
    if (this.kinds.includes('router') && p.label && p.label.epoch > this.echoedEpoch) {
      this.echoedEpoch = p.label.epoch;
      // The label measured the interval before the packet reached the router: traffic sent up to T before this packet.
      this.send({ kind: 'router', epoch: p.label.epoch, lossFraction: p.label.p, atMs: now, origin: 'bottleneck', sentAtMs: p.sentAtMs - this.routerIntervalMs });
    }
  }

  private start(): void {
    this.started = true;
    if (this.tfrc) this.tfrcLoop();
    if (this.dispersion) this.every(FUZZY_REPORT_MS, () => this.send(this.dispersion!.report(this.events.nowMs)));
    if (this.kinds.includes('rtt')) {
      this.every(RTT_ECHO_MS, () => this.send({ kind: 'echo', sentAtMs: this.lastPacket!.sentAtMs, heldMs: this.events.nowMs - this.lastPacket!.arrivalMs }));
    }
  }

  /** TFRC: a report every round trip of the sender's, and at once on a new loss event. */
  private tfrcLoop(): void {
    this.events.after(Math.max(this.senderRttMs, 1), () => {
      this.tfrcReport();
      this.tfrcLoop();
    });
  }

  private tfrcReport(): void {
    const report = this.tfrc!.report(this.events.nowMs);
    if (report) this.send(report);
  }

  private every(ms: number, run: () => void): void {
    this.events.after(ms, () => {
      run();
      this.every(ms, run);
    });
  }
}

/** Runs the dumb-bell for durationMs of simulated time. */
export function runDumbbell(params: DumbbellParams): DumbbellResult {
  for (const f of params.flows) if (!LAB_FEEDBACK[f.controller].every((k) => RATE_CONTROLLERS[f.controller].feedback.includes(k))) throw new Error(`lab feedback for ${f.controller} is not what it uses`);
  const events = new EventQueue();
  const oneWayMs = params.accessDelayMs + params.bottleneckDelayMs + params.accessDelayMs;
  const results: DumbbellFlowResult[] = [];
  const receivers: Receiver[] = [];
  const senders: Sender[] = [];
  const bottleneck = new Bottleneck(
    events,
    params.capacityKbps,
    params,
    (p, dropped) => {
      results[p.flow]!.arrivals.add(events.nowMs);
      if (dropped) results[p.flow]!.drops.add(events.nowMs);
    },
    (p) => events.after(params.accessDelayMs, () => receivers[p.flow]!.receive(p)),
  );
  for (const step of params.capacitySteps) events.at(step.atMs, () => (bottleneck.rateKbps = step.kbps));

  params.flows.forEach((spec, i) => {
    const result: DumbbellFlowResult = {
      controller: spec.controller,
      startMs: spec.startMs,
      sentBytes: new Bins(params.binMs),
      arrivals: new Bins(params.binMs),
      drops: new Bins(params.binMs),
      framesDue: new Bins(params.binMs),
      framesMissed: new Bins(params.binMs),
      feedbackCounts: { used: 0, ignored: 0 },
      samples: [],
    };
    results.push(result);
    const controller = createRateController(spec.controller, { ...params.bounds, packetBytes: params.packetBytes, capacityKbps: params.capacityKbps });
    const sender = new Sender(i, controller, events, params, result, (p) => {
      // Access link: serialization and propagation; it never queues, the sender paces far below its rate.
      events.after(transmissionMs(p.bytes, params.accessKbps) + params.accessDelayMs, () => bottleneck.receive(p));
    });
    senders.push(sender);
    const kinds = LAB_FEEDBACK[spec.controller];
    const playback = params.playback;
    const receiver = new Receiver(
      events,
      kinds,
      kinds.includes('nack') || playback !== undefined,
      params.packetBytes,
      params.routerIntervalMs,
      (ev) => events.after(oneWayMs, () => sender.onFeedback(ev)),
      (frames, atMs) => sender.framesArrived(frames, atMs),
    );
    receivers.push(receiver);
    events.at(spec.startMs, () => sender.start());
  });

  const sample = (): void => {
    senders.forEach((s, i) => s.sample(results[i]!));
    events.after(params.binMs, sample);
  };
  events.after(params.binMs, sample);

  const t0 = performance.now();
  events.runUntil(params.durationMs);
  const wallMs = performance.now() - t0;
  senders.forEach((s, i) => s.finish(results[i]!));
  return { params, flows: results, events: events.eventsRun, wallMs };
}

/** One flow's sender: paces packets at its controller's rate and hands it the feedback. */
class Sender {
  private seq = 0;
  private readonly sendTimes: number[] = [];
  private readonly framesOf = new Map<number, readonly [number, number]>();
  private readonly retransmit: Array<readonly [number, number]> = [];
  private nextFrame = 0;
  private readonly frameArrivedAt: number[] = [];
  private timerAtMs = Number.POSITIVE_INFINITY;
  private readonly fuzzy: boolean;
  private readonly kinds: readonly ControllerFeedbackKind[];

  constructor(
    private readonly flow: number,
    private readonly controller: RateController,
    private readonly events: EventQueue,
    private readonly params: DumbbellParams,
    private readonly result: DumbbellFlowResult,
    private readonly out: (p: Packet) => void,
  ) {
    this.fuzzy = controller.name === 'fuzzy';
    this.kinds = LAB_FEEDBACK[controller.name as RateControllerName];
  }

  start(): void {
    this.rearm();
    this.sendNext();
  }

  /** Feedback as it arrives: its time is when the sender hears it, not when the receiver sent it. */
  onFeedback(sent: ToSender): void {
    const now = this.events.nowMs;
    const ev = sent.kind === 'echo' ? sent : { ...sent, atMs: now };
    if (ev.kind === 'nack') {
      const sendTimesMs = ev.lostSeqs.map((s) => this.sendTimes[s]!);
      if (this.kinds.includes('nack')) this.controller.onFeedback({ ...ev, sendTimesMs });
      for (const s of ev.lostSeqs) {
        const frames = this.framesOf.get(s);
        this.framesOf.delete(s);
        if (frames && this.stillDue(frames, now)) this.retransmit.push(frames);
      }
    } else if (ev.kind === 'echo') this.controller.onFeedback({ kind: 'rtt', rttMs: now - ev.sentAtMs - ev.heldMs, atMs: now });
    else this.controller.onFeedback(ev);
    this.rearm();
  }

  sample(result: DumbbellFlowResult): void {
    if (this.events.nowMs >= result.startMs) result.samples.push({ tMs: this.events.nowMs, rateKbps: this.controller.rateKbps, rttMs: this.controller.rttMs });
  }

  framesArrived(frames: readonly [number, number], atMs: number): void {
    for (let f = frames[0]; f <= frames[1]; f++) this.frameArrivedAt[f] ??= atMs;
  }

  /** Counts each base frame due before the end: missed if it never arrived or arrived after its deadline. */
  finish(result: DumbbellFlowResult): void {
    result.feedbackCounts = this.controller.feedbackCounts;
    const pb = this.params.playback;
    if (!pb) return;
    for (let f = 0; ; f++) {
      const frameMs = this.result.startMs + f * pb.frameMs;
      const deadline = frameMs + pb.startupMs;
      if (deadline > this.params.durationMs) break;
      result.framesDue.add(frameMs);
      const at = this.frameArrivedAt[f];
      if (at === undefined || at > deadline) result.framesMissed.add(frameMs);
    }
  }

  private stillDue(frames: readonly [number, number], nowMs: number): boolean {
    const pb = this.params.playback!;
    return this.result.startMs + frames[1] * pb.frameMs + pb.startupMs > nowMs;
  }

  private rearm(): void {
    const next = this.controller.onTimer?.(this.events.nowMs);
    if (next === undefined || next >= this.timerAtMs) return;
    this.timerAtMs = Math.max(next, this.events.nowMs + 1e-6);
    this.events.at(this.timerAtMs, () => {
      if (this.events.nowMs >= this.timerAtMs) this.timerAtMs = Number.POSITIVE_INFINITY;
      this.rearm();
    });
  }

  private sendNext(): void {
    const now = this.events.nowMs;
    const rate = this.controller.rateKbps;
    // Fuzzy: a fixed gap (plus the packet's own serialisation), the length carries the rate; others: fixed length, paced.
    const bytes = this.fuzzy ? Math.min(this.params.packetBytes, Math.max(1, Math.round((rate * FUZZY_GAP_MS) / 8))) : this.params.packetBytes;
    const seq = this.seq++;
    this.sendTimes[seq] = now;
    const packet: Packet = { flow: this.flow, seq, bytes, sentAtMs: now, senderRttMs: this.controller.rttMs ?? DEFAULT_INITIAL_RTT_MS };
    const frames = this.params.playback ? this.nextFrames(now) : undefined;
    if (frames) {
      packet.frames = frames;
      this.framesOf.set(seq, frames);
    }
    this.result.sentBytes.add(now, bytes);
    this.controller.onSent?.(seq, bytes, now);
    this.out(packet);
    const gap = this.fuzzy ? FUZZY_GAP_MS + transmissionMs(bytes, this.params.accessKbps) : transmissionMs(bytes, rate);
    this.events.after(gap, () => this.sendNext());
  }

  /** A retransmission of lost base data first; otherwise the base of the frames since the last packet. */
  private nextFrames(nowMs: number): readonly [number, number] | undefined {
    while (this.retransmit.length > 0) {
      const frames = this.retransmit.shift()!;
      if (this.stillDue(frames, nowMs)) return frames;
    }
    const pb = this.params.playback!;
    const last = Math.floor((nowMs - this.result.startMs) / pb.frameMs);
    if (last < this.nextFrame) return undefined;
    const frames = [this.nextFrame, last] as const;
    this.nextFrame = last + 1;
    return frames;
  }
}

/** Drops over arrivals at the bottleneck, of the flows given, over [fromMs, toMs). */
export function dumbbellLoss(flows: readonly DumbbellFlowResult[], fromMs: number, toMs: number): number | undefined {
  let arrivals = 0;
  let drops = 0;
  for (const f of flows) {
    arrivals += f.arrivals.total(fromMs, toMs).sum;
    drops += f.drops.total(fromMs, toMs).sum;
  }
  return arrivals > 0 ? drops / arrivals : undefined;
}

/** A flow's sending rate per bin over [fromMs, toMs), kb/s. */
export function sendingRates(f: DumbbellFlowResult, fromMs: number, toMs: number): number[] {
  const width = f.sentBytes.widthMs;
  const rates: number[] = [];
  for (let t = Math.ceil(fromMs / width) * width; t + width <= toMs; t += width) rates.push((f.sentBytes.total(t, t + width).sum * 8) / width);
  return rates;
}
