/**
 * `window.pels` in the pages the specs, the testbed and the benchmarks open:
 * the player's test hook, as shared/src/protocol/playerHook.ts defines it.
 */
import type { PelsTestHook } from '@pels/shared/protocol/playerHook';

declare global {
  interface Window {
    pels?: PelsTestHook<MediaStreamTrack>;
  }
}
