/** The player's layout inputs from the browser: its element's width, and whether it is fullscreen. */
import { useCallback, useEffect, useState, type RefObject } from 'react';

/** The element's content width in CSS px, kept current (0 before layout). */
export function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.round(entry?.contentRect.width ?? 0)));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/** Whether the element is the page's fullscreen element, and a toggle (call it from a user gesture: a click, a key). */
export function useFullscreen(ref: RefObject<HTMLElement | null>): { fullscreen: boolean; toggle(): void } {
  const [fullscreen, setFullscreen] = useState(false);
  useEffect(() => {
    const onChange = () => setFullscreen(document.fullscreenElement !== null && document.fullscreenElement === ref.current);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, [ref]);
  const toggle = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    // A refusal (no permission, an iframe without allowfullscreen) leaves the page as it was.
    if (document.fullscreenElement) document.exitFullscreen().catch(() => undefined);
    else el.requestFullscreen().catch(() => undefined);
  }, [ref]);
  return { fullscreen, toggle };
}
