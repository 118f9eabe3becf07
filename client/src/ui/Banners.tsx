import { useEffect, useState } from 'react';
import type { PlayerView } from '../player/controller';

/** Errors and warnings of one player: a failed session (with its retry countdown), a failed stream, a refused change. */
export function Banners({ view }: { view: PlayerView }) {
  const now = useClock(view.retryAt !== undefined);
  const stream = view.streams.find((s) => s.id === view.streamId);
  const banners: { kind: 'error' | 'warning'; text: string }[] = [];
  if (view.error) {
    const retry =
      view.retryAt === undefined
        ? view.state === 'connecting'
          ? ' Reconnecting…'
          : ''
        : ` Reconnecting in ${Math.max(0, Math.ceil((view.retryAt - now) / 1000))} s.`;
    banners.push({ kind: 'error', text: `${capitalize(view.error)}.${retry}` });
  }
  if (stream?.state === 'failed') banners.push({ kind: 'error', text: `Stream "${stream.name}" failed${stream.error ? `: ${stream.error}` : ''}.` });
  if (stream?.state === 'restarting') banners.push({ kind: 'warning', text: `Stream "${stream.name}" is restarting${stream.error ? ` after: ${stream.error}` : ''}.` });
  if (view.warning) banners.push({ kind: 'warning', text: view.warning });
  return (
    <>
      {banners.map((b) => (
        <div key={b.text} className={`banner banner-${b.kind}`} role="alert">
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

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
