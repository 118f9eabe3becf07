import { randomInt } from 'node:crypto';
import type { types as ms } from 'mediasoup';
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { ConsumerParams, TransportParams } from '@pels/shared/protocol/signaling';
import { ClosedError, RequestError } from '../errors';
import type { FlowPolicy } from '@pels/shared/pels/flowPolicy';
import { ViewerFlow } from '../flow/viewerFlow';
import type { LayeredFrame } from '../layering/layeredFrame';
import type { Logger } from '../log';
import { parseRtcpFeedback } from '../rtp/rtcp';

const PAYLOAD_TYPE = 101;
/** mediasoup repeats an unanswered PLI about once a second; one answer per burst is enough. */
const SYNTHETIC_KEYFRAME_MIN_GAP_MS = 200;

export interface ViewerSessionOptions {
  id: string;
  router: ms.Router;
  policy: FlowPolicy;
  webRtc: { listenIp: string; announcedAddress: string | undefined };
  log: Logger;
  /** Told once when the session closes, whatever closed it. */
  onClose: (reason: string) => void;
}

/**
 * One viewer of one stream: three producers (green, yellow, red) on a
 * DirectTransport fed by this viewer's flow, and their consumers on the
 * viewer's WebRtcTransport. Closing it closes everything it made.
 */
export class ViewerSession {
  readonly id: string;
  readonly connectedAt = Date.now();
  private closed = false;
  private sending = false;
  private webRtcTransport: ms.WebRtcTransport | null = null;
  private readonly consumers = new Map<Color, ms.Consumer>();
  private colors = new Set<Color>(COLORS);
  private readonly lastSynthetic: Record<Color, number> = { green: 0, yellow: 0, red: 0 };

  private constructor(
    private readonly opts: ViewerSessionOptions,
    private readonly direct: ms.DirectTransport,
    private readonly producers: Record<Color, ms.Producer>,
    readonly flow: ViewerFlow,
  ) {
    this.id = opts.id;
    direct.on('rtcp', (buf) => this.onRtcp(buf));
    direct.on('routerclose', () => this.close('media router closed'));
  }

  static async create(opts: ViewerSessionOptions): Promise<ViewerSession> {
    const direct = await opts.router.createDirectTransport();
    try {
      const ssrcs = uniqueSsrcs();
      const producers = {} as Record<Color, ms.Producer>;
      for (const color of COLORS) {
        producers[color] = await direct.produce({
          kind: 'video',
          rtpParameters: {
            codecs: [
              {
                mimeType: 'video/VP8',
                payloadType: PAYLOAD_TYPE,
                clockRate: 90000,
                rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, { type: 'ccm', parameter: 'fir' }],
              },
            ],
            // No scalabilityMode: consumers stay simple, forwarding packets untouched.
            encodings: [{ ssrc: ssrcs[color] }],
            rtcp: { cname: `pels-${opts.id}` },
          },
          appData: { color },
        });
      }
      const flow = new ViewerFlow(ssrcs, PAYLOAD_TYPE, opts.policy, randomInt(0, 2 ** 32));
      return new ViewerSession(opts, direct, producers, flow);
    } catch (err) {
      direct.close();
      throw err;
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get subscribedColors(): Color[] {
    return COLORS.filter((c) => this.colors.has(c));
  }

  async createTransport(): Promise<TransportParams> {
    this.assertOpen();
    if (this.webRtcTransport) throw new RequestError('invalid_state', 'transport already created');
    const { listenIp, announcedAddress } = this.opts.webRtc;
    const t = await this.opts.router.createWebRtcTransport({
      listenInfos: [{ protocol: 'udp', ip: listenIp, ...(announcedAddress ? { announcedAddress } : {}) }],
    });
    if (this.closed) {
      t.close();
      throw new ClosedError('viewer');
    }
    this.webRtcTransport = t;
    t.on('dtlsstatechange', (state) => {
      if (state === 'failed' || state === 'closed') this.close(`DTLS ${state}`);
    });
    t.on('icestatechange', (state) => {
      if (state === 'disconnected') this.opts.log.warn({ viewer: this.id }, 'ICE disconnected');
    });
    return { id: t.id, iceParameters: t.iceParameters, iceCandidates: t.iceCandidates, dtlsParameters: t.dtlsParameters };
  }

  async connectTransport(dtlsParameters: Record<string, unknown>): Promise<void> {
    const t = this.requireTransport();
    try {
      await t.connect({ dtlsParameters: dtlsParameters as unknown as ms.DtlsParameters });
    } catch (err) {
      throw new RequestError('bad_request', `cannot connect transport: ${(err as Error).message}`);
    }
  }

  async consume(rtpCapabilities: Record<string, unknown>): Promise<ConsumerParams[]> {
    const t = this.requireTransport();
    if (this.consumers.size) throw new RequestError('invalid_state', 'already consuming');
    const caps = rtpCapabilities as unknown as ms.RtpCapabilities;
    const out: ConsumerParams[] = [];
    for (const color of COLORS) {
      const producer = this.producers[color];
      if (!this.opts.router.canConsume({ producerId: producer.id, rtpCapabilities: caps })) {
        throw new RequestError('bad_request', 'the player cannot receive VP8');
      }
      // Paused until the player has attached its frame transforms.
      const consumer = await t.consume({ producerId: producer.id, rtpCapabilities: caps, paused: true, appData: { color } });
      this.consumers.set(color, consumer);
      out.push({ id: consumer.id, producerId: producer.id, kind: 'video', rtpParameters: consumer.rtpParameters, color });
    }
    return out;
  }

  async resume(): Promise<void> {
    this.assertOpen();
    if (!this.consumers.size) throw new RequestError('invalid_state', 'consume first');
    await this.applyColors();
    this.sending = true;
  }

  async setColors(colors: readonly Color[]): Promise<Color[]> {
    this.assertOpen();
    this.colors = new Set<Color>(['green', ...colors]);
    if (this.sending) await this.applyColors();
    return this.subscribedColors;
  }

  /** Sends one source frame to this viewer, colored by the flow's policy. */
  sendFrame(frame: LayeredFrame, nowMs: number): void {
    if (!this.sending || this.closed) return;
    const out = this.flow.onFrame(frame, nowMs);
    if (!out) return;
    const producer = this.producers[out.color];
    for (const p of out.packets) producer.send(p);
  }

  close(reason = 'closed'): void {
    if (this.closed) return;
    this.closed = true;
    this.sending = false;
    // Closing the transports closes their producers and consumers.
    this.webRtcTransport?.close();
    this.direct.close();
    this.opts.log.info({ viewer: this.id, reason }, 'viewer closed');
    this.opts.onClose(reason);
  }

  private async applyColors(): Promise<void> {
    for (const [color, consumer] of this.consumers) {
      if (this.colors.has(color) && consumer.paused) {
        await consumer.resume();
        // The resumed consumer waits for a keyframe: open its gate now.
        if (color !== 'green') this.sendSyntheticKeyframe(color, true);
      } else if (!this.colors.has(color) && !consumer.paused) {
        await consumer.pause();
      }
    }
  }

  private onRtcp(buf: Buffer): void {
    for (const fb of parseRtcpFeedback(buf)) {
      if (fb.type !== 'pli' && fb.type !== 'fir') continue;
      const color = COLORS.find((c) => this.flow.ssrcs[c] === fb.mediaSsrc);
      // Green waits for the encoder's next periodic keyframe: a PLI never forces one.
      if (color && color !== 'green') this.sendSyntheticKeyframe(color, false);
    }
  }

  private sendSyntheticKeyframe(color: Color, force: boolean): void {
    if (this.closed) return;
    const now = Date.now();
    if (!force && now - this.lastSynthetic[color] < SYNTHETIC_KEYFRAME_MIN_GAP_MS) return;
    this.lastSynthetic[color] = now;
    for (const p of this.flow.syntheticKeyframe(color)) this.producers[color].send(p);
  }

  private requireTransport(): ms.WebRtcTransport {
    this.assertOpen();
    if (!this.webRtcTransport) throw new RequestError('invalid_state', 'create a transport first');
    return this.webRtcTransport;
  }

  private assertOpen(): void {
    if (this.closed) throw new ClosedError('viewer');
  }
}

function uniqueSsrcs(): Record<Color, number> {
  const used = new Set<number>();
  const pick = (): number => {
    let s: number;
    do s = randomInt(1, 2 ** 32 - 1);
    while (used.has(s));
    used.add(s);
    return s;
  };
  return { green: pick(), yellow: pick(), red: pick() };
}
