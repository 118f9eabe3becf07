/**
 * The player's sound: the stream's audio track played by an <audio> element,
 * with the state and the controls the page shows (mute, volume) and the
 * browser's autoplay rule: when the browser refuses to start sound without a
 * user gesture, the sound starts muted and `blocked` says so until the user
 * unmutes (a click or key, which the browser then allows).
 *
 * One per player (it outlives sessions): a new session hands it its track.
 */
import type { AudioOutputState } from '@pels/shared/protocol/playerHook';

export type { AudioOutputState };

export class AudioOutput {
  readonly element: HTMLAudioElement;
  private current: AudioOutputState = { available: false, muted: false, volume: 1, blocked: false };
  private track: MediaStreamTrack | null = null;
  /** The stream says it has sound (StreamInfo.audio). */
  private hasSound = false;
  private readonly listeners = new Set<() => void>();

  constructor(element: HTMLAudioElement = document.createElement('audio')) {
    this.element = element;
    element.autoplay = true;
  }

  get state(): AudioOutputState {
    return this.current;
  }

  /** Called when the state changes; returns the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Plays `track` (null: the stream has no sound, or the session ended). Sound starts unless the user muted it; muted if the browser blocks it. */
  async attach(track: MediaStreamTrack | null): Promise<void> {
    const el = this.element;
    this.track = track;
    if (!track) {
      el.srcObject = null;
      this.update({ available: false });
      return;
    }
    el.srcObject = new MediaStream([track]);
    el.volume = this.current.volume;
    el.muted = this.current.muted;
    this.update({ available: this.hasSound });
    try {
      await el.play();
    } catch (err) {
      if (!isAutoplayRefusal(err)) throw err;
      // A muted element may always play: the sound runs (and stays in sync) and the user's unmute lets it be heard.
      el.muted = true;
      this.update({ muted: true, blocked: true });
      await el.play().catch(() => undefined);
    }
  }

  /** Whether the stream has sound (it may start or stop having it while playing). */
  setHasSound(hasSound: boolean): void {
    this.hasSound = hasSound;
    const available = hasSound && this.track !== null;
    if (available !== this.current.available) this.update({ available });
  }

  /** Call from the user's gesture (click, key) to unmute a blocked sound: the browser allows it then. */
  async setMuted(muted: boolean): Promise<void> {
    this.element.muted = muted;
    this.update({ muted, ...(muted ? {} : { blocked: false }) });
    if (!muted && this.element.srcObject && this.element.paused) {
      await this.element.play().catch((err: unknown) => {
        if (!isAutoplayRefusal(err)) throw err;
        this.element.muted = true;
        this.update({ muted: true, blocked: true });
      });
    }
  }

  /** 0 to 1; a volume above 0 leaves the muted state alone. */
  setVolume(volume: number): void {
    const v = Math.min(1, Math.max(0, Number.isFinite(volume) ? volume : 1));
    this.element.volume = v;
    this.update({ volume: v });
  }

  private update(patch: Partial<AudioOutputState>): void {
    this.current = { ...this.current, ...patch };
    for (const l of this.listeners) l();
  }
}

function isAutoplayRefusal(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'NotAllowedError';
}
