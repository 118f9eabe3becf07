import type { types } from 'mediasoup-client';
import type { MediaTransport } from '@pels/shared/protocol/api';
import type { PlayerStats } from '../player/stats';

const LAYERS = [
  { key: 'total', label: 'All layers' },
  { key: 'tid0', label: 'TID 0 (base)' },
  { key: 'tid1', label: 'TID 1' },
  { key: 'tid2', label: 'TID 2' },
] as const;

interface Props {
  stats: PlayerStats;
  transportState: types.ConnectionState | undefined;
  mediaTransport: MediaTransport | null;
  viewerId: string | undefined;
}

export function StatsPanel({ stats, transportState, mediaTransport, viewerId }: Props) {
  const r = stats.framesReceived;
  return (
    <section className="stats">
      <table>
        <thead>
          <tr>
            <th>Decoded</th>
            <th>fps (2 s)</th>
            <th>total</th>
          </tr>
        </thead>
        <tbody>
          {LAYERS.map(({ key, label }) => (
            <tr key={key}>
              <td>{label}</td>
              <td className="num">{stats.fps[key].toFixed(1)}</td>
              <td className="num">{stats.framesDecoded[key]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl>
        <dt>Received</dt>
        <dd>
          <span className="dot green" /> {r.green} <span className="dot yellow" /> {r.yellow} <span className="dot red" /> {r.red}
        </dd>
        <dt>Skipped / late</dt>
        <dd>
          {stats.framesSkipped} / {stats.framesLate}
        </dd>
        <dt>Recovered (RTX) / PLI sent</dt>
        <dd data-testid="repair">
          {stats.packetsRecovered} / {stats.pliSent}
        </dd>
        <dt>Checksums (vs server)</dt>
        <dd data-testid="checksums">
          {stats.checksumsCompared} compared, {stats.checksumMismatches} mismatched
        </dd>
        <dt>Decode errors</dt>
        <dd title={stats.lastError}>
          {stats.decodeErrors}
          {stats.lastError ? ` (last: ${stats.lastError})` : ''}
        </dd>
        <dt>Size</dt>
        <dd>{stats.width ? `${stats.width}×${stats.height}` : '–'}</dd>
        <dt>Rendition / switches</dt>
        <dd data-testid="rendition" title="0 is the stream at full size; a lower rendition is decoded smaller and shown at the same size">
          {stats.framesDecoded.total ? `${stats.rendition} / ${stats.renditionSwitches}` : '–'}
        </dd>
        <dt>A/V sync</dt>
        <dd data-testid="av-sync" title="Audio playout minus video display for the same instant (positive: sound late); kept within 45 ms ahead and 125 ms late">
          {stats.avSyncMs === null ? '–' : `${stats.avSyncMs >= 0 ? '+' : ''}${stats.avSyncMs.toFixed(0)} ms`}
          {stats.soundDelayMs ? ` (sound held ${stats.soundDelayMs} ms for the picture)` : ''}
        </dd>
        <dt>Live latency</dt>
        <dd data-testid="live-latency" title="From when each frame entered the server to when it went on screen (the server's clock offset measured over signaling): median and 95th percentile over the last 10 s">
          {stats.latencyMs ? `${stats.latencyMs.p50} ms (p95 ${stats.latencyMs.p95})` : '–'}
        </dd>
        <dt>Sound lost / concealed</dt>
        <dd data-testid="audio-loss">
          {stats.audio ? `${stats.audio.packetsLost} / ${concealedPct(stats.audio)}` : '–'}
        </dd>
        <dt>Connection</dt>
        <dd data-testid="connection">
          {transportState ?? '–'}
          {mediaTransport ? ` over ${mediaTransport}${mediaTransport === 'udp' ? '' : ' (best effort)'}` : ''}
        </dd>
        <dt>Viewer</dt>
        <dd data-testid="viewer-id">{viewerId ?? '–'}</dd>
      </dl>
    </section>
  );
}

function concealedPct(a: NonNullable<PlayerStats['audio']>): string {
  return a.totalSamplesReceived ? `${((a.concealedSamples / a.totalSamplesReceived) * 100).toFixed(1)}%` : '–';
}
