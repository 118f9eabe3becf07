/** Installs `window.pels`, the contract the end-to-end tests drive the player through (shared/src/protocol/playerHook.ts). */
import type { PelsTestHook as Hook } from '@pels/shared/protocol/playerHook';
import type { PlayerController } from './player/controller';
import { playerNotice, uptaNotice } from './player/playerNotice';

type PelsTestHook = Hook<MediaStreamTrack>;

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
      const el = controller.audio.element;
      const src = el.srcObject;
      return {
        state: controller.audio.state,
        track: src instanceof MediaStream ? (src.getAudioTracks()[0] ?? null) : null,
        element: { muted: el.muted, paused: el.paused },
      };
    },
  };
  /** Optional fields are absent, not undefined, when there is nothing to say. */
  const put = <K extends 'error' | 'viewerId' | 'streamState' | 'notice' | 'transport' | 'upta' | 'node' | 'joinPhasesMs'>(key: K, value: PelsTestHook[K]) => {
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
    put('node', view.node);
    put('joinPhasesMs', view.joinPhasesMs);
  };
  sync();
  controller.subscribe(sync);
  window.pels = hook;
}
