/** Every source with its ingest state and measured layer rates; add and remove sources, and live streams publishers send to. */
import { useEffect, useState, type FormEvent } from 'react';
import type { OperatorStream, StreamKeyAnswer } from '@pels/shared/protocol/operator';
import type { RateControllerName } from '@pels/shared/rate/names';
import { ControllerSelect } from './ControllerSelect';
import { fixed } from './format';
import { GoLiveForm, KeyBox, LiveCell, type LiveActions } from './LiveControls';

export interface StreamActions extends LiveActions {
  add(req: { id?: string; name?: string; source: string }): Promise<boolean>;
  remove(id: string): void;
  setController(id: string, controller: RateControllerName): void;
}

export function StreamsPanel({ streams, fps, actions }: { streams: OperatorStream[]; fps: Map<string, number>; actions: StreamActions }) {
  const [shownKey, setShownKey] = useState<{ id: string; answer: StreamKeyAnswer } | null>(null);
  return (
    <section className="panel">
      <h2>Sources</h2>
      <table className="streams">
        <thead>
          <tr>
            <th>Stream</th>
            <th>Input</th>
            <th>State</th>
            <th title="measured (configured) frames per second">fps</th>
            <th title="measured bitrate of each temporal layer, kb/s">TID 0 / 1 / 2 kb/s</th>
            <th>Total kb/s</th>
            <th title="the stream's sound: Opus encoded from the source's, Opus passed through, or none">Sound</th>
            <th>Viewers</th>
            <th>Restarts</th>
            <th title="rate controller of viewers that join from now on (a player's ?cc= overrides it)">CC</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {streams.map((s) => (
            <tr key={s.id} data-testid="stream-row" data-stream-id={s.id}>
              <td title={s.name}>{s.id}</td>
              <td className="source" title={s.source}>
                {s.source}
              </td>
              <td>
                <span className={`state state-${s.state}`} title={s.error}>
                  {s.state}
                </span>
                {s.error && <div className="stream-error">{s.error}</div>}
                <LiveCell stream={s} actions={actions} onKey={(answer) => setShownKey({ id: s.id, answer })} />
              </td>
              <td>
                {fixed(fps.get(s.id), 1)} ({s.frameRate})
              </td>
              <td>{s.layerKbps ? `${fixed(s.layerKbps.tid0, 0)} / ${fixed(s.layerKbps.tid1, 0)} / ${fixed(s.layerKbps.tid2, 0)}` : '—'}</td>
              <td>{fixed(s.layerKbps?.total, 0)}</td>
              <td data-testid="stream-sound">{s.audio ? (s.audio.passthrough ? 'Opus (passed through)' : 'Opus') : 'none'}</td>
              <td>{s.viewers}</td>
              <td>{s.restarts}</td>
              <td>
                <ControllerSelect value={s.controller} title="rate controller of this stream's next viewers" onChange={(c) => actions.setController(s.id, c)} />
              </td>
              <td>
                <RemoveButton onConfirm={() => actions.remove(s.id)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <AddStreamForm onAdd={actions.add} />
      <GoLiveForm onGoLive={(req) => void actions.goLive(req).then((answer) => answer && setShownKey({ id: req.id ?? 'the new stream', answer }))} />
      {shownKey && <KeyBox streamId={shownKey.id} answer={shownKey.answer} onDismiss={() => setShownKey(null)} />}
    </section>
  );
}

/** Removing a source cuts off its viewers: the first click arms, the second (within 4 s) removes. */
function RemoveButton({ onConfirm }: { onConfirm(): void }) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const t = setTimeout(() => setArmed(false), 4000);
    return () => clearTimeout(t);
  }, [armed]);
  if (!armed) return <button onClick={() => setArmed(true)}>Remove</button>;
  return (
    <button className="danger" onClick={onConfirm}>
      Confirm remove
    </button>
  );
}

function AddStreamForm({ onAdd }: { onAdd: StreamActions['add'] }) {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [source, setSource] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await onAdd({ ...(id.trim() ? { id: id.trim() } : {}), ...(name.trim() ? { name: name.trim() } : {}), source });
    if (ok) [setId, setName, setSource].forEach((set) => set(''));
  };
  return (
    <form className="inline-form" onSubmit={(e) => void submit(e)}>
      <input placeholder="id (optional)" value={id} onChange={(e) => setId(e.target.value)} size={10} />
      <input placeholder="name (optional)" value={name} onChange={(e) => setName(e.target.value)} size={14} />
      <input placeholder="source: file, URL or lavfi:GRAPH" value={source} onChange={(e) => setSource(e.target.value)} required size={40} />
      <button type="submit">Add source</button>
    </form>
  );
}
