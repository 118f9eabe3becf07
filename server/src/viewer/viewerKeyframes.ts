import { COLORS, type Color } from '@pels/shared/pels/color';
import { parseRtcpFeedback } from '../rtp/rtcp';
import type { KeyframeReason } from '../streams/keyframeRequests';

/** mediasoup repeats an unanswered PLI about once a second; one answer per burst is enough. */
const SYNTHETIC_KEYFRAME_MIN_GAP_MS = 200;

export interface ViewerKeyframesOptions {
  /** The flow's SSRC of each color, as the player's PLIs and FIRs name them. */
  ssrcs: Record<Color, number>;
  /** Asks the stream's encoder of the rendition the viewer receives for a keyframe. */
  request(reason: KeyframeReason): void;
  /** Sends a color's synthetic keyframe (its decoder's gate opens on it). */
  sendSynthetic(color: Color): void;
  /** Whether the viewer is sending (resumed and open). */
  sending(): boolean;
  /** Whether the viewer's transport carries media (its DTLS is up). */
  connected(): boolean;
  closed(): boolean;
}

/**
 * A viewer's keyframes: green's come from the stream's encoder (a join, a
 * player's PLI or FIR on green), yellow's and red's are synthetic, made for
 * this viewer at once.
 */
export class ViewerKeyframes {
  /** Resumed, and no keyframe sent on green since: its first frame is one on the way. */
  private awaiting = false;
  /** The join's keyframe waits for the transport: sent before DTLS is up it would go nowhere, and the player wait for the next. */
  private joinOnConnect = false;
  private readonly lastSynthetic: Record<Color, number> = { green: 0, yellow: 0, red: 0 };

  constructor(private readonly o: ViewerKeyframesOptions) {}

  /**
   * The green consumer starts at a keyframe: ask for one rather than wait for the periodic one, once the transport
   * carries it (a player that resumes in its consume request has not even sent its connectTransport yet).
   */
  join(): void {
    this.awaiting = true;
    if (this.o.connected()) this.o.request('join');
    else this.joinOnConnect = true;
  }

  /** The viewer's transport connected: the join's keyframe, if one waits for it. */
  transportConnected(): void {
    if (!this.joinOnConnect) return;
    this.joinOnConnect = false;
    if (this.o.sending() && !this.o.closed()) this.o.request('join');
  }

  /** A consumer resumed waits for a keyframe: open its gate now (green's after UPTA paused it: a real one, as at a join). */
  resumed(color: Color): void {
    if (color !== 'green') this.sendSynthetic(color, true);
    else if (this.o.sending()) this.join();
  }

  /** A frame went out on `color`. */
  sent(color: Color, keyframe: boolean): void {
    if (color === 'green' && keyframe) this.awaiting = false;
  }

  /** RTCP from the player's receivers. */
  onRtcp(buf: Buffer): void {
    for (const fb of parseRtcpFeedback(buf)) {
      if (fb.type !== 'pli' && fb.type !== 'fir') continue;
      const color = COLORS.find((c) => this.o.ssrcs[c] === fb.mediaSsrc);
      // Green: the player's base chain is broken, the stream's encoder makes a keyframe (a join's request already asked for one).
      if (color === 'green') {
        if (this.o.sending() && !this.awaiting) this.o.request('pli');
      } else if (color) this.sendSynthetic(color, false);
    }
  }

  private sendSynthetic(color: Color, force: boolean): void {
    if (this.o.closed()) return;
    const now = Date.now();
    if (!force && now - this.lastSynthetic[color] < SYNTHETIC_KEYFRAME_MIN_GAP_MS) return;
    this.lastSynthetic[color] = now;
    this.o.sendSynthetic(color);
  }
}
