import { EventEmitter } from 'node:events';
import type { types as ms } from 'mediasoup';
import type { StreamInfo } from '@pels/shared/protocol/signaling';
import { ClosedError, RequestError } from '../errors';
import type { FlowPolicy } from '@pels/shared/pels/flowPolicy';
import { FfmpegIngest, type IngestStatus } from '../ingest/ffmpegIngest';
import { describeSource, parseSource, type EncodeSettings } from '../ingest/sourceSpec';
import { FrameLayering } from '../layering/layeredFrame';
import type { Logger } from '../log';
import { ViewerSession } from '../viewer/viewerSession';

export interface StreamOptions {
  id: string;
  name: string;
  source: string;
  encode: EncodeSettings;
  webRtc: { listenIp: string; announcedAddress: string | undefined };
  createRouter: () => Promise<ms.Router>;
  createPolicy: () => FlowPolicy;
  log: Logger;
}

type StreamEvents = { info: [StreamInfo] };

/**
 * One source: its FFmpeg ingest, its mediasoup router and its viewers.
 * Frames flow one way: ingest -> layering -> each viewer's flow.
 */
export class Stream extends EventEmitter<StreamEvents> {
  readonly id: string;
  private router: ms.Router | null = null;
  private readonly ingest: FfmpegIngest;
  private readonly layering: FrameLayering;
  private readonly viewers = new Map<string, ViewerSession>();
  private framesIngested = 0;
  private closed = false;
  private readonly ticksPerFrame: number;

  constructor(private readonly opts: StreamOptions) {
    super();
    this.id = opts.id;
    this.ticksPerFrame = Math.round(90000 / opts.encode.frameRate);
    this.layering = new FrameLayering(this.ticksPerFrame);
    this.ingest = new FfmpegIngest(parseSource(opts.source), opts.encode, opts.log.child({ stream: opts.id }));
    this.ingest.on('status', () => this.emit('info', this.info()));
    this.ingest.on('frame', (f) => {
      let frame;
      try {
        frame = this.layering.next(f.data);
      } catch (err) {
        this.opts.log.warn({ stream: this.id, err }, 'skipping a frame whose VP8 header cannot be read');
        return;
      }
      this.framesIngested++;
      const now = Date.now();
      for (const v of this.viewers.values()) v.sendFrame(frame, now);
    });
  }

  async start(): Promise<void> {
    this.router = await this.opts.createRouter();
    this.ingest.start();
  }

  /** The media worker was replaced: viewers on the old router are gone. */
  async onMediaWorkerRestarted(): Promise<void> {
    for (const v of [...this.viewers.values()]) v.close('media worker restarted');
    this.router = await this.opts.createRouter();
  }

  info(): StreamInfo {
    const s: IngestStatus = this.ingest.currentStatus;
    const enc = this.opts.encode;
    return {
      id: this.id,
      name: this.opts.name,
      source: describeSource(parseSource(this.opts.source)),
      state: s.state,
      ...(s.error !== undefined ? { error: s.error } : {}),
      width: enc.width,
      height: enc.height,
      frameRate: enc.frameRate,
      ticksPerFrame: this.ticksPerFrame,
      framesIngested: this.framesIngested,
      restarts: s.restarts,
    };
  }

  get routerRtpCapabilities(): ms.RtpCapabilities {
    if (!this.router || this.router.closed) throw new RequestError('unavailable', 'media router is not available, try again');
    return this.router.rtpCapabilities;
  }

  viewerCount(): number {
    return this.viewers.size;
  }

  async addViewer(id: string, onClose: (reason: string) => void): Promise<ViewerSession> {
    if (this.closed) throw new ClosedError(`stream ${this.id}`);
    if (!this.router || this.router.closed) throw new RequestError('unavailable', 'media router is not available, try again');
    const viewer = await ViewerSession.create({
      id,
      router: this.router,
      policy: this.opts.createPolicy(),
      webRtc: this.opts.webRtc,
      log: this.opts.log,
      onClose: (reason) => {
        this.viewers.delete(id);
        onClose(reason);
      },
    });
    this.viewers.set(id, viewer);
    return viewer;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const v of [...this.viewers.values()]) v.close('stream closed');
    this.ingest.close();
    this.router?.close();
  }
}
