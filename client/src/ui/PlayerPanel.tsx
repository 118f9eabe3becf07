/**
 * One player: its video, layer choice, quality (coverage strip, live charts, numbers),
 * decoder statistics and export. The single-player page shows one, /compare two.
 */
import type { Color } from '@pels/shared/pels/color';
import type { FlowModeName } from '@pels/shared/protocol/api';
import { QualityCharts } from '../charts/QualityCharts';
import type { PlayerController, PlayerView } from '../player/controller';
import { playerNotice } from '../player/playerNotice';
import { Banners } from './Banners';
import { CoverageStrip } from './CoverageStrip';
import { ExportButtons } from './ExportButtons';
import { StatsPanel } from './StatsPanel';
import { VideoCanvas } from './VideoCanvas';
import { VideoNotice } from './VideoNotice';

const ENHANCEMENT_LAYERS = [
  { color: 'yellow', label: 'Yellow (lower enhancement)' },
  { color: 'red', label: 'Red (upper enhancement)' },
] as const;

interface Props {
  controller: PlayerController;
  view: PlayerView;
  mode: FlowModeName;
}

export function PlayerPanel({ controller, view, mode }: Props) {
  const toggle = (color: Color, on: boolean) => {
    const colors = on ? [...view.colors, color] : view.colors.filter((c) => c !== color);
    // A refusal is shown by the controller as a warning.
    controller.setColors(colors).catch(() => undefined);
  };
  return (
    <div className="player-panel" data-mode={mode}>
      <Banners view={view} />
      <div className="video-frame">
        <VideoCanvas canvas={view.canvas} />
        <VideoNotice notice={playerNotice(view)} onReconnect={() => controller.reconnect()} />
      </div>
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
  );
}
