/**
 * How fast a stream's frames came, from its frame counter sampled a few times
 * a second: after a stall (a stopped FFmpeg, a busy machine) an ingest can
 * deliver seconds of frames at once, more than real time, and a viewer's link
 * sized for real time overflows. Pure: samples are given.
 */

/** A stream's frame counter at time `t` (ms), made monotonic by the caller. */
export interface FrameCount {
  t: number;
  frames: number;
}

/** Faster than this many times the frame rate over a second: catching up, not real time. */
export const CATCH_UP_RATIO = 1.2;
const WINDOW_MS = 1000;

export interface IngestPace {
  /** The most frames any second (from one sample to the first at least a second before it) held, over the frame rate. */
  peakX: number;
  /** Milliseconds from `fromMs` to the end of the last second faster than CATCH_UP_RATIO x real time; 0 when none was. */
  fastForMs: number;
}

/** The pace over the seconds ending in [fromMs, toMs]; null when no second fits. */
export function ingestPace(samples: readonly FrameCount[], fromMs: number, toMs: number, fps: number): IngestPace | null {
  let peak: number | null = null;
  let fastUntil = fromMs;
  let j = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    if (s.t < fromMs || s.t > toMs) continue;
    // The latest sample at least a second before this one.
    while (j + 1 < i && samples[j + 1]!.t <= s.t - WINDOW_MS) j++;
    const b = samples[j]!;
    if (j >= i || b.t > s.t - WINDOW_MS) continue;
    const x = ((s.frames - b.frames) * 1000) / (s.t - b.t) / fps;
    peak = Math.max(peak ?? 0, x);
    if (x > CATCH_UP_RATIO) fastUntil = s.t;
  }
  return peak === null ? null : { peakX: Math.round(peak * 100) / 100, fastForMs: fastUntil - fromMs };
}
