/** The live charts of one player, each with its current values beside it. */
import { useSyncExternalStore, type ReactNode } from 'react';
import { COLORS } from '@pels/shared/pels/color';
import type { QualityStore } from '../quality/qualityStore';
import { LiveChart, type ChartAxis, type ChartSeries } from './LiveChart';
import type { SeriesBuffer } from './seriesBuffer';

const WINDOW_S = 30;
const HEIGHT = 150;
const COLOR_CSS = { green: '#2e9d3e', yellow: '#d9a400', red: '#d2372c' } as const;
const LAYER_CSS = ['#3b6fd1', '#8a4fd1', '#d14f9a', '#333'];

interface ChartDef {
  title: string;
  testId: string;
  buffer: (store: QualityStore) => SeriesBuffer;
  series: ChartSeries[];
  axes: ChartAxis[];
}

const CHARTS: ChartDef[] = [
  {
    title: 'Y-PSNR of the displayed frames',
    testId: 'chart-psnr',
    buffer: (s) => s.psnr,
    series: [
      { label: 'per frame', color: '#9aa3ad', width: 1 },
      { label: '1 s average', color: '#1d4f91', width: 2 },
    ],
    axes: [{ scale: 'y', label: 'dB', range: [10, 50] }],
  },
  {
    title: 'Rate and gamma (server)',
    testId: 'chart-rate',
    buffer: (s) => s.rate,
    series: [
      { label: 'controller rate', color: '#1d4f91', width: 2 },
      { label: 'sent', color: '#6aa0e0', width: 1 },
      { label: 'gamma', color: '#d2372c', scale: 'gamma', dash: [4, 3] },
    ],
    axes: [
      { scale: 'y', label: 'kb/s' },
      { scale: 'gamma', label: 'gamma', range: [0, 1], side: 'right' },
    ],
  },
  {
    title: 'Loss per color (receiver reports)',
    testId: 'chart-loss',
    buffer: (s) => s.loss,
    series: COLORS.map((c) => ({ label: c, color: COLOR_CSS[c], width: 1.5 })),
    axes: [{ scale: 'y', label: 'loss', range: [0, 1] }],
  },
  {
    title: 'Frames decoded per second, per layer',
    testId: 'chart-fps',
    buffer: (s) => s.fps,
    series: [
      { label: 'TID 0', color: LAYER_CSS[0]! },
      { label: 'TID 1', color: LAYER_CSS[1]! },
      { label: 'TID 2', color: LAYER_CSS[2]! },
      { label: 'all', color: LAYER_CSS[3]!, width: 2 },
    ],
    axes: [{ scale: 'y', label: 'fps', range: [0, 35] }],
  },
];

export function QualityCharts({ store }: { store: QualityStore }) {
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const { stats, viewerState: v } = snap;
  const values: ReactNode[] = [
    <Values
      key="psnr"
      rows={[
        ['1 s average', db(snap.psnrAverage), 'psnr-average'],
        ['session mean', db(stats.psnr.mean), 'psnr-mean'],
        ['5th percentile', db(stats.psnr.p5), 'psnr-p5'],
        ['last', db(stats.psnr.last), 'psnr-last'],
        ['freezes', String(stats.freezes), 'freezes'],
      ]}
    />,
    <Values
      key="rate"
      rows={[
        ['rate controller', v?.controller ?? '–', 'controller'],
        ['controller rate', kbps(v?.rateKbps), 'rate'],
        ['sent', kbps(v?.sentKbps), 'sent'],
        ['gamma', v ? v.gamma.toFixed(3) : '–', 'gamma'],
        ['congestion p', pct(v?.lossP), 'loss-p'],
        ['loss read as', v ? `${v.congestion.diagnosis}, wire ${pct(v.congestion.wireLoss)}` : '–', 'loss-diagnosis'],
        ['RTT', v?.rttMs == null ? '–' : `${v.rttMs.toFixed(0)} ms`, 'rtt'],
        ['mode', v?.mode ?? '–', 'server-mode'],
      ]}
    />,
    <Values
      key="loss"
      rows={[
        ...COLORS.map((c): [string, string, string] => [`${c}, last / session`, `${pct(v?.perColor[c].recentLoss)} / ${pct(v?.perColor[c].lossFraction)}`, `loss-${c}`]),
        ['recovered (RTX)', String(stats.packetsRecovered), 'packets-recovered'],
        ['key-frame requests', String(stats.pliSent), 'pli-sent'],
      ]}
    />,
    <Values
      key="fps"
      rows={[
        ['TID 0', stats.fps.tid0.toFixed(1), 'fps-tid0'],
        ['TID 1', stats.fps.tid1.toFixed(1), 'fps-tid1'],
        ['TID 2', stats.fps.tid2.toFixed(1), 'fps-tid2'],
        ['all', stats.fps.total.toFixed(1), 'fps-total'],
      ]}
    />,
  ];
  return (
    <section className="charts">
      {CHARTS.map((c, i) => (
        <div className="chart-row" key={c.testId}>
          <div className="chart-main">
            <h3>{c.title}</h3>
            <LiveChart
              subscribe={store.subscribe}
              data={(from) => c.buffer(store).since(from)}
              nowX={() => store.nowX()}
              windowS={WINDOW_S}
              series={c.series}
              axes={c.axes}
              height={HEIGHT}
              testId={c.testId}
            />
          </div>
          {values[i]}
        </div>
      ))}
    </section>
  );
}

function Values({ rows }: { rows: [label: string, value: string, testId: string][] }) {
  return (
    <dl className="chart-values">
      {rows.map(([label, value, testId]) => (
        <div key={testId}>
          <dt>{label}</dt>
          <dd data-testid={testId}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function db(v: number | null): string {
  return v === null ? '–' : `${v.toFixed(2)} dB`;
}

function kbps(v: number | null | undefined): string {
  return v == null ? '–' : `${v.toFixed(0)} kb/s`;
}

function pct(v: number | null | undefined): string {
  return v == null ? '–' : `${(v * 100).toFixed(1)}%`;
}
