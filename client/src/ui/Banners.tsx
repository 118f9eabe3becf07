import { useEffect, useState } from 'react';
import type { PlayerView } from '../player/controller';
import { asSentence, mediaPathNotice, uptaNotice } from '../player/playerNotice';

/**
 * Errors and warnings of one player: a failed session (with its retry countdown), a
 * refused change. The source's state and a disconnect for good are shown over the video.
 */
export function Banners({ view }: { view: PlayerView }) {
  const now = useClock(view.retryAt !== undefined);
  const banners: { kind: 'error' | 'warning' | 'info'; text: string }[] = [];
  // A disconnect for good and a browser that cannot play are told over the video.
  if (view.error && view.state !== 'disconnected' && view.state !== 'unsupported') {
    const retry =
      view.retryAt === undefined
        ? view.state === 'connecting'
          ? ' Reconnecting…'
          : ''
        : ` Reconnecting in ${Math.max(0, Math.ceil((view.retryAt - now) / 1000))} s.`;
    banners.push({ kind: 'error', text: `${asSentence(view.error)}${retry}` });
  }
  if (view.warning) banners.push({ kind: 'warning', text: view.warning });
  const path = mediaPathNotice(view.mediaTransport);
  if (path) banners.push({ kind: 'info', text: path });
  const upta = uptaNotice(view.upta);
  if (upta) banners.push(upta);
  return (
    <>
      {banners.map((b) => (
        <div key={b.text} className={`banner banner-${b.kind}`} role={b.kind === 'info' ? 'status' : 'alert'} data-testid={`banner-${b.kind}`}>
          {b.text}
        </div>
      ))}
    </>
  );
}

/** The time, refreshed every second while `ticking`, for countdowns. */
function useClock(ticking: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [ticking]);
  return now;
}
