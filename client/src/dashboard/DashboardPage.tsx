/**
 * The operator dashboard (/dashboard): sources, viewers, the bottleneck and the
 * controller, live from /ws/operator; actions through the operator API. Both
 * need the operator token, asked for once per tab.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { FLOW_MODES, type FlowModeName } from '@pels/shared/protocol/api';
import type { ControllerGains, OperatorSnapshot, StreamKeyAnswer } from '@pels/shared/protocol/operator';
import { BottleneckPanel } from './BottleneckPanel';
import { ControlPanel } from './ControlPanel';
import { DashboardConnection, dashboardUrl, type FeedStatus } from './dashboardConnection';
import { OperatorApi } from './operatorApi';
import { forgetToken, loadToken, saveToken } from './operatorToken';
import { StreamsPanel, type StreamActions } from './StreamsPanel';
import { measuredFps } from './streamRates';
import { ViewerChart } from './ViewerChart';
import { ViewerHistory } from './viewerHistory';
import { filterRows, nextSort, NO_FILTER, sortRows, toRow, type Sort, type SortKey, type ViewerFilter } from './viewerTable';
import { ViewersTable, type ViewerActions } from './ViewersTable';
import './dashboard.css';

export function DashboardPage() {
  const [token, setToken] = useState<string | null>(() => loadToken());
  if (!token)
    return (
      <TokenForm
        onToken={(t) => {
          saveToken(t);
          setToken(t);
        }}
      />
    );
  return (
    <Dashboard
      token={token}
      onChangeToken={() => {
        forgetToken();
        setToken(null);
      }}
    />
  );
}

function TokenForm({ onToken }: { onToken(token: string): void }) {
  const [value, setValue] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) onToken(value.trim());
  };
  return (
    <main className="dashboard">
      <h1>PELS operator dashboard</h1>
      <form className="inline-form" onSubmit={submit}>
        <label>
          Operator token <input type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} size={40} autoFocus />
        </label>
        <button type="submit">Open</button>
      </form>
      <p className="hint">The server's OPERATOR_TOKEN, or the token it printed in its log at start.</p>
    </main>
  );
}

type Notice = { kind: 'ok' | 'error'; text: string } | null;

function Dashboard({ token, onChangeToken }: { token: string; onChangeToken(): void }) {
  const [snapshot, setSnapshot] = useState<OperatorSnapshot | null>(null);
  const [status, setStatus] = useState<FeedStatus>({ state: 'connecting' });
  const [fps, setFps] = useState<Map<string, number>>(new Map());
  const [notice, setNotice] = useState<Notice>(null);
  const [sort, setSort] = useState<Sort>({ key: 'connectedAt', dir: 'asc' });
  const [filter, setFilter] = useState<ViewerFilter>(NO_FILTER);
  const [selected, setSelected] = useState<string | null>(null);
  const history = useMemo(() => new ViewerHistory(), []);
  const api = useMemo(() => new OperatorApi(token), [token]);
  const previous = useRef<OperatorSnapshot | null>(null);

  useEffect(() => {
    const conn = new DashboardConnection(dashboardUrl(location), token, {
      snapshot: (s) => {
        history.add(s);
        setFps(measuredFps(previous.current, s));
        previous.current = s;
        setSnapshot(s);
      },
      status: setStatus,
    });
    return () => conn.stop();
  }, [token, history]);

  /** Runs an action; its outcome is shown, and the next snapshot (within a second) shows its effect. */
  const act = useCallback(async (what: string, action: () => Promise<unknown>): Promise<boolean> => {
    try {
      await action();
      setNotice({ kind: 'ok', text: what });
      return true;
    } catch (err) {
      setNotice({ kind: 'error', text: `${what} failed: ${err instanceof Error ? err.message : String(err)}` });
      return false;
    }
  }, []);

  const viewerActions: ViewerActions = useMemo(
    () => ({
      select: (id) => setSelected((cur) => (cur === id ? null : id)),
      setMode: (id: string, mode: FlowModeName) => void act(`viewer ${id} switched to ${mode}`, () => api.setViewerMode(id, mode)),
      setController: (id, controller) => void act(`viewer ${id} switched to ${controller}`, () => api.setViewerController(id, controller)),
      disconnect: (id) => void act(`viewer ${id} disconnected`, () => api.disconnectViewer(id)),
    }),
    [act, api],
  );
  const streamActions: StreamActions = useMemo(
    () => ({
      add: (req) => act(`source ${req.id ?? req.source} added`, () => api.addStream(req)),
      remove: (id) => void act(`source ${id} removed`, () => api.removeStream(id)),
      setController: (id, controller) => void act(`source ${id}: new viewers get ${controller}`, () => api.setStreamController(id, controller)),
      goLive: async (req) => {
        let answer: StreamKeyAnswer | null = null;
        await act(`live stream ${req.id ?? ''} made`, async () => (answer = await api.addLiveStream(req)));
        return answer;
      },
      rotateKey: async (id) => {
        let answer: StreamKeyAnswer | null = null;
        await act(`stream ${id}: new key`, async () => (answer = await api.rotateKey(id)));
        return answer;
      },
      revokeKey: (id) => void act(`stream ${id}: key revoked`, () => api.revokeKey(id)),
      setTakeover: (id, allow) => void act(`stream ${id}: takeover ${allow ? 'allowed' : 'refused'}`, () => api.setTakeover(id, allow)),
    }),
    [act, api],
  );
  const applyGains = useCallback((gains: Partial<ControllerGains>) => act('controller gains changed for new viewers', () => api.setControl(gains)), [act, api]);

  const allRows = useMemo(() => (snapshot ? snapshot.viewers.map(toRow) : []), [snapshot]);
  const rows = useMemo(() => sortRows(filterRows(allRows, filter), sort), [allRows, filter, sort]);
  const onSort = useCallback((key: SortKey) => setSort((cur) => nextSort(cur, key, allRows[0])), [allRows]);
  const nowMs = snapshot ? Date.parse(snapshot.at) : Date.now();

  if (status.state === 'unauthorized') {
    return (
      <main className="dashboard">
        <h1>PELS operator dashboard</h1>
        <p className="banner banner-error">The server refused the token: {status.reason}</p>
        <button onClick={onChangeToken}>Enter another token</button>
      </main>
    );
  }

  return (
    <main className="dashboard">
      <header>
        <h1>PELS operator dashboard</h1>
        <span className={`state feed-${status.state}`} data-testid="dash-status" title={status.state === 'retrying' ? status.reason : undefined}>
          {status.state}
        </span>
        <button onClick={onChangeToken}>Change token</button>
      </header>
      {notice && (
        <p className={`banner ${notice.kind === 'ok' ? 'banner-ok' : 'banner-error'}`} data-testid="dash-notice" onClick={() => setNotice(null)}>
          {notice.text}
        </p>
      )}
      {snapshot && (
        <>
          <StreamsPanel streams={snapshot.streams} fps={fps} actions={streamActions} />
          <div className="panel-row">
            <BottleneckPanel router={snapshot.router} nowMs={nowMs} />
            <ControlPanel control={snapshot.control} onApply={applyGains} />
          </div>
          <section className="panel">
            <h2>
              Viewers <span data-testid="viewer-count">{rows.length === allRows.length ? allRows.length : `${rows.length} of ${allRows.length}`}</span>
            </h2>
            <ViewerFilters filter={filter} streams={snapshot.streams.map((s) => s.id)} onChange={setFilter} />
            <ViewersTable rows={rows} sort={sort} onSort={onSort} selected={selected} nowMs={nowMs} actions={viewerActions} />
          </section>
          {selected && history.has(selected) && <ViewerChart key={selected} history={history} viewerId={selected} />}
        </>
      )}
    </main>
  );
}

function ViewerFilters({ filter, streams, onChange }: { filter: ViewerFilter; streams: string[]; onChange(f: ViewerFilter): void }) {
  return (
    <div className="inline-form">
      <input placeholder="filter by viewer or stream id" value={filter.text} onChange={(e) => onChange({ ...filter, text: e.target.value })} size={28} />
      <select value={filter.streamId} onChange={(e) => onChange({ ...filter, streamId: e.target.value })}>
        <option value="">all streams</option>
        {streams.map((id) => (
          <option key={id} value={id}>
            {id}
          </option>
        ))}
      </select>
      <select value={filter.mode} onChange={(e) => onChange({ ...filter, mode: e.target.value as ViewerFilter['mode'] })}>
        <option value="all">all modes</option>
        {FLOW_MODES.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
    </div>
  );
}
