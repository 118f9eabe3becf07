/** The coverage strip's drawing (see CoverageStrip): one column per frame period, newest on the right, at the element's width. */
import { useEffect, useRef } from 'react';
import type { CoverageColumn } from '../quality/coverage';

const CELL_H = 10;
const GAP = 4;
/** Rows top to bottom: TID 2, TID 1, TID 0, then the display row. */
const HEIGHT = 3 * CELL_H + GAP + CELL_H;
const FILL = { green: '#2e9d3e', yellow: '#e0b000', red: '#d2372c' } as const;
/** The display row's own frames; a strip on a dark ground sets `--coverage-shown` (app.css). */
const SHOWN = '#444';

export function CoverageCanvas({ columns, className, testId }: { columns: readonly CoverageColumn[]; className: string; testId: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const el = canvas.current;
    if (el) draw(el, columns);
  }, [columns]);
  return <canvas ref={canvas} className={className} height={HEIGHT} data-testid={testId} />;
}

function draw(el: HTMLCanvasElement, columns: readonly CoverageColumn[]): void {
  const width = Math.max(1, el.clientWidth);
  if (el.width !== width) el.width = width;
  const ctx = el.getContext('2d');
  if (!ctx) return;
  ctx.clearRect(0, 0, el.width, el.height);
  const shown = getComputedStyle(el).getPropertyValue('--coverage-shown').trim() || SHOWN;
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
      ctx.fillStyle = c.shown === c.index ? shown : '#f08c00';
      ctx.fillRect(x, 3 * CELL_H + GAP, cw, CELL_H);
    }
  });
}
