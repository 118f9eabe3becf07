import { formatTick, logTicks, niceDomain, niceTicks } from './ticks';

/**
 * A small SVG line-plot writer: panels side by side, each with axes, ticks,
 * axis labels, a legend and optional reference lines. No chart library: the
 * lab's figures are simple and must render anywhere Markdown shows SVG.
 */

export interface Series {
  name: string;
  /** [x, y]; a non-finite y breaks the line. */
  points: ReadonlyArray<readonly [number, number]>;
  /** 'dots' for measured points beside a model line. */
  style?: 'line' | 'dots';
  dashed?: boolean;
  /** CSS color; by default the next one of the palette. */
  color?: string;
}

export interface ReferenceLine {
  y: number;
  label: string;
  /** End of the line the label sits at, away from the data; default right. */
  side?: 'left' | 'right';
}

export interface Panel {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  xLog?: boolean;
  yLog?: boolean;
  /** Fixed ranges; by default from the data, extended to nice ticks. */
  x?: [number, number];
  y?: [number, number];
  references?: ReferenceLine[];
  /** Corner for the legend, away from the data; default top-left. */
  legend?: 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right';
}

const PANEL_W = 560;
const PANEL_H = 380;
const M = { left: 70, right: 20, top: 36, bottom: 52 };
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

export function renderFigure(title: string, panels: readonly Panel[]): string {
  const width = PANEL_W * panels.length;
  const height = PANEL_H + 30;
  const body = panels.map((p, i) => `<g transform="translate(${i * PANEL_W},30)">${renderPanel(p, i)}</g>`).join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>`,
    body,
    '</svg>',
    '',
  ].join('\n');
}

interface Axis {
  toPx: (v: number) => number;
  ticks: number[];
}

function axis(values: number[], log: boolean, fixed: [number, number] | undefined, pxFrom: number, pxTo: number): Axis {
  const finite = values.filter((v) => Number.isFinite(v) && (!log || v > 0));
  let [lo, hi] = fixed ?? (finite.length ? [Math.min(...finite), Math.max(...finite)] : [0, 1]);
  if (log) {
    lo = 10 ** Math.floor(Math.log10(lo));
    hi = 10 ** Math.ceil(Math.log10(hi));
    if (hi <= lo) hi = lo * 10;
    const f = (v: number): number => Math.log10(v);
    return { toPx: (v) => pxFrom + ((f(v) - f(lo)) / (f(hi) - f(lo))) * (pxTo - pxFrom), ticks: logTicks(lo, hi) };
  }
  if (!fixed) [lo, hi] = niceDomain(lo, hi);
  return { toPx: (v) => pxFrom + ((v - lo) / (hi - lo)) * (pxTo - pxFrom), ticks: niceTicks(lo, hi) };
}

function renderPanel(p: Panel, index: number): string {
  const x0 = M.left;
  const x1 = PANEL_W - M.right;
  const y0 = PANEL_H - M.bottom;
  const y1 = M.top;
  const xs = p.series.flatMap((s) => s.points.map((pt) => pt[0]));
  const ys = [...p.series.flatMap((s) => s.points.map((pt) => pt[1])), ...(p.references ?? []).map((r) => r.y)];
  const X = axis(xs, p.xLog ?? false, p.x, x0, x1);
  const Y = axis(ys, p.yLog ?? false, p.y, y0, y1);
  const out: string[] = [];
  out.push(`<text x="${(x0 + x1) / 2}" y="18" text-anchor="middle" font-size="13" font-weight="bold">${escape(p.title)}</text>`);
  for (const t of Y.ticks) {
    const y = Y.toPx(t);
    out.push(`<line x1="${x0}" x2="${x1}" y1="${f(y)}" y2="${f(y)}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${x0 - 6}" y="${f(y + 4)}" text-anchor="end">${formatTick(t)}</text>`);
  }
  for (const t of X.ticks) {
    const x = X.toPx(t);
    out.push(`<line x1="${f(x)}" x2="${f(x)}" y1="${y0}" y2="${y1}" stroke="#f0f0f0"/>`);
    out.push(`<line x1="${f(x)}" x2="${f(x)}" y1="${y0}" y2="${y0 + 5}" stroke="black"/>`);
    out.push(`<text x="${f(x)}" y="${y0 + 18}" text-anchor="middle">${formatTick(t)}</text>`);
  }
  out.push(`<rect x="${x0}" y="${y1}" width="${x1 - x0}" height="${y0 - y1}" fill="none" stroke="black"/>`);
  out.push(`<text x="${(x0 + x1) / 2}" y="${PANEL_H - 12}" text-anchor="middle">${escape(p.xLabel)}</text>`);
  out.push(`<text transform="translate(16,${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle">${escape(p.yLabel)}</text>`);
  out.push(`<clipPath id="plot${index}"><rect x="${x0}" y="${y1}" width="${x1 - x0}" height="${y0 - y1}"/></clipPath>`);
  const clip = `clip-path="url(#plot${index})"`;
  for (const r of p.references ?? []) {
    const y = Y.toPx(r.y);
    out.push(`<line x1="${x0}" x2="${x1}" y1="${f(y)}" y2="${f(y)}" stroke="#555" stroke-dasharray="2,3" ${clip}/>`);
    const left = r.side === 'left';
    out.push(`<text x="${left ? x0 + 4 : x1 - 4}" y="${f(y - 4)}" text-anchor="${left ? 'start' : 'end'}" fill="#555">${escape(r.label)}</text>`);
  }
  p.series.forEach((s, i) => {
    const color = colorOf(s, i);
    const pts = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!p.yLog || y > 0) && (!p.xLog || x > 0));
    if (s.style === 'dots') {
      for (const [x, y] of pts) out.push(`<circle cx="${f(X.toPx(x))}" cy="${f(Y.toPx(y))}" r="3.5" fill="none" stroke="${color}" stroke-width="1.5" ${clip}/>`);
    } else {
      out.push(`<path d="${pathData(s.points, X, Y, p)}" fill="none" stroke="${color}" stroke-width="1.6"${s.dashed ? ' stroke-dasharray="6,4"' : ''} ${clip}/>`);
    }
  });
  if (p.series.length > 0) out.push(legend(p.series, p.legend ?? 'top-left', { x0, x1, y0, y1 }));
  return out.join('\n');
}

/** Line segments between finite points; a non-finite y starts a new segment. */
function pathData(points: Series['points'], X: Axis, Y: Axis, p: Panel): string {
  let d = '';
  let pen = false;
  for (const [x, y] of points) {
    const ok = Number.isFinite(x) && Number.isFinite(y) && (!p.yLog || y > 0) && (!p.xLog || x > 0);
    if (!ok) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${f(X.toPx(x))},${f(Y.toPx(y))}`;
    pen = true;
  }
  return d;
}

function legend(series: readonly Series[], corner: NonNullable<Panel['legend']>, box: { x0: number; x1: number; y0: number; y1: number }): string {
  const width = 30 + Math.max(...series.map((s) => s.name.length)) * 6.4;
  const height = series.length * 16 + 6;
  const x = corner.endsWith('left') ? box.x0 + 10 : box.x1 - 10 - width;
  const y = corner.startsWith('top') ? box.y1 + 10 : box.y0 - 10 - height;
  const rows = series.map((s, i) => {
    const color = colorOf(s, i);
    const ly = y + 14 + i * 16;
    const mark =
      s.style === 'dots'
        ? `<circle cx="${f(x + 12)}" cy="${ly - 4}" r="3.5" fill="none" stroke="${color}" stroke-width="1.5"/>`
        : `<line x1="${f(x + 4)}" x2="${f(x + 20)}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="4,3"' : ''}/>`;
    return `${mark}<text x="${f(x + 26)}" y="${ly}">${escape(s.name)}</text>`;
  });
  return `<rect x="${f(x)}" y="${f(y)}" width="${f(width)}" height="${height}" fill="white" fill-opacity="0.85" stroke="#bbb"/>${rows.join('')}`;
}

function colorOf(s: Series, index: number): string {
  return s.color ?? PALETTE[index % PALETTE.length]!;
}

function f(v: number): string {
  return v.toFixed(1);
}

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
