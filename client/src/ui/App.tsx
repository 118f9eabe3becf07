import { useSyncExternalStore } from 'react';
import type { FlowModeName } from '@pels/shared/protocol/api';
import type { PlayerController, PlayerView } from '../player/controller';
import { PlayerPanel } from './PlayerPanel';

const MODE_TITLE: Record<Exclude<FlowModeName, 'pels'>, string> = { 'best-effort': 'best effort', nack: 'best effort with NACK', rlm: 'receiver-driven layers' };

/** The single-player page. */
export function App({ controller, mode }: { controller: PlayerController; mode: FlowModeName }) {
  const view = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  return (
    <main className="player">
      <header>
        <h1>PELS player{mode === 'pels' ? '' : ` (${MODE_TITLE[mode]})`}</h1>
        <StreamPicker view={view} onSelect={(id) => controller.selectStream(id)} />
        <span className={`state state-${view.state}`}>{view.state}</span>
      </header>
      <PlayerPanel controller={controller} view={view} mode={mode} shortcuts />
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
