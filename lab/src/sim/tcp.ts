/**
 * TCP for the lab: a sender with slow start, congestion avoidance, a
 * retransmission timer (RFC 6298 estimator, Karn's rule, exponential backoff)
 * and, on three duplicate ACKs, Reno's fast retransmit and fast recovery or
 * Tahoe's retransmit and slow start from one segment; a receiver that
 * acknowledges every segment cumulatively (no delayed ACKs, no SACK).
 * Windows count segments. The network between them is the caller's.
 */
import type { EventQueue } from './eventQueue';

export type TcpFlavour = 'reno' | 'tahoe';

export interface TcpParams {
  flavour: TcpFlavour;
  /** Segment on the wire, headers included, bytes. */
  segmentBytes: number;
  /** Application bytes a segment carries. */
  payloadBytes: number;
  /** Receiver window, segments. */
  windowSegments: number;
  initialCwnd: number;
  minRtoMs: number;
  /** Before the first RTT sample, ms. */
  initialRtoMs: number;
  /** Segments to send; undefined: endless (a persistent bulk flow). */
  segments?: number;
}

export class TcpSender {
  private una = 0;
  private next = 0;
  private cwnd: number;
  private ssthresh = Number.POSITIVE_INFINITY;
  private dupacks = 0;
  private recovering = false;
  private srtt: number | undefined;
  private rttvar = 0;
  private rtoMs: number;
  private timerGen = 0;
  /** The segment being timed and when it was sent (Karn: never a retransmitted one). */
  private timed: { seq: number; atMs: number } | undefined;
  private highestSent = -1;
  /** When the last segment was acknowledged, ms; undefined while sending. */
  doneAtMs: number | undefined;
  retransmits = 0;
  timeouts = 0;

  constructor(
    private readonly events: EventQueue,
    private readonly p: TcpParams,
    private readonly transmit: (seq: number, bytes: number) => void,
  ) {
    this.cwnd = p.initialCwnd;
    this.rtoMs = p.initialRtoMs;
  }

  get cwndSegments(): number {
    return this.cwnd;
  }

  start(): void {
    this.fill();
  }

  /** Segments acknowledged so far. */
  get acked(): number {
    return this.una;
  }

  /** A cumulative ACK: the next segment the receiver expects. */
  onAck(ack: number): void {
    if (this.doneAtMs !== undefined) return;
    if (ack > this.una) {
      if (this.timed && ack > this.timed.seq) {
        this.sampleRtt(this.events.nowMs - this.timed.atMs);
        this.timed = undefined;
      }
      if (this.recovering) {
        // Reno: the first new ACK ends recovery and deflates the window.
        this.recovering = false;
        this.cwnd = this.ssthresh;
      } else if (this.cwnd < this.ssthresh) this.cwnd += 1;
      else this.cwnd += 1 / this.cwnd;
      this.una = ack;
      this.next = Math.max(this.next, ack);
      this.dupacks = 0;
      if (this.p.segments !== undefined && this.una >= this.p.segments) {
        this.doneAtMs = this.events.nowMs;
        this.timerGen++;
        return;
      }
      this.armTimer();
    } else if (ack === this.una && this.next > this.una) {
      this.dupacks++;
      if (this.dupacks === 3 && this.p.flavour === 'tahoe') {
        this.ssthresh = Math.max(this.inFlight() / 2, 2);
        this.restart();
        this.armTimer();
      } else if (this.dupacks === 3 && !this.recovering) {
        this.ssthresh = Math.max(this.inFlight() / 2, 2);
        this.cwnd = this.ssthresh + 3;
        this.recovering = true;
        this.retransmit(this.una);
        this.armTimer();
      } else if (this.recovering) this.cwnd += 1;
    }
    this.fill();
  }

  private inFlight(): number {
    return this.next - this.una;
  }

  private fill(): void {
    const window = Math.min(Math.floor(this.cwnd), this.p.windowSegments);
    const last = this.p.segments ?? Number.POSITIVE_INFINITY;
    while (this.next < this.una + window && this.next < last) {
      const seq = this.next++;
      if (seq <= this.highestSent) this.retransmits++;
      else if (!this.timed) this.timed = { seq, atMs: this.events.nowMs };
      this.highestSent = Math.max(this.highestSent, seq);
      this.transmit(seq, this.p.segmentBytes);
      if (this.timerGen === 0 || this.inFlight() === 1) this.armTimer();
    }
  }

  private retransmit(seq: number): void {
    this.retransmits++;
    if (this.timed && this.timed.seq >= seq) this.timed = undefined;
    this.transmit(seq, this.p.segmentBytes);
  }

  private sampleRtt(ms: number): void {
    if (this.srtt === undefined) {
      this.srtt = ms;
      this.rttvar = ms / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - ms);
      this.srtt = 0.875 * this.srtt + 0.125 * ms;
    }
    this.rtoMs = Math.max(this.p.minRtoMs, this.srtt + 4 * this.rttvar);
  }

  private armTimer(): void {
    const gen = ++this.timerGen;
    this.events.after(this.rtoMs, () => {
      if (gen === this.timerGen && this.doneAtMs === undefined && this.next > this.una) this.onTimeout();
    });
  }

  private onTimeout(): void {
    this.timeouts++;
    this.ssthresh = Math.max(this.inFlight() / 2, 2);
    this.rtoMs = Math.min(2 * this.rtoMs, 60_000);
    this.restart();
    this.armTimer();
    this.fill();
  }

  /** Slow start from one segment, going back to the first unacknowledged one (everything after it is sent again). */
  private restart(): void {
    this.cwnd = 1;
    this.dupacks = 0;
    this.recovering = false;
    this.timed = undefined;
    this.next = this.una;
  }
}

/** Cumulative acknowledgement; counts the bytes that arrived, retransmissions and headers included. */
export class TcpReceiver {
  private expected = 0;
  private readonly early = new Set<number>();
  wireBytes = 0;

  /** A segment arrived; returns the ACK to send (the next segment expected). */
  onSegment(seq: number, bytes: number): number {
    this.wireBytes += bytes;
    if (seq === this.expected) {
      this.expected++;
      while (this.early.delete(this.expected)) this.expected++;
    } else if (seq > this.expected) this.early.add(seq);
    return this.expected;
  }

  /** Segments delivered in order so far. */
  get delivered(): number {
    return this.expected;
  }
}
