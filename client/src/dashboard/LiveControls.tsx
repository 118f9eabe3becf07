/** Live streams on the dashboard: make one, see its publisher, rotate or revoke its key, allow a takeover; a new key is shown once. */
import { useState, type FormEvent } from 'react';
import type { OperatorStream, StreamKeyAnswer } from '@pels/shared/protocol/operator';

export interface LiveActions {
  goLive(req: { id?: string; name?: string; takeover: boolean }): Promise<StreamKeyAnswer | null>;
  rotateKey(id: string): Promise<StreamKeyAnswer | null>;
  revokeKey(id: string): void;
  setTakeover(id: string, allow: boolean): void;
}

/** A stream's key and where to publish with it, as the server answered once. */
export function KeyBox({ streamId, answer, onDismiss }: { streamId: string; answer: StreamKeyAnswer; onDismiss(): void }) {
  const { rtmp, srt, whip } = answer.publish;
  return (
    <div className="key-box" data-testid="stream-key-box">
      <strong>Stream key of {streamId}</strong> (shown once; the server keeps only its hash):
      <code data-testid="stream-key">{answer.key}</code>
      {rtmp && (
        <div>
          RTMP (OBS: server <code>{rtmp.slice(0, rtmp.lastIndexOf('/'))}</code>, stream key as above): <code data-testid="publish-rtmp">{rtmp}</code>
        </div>
      )}
      {srt && (
        <div>
          SRT: <code data-testid="publish-srt">{srt}</code>
        </div>
      )}
      {whip && (
        <div>
          WHIP (OBS: service WHIP, this server URL, the stream key as bearer token): <code data-testid="publish-whip">{whip}</code>
        </div>
      )}
      {!rtmp && !srt && !whip && <div>No publish listener is on: start the server with RTMP=on, SRT=on or WHIP=on.</div>}
      <button onClick={onDismiss}>Done</button>
    </div>
  );
}

/** The publishing side of a live stream's row. */
export function LiveCell({ stream, actions, onKey }: { stream: OperatorStream; actions: LiveActions; onKey(answer: StreamKeyAnswer): void }) {
  const live = stream.live;
  if (!live) return null;
  const p = live.publisher;
  return (
    <div className="live-cell" data-testid="live-cell">
      <div data-testid="publisher">{p ? `${p.protocol} from ${p.address}` : live.keySet ? 'no publisher' : 'key revoked'}</div>
      <button onClick={() => void actions.rotateKey(stream.id).then((a) => a && onKey(a))}>New key</button>
      {live.keySet && <button onClick={() => actions.revokeKey(stream.id)}>Revoke key</button>}
      <label title="a new publisher with the key takes over from the one sending (otherwise it is refused)">
        <input type="checkbox" checked={live.takeover} onChange={(e) => actions.setTakeover(stream.id, e.target.checked)} /> takeover
      </label>
    </div>
  );
}

export function GoLiveForm({ onGoLive }: { onGoLive(req: { id?: string; name?: string; takeover: boolean }): void }) {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [takeover, setTakeover] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onGoLive({ ...(id.trim() ? { id: id.trim() } : {}), ...(name.trim() ? { name: name.trim() } : {}), takeover });
    setId('');
    setName('');
  };
  return (
    <form className="inline-form" onSubmit={submit} data-testid="go-live-form">
      <input placeholder="id (optional)" value={id} onChange={(e) => setId(e.target.value)} size={10} />
      <input placeholder="name (optional)" value={name} onChange={(e) => setName(e.target.value)} size={14} />
      <label>
        <input type="checkbox" checked={takeover} onChange={(e) => setTakeover(e.target.checked)} /> a new publisher takes over
      </label>
      <button type="submit">New live stream</button>
    </form>
  );
}
