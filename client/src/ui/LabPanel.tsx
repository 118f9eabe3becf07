/**
 * The lab's view of one player, folded under the video: which layers to receive,
 * the full coverage strip with its legend, the live charts, the decoder's
 * statistics and the metrics export. Open or closed as the viewer last left it.
 */
import { useState } from 'react';
import type { Color } from '@pels/shared/pels/color';
import type { FlowModeName } from '@pels/shared/protocol/api';
import { QualityCharts } from '../charts/QualityCharts';
import type { PlayerController, PlayerView } from '../player/controller';
import { CoverageStrip } from './CoverageStrip';
import { ExportButtons } from './ExportButtons';
import { StatsPanel } from './StatsPanel';

const ENHANCEMENT_LAYERS = [
  { color: 'yellow', label: 'Yellow (lower enhancement)' },
  { color: 'red', label: 'Red (upper enhancement)' },
] as const;

const OPEN_KEY = 'pels.labPanel';

export function LabPanel({ controller, view, mode }: { controller: PlayerController; view: PlayerView; mode: FlowModeName }) {
  const [open, setOpen] = useState(() => readOpen());
  const toggle = (color: Color, on: boolean) => {
    const colors = on ? [...view.colors, color] : view.colors.filter((c) => c !== color);
    // A refusal is shown by the controller as a warning.
    controller.setColors(colors).catch(() => undefined);
  };
  return (
    <details
      className="lab"
      open={open}
      data-testid="lab-panel"
      onToggle={(e) => {
        const now = e.currentTarget.open;
        setOpen(now);
        writeOpen(now);
      }}
    >
      <summary>Lab: layers, coverage, charts, statistics</summary>
      <div className="lab-body">
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
        <CoverageStrip store={view.quality} />
        <QualityCharts store={view.quality} />
        <StatsPanel stats={view.stats} transportState={view.transportState} mediaTransport={view.mediaTransport} viewerId={view.viewerId} />
        <ExportButtons view={view} mode={mode} />
      </div>
    </details>
  );
}

/** Storage may be off (a private window's policy): the panel then starts closed and is not remembered. */
function readOpen(): boolean {
  try {
    return localStorage.getItem(OPEN_KEY) === 'open';
  } catch {
    return false;
  }
}

function writeOpen(open: boolean): void {
  try {
    localStorage.setItem(OPEN_KEY, open ? 'open' : 'closed');
  } catch {
    // not remembered
  }
}
