import { useEffect, useRef } from 'react';

/** Shows the session's canvas (created by the session, drawn by the worker). */
export function VideoCanvas({ canvas }: { canvas: HTMLCanvasElement | undefined }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    if (canvas) {
      canvas.className = 'video';
      el.replaceChildren(canvas);
    } else {
      el.replaceChildren();
    }
  }, [canvas]);
  return <div className="video-box" ref={box} />;
}
