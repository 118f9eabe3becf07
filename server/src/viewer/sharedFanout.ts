import { randomInt } from 'node:crypto';
import type { types as ms } from 'mediasoup';
import { COLORS, type Color } from '@pels/shared/pels/color';
import { fixedPolicy } from '@pels/shared/pels/flowPolicy';
import { ViewerFlow } from '../flow/viewerFlow';
import { PacedSender } from '../flow/pacedSender';
import type { PacerClock } from '../flow/pacerClock';
import type { LayeredFrame } from '../layering/layeredFrame';
import { parseRtcpFeedback } from '../rtp/rtcp';
import type { KeyframeReason } from '../streams/keyframeRequests';
import { PAYLOAD_TYPE, produceColorStreams } from './colorStreams';
import { SERVER_TRANSPORT } from '../metrics/mediasoupWorkers';

/** mediasoup repeats an unanswered PLI about once a second; one answer per burst is enough. */
const SYNTHETIC_KEYFRAME_MIN_GAP_MS = 200;

/**
 * FANOUT=shared, the baseline a stock mediasoup deployment forwards: one
 * DirectTransport and three producers per stream (TID 0 green, 1 yellow,
 * 2 red), each frame packetized once, and mediasoup forwarding it to every
 * viewer's consumers. No per-viewer rate, coloring or frame selection: the
 * capacity benchmark measures the per-viewer flow against this.
 */
export class SharedFanout {
  private readonly lastSynthetic: Record<Color, number> = { green: 0, yellow: 0, red: 0 };
  /** Every frame on its layer's stream. */
  private readonly policy = fixedPolicy();
  /** Paced as a publisher's own pacer would have sent the stream to a stock SFU: at 2.5 times the stream's rate. */
  private readonly paced: PacedSender;

  private constructor(
    private readonly direct: ms.DirectTransport,
    readonly producers: Record<Color, ms.Producer>,
    readonly flow: ViewerFlow,
    readonly timestampBase: number,
    private readonly onKeyframeRequest: (reason: KeyframeReason) => void,
    pacerClock: PacerClock,
  ) {
    this.paced = new PacedSender(producers, pacerClock);
    direct.on('rtcp', (buf) => this.onRtcp(buf));
  }

  static async create(router: ms.Router, streamId: string, onKeyframeRequest: (reason: KeyframeReason) => void, pacerClock: PacerClock): Promise<SharedFanout> {
    const direct = await router.createDirectTransport({ appData: SERVER_TRANSPORT });
    try {
      const { producers, ssrcs } = await produceColorStreams(direct, `pels-${streamId}`);
      const timestampBase = randomInt(0, 2 ** 32);
      return new SharedFanout(direct, producers, new ViewerFlow(ssrcs, PAYLOAD_TYPE, timestampBase), timestampBase, onKeyframeRequest, pacerClock);
    } catch (err) {
      direct.close();
      throw err;
    }
  }

  /** Sends one source frame, once, on its layer's stream. */
  sendFrame(frame: LayeredFrame, nowMs: number): void {
    const out = this.flow.onFrame(frame, this.policy.decide(frame, nowMs));
    if (out) this.paced.send(out.color, out.packets);
  }

  /** The stream's measured full rate, kb/s: the pacing rate's target. */
  setTargetKbps(kbps: number): void {
    this.paced.setTargetKbps(kbps);
  }

  close(): void {
    this.paced.close();
    this.direct.close();
  }

  /** A PLI on green asks the encoder for a keyframe; on yellow or red a small keyframe opens the consumers' gate. */
  private onRtcp(buf: Buffer): void {
    for (const fb of parseRtcpFeedback(buf)) {
      if (fb.type !== 'pli' && fb.type !== 'fir') continue;
      const color = COLORS.find((c) => this.flow.ssrcs[c] === fb.mediaSsrc);
      if (color === 'green') this.onKeyframeRequest('pli');
      else if (color) {
        const now = Date.now();
        if (now - this.lastSynthetic[color] < SYNTHETIC_KEYFRAME_MIN_GAP_MS) continue;
        this.lastSynthetic[color] = now;
        this.paced.send(color, this.flow.syntheticKeyframe(color));
      }
    }
  }
}
