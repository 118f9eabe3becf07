/**
 * What the worker does with each received VP8 frame, before the merger: pure logic.
 */
import type { Color } from '@pels/shared/pels/color';
import { parseVp8FrameHeader } from '@pels/shared/vp8/frameHeader';
import type { TemporalId } from './frameMerger';

export type FrameClass =
  /** The server's 16x16 keyframe that opens mediasoup's keyframe gate on a resumed stream. */
  | { kind: 'synthetic-keyframe' }
  | { kind: 'media'; keyframe: boolean; temporalId: TemporalId; width: number; height: number }
  | { kind: 'invalid'; reason: string };

const SYNTHETIC_SIZE = 16;

/**
 * Reads the layer from the VP8 header: Chromium's encoded-frame metadata always
 * says temporalIndex 0 for these streams.
 */
export function classifyVp8Frame(data: Uint8Array): FrameClass {
  try {
    const h = parseVp8FrameHeader(data);
    if (h.keyframe && h.width === SYNTHETIC_SIZE && h.height === SYNTHETIC_SIZE) return { kind: 'synthetic-keyframe' };
    return { kind: 'media', keyframe: h.keyframe, temporalId: h.temporalId, width: h.width, height: h.height };
  } catch (err) {
    return { kind: 'invalid', reason: err instanceof Error ? err.message : String(err) };
  }
}

export type WriteBack = { kind: 'none' } | { kind: 'as-is' } | { kind: 'replace'; data: Uint8Array<ArrayBuffer> };

/**
 * Chromium's own receive pipeline sees no frames once the transform takes them all, and
 * then asks for a keyframe (PLI) about every 200 ms per stream. Feeding it only tiny
 * keyframes keeps it satisfied (one PLI every 2-3 s) at almost no decode cost: the
 * synthetic keyframes as they are, and green's real keyframes with their data replaced
 * by the last synthetic keyframe seen. Nothing else is written back.
 */
export class WriteBackPolicy {
  private synthetic: Uint8Array<ArrayBuffer> | undefined;

  decide(color: Color, cls: FrameClass, data: Uint8Array): WriteBack {
    if (cls.kind === 'synthetic-keyframe') {
      this.synthetic = data.slice();
      return { kind: 'as-is' };
    }
    if (color === 'green' && cls.kind === 'media' && cls.keyframe && this.synthetic) {
      return { kind: 'replace', data: this.synthetic.slice() };
    }
    return { kind: 'none' };
  }
}
