import '@pels/shared/zodWithoutEval';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { pagePlacer } from './player/placement';
import { browserFeatures, unsupportedReason } from './player/browserSupport';
import { PlayerController } from './player/controller';
import { parsePlayerParams } from './player/urlParams';
import { installTestHook } from './testHook';
import { App } from './ui/App';
import { ComparePage } from './ui/ComparePage';
import './ui/app.css';

const params = parsePlayerParams(location.search);
/** Each session plays where the page's own node says (a cluster's edge), or on this server when its page says it places no viewers. */
const place = pagePlacer(location, document);
// Checked once, before any connection: a page that cannot play says why instead of retrying.
const unsupported = unsupportedReason(browserFeatures(globalThis), location);
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

if (location.pathname.replace(/\/+$/, '') === '/dashboard') {
  // The operator's page, in its own chunk: the player's bundle does not carry it.
  void import('./dashboard/DashboardPage').then(({ DashboardPage }) =>
    createRoot(root).render(
      <StrictMode>
        <DashboardPage />
      </StrictMode>,
    ),
  );
} else if (location.pathname.replace(/\/+$/, '') === '/compare') {
  // Two independent players on one page: neither owns the URL, and the test hook stays single-player.
  const players = (['pels', 'best-effort'] as const).map((mode) => ({
    mode,
    controller: new PlayerController({ place, ...params, mode, syncUrl: false, unsupported }),
  }));
  run(players.map((p) => p.controller));
  createRoot(root).render(
    <StrictMode>
      <ComparePage players={players} />
    </StrictMode>,
  );
} else {
  const controller = new PlayerController({ place, ...params, syncUrl: true, unsupported });
  installTestHook(controller);
  run([controller]);
  createRoot(root).render(
    <StrictMode>
      <App controller={controller} mode={params.mode} />
    </StrictMode>,
  );
}

/** Starts the players; they leave the stream when the page goes away and come back if it is restored from the back/forward cache. */
function run(controllers: PlayerController[]): void {
  window.addEventListener('pagehide', () => controllers.forEach((c) => c.stop()));
  window.addEventListener('pageshow', (ev) => {
    if (ev.persisted) controllers.forEach((c) => c.start());
  });
  controllers.forEach((c) => c.start());
}
