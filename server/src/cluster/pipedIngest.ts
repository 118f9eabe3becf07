import { EventEmitter } from 'node:events';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { IngestEvents, IngestState, IngestStatus } from '../ingest/ffmpegIngest';
import type { AudioPlan } from '../ingest/sourceSpec';
import type { Publisher } from '../live/publisher';
import { opusSamples } from '../rtp/opusPacket';
import { AUDIO_CLOCK_RATE } from '../sfu/mediaWorker';
import type { StreamIngest } from '../streams/streamIngest';
import type { PipedFrame } from './frameAssembler';

const WRAP = 2 ** 32;

/** Where a pipe starts on the origin: its next frame index, the sound's RTP timestamp of frame index 0, the frame rate. */
export interface PipeStart {
  originIndex: number;
  audioTimestampBase: number;
  frameRate: number;
}

/** A VP8 frame's first byte: bit 0 clear is a keyframe (RFC 6386, 9.1). */
const isKeyframe = (data: Uint8Array): boolean => data.length > 0 && (data[0]! & 1) === 0;

/**
 * An edge's stream's ingest: the frames and the sound come from the origin's pipe (EdgeLink takes them off
 * it), the state is the origin's stream's (or `failed` while the origin cannot be reached), and a keyframe
 * request goes upstream, after the stream's own throttle, as a PLI on the pipe.
 *
 * Each pipe is a run, as an FFmpeg run is on one server: its frames' pts count from the origin's index when
 * it was set up, so the stream's index goes on from where it was whether the origin kept its indexes (a pipe
 * rebuilt) or started again from 0 (an origin restarted). A run's rendition starts at its first keyframe:
 * what comes before refers to frames the viewers never got. The sound's RTP timestamps and the PSNR rows'
 * indexes are the origin's and are moved the same way. A change of the origin's sound plan starts a run too
 * (the players learn the stream's sound with it), where the last one left off.
 */
export class PipedIngest extends EventEmitter<IngestEvents> implements StreamIngest {
  private status: IngestStatus = { state: 'starting', restarts: 0 };
  /** Set while the pipe is up: asks the origin for a keyframe of the rendition. */
  private keyframe: ((rendition: number) => void) | null = null;
  private pipe: {
    start: PipeStart;
    /** The origin's index of the run's pts 0. */
    base: number;
    /** Rows below it are of frames before the pipe. */
    rowFloor: number;
    /** The highest origin index given. */
    last: number;
    /** Renditions whose keyframe has come. */
    keyed: Set<number>;
    /** The last sound packet's sample, in the origin's 48 kHz timeline from frame index 0. */
    sample: number;
  } | null = null;
  private plan: AudioPlan = 'none';
  private rows: ((rendition: number, rows: readonly QualityFrame[]) => void) | null = null;

  get currentStatus(): IngestStatus {
    return this.status;
  }

  get currentPublisher(): Publisher | null {
    return null;
  }

  /** The pipe is what starts the frames. */
  start(): void {}

  close(): void {
    this.keyframe = null;
    this.pipe = null;
    this.setState('stopped');
  }

  requestKeyframe(rendition: number): void {
    this.keyframe?.(rendition);
  }

  attachPublisher(p: Publisher): void {
    p.close('this server is an edge: publish to its origin');
  }

  detachPublisher(): void {}

  /** A pipe is up (`keyframe` asks for one upstream): a run starts. */
  pipeUp(start: PipeStart, keyframe: (rendition: number) => void): void {
    this.keyframe = keyframe;
    const sample = Math.round((start.originIndex * AUDIO_CLOCK_RATE) / start.frameRate);
    this.pipe = { start, base: start.originIndex, rowFloor: start.originIndex, last: start.originIndex - 1, keyed: new Set(), sample };
    this.emit('run', this.plan);
  }

  /** Frames come: a pipe is up. */
  get piped(): boolean {
    return this.pipe !== null;
  }

  /** The pipe is down: nothing comes until the next. */
  pipeDown(): void {
    this.keyframe = null;
    this.pipe = null;
  }

  /** The origin's sound plan; a change while piped starts a run after the last frame. */
  setAudioPlan(plan: AudioPlan): void {
    if (plan === this.plan) return;
    this.plan = plan;
    if (!this.pipe) return;
    this.pipe.base = this.pipe.last + 1;
    this.emit('run', plan);
  }

  setState(state: IngestState, error?: string): void {
    if (this.status.state === 'stopped') return;
    if (state === this.status.state && error === this.status.error) return;
    this.status = { state, restarts: this.status.restarts, ...(error !== undefined ? { error } : {}) };
    this.emit('status', this.status);
  }

  frame(rendition: number, f: PipedFrame): void {
    const p = this.pipe;
    if (!p || f.index < p.base) return;
    if (!p.keyed.has(rendition)) {
      if (!isKeyframe(f.data)) return;
      p.keyed.add(rendition);
    }
    p.last = Math.max(p.last, f.index);
    this.emit('frame', { pts: BigInt(f.index - p.base), data: f.data }, rendition, Date.now());
  }

  /** A sound packet off the pipe: its Opus payload and RTP timestamp. */
  audio(timestamp: number, payload: Buffer): void {
    const p = this.pipe;
    if (!p) return;
    // Unwrapped around the last packet's sample (the first: the pipe's first frame's).
    let delta = (timestamp - p.start.audioTimestampBase - (p.sample % WRAP) + 2 * WRAP) % WRAP;
    if (delta >= WRAP / 2) delta -= WRAP;
    p.sample += delta;
    const spf = AUDIO_CLOCK_RATE / p.start.frameRate;
    this.emit('audio', { data: payload, startSample: p.sample - Math.round(p.base * spf), samples: opusSamples(payload) });
  }

  /** The stream's listener of PSNR rows (Upstream.onQualityRows). */
  onRows(listener: (rendition: number, rows: readonly QualityFrame[]) => void): void {
    this.rows = listener;
  }

  /** PSNR rows from the origin: indexed by the run's pts, as its frames. */
  qualityRows(rendition: number, rows: readonly QualityFrame[]): void {
    const p = this.pipe;
    if (!p || !this.rows) return;
    const mine = rows.filter((r) => r.index >= p.rowFloor).map((r) => ({ ...r, index: r.index - p.base }));
    if (mine.length) this.rows(rendition, mine);
  }
}
