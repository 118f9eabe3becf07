/** The scrolling time series of one viewer: rates on the left axis, gamma and per-color loss (0..1) on the right. */
import { useCallback } from 'react';
import { LiveChart, type ChartAxis, type ChartSeries } from '../charts/LiveChart';
import type { ViewerHistory } from './viewerHistory';

const WINDOW_S = 120;

// In HISTORY_COLUMNS order.
const SERIES: ChartSeries[] = [
  { label: 'controller rate', color: '#1d4f91', width: 2 },
  { label: 'sent', color: '#6aa0e0' },
  { label: 'gamma', color: '#7a3fb0', scale: 'share', dash: [4, 3] },
  { label: 'loss green', color: '#2e9d3e', scale: 'share' },
  { label: 'loss yellow', color: '#d9a400', scale: 'share' },
  { label: 'loss red', color: '#d2372c', scale: 'share' },
];
const AXES: ChartAxis[] = [
  { scale: 'y', label: 'kb/s' },
  { scale: 'share', label: 'gamma, loss', range: [0, 1], side: 'right' },
];

/** Mount it with key={viewerId}: the chart is made for one viewer. */
export function ViewerChart({ history, viewerId }: { history: ViewerHistory; viewerId: string }) {
  const data = useCallback((fromX: number) => history.data(viewerId, fromX), [history, viewerId]);
  return (
    <section className="panel">
      <h2>Viewer {viewerId}: last {WINDOW_S} s</h2>
      <LiveChart subscribe={history.subscribe} data={data} nowX={history.nowX} windowS={WINDOW_S} series={SERIES} axes={AXES} height={220} testId="viewer-chart" />
    </section>
  );
}
