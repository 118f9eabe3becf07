import { useEffect, useState, useSyncExternalStore } from 'react';
import type { Color } from '@pels/shared/pels/color';
import type { PlayerController, PlayerView } from '../player/controller';
import { StatsPanel } from './StatsPanel';
import { VideoCanvas } from './VideoCanvas';

const ENHANCEMENT_LAYERS = [
  { color: 'yellow', label: 'Yellow (lower enhancement)' },
  { color: 'red', label: 'Red (upper enhancement)' },
] as const;

export function App({ controller }: { controller: PlayerController }) {
  const view = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  const toggle = (color: Color, on: boolean) => {
    const colors = on ? [...view.colors, color] : view.colors.filter((c) => c !== color);
    // A refusal is shown by the controller as a warning.
    controller.setColors(colors).catch(() => undefined);
  };
  return (
    <main className="player">
      <header>
        <h1>PELS player</h1>
        <StreamPicker view={view} onSelect={(id) => controller.selectStream(id)} />
        <span className={`state state-${view.state}`}>{view.state}</span>
      </header>
      <Banners view={view} />
      <VideoCanvas canvas={view.canvas} />
      <fieldset className="layers">
        <legend>Layers</legend>
        <label>
          <input type="checkbox" checked disabled /> Green (base)
        </label>
        {ENHANCEMENT_LAYERS.map(({ color, label }) => (
          <label key={color}>
            <input type="checkbox" checked={view.colors.includes(color)} onChange={(e) => toggle(color, e.target.checked)} /> {label}
          </label>
        ))}
      </fieldset>
      <StatsPanel stats={view.stats} transportState={view.transportState} viewerId={view.viewerId} />
    </main>
  );
}

function StreamPicker({ view, onSelect }: { view: PlayerView; onSelect(id: string): void }) {
  const listed = view.streams.some((s) => s.id === view.streamId);
  return (
    <label className="picker">
      Stream{' '}
      <select value={view.streamId ?? ''} disabled={view.streams.length === 0} onChange={(e) => onSelect(e.target.value)}>
        {!listed && <option value={view.streamId ?? ''}>{view.streamId ?? 'no streams'}</option>}
        {view.streams.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
            {s.state === 'running' ? '' : ` (${s.state})`}
          </option>
        ))}
      </select>
    </label>
  );
}

function Banners({ view }: { view: PlayerView }) {
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
