/**
 * Every viewer, sortable by any column. Only the rows in view (plus a few)
 * are in the DOM, and a row re-renders only when one of its values changed,
 * so hundreds of viewers updating every second stay cheap.
 */
import { memo, useState, type CSSProperties, type ReactNode } from 'react';
import type { FlowModeName } from '@pels/shared/protocol/api';
import type { RateControllerName } from '@pels/shared/rate/names';
import { ControllerSelect } from './ControllerSelect';
import { fixed, percent, since } from './format';
import type { Sort, SortKey, ViewerRow } from './viewerTable';

const ROW_HEIGHT = 30;
/** The table grows with its rows up to this, then scrolls. */
const MAX_HEIGHT = 420;
const OVERSCAN = 6;

interface Column {
  key: SortKey;
  label: string;
  title?: string;
  /** Its track in the row grid; numbers share what is left. */
  width?: string;
  cell(r: ViewerRow, nowMs: number): ReactNode;
}

/** Wide enough for "0.192", and a header with its sort arrow ("Rate ▼"), at the table's font (12 px). */
const NUMBER = 'minmax(48px, 1fr)';
/** Wide enough for "100.0%" and its header ("Y loss"). */
const LOSS = 'minmax(50px, 1fr)';
/** The rate controller select (the viewer's controller: it has no column of its own), the mode button and the disconnect button, side by side. */
const ACTIONS = '160px';

const COLUMNS: Column[] = [
  { key: 'id', width: '72px', label: 'Viewer', cell: (r) => r.id },
  { key: 'streamId', width: '62px', label: 'Stream', cell: (r) => r.streamId },
  { key: 'mode', width: '86px', label: 'Mode', cell: (r) => <span className={`mode mode-${r.mode}`}>{r.mode}</span> },
  {
    key: 'transport',
    width: '60px',
    label: 'Path',
    title: 'how the media reaches the viewer: udp, tcp (ICE-TCP) or relay (TURN); over tcp or relay its packets cannot carry colors, so it is served best effort',
    cell: (r) => (r.transport === null ? '–' : <span className={`transport-${r.transport}`}>{r.transport === 'udp' ? 'udp' : `${r.transport}: best effort`}</span>),
  },
  { key: 'rateKbps', label: 'Rate', title: "the rate controller's rate, kb/s", cell: (r) => fixed(r.rateKbps, 0) },
  { key: 'sentKbps', label: 'Sent', title: 'sent over the last second, kb/s', cell: (r) => fixed(r.sentKbps, 0) },
  { key: 'gamma', label: 'γ', title: 'red share gamma', cell: (r) => fixed(r.gamma, 3) },
  { key: 'lossGreen', width: LOSS, label: 'G loss', title: 'green loss, last receiver report', cell: (r) => percent(r.lossGreen) },
  { key: 'lossYellow', width: LOSS, label: 'Y loss', title: 'yellow loss, last receiver report', cell: (r) => percent(r.lossYellow) },
  { key: 'lossRed', width: LOSS, label: 'R loss', title: 'red loss, last receiver report', cell: (r) => percent(r.lossRed) },
  {
    key: 'diagnosis',
    width: '98px',
    label: 'Loss · RTX',
    title: "how the viewer's loss is read (clear, wire loss, congestion) · colors whose retransmissions reach it now (G green, Y yellow, R red): yellow and red on wire loss when the rate has room",
    cell: (r) => <span className={`diagnosis-${r.diagnosis}`}>{`${r.diagnosis} · ${r.repaired || '–'}`}</span>,
  },
  { key: 'psnrDb', label: 'PSNR', title: 'Y-PSNR of what the viewer displayed, dB', cell: (r) => fixed(r.psnrDb, 1) },
  { key: 'latencyMs', width: 'minmax(56px, 1fr)', label: 'Latency', title: "live latency as the player reports it: from a frame's entry at the server to its display, median over the last 10 s, ms", cell: (r) => fixed(r.latencyMs, 0) },
  {
    key: 'rendition',
    label: 'Rend.',
    title: 'rendition sent (0: full size; higher: smaller and lower rate) · switches so far',
    cell: (r) => <span className="rendition">{`${r.rendition} · ${r.renditionSwitches}`}</span>,
  },
  { key: 'upta', width: '52px', label: 'UPTA', title: 'useless-packet avoidance: every layer, the base layer only, or paused (the video would be unintelligible); blank: off', cell: (r) => r.upta ?? '' },
  { key: 'audioKbps', label: 'Sound', title: "the viewer's sound (Opus, marked green, counted in its rate): sent over the last second, kb/s", cell: (r) => fixed(r.audioKbps, 0) },
  { key: 'audioLoss', width: LOSS, label: 'S loss', title: "the sound's loss, last receiver report", cell: (r) => percent(r.audioLoss) },
  { key: 'rttMs', label: 'RTT', title: 'round-trip time, ms', cell: (r) => fixed(r.rttMs, 0) },
  { key: 'connectedAt', width: '54px', label: 'Since', cell: (r, now) => <span title={new Date(r.connectedAt).toLocaleString()}>{since(r.connectedAt, now)}</span> },
];

/** Header and rows share one grid: a track per column, and the actions'. Made from COLUMNS, so a new column cannot push the actions onto a line of their own. */
const GRID = { '--cols': [...COLUMNS.map((c) => c.width ?? NUMBER), ACTIONS].join(' ') } as CSSProperties;

export interface ViewerActions {
  select(id: string): void;
  setMode(id: string, mode: FlowModeName): void;
  setController(id: string, controller: RateControllerName): void;
  disconnect(id: string): void;
}

export function ViewersTable(props: { rows: ViewerRow[]; sort: Sort; onSort(key: SortKey): void; selected: string | null; nowMs: number; actions: ViewerActions }) {
  const { rows, sort, onSort, selected, nowMs, actions } = props;
  const [scrollTop, setScrollTop] = useState(0);
  const height = Math.min(MAX_HEIGHT, Math.max(rows.length, 2) * ROW_HEIGHT);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  return (
    <div className="vtable" role="table" aria-rowcount={rows.length} style={GRID}>
      <div className="vrow vhead" role="row">
        {COLUMNS.map((c) => (
          <button key={c.key} role="columnheader" title={c.title} className={sort.key === c.key ? 'sorted' : ''} onClick={() => onSort(c.key)}>
            {c.label}
            {sort.key === c.key ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
          </button>
        ))}
        <span role="columnheader">Actions</span>
      </div>
      <div className="vbody" style={{ height }} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
        <div style={{ height: rows.length * ROW_HEIGHT, position: 'relative' }}>
          {rows.slice(first, last).map((r, i) => (
            <Row key={r.id} row={r} top={(first + i) * ROW_HEIGHT} selected={r.id === selected} nowS={Math.floor(nowMs / 1000)} actions={actions} />
          ))}
        </div>
        {rows.length === 0 && <p className="empty">No viewers.</p>}
      </div>
    </div>
  );
}

interface RowProps {
  row: ViewerRow;
  top: number;
  selected: boolean;
  /** Whole seconds, so the "connected" column changes at most once a second. */
  nowS: number;
  actions: ViewerActions;
}

const Row = memo(
  function Row({ row, top, selected, nowS, actions }: RowProps) {
    // A nack viewer gets no button: leaving nack needs nftables to hold yellow's and red's retransmissions back, which the row does not show (the API switches it when it can).
    const other: FlowModeName | null = row.mode === 'nack' ? null : row.mode === 'pels' ? 'best-effort' : 'pels';
    // The server refuses PELS on a path that cannot carry colors.
    const stuck = other === 'pels' && (row.transport === 'tcp' || row.transport === 'relay');
    return (
      <div
        className={`vrow${selected ? ' selected' : ''}`}
        role="row"
        style={{ top, height: ROW_HEIGHT }}
        data-testid="viewer-row"
        data-viewer-id={row.id}
        onClick={() => actions.select(row.id)}
      >
        {COLUMNS.map((c) => (
          <span key={c.key} role="cell" data-col={c.key}>
            {c.cell(row, nowS * 1000)}
          </span>
        ))}
        <span role="cell" className="actions" onClick={(e) => e.stopPropagation()}>
          <ControllerSelect value={row.controller} title="switch this viewer's rate controller (it starts at the current rate)" onChange={(c) => actions.setController(row.id, c)} />
          {other && (
            <button
              data-action="mode"
              disabled={stuck}
              title={stuck ? `receives over ${row.transport}: its packets cannot carry colors` : `switch to ${other}`}
              onClick={() => actions.setMode(row.id, other)}
            >
              → {other === 'pels' ? 'PELS' : 'BE'}
            </button>
          )}
          <button data-action="disconnect" title="disconnect this viewer" aria-label="disconnect" onClick={() => actions.disconnect(row.id)}>
            ✕
          </button>
        </span>
      </div>
    );
  },
  (a, b) => a.top === b.top && a.selected === b.selected && a.nowS === b.nowS && a.actions === b.actions && sameRow(a.row, b.row),
);

function sameRow(a: ViewerRow, b: ViewerRow): boolean {
  for (const k of Object.keys(a) as (keyof ViewerRow)[]) if (a[k] !== b[k]) return false;
  return true;
}
