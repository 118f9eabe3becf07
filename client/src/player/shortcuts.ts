/**
 * The player's keyboard shortcuts: space plays or pauses, `m` mutes or unmutes,
 * `f` enters or leaves fullscreen. Pure: the page says what the key was pressed on.
 */

export type PlayerAction = 'togglePlay' | 'toggleMute' | 'toggleFullscreen';

/**
 * What has the focus: `text` takes typed characters (a text field, a select, an editable element),
 * `control` is pressed by space itself (a button, a checkbox, a details summary), `other` is anything else.
 */
export type FocusKind = 'text' | 'control' | 'other';

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** Held down: a shortcut acts once per press. */
  repeat: boolean;
  focus: FocusKind;
}

export function shortcutFor(k: KeyPress): PlayerAction | null {
  if (k.ctrlKey || k.metaKey || k.altKey || k.repeat || k.focus === 'text') return null;
  switch (k.key) {
    case ' ':
      return k.focus === 'control' ? null : 'togglePlay';
    case 'm':
    case 'M':
      return 'toggleMute';
    case 'f':
    case 'F':
      return 'toggleFullscreen';
    default:
      return null;
  }
}
