import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { signalingUrl } from './signaling/signalingClient';
import { PlayerController } from './player/controller';
import { parsePlayerParams } from './player/urlParams';
import { installTestHook } from './testHook';
import { App } from './ui/App';
import './ui/app.css';

const controller = new PlayerController({ signalingUrl: signalingUrl(location), ...parsePlayerParams(location.search) });
installTestHook(controller);

// Leave the stream when the page goes away; come back if it is restored from the back/forward cache.
window.addEventListener('pagehide', () => controller.stop());
window.addEventListener('pageshow', (ev) => {
  if (ev.persisted) controller.start();
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App controller={controller} />
  </StrictMode>,
);
controller.start();
