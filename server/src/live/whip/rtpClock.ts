import { Unwrapper } from '../../rtp/unwrap';

/**
 * A publisher's RTP timestamps as milliseconds on the session's clock: the
 * first packet is placed at its arrival, every later one by its timestamp,
 * so network jitter does not move frames. Audio and video each have one;
 * anchored alike, they stay in step as the publisher captured them.
 */
export class RtpClock {
  private readonly unwrap = new Unwrapper(32);
  private base: { rtp: number; ms: number } | null = null;

  constructor(private readonly clockRate: number) {}

  ms(timestamp: number, arrivalMs: number): number {
    const rtp = this.unwrap.extend(timestamp);
    this.base ??= { rtp, ms: arrivalMs };
    return this.base.ms + ((rtp - this.base.rtp) * 1000) / this.clockRate;
  }
}
