/**
 * The page's side of the sound's receiver: which RTP timestamp it is playing
 * out, for the worker's lip sync (avSync.ts), its receive counters, and how
 * long it holds the sound for the picture (soundDelay.ts).
 */
import type { AudioReceiveStats } from '@pels/shared/protocol/playerHook';
import type { PageToWorker } from './workerProtocol';

/** How often the playout position is read: the worker takes the median of the last few. */
const CLOCK_POLL_MS = 50;
/** A position older than this is a sound that stopped: not sent. */
const STALE_MS = 500;

/** Sends the receiver's playout position to the worker until the returned function is called. */
export function startAudioClock(receiver: RTCRtpReceiver, worker: Worker): () => void {
  const timer = setInterval(() => {
    const source = receiver.getSynchronizationSources()[0];
    if (!source) return;
    const atEpochMs = epochMs(source.timestamp);
    if (Date.now() - atEpochMs > STALE_MS) return;
    worker.postMessage({ type: 'audioPlayed', rtpTimestamp: source.rtpTimestamp, atEpochMs } satisfies PageToWorker);
  }, CLOCK_POLL_MS);
  return () => clearInterval(timer);
}

/**
 * A synchronization source's time: the specification's clock (performance.timeOrigin
 * based) or, in some Chromium versions, ms since the epoch; told apart by which is near now.
 */
function epochMs(timestamp: number): number {
  const asPerformance = performance.timeOrigin + timestamp;
  return Math.abs(asPerformance - Date.now()) < Math.abs(timestamp - Date.now()) ? asPerformance : timestamp;
}

/** The sound as received (WebRTC stats of the audio receiver), counted since the session began. */
export type { AudioReceiveStats };

/** A receiver that played out further than this from real time between two readings stalled or caught up. */
const STEADY_PLAYOUT = 0.1;

/**
 * The receiver's mean jitter buffer delay between two readings, ms; null when
 * it did not play out at its sample rate meanwhile (a busy machine stalled its
 * sound, which then waited in the buffer: no measure of what it holds).
 */
export function bufferMsBetween(before: AudioReceiveStats | null, after: AudioReceiveStats, sampleRate: number): number | null {
  if (!before) return null;
  const emitted = after.jitterBufferEmittedCount - before.jitterBufferEmittedCount;
  const expected = ((after.atMs - before.atMs) / 1000) * sampleRate;
  if (!(expected > 0) || Math.abs(emitted / expected - 1) > STEADY_PLAYOUT) return null;
  return ((after.jitterBufferDelay - before.jitterBufferDelay) / emitted) * 1000;
}

/** The audio inbound-rtp entry of a receive transport's stats; null when there is none yet. */
export function audioReceiveStats(report: RTCStatsReport): AudioReceiveStats | null {
  for (const s of report.values() as IterableIterator<Record<string, unknown>>) {
    if (s.type !== 'inbound-rtp' || s.kind !== 'audio') continue;
    const n = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : 0);
    return {
      packetsReceived: n('packetsReceived'),
      packetsLost: n('packetsLost'),
      concealedSamples: n('concealedSamples'),
      totalSamplesReceived: n('totalSamplesReceived'),
      silentConcealedSamples: n('silentConcealedSamples'),
      fecPacketsReceived: n('fecPacketsReceived'),
      concealmentEvents: n('concealmentEvents'),
      nackCount: n('nackCount'),
      insertedSamplesForDeceleration: n('insertedSamplesForDeceleration'),
      removedSamplesForAcceleration: n('removedSamplesForAcceleration'),
      jitterBufferDelay: n('jitterBufferDelay'),
      jitterBufferEmittedCount: n('jitterBufferEmittedCount'),
      atMs: n('timestamp'),
    };
  }
  return null;
}
