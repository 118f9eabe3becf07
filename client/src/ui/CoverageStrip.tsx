/**
 * Layer coverage, live: one column per frame period (newest on the right). The
 * frame's layer picks the row (TID 2 top, TID 0 bottom); its fill is the color it
 * arrived on, solid when decoded, pale when decodable but not decoded, crossed when
 * it arrived but could not be decoded (a reference missing) or came too late; an
 * empty box is a frame that did not arrive. The bottom row is the display: dark
 * when the period showed its own frame, orange when it repeated an older one.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { CoverageColumn } from '../quality/coverage';
import type { QualityStore } from '../quality/qualityStore';

const CELL_H = 10;
const GAP = 4;
/** Rows top to bottom: TID 2, TID 1, TID 0, then the display row. */
const HEIGHT = 3 * CELL_H + GAP + CELL_H;
const FILL = { green: '#2e9d3e', yellow: '#e0b000', red: '#d2372c' } as const;

export function CoverageStrip({ store }: { store: QualityStore }) {
  const { columns, utility } = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const el = canvas.current;
    if (el) draw(el, columns);
  }, [columns]);
  const s = summarize(columns);
  return (
    <section className="coverage">
      <h3>Layer coverage (last {columns.length} frame periods)</h3>
      <canvas ref={canvas} className="coverage-strip" height={HEIGHT} data-testid="coverage-strip" />
      <p className="coverage-legend">
        Rows: TID 2, TID 1, TID 0, display. <Swatch className="sw-decoded" /> decoded (fill: the color it came on) <Swatch className="sw-pale" />{' '}
        decodable, not decoded <Swatch className="sw-crossed" /> arrived, not decodable or late <Swatch className="sw-missing" /> did not arrive{' '}
        <Swatch className="sw-own" /> showed its own frame <Swatch className="sw-repeat" /> repeated an older frame
      </p>
      <p
        className="coverage-summary"
        data-testid="coverage-summary"
        data-periods={s.periods}
        data-shown-own={s.shownOwn}
        data-arrived={s.arrived}
        data-decoded={s.decoded}
        data-green={s.byColor.green}
        data-yellow={s.byColor.yellow}
        data-red={s.byColor.red}
      >
        {s.periods} periods: {s.arrived} frames arrived ({s.byColor.green} green, {s.byColor.yellow} yellow, {s.byColor.red} red), {s.decoded} decoded,{' '}
        {s.undecodable} not decodable; {s.shownOwn} periods showed their own frame, {s.periods - s.shownOwn} a repeat.
      </p>
      <p className="utility">
        Useful share of received enhancement bytes (utility, decodable and decoded):{' '}
        <strong data-testid="utility-recent">{pct(utility.recent)}</strong> last 5 s, <span data-testid="utility-session">{pct(utility.session)}</span> session
      </p>
    </section>
  );
}

function Swatch({ className }: { className: string }) {
  return <span className={`swatch ${className}`} />;
}

function summarize(columns: readonly CoverageColumn[]) {
  const shown = columns.filter((c) => c.shown !== null);
  return {
    periods: shown.length,
    shownOwn: shown.filter((c) => c.shown === c.index).length,
    arrived: columns.filter((c) => c.color !== null).length,
    decoded: columns.filter((c) => c.fate === 'decoded').length,
    undecodable: columns.filter((c) => c.fate === 'undecodable' || c.fate === 'late').length,
    byColor: {
      green: columns.filter((c) => c.color === 'green').length,
      yellow: columns.filter((c) => c.color === 'yellow').length,
      red: columns.filter((c) => c.color === 'red').length,
    },
  };
}

function draw(el: HTMLCanvasElement, columns: readonly CoverageColumn[]): void {
  const width = Math.max(1, el.clientWidth);
  if (el.width !== width) el.width = width;
  const ctx = el.getContext('2d');
  if (!ctx) return;
  ctx.clearRect(0, 0, el.width, el.height);
  const w = width / Math.max(1, columns.length);
  columns.forEach((c, k) => {
    const x = k * w;
    const cw = Math.max(1, w - 1);
    if (c.tid !== null) {
      const y = (2 - c.tid) * CELL_H;
      if (c.color === null) {
        ctx.strokeStyle = '#b8bec6';
        ctx.strokeRect(x + 0.5, y + 0.5, cw - 1, CELL_H - 2);
      } else {
        ctx.globalAlpha = c.fate === 'decoded' ? 1 : 0.35;
        ctx.fillStyle = FILL[c.color];
        ctx.fillRect(x, y, cw, CELL_H - 1);
        ctx.globalAlpha = 1;
        if (c.fate === 'undecodable' || c.fate === 'late') {
          ctx.strokeStyle = '#222';
          ctx.beginPath();
          ctx.moveTo(x, y);
          ctx.lineTo(x + cw, y + CELL_H - 1);
          ctx.stroke();
        }
      }
    }
    if (c.shown !== null) {
      ctx.fillStyle = c.shown === c.index ? '#444' : '#f08c00';
      ctx.fillRect(x, 3 * CELL_H + GAP, cw, CELL_H);
    }
  });
}

function pct(v: number | null): string {
  return v === null ? '–' : `${(v * 100).toFixed(1)}%`;
}
