/**
 * A scrolling uPlot chart: re-reads its data whenever its source changes (at most
 * once per animation frame) and shows the last `windowS` seconds.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartData } from './seriesBuffer';

export interface ChartSeries {
  label: string;
  color: string;
  /** The y scale, when not the default 'y' (e.g. a second axis on the right). */
  scale?: string;
  width?: number;
  dash?: number[];
}

export interface ChartAxis {
  scale: string;
  label: string;
  /** Fixed range; otherwise fitted to the data. */
  range?: [number, number];
  side?: 'left' | 'right';
}

export interface LiveChartProps {
  subscribe(listener: () => void): () => void;
  data(fromX: number): ChartData;
  /** The current x (seconds): the right edge. */
  nowX(): number;
  windowS: number;
  series: ChartSeries[];
  axes: ChartAxis[];
  height: number;
  testId?: string;
}

export function LiveChart({ subscribe, data, nowX, windowS, series, axes, height, testId }: LiveChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const plot = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height,
        legend: { live: false },
        cursor: { show: false },
        scales: {
          x: { time: false },
          ...Object.fromEntries(axes.map((a) => [a.scale, a.range ? { range: a.range } : {}])),
        },
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.color, width: s.width ?? 1.5, scale: s.scale ?? 'y', ...(s.dash ? { dash: s.dash } : {}), points: { show: false } })),
        ],
        axes: [
          { label: 's', size: 30, labelSize: 14 },
          ...axes.map((a) => ({ scale: a.scale, label: a.label, side: a.side === 'right' ? 1 : 3, size: 50, ...(a.side === 'right' ? { grid: { show: false } } : {}) })),
        ],
      },
      [[], ...series.map(() => [])],
      el,
    );
    let frame = 0;
    const redraw = () => {
      frame = 0;
      const now = nowX();
      plot.batch(() => {
        plot.setData(data(now - windowS) as uPlot.AlignedData, false);
        plot.setScale('x', { min: now - windowS, max: now });
      });
    };
    const unsubscribe = subscribe(() => {
      frame ||= requestAnimationFrame(redraw);
    });
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height }));
    resize.observe(el);
    redraw();
    return () => {
      unsubscribe();
      cancelAnimationFrame(frame);
      resize.disconnect();
      plot.destroy();
    };
    // The chart's shape is fixed for its source; a new source (session) makes a new chart.
  }, [subscribe]);
  return <div className="chart" ref={box} data-testid={testId} />;
}
