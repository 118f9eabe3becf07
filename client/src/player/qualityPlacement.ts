/**
 * Where the live quality (PSNR, coverage, loss per color) goes: beside the video
 * when the player is wide enough, always; over the video in fullscreen, and
 * under it on a narrow player (a phone), as the viewer toggles it (shown in
 * fullscreen, hidden on a phone until asked for).
 */

/** Below this width (CSS px) the player stacks: the video takes the whole width. */
export const WIDE_PLAYER_PX = 760;

export type QualityPlacement = 'side' | 'below' | 'overlay' | 'hidden';

/** The viewer's toggle, per layout where there is one. */
export interface QualityToggles {
  narrow: boolean;
  fullscreen: boolean;
}

export const DEFAULT_TOGGLES: QualityToggles = { narrow: false, fullscreen: true };

/** Which toggle applies, or null when the panel is always shown (beside the video). */
export function toggleKey(playerWidth: number, fullscreen: boolean): keyof QualityToggles | null {
  if (fullscreen) return 'fullscreen';
  return playerWidth >= WIDE_PLAYER_PX ? null : 'narrow';
}

export function qualityPlacement(playerWidth: number, fullscreen: boolean, toggles: QualityToggles): QualityPlacement {
  const key = toggleKey(playerWidth, fullscreen);
  if (key === null) return 'side';
  if (!toggles[key]) return 'hidden';
  return key === 'fullscreen' ? 'overlay' : 'below';
}
