/**
 * `window.pels`: the contract the end-to-end tests drive the player through.
 * `state`, `error`, `viewerId`, `streamState`, `notice` and `firstFrameMs` are own data
 * properties, kept current, so a test can read them directly or serialize the object.
 */
import type { Color } from '@pels/shared/pels/color';
import type { MediaTransport } from '@pels/shared/protocol/api';
import type { StreamState } from '@pels/shared/protocol/signaling';
import type { PlayerController, PlayerState } from './player/controller';
import { playerNotice, uptaNotice, type PlayerNotice } from './player/playerNotice';
import type { AudioOutputState } from './player/audioOutput';
import type { PlayerStats } from './player/stats';
import type { QualitySample } from './quality/qualityTracker';

export type { PlayerState, PlayerStats, QualitySample };

export interface PelsTestHook {
  /** 'playing' from the first decoded frame of the current session. */
  state: PlayerState;
  error?: string;
  viewerId?: string;
  /** The selected stream's state, as the server last told it. */
  streamState?: StreamState;
  /** The notice over the video (the source not sending, a disconnect for good, a browser that cannot play). */
  notice?: PlayerNotice;
  /** The banner text of the server's useless-packet avoidance (base layer only, or paused and why). Absent while every layer comes. */
  upta?: string;
  /** How the media reaches the player, as the server says: udp, or tcp and relay (served best effort). */
  transport?: MediaTransport;
  /** performance.now() when the page heard of its first decoded frame: page load to first frame, ms. Absent until then. */
  firstFrameMs?: number;
  stats(): PlayerStats;
  /**
   * The displayed frame periods of the current session, oldest first (the last
   * 20000): `t` is when the period began (performance.now() ms of this page), `index`
   * the source frame due, `shown` the decoded frame on screen (`index` itself or an
   * earlier one repeated), `psnr` its Y-PSNR against frame `index` in dB (null when
   * unknown: the shown frame is more than 8 frames old, or the server's row never came).
   */
  qualitySamples(): QualitySample[];
  /** Green is always included; resolves once the server has applied the change. */
  setColors(colors: Color[]): Promise<void>;
  /** The sound: its state (available, muted, volume, blocked by the autoplay rule) and the track played, null before it is consumed. */
  audio(): { state: AudioOutputState; track: MediaStreamTrack | null };
}

declare global {
  interface Window {
    pels?: PelsTestHook;
  }
}

export function installTestHook(controller: PlayerController): void {
  const hook: PelsTestHook = {
    state: 'idle',
    stats: () => controller.getSnapshot().stats,
    qualitySamples: () => controller.getSnapshot().quality.qualitySamples(),
    setColors: (colors) => controller.setColors(colors),
    audio: () => {
      const src = controller.audio.element.srcObject;
      return { state: controller.audio.state, track: src instanceof MediaStream ? (src.getAudioTracks()[0] ?? null) : null };
    },
  };
  /** Optional fields are absent, not undefined, when there is nothing to say. */
  const put = <K extends 'error' | 'viewerId' | 'streamState' | 'notice' | 'transport' | 'upta'>(key: K, value: PelsTestHook[K]) => {
    if (value === undefined) delete hook[key];
    else hook[key] = value;
  };
  const sync = () => {
    const view = controller.getSnapshot();
    // 'playing' begins with a session's first decoded frame; the page's first is kept across reconnects.
    if (view.state === 'playing' && hook.firstFrameMs === undefined) hook.firstFrameMs = performance.now();
    hook.state = view.state;
    put('error', view.error);
    put('viewerId', view.viewerId);
    put('streamState', view.streams.find((s) => s.id === view.streamId)?.state);
    put('notice', playerNotice(view));
    put('transport', view.mediaTransport ?? undefined);
    put('upta', uptaNotice(view.upta)?.text);
  };
  sync();
  controller.subscribe(sync);
  window.pels = hook;
}
