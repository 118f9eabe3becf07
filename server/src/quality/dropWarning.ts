import type { Logger } from '../log';

/** Planes dropped are logged at most this often. */
const DROP_LOG_MS = 10_000;

/**
 * The "quality measurement fell behind" warning: planes dropped unscored are
 * summed and logged at most every 10 s, with what dropped them (`fields`).
 */
export class DropWarning {
  private dropped = 0;
  private lastLog = -Infinity;

  constructor(
    private readonly log: Logger,
    private readonly fields: Record<string, unknown>,
  ) {}

  note(planes: number): void {
    this.dropped += planes;
    const now = Date.now();
    if (now - this.lastLog < DROP_LOG_MS) return;
    this.log.warn({ planes: this.dropped, ...this.fields }, 'quality measurement fell behind (the machine is short of CPU): planes dropped unscored, their frames get no PSNR row');
    this.dropped = 0;
    this.lastLog = now;
  }
}
