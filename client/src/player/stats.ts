/**
 * Player statistics, counted in the worker and shown on the page and to tests
 * (see testHook.ts). Pure: the caller passes the time.
 */
import type { Color } from '@pels/shared/pels/color';
import type { LayerCounts, PlayerStats, QualityStats } from '@pels/shared/protocol/playerHook';
import type { TemporalId } from './frameMerger';

export type { LayerCounts, PlayerStats, QualityStats };

export const FPS_WINDOW_MS = 2000;

export function emptyStats(): PlayerStats {
  return {
    framesDecoded: { total: 0, tid0: 0, tid1: 0, tid2: 0 },
    fps: { total: 0, tid0: 0, tid1: 0, tid2: 0 },
    framesReceived: { green: 0, yellow: 0, red: 0 },
    framesSkipped: 0,
    framesLate: 0,
    decodeErrors: 0,
    packetsRecovered: 0,
    pliSent: 0,
    width: 0,
    height: 0,
    rendition: 0,
    renditionSwitches: 0,
    avSyncMs: null,
    audio: null,
    soundDelayMs: null,
    latencyMs: null,
    latencyFromCaptureMs: null,
    latencyStagesMs: null,
    freezes: 0,
    checksumMismatches: 0,
    checksumsCompared: 0,
    psnr: { mean: null, p5: null, last: null },
  };
}

/** Events per second over a sliding window. */
export class RateWindow {
  private readonly times: number[] = [];

  constructor(private readonly windowMs = FPS_WINDOW_MS) {}

  add(nowMs: number): void {
    this.times.push(nowMs);
    this.prune(nowMs);
  }

  rate(nowMs: number): number {
    this.prune(nowMs);
    return this.times.length / (this.windowMs / 1000);
  }

  private prune(nowMs: number): void {
    const from = nowMs - this.windowMs;
    let drop = 0;
    while (drop < this.times.length && this.times[drop]! <= from) drop++;
    if (drop) this.times.splice(0, drop);
  }
}

const LAYER_KEYS = ['tid0', 'tid1', 'tid2'] as const;

export class StatsCollector {
  private readonly stats = emptyStats();
  private readonly totalRate = new RateWindow();
  private readonly layerRates = [new RateWindow(), new RateWindow(), new RateWindow()] as const;

  received(color: Color): void {
    this.stats.framesReceived[color]++;
  }

  decoded(temporalId: TemporalId, width: number, height: number, rendition: number, nowMs: number): void {
    if (this.stats.framesDecoded.total > 0 && rendition !== this.stats.rendition) this.stats.renditionSwitches++;
    this.stats.rendition = rendition;
    this.stats.framesDecoded.total++;
    this.stats.framesDecoded[LAYER_KEYS[temporalId]]++;
    this.totalRate.add(nowMs);
    this.layerRates[temporalId].add(nowMs);
    this.stats.width = width;
    this.stats.height = height;
  }

  skipped(): void {
    this.stats.framesSkipped++;
  }

  late(): void {
    this.stats.framesLate++;
  }

  recovered(packets: number): void {
    this.stats.packetsRecovered = packets;
  }

  pliSent(): void {
    this.stats.pliSent++;
  }

  error(message: string): void {
    this.stats.decodeErrors++;
    this.stats.lastError = message;
  }

  snapshot(nowMs: number, quality: QualityStats): PlayerStats {
    const s = this.stats;
    return {
      ...s,
      ...quality,
      framesDecoded: { ...s.framesDecoded },
      fps: {
        total: this.totalRate.rate(nowMs),
        tid0: this.layerRates[0].rate(nowMs),
        tid1: this.layerRates[1].rate(nowMs),
        tid2: this.layerRates[2].rate(nowMs),
      },
      framesReceived: { ...s.framesReceived },
    };
  }
}
