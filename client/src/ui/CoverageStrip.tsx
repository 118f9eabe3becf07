/**
 * Layer coverage, live: one column per frame period (newest on the right). The
 * frame's layer picks the row (TID 2 top, TID 0 bottom); its fill is the color it
 * arrived on, solid when decoded, pale when decodable but not decoded, crossed when
 * it arrived but could not be decoded (a reference missing) or came too late; an
 * empty box is a frame that did not arrive. The bottom row is the display: dark
 * when the period showed its own frame, orange when it repeated an older one.
 */
import { useSyncExternalStore } from 'react';
import type { CoverageColumn } from '../quality/coverage';
import type { QualityStore } from '../quality/qualityStore';
import { CoverageCanvas } from './CoverageCanvas';

export function CoverageStrip({ store }: { store: QualityStore }) {
  const { columns, utility } = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const s = summarizeCoverage(columns);
  return (
    <section className="coverage">
      <h3>Layer coverage (last {columns.length} frame periods)</h3>
      <CoverageCanvas columns={columns} className="coverage-strip" testId="coverage-strip" />
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

/** Counts over the strip's periods: shown, shown their own frame, arrived (by color), decoded, not decodable. */
export function summarizeCoverage(columns: readonly CoverageColumn[]) {
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

function pct(v: number | null): string {
  return v === null ? '–' : `${(v * 100).toFixed(1)}%`;
}
