/**
 * The streams a start serves: SOURCE's `default` unless the operator removed
 * it (so a changed SOURCE takes effect at the next start), then the streams
 * the operator added, in the order added.
 */
import { resolveSource } from '../ingest/mediaFiles';
import { parseSource, SourceError } from '../ingest/sourcePolicy';
import type { SourceSpec } from '../ingest/sourceSpec';
import type { NewStream } from '../operator/operatorRoutes';
import { DEFAULT_STREAM, type OperatorState, type StoredStream } from './operatorState';

export interface RefusedStream extends StoredStream {
  reason: string;
}

/**
 * Each saved source goes through the source policy again: MEDIA_DIR or the
 * policy may have changed since it was added. A source the policy now refuses
 * is returned apart, with the reason.
 */
export async function streamsAtStart(
  state: OperatorState,
  source: SourceSpec,
  mediaDirs: readonly string[],
): Promise<{ streams: NewStream[]; refused: RefusedStream[] }> {
  const streams: NewStream[] = state.defaultRemoved ? [] : [{ ...DEFAULT_STREAM, source }];
  const refused: RefusedStream[] = [];
  for (const saved of state.streams) {
    try {
      streams.push({ ...saved, source: await savedSource(saved.source, mediaDirs) });
    } catch (err) {
      if (!(err instanceof SourceError)) throw err;
      refused.push({ ...saved, reason: err.message });
    }
  }
  return { streams, refused };
}

async function savedSource(input: string, mediaDirs: readonly string[]): Promise<SourceSpec> {
  const parsed = parseSource(input);
  if (parsed.kind !== 'file') return parsed;
  try {
    return await resolveSource(input, mediaDirs);
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    // A file that is gone (or now outside MEDIA_DIR) still makes a stream: its ingest looks the file up again at each
    // FFmpeg start, so the stream shows failed, with the reason, until the file is back.
    return { kind: 'file', path: parsed.path, mediaDirs };
  }
}
