/** Downloads the session's per-second metrics (see quality/metricsRecorder.ts) as CSV or JSON. */
import type { FlowModeName } from '@pels/shared/protocol/api';
import type { PlayerView } from '../player/controller';

export function ExportButtons({ view, mode }: { view: PlayerView; mode: FlowModeName }) {
  const { quality } = view;
  const name = `pels-${view.viewerId ?? 'session'}-${quality.startedAt.toISOString().replace(/[:.]/g, '-')}`;
  const csv = () => download(`${name}.csv`, 'text/csv', quality.metricsCsv());
  const json = () => {
    const session = { viewerId: view.viewerId ?? null, mode, streamId: view.streamId ?? null, colors: view.colors, startedAt: quality.startedAt.toISOString() };
    download(`${name}.json`, 'application/json', JSON.stringify({ session, rows: quality.metricsRows() }, null, 1));
  };
  return (
    <div className="export">
      Per-second metrics:{' '}
      <button type="button" onClick={csv} data-testid="export-csv">
        Download CSV
      </button>{' '}
      <button type="button" onClick={json} data-testid="export-json">
        Download JSON
      </button>
    </div>
  );
}

function download(filename: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  // The download has started from the click; the URL is no longer needed after this task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
