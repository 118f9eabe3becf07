/** The control bar under the video: play/pause, mute and volume (a stream with sound), quality menu, the live quality toggle (phone, fullscreen), fullscreen. */
import type { RenditionChoice, StreamInfo } from '@pels/shared/protocol/signaling';
import type { AudioOutput } from '../player/audioOutput';
import { Icon } from './icons';
import { QualityMenu } from './QualityMenu';
import { SoundControl } from './SoundControl';

interface Props {
  paused: boolean;
  onPlayPause(): void;
  audio: AudioOutput;
  renditions: StreamInfo['renditions'];
  rendition: RenditionChoice;
  playingRendition: number | undefined;
  onRendition(choice: RenditionChoice): void;
  /** The live quality's toggle where it has one (null: it is always beside the video), and whether it is shown. */
  qualityToggle: { shown: boolean; onToggle(): void } | null;
  fullscreen: boolean;
  onFullscreen(): void;
}

export function PlayerControls(p: Props) {
  return (
    <div className="controls" role="toolbar" aria-label="Player controls" data-testid="player-controls">
      <button type="button" className="ctl" aria-label={p.paused ? 'Play' : 'Pause'} title={p.paused ? 'Play (space)' : 'Pause (space)'} data-testid="play-pause" onClick={p.onPlayPause}>
        <Icon name={p.paused ? 'play' : 'pause'} />
      </button>
      <SoundControl audio={p.audio} />
      <span className="controls-gap" />
      <QualityMenu renditions={p.renditions} choice={p.rendition} playing={p.playingRendition} onChoose={p.onRendition} />
      {p.qualityToggle && (
        <button
          type="button"
          className="ctl"
          aria-label="Live quality"
          aria-pressed={p.qualityToggle.shown}
          title={p.qualityToggle.shown ? 'Hide the live quality' : 'Show the live quality'}
          data-testid="live-quality-toggle"
          onClick={p.qualityToggle.onToggle}
        >
          <Icon name="quality" />
        </button>
      )}
      <button
        type="button"
        className="ctl"
        aria-label={p.fullscreen ? 'Exit full screen' : 'Full screen'}
        title={p.fullscreen ? 'Exit full screen (f)' : 'Full screen (f)'}
        data-testid="fullscreen"
        onClick={p.onFullscreen}
      >
        <Icon name={p.fullscreen ? 'exitFullscreen' : 'fullscreen'} />
      </button>
    </div>
  );
}
