/**
 * One player: the video with its controls and the live quality (beside, under or
 * over the video, by the player's width and fullscreen), banners above, and the
 * lab panel folded below. The single-player page shows one, /compare two.
 */
import { useRef, useState } from 'react';
import type { FlowModeName } from '@pels/shared/protocol/api';
import type { PlayerController, PlayerView } from '../player/controller';
import { playerNotice } from '../player/playerNotice';
import { DEFAULT_TOGGLES, qualityPlacement, toggleKey } from '../player/qualityPlacement';
import { Banners } from './Banners';
import { Icon } from './icons';
import { LabPanel } from './LabPanel';
import { useFullscreen, useWidth } from './layoutHooks';
import { LiveQuality } from './LiveQuality';
import { PlayerControls } from './PlayerControls';
import { UnmuteButton } from './SoundControl';
import { useShortcuts } from './useShortcuts';
import { VideoCanvas } from './VideoCanvas';
import { VideoNotice } from './VideoNotice';

interface Props {
  controller: PlayerController;
  view: PlayerView;
  mode: FlowModeName;
  /** The page's keyboard shortcuts drive this player (the single-player page; not /compare's two). */
  shortcuts?: boolean;
}

export function PlayerPanel({ controller, view, mode, shortcuts = false }: Props) {
  const panel = useRef<HTMLDivElement>(null);
  const watch = useRef<HTMLDivElement>(null);
  const width = useWidth(panel);
  const { fullscreen, toggle: toggleFullscreen } = useFullscreen(watch);
  const [toggles, setToggles] = useState(DEFAULT_TOGGLES);
  const placement = qualityPlacement(width, fullscreen, toggles);
  const key = toggleKey(width, fullscreen);
  const paused = view.state === 'paused';
  const playPause = () => (paused ? controller.play() : controller.pause());
  const { audio } = controller;
  const toggleMute = () => {
    if (audio.state.available) void audio.setMuted(!audio.state.muted);
  };
  useShortcuts(shortcuts, { togglePlay: playPause, toggleFullscreen, toggleMute });
  const stream = view.streams.find((s) => s.id === view.streamId);
  const { stats } = view;
  return (
    <div className="player-panel" data-mode={mode} ref={panel}>
      <Banners view={view} />
      <div className={`watch watch-${placement}`} ref={watch} data-testid="watch">
        <div className="stage">
          <div className="video-frame" onDoubleClick={toggleFullscreen} data-testid="video-frame">
            <VideoCanvas canvas={view.canvas} />
            <VideoNotice notice={playerNotice(view)} onReconnect={() => controller.reconnect()} />
            <UnmuteButton audio={audio} />
            {paused && (
              <button type="button" className="big-play" aria-label="Play" data-testid="big-play" onClick={() => controller.play()} onDoubleClick={(e) => e.stopPropagation()}>
                <Icon name="play" />
              </button>
            )}
          </div>
          <PlayerControls
            paused={paused}
            onPlayPause={playPause}
            audio={audio}
            renditions={stream?.renditions ?? []}
            rendition={view.rendition}
            playingRendition={stats.framesDecoded.total ? stats.rendition : undefined}
            onRendition={(choice) => controller.setRendition(choice).catch(() => undefined)}
            qualityToggle={key && { shown: toggles[key], onToggle: () => setToggles({ ...toggles, [key]: !toggles[key] }) }}
            fullscreen={fullscreen}
            onFullscreen={toggleFullscreen}
          />
        </div>
        {placement !== 'hidden' && <LiveQuality store={view.quality} placement={placement} size={stats.width ? `${stats.width}×${stats.height}` : '–'} />}
      </div>
      <LabPanel controller={controller} view={view} mode={mode} />
    </div>
  );
}
