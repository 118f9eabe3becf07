/** Binds the player's keyboard shortcuts (shortcuts.ts) to the page while `enabled`. */
import { useEffect, useRef } from 'react';
import { shortcutFor, type FocusKind, type PlayerAction } from '../player/shortcuts';

export function useShortcuts(enabled: boolean, actions: Record<PlayerAction, () => void>): void {
  // The latest actions, without rebinding the listener on every render.
  const current = useRef(actions);
  current.current = actions;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      const action = shortcutFor({ key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, repeat: e.repeat, focus: focusKind(e.target) });
      if (!action) return;
      e.preventDefault(); // space would scroll the page
      current.current[action]();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);
}

const PRESSABLE_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file']);

function focusKind(target: EventTarget | null): FocusKind {
  if (!(target instanceof HTMLElement)) return 'other';
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return 'text';
  if (target instanceof HTMLInputElement) return PRESSABLE_INPUTS.has(target.type) ? 'control' : 'text';
  if (target instanceof HTMLButtonElement || target.tagName === 'SUMMARY') return 'control';
  return 'other';
}
