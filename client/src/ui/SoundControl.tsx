/**
 * The stream's sound, when it has some: mute and volume in the control bar, and
 * over the video the "unmute" button the browser's autoplay rule calls for (it
 * starts the sound muted until the viewer's click or key).
 */
import { useSyncExternalStore } from 'react';
import type { AudioOutput } from '../player/audioOutput';
import { Icon } from './icons';

export function SoundControl({ audio }: { audio: AudioOutput }) {
  const s = useSyncExternalStore(audio.subscribe, () => audio.state);
  if (!s.available) return null;
  const silent = s.muted || s.volume === 0;
  return (
    <div className="sound">
      <button type="button" className="ctl" aria-label={s.muted ? 'Unmute' : 'Mute'} title={s.muted ? 'Unmute (m)' : 'Mute (m)'} data-testid="mute" onClick={() => void audio.setMuted(!s.muted)}>
        <Icon name={silent ? 'muted' : 'volume'} />
      </button>
      <input
        type="range"
        className="volume"
        min={0}
        max={1}
        step={0.05}
        value={s.muted ? 0 : s.volume}
        aria-label="Volume"
        data-testid="volume"
        onChange={(e) => {
          const volume = Number(e.target.value);
          audio.setVolume(volume);
          // Moving the slider up is asking to hear it.
          if (s.muted && volume > 0) void audio.setMuted(false);
        }}
      />
    </div>
  );
}

export function UnmuteButton({ audio }: { audio: AudioOutput }) {
  const s = useSyncExternalStore(audio.subscribe, () => audio.state);
  if (!s.available || !s.blocked) return null;
  return (
    <button type="button" className="unmute" data-testid="unmute" onClick={() => void audio.setMuted(false)} onDoubleClick={(e) => e.stopPropagation()}>
      <Icon name="muted" /> Unmute
    </button>
  );
}
