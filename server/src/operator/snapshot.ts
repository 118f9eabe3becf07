import type { OperatorSnapshot, OperatorStream } from '@pels/shared/protocol/operator';
import type { FeedbackSource } from '../config';
import { liveInfo } from '../live/liveView';
import type { LiveSettings } from '../store/operatorState';
import type { BottleneckFeedbackHub } from '../feedback/bottleneckFeedbackHub';
import type { Stream } from '../streams/stream';
import type { StreamRegistry } from '../streams/streamRegistry';
import type { ControlSettings } from './controlSettings';

export interface SnapshotSources {
  streams: StreamRegistry;
  router: BottleneckFeedbackHub;
  feedback: FeedbackSource;
  control: ControlSettings;
  /** The live streams' saved settings, by id. */
  live: () => Readonly<Record<string, LiveSettings>>;
}

/** A stream as the operator sees it: the whole source (URL credentials masked), FFmpeg's error, rates, viewers and keyframe requests. */
export function operatorStream(s: Stream, live: LiveSettings | undefined): OperatorStream {
  const info = liveInfo(s, live);
  return { ...s.operatorInfo(), controller: s.controller, layerKbps: s.layerKbps(), viewers: s.viewerCount(), keyframes: s.keyframeCounts(), ...(info ? { live: info } : {}) };
}

/** Everything the dashboard shows, read (never changed) from the live objects. */
export function takeSnapshot(d: SnapshotSources, now = new Date()): OperatorSnapshot {
  return {
    at: now.toISOString(),
    streams: d.streams.all().map((s) => operatorStream(s, d.live()[s.id])),
    viewers: d.streams.viewers(),
    router: { feedback: d.feedback, latest: d.router.state() },
    control: d.control.info(),
  };
}
