/**
 * WebCodecs VP8 decoder that survives errors: a failed VideoDecoder is replaced by a
 * fresh one, and the owner is told so that it waits for the next keyframe.
 */
import type { TemporalId } from './frameMerger';

export const VP8_DECODER_CONFIG: VideoDecoderConfig = { codec: 'vp8', optimizeForLatency: true };

export interface DecoderSink {
  /** Owns `frame`: must close it. */
  onFrame(frame: VideoFrame, temporalId: TemporalId): void;
  onError(message: string): void;
}

export interface EncodedFrame {
  data: Uint8Array;
  /** Unwrapped RTP timestamp; comes back as VideoFrame.timestamp. */
  timestamp: number;
  keyframe: boolean;
  temporalId: TemporalId;
}

export class Vp8Decoder {
  private decoder: VideoDecoder;
  /** Layer of each frame in the decoder, by timestamp, in decode order. */
  private readonly inFlight = new Map<number, TemporalId>();
  private closed = false;

  constructor(private readonly sink: DecoderSink) {
    this.decoder = this.create();
  }

  /** Rejects when this browser cannot decode VP8 with WebCodecs. */
  static async checkSupport(): Promise<void> {
    if (typeof VideoDecoder === 'undefined') throw new Error('WebCodecs VideoDecoder is not available');
    const { supported } = await VideoDecoder.isConfigSupported(VP8_DECODER_CONFIG);
    if (!supported) throw new Error('this browser cannot decode VP8 with WebCodecs');
  }

  decode(frame: EncodedFrame): void {
    if (this.closed) return;
    this.inFlight.set(frame.timestamp, frame.temporalId);
    try {
      this.decoder.decode(new EncodedVideoChunk({ type: frame.keyframe ? 'key' : 'delta', timestamp: frame.timestamp, data: frame.data }));
    } catch (err) {
      this.fail(this.decoder, err);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.decoder.state !== 'closed') this.decoder.close();
    this.inFlight.clear();
  }

  private create(): VideoDecoder {
    const decoder: VideoDecoder = new VideoDecoder({
      output: (frame) => this.onOutput(decoder, frame),
      error: (err) => this.fail(decoder, err),
    });
    decoder.configure(VP8_DECODER_CONFIG);
    return decoder;
  }

  private onOutput(decoder: VideoDecoder, frame: VideoFrame): void {
    if (decoder !== this.decoder || this.closed) {
      frame.close();
      return;
    }
    const temporalId = this.inFlight.get(frame.timestamp) ?? 0;
    // Frames come out in decode order: forget this one and any the decoder dropped before it.
    for (const ts of this.inFlight.keys()) {
      if (ts > frame.timestamp) break;
      this.inFlight.delete(ts);
    }
    this.sink.onFrame(frame, temporalId);
  }

  private fail(decoder: VideoDecoder, err: unknown): void {
    // Errors of a decoder already replaced were reported when it was replaced.
    if (decoder !== this.decoder || this.closed) return;
    if (decoder.state !== 'closed') decoder.close();
    this.inFlight.clear();
    this.decoder = this.create();
    this.sink.onError(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
  }
}
