/**
 * The source frames a player could have decoded over a window: those the server ingested in it, so that a busy machine
 * slowing FFmpeg does not count against the player; but never more than the source's frame rate gives in the window's
 * time, as FFmpeg paces its input by the clock (`-re`) and catches up after a stall: one such burst (410 frames in
 * 10 s) read as 73% decoded while the player showed 29.7 frames a second.
 */
export function framesDue(ingested: number, frameRate: number, elapsedMs: number): number {
  return Math.min(ingested, (frameRate * elapsedMs) / 1000);
}
