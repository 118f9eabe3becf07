/**
 * /compare: the same stream in two independent players side by side, one PELS and
 * one best effort (each its own session, worker and server-side flow), for watching
 * what coloring buys under the same bottleneck.
 */
import { useSyncExternalStore } from 'react';
import type { FlowModeName } from '@pels/shared/protocol/api';
import type { PlayerController } from '../player/controller';
import { PlayerPanel } from './PlayerPanel';

export interface ComparedPlayer {
  controller: PlayerController;
  mode: FlowModeName;
}

export function ComparePage({ players }: { players: readonly ComparedPlayer[] }) {
  return (
    <main className="compare">
      <header>
        <h1>PELS and best effort, side by side</h1>
      </header>
      <div className="compare-grid">
        {players.map((p) => (
          <ComparedColumn key={p.mode} {...p} />
        ))}
      </div>
    </main>
  );
}

function ComparedColumn({ controller, mode }: ComparedPlayer) {
  const view = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  return (
    <section className="compare-column" data-testid={`player-${mode}`}>
      <h2>
        {mode === 'pels' ? 'PELS' : 'Best effort'} <span className={`state state-${view.state}`}>{view.state}</span>
      </h2>
      <PlayerPanel controller={controller} view={view} mode={mode} />
    </section>
  );
}
